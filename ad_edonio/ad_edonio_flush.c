/*
 * edonio: putting every dirty byte of a cache in the file (MPI_File_sync, MPI_File_close, atomic
 * mode switched on, a new shape).
 *
 * Collective over the cache's processes: remote segments are delivered to the owners (when the
 * processes span nodes), every owner writes its dirty blocks back in file order, in
 * romio_edonio_flush_groups groups one after the other, and every process returns the same outcome.
 * On one node no remote segment holds anything unless a process could not map a node peer's
 * memory; the agreement says so, and only then is there a delivery and a second write-back (a sync
 * forgets such a process's clean copies either way).
 *
 * A handle of one process that shares a larger cache flushes alone: it writes every dirty byte it
 * reaches (its node's segments, own and remote) to the file itself.
 */
#include <errno.h>
#include <unistd.h>

#include "ad_edonio_flush.h"

/* Write back this process's own segment, the processes in 'groups' groups taking turns. */
static int write_back_grouped(struct edonio_cache *c, MPI_Comm comm, struct edonio_stats *st,
                              int groups, int drop)
{
    int mine, err = 0;

    groups = groups < c->nprocs ? groups : c->nprocs;
    if (groups <= 1)
        return ADIOI_EDONIO_Cache_write_back_own(c, st, drop);
    mine = (int)((long long)c->rank * groups / c->nprocs);
    for (int g = 0; g < groups; g++) {
        if (g == mine)
            err = ADIOI_EDONIO_Cache_write_back_own(c, st, drop);
        ADIOI_EDONIO_Barrier(comm);
    }
    return err;
}

/*
 * The write-back of a flush without flush groups. On one node a process may still be writing
 * into an owner's segment when the owner enters the call (across nodes, applying what the
 * delivery brought it), and MPI_File_sync (and close) promise each process that its earlier writes
 * are in the file when its call returns. So the node's processes first wait for one another
 * (ADIOI_EDONIO_Node_all_in_flush: the agreement that ends the flush waits for all anyway); then
 * no more writes come in, and the blocks written whole, in whichever process's segment of the
 * node, go to the file in runs of consecutive blocks, each process its share
 * (ADIOI_EDONIO_Cache_write_back_runs: blocks b, b + 1, ... belong to owners b mod P, so an owner
 * alone writes one block per operation: the 2-D partitions through PnetCDF made 130 writes of 64
 * KiB at close on pfsemu, 38-45 ms, against 17 ms with blocks of 1 MiB); then each writes back the
 * other dirty blocks of its own segment. Flush groups take turns instead (a barrier first, in
 * ADIOI_EDONIO_Flush_all, on one node).
 */
static int write_back_node_runs(const struct edonio_flush *f)
{
    return f->groups <= 1;
}

/* Delivery, then the write-back; and what 'how' asks after it on this process. errno or 0. */
static int flush_once(struct edonio_cache *c, const struct edonio_flush *f, int deliver)
{
    int err = 0, e;

    /* Every process is in this call (the delivery's first reduction waits for all before any
     * piece is applied) and writes nothing of another's blocks to the file any more, so owners may
     * write whole spans of their blocks, the bytes between pieces read afresh. */
    c->all_in_call = deliver;
    if (deliver)
        err = ADIOI_EDONIO_Net_deliver(c, f->comm, f->st, f->budget, 0, f->all_in);
    if (write_back_node_runs(f)) {
        ADIOI_EDONIO_Node_all_in_flush(&c->node);
        e = ADIOI_EDONIO_Cache_write_back_runs(c, f->st);
        int parts = ADIOI_EDONIO_Cache_write_back_parts(c, f->st, f->how != EDONIO_FLUSH_CLOSE);
        e = e ? e : parts;
    } else {
        e = write_back_grouped(c, f->comm, f->st, f->groups, f->how != EDONIO_FLUSH_CLOSE);
    }
    c->all_in_call = 0;
    err = err ? err : e;
    if (err == 0 && f->how == EDONIO_FLUSH_SYNC && fsync(c->fd_sys) != 0)
        err = errno;
    if (deliver && err == 0 && f->how != EDONIO_FLUSH_CLOSE)
        ADIOI_EDONIO_Cache_forget_remote(c); /* copies of other nodes' blocks may be stale now */
    return err;
}

/* A flush that worked on every process has put every write of this process where every process
 * reads it: no barrier need do it again (ad_edonio_visible.c). */
static int flushed(struct edonio_cache *c, int code)
{
    if (code == MPI_SUCCESS)
        c->wrote = 0;
    return code;
}

int ADIOI_EDONIO_Flush_all(struct edonio_cache *c, const struct edonio_flush *f)
{
    int err, again = 0, code;

    ADIOI_EDONIO_Cache_all_in_call(c); /* the agreement below waits for all */
    /* Flush groups on one node: every process in the call before the first group writes back
     * (write_back_node_runs). */
    if (!c->nodes_apart && c->nprocs > 1 && f->groups > 1)
        ADIOI_EDONIO_Barrier(f->comm);
    err = flush_once(c, f, c->nodes_apart);

    code = ADIOI_EDONIO_Agree_flag(f->comm, f->myname, c->filename, err,
                                   !c->nodes_apart && ADIOI_EDONIO_Cache_remote_dirty(c), &again);
    if (code == MPI_SUCCESS && !again && !c->nodes_apart && f->how != EDONIO_FLUSH_CLOSE)
        ADIOI_EDONIO_Cache_forget_remote(c); /* clean copies a process that could not map an
                                              * owner keeps may predate the owner's writes */
    if (code != MPI_SUCCESS || !again)
        return flushed(c, code);
    /* One node, but some process could not map another's memory: deliver what it kept. */
    err = flush_once(c, f, 1);
    return flushed(c, ADIOI_EDONIO_Agree(f->comm, f->myname, c->filename, err));
}

int ADIOI_EDONIO_Flush_alone(struct edonio_cache *c, struct edonio_stats *st, int how,
                             const char *myname)
{
    int err = ADIOI_EDONIO_Cache_write_back_reachable(c, st, how != EDONIO_FLUSH_CLOSE);

    if (err == 0 && how == EDONIO_FLUSH_SYNC && fsync(c->fd_sys) != 0)
        err = errno;
    return err ? ADIOI_EDONIO_Err(myname, c->filename, err) : MPI_SUCCESS;
}
