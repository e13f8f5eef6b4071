/*
 * edonio: collective reads and writes through the block owners.
 *
 * The owners of the blocks are the aggregators. Every process cuts its request (any file view,
 * any buffer type) into pieces at block boundaries; each piece goes to its block's owner in one
 * all-to-all exchange, and the owner stores it in, or serves it from, its own segment. A read
 * sends the pieces' descriptions out and the bytes back.
 *
 * Memory is bounded: the call runs in rounds, each covering a window of the file that starts at
 * the lowest byte any process still has to move and ends where the first process would pass its
 * budget (ROMIO's cb_buffer_size), so a process sends at most that much per round, stretches of
 * the file where nobody has data cost nothing, and a call whose requests fit the budget takes one
 * round however far apart they are. Because a window is a range of the file, every byte's writers
 * meet at its owner in the same round, and the owner applies what it receives in rank order:
 * where requests overlap, the highest rank's bytes are the ones left (rank ordering, the default
 * for MPI atomic mode; doc/atomicity.md).
 *
 * Per round: one MPI_Allreduce (the window), one MPI_Alltoall (counts), one MPI_Alltoallv of
 * piece descriptions (16 bytes each) and one of data. Then every process agrees on the outcome.
 */
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

/* Copy n bytes between the next bytes of the buffer and data (to_mem: into the buffer). */
void ADIOI_EDONIO_Mem_copy(struct edonio_mem *m, char *data, ADIO_Offset n, int to_mem)
{
    while (n > 0) {
        char *at;
        ADIO_Offset room = n;

        if (m->flat == NULL) {
            at = m->buf + m->in_blk;
        } else {
            room = m->flat->blocklens[m->blk] - m->in_blk;
            if (room <= 0) { /* the next block, or the next copy of the type */
                m->in_blk = 0;
                if (++m->blk == m->flat->count) {
                    m->blk = 0;
                    m->rep++;
                }
                continue;
            }
            at = m->buf + m->rep * m->extent + m->flat->indices[m->blk] + m->in_blk;
            if (room > n)
                room = n;
        }
        if (to_mem)
            memcpy(at, data, (size_t)room);
        else
            memcpy(data, at, (size_t)room);
        data += room;
        n -= room;
        m->in_blk += room;
    }
}

/* This process's extents (and the individual file pointer moved past them, as ROMIO does). */
void ADIOI_EDONIO_Req_init(ADIO_File fd, struct edonio_req *req, const void *buf, int count,
                           MPI_Datatype datatype, int file_ptr_type, ADIO_Offset offset)
{
    ADIO_Offset first, last;

    memset(req, 0, sizeof(*req));
    ADIOI_Calc_my_off_len(fd, count, datatype, file_ptr_type, offset, &req->off, &req->len, &first,
                          &last, &req->n);
    for (int i = 0; i < req->n; i++)
        req->bytes += req->len[i];
    req->start = req->bytes > 0 ? first : EDONIO_COLL_NONE;
    req->end = req->bytes > 0 ? last + 1 : 0;
    mem_init(&req->mem, buf, count, datatype);
}

/* Back to the first byte (after a pass that moved no data). */
void ADIOI_EDONIO_Req_rewind(struct edonio_req *req)
{
    req->i = 0;
    req->done = 0;
}

void ADIOI_EDONIO_Req_free(struct edonio_req *req)
{
    ADIOI_Free(req->off); /* len is in the same allocation */
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

    for (int i = req->i; i < req->n; i++, done = 0) {
        ADIO_Offset have = req->len[i] - done;
        if (have >= left)
            return req->off[i] + done + left;
        left -= have;
    }
    return EDONIO_COLL_NONE;
}

/* Bytes one process sends in a round at most: cb_buffer_size, at least one block. */
ADIO_Offset ADIOI_EDONIO_Coll_round_size(ADIO_File fd)
{
    ADIO_Offset bs = edonio_state(fd)->hints.block_size;

    return fd->hints->cb_buffer_size > bs ? fd->hints->cb_buffer_size : bs;
}

/* ------------------------------------------------------------------ one round */

/*
 * A round's pieces in this process's stream order (each within one block), and the counts and
 * displacements of the exchange, per process: pieces (in int64 words, two per piece) and bytes.
 */
