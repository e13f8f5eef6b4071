/*
 * edonio: collective reads and writes, the ADIO entry points.
 *
 * Writes. Where every process reaches every owner in memory (one node), each process puts its
 * pieces in place itself (romio_edonio_coll_path=auto): an exchange would only copy the data
 * twice more. Across nodes, or with coll_path=exchange, the pieces go to their owners in a
 * collective pass (ad_edonio_coll.c), after the remote segments have delivered what they held (a
 * process's earlier independent writes must not land after this call's); an owner writes back at
 * once the blocks written by processes on other nodes, which read them back from the file. A
 * call across nodes in which every piece goes to the file anyway, and no segment anywhere holds a
 * block, needs no exchange: each process writes its own (plan_write).
 *
 * Reads. Each process reads its pieces through its node (owners' segments, remote segments, the
 * file), as an independent read would, and sees what MPI entitles it to: its own writes, and the
 * others' after a sync. Across nodes on a file system whose blocks the cache reads whole
 * (read_fill=block), a read cut finer than the blocks it touches goes through the owners
 * (plan_read), as coll_path=exchange reads always do: each block is read from the file once, by
 * its owner, not once per node.
 *
 * MPI atomic mode: ad_edonio_atomic.c. Every process returns the same outcome. The nonblocking
 * forms do their work when they start and return a completed request.
 */
#include <errno.h>
#include <stdlib.h>

#include "ad_edonio_coll.h"

/* Collective calls go through the owners unless this handle cannot reach them all. */
static struct edonio_cache *coll_cache(ADIO_File fd)
{
    struct edonio_cache *c = ADIOI_EDONIO_Cache_of(fd);

    return c != NULL && edonio_handle(fd)->collective ? c : NULL;
}

static struct edonio_pass pass_of(ADIO_File fd, struct edonio_cache *c, enum edonio_coll_op op,
                                  enum edonio_coll_keep keep)
{
    int kept = edonio_handle(fd)->hints.schedules;
    struct edonio_pass p = {.cache = c,
                            .comm = fd->comm,
                            .st = &edonio_handle(fd)->stats,
                            .budget = ADIOI_EDONIO_Coll_budget(fd),
                            .op = op,
                            .keep = keep,
                            /* the kept exchanges of the handle: at most its cache's memory */
                            .kept_max = c->hints.cache_size / (kept > 0 ? kept : 1)};
    return p;
}

/* ROMIO's romio_cb_write / romio_cb_read = disable: every process on its own, through the cache. */
static int cb_disabled(ADIO_File fd, int writing)
{
    return (writing ? fd->hints->cb_write : fd->hints->cb_read) == ADIOI_HINT_DISABLE;
}

/*
 * The outcome on every process; the file's size as every process learns it from the others: end
 * is where what this process wrote in the call ends (req.stored), so a failed write grows nothing.
 */
static void finish(ADIO_File fd, struct edonio_cache *c, const char *myname, int err,
                   ADIO_Offset end, int *error_code)
{
    long long all_end = 0;

    fd->fp_sys_posn = -1;
    *error_code = ADIOI_EDONIO_Agree_max(fd->comm, myname, fd->filename, err, end, &all_end);
    ADIOI_EDONIO_Size_max(c, all_end);
}

/*
 * A pass of plan_write or plan_read (first: the window their reduction found) on a request with a
 * plan: its exchange is recorded for the next call with the plan, or, when every process keeps
 * the exchange of one same earlier call (same_exchange), that exchange is made again.
 */
static void pass_keeps(struct edonio_pass *pass, const struct edonio_req *req,
                       const long long *first, int same_exchange)
{
    if (first == NULL || req->plan == NULL)
        return;
    pass->record = req->plan;
    pass->call = req->call;
    pass->reuse = same_exchange ? req->plan->x : NULL;
}

