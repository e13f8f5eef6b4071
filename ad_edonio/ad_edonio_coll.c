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
 * Per round: one reduction (the window), then a sparse exchange: one message from each process to
 * each owner it has pieces for (their descriptions, 16 bytes each, and for a write their bytes; a
 * read's bytes come back in one reply per owner), and a nonblocking barrier. A process sends and
 * receives nothing for the owners it has nothing for, so a round costs O(partners + log P), not
 * ROMIO two-phase's all-to-all of counts; sizes are MPI_Count (more than 2 GiB per message). The
 * cutting and the window are ad_edonio_plan.c's, which perf/scale runs for 65,536 processes. A
 * round whose window reaches no process's budget is the last, and nothing follows it; a collective
 * write across nodes finds its first window in plan_write's reduction. A one-round write through
 * the owners so makes three collectives: that reduction, the exchange's barrier, and the agreement
 * on its outcome (test/cache/t_syncs.c counts them).
 *
 * A write's message to another owner with enough bytes in large enough pieces goes from where they
 * lie (the program's contiguous buffer, a remote segment's slots: a datatype of their addresses,
 * send_prepare), not copied into a send buffer first: at a delivery that copy, into memory touched
 * for the first time, cost as much as the transfer. Not where the processes crowd the machine:
 * there a typed message's fragments each wait for a descheduled peer, and the copy is cheaper.
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
    req->start = req->bytes > 0 ? req->off[0] : EDONIO_PLAN_NONE;
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

void ADIOI_EDONIO_Req_init_coll(ADIO_File fd, struct edonio_req *req, int writing, const void *buf,
                                int count, MPI_Datatype datatype, int file_ptr_type,
                                ADIO_Offset offset)
{
    struct edonio_handle *h = edonio_handle(fd);
    MPI_Count type_size = 0;

    MPI_Type_size_x(datatype, &type_size);
    struct edonio_sched_key key = {writing, file_ptr_type == ADIO_INDIVIDUAL,
                                   file_ptr_type == ADIO_INDIVIDUAL
                                       ? fd->fp_ind
                                       : fd->disp + (ADIO_Offset)fd->etype_size * offset,
                                   (ADIO_Offset)count * type_size};
    h->scheds.calls++;
    struct edonio_sched *plan = ADIOI_EDONIO_Sched_find(&h->scheds, &key);
    if (plan != NULL) {
        memset(req, 0, sizeof(*req));
        req->off = plan->off;
        req->len = plan->len;
        req->n = plan->n;
        req->start = plan->start;
        req->end = plan->end;
        req->bytes = plan->bytes;
        req->borrowed = 1;
        req->plan = plan;
        req->taken = 1;
        req->call = h->scheds.calls;
        if (file_ptr_type == ADIO_INDIVIDUAL)
            fd->fp_ind = plan->fp_after;
        mem_init(&req->mem, buf, count, datatype);
        h->stats.plans_reused++;
        return;
    }
    ADIOI_EDONIO_Req_init(fd, req, buf, count, datatype, file_ptr_type, offset);
    h->stats.plans_made++;
    struct edonio_sched made = {key,      req->off,   req->len,   req->n, req->start,
                                req->end, req->bytes, fd->fp_ind, 0,      NULL};
    req->plan = ADIOI_EDONIO_Sched_keep(&h->scheds, &made);
    req->borrowed = req->plan != NULL;
    req->call = h->scheds.calls;
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

void ADIOI_EDONIO_Req_free(struct edonio_req *req)
{
    if (req->mem.where == NULL && req->off != NULL && !req->borrowed)
        ADIOI_Free(req->off); /* ROMIO's: len is in the same allocation */
}

MPI_Count ADIOI_EDONIO_Req_bytes_before(const struct edonio_req *req, ADIO_Offset size)
{
    MPI_Count n = 0;

    for (int64_t i = 0; i < req->n; i++)
        if (req->off[i] < size)
            n += req->off[i] + req->len[i] <= size ? req->len[i] : size - req->off[i];
    return n;
}

/* Bytes one process sends in a round at most: cb_buffer_size, at least one block. */
ADIO_Offset ADIOI_EDONIO_Coll_budget(ADIO_File fd)
{
    struct edonio_handle *h = edonio_handle(fd);

    return fd->hints->cb_buffer_size > h->hints.block_size ? fd->hints->cb_buffer_size
                                                           : h->hints.block_size;
}

/* ------------------------------------------------------------------ buffers of a pass */

/*
 * A buffer of at least bytes: the smallest free one of the pool that is large enough; else a free
 * one too small, replaced; else a new one, kept in the pool while it has room. NULL: no memory.
 */
static char *ADIOI_EDONIO_Bufs_get(struct edonio_bufs *pool, size_t bytes)
{
    int best = -1, free_one = -1;

    if (pool == NULL)
        return malloc(bytes);
    for (int i = 0; i < pool->n; i++) {
        struct edonio_buf *b = &pool->b[i];
        if (b->busy)
            continue;
        free_one = i;
        if (b->cap >= bytes && (best < 0 || b->cap < pool->b[best].cap))
            best = i;
    }
    if (best < 0 && free_one >= 0) { /* too small: its memory is given back, a larger one taken */
        best = free_one;
        free(pool->b[best].p);
        pool->b[best] = (struct edonio_buf){malloc(bytes), bytes, 0};
    } else if (best < 0 && pool->n < EDONIO_BUFS_MAX) {
        best = pool->n++;
        pool->b[best] = (struct edonio_buf){malloc(bytes), bytes, 0};
    } else if (best < 0) {
        return malloc(bytes); /* every one in use: not kept */
    }
    if (pool->b[best].p == NULL) { /* the slot is left empty and free */
        pool->b[best].cap = 0;
        return NULL;
    }
    pool->b[best].busy = 1;
    return pool->b[best].p;
}

/* Give back a buffer of ADIOI_EDONIO_Bufs_get (one not kept in the pool is freed). */
static void ADIOI_EDONIO_Bufs_put(struct edonio_bufs *pool, char *p)
{
    for (int i = 0; pool != NULL && p != NULL && i < pool->n; i++)
        if (pool->b[i].p == p) {
            pool->b[i].busy = 0;
            return;
        }
    free(p);
}

static void ADIOI_EDONIO_Bufs_free(struct edonio_bufs *pool)
{
    for (int i = 0; i < pool->n; i++)
        free(pool->b[i].p);
    pool->n = 0;
}

/* ------------------------------------------------------------------ the sparse exchange */

static int by_peer(const void *a, const void *b)
{
    int x = ((const struct edonio_msg *)a)->peer, y = ((const struct edonio_msg *)b)->peer;
    return (x > y) - (x < y);
}

static void msgs_push(struct edonio_msg **m, int *n, int *cap, struct edonio_msg msg, MPI_Comm comm)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 16;
        if ((*m = realloc(*m, (size_t)*cap * sizeof(**m))) == NULL)
            MPI_Abort(comm, 1); /* a message cannot be left unreceived */
    }
    (*m)[(*n)++] = msg;
}

/*
 * Every process sends its messages with synchronous sends, receives whatever arrives, and enters
 * a nonblocking barrier once its own sends are matched; when the barrier completes, every message
 * of the exchange has been received (Hoefler, Siebert and Lumsdaine's NBX). A process pays for
 * its partners and the barrier's O(log P) steps, never for the processes it has nothing for.
 * Where the processes crowd their machine, a process that polls without progress gives its
 * processor away now and then (ADIOI_EDONIO_Idle).
 */
void ADIOI_EDONIO_Sparse_exchange(MPI_Comm comm, int tag, const struct edonio_msg *out, int nout,
                                  struct edonio_msg **in, int *nin, struct edonio_bufs *pool)
{
    MPI_Request *req = malloc(((size_t)nout + 1) * sizeof(*req)), barrier = MPI_REQUEST_NULL;
    int rank, cap = 0, done = 0, sent = 0, nreq = 0;

