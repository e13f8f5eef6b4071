/*
 * edonio: MPI atomic mode for collective writes (romio_edonio_atomicity; doc/atomicity.md).
 *
 * - rank_order (the default) needs nothing here: the owners apply what they receive in rank order
 *   (ad_edonio_coll.c), so where requests overlap the highest rank's bytes are left, the lower
 *   ranks' are overwritten in the owner's memory before they ever reach the file.
 * - graph_coloring: a first pass sends only the pieces' descriptions to the owners, which find
 *   the pairs of processes whose pieces overlap (each owner only among pieces of its own blocks,
 *   so the test is spread over the processes and every extent travels once, to one owner). Rank 0
 *   gathers the pairs, colours the overlap graph greedily in rank order, and sends each process
 *   its colour; then the processes of each colour write in turn, one exchange per colour.
 * - locking: each process takes a byte-range lock over its whole extent and writes its pieces
 *   itself, the way ROMIO does it; kept as a baseline.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ad_edonio_coll.h"

/* ------------------------------------------------------------------ overlaps, at the owners */

struct span {
    int64_t lo, hi;
    int src;
};

static int by_start(const void *a, const void *b)
{
    int64_t x = ((const struct span *)a)->lo, y = ((const struct span *)b)->lo;
    return (x > y) - (x < y);
}

static void edge_add(struct edonio_edges *e, int a, int b)
{
    if (e->n == e->cap) {
        e->cap = e->cap ? 2 * e->cap : 64;
        e->pair = ADIOI_Realloc(e->pair, 2 * (size_t)e->cap * sizeof(int));
    }
    e->pair[2 * e->n] = a < b ? a : b;
    e->pair[2 * e->n + 1] = a < b ? b : a;
    e->n++;
}

static int by_pair(const void *a, const void *b)
{
    const int *x = a, *y = b;
    return x[1] != y[1] ? (x[1] > y[1]) - (x[1] < y[1]) : (x[0] > y[0]) - (x[0] < y[0]);
}

/* Sort the pairs (by higher rank, then lower) and drop repeats. */
static void edges_unique(struct edonio_edges *e)
{
    int n = 0;

    if (e->n == 0)
        return;
    qsort(e->pair, (size_t)e->n, 2 * sizeof(int), by_pair);
    for (int k = 0; k < e->n; k++)
        if (n == 0 || by_pair(e->pair + 2 * k, e->pair + 2 * (n - 1)) != 0) {
            e->pair[2 * n] = e->pair[2 * k];
            e->pair[2 * n + 1] = e->pair[2 * k + 1];
            n++;
        }
    e->n = n;
}

/*
 * The pieces one round brought to this owner (count[p] int64 words from process p at displ[p]):
 * sort them by offset and sweep, each against the ones still open where it starts.
 */
void ADIOI_EDONIO_Edges_find(struct edonio_edges *edges, const int64_t *hdr, const int *count,
                             const int *displ, int nprocs)
{
    int n = 0, open = 0;
    struct span *s;

    for (int p = 0; p < nprocs; p++)
        n += count[p] / 2;
    if (n < 2)
        return;
    s = ADIOI_Malloc((size_t)n * sizeof(*s));
    n = 0;
    for (int p = 0; p < nprocs; p++)
        for (int k = displ[p]; k < displ[p] + count[p]; k += 2)
            s[n++] = (struct span){hdr[k], hdr[k] + hdr[k + 1], p};
    qsort(s, (size_t)n, sizeof(*s), by_start);
    /* s[0, open) are the spans still open, compacted in place as the sweep goes. */
    for (int k = 0; k < n; k++) {
        struct span cur = s[k];
        int keep = 0;
        for (int j = 0; j < open; j++) {
            if (s[j].hi <= cur.lo)
                continue; /* closed before cur starts */
            if (s[j].src != cur.src)
                edge_add(edges, s[j].src, cur.src);
            s[keep++] = s[j];
        }
        s[keep++] = cur;
        open = keep;
    }
    ADIOI_Free(s);
    edges_unique(edges);
}

/* ------------------------------------------------------------------ colouring, at rank 0 */

/* Greedy, in rank order (seed 003, figure 5): the smallest colour no lower neighbour has. */
static int colour_graph(struct edonio_edges *e, int *colour, int nprocs)
{
    char *used = ADIOI_Calloc((size_t)nprocs + 1, 1);
    int ncolours = 1, k = 0;

    edges_unique(e); /* sorted by the higher rank of each pair */
    for (int v = 0; v < nprocs; v++) {
        int first = k, c = 0;
        for (; k < e->n && e->pair[2 * k + 1] == v; k++)
            used[colour[e->pair[2 * k]]] = 1;
        while (used[c])
            c++;
        colour[v] = c;
        if (c + 1 > ncolours)
            ncolours = c + 1;
        for (int j = first; j < k; j++)
            used[colour[e->pair[2 * j]]] = 0;
    }
    ADIOI_Free(used);
    return ncolours;
}

