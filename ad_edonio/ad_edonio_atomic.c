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
 *
 * Independent atomic reads and writes take ROMIO's byte-range lock over their extent. A collective
 * call never interleaves with them (no read sees half a write, either way): every process is in
 * it before any moves data (the exchange's first reduction, or a barrier where each process moves
 * its own pieces, ad_edonio_io_coll.c), and none leaves before all are done (the agreement), and
 * a process makes no independent call while it is in a collective one.
 * Across nodes atomic mode caches nothing (ad_edonio_fcntl.c): owners write what they receive
 * straight to the file and forget it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
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
void ADIOI_EDONIO_Edges_find(struct edonio_edges *edges, const int64_t *hdr, const MPI_Count *count,
                             const MPI_Aint *displ, int nprocs)
{
    int64_t n = 0, open = 0;
    struct span *s;

    for (int p = 0; p < nprocs; p++)
        n += count[p] / 2;
    if (n < 2)
        return;
    s = ADIOI_Malloc((size_t)n * sizeof(*s));
    n = 0;
    for (int p = 0; p < nprocs; p++)
        for (MPI_Aint k = displ[p]; k < displ[p] + (MPI_Aint)count[p]; k += 2)
            s[n++] = (struct span){hdr[k], hdr[k] + hdr[k + 1], p};
    qsort(s, (size_t)n, sizeof(*s), by_start);
    /* s[0, open) are the spans still open, compacted in place as the sweep goes. */
    for (int64_t k = 0; k < n; k++) {
        struct span cur = s[k];
        int64_t keep = 0;
        for (int64_t j = 0; j < open; j++) {
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
static int colour_processes(const struct edonio_pass *pass, struct edonio_edges *mine, int *colour)
{
    int nprocs = pass->cache->nprocs, rank = pass->cache->rank, mywords = 2 * mine->n;
    int ncolours = 1;
    int *words = NULL, *displ = NULL;
    struct edonio_edges all = {NULL, 0, 0};

    if (rank == 0) {
        words = ADIOI_Malloc(2 * (size_t)nprocs * sizeof(int));
        displ = words + nprocs;
    }
    MPI_Gather(&mywords, 1, MPI_INT, words, 1, MPI_INT, 0, pass->comm);
    if (rank == 0) {
        displ[0] = 0;
        for (int p = 1; p < nprocs; p++)
            displ[p] = displ[p - 1] + words[p - 1];
        all.n = all.cap = (displ[nprocs - 1] + words[nprocs - 1]) / 2;
        all.pair = ADIOI_Malloc(2 * (size_t)all.n * sizeof(int) + 1);
    }
    MPI_Gatherv(mine->pair, mywords, MPI_INT, all.pair, words, displ, MPI_INT, 0, pass->comm);
    if (rank == 0) {
        ncolours = colour_graph(&all, colour, nprocs);
        ADIOI_Free(all.pair);
        ADIOI_Free(words);
    }
    MPI_Bcast(colour, nprocs, MPI_INT, 0, pass->comm);
    for (int p = 0; p < nprocs; p++)
        if (colour[p] + 1 > ncolours)
            ncolours = colour[p] + 1;
    return ncolours;
}

/*
 * Collective: the overlap graph, its colouring, then one write pass per colour (pass: how each
 * write pass ends at the owners). errno or 0.
 */
int ADIOI_EDONIO_Coloured_write(const struct edonio_pass *pass, struct edonio_req *req)
{
    struct edonio_edges edges = {NULL, 0, 0};
    struct edonio_pass detect = *pass;
    int *colour = ADIOI_Calloc((size_t)pass->cache->nprocs, sizeof(int)), ncolours, err;

    detect.op = EDONIO_COLL_DETECT;
    detect.edges = &edges;
    err = ADIOI_EDONIO_Coll_run(&detect, req, 1, NULL);
    ADIOI_EDONIO_Req_rewind(req);
    ncolours = colour_processes(pass, &edges, colour);
    if (edges.pair != NULL)
        ADIOI_Free(edges.pair);
    for (int c = 0; c < ncolours; c++) {
        int e = ADIOI_EDONIO_Coll_run(pass, req, colour[pass->cache->rank] == c, NULL);
        if (e && !err)
            err = e;
    }
    pass->st->coll_phases += ncolours;
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
    err = ADIOI_EDONIO_Lock_range(fd->fd_sys, writing ? F_WRLCK : F_RDLCK, req->start, extent);
    if (err == 0) {
        err = ADIOI_EDONIO_Req_independent(ADIOI_EDONIO_Cache_of(fd), &edonio_handle(fd)->stats,
                                           ADIOI_EDONIO_Coll_budget(fd), req, writing);
        ADIOI_EDONIO_Lock_range(fd->fd_sys, F_UNLCK, req->start, extent);
    }
    return err;
}