struct round {
    int64_t *piece; /* offset, length */
    int *owner;
    int n, cap;
    int *sn, *sb, *rn, *rb;     /* sent and received: header words, bytes */
    int *sdn, *sdb, *rdn, *rdb; /* their displacements */
    int64_t *shdr, *rhdr;
    char *sdata, *rdata;
};

static void round_init(struct round *r, int nprocs)
{
    memset(r, 0, sizeof(*r));
    r->sn = ADIOI_Calloc(8 * (size_t)nprocs, sizeof(int));
    r->sb = r->sn + nprocs;
    r->rn = r->sb + nprocs;
    r->rb = r->rn + nprocs;
    r->sdn = r->rb + nprocs;
    r->sdb = r->sdn + nprocs;
    r->rdn = r->sdb + nprocs;
    r->rdb = r->rdn + nprocs;
}

static void round_clear(struct round *r)
{
    if (r->shdr != NULL)
        ADIOI_Free(r->shdr); /* rhdr, sdata and rdata share this allocation */
    r->shdr = NULL;
    r->n = 0;
}

static void round_free(struct round *r)
{
    round_clear(r);
    if (r->piece != NULL)
        ADIOI_Free(r->piece);
    if (r->owner != NULL)
        ADIOI_Free(r->owner);
    ADIOI_Free(r->sn);
}

static void add_piece(struct round *r, ADIO_Offset off, ADIO_Offset len, int owner)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 256;
        r->piece = ADIOI_Realloc(r->piece, 2 * (size_t)r->cap * sizeof(*r->piece));
        r->owner = ADIOI_Realloc(r->owner, (size_t)r->cap * sizeof(*r->owner));
    }
    r->piece[2 * r->n] = off;
    r->piece[2 * r->n + 1] = len;
    r->owner[r->n++] = owner;
}

/* Take this process's bytes below hi, cut at block boundaries. */
static void collect(struct edonio_file *ef, struct edonio_req *req, ADIO_Offset hi, struct round *r)
{
    ADIO_Offset bs = ef->hints.block_size, at;

    while ((at = req_next(req)) < hi) {
        ADIO_Offset len = req->len[req->i] - req->done, block = at / bs;
        if (len > hi - at)
            len = hi - at;
        if (len > (block + 1) * bs - at)
            len = (block + 1) * bs - at;
        add_piece(r, at, len, edonio_owner(block, ef->nprocs));
        req->done += len;
    }
}

static void displacements(const int *count, int *displ, int nprocs)
{
    displ[0] = 0;
    for (int p = 1; p < nprocs; p++)
        displ[p] = displ[p - 1] + count[p - 1];
}

/* Counts both ways, then the piece descriptions to their owners (grouped by owner, in order). */
static void exchange_headers(struct edonio_file *ef, struct round *r)
{
    int nprocs = ef->nprocs, *cnt = ADIOI_Malloc(4 * (size_t)nprocs * sizeof(int));
    int *rcnt = cnt + 2 * nprocs, nh = 0;

    memset(cnt, 0, 2 * (size_t)nprocs * sizeof(int));
    for (int k = 0; k < r->n; k++) {
        cnt[2 * r->owner[k]] += 2;
        cnt[2 * r->owner[k] + 1] += (int)r->piece[2 * k + 1];
    }
    MPI_Alltoall(cnt, 2, MPI_INT, rcnt, 2, MPI_INT, ef->comm);
    for (int p = 0; p < nprocs; p++) {
        r->sn[p] = cnt[2 * p];
        r->sb[p] = cnt[2 * p + 1];
        r->rn[p] = rcnt[2 * p];
        r->rb[p] = rcnt[2 * p + 1];
    }
    ADIOI_Free(cnt);
    displacements(r->sn, r->sdn, nprocs);
    displacements(r->sb, r->sdb, nprocs);
    displacements(r->rn, r->rdn, nprocs);
    displacements(r->rb, r->rdb, nprocs);
    for (int p = 0; p < nprocs; p++)
        nh += r->rn[p];
    size_t hdr_bytes = ((size_t)2 * r->n + (size_t)nh + 1) * sizeof(int64_t);
    size_t sbytes = (size_t)r->sdb[nprocs - 1] + (size_t)r->sb[nprocs - 1];
    size_t rbytes = (size_t)r->rdb[nprocs - 1] + (size_t)r->rb[nprocs - 1];
    r->shdr = ADIOI_Malloc(hdr_bytes + sbytes + rbytes + 1);
    r->rhdr = r->shdr + 2 * r->n;
    r->sdata = (char *)(r->rhdr + nh + 1);
    r->rdata = r->sdata + sbytes;
    int *at = ADIOI_Malloc((size_t)nprocs * sizeof(int));
    memcpy(at, r->sdn, (size_t)nprocs * sizeof(int));
    for (int k = 0; k < r->n; k++) {
        memcpy(r->shdr + at[r->owner[k]], r->piece + 2 * k, 2 * sizeof(int64_t));
        at[r->owner[k]] += 2;
    }
    ADIOI_Free(at);
    MPI_Alltoallv(r->shdr, r->sn, r->sdn, MPI_INT64_T, r->rhdr, r->rn, r->rdn, MPI_INT64_T,
                  ef->comm);
}