/* Collective: every process's colour, from the pairs each owner found. Returns the colours. */
static int colour_processes(struct edonio_file *ef, struct edonio_edges *mine, int *colour)
{
    int nprocs = ef->nprocs, mywords = 2 * mine->n, ncolours = 1;
    int *words = NULL, *displ = NULL;
    struct edonio_edges all = {NULL, 0, 0};

    if (ef->rank == 0) {
        words = ADIOI_Malloc(2 * (size_t)nprocs * sizeof(int));
        displ = words + nprocs;
    }
    MPI_Gather(&mywords, 1, MPI_INT, words, 1, MPI_INT, 0, ef->comm);
    if (ef->rank == 0) {
        displ[0] = 0;
        for (int p = 1; p < nprocs; p++)
            displ[p] = displ[p - 1] + words[p - 1];
        all.n = all.cap = (displ[nprocs - 1] + words[nprocs - 1]) / 2;
        all.pair = ADIOI_Malloc(2 * (size_t)all.n * sizeof(int) + 1);
    }
    MPI_Gatherv(mine->pair, mywords, MPI_INT, all.pair, words, displ, MPI_INT, 0, ef->comm);
    if (ef->rank == 0) {
        ncolours = colour_graph(&all, colour, nprocs);
        ADIOI_Free(all.pair);
        ADIOI_Free(words);
    }
    MPI_Bcast(colour, nprocs, MPI_INT, 0, ef->comm);
    for (int p = 0; p < nprocs; p++)
        if (colour[p] + 1 > ncolours)
            ncolours = colour[p] + 1;
    return ncolours;
}

/* Collective: the overlap graph, its colouring, then one write pass per colour. errno or 0. */
int ADIOI_EDONIO_Coloured_write(ADIO_File fd, struct edonio_req *req)
{
    struct edonio_file *ef = edonio_state(fd);
    struct edonio_edges edges = {NULL, 0, 0};
    int *colour = ADIOI_Calloc((size_t)ef->nprocs, sizeof(int)), ncolours, err;

    err = ADIOI_EDONIO_Coll_run(fd, req, 1, EDONIO_COLL_DETECT, &edges);
    ADIOI_EDONIO_Req_rewind(req);
    ncolours = colour_processes(ef, &edges, colour);
    if (edges.pair != NULL)
        ADIOI_Free(edges.pair);
    for (int c = 0; c < ncolours; c++) {
        int e = ADIOI_EDONIO_Coll_run(fd, req, colour[ef->rank] == c, EDONIO_COLL_WRITE, NULL);
        if (e && !err)
            err = e;
    }
    ef->stats.coll_phases += ncolours;
    ADIOI_Free(colour);
    return err;
}

/* ------------------------------------------------------------------ locking */

/*
 * This process's request on its own, under a byte-range lock of the file over its whole extent
 * (a write lock to write, a read lock to read). errno or 0.
 */
int ADIOI_EDONIO_Locked_io(ADIO_File fd, struct edonio_req *req, int writing)
{
    ADIO_Offset extent = req->end - req->start;
    int err;

    if (req->bytes == 0)
        return 0;
    if (writing)
        ADIOI_WRITE_LOCK(fd, req->start, SEEK_SET, extent);
    else
        ADIOI_READ_LOCK(fd, req->start, SEEK_SET, extent);
    err = ADIOI_EDONIO_Req_independent(fd, req, writing);
    ADIOI_UNLOCK(fd, req->start, SEEK_SET, extent);
    return err;
}

/*
 * Byte-range locks (the SetLock entry: ROMIO's atomic mode and data sieving, and locking above).
 * Across nodes, the process waiting for a lock must keep serving the RMA that its owner's
 * segment receives, or the holder, which may need that segment to finish, never releases:
 * so it polls (try the lock, let MPI progress, wait a little) instead of blocking in fcntl.
 */
int ADIOI_EDONIO_SetLock(ADIO_File fd, int cmd, int type, ADIO_Offset offset, int whence,
                         ADIO_Offset len)
{
    struct edonio_file *ef = edonio_state(fd);
    struct flock lock;
    const struct timespec pause = {0, 50 * 1000};
    int flag;

    if (len == 0)
        return MPI_SUCCESS;
    if (ef == NULL || ef->access != EDONIO_ACCESS_RMA || cmd != F_SETLKW)
        return ADIOI_GEN_SetLock(fd, cmd, type, offset, whence, len);
    memset(&lock, 0, sizeof(lock));
    lock.l_type = (short)type;
    lock.l_whence = (short)whence;
    lock.l_start = (off_t)offset;
    lock.l_len = (off_t)len;
    while (fcntl(fd->fd_sys, F_SETLK, &lock) != 0) {
        if (errno != EAGAIN && errno != EACCES && errno != EINTR)
            return ADIOI_EDONIO_Err("ADIOI_EDONIO_SETLOCK", fd->filename, errno);
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, ef->comm, &flag, MPI_STATUS_IGNORE);
        nanosleep(&pause, NULL);
    }
    return MPI_SUCCESS;
}