/* How a write pass through the owners starts. */
enum edonio_deliver {
    EDONIO_NO_DELIVERY,    /* no remote segment holds a dirty byte */
    EDONIO_DELIVER,        /* a delivery first */
    EDONIO_DELIVER_ALL_IN, /* a delivery first, every process known to be in the call */
};

/*
 * A write pass through the owners: the delivery first (if asked), then this call's pieces; first:
 * the pass's first window when plan_write reduced it (ADIOI_EDONIO_Coll_run), or NULL.
 */
static int write_through_owners(ADIO_File fd, struct edonio_cache *c, struct edonio_req *req,
                                enum edonio_coll_keep keep, enum edonio_deliver deliver,
                                const long long *first, int same_exchange)
{
    struct edonio_pass pass = pass_of(fd, c, EDONIO_COLL_WRITE, keep);
    int err = 0, e;

    pass_keeps(&pass, req, first, same_exchange);

    if (deliver != EDONIO_NO_DELIVERY)
        err = ADIOI_EDONIO_Net_deliver(c, fd->comm, pass.st, pass.budget, 1,
                                       deliver == EDONIO_DELIVER_ALL_IN);
    if (fd->atomicity && edonio_handle(fd)->hints.atomicity == EDONIO_ATOMIC_GRAPH_COLORING)
        e = ADIOI_EDONIO_Coloured_write(&pass, req);
    else
        e = ADIOI_EDONIO_Coll_run(&pass, req, 1, first, NULL);
    if (c->nodes_apart)
        ADIOI_EDONIO_Cache_forget_remote(c); /* its copies may predate this call's writes */
    return err ? err : e;
}

/* How a collective write across nodes goes (plan_write). */
struct write_plan {
    int direct;          /* each process writes its own pieces, as on one node */
    int deliver;         /* else: a remote segment may hold dirty bytes, delivered first */
    long long window[2]; /* else: the pass's first window (ADIOI_EDONIO_Coll_window) */
    int same_exchange;   /* else: every process keeps the exchange of one same earlier call */
};

/*
 * Across nodes, coll_path=auto: may each process write its own pieces, as on one node? Yes when
 * every piece of every process goes straight to the file (requests that pass the cache, large
 * requests of whole blocks: ADIOI_EDONIO_Cache_write_direct), no process has more of them than
 * blocks they touch (direct_costs_more) and no segment of any process holds a block
 * (ADIOI_EDONIO_Cache_may_hold). Then everything the call wrote is in the file when it
 * returns, and no copy anywhere predates it: every process reads it at once, without a sync, as on
 * ufs. That is all a pass through the owners shows, and more: there what processes of other nodes
 * wrote into a block is in the file (its owner writes it back at once, with the rest of the
 * block's dirty bytes), and what a node wrote into its own blocks is only in their owners'
 * segments. PnetCDF's tests read other processes' data after a collective write without a sync.
 * Otherwise a piece would stay in a segment (a remote one until the sync: unseen by the owner's
 * node), or a cached copy would go stale (its node's reads would return the old bytes), or an
 * earlier write waiting in a remote segment would be delivered over this call's: the call goes
 * through the owners, after a delivery unless no remote segment holds a dirty byte
 * (ADIOI_EDONIO_Cache_may_deliver). Collective: one reduction, which is also what makes the
 * processes' answers cover every segment (ad_edonio_cache.h), and which also finds the first
 * window of the pass through the owners (MPI_MIN of the window, and of the two answers negated).
 * Pieces of two processes that overlap in one call conflict (MPI-3.1 13.6.1): through the owners
 * the higher rank's win, here the later write's, as on ufs.
 */
/*
 * Would writing this process's pieces itself cost more file operations than the blocks they
 * touch? Each piece that goes straight to the file is an operation of its own, where the owners
 * join a block's pieces into one write (ad_edonio_coll.c, file_order): many pieces of passing size
 * in few blocks go through the owners. Counted by each process for its own request, and carried in
 * plan_write's reduction: every process takes the same way.
 */