/* Copy each piece between memory and its owner's part of buf (displ: where each part starts). */
static void pack(struct edonio_req *req, struct round *r, char *buf, const int *displ, int to_mem,
                 int nprocs)
{
    int *at = ADIOI_Malloc((size_t)nprocs * sizeof(int));

    memcpy(at, displ, (size_t)nprocs * sizeof(int));
    for (int k = 0; k < r->n; k++) {
        ADIOI_EDONIO_Mem_copy(&req->mem, buf + at[r->owner[k]], r->piece[2 * k + 1], to_mem);
        at[r->owner[k]] += (int)r->piece[2 * k + 1];
    }
    ADIOI_Free(at);
}

static int64_t received_pieces(const struct round *r, int nprocs)
{
    return ((int64_t)r->rdn[nprocs - 1] + r->rn[nprocs - 1]) / 2;
}

/* One round of op over [lo, hi); errno of this process's first failure, or 0. */
static int round_do(ADIO_File fd, struct edonio_req *req, int active, ADIO_Offset hi,
                    enum edonio_coll_op op, struct edonio_edges *edges, struct round *r)
{
    struct edonio_file *ef = edonio_state(fd);
    int nprocs = ef->nprocs, err = 0;

    if (active)
        collect(ef, req, hi, r);
    exchange_headers(ef, r);
    switch (op) {
        case EDONIO_COLL_WRITE:
            pack(req, r, r->sdata, r->sdb, 0, nprocs);
            MPI_Alltoallv(r->sdata, r->sb, r->sdb, MPI_BYTE, r->rdata, r->rb, r->rdb, MPI_BYTE,
                          ef->comm);
            err = ADIOI_EDONIO_Cache_owner_io(fd, r->rhdr, received_pieces(r, nprocs), r->rdata,
                                              1);
            break;
        case EDONIO_COLL_READ:
            err = ADIOI_EDONIO_Cache_owner_io(fd, r->rhdr, received_pieces(r, nprocs), r->rdata,
                                              0);
            MPI_Alltoallv(r->rdata, r->rb, r->rdb, MPI_BYTE, r->sdata, r->sb, r->sdb, MPI_BYTE,
                          ef->comm);
            pack(req, r, r->sdata, r->sdb, 1, nprocs);
            break;
        case EDONIO_COLL_DETECT:
            ADIOI_EDONIO_Edges_find(edges, r->rhdr, r->rn, r->rdn, nprocs);
            break;
    }
    ef->stats.coll_rounds++;
    round_clear(r);
    return err;
}

/*
 * Collective: op over the requests of the active processes (the others take part with nothing),
 * round by round. errno of this process's first failure, or 0; the caller makes everyone agree.
 */
int ADIOI_EDONIO_Coll_run(ADIO_File fd, struct edonio_req *req, int active,
                          enum edonio_coll_op op, struct edonio_edges *edges)
{
    struct edonio_file *ef = edonio_state(fd);
    ADIO_Offset budget = ADIOI_EDONIO_Coll_round_size(fd);
    struct round r;
    int err = 0;

    round_init(&r, ef->nprocs);
    for (;;) {
        /* The window: from the lowest next byte to the lowest offset where some process would
         * pass its budget; one MPI_Allreduce finds both. */
        long long mine[2] = {EDONIO_COLL_NONE, EDONIO_COLL_NONE}, all[2];
        if (active) {
            mine[0] = req_next(req);
            mine[1] = req_limit(req, budget);
        }
        MPI_Allreduce(mine, all, 2, MPI_LONG_LONG, MPI_MIN, ef->comm);
        if (all[0] == EDONIO_COLL_NONE)
            break;
        int e = round_do(fd, req, active, all[1], op, edges, &r);
        if (e && !err)
            err = e;
    }
    round_free(&r);
    return err;
}

