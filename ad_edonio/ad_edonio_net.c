/*
 * edonio: the network way of reaching an owner.
 *
 * A process never waits for another node: what it writes to a block owned on another node stays in
 * a remote segment of its own node (ad_edonio_cache.h), and reaches the owner at the next point
 * where every process of the file is inside MPI anyway: MPI_File_sync, MPI_File_close, a
 * collective write, MPI_File_set_info that changes the cache, MPI atomic mode switched on. There
 * every remote segment's dirty extents go to their owners in one collective pass (the exchange of
 * ad_edonio_coll.c), the owners apply them, and the remote segments let them go.
 *
 * MPI allows the wait (MPI-3.1 13.6.1; doc/design.md): outside atomic mode, another process is
 * entitled to see a write only after sync-barrier-sync or close and reopen, both collective, and a
 * process reads its own writes from its node's remote segment until then. When a remote segment is
 * full, its least recently used block's dirty bytes go to the file directly, exactly those bytes,
 * and the owner's exact write-back cannot overwrite them.
 *
 * A remote segment is held while it is delivered, so a node peer that still has independent
 * writes to make before it enters the call would wait for it, and the call for that peer: when a
 * node has several processes, they all enter the call (a barrier, unless a collective the caller
 * made already showed them all inside) before any takes its segment.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ad_edonio_coll.h"

/* ------------------------------------------------------------------ the remote segment */

void ADIOI_EDONIO_Cache_forget_remote(struct edonio_cache *c)
{
    struct edonio_segment *seg = ADIOI_EDONIO_Node_remote(c);
    int dirty = 0;

    ADIOI_EDONIO_Node_lock(seg);
    for (int32_t i = 0; i < seg->nhigh; i++) {
        struct edonio_slot *s = edonio_slot_at(seg, i);
        if (s->block >= 0 && s->ndirty > 0)
            dirty = 1; /* not delivered (an owner failed): kept for the next delivery */
        else if (s->block >= 0)
            edonio_drop(seg, i);
    }
    if (!dirty)
        edonio_clear(seg); /* its pages are reused from the start */
    ADIOI_EDONIO_Node_release(seg);
}

int ADIOI_EDONIO_Cache_remote_dirty(struct edonio_cache *c)
{
    struct edonio_segment *seg = ADIOI_EDONIO_Node_remote(c);
    int dirty = 0;

    ADIOI_EDONIO_Node_lock(seg);
    for (int32_t i = 0; seg->nused > 0 && i < seg->nhigh && !dirty; i++) /* empty: no scan */
        dirty = edonio_slot_at(seg, i)->block >= 0 && edonio_slot_at(seg, i)->ndirty > 0;
    ADIOI_EDONIO_Node_release(seg);
    return dirty;
}

struct dirty_piece {
    ADIO_Offset off, len;
    char *where;
};

static int by_offset(const void *a, const void *b)
{
    ADIO_Offset x = ((const struct dirty_piece *)a)->off, y = ((const struct dirty_piece *)b)->off;
    return (x > y) - (x < y);
}

int64_t ADIOI_EDONIO_Cache_remote_pieces(struct edonio_cache *c, ADIO_Offset **off,
                                         ADIO_Offset **len, char ***where)
{
    struct edonio_segment *seg = ADIOI_EDONIO_Node_remote(c);
    struct dirty_piece *p;
    int64_t n = 0, k = 0;

    ADIOI_EDONIO_Node_lock(seg);
    for (int32_t i = 0; i < seg->nhigh; i++)
        if (edonio_slot_at(seg, i)->block >= 0)
            n += edonio_slot_at(seg, i)->ndirty;
    p = malloc((size_t)(n + 1) * sizeof(*p));
    *off = malloc((size_t)(2 * n + 1) * sizeof(**off));
    *where = malloc((size_t)(n + 1) * sizeof(**where));
    if (p == NULL || *off == NULL || *where == NULL)
        goto fail;
    /* The bytes stay in the slots: the segment is held, and no copy into it is under way. */
    for (int32_t i = 0; i < seg->nhigh; i++) {
        struct edonio_slot *s = edonio_slot_at(seg, i);
        if (s->block >= 0 && s->ndirty > 0)
            edonio_wait_idle(s);
        struct edonio_extent run;
        for (uint32_t at = 0; s->block >= 0 && edonio_dirty_run(s, at, &run); at = run.hi, k++)
            p[k] = (struct dirty_piece){(ADIO_Offset)s->block * c->hints.block_size + run.lo,
                                        run.hi - run.lo, (char *)edonio_slot_data(seg, i) + run.lo};
    }
    qsort(p, (size_t)n, sizeof(*p), by_offset);
    *len = *off + n;
    for (k = 0; k < n; k++) {
        (*off)[k] = p[k].off;
        (*len)[k] = p[k].len;
        (*where)[k] = p[k].where;
    }
    free(p);
    return n;
fail:
    free(p);
    free(*off);
    free(*where);
    *off = NULL;
    *where = NULL;
    return -1;
}