static int direct_costs_more(const struct edonio_req *req, ADIO_Offset bs)
{
    int64_t blocks = 0, last = -1;

    for (int64_t i = 0; i < req->n; i++) {
        if (req->len[i] <= 0)
            continue;
        int64_t first = req->off[i] / bs, end = (req->off[i] + req->len[i] - 1) / bs;
        if (end > last)
            blocks += end - (first > last ? first : last + 1) + 1;
        last = end > last ? end : last;
    }
    return req->n > blocks;
}

/* The call whose exchange this process keeps for this pattern (-1: none): plan_write and
 * plan_read make it again only when it is the same one on every process (ad_edonio_coll.c, "a
 * kept exchange"); otherwise every process plans afresh. */
static long long kept_stamp(const struct edonio_req *req)
{
    return req->plan != NULL && req->plan->x != NULL ? ADIOI_EDONIO_Xlayout_stamp(req->plan->x)
                                                     : -1;
}

static struct write_plan plan_write(ADIO_File fd, struct edonio_cache *c,
                                    const struct edonio_req *req)
{
    ADIO_Offset chunk = ADIOI_EDONIO_Coll_budget(fd);
    int hold = ADIOI_EDONIO_Cache_may_hold(c) || direct_costs_more(req, c->hints.block_size);
    long long mine[6], all[6];

    for (int64_t i = 0; i < req->n && !hold; i++) /* memory with gaps goes by chunks */
        hold = (req->mem.flat != NULL && req->len[i] > chunk) ||
               !ADIOI_EDONIO_Cache_write_direct(c, req->off[i], req->len[i]);
    ADIOI_EDONIO_Coll_window(req, chunk, mine);
    mine[2] = -hold;
    mine[3] = -ADIOI_EDONIO_Cache_may_deliver(c);
    mine[4] = kept_stamp(req);
    mine[5] = -mine[4];
    ADIOI_EDONIO_Reduce_small(fd->comm, MPI_MIN, 6, mine, all);
    return (struct write_plan){
        !all[2] && !all[3], all[3] != 0, {all[0], all[1]}, all[4] >= 0 && all[4] == -all[5]};
}

/* Each process puts its own pieces in place (one node, romio_edonio_coll_path=auto; or
 * romio_cb_write=disable). Pieces of many processes interleaved in a block join in its slot (its
 * map, past 128 of them): one write per block. */
static int write_own(ADIO_File fd, struct edonio_cache *c, struct edonio_req *req)
{
    return ADIOI_EDONIO_Req_independent(c, &edonio_handle(fd)->stats, ADIOI_EDONIO_Coll_budget(fd),
                                        req, 1);
}

static int write_coll(ADIO_File fd, struct edonio_cache *c, struct edonio_req *req)
{
    struct edonio_stats *st = &edonio_handle(fd)->stats;
    ADIO_Offset budget = ADIOI_EDONIO_Coll_budget(fd);
    enum edonio_atomicity method = edonio_handle(fd)->hints.atomicity;
    int coll_auto = edonio_handle(fd)->hints.coll_path == EDONIO_COLL_PATH_AUTO;

    if (fd->atomicity && method == EDONIO_ATOMIC_LOCKING)
        return ADIOI_EDONIO_Locked_io(fd, req, 1);
    if (fd->atomicity) /* through the owners: the exchange's first reduction waits for all */
        return write_through_owners(fd, c, req, c->bypass ? EDONIO_KEEP_NONE : EDONIO_KEEP_ALL,
                                    c->nodes_apart ? EDONIO_DELIVER : EDONIO_NO_DELIVERY, NULL, 0);
    if (cb_disabled(fd, 1) || (coll_auto && !c->nodes_apart))
        return write_own(fd, c, req);
    if (!coll_auto) /* coll_path=exchange: across nodes, the owners keep their nodes' pieces */
        return write_through_owners(fd, c, req,
                                    c->nodes_apart ? EDONIO_KEEP_REACHED : EDONIO_KEEP_ALL,
                                    c->nodes_apart ? EDONIO_DELIVER : EDONIO_NO_DELIVERY, NULL, 0);
    struct write_plan plan = plan_write(fd, c, req);
    if (plan.direct)
        return ADIOI_EDONIO_Req_independent(c, st, budget, req, 1);
    /* plan_write's reduction has every process in the call: the delivery needs no barrier, and
     * the pass no reduction of its own for its first window */
    return write_through_owners(fd, c, req, EDONIO_KEEP_REACHED,
                                plan.deliver ? EDONIO_DELIVER_ALL_IN : EDONIO_NO_DELIVERY,
                                plan.window, plan.same_exchange);
}