/*
 * This process's request on its own, through the cache like independent I/O: each piece straight
 * into or out of its owner's segment. Memory that is not contiguous goes through a bounce buffer
 * of at most a round's budget. errno or 0.
 */
int ADIOI_EDONIO_Req_independent(ADIO_File fd, struct edonio_req *req, int writing)
{
    ADIO_Offset chunk = ADIOI_EDONIO_Coll_round_size(fd), got;
    char *tmp = NULL;
    int err = 0;

    if (req->bytes == 0)
        return 0;
    if (req->mem.flat != NULL)
        tmp = ADIOI_Malloc((size_t)(chunk < req->bytes ? chunk : req->bytes));
    for (int i = 0; i < req->n && err == 0; i++) {
        for (ADIO_Offset done = 0; done < req->len[i] && err == 0;) {
            ADIO_Offset len = req->len[i] - done, off = req->off[i] + done;
            if (tmp != NULL && len > chunk)
                len = chunk;
            char *at = tmp != NULL ? tmp : req->mem.buf + req->mem.in_blk;
            if (writing && tmp != NULL)
                ADIOI_EDONIO_Mem_copy(&req->mem, tmp, len, 0);
            if (writing) {
                err = ADIOI_EDONIO_Cache_write(fd, at, off, len);
            } else {
                err = ADIOI_EDONIO_Cache_read(fd, at, off, len, &got);
                memset(at + got, 0, (size_t)(len - got));
            }
            if (!writing && tmp != NULL)
                ADIOI_EDONIO_Mem_copy(&req->mem, tmp, len, 1);
            if (tmp == NULL)
                req->mem.in_blk += len;
            done += len;
        }
    }
    if (tmp != NULL)
        ADIOI_Free(tmp);
    return err;
}

/* ------------------------------------------------------------------ the entry points */

/*
 * On one node, where every process reaches every owner's segment in shared memory, the exchange
 * only adds copies: each process puts its pieces in place itself (romio_edonio_coll_path=auto),
 * except for atomic writes, whose ordering is the exchange's (doc/atomicity.md).
 */
static int direct(ADIO_File fd, int writing)
{
    struct edonio_file *ef = edonio_state(fd);

    return ef->access == EDONIO_ACCESS_SHARED && ef->hints.coll_path == EDONIO_COLL_PATH_AUTO &&
           !(writing && fd->atomicity);
}

/* Collective calls go through the owners unless this handle has no cache of its own. */
static int through_owners(ADIO_File fd)
{
    struct edonio_file *ef = edonio_state(fd);

    return ef != NULL && ef->access != EDONIO_ACCESS_NONE && ef->primary == NULL;
}

/* Bytes of the request before the file's end (a read past it is short, as an independent one). */
static MPI_Count bytes_before(const struct edonio_req *req, ADIO_Offset size)
{
    MPI_Count n = 0;

    for (int i = 0; i < req->n; i++)
        if (req->off[i] < size)
            n += req->off[i] + req->len[i] <= size ? req->len[i] : size - req->off[i];
    return n;
}

static void finish(ADIO_File fd, const char *myname, int err, MPI_Count bytes,
                   MPI_Datatype datatype, ADIO_Status *status, int *error_code)
{
    fd->fp_sys_posn = -1;
    *error_code = err ? ADIOI_EDONIO_Err(myname, fd->filename, err) : MPI_SUCCESS;
    ADIOI_EDONIO_Agree(edonio_state(fd)->comm, error_code);
    if (*error_code == MPI_SUCCESS)
        MPIR_Status_set_bytes(status, datatype, bytes);
}

/* ROMIO's romio_cb_write / romio_cb_read = disable: every process on its own, through the cache. */
static int cb_disabled(ADIO_File fd, int writing)
{
    return (writing ? fd->hints->cb_write : fd->hints->cb_read) == ADIOI_HINT_DISABLE;
}