    MPI_Comm_rank(comm, &rank);
    *in = NULL;
    *nin = 0;
    if (req == NULL)
        MPI_Abort(comm, 1);
    for (int k = 0; k < nout; k++) {
        if (out[k].peer == rank) /* delivered in place */
            msgs_push(in, nin, &cap,
                      (struct edonio_msg){.peer = rank, .bytes = out[k].bytes, .data = out[k].data},
                      comm);
        else if (out[k].typed)
            MPI_Issend_c(MPI_BOTTOM, 1, out[k].type, out[k].peer, tag, comm, &req[nreq++]);
        else
            MPI_Issend_c(out[k].data, out[k].bytes, MPI_BYTE, out[k].peer, tag, comm, &req[nreq++]);
    }
    int crowded = ADIOI_EDONIO_Crowded(comm);

    for (int idle = 0; !done;) {
        MPI_Message handle;
        MPI_Status st;
        MPI_Count bytes;
        int flag;
        MPI_Improbe(MPI_ANY_SOURCE, tag, comm, &flag, &handle, &st);
        if (flag) {
            idle = 0;
            MPI_Get_count_c(&st, MPI_BYTE, &bytes);
            char *data = ADIOI_EDONIO_Bufs_get(pool, (size_t)bytes + 1);
            if (data == NULL)
                MPI_Abort(comm, 1);
            MPI_Mrecv_c(data, bytes, MPI_BYTE, &handle, MPI_STATUS_IGNORE);
            msgs_push(
                in, nin, &cap,
                (struct edonio_msg){.peer = st.MPI_SOURCE, .own = 1, .bytes = bytes, .data = data},
                comm);
        } else if (!sent) {
            MPI_Testall(nreq, req, &sent, MPI_STATUSES_IGNORE);
            if (sent)
                PMPI_Ibarrier(comm, &barrier); /* not the library's own (mpiio-glue/barrier.c) */
            else
                ADIOI_EDONIO_Idle(crowded, &idle); /* the partner may need our processor */
        } else {
            MPI_Test(&barrier, &done, MPI_STATUS_IGNORE);
            if (!done)
                ADIOI_EDONIO_Idle(crowded, &idle);
        }
    }
    free(req);
    if (*nin > 1)
        qsort(*in, (size_t)*nin, sizeof(**in), by_peer);
}

void ADIOI_EDONIO_Msgs_free(struct edonio_msg *m, int n, struct edonio_bufs *pool)
{
    for (int k = 0; k < n; k++)
        if (m[k].own)
            ADIOI_EDONIO_Bufs_put(pool, m[k].data);
    free(m);
}

/* ------------------------------------------------------------------ one round */

/*
 * A round's pieces in this process's stream order (each within one block), grouped by owner into
 * one message each: [n][offset, length] x n, then (writes) the bytes. A read's bytes come back in
 * one reply per owner, into rbuf.
 */
struct round {
    int64_t *piece; /* offset, length */
    int *owner;
    int64_t n, cap;
    uint64_t *key;          /* owner << 32 | piece: the pieces grouped by owner */
    int64_t *pos;           /* where each piece's bytes are: in sbuf (write) or rbuf (read) */
    struct edonio_msg *out; /* one per owner */
    int nout;
    char *sbuf, *rbuf;
    MPI_Count sbuf_size;
    MPI_Count *rpos; /* read: where each owner's reply goes in rbuf */
    /* sbuf, rbuf, the messages that arrive, a read's replies: kept for the next round */
    struct edonio_bufs bufs;
    int index;                            /* the round's, in its pass, from 0 */
    struct edonio_xlayout *rec, *rec_end; /* the pass's exchange recorded round by round */
    int rec_failed;                       /* a round could not be recorded: none kept */
    MPI_Count rec_bytes;                  /* the record's memory so far (x_fits) */
    struct edonio_xlayout *replay;        /* the kept round this round makes again */
};

static void round_clear(struct round *r)
{
    for (int g = 0; r->out != NULL && g < r->nout; g++)
        if (r->out[g].typed)
            MPI_Type_free(&r->out[g].type);
    free(r->key);
    free(r->pos);
    free(r->out);
    ADIOI_EDONIO_Bufs_put(&r->bufs, r->sbuf);
    ADIOI_EDONIO_Bufs_put(&r->bufs, r->rbuf);
    free(r->rpos);
    r->key = NULL;
    r->pos = NULL;
    r->out = NULL;
    r->sbuf = r->rbuf = NULL;
    r->rpos = NULL;
    r->n = 0;
    r->nout = 0;
}

static void round_free(struct round *r)
{
    round_clear(r);
    ADIOI_EDONIO_Bufs_free(&r->bufs);
    free(r->piece);
    free(r->owner);
}

static int add_piece(void *ctx, int64_t off, int64_t len, int owner)
{
    struct round *r = ctx;

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
    return r->n < ((int64_t)1 << 32); /* the key's room */
}