void ADIOI_EDONIO_WriteStridedColl(ADIO_File fd, const void *buf, int count,
                                   MPI_Datatype datatype, int file_ptr_type, ADIO_Offset offset,
                                   ADIO_Status *status, int *error_code)
{
    static char myname[] = "ADIOI_EDONIO_WRITESTRIDEDCOLL";
    struct edonio_cache *c = coll_cache(fd);
    struct edonio_req req;
    int err;

    if (c == NULL) {
        ADIOI_GEN_WriteStridedColl(fd, buf, count, datatype, file_ptr_type, offset, status,
                                   error_code);
        return;
    }
    ADIOI_EDONIO_Req_init_coll(fd, &req, 1, buf, count, datatype, file_ptr_type, offset);
    err = req.bytes > 0 ? ADIOI_EDONIO_Cache_check(c, req.start, req.end - req.start) : 0;
    if (err) { /* take part with nothing: the others are in the call; no exchange kept */
        req.n = 0;
        req.bytes = 0;
        req.plan = NULL;
    }
    c->wrote |= req.bytes > 0;
    int e = write_coll(fd, c, &req);
    finish(fd, c, myname, err ? err : e, req.stored, error_code);
    if (*error_code == MPI_SUCCESS)
        MPIR_Status_set_bytes(status, datatype, req.bytes);
    ADIOI_EDONIO_Req_free(&req);
}

/*
 * Would reading this process's pieces through its node read from the file more than twice what
 * they cost through the owners? Its node reads each block it touches and does not cache whole
 * (read_fill=block), so pieces finer than their blocks read the rest of the blocks too; where the
 * processes of several nodes read interleaved pieces of the same blocks (a *-cyclic array, a
 * shuffled view) every node reads the blocks. Through the owners each piece costs its bytes sent
 * back, its description sent (16 bytes) and its lookup in the owner's cache: counted as its bytes
 * and EDONIO_READ_PIECE_COST more (measured below), against the file's bytes at twice the price
 * of the network's. Counted by each process for its own request, and carried in plan_read's
 * reduction.
 *
 * A pattern read again (a kept plan taken) in a read-only cache whose reads fill the node's
 * cache (ADIOI_EDONIO_Cache_fills) stays on the node: its node reads the blocks into its cache
 * once, and the next calls find them there with no message. Elsewhere a node does not keep them
 * (a cache that may be written reads a span into a buffer of the call) and would read them from
 * the file at every call: such a pattern weighs the file's bytes against its pieces' bytes alone,
 * since through the owners its exchange is kept and made again from the next call on, with no
 * description sent (plan_read). A pattern read exactly twice may then pay a pass through the
 * owners at its second call that the node would have made faster. perf's plans case (100 reads
 * of a shuffled view, 4 ranks, pfsemu, a handle that writes too): 24 ms a call through the
 * nodes, 20 ms through the owners with the exchange made again (4 ms steps: the scheduler's tick
 * on these oversubscribed cores), and 735 MB read from the file against 8.4 MB.
 */
enum { EDONIO_READ_PIECE_COST = 32 };