void ADIOI_EDONIO_WriteStridedColl(ADIO_File fd, const void *buf, int count,
                                   MPI_Datatype datatype, int file_ptr_type, ADIO_Offset offset,
                                   ADIO_Status *status, int *error_code)
{
    static char myname[] = "ADIOI_EDONIO_WRITESTRIDEDCOLL";
    struct edonio_file *ef = edonio_state(fd);
    struct edonio_req req;
    int err;

    if (!through_owners(fd)) {
        ADIOI_GEN_WriteStridedColl(fd, buf, count, datatype, file_ptr_type, offset, status,
                                   error_code);
        return;
    }
    ADIOI_EDONIO_Req_init(fd, &req, buf, count, datatype, file_ptr_type, offset);
    if (req.bytes > 0) /* what is written is part of the file, as for independent writes */
        ADIOI_EDONIO_Size_max(ef, EDONIO_SIZE_FILE, req.end);
    if (fd->atomicity && ef->hints.atomicity == EDONIO_ATOMIC_LOCKING)
        err = ADIOI_EDONIO_Locked_io(fd, &req, 1);
    else if (fd->atomicity && ef->hints.atomicity == EDONIO_ATOMIC_GRAPH_COLORING)
        err = ADIOI_EDONIO_Coloured_write(fd, &req);
    else if (direct(fd, 1) || (!fd->atomicity && cb_disabled(fd, 1)))
        err = ADIOI_EDONIO_Req_independent(fd, &req, 1);
    else
        err = ADIOI_EDONIO_Coll_run(fd, &req, 1, EDONIO_COLL_WRITE, NULL);
    finish(fd, myname, err, req.bytes, datatype, status, error_code);
    ADIOI_EDONIO_Req_free(&req);
}

void ADIOI_EDONIO_ReadStridedColl(ADIO_File fd, void *buf, int count, MPI_Datatype datatype,
                                  int file_ptr_type, ADIO_Offset offset, ADIO_Status *status,
                                  int *error_code)
{
    static char myname[] = "ADIOI_EDONIO_READSTRIDEDCOLL";
    struct edonio_file *ef = edonio_state(fd);
    struct edonio_req req;
    ADIO_Offset size;
    int err;

    if (!through_owners(fd)) {
        ADIOI_GEN_ReadStridedColl(fd, buf, count, datatype, file_ptr_type, offset, status,
                                  error_code);
        return;
    }
    ADIOI_EDONIO_Req_init(fd, &req, buf, count, datatype, file_ptr_type, offset);
    size = ADIOI_EDONIO_Size_get(ef, EDONIO_SIZE_FILE);
    if (fd->atomicity && ef->hints.atomicity == EDONIO_ATOMIC_LOCKING)
        err = ADIOI_EDONIO_Locked_io(fd, &req, 0);
    else if (direct(fd, 0) || cb_disabled(fd, 0))
        err = ADIOI_EDONIO_Req_independent(fd, &req, 0);
    else
        err = ADIOI_EDONIO_Coll_run(fd, &req, 1, EDONIO_COLL_READ, NULL);
    finish(fd, myname, err, bytes_before(&req, size), datatype, status, error_code);
    ADIOI_EDONIO_Req_free(&req);
}

/*
 * The nonblocking collectives do their work when they start and return a completed request, as
 * ROMIO's FAKE entry points do for independent I/O. (A program that makes another process's
 * MPI_File_iwrite_all wait for a message it sends after its own would hang; doc/design.md.)
 */
/* A request already complete, for what a blocking call just did (its status's byte count). */
static void completed(ADIO_File fd, ADIO_Status *status, MPI_Request *request, int *error_code)
{
    MPI_Count bytes = 0;

    if (*error_code == MPI_SUCCESS)
        MPI_Get_elements_x(status, MPI_BYTE, &bytes);
    MPIO_Completed_request_create(&fd, (MPI_Offset)bytes, error_code, request);
}

void ADIOI_EDONIO_IwriteStridedColl(ADIO_File fd, const void *buf, int count,
                                    MPI_Datatype datatype, int file_ptr_type, ADIO_Offset offset,
                                    MPI_Request *request, int *error_code)
{
    ADIO_Status status;

    ADIO_WriteStridedColl(fd, buf, count, datatype, file_ptr_type, offset, &status, error_code);
    completed(fd, &status, request, error_code);
}

void ADIOI_EDONIO_IreadStridedColl(ADIO_File fd, void *buf, int count, MPI_Datatype datatype,
                                   int file_ptr_type, ADIO_Offset offset, MPI_Request *request,
                                   int *error_code)
{
    ADIO_Status status;

    ADIO_ReadStridedColl(fd, buf, count, datatype, file_ptr_type, offset, &status, error_code);
    completed(fd, &status, request, error_code);
}
