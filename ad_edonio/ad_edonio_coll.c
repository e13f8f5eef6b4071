/*
 * edonio: collective passes through the block owners, and collective reads and writes.
 *
 * The owners of the blocks are the aggregators. A pass takes every process's request (any file
 * view, any buffer type, or a remote segment's dirty extents to deliver), cuts it into pieces at
 * block boundaries, sends each piece to its block's owner in an exchange, and the owner stores it
 * in, or serves it from, its own segment. A read sends the pieces' descriptions out and the bytes
 * back.
 *
 * Memory is bounded: a pass runs in rounds, each covering a window of the file that starts at the
 * lowest byte any process still has to move and ends where the first process would pass its
 * budget (ROMIO's cb_buffer_size), so a process sends at most that much per round, stretches of
 * the file where nobody has data cost nothing, and a call whose requests fit the budget takes one
 * round however far apart they are. Because a window is a range of the file, every byte's writers
 * meet at its owner in the same round, and the owner applies what it receives in rank order:
 * where requests overlap, the highest rank's bytes are the ones left (rank ordering, the default
 * for MPI atomic mode; doc/atomicity.md).
 *
 * Per round: one MPI_Allreduce (the window), one MPI_Alltoall (counts), one MPI_Alltoallv of
 * piece descriptions (16 bytes each) and one of data (large counts: an owner may receive more than
 * 2 GiB in a round).
 */
#include <stdlib.h>
#include <string.h>

#include "ad_edonio_coll.h"

/* ------------------------------------------------------------------ the request */

static void mem_init(struct edonio_mem *m, const void *buf, int count, MPI_Datatype type)
{
    MPI_Aint lb;
    int contig;

    memset(m, 0, sizeof(*m));
    m->buf = (char *)buf;
    ADIOI_Datatype_iscontig(type, &contig);
    if (contig || count == 0)
        return;
    m->flat = ADIOI_Flatten_and_find(type);
    MPI_Type_get_extent(type, &lb, &m->extent);
}

/* The next run of memory, at most n bytes: where it is and how long. */
static char *mem_next(struct edonio_mem *m, ADIO_Offset n, ADIO_Offset *room)
{
    if (m->where != NULL) { /* a delivery: extent by extent (blk counts them) */
        while (m->in_blk >= m->len[m->blk]) {
            m->blk++;
            m->in_blk = 0;
        }
        *room = m->len[m->blk] - m->in_blk;
        *room = *room < n ? *room : n;
        return m->where[m->blk] + m->in_blk;
    }
    if (m->flat == NULL) {
        *room = n;
        return m->buf + m->in_blk;
    }
    while (m->flat->blocklens[m->blk] - m->in_blk <= 0) { /* the next block, or copy of the type */
        m->in_blk = 0;
        if (++m->blk == m->flat->count) {
            m->blk = 0;
            m->rep++;
        }
    }
    *room = m->flat->blocklens[m->blk] - m->in_blk;
    *room = *room < n ? *room : n;
    return m->buf + m->rep * m->extent + m->flat->indices[m->blk] + m->in_blk;
}

/* Copy n bytes between the next bytes of the memory and data (to_mem: into the memory). */
void ADIOI_EDONIO_Mem_copy(struct edonio_mem *m, char *data, ADIO_Offset n, int to_mem)
{
    while (n > 0) {
        ADIO_Offset room;
        char *at = mem_next(m, n, &room);
        if (to_mem)
            memcpy(at, data, (size_t)room);
        else
            memcpy(data, at, (size_t)room);
        data += room;
        n -= room;
        m->in_blk += room;
    }
}

static void req_bounds(struct edonio_req *req)
{
    req->bytes = 0;
    for (int64_t i = 0; i < req->n; i++)
        req->bytes += req->len[i];
    req->start = req->bytes > 0 ? req->off[0] : EDONIO_COLL_NONE;
    req->end = req->bytes > 0 ? req->off[req->n - 1] + req->len[req->n - 1] : 0;
}