static int read_costs_more(struct edonio_cache *c, const struct edonio_req *req)
{
    ADIO_Offset bs = c->hints.block_size, size = ADIOI_EDONIO_Size_reaching(c, req->end);
    ADIO_Offset uncached = 0,
                limit = req->taken
                            ? req->bytes
                            : 2 * (req->bytes + EDONIO_READ_PIECE_COST * (ADIO_Offset)req->n);
    int64_t last = -1;

    if (req->taken && ADIOI_EDONIO_Cache_fills(c))
        return 0;
    for (int64_t i = 0; i < req->n && uncached <= limit; i++) {
        if (req->len[i] <= 0)
            continue;
        int64_t b = req->off[i] / bs, end = (req->off[i] + req->len[i] - 1) / bs;
        for (b = b > last ? b : last + 1; b <= end && b * bs < size; b++) {
            ADIO_Offset len = size - b * bs < bs ? size - b * bs : bs; /* the file's last block */
            uncached += ADIOI_EDONIO_Cache_uncached(c, b * bs, len) ? len : 0;
        }
        last = end > last ? end : last;
    }
    return uncached > limit;
}

/* How a collective read across nodes goes (plan_read). */
struct read_plan {
    int owners;          /* through the owners */
    int deliver;         /* then: a remote segment may hold dirty bytes, delivered first */
    long long window[2]; /* then: the pass's first window (ADIOI_EDONIO_Coll_window) */
    int same_exchange;   /* then: every process keeps the exchange of one same earlier call */
};

/*
 * Across nodes, coll_path=auto, read_fill=block: does the read go through the owners? Yes when
 * some process's read through its node would read from the file more than twice what its pieces
 * cost through the owners (read_costs_more): there each block is read once, by its owner, into its
 * cache, and only the pieces travel. The owners then show what they hold, which includes what this
 * process wrote only once its node's remote segments delivered it: a delivery first, unless no
 * remote segment holds a dirty byte (ADIOI_EDONIO_Cache_may_deliver). Reads through each node
 * show their own node's writes without one, and anything MPI entitles a process to see either way
 * (MPI-3.1 13.6.1: others' writes after sync-barrier-sync, which a sync delivers). Through the
 * owners, when every process keeps the exchange of one same earlier read (a pattern read again
 * that went through the owners before), that exchange is made again, as plan_write's.
 * Collective: one reduction, which also finds the pass's first window.
 */
static struct read_plan plan_read(ADIO_File fd, struct edonio_cache *c,
                                  const struct edonio_req *req)
{
    long long mine[6], all[6];

    ADIOI_EDONIO_Coll_window(req, ADIOI_EDONIO_Coll_budget(fd), mine);
    mine[2] = -read_costs_more(c, req);
    mine[3] = -ADIOI_EDONIO_Cache_may_deliver(c);
    mine[4] = kept_stamp(req);
    mine[5] = -mine[4];
    ADIOI_EDONIO_Reduce_small(fd->comm, MPI_MIN, 6, mine, all);
    int owners = all[2] != 0, same = all[4] >= 0 && all[4] == -all[5];
    if (!owners) /* no delivery follows: the next answer says it again */
        ADIOI_EDONIO_Cache_undelivered(c, mine[3] != 0);
    return (struct read_plan){owners, all[3] != 0, {all[0], all[1]}, owners && same};
}

/*
 * A read pass through the owners, after a delivery if asked; first and same_exchange as in
 * write_through_owners.
 */
