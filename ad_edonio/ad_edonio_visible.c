/*
 * edonio: what MPI_Barrier and MPI_Ibarrier hand over across nodes.
 *
 * Programs written against POSIX file systems, HDF5 among them, hand data from one process to
 * another with a write and an MPI_Barrier: on ufs the write is in the page cache (or on the
 * parallel file system) when pwrite returns. MPI-3.1 13.6.1 asks for sync-barrier-sync outside
 * atomic mode, and across nodes edonio keeps a write to another node's block on the writer's node
 * until a collective file call (ad_edonio_net.c), and owners keep dirty blocks that other nodes
 * read from the file. So the library's MPI_Barrier (mpiio-glue/barrier.c) is a barrier that
 * carries one word, at what MPICH's barrier costs: has some process of the communicator written, since the last
 * collective flush, to a file whose processes span nodes (ADIOI_EDONIO_Visible_pending)? When
 * one has, every file open here whose processes are all in the communicator, in the order it was
 * opened, makes one more reduction among its processes and, if one of them wrote, a flush without
 * fsync (EDONIO_FLUSH_VISIBLE): the remote segments delivered to the owners, every dirty block
 * written back, clean copies forgotten. Every process of such a file is in the barrier, so the
 * flush's collectives find them all, and a file's processes agree on its place in the order: they
 * opened their common files in one order (a collective open of each). A barrier with nothing
 * written costs the allreduce alone.
 *
 * MPI_Ibarrier must not wait for the others when it starts, nor do collective work when it
 * completes (a process may complete it in MPI_Test while another waits for its message). So a
 * process that wrote puts what it reaches on its node (its node's segments, own and remote) in the
 * file itself before it enters, as a one-process handle's sync does, and the program's request is
 * an MPI_Iallreduce of "I wrote"; when the program sees it complete (mpiio-glue/barrier.c watches
 * MPI_Wait and MPI_Test and their kin), each process forgets the clean copies on its node, if some
 * process wrote. Both need nothing from the other processes but the collective itself: no progress
 * thread, and a process computing outside MPI stalls nobody.
 */
#include <errno.h>
#include <stdlib.h>

#include "ad_edonio_flush.h"
#include "ad_edonio_coll.h"
#include "ad_edonio_visible.h"
#include "adioi.h"

/* The handles that made a writable cache of several processes, in the order they opened. */
static ADIO_File *handles;
static int nhandles, room;

void ADIOI_EDONIO_Visible_add(ADIO_File fd)
{
    if (nhandles == room) {
        int more = room ? 2 * room : 8;
        ADIO_File *h = realloc(handles, (size_t)more * sizeof(*h));
        if (h == NULL) /* a process without it would skip the others' flushes: they would hang */
            MPI_Abort(fd->comm, ENOMEM);
        handles = h;
        room = more;
    }
    handles[nhandles++] = fd;
}

void ADIOI_EDONIO_Visible_remove(ADIO_File fd)
{
    for (int i = 0; i < nhandles; i++)
        if (handles[i] == fd) {
            for (int k = i + 1; k < nhandles; k++)
                handles[k - 1] = handles[k];
            nhandles--;
            return;
        }
}

/*
 * Do this process's writes to c wait for a collective point before every process reads them? On
 * one node the processes read each other's segments, unless one could not map another's memory.
 */
static int held(const struct edonio_cache *c)
{
    return c->wrote && (c->nodes_apart || c->node.n < c->nprocs);
}

int ADIOI_EDONIO_Visible_pending(void)
{
    for (int i = 0; i < nhandles; i++) {
        struct edonio_cache *c = ADIOI_EDONIO_Cache_of(handles[i]);
        if (c != NULL && held(c))
            return 1;
    }
    return 0;
}

/* Are all the cache's processes in comm? The same answer on every process of both. */
static int holds_all(MPI_Comm comm, const struct edonio_cache *c)
{
    enum { CHUNK = 256 };
    int from[CHUNK], to[CHUNK], result, all = 1;
    MPI_Group g;

    MPI_Comm_group(comm, &g);
    MPI_Group_compare(c->group, g, &result);
    for (int lo = 0; result == MPI_UNEQUAL && all && lo < c->nprocs; lo += CHUNK) {
        int k = c->nprocs - lo < CHUNK ? c->nprocs - lo : CHUNK;
        for (int i = 0; i < k; i++)
            from[i] = lo + i;
        MPI_Group_translate_ranks(c->group, k, from, g, to);
        for (int i = 0; i < k; i++)
            all = all && to[i] != MPI_UNDEFINED;
    }
    MPI_Group_free(&g);
    return all;
}

/*
 * Collective over the handle's processes, all of them in the barrier: if one wrote, every write in
 * the file or in its owner's segment, and no copy older than them kept. A failure leaves the
 * dirty bytes cached (the next sync or close writes them again and reports it); the barrier
 * itself succeeds.
 */
static void flush_for_barrier(ADIO_File fd)
{
    static char myname[] = "ADIOI_EDONIO_BARRIER";
    struct edonio_handle *h = edonio_handle(fd);
    struct edonio_cache *c = ADIOI_EDONIO_Cache_of(fd);
    long long mine = held(c), any;

    ADIOI_EDONIO_Reduce_small(fd->comm, MPI_MAX, 1, &mine, &any);
    if (!any)
        return;
    struct edonio_flush f = {.comm = fd->comm,
                             .st = &h->stats,
                             .budget = ADIOI_EDONIO_Coll_budget(fd),
                             .groups = h->hints.flush_groups,
                             .how = EDONIO_FLUSH_VISIBLE,
                             .myname = myname,
                             .all_in = 1};
    ADIOI_EDONIO_Flush_all(c, &f);
    h->stats.barriers++;
}

void ADIOI_EDONIO_Visible_barrier(MPI_Comm comm)
{
    for (int i = 0; i < nhandles; i++) {
        struct edonio_cache *c = ADIOI_EDONIO_Cache_of(handles[i]);
        if (c != NULL && holds_all(comm, c))
            flush_for_barrier(handles[i]);
    }
}

struct edonio_ibarrier *ADIOI_EDONIO_Visible_ibarrier(MPI_Comm comm)
{
    struct edonio_ibarrier *b = calloc(1, sizeof(*b));

    if (b == NULL || (b->ids = malloc((size_t)(nhandles + 1) * sizeof(*b->ids))) == NULL) {
        free(b);
        return NULL;
    }
    for (int i = 0; i < nhandles; i++) {
        struct edonio_cache *c = ADIOI_EDONIO_Cache_of(handles[i]);
        if (c == NULL || !holds_all(comm, c))
            continue;
        b->ids[b->n++] = c->id;
        if (!held(c))
            continue;
        b->mine = 1;
        struct edonio_handle *h = edonio_handle(handles[i]);
        if (ADIOI_EDONIO_Cache_write_back_reachable(c, &h->stats, 0) == 0)
            c->wrote = 0; /* in the file; the others forget their copies when it completes */
        h->stats.barriers++;
    }
    return b;
}

void ADIOI_EDONIO_Visible_done(struct edonio_ibarrier *b)
{
    for (int i = 0; b->any && i < nhandles; i++) {
        struct edonio_cache *c = ADIOI_EDONIO_Cache_of(handles[i]);
        for (int k = 0; c != NULL && k < b->n; k++)
            if (b->ids[k] == c->id) {
                ADIOI_EDONIO_Cache_write_back_reachable(c, &edonio_handle(handles[i])->stats, 1);
                break;
            }
    }
    free(b->ids);
    free(b);
}