/* This process's extents (and the individual file pointer moved past them, as ROMIO does). */
void ADIOI_EDONIO_Req_init(ADIO_File fd, struct edonio_req *req, const void *buf, int count,
                           MPI_Datatype datatype, int file_ptr_type, ADIO_Offset offset)
{
    ADIO_Offset first, last;
    int n;

    memset(req, 0, sizeof(*req));
    ADIOI_Calc_my_off_len(fd, count, datatype, file_ptr_type, offset, &req->off, &req->len, &first,
                          &last, &n);
    req->n = n;
    req_bounds(req);
    if (req->bytes > 0) { /* extents may start with empty ones */
        req->start = first;
        req->end = last + 1;
    }
    mem_init(&req->mem, buf, count, datatype);
}

/* Pieces to deliver: n extents in file order, the bytes of extent k at where[k]. */
void ADIOI_EDONIO_Req_pieces(struct edonio_req *req, ADIO_Offset *off, ADIO_Offset *len,
                             char **where, int64_t n)
{
    memset(req, 0, sizeof(*req));
    req->off = off;
    req->len = len;
    req->n = n;
    req_bounds(req);
    req->mem.where = where;
    req->mem.len = len;
}

/* Back to the first byte (after a pass that moved no data). */
void ADIOI_EDONIO_Req_rewind(struct edonio_req *req)
{
    req->i = 0;
    req->done = 0;
}

void ADIOI_EDONIO_Req_free(struct edonio_req *req)
{
    if (req->mem.where == NULL && req->off != NULL)
        ADIOI_Free(req->off); /* ROMIO's: len is in the same allocation */
}

/* The file offset of the next byte to move, or NONE. */
static ADIO_Offset req_next(struct edonio_req *req)
{
    while (req->i < req->n && req->done >= req->len[req->i]) {
        req->i++;
        req->done = 0;
    }
    return req->i < req->n ? req->off[req->i] + req->done : EDONIO_COLL_NONE;
}

/*
 * The file offset at which this process will have taken budget more bytes (NONE when it has
 * fewer left): no window may reach past it, so no process sends more than budget in a round.
 * Requests do not overlap themselves, so the window is at least budget bytes of the file long.
 */
static ADIO_Offset req_limit(struct edonio_req *req, ADIO_Offset budget)
{
    ADIO_Offset left = budget, done = req->done;

    for (int64_t i = req->i; i < req->n; i++, done = 0) {
        ADIO_Offset have = req->len[i] - done;
        if (have >= left)
            return req->off[i] + done + left;
        left -= have;
    }
    return EDONIO_COLL_NONE;
}

/* Bytes one process sends in a round at most: cb_buffer_size, at least one block. */
ADIO_Offset ADIOI_EDONIO_Coll_budget(ADIO_File fd)
{
    struct edonio_handle *h = edonio_handle(fd);

    return fd->hints->cb_buffer_size > h->hints.block_size ? fd->hints->cb_buffer_size
                                                            : h->hints.block_size;
}

/* ------------------------------------------------------------------ one round */

/*
 * A round's pieces in this process's stream order (each within one block), and the counts and
 * displacements of the exchange, per process: pieces (in int64 words, two per piece) and bytes.
 */
struct round {
    int64_t *piece; /* offset, length */
    int *owner;
    int64_t n, cap;
    MPI_Count *sn, *sb, *rn, *rb; /* sent and received: header words, bytes */
    MPI_Aint *sdn, *sdb, *rdn, *rdb; /* their displacements */
    int64_t *shdr, *rhdr;
    char *sdata, *rdata;
};

