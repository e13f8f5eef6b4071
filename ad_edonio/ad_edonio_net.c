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
 * node has several processes, they all enter the call (a barrier) before any takes its segment.
 */
#include <errno.h>
#include <stdlib.h>

#include "ad_edonio_coll.h"

int ADIOI_EDONIO_Net_deliver(struct edonio_cache *c, MPI_Comm comm, struct edonio_stats *st,
                             ADIO_Offset budget, int through)
{
    struct edonio_pass pass = {c, comm, st, budget, EDONIO_COLL_WRITE,
                               through ? EDONIO_KEEP_REACHED : EDONIO_KEEP_ALL, NULL};
    ADIO_Offset *off = NULL, *len;
    struct edonio_req req;
    char **where = NULL, *data = NULL;
    int64_t n;
    int err, failed;

    if (c->nprocs == 1)
        return 0;
    if (c->nodes_shared)
        MPI_Barrier(comm);
    n = ADIOI_EDONIO_Cache_remote_pieces(c, &off, &len, &where, &data);
    ADIOI_EDONIO_Req_pieces(&req, off, len, where, n > 0 ? n : 0);
    err = n < 0 ? ENOMEM : 0;
    int e = ADIOI_EDONIO_Coll_run(&pass, &req, n > 0, &failed);
    if (e && !err)
        err = e;
    /* Every owner took its share, or every remote segment keeps its bytes for the next time. */
    if (failed == 0)
        st->delivered += req.bytes;
    ADIOI_EDONIO_Cache_remote_done(c, failed == 0);
    free(off);
    free(where);
    free(data);
    return err;
}