static int read_through_owners(ADIO_File fd, struct edonio_cache *c, struct edonio_req *req,
                               enum edonio_deliver deliver, const long long *first,
                               int same_exchange)
{
    struct edonio_pass pass = pass_of(fd, c, EDONIO_COLL_READ, EDONIO_KEEP_ALL);
    int err = 0, e;

    pass_keeps(&pass, req, first, same_exchange);

    if (deliver != EDONIO_NO_DELIVERY) /* the owners must have this process's own writes */
        err = ADIOI_EDONIO_Net_deliver(c, fd->comm, pass.st, pass.budget, 1,
                                       deliver == EDONIO_DELIVER_ALL_IN);
    e = ADIOI_EDONIO_Coll_run(&pass, req, 1, first, NULL);
    if (deliver != EDONIO_NO_DELIVERY) /* the delivered copies may be older than their owners' */
        ADIOI_EDONIO_Cache_forget_remote(c);
    return err ? err : e;
}

static int read_coll(ADIO_File fd, struct edonio_cache *c, struct edonio_req *req)
{
    struct edonio_stats *st = &edonio_handle(fd)->stats;
    int coll_auto = edonio_handle(fd)->hints.coll_path == EDONIO_COLL_PATH_AUTO;
    int owners_may = !c->bypass && !cb_disabled(fd, 0); /* may the owners serve it at all? */

    if (fd->atomicity && edonio_handle(fd)->hints.atomicity == EDONIO_ATOMIC_LOCKING)
        return ADIOI_EDONIO_Locked_io(fd, req, 0);
    if (owners_may && !coll_auto)
        return read_through_owners(fd, c, req, c->nodes_apart ? EDONIO_DELIVER : EDONIO_NO_DELIVERY,
                                   NULL, 0);
    if (owners_may && !fd->atomicity && c->nodes_apart &&
        c->hints.read_fill == EDONIO_READ_FILL_BLOCK) {
        struct read_plan plan = plan_read(fd, c, req);
        if (plan.owners) /* the reduction has every process in the call: no barrier */
            return read_through_owners(fd, c, req,
                                       plan.deliver ? EDONIO_DELIVER_ALL_IN : EDONIO_NO_DELIVERY,
                                       plan.window, plan.same_exchange);
    }
    if (fd->atomicity) /* every process's earlier atomic writes are done (ad_edonio_atomic.c) */
        ADIOI_EDONIO_Barrier(fd->comm);
    return ADIOI_EDONIO_Req_independent(c, st, ADIOI_EDONIO_Coll_budget(fd), req, 0);
}

void ADIOI_EDONIO_ReadStridedColl(ADIO_File fd, void *buf, int count, MPI_Datatype datatype,
                                  int file_ptr_type, ADIO_Offset offset, ADIO_Status *status,
                                  int *error_code)
{
    static char myname[] = "ADIOI_EDONIO_READSTRIDEDCOLL";
    struct edonio_cache *c = coll_cache(fd);
    struct edonio_req req;
    int err;

    if (c == NULL) {
        ADIOI_GEN_ReadStridedColl(fd, buf, count, datatype, file_ptr_type, offset, status,
                                  error_code);
        return;
    }
    ADIOI_EDONIO_Req_init_coll(fd, &req, 0, buf, count, datatype, file_ptr_type, offset);
    err = req.bytes > 0 ? ADIOI_EDONIO_Range_check(req.start, req.end - req.start) : 0;
    if (err) { /* take part with nothing: the others are in the call; no exchange kept */
        req.n = 0;
        req.bytes = 0;
        req.plan = NULL;
    }
    int e = read_coll(fd, c, &req);
    err = err ? err : e;
    finish(fd, c, myname, err, 0, error_code);
    if (*error_code == MPI_SUCCESS)
        MPIR_Status_set_bytes(status, datatype,
                              ADIOI_EDONIO_Req_bytes_before(&req, ADIOI_EDONIO_Size_get(c)));
    ADIOI_EDONIO_Req_free(&req);
}

/*
 * The nonblocking collectives do their work when they start and return a completed request, as
 * ROMIO's FAKE entry points do for independent I/O. (A program that makes another process's
 * MPI_File_iwrite_all wait for a message it sends after its own would hang; doc/design.md.)
 */
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