static int round_init(struct round *r, int nprocs)
{
    memset(r, 0, sizeof(*r));
    r->sn = calloc(4 * (size_t)nprocs, sizeof(MPI_Count));
    r->sdn = calloc(4 * (size_t)nprocs, sizeof(MPI_Aint));
    if (r->sn == NULL || r->sdn == NULL)
        return 0;
    r->sb = r->sn + nprocs;
    r->rn = r->sb + nprocs;
    r->rb = r->rn + nprocs;
    r->sdb = r->sdn + nprocs;
    r->rdn = r->sdb + nprocs;
    r->rdb = r->rdn + nprocs;
    return 1;
}

static void round_clear(struct round *r)
{
    free(r->shdr); /* rhdr, sdata and rdata share this allocation */
    r->shdr = NULL;
    r->n = 0;
}

static void round_free(struct round *r)
{
    round_clear(r);
    free(r->piece);
    free(r->owner);
    free(r->sn);
    free(r->sdn);
}

static int add_piece(struct round *r, ADIO_Offset off, ADIO_Offset len, int owner)
{
    if (r->n == r->cap) {
        int64_t cap = r->cap ? 2 * r->cap : 256;
        int64_t *piece = realloc(r->piece, 2 * (size_t)cap * sizeof(*piece));
        int *own = piece ? realloc(r->owner, (size_t)cap * sizeof(*own)) : NULL;
        if (piece != NULL)
            r->piece = piece;
        if (own == NULL)
            return 0;
        r->owner = own;
        r->cap = cap;
    }
    r->piece[2 * r->n] = off;
    r->piece[2 * r->n + 1] = len;
    r->owner[r->n++] = owner;
    return 1;
}

/* Take this process's bytes below hi, cut at block boundaries. 0 when out of memory. */
static int collect(const struct edonio_pass *pass, struct edonio_req *req, ADIO_Offset hi,
                   struct round *r)
{
    ADIO_Offset bs = pass->cache->hints.block_size, at;

    while ((at = req_next(req)) < hi) {
        ADIO_Offset len = req->len[req->i] - req->done, block = at / bs;
        if (len > hi - at)
            len = hi - at;
        if (len > (block + 1) * bs - at)
            len = (block + 1) * bs - at;
        if (!add_piece(r, at, len, edonio_owner(block, pass->cache->nprocs)))
            return 0;
        req->done += len;
    }
    return 1;
}

static void displacements(const MPI_Count *count, MPI_Aint *displ, int nprocs)
{
    displ[0] = 0;
    for (int p = 1; p < nprocs; p++)
        displ[p] = displ[p - 1] + (MPI_Aint)count[p - 1];
}

/* Counts both ways, then the piece descriptions to their owners (grouped by owner, in order). */
static int exchange_headers(const struct edonio_pass *pass, struct round *r)
{
    int nprocs = pass->cache->nprocs;
    int64_t *cnt = calloc(4 * (size_t)nprocs, sizeof(int64_t)), *rcnt = cnt + 2 * nprocs, nh = 0;
    MPI_Aint *at = malloc((size_t)nprocs * sizeof(*at));

    if (cnt == NULL || at == NULL)
        MPI_Abort(pass->comm, 1); /* a collective cannot be left half way */
    for (int64_t k = 0; k < r->n; k++) {
        cnt[2 * r->owner[k]] += 2;
        cnt[2 * r->owner[k] + 1] += r->piece[2 * k + 1];
    }
    MPI_Alltoall(cnt, 2, MPI_INT64_T, rcnt, 2, MPI_INT64_T, pass->comm);
    for (int p = 0; p < nprocs; p++) {
        r->sn[p] = cnt[2 * p];
        r->sb[p] = cnt[2 * p + 1];
        r->rn[p] = rcnt[2 * p];
        r->rb[p] = rcnt[2 * p + 1];
        nh += rcnt[2 * p];
    }
    free(cnt);
    displacements(r->sn, r->sdn, nprocs);
    displacements(r->sb, r->sdb, nprocs);
    displacements(r->rn, r->rdn, nprocs);
    displacements(r->rb, r->rdb, nprocs);
    size_t hdr_bytes = ((size_t)(2 * r->n + nh) + 1) * sizeof(int64_t);
    size_t sbytes = (size_t)(r->sdb[nprocs - 1] + r->sb[nprocs - 1]);
    size_t rbytes = (size_t)(r->rdb[nprocs - 1] + r->rb[nprocs - 1]);
    if ((r->shdr = malloc(hdr_bytes + sbytes + rbytes + 1)) == NULL)
        MPI_Abort(pass->comm, 1);
    r->rhdr = r->shdr + 2 * r->n;
    r->sdata = (char *)(r->rhdr + nh + 1);
    r->rdata = r->sdata + sbytes;
    memcpy(at, r->sdn, (size_t)nprocs * sizeof(*at));
    for (int64_t k = 0; k < r->n; k++) {
        memcpy(r->shdr + at[r->owner[k]], r->piece + 2 * k, 2 * sizeof(int64_t));
        at[r->owner[k]] += 2;
    }
    free(at);
    return MPI_Alltoallv_c(r->shdr, r->sn, r->sdn, MPI_INT64_T, r->rhdr, r->rn, r->rdn,
                           MPI_INT64_T, pass->comm);
}