static int by_key(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The messages: the pieces grouped by owner, and where each piece's bytes go. 0: no memory. */
static int round_messages(struct round *r, int with_data)
{
    MPI_Count size = 0, at = 0, data = 0;

    r->key = malloc(((size_t)r->n + 1) * sizeof(*r->key));
    r->pos = malloc(((size_t)r->n + 1) * sizeof(*r->pos));
    r->out = malloc(((size_t)r->n + 1) * sizeof(*r->out));
    if (r->key == NULL || r->pos == NULL || r->out == NULL)
        return 0;
    for (int64_t k = 0; k < r->n; k++)
        r->key[k] = (uint64_t)r->owner[k] << 32 | (uint64_t)k;
    qsort(r->key, (size_t)r->n, sizeof(*r->key), by_key);
    for (int64_t j = 0; j < r->n; j++) { /* the groups, and each message's size */
        int64_t k = (int64_t)(r->key[j] & 0xffffffffu);
        if (j == 0 || r->owner[k] != r->out[r->nout - 1].peer)
            r->out[r->nout++] = (struct edonio_msg){.peer = r->owner[k], .bytes = sizeof(int64_t)};
        r->out[r->nout - 1].bytes += 2 * sizeof(int64_t) + (with_data ? r->piece[2 * k + 1] : 0);
        size += 2 * sizeof(int64_t) + (with_data ? r->piece[2 * k + 1] : 0);
    }
    /* Each message: its count, and room to start the next one on an 8-byte boundary. */
    size += (MPI_Count)(r->nout * 2 * sizeof(int64_t));
    r->sbuf_size = size;
    if ((r->sbuf = ADIOI_EDONIO_Bufs_get(&r->bufs, (size_t)size + 1)) == NULL)
        return 0;
    for (int g = 0, j = 0; g < r->nout; g++) { /* headers; the bytes' places */
        int64_t *hdr = (int64_t *)(r->sbuf + at), count = 0;
        r->out[g].data = r->sbuf + at;
        for (; j < r->n && (int)(r->key[j] >> 32) == r->out[g].peer; j++, count++) {
            int64_t k = (int64_t)(r->key[j] & 0xffffffffu);
            hdr[1 + 2 * count] = r->piece[2 * k];
            hdr[2 + 2 * count] = r->piece[2 * k + 1];
        }
        hdr[0] = count;
        MPI_Count bytes = (MPI_Count)((1 + 2 * count) * sizeof(int64_t));
        for (int64_t i = j - count; i < j; i++) {
            int64_t k = (int64_t)(r->key[i] & 0xffffffffu);
            r->pos[k] = with_data ? at + bytes : data;
            bytes += with_data ? r->piece[2 * k + 1] : 0;
            data += r->piece[2 * k + 1];
        }
        at += (bytes + 7) & ~(MPI_Count)7;
    }
    return 1;
}

/* Copy each piece between memory and its place in buf (to_mem: into the memory). */
static void pack(struct edonio_req *req, struct round *r, char *buf, int to_mem)
{
    for (int64_t k = 0; k < r->n; k++)
        ADIOI_EDONIO_Mem_copy(&req->mem, buf + r->pos[k], r->piece[2 * k + 1], to_mem);
}

/*
 * A message to another owner whose pieces average at least this many bytes goes from where they
 * lie (the program's contiguous buffer, or the remote segment's slots), not copied into sbuf:
 * copying 8 MiB per process into a fresh buffer cost 5-7 ms, as much as the transfer. Not on a
 * crowded machine (ADIOI_EDONIO_Crowded): MPI moves such a typed message in fragments, and each
 * needs the sender and the receiver to run, so a descheduled peer stalls every one, where a
 * contiguous message goes in one rendezvous. Across 2 simulated nodes at 4 ranks on 2 cores,
 * strided 8 KiB records took 0.38 s typed and 0.16 s copied (ufs 0.10 s), and BT-IO's close on 2
 * nodes of 2 processes 0.099 s and 0.024 s; at 2 ranks, a processor each, 37 and 38 ms.
 */
enum { IN_PLACE_PIECE = 4096, IN_PLACE_MIN = 65536 };

/* The runs of memory of the typed messages' pieces, in stream order: piece k's are
 * [first[k], first[k + 1]). */
struct runs {
    struct run {
        MPI_Count disp, len; /* its address (MPI_Get_address), its bytes */
    } * run;
    int64_t n, cap, *first;
};

static int runs_add(struct runs *u, char *at, ADIO_Offset len)
{
    if (u->n == u->cap) {
        int64_t cap = u->cap ? 2 * u->cap : 256;
        struct run *more = realloc(u->run, (size_t)cap * sizeof(*more));
        if (more == NULL)
            return 0;
        u->run = more;
        u->cap = cap;
    }
    MPI_Aint a;
    MPI_Get_address(at, &a);
    u->run[u->n++] = (struct run){(MPI_Count)a, len};
    return 1;
}

/* Piece k's runs of memory, recorded rather than copied. */
static int runs_piece(struct edonio_mem *m, struct runs *u, ADIO_Offset n)
{
    while (n > 0) {
        ADIO_Offset room;
        char *at = mem_next(m, n, &room);
        if (!runs_add(u, at, room))
            return 0;
        n -= room;
        m->in_blk += room;
    }
    return 1;
}

/* A typed message: its header (at out->data), then its pieces' runs in group order. */
static int type_message(struct round *r, struct runs *u, struct edonio_msg *out, int64_t j0,
                        int64_t j1, MPI_Count hdr)
{
    int64_t nb = 1;
    for (int64_t j = j0; j < j1; j++) {
        int64_t k = (int64_t)(r->key[j] & 0xffffffffu);
        nb += u->first[k + 1] - u->first[k];
    }
    MPI_Count *disp = malloc((size_t)nb * sizeof(*disp)), *len = malloc((size_t)nb * sizeof(*len));
    MPI_Aint a;
    int ok = disp != NULL && len != NULL;
    if (ok) {
        MPI_Get_address(out->data, &a);
        disp[0] = (MPI_Count)a;
        len[0] = hdr;
        nb = 1;
        for (int64_t j = j0; j < j1; j++) {
            int64_t k = (int64_t)(r->key[j] & 0xffffffffu);
            for (int64_t i = u->first[k]; i < u->first[k + 1]; i++) {
                if (disp[nb - 1] + len[nb - 1] == u->run[i].disp) { /* adjacent: one run */
                    len[nb - 1] += u->run[i].len;
                    continue;
                }
                disp[nb] = u->run[i].disp;
                len[nb++] = u->run[i].len;
            }
        }
        ok = MPI_Type_create_hindexed_c(nb, len, disp, MPI_BYTE, &out->type) == MPI_SUCCESS &&
             MPI_Type_commit(&out->type) == MPI_SUCCESS;
        out->typed = ok;
    }
    free(disp);
    free(len);
    return ok;
}

/*
 * A write round's data: the pieces of messages to other owners that are large enough are sent
 * from where they lie (a datatype of their addresses) unless the machine is crowded, the others
 * copied into sbuf after their headers. 0: no memory.
 */
static int send_prepare(struct edonio_req *req, struct round *r, int me, int crowded)
{
    struct runs u = {0};
    int64_t j = 0, any = 0;
    int ok = 1;

    for (int g = 0; g < r->nout; g++) { /* which groups are typed: their pieces' pos is -1 */
        int64_t j0 = j, count = 0;
        for (; j < r->n && (int)(r->key[j] >> 32) == r->out[g].peer; j++)
            count++;
        MPI_Count data = r->out[g].bytes - (MPI_Count)((1 + 2 * count) * sizeof(int64_t));
        if (!crowded && r->out[g].peer != me && req->mem.flat == NULL && data >= IN_PLACE_MIN &&
            data / count >= IN_PLACE_PIECE) {
            any = 1;
            for (int64_t i = j0; i < j; i++)
                r->pos[r->key[i] & 0xffffffffu] = -1;
        }
    }
    if (!any) {
        pack(req, r, r->sbuf, 0);
        return 1;
    }
    if ((u.first = malloc(((size_t)r->n + 1) * sizeof(*u.first))) == NULL)
        return 0;
    for (int64_t k = 0; k < r->n && ok; k++) {
        u.first[k] = u.n;
        if (r->pos[k] >= 0)
            ADIOI_EDONIO_Mem_copy(&req->mem, r->sbuf + r->pos[k], r->piece[2 * k + 1], 0);
        else
            ok = runs_piece(&req->mem, &u, r->piece[2 * k + 1]);
    }
    u.first[r->n] = u.n;
    j = 0;
    for (int g = 0; g < r->nout && ok; g++) {
        int64_t j0 = j;
        for (; j < r->n && (int)(r->key[j] >> 32) == r->out[g].peer; j++)
            ;
        if (r->pos[r->key[j0] & 0xffffffffu] < 0)
            ok = type_message(r, &u, &r->out[g], j0, j,
                              (MPI_Count)((1 + 2 * (j - j0)) * sizeof(int64_t)));
    }
    free(u.first);
    free(u.run);
    return ok;
}

/* A message's pieces: their count, their headers, their bytes. */
static int64_t msg_pieces(const struct edonio_msg *m, const int64_t **hdr, char **data)
{
    int64_t n = ((const int64_t *)m->data)[0];
    *hdr = (const int64_t *)m->data + 1;
    *data = m->data + (1 + 2 * n) * sizeof(int64_t);
    return n;
}

/* Pieces by file offset, then by their place in rank order. */
static int by_offset(const struct edonio_wpiece *a, const struct edonio_wpiece *b)
{
    if (a->off != b->off)
        return (a->off > b->off) - (a->off < b->off);
    return (a->seq > b->seq) - (a->seq < b->seq);
}

static int by_offset_q(const void *a, const void *b)
{
    return by_offset(a, b);
}

/* Merge the sorted runs [at[i], at[i + 1]) of p into one sorted list, pairwise (tmp: n places). */
static void merge_runs(struct edonio_wpiece *p, struct edonio_wpiece *tmp, int64_t n, int64_t *at,
                       int nruns)
{
    while (nruns > 1) {
        int k = 0;
        for (int i = 0; i < nruns; i += 2, k++) { /* runs i and i + 1 (if any) into one */
            int64_t lo = at[i], mid = at[i + 1], hi = i + 1 < nruns ? at[i + 2] : mid;
            for (int64_t x = lo, y = mid, o = lo; o < hi; o++)
                tmp[o] = y >= hi || (x < mid && by_offset(&p[x], &p[y]) <= 0) ? p[x++] : p[y++];
            at[k] = lo;
        }
        at[k] = n;
        nruns = k;
        memcpy(p, tmp, (size_t)n * sizeof(*p));
    }
}

static int by_seq(const void *a, const void *b)
{
    int64_t x = ((const struct edonio_wpiece *)a)->seq, y = ((const struct edonio_wpiece *)b)->seq;
    return (x > y) - (x < y);
}

static int runs_sorted(const struct edonio_wpiece *p, const int64_t *at, int nruns)
{
    for (int k = 0; k < nruns; k++)
        for (int64_t i = at[k] + 1; i < at[k + 1]; i++)
            if (by_offset(&p[i - 1], &p[i]) > 0)
                return 0;
    return 1;
}

/*
 * The order in which an owner applies what it received: file order, so that a block's pieces from
 * several processes join into few dirty extents as they are added (a *-cyclic or shuffled pattern
 * sends every process's pieces of a block interleaved with the others': applied source by source,
 * each source's alone would fill the slot's EDONIO_MAX_EXTENTS and send the block to the file 128
 * pieces at a time, one write per piece). Where two pieces overlap, rank order stays (the higher
 * rank's bytes win: doc/atomicity.md), so the sorted list is put back in rank order. Each source's
 * pieces come in its stream order, which is file order for a file view: they are merged as runs.
 */
static void file_order(struct edonio_wpiece *p, int64_t n, int64_t *at, int nruns)
{
    struct edonio_wpiece *tmp = malloc(((size_t)n + 1) * sizeof(*tmp));

    if (tmp != NULL && runs_sorted(p, at, nruns))
        merge_runs(p, tmp, n, at, nruns);
    else
        qsort(p, (size_t)n, sizeof(*p), by_offset_q);
    free(tmp);
    for (int64_t i = 1; i < n; i++)
        if (p[i - 1].off + p[i - 1].len > p[i].off) { /* an overlap: rank order */
            qsort(p, (size_t)n, sizeof(*p), by_seq);
            return;
        }
}

/* Are the pieces from this peer noted: their blocks written back at once (pass->keep)? */
static int noted(const struct edonio_pass *pass, int peer)
{
    return pass->keep == EDONIO_KEEP_NONE ||
           (pass->keep == EDONIO_KEEP_REACHED && !ADIOI_EDONIO_Node_reaches(pass->cache, peer));
}

/*
 * Every piece that came here in one list, source after source in rank order (at[k]: where source
 * k's begin), each noted when its block goes back to the file at once (pass->keep). NULL: no
 * memory.
 */
static struct edonio_wpiece *gather_pieces(const struct edonio_pass *pass, struct edonio_msg *in,
                                           int nin, int64_t total, int64_t *at)
{
    struct edonio_wpiece *p = malloc(((size_t)total + 1) * sizeof(*p));
    const int64_t *hdr;
    char *data;
    int64_t i = 0;

    for (int k = 0; p != NULL && k < nin; k++) {
        int64_t n = msg_pieces(&in[k], &hdr, &data);
        int note = noted(pass, in[k].peer);
        at[k] = i;
        for (int64_t j = 0; j < n; j++, i++) {
            p[i] = (struct edonio_wpiece){hdr[2 * j], hdr[2 * j + 1], data, i, note, k};
            data += hdr[2 * j + 1];
        }
    }
    at[nin] = total;
    return p;
}

/*
 * A collective call's exchange with the owners as one call made it, round by round (issue 43 A;
 * doc/design.md, "Plans reused"). A write's: where each piece's bytes go in the send buffer, the
 * messages' places and headers there, and the messages that came to this process. A read's:
 * where each piece's bytes arrive in the receive buffer, the owners' replies' places there, and,
 * as an owner, which pieces each process asked for (their headers) and the size of its reply.
 * Made again only when every process takes the exchange recorded in the same call (its stamp):
 * then every process sends what it sent then, so each receives what it received then, and the
 * messages' sizes are known: receives posted before the sends, no probing, no nonblocking
 * barrier; a read sends no descriptions at all, only the replies.
 */
struct edonio_xlayout {
    long long stamp; /* the handle's collective call that recorded it: the same everywhere */
    int64_t n;       /* pieces, in this process's stream order */
    int64_t *pos;    /* where each one's bytes go in the send buffer (a read's: receive buffer) */
    int64_t *len;    /* its length */
    MPI_Count size;  /* of the send buffer (a read's: receive buffer) */
    char *headers;   /* the messages' headers, one after the other (a read's: those that came) */
    int nout, nin;
    struct xmsg {
        int peer;
        MPI_Count at, bytes; /* in the send buffer (out), or what arrives (in: at unused); a
                                read's: a reply's place in the receive buffer (out), or the
                                bytes of the reply to send (in) */
        MPI_Count hdr, hat;  /* a header's bytes, and where it is in headers: a write's out, a
                                read's in */
    } * out, *in;
    /* the order in which this process, an owner, applied the pieces that came (file_order):
     * norder of them, each's bytes rel[i] into its message; blocks: room for their blocks */
    struct edonio_wpiece *order;
    int64_t norder, *rel, *blocks;
    int64_t next_i, next_done;   /* where the request's extents stand after this round */
    struct edonio_xlayout *next; /* the pass's next round, or NULL */
};

/* A kept order's pieces, where their bytes lie in this call's messages, and noted as in
 * gather_pieces. */
static void note_pieces(const struct edonio_pass *pass, const struct edonio_msg *in, int nin,
                        struct edonio_wpiece *p, int64_t n, const int64_t *rel)
{
    char *note = malloc((size_t)nin + 1);

    if (note == NULL)
        MPI_Abort(pass->comm, 1);
    for (int k = 0; k < nin; k++)
        note[k] = (char)noted(pass, in[k].peer);
    for (int64_t i = 0; i < n; i++) {
        p[i].data = in[p[i].src].data + rel[i];
        p[i].note = note[p[i].src];
    }
    free(note);
}

/*
 * The pieces that came here, in the order this owner applies them (file_order). Made again by a
 * kept exchange (ox, its order kept), the order is the one that exchange recorded: the same
 * pieces from the same messages, only where their bytes lie now changes (no sort, no merge, and
 * no fresh memory to fault in: a shuffled view's 131,072 pieces a call at each owner). Recorded
 * (ox without an order yet), the list is kept in ox. NULL: no memory.
 */
static struct edonio_wpiece *pieces_in_order(const struct edonio_pass *pass, struct edonio_msg *in,
                                             int nin, int64_t total, struct edonio_xlayout *ox)
{
    struct edonio_wpiece *p;
    int64_t *at;

    if (ox != NULL && ox->order != NULL && ox->norder == total) {
        note_pieces(pass, in, nin, ox->order, total, ox->rel);
        return ox->order;
    }
    if ((at = malloc(((size_t)nin + 1) * sizeof(*at))) == NULL)
        return NULL;
    if ((p = gather_pieces(pass, in, nin, total, at)) != NULL)
        file_order(p, total, at, nin);
    free(at);
    if (p != NULL && ox != NULL && ox->order == NULL &&
        (ox->rel = malloc((size_t)total * sizeof(*ox->rel))) != NULL) {
        for (int64_t i = 0; i < total; i++)
            ox->rel[i] = p[i].data - in[p[i].src].data;
        ox->order = p;
        ox->norder = total;
    }
    return p;
}

/*
 * Store the received pieces at this owner, in file order (pieces_in_order); req->stored grows to
 * the end of those stored. ox: the kept exchange made again or being recorded, or NULL.
 */
static int apply_writes(const struct edonio_pass *pass, struct edonio_req *req,
                        struct edonio_msg *in, int nin, struct edonio_xlayout *ox)
{
    int64_t total = 0, nblocks = 0, *blocks = NULL;
    struct edonio_wpiece *p = NULL;
    const int64_t *hdr;
    char *data;
    int err = 0, e, kept;

    for (int k = 0; k < nin; k++)
        total += msg_pieces(&in[k], &hdr, &data);
    if (total > 0)
        p = pieces_in_order(pass, in, nin, total, ox);
    kept = p != NULL && ox != NULL && p == ox->order; /* the list, and its room for blocks */
    if (p != NULL && pass->keep != EDONIO_KEEP_ALL) {
        if (kept && ox->blocks == NULL)
            ox->blocks = malloc((size_t)total * sizeof(*blocks));
        blocks = kept ? ox->blocks : malloc((size_t)total * sizeof(*blocks));
    }
    if (total > 0 && (p == NULL || (pass->keep != EDONIO_KEEP_ALL && blocks == NULL)))
        err = ENOMEM;
    if (total > 0 && err == 0)
        err = ADIOI_EDONIO_Cache_apply_writes(pass->cache, pass->st, p, total, blocks, &nblocks,
                                              &req->stored);
    if (nblocks > 0) {
        e = ADIOI_EDONIO_Cache_write_back_blocks(pass->cache, pass->st, blocks, nblocks,
                                                 pass->keep == EDONIO_KEEP_NONE);
        if (e && !err)
            err = e;
    }
    if (!kept) {
        free(blocks);
        free(p);
    }
    return err;
}

/*
 * A read: post the receives of the owners' replies, send the pieces' descriptions, serve what
 * came here and send it back, then take the replies into memory.
 */
static struct edonio_xlayout *x_record_read(const struct edonio_pass *pass, struct round *r,
                                            const struct edonio_extents *ext,
                                            const struct edonio_msg *in, int nin, MPI_Count size);

static int round_read(const struct edonio_pass *pass, struct edonio_req *req, struct round *r,
                      const struct edonio_extents *ext)
{
    int me = pass->cache->rank, nin, nsend = 0, err = 0, e;
    MPI_Request *rq = malloc(((size_t)r->nout + 1) * sizeof(*rq));
    MPI_Count total = 0;
    struct edonio_msg *in;
    const int64_t *hdr;
    char *data, **reply;

    r->rpos = malloc(((size_t)r->nout + 1) * sizeof(*r->rpos));
    if (rq == NULL || r->rpos == NULL)
        MPI_Abort(pass->comm, 1);
    for (int g = 0; g < r->nout; g++) { /* the replies' places, in group order as pos has them */
        int64_t n = msg_pieces(&r->out[g], &hdr, &data);
        r->rpos[g] = total;
        for (int64_t k = 0; k < n; k++)
            total += hdr[2 * k + 1];
    }
    if ((r->rbuf = ADIOI_EDONIO_Bufs_get(&r->bufs, (size_t)total + 1)) == NULL)
        MPI_Abort(pass->comm, 1);
    for (int g = 0; g < r->nout; g++)
        if (r->out[g].peer != me)
            MPI_Irecv_c(r->rbuf + r->rpos[g],
                        (g + 1 < r->nout ? r->rpos[g + 1] : total) - r->rpos[g], MPI_BYTE,
                        r->out[g].peer, EDONIO_TAG_REPLY, pass->comm, &rq[nsend++]);
    ADIOI_EDONIO_Sparse_exchange(pass->comm, EDONIO_TAG_PIECES, r->out, r->nout, &in, &nin,
                                 &r->bufs);
    reply = calloc((size_t)nin + 1, sizeof(*reply));
    rq = realloc(rq, ((size_t)nsend + (size_t)nin + 1) * sizeof(*rq)); /* + a reply each */
    if (reply == NULL || rq == NULL)
        MPI_Abort(pass->comm, 1);
    for (int k = 0; k < nin; k++) {
        int64_t n = msg_pieces(&in[k], &hdr, &data);
        MPI_Count bytes = 0;
        for (int64_t j = 0; j < n; j++)
            bytes += hdr[2 * j + 1];
        char *to = NULL;
        if (in[k].peer == me) { /* straight into this process's own reply area */
            for (int g = 0; g < r->nout; g++)
                if (r->out[g].peer == me)
                    to = r->rbuf + r->rpos[g];
        } else if ((to = reply[k] = ADIOI_EDONIO_Bufs_get(&r->bufs, (size_t)bytes + 1)) == NULL) {
            MPI_Abort(pass->comm, 1);
        }
        e = ADIOI_EDONIO_Cache_serve(pass->cache, pass->st, hdr, n, to);
        if (e && !err)
            err = e;
        if (in[k].peer != me)
            MPI_Isend_c(to, bytes, MPI_BYTE, in[k].peer, EDONIO_TAG_REPLY, pass->comm,
                        &rq[nsend++]);
    }
    edonio_wait_all(ADIOI_EDONIO_Crowded(pass->comm), nsend, rq);
    for (int k = 0; k < nin; k++)
        ADIOI_EDONIO_Bufs_put(&r->bufs, reply[k]);
    free(reply);
    free(rq);
    if (pass->record != NULL)
        x_record_read(pass, r, ext, in, nin, total);
    ADIOI_EDONIO_Msgs_free(in, nin, &r->bufs);
    pack(req, r, r->rbuf, 1); /* pos: each piece's place in its owner's reply */
    return err;
}

/* Note which processes' pieces overlap among those that came here (no data moved). */
static void detect(const struct edonio_pass *pass, struct edonio_msg *in, int nin)
{
    struct edonio_span *s;
    int64_t total = 0, n = 0;
    const int64_t *hdr;
    char *data;

    for (int k = 0; k < nin; k++)
        total += msg_pieces(&in[k], &hdr, &data);
    if (total < 2)
        return;
    if ((s = malloc((size_t)total * sizeof(*s))) == NULL)
        MPI_Abort(pass->comm, 1);
    for (int k = 0; k < nin; k++) {
        int64_t m = msg_pieces(&in[k], &hdr, &data);
        for (int64_t j = 0; j < m; j++)
            s[n++] = (struct edonio_span){hdr[2 * j], hdr[2 * j] + hdr[2 * j + 1], in[k].peer};
    }
    if (!edonio_plan_overlaps(s, n, pass->edges))
        MPI_Abort(pass->comm, 1);
    free(s);
}

/* ------------------------------------------------------------------ a kept exchange */

long long ADIOI_EDONIO_Xlayout_stamp(const struct edonio_xlayout *x)
{
    return x->stamp;
}

void ADIOI_EDONIO_Xlayout_free(struct edonio_xlayout *x)
{
    while (x != NULL) { /* the rounds of a pass, one after the other */
        struct edonio_xlayout *next = x->next;
        free(x->pos);
        free(x->len);
        free(x->headers);
        free(x->out);
        free(x->in);
        free(x->order);
        free(x->rel);
        free(x->blocks);
        free(x);
        x = next;
    }
}

/* Keep a round just recorded at the end of the pass's record (r->rec). */
static void x_append(struct round *r, struct edonio_xlayout *x)
{
    if (r->rec_end != NULL)
        r->rec_end->next = x;
    else
        r->rec = x;
    r->rec_end = x;
}

/*
 * Count a round's record against the memory the pass may keep (pass->kept_max: the handle's
 * kept exchanges together at most its cache's memory, romio_edonio_cache_size, so 16 MiB a pass
 * by default): 1 while the pass's record fits. Per piece, a write's round keeps 32 bytes on the
 * sending side (its place, its length, its description) and 56 on the owner's (the order of
 * application, pieces_in_order), about 11 times the data for 8-byte pieces: a pass larger than
 * that plans afresh at every call, as before exchanges were kept, rather than hold memory outside
 * the cache's budget for a pattern that may not come again.
 */
static int x_fits(const struct edonio_pass *pass, struct round *r, MPI_Count bytes)
{
    r->rec_bytes += bytes;
    return r->rec_bytes <= (MPI_Count)pass->kept_max;
}

/* Drop the pass's record: a round could not be recorded (x: its part made, or NULL). */
static void x_fail(struct round *r, struct edonio_xlayout *x)
{
    ADIOI_EDONIO_Xlayout_free(x);
    ADIOI_EDONIO_Xlayout_free(r->rec);
    r->rec = r->rec_end = NULL;
    r->rec_failed = 1;
}

static int any_typed(const struct round *r)
{
    for (int g = 0; g < r->nout; g++)
        if (r->out[g].typed)
            return 1;
    return 0;
}

/*
 * A round's layout, the part a write's and a read's share: this process's pieces' places (in the
 * send buffer, or the receive buffer) and lengths, stamped with the call, where the request's
 * extents stand after the round (ext), room for the messages and hbytes of headers. NULL when it
 * is not kept: it would pass what the pass may keep (x_fits, which counts bytes), an earlier
 * round was not kept, or no memory; then nothing of the pass is kept (x_fail).
 */
static struct edonio_xlayout *x_new(const struct edonio_pass *pass, struct round *r,
                                    const struct edonio_extents *ext, int nin, MPI_Count size,
                                    MPI_Count hbytes, MPI_Count bytes)
{
    struct edonio_xlayout *x;

    if (!x_fits(pass, r, bytes) || r->rec_failed || (x = calloc(1, sizeof(*x))) == NULL) {
        x_fail(r, NULL);
        return NULL;
    }
    *x = (struct edonio_xlayout){.stamp = pass->call,
                                 .n = r->n,
                                 .size = size,
                                 .nout = r->nout,
                                 .nin = nin,
                                 .next_i = ext->i,
                                 .next_done = ext->done};
    x->pos = malloc(((size_t)r->n + 1) * sizeof(*x->pos));
    x->len = malloc(((size_t)r->n + 1) * sizeof(*x->len));
    x->headers = malloc((size_t)hbytes + 1);
    x->out = malloc(((size_t)r->nout + 1) * sizeof(*x->out));
    x->in = malloc(((size_t)nin + 1) * sizeof(*x->in));
    if (!x->pos || !x->len || !x->headers || !x->out || !x->in) {
        x_fail(r, x);
        return NULL;
    }
    for (int64_t k = 0; k < r->n; k++) {
        x->pos[k] = r->pos[k];
        x->len[k] = r->piece[2 * k + 1];
    }
    return x;
}

/*
 * Record a write round's exchange (no message typed: its layout depends on the program's
 * addresses), after the pass's earlier rounds (r->rec; ADIOI_EDONIO_Coll_run keeps the whole
 * pass in pass->record): the layout (its order is added as the pieces are applied), or NULL
 * (not kept, x_new: nothing of the pass is, the next call plans again). ext: the request's
 * extents after the round.
 */
static struct edonio_xlayout *x_record(const struct edonio_pass *pass, struct round *r,
                                       const struct edonio_extents *ext,
                                       const struct edonio_msg *in, int nin)
{
    MPI_Count received = 0, hat = 0;
    const int64_t *hdr;
    char *data;
    struct edonio_xlayout *x;

    for (int k = 0; k < nin; k++)
        received += msg_pieces(&in[k], &hdr, &data);
    if (any_typed(r)) {
        x_fail(r, NULL);
        return NULL;
    }
    /* each message's count, and an offset and a length per piece; 56 bytes a piece received
     * for the owner's order (pieces_in_order) */
    x = x_new(pass, r, ext, nin, r->sbuf_size,
              (MPI_Count)(((size_t)r->nout + 2 * (size_t)r->n) * sizeof(int64_t)),
              (MPI_Count)(32 * r->n + 56 * received + 64 * (r->nout + nin)));
    for (int g = 0; x != NULL && g < r->nout; g++) {
        const int64_t *h = (const int64_t *)r->out[g].data;
        x->out[g] = (struct xmsg){r->out[g].peer, r->out[g].data - r->sbuf, r->out[g].bytes,
                                  (MPI_Count)((1 + 2 * h[0]) * sizeof(int64_t)), hat};
        memcpy(x->headers + hat, h, (size_t)x->out[g].hdr);
        hat += x->out[g].hdr;
    }
    for (int k = 0; x != NULL && k < nin; k++)
        x->in[k] = (struct xmsg){in[k].peer, 0, in[k].bytes, 0, 0};
    if (x != NULL)
        x_append(r, x);
    return x;
}

/*
 * Record a read round's exchange, as x_record a write's: this process's pieces' places in the
 * receive buffer (size bytes) and the owners' replies there, and the requests that came here
 * (in: their headers, kept to serve them again). NULL when not kept.
 */
static struct edonio_xlayout *x_record_read(const struct edonio_pass *pass, struct round *r,
                                            const struct edonio_extents *ext,
                                            const struct edonio_msg *in, int nin, MPI_Count size)
{
    MPI_Count hbytes = 0, hat = 0;
    const int64_t *hdr;
    char *data;
    struct edonio_xlayout *x;

    for (int k = 0; k < nin; k++)
        hbytes += (MPI_Count)(2 * msg_pieces(&in[k], &hdr, &data) * sizeof(int64_t));
    x = x_new(pass, r, ext, nin, size, hbytes, 16 * r->n + hbytes + 64 * (r->nout + nin));
    for (int g = 0; x != NULL && g < r->nout; g++)
        x->out[g] = (struct xmsg){r->out[g].peer, r->rpos[g],
                                  (g + 1 < r->nout ? r->rpos[g + 1] : size) - r->rpos[g], 0, 0};
    for (int k = 0; x != NULL && k < nin; k++) {
        int64_t n = msg_pieces(&in[k], &hdr, &data);
        MPI_Count bytes = 0;
        for (int64_t j = 0; j < n; j++)
            bytes += hdr[2 * j + 1];
        x->in[k] = (struct xmsg){in[k].peer, 0, bytes, (MPI_Count)(2 * n * sizeof(int64_t)), hat};
        memcpy(x->headers + hat, hdr, (size_t)x->in[k].hdr);
        hat += x->in[k].hdr;
    }
    if (x != NULL)
        x_append(r, x);
    return x;
}

/*
 * A read round of a kept exchange (x: pass->reuse's round r->index): the receives of the owners'
 * replies posted, the requests this process received then served again and sent back, no
 * description sent; then the pieces into memory (round_do moves the extents on).
 */
static int x_replay_read(const struct edonio_pass *pass, struct edonio_req *req, struct round *r,
                         const struct edonio_xlayout *x)
{
    int me = pass->cache->rank, nrq = 0, err = 0, e;
    MPI_Request *rq = malloc(((size_t)x->nout + (size_t)x->nin + 1) * sizeof(*rq));
    char **reply = calloc((size_t)x->nin + 1, sizeof(*reply)), *self = NULL;
    char *rbuf = ADIOI_EDONIO_Bufs_get(&r->bufs, (size_t)x->size + 1);

    if (rq == NULL || reply == NULL || rbuf == NULL)
        MPI_Abort(pass->comm, 1); /* a collective cannot be left half way */
    for (int g = 0; g < x->nout; g++) {
        if (x->out[g].peer == me)
            self = rbuf + x->out[g].at;
        else
            MPI_Irecv_c(rbuf + x->out[g].at, x->out[g].bytes, MPI_BYTE, x->out[g].peer,
                        EDONIO_TAG_REPLY, pass->comm, &rq[nrq++]);
    }
    for (int k = 0; k < x->nin; k++) {
        char *to = x->in[k].peer == me
                       ? self
                       : (reply[k] = ADIOI_EDONIO_Bufs_get(&r->bufs, (size_t)x->in[k].bytes + 1));
        if (to == NULL)
            MPI_Abort(pass->comm, 1);
        e = ADIOI_EDONIO_Cache_serve(pass->cache, pass->st,
                                     (const int64_t *)(x->headers + x->in[k].hat),
                                     x->in[k].hdr / (MPI_Count)(2 * sizeof(int64_t)), to);
        if (e && !err)
            err = e;
        if (x->in[k].peer != me)
            MPI_Isend_c(to, x->in[k].bytes, MPI_BYTE, x->in[k].peer, EDONIO_TAG_REPLY, pass->comm,
                        &rq[nrq++]);
    }
    edonio_wait_all(ADIOI_EDONIO_Crowded(pass->comm), nrq, rq);
    for (int k = 0; k < x->nin; k++)
        ADIOI_EDONIO_Bufs_put(&r->bufs, reply[k]);
    for (int64_t k = 0; k < x->n; k++)
        ADIOI_EDONIO_Mem_copy(&req->mem, rbuf + x->pos[k], x->len[k], 1);
    ADIOI_EDONIO_Bufs_put(&r->bufs, rbuf);
    free(reply);
    free(rq);
    return err;
}

/*
 * A write round of a kept exchange (x: pass->reuse's round r->index): the data only; the
 * caller moves the request's extents on (round_do). errno of a failure, or 0.
 */
static int x_replay(const struct edonio_pass *pass, struct edonio_req *req, struct round *r,
                    struct edonio_xlayout *x)
{
    int me = pass->cache->rank, nrq = 0, err;
    MPI_Request *rq = malloc(((size_t)x->nout + (size_t)x->nin + 1) * sizeof(*rq));
    struct edonio_msg *in = calloc((size_t)x->nin + 1, sizeof(*in));
    char *sbuf = ADIOI_EDONIO_Bufs_get(&r->bufs, (size_t)x->size + 1);

    if (rq == NULL || in == NULL || sbuf == NULL)
        MPI_Abort(pass->comm, 1);      /* a collective cannot be left half way */
    for (int k = 0; k < x->nin; k++) { /* receives first: the sizes are known */
        in[k] = (struct edonio_msg){.peer = x->in[k].peer, .bytes = x->in[k].bytes};
        if (in[k].peer == me)
            continue;
        in[k].own = 1;
        if ((in[k].data = ADIOI_EDONIO_Bufs_get(&r->bufs, (size_t)in[k].bytes + 1)) == NULL)
            MPI_Abort(pass->comm, 1);
        MPI_Irecv_c(in[k].data, in[k].bytes, MPI_BYTE, in[k].peer, EDONIO_TAG_PIECES, pass->comm,
                    &rq[nrq++]);
    }
    for (int g = 0; g < x->nout; g++)
        memcpy(sbuf + x->out[g].at, x->headers + x->out[g].hat, (size_t)x->out[g].hdr);
    for (int64_t k = 0; k < x->n; k++)
        ADIOI_EDONIO_Mem_copy(&req->mem, sbuf + x->pos[k], x->len[k], 0);
    for (int g = 0; g < x->nout; g++) {
        if (x->out[g].peer != me) {
            MPI_Isend_c(sbuf + x->out[g].at, x->out[g].bytes, MPI_BYTE, x->out[g].peer,
                        EDONIO_TAG_PIECES, pass->comm, &rq[nrq++]);
            continue;
        }
        for (int k = 0; k < x->nin; k++) /* this process's own: in place */
            if (in[k].peer == me)
                in[k].data = sbuf + x->out[g].at;
    }
    edonio_wait_all(ADIOI_EDONIO_Crowded(pass->comm), nrq, rq);
    err = apply_writes(pass, req, in, x->nin, x);
    ADIOI_EDONIO_Msgs_free(in, x->nin, &r->bufs);
    ADIOI_EDONIO_Bufs_put(&r->bufs, sbuf);
    free(rq);
    return err;
}

/* One round of the pass over [lo, hi); errno of this process's first failure, or 0. */
static int round_do(const struct edonio_pass *pass, struct edonio_req *req,
                    struct edonio_extents *x, int64_t hi, struct round *r)
{
    struct edonio_cache *c = pass->cache;
    struct edonio_msg *in;
    int nin, err = 0;

    if (pass->reuse != NULL && pass->op != EDONIO_COLL_DETECT) {
        struct edonio_xlayout *kept = r->index == 0 ? pass->reuse : r->replay->next;
        if (kept == NULL) /* every process took the same recorded pass: its rounds are these */
            MPI_Abort(pass->comm, 1);
        r->replay = kept;
        err = pass->op == EDONIO_COLL_WRITE ? x_replay(pass, req, r, kept)
                                            : x_replay_read(pass, req, r, kept);
        x->i = kept->next_i; /* the extents where the recorded round left them */
        x->done = kept->next_done;
        if (r->index == 0)
            pass->st->exchanges_reused++;
        pass->st->coll_rounds++;
        r->index++;
        return err;
    }
    if (!edonio_plan_cut(x, hi, c->hints.block_size, c->nprocs, add_piece, r) ||
        !round_messages(r, pass->op == EDONIO_COLL_WRITE))
        MPI_Abort(pass->comm, 1); /* a collective cannot be left half way */
    switch (pass->op) {
        case EDONIO_COLL_WRITE: {
            struct edonio_xlayout *ox = NULL; /* the exchange kept for the next calls */
            if (!send_prepare(req, r, c->rank, ADIOI_EDONIO_Crowded(pass->comm)))
                MPI_Abort(pass->comm, 1);
            ADIOI_EDONIO_Sparse_exchange(pass->comm, EDONIO_TAG_PIECES, r->out, r->nout, &in, &nin,
                                         &r->bufs);
            if (pass->record != NULL)
                ox = x_record(pass, r, x, in, nin);
            err = apply_writes(pass, req, in, nin, ox);
            ADIOI_EDONIO_Msgs_free(in, nin, &r->bufs);
            break;
        }
        case EDONIO_COLL_READ:
            err = round_read(pass, req, r, x);
            break;
        case EDONIO_COLL_DETECT:
            ADIOI_EDONIO_Sparse_exchange(pass->comm, EDONIO_TAG_PIECES, r->out, r->nout, &in, &nin,
                                         &r->bufs);
            detect(pass, in, nin);
            ADIOI_EDONIO_Msgs_free(in, nin, &r->bufs);
            break;
    }
    pass->st->coll_rounds++;
    r->index++;
    round_clear(r);
    return err;
}

/*
 * This process's part of a pass's first window (see ADIOI_EDONIO_Coll_run): w[0] where its
 * request starts, w[1] where it would pass its budget (EDONIO_PLAN_NONE: nowhere). A caller that
 * makes a reduction of its own before the pass (plan_write) carries these in it, MPI_MIN.
 */
void ADIOI_EDONIO_Coll_window(const struct edonio_req *req, ADIO_Offset budget, long long w[2])
{
    struct edonio_extents x = {(const edonio_off64 *)req->off, (const edonio_off64 *)req->len,
                               req->n, 0, 0};

    w[0] = edonio_plan_next(&x);
    w[1] = edonio_plan_limit(&x, budget);
}

/*
 * Collective: the pass over the requests of the active processes (the others take part with
 * nothing), round by round. first: the first window, reduced by the caller
 * (ADIOI_EDONIO_Coll_window), or NULL. errno of this process's first failure, or 0; *anyone (when
 * not NULL) says whether any process failed, which a last reduction after the last round tells.
 * Without anyone there is no such reduction: a round whose window reaches no process's budget
 * takes every piece of every process, so it is the last, and each caller's own agreement on the
 * outcome follows (a pass's messages are all received when its exchange ends: nothing of it is
 * left to mix with a later exchange's).
 */
int ADIOI_EDONIO_Coll_run(const struct edonio_pass *pass, struct edonio_req *req, int active,
                          const long long *first, int *anyone)
{
    struct edonio_extents x = {(const edonio_off64 *)req->off, (const edonio_off64 *)req->len,
                               active ? req->n : 0, 0, 0};
    struct round r;
    int err = 0;

    memset(&r, 0, sizeof(r));
    for (;;) {
        /* The window: from the lowest next byte to the lowest offset where some process would
         * pass its budget; and whether anyone failed so far. One reduction finds all. */
        long long all[3] = {0, 0, 0};
        if (first != NULL) { /* no failure yet: nothing has been done */
            all[0] = first[0];
            all[1] = first[1];
            first = NULL;
        } else {
            long long mine[3] = {edonio_plan_next(&x), edonio_plan_limit(&x, pass->budget),
                                 -(long long)(err != 0)};
            ADIOI_EDONIO_Reduce_small(pass->comm, MPI_MIN, 3, mine, all);
        }
        if (all[0] == EDONIO_PLAN_NONE) {
            if (anyone != NULL)
                *anyone = all[2] != 0;
            break;
        }
        int e = round_do(pass, req, &x, all[1], &r);
        if (e && !err)
            err = e;
        if (all[1] == EDONIO_PLAN_NONE && anyone == NULL)
            break;
    }
    if (pass->record != NULL && pass->reuse == NULL) { /* this pass's exchange, kept (or none) */
        ADIOI_EDONIO_Xlayout_free(pass->record->x);
        pass->record->x = r.rec;
    }
    round_free(&r);
    return err;
}

/*
 * A read's pieces i, i + 1, ... that one read of the file serves (a sieve, as ROMIO's data sieving
 * reads for ufs): at least two, their span at most 'max' bytes and not cached on this node
 * (ADIOI_EDONIO_Cache_uncached, asked as the span grows). A piece joins when the gap before it is
 * at most a block: a longer gap is bytes nobody asked for, and on a parallel file system, where
 * the readers of a job share the servers' bandwidth, reading them costs the others more than a
 * round trip costs this process (BT-IO's runs, 80 KiB apart at 64^3 and 4 ranks, each on a node
 * of its own on pfsemu: 4 times the data read, 2 times with the gaps left out). Where the span
 * fills the node's cache for its other processes (ADIOI_EDONIO_Cache_fills), its gaps are their
 * pieces, so any piece within the span joins. How many, or 0.
 */
static int64_t sieve_run(struct edonio_cache *c, const struct edonio_req *req, int64_t i,
                         ADIO_Offset max)
{
    ADIO_Offset bs = c->hints.block_size, start = req->off[i], end = start + req->len[i];
    ADIO_Offset gap = ADIOI_EDONIO_Cache_fills(c) ? max : bs;
    ADIO_Offset size = ADIOI_EDONIO_Size_get(c), seen; /* blocks below 'seen' are not cached */
    int64_t j = i + 1;

    if (!ADIOI_EDONIO_Cache_uncached(c, start, end - start))
        return 0;
    /* Each block asked about once, not once per piece (8-byte pieces: 8,192 a block) */
    for (seen = ((end - 1) / bs + 1) * bs; j < req->n; j++) {
        ADIO_Offset e = req->off[j] + req->len[j];
        if (req->off[j] < end || req->off[j] - end > gap || e - start > max || e > size)
            break;
        if (e > seen && !ADIOI_EDONIO_Cache_uncached(c, seen, e - seen))
            break;
        seen = e > seen ? ((e - 1) / bs + 1) * bs : seen;
        end = e;
    }
    return j - i >= 2 ? j - i : 0;
}

/*
 * Read pieces [i, i + n) with one read of their span into 'win' (room for 'max' bytes, allocated
 * at the first use), then copy each out to the request's memory. errno or 0.
 */
static int sieve_read(struct edonio_cache *c, struct edonio_stats *st, struct edonio_req *req,
                      int64_t i, int64_t n, char **win, ADIO_Offset max)
{
    ADIO_Offset start = req->off[i];
    int err;

    if (*win == NULL && (*win = malloc((size_t)max)) == NULL)
        return ENOMEM;
    err = ADIOI_EDONIO_Cache_sieve(c, st, *win, start,
                                   req->off[i + n - 1] + req->len[i + n - 1] - start);
    for (int64_t k = i; k < i + n && err == 0; k++) {
        char *from = *win + (req->off[k] - start);
        if (req->mem.flat != NULL) {
            ADIOI_EDONIO_Mem_copy(&req->mem, from, req->len[k], 1);
        } else {
            memcpy(req->mem.buf + req->mem.in_blk, from, (size_t)req->len[k]);
            req->mem.in_blk += req->len[k];
        }
    }
    return err;
}

/*
 * This process's request on its own, through the cache like independent I/O: each piece straight
 * into or out of the segment that caches it here (a write: req->stored grows to the end of what
 * was written). Memory that is not contiguous goes through a bounce buffer of at most 'chunk'
 * bytes. A read's small pieces close together in blocks this node does not cache are read a span
 * at a time (sieve_run: up to EDONIO_SIEVE_MAX), where one read per piece (read_fill=none) or per
 * block (block) would make a file operation each: past the cache, or, in a read-only cache, into
 * it (ADIOI_EDONIO_Cache_fill), so that the node's other processes reading the same blocks find
 * them there. errno or 0.
 */
int ADIOI_EDONIO_Req_independent(struct edonio_cache *c, struct edonio_stats *st, ADIO_Offset chunk,
                                 struct edonio_req *req, int writing)
{
    ADIO_Offset got, wrote, max = chunk < EDONIO_SIEVE_MAX ? chunk : EDONIO_SIEVE_MAX;
    char *tmp = NULL, *win = NULL;
    int err = 0;

    if (req->bytes == 0)
        return 0;
    if (req->mem.flat != NULL &&
        (tmp = malloc((size_t)(chunk < req->bytes ? chunk : req->bytes))) == NULL)
        return ENOMEM;
    for (int64_t i = 0, n, filled = 0; i < req->n && err == 0; i++) {
        if (!writing && i >= filled && (n = sieve_run(c, req, i, max)) > 0) {
            if (ADIOI_EDONIO_Cache_fills(c)) { /* into the cache: then piece by piece from it */
                err = ADIOI_EDONIO_Cache_fill(
                    c, st, req->off[i], req->off[i + n - 1] + req->len[i + n - 1] - req->off[i]);
                filled = i + n;
                if (err)
                    break;
            } else {
                err = sieve_read(c, st, req, i, n, &win, max);
                i += n - 1;
                continue;
            }
        }
        if (tmp == NULL && i + 1 < req->n) { /* many pieces in one block */
            char *at = req->mem.buf + req->mem.in_blk;
            n = writing ? ADIOI_EDONIO_Cache_write_pieces(c, st, at, req->off + i, req->len + i,
                                                          req->n - i, &wrote, &err)
                        : ADIOI_EDONIO_Cache_read_pieces(c, st, at, req->off + i, req->len + i,
                                                         req->n - i, &err);
            for (int64_t k = i; k < i + n; k++)
                req->mem.in_blk += req->len[k];
            if (n > 0 && writing)
                req->stored = wrote > req->stored ? wrote : req->stored;
            if (err)
                break;
            if (n > 0) {
                i += n - 1;
                continue;
            }
        }
        for (ADIO_Offset done = 0; done < req->len[i] && err == 0;) {
            ADIO_Offset len = req->len[i] - done, off = req->off[i] + done;
            if (tmp != NULL && len > chunk)
                len = chunk;
            char *at = tmp != NULL ? tmp : req->mem.buf + req->mem.in_blk;
            if (writing && tmp != NULL)
                ADIOI_EDONIO_Mem_copy(&req->mem, tmp, len, 0);
            if (writing) {
                err = ADIOI_EDONIO_Cache_write(c, st, at, off, len, &wrote);
                if (wrote > 0 && off + wrote > req->stored)
                    req->stored = off + wrote;
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
    free(win);
    return err;
}