void ADIOI_EDONIO_Cache_remote_done(struct edonio_cache *c, int delivered)
{
    struct edonio_segment *seg = ADIOI_EDONIO_Node_remote(c);

    if (delivered)
        edonio_clear(seg);
    ADIOI_EDONIO_Node_release(seg);
}

/* ------------------------------------------------------------------ delivery */

/*
 * A delivery moves at most this much per process and round (and at least a block), whatever the
 * handle's cb_buffer_size: its rounds then take the same warm buffers again (struct edonio_bufs)
 * where one round of the whole remote segment would fill fresh ones, first touched in the call,
 * and a process's buffers stay within a few times this. Each round costs a reduction and a
 * barrier. Records of 3,200 B across 2 simulated nodes, 16 MiB delivered each way at a sync:
 * 50-58 ms in one round, 28-37 ms in rounds of 1 MiB. Rounds of 1 MiB also made fem's close on 2
 * nodes 20 ms slower at 4 ranks on 2 cores, where every collective waits for a descheduled
 * process (1.5 MiB a process: 2 rounds); at 2 MiB it takes one, as before.
 */
enum { DELIVERY_ROUND = 2 << 20 };

static ADIO_Offset delivery_budget(const struct edonio_cache *c, ADIO_Offset budget)
{
    budget = budget < DELIVERY_ROUND ? budget : DELIVERY_ROUND;
    return budget > c->hints.block_size ? budget : c->hints.block_size;
}

int ADIOI_EDONIO_Net_deliver(struct edonio_cache *c, MPI_Comm comm, struct edonio_stats *st,
                             ADIO_Offset budget, int through, int all_in)
{
    ADIO_Offset round = delivery_budget(c, budget);
    enum edonio_coll_keep keep = through ? EDONIO_KEEP_REACHED : EDONIO_KEEP_ALL;
    struct edonio_pass pass = {
        .cache = c, .comm = comm, .st = st, .budget = round, .op = EDONIO_COLL_WRITE, .keep = keep};
    ADIO_Offset *off = NULL, *len = NULL;
    struct edonio_req req;
    char **where = NULL;
    int64_t n;
    int err, failed;

    if (c->nprocs == 1)
        return 0;
    if (c->nodes_shared && !all_in)
        ADIOI_EDONIO_Barrier(comm);
    n = ADIOI_EDONIO_Cache_remote_pieces(c, &off, &len, &where);
    ADIOI_EDONIO_Req_pieces(&req, off, len, where, n > 0 ? n : 0);
    err = n < 0 ? ENOMEM : 0;
    int e = ADIOI_EDONIO_Coll_run(&pass, &req, n > 0, NULL, &failed);
    if (e && !err)
        err = e;
    /* Every owner took its share, or every remote segment keeps its bytes for the next time; a
     * process that could not list its pieces sent none, and keeps them too. */
    if (failed == 0)
        st->delivered += req.bytes;
    ADIOI_EDONIO_Cache_remote_done(c, failed == 0 && n >= 0);
    free(off);
    free(where);
    return err;
}