/* Copy each piece between memory and its owner's part of buf (displ: where each part starts). */
static void pack(struct edonio_req *req, struct round *r, char *buf, const MPI_Aint *displ,
                 int to_mem, int nprocs)
{
    MPI_Aint *at = malloc((size_t)nprocs * sizeof(*at));

    memcpy(at, displ, (size_t)nprocs * sizeof(*at));
    for (int64_t k = 0; k < r->n; k++) {
        ADIOI_EDONIO_Mem_copy(&req->mem, buf + at[r->owner[k]], r->piece[2 * k + 1], to_mem);
        at[r->owner[k]] += (MPI_Aint)r->piece[2 * k + 1];
    }
    free(at);
}

/* Do the received pieces at this owner, source by source in rank order. */
static int apply(const struct edonio_pass *pass, struct round *r, int writing)
{
    struct edonio_cache *c = pass->cache;
    int64_t total = 0, nblocks = 0, *blocks = NULL;
    int err = 0, e;

    for (int p = 0; p < c->nprocs; p++)
        total += r->rn[p] / 2;
    if (writing && pass->keep != EDONIO_KEEP_ALL && total > 0 &&
        (blocks = malloc((size_t)total * sizeof(*blocks))) == NULL)
        return ENOMEM;
    for (int p = 0; p < c->nprocs; p++) {
        int note = pass->keep == EDONIO_KEEP_NONE ||
                   (pass->keep == EDONIO_KEEP_REACHED && !ADIOI_EDONIO_Node_reaches(c, p));
        e = ADIOI_EDONIO_Cache_apply(c, pass->st, r->rhdr + r->rdn[p], (int64_t)r->rn[p] / 2,
                                     r->rdata + r->rdb[p], writing, note ? blocks : NULL,
                                     &nblocks);
        if (e && !err)
            err = e;
    }
    if (nblocks > 0) {
        e = ADIOI_EDONIO_Cache_write_back_blocks(c, pass->st, blocks, nblocks,
                                                 pass->keep == EDONIO_KEEP_NONE);
        if (e && !err)
            err = e;
    }
    free(blocks);
    return err;
}

/* One round of the pass over [lo, hi); errno of this process's first failure, or 0. */
static int round_do(const struct edonio_pass *pass, struct edonio_req *req, int active,
                    ADIO_Offset hi, struct round *r)
{
    int nprocs = pass->cache->nprocs, err = 0;

    if (active && !collect(pass, req, hi, r))
        MPI_Abort(pass->comm, 1);
    exchange_headers(pass, r);
    switch (pass->op) {
        case EDONIO_COLL_WRITE:
            pack(req, r, r->sdata, r->sdb, 0, nprocs);
            MPI_Alltoallv_c(r->sdata, r->sb, r->sdb, MPI_BYTE, r->rdata, r->rb, r->rdb, MPI_BYTE,
                            pass->comm);
            err = apply(pass, r, 1);
            break;
        case EDONIO_COLL_READ:
            err = apply(pass, r, 0);
            MPI_Alltoallv_c(r->rdata, r->rb, r->rdb, MPI_BYTE, r->sdata, r->sb, r->sdb, MPI_BYTE,
                            pass->comm);
            pack(req, r, r->sdata, r->sdb, 1, nprocs);
            break;
        case EDONIO_COLL_DETECT:
            ADIOI_EDONIO_Edges_find(pass->edges, r->rhdr, r->rn, r->rdn, nprocs);
            break;
    }
    pass->st->coll_rounds++;
    round_clear(r);
    return err;
}

/*
 * Collective: the pass over the requests of the active processes (the others take part with
 * nothing), round by round. errno of this process's first failure, or 0; *anyone (when not NULL)
 * says whether any process failed, which the last round's reduction tells at no cost.
 */
int ADIOI_EDONIO_Coll_run(const struct edonio_pass *pass, struct edonio_req *req, int active,
                          int *anyone)
{
    struct round r;
    int err = 0;

    if (!round_init(&r, pass->cache->nprocs))
        MPI_Abort(pass->comm, 1);
    for (;;) {
        /* The window: from the lowest next byte to the lowest offset where some process would
         * pass its budget; and whether anyone failed so far. One MPI_Allreduce finds all. */
        long long mine[3] = {EDONIO_COLL_NONE, EDONIO_COLL_NONE, -(long long)(err != 0)}, all[3];
        if (active) {
            mine[0] = req_next(req);
            mine[1] = req_limit(req, pass->budget);
        }
        MPI_Allreduce(mine, all, 3, MPI_LONG_LONG, MPI_MIN, pass->comm);
        if (all[0] == EDONIO_COLL_NONE) {
            if (anyone != NULL)
                *anyone = all[2] != 0;
            break;
        }
        int e = round_do(pass, req, active, all[1], &r);
        if (e && !err)
            err = e;
    }
    round_free(&r);
    return err;
}

/*
 * This process's request on its own, through the cache like independent I/O: each piece straight
 * into or out of the segment that caches it here. Memory that is not contiguous goes through a
 * bounce buffer of at most 'chunk' bytes. errno or 0.
 */
int ADIOI_EDONIO_Req_independent(struct edonio_cache *c, struct edonio_stats *st,
                                 ADIO_Offset chunk, struct edonio_req *req, int writing)
{
    ADIO_Offset got;
    char *tmp = NULL;
    int err = 0;

    if (req->bytes == 0)
        return 0;
    if (req->mem.flat != NULL &&
        (tmp = malloc((size_t)(chunk < req->bytes ? chunk : req->bytes))) == NULL)
        return ENOMEM;
    for (int64_t i = 0; i < req->n && err == 0; i++) {
        for (ADIO_Offset done = 0; done < req->len[i] && err == 0;) {
            ADIO_Offset len = req->len[i] - done, off = req->off[i] + done;
            if (tmp != NULL && len > chunk)
                len = chunk;
            char *at = tmp != NULL ? tmp : req->mem.buf + req->mem.in_blk;
            if (writing && tmp != NULL)
                ADIOI_EDONIO_Mem_copy(&req->mem, tmp, len, 0);
            if (writing) {
                err = ADIOI_EDONIO_Cache_write(c, st, at, off, len);
            } else {
                err = ADIOI_EDONIO_Cache_read(c, st, at, off, len, &got);
                memset(at + got, 0, (size_t)(len - got));
            }
            if (!writing && tmp != NULL)
                ADIOI_EDONIO_Mem_copy(&req->mem, tmp, len, 1);
            if (tmp == NULL)
                req->mem.in_blk += len;
            done += len;
        }
    }
    free(tmp);
    return err;
}
