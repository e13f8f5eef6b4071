/*
 * edonio: MPI atomic mode for collective writes (romio_edonio_atomicity; doc/atomicity.md).
 *
 * - rank_order (the default) needs nothing here: the owners apply what they receive in rank order
 *   (ad_edonio_coll.c), so where requests overlap the highest rank's bytes are left, the lower
 *   ranks' are overwritten in the owner's memory before they ever reach the file.
 * - graph_coloring: a first pass sends only the pieces' descriptions to the owners, which find
 *   the pairs of processes whose pieces overlap (each owner only among pieces of its own blocks,
 *   so the test is spread over the processes and every extent travels once, to one owner). Each
 *   pair goes to its lower rank, which merges them and tells its higher neighbours; the graph is
 *   coloured by Jones-Plassmann, one message per edge; then the processes of each colour write in
 *   turn, one pass per colour. Nothing gathers at one process: the cost is O(E) (doc/atomicity.md,
 *   "Cost as P grows").
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

/* ------------------------------------------------------------------ the overlap graph */

/* Send one message per peer: the ranks in list[first[g] .. first[g+1]) to peer[g]. */
static void send_lists(MPI_Comm comm, int tag, const int *peer, const int *first, int *list,
                       int ngroups, struct edonio_msg **in, int *nin)
{
    struct edonio_msg *out = malloc(((size_t)ngroups + 1) * sizeof(*out));

    if (out == NULL)
        MPI_Abort(comm, 1);
    for (int g = 0; g < ngroups; g++)
        out[g] = (struct edonio_msg){.peer = peer[g],
                                     .bytes = (MPI_Count)(first[g + 1] - first[g]) * sizeof(int),
                                     .data = (char *)(list + first[g])};
    ADIOI_EDONIO_Sparse_exchange(comm, tag, out, ngroups, in, nin, NULL);
    free(out);
}

static int by_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/*
 * Collective: this process's neighbours in the overlap graph, from the pairs this owner found
 * (sorted by lower rank, unique). Each pair goes to its lower rank, which merges what every owner
 * sent (a pair seen at several owners is one edge) and tells each higher neighbour once. O(E)
 * words in all; nothing gathers at one process. Returns the count; *nbr: the ranks (malloc'd).
 */
static int neighbours(MPI_Comm comm, const struct edonio_edges *e, int **nbr)
{
    int *peer = malloc(((size_t)e->n + 1) * sizeof(int)),
        *first = malloc(((size_t)e->n + 2) * sizeof(int));
    int *hi = malloc(((size_t)e->n + 1) * sizeof(int)), ng = 0, nin, nlow, nhigh = 0;
    struct edonio_msg *in;

    if (peer == NULL || first == NULL || hi == NULL)
        MPI_Abort(comm, 1);
    for (int k = 0; k < e->n; k++) { /* the pairs to their lower ranks: the higher ranks' lists */
        if (k == 0 || e->pair[2 * k] != peer[ng - 1]) {
            peer[ng] = e->pair[2 * k];
            first[ng++] = k;
        }
        hi[k] = e->pair[2 * k + 1];
    }
    first[ng] = e->n;
    send_lists(comm, EDONIO_TAG_PAIRS, peer, first, hi, ng, &in, &nin);
    for (int k = 0; k < nin; k++)
        nhigh += (int)(in[k].bytes / sizeof(int));
    int *mine = malloc(((size_t)nhigh + 1) * sizeof(int));
    if (mine == NULL)
        MPI_Abort(comm, 1);
    nhigh = 0;
    for (int k = 0; k < nin; k++) {
        memcpy(mine + nhigh, in[k].data, (size_t)in[k].bytes);
        nhigh += (int)(in[k].bytes / sizeof(int));
    }
    ADIOI_EDONIO_Msgs_free(in, nin, NULL);
    qsort(mine, (size_t)nhigh, sizeof(int), by_int);
    int n = 0;
    for (int k = 0; k < nhigh; k++) /* unique */
        if (n == 0 || mine[k] != mine[n - 1])
            mine[n++] = mine[k];
    nhigh = n;
    /* Each higher neighbour learns of this one: an empty message, the sender is the news. */
    free(first);
    if ((first = calloc((size_t)nhigh + 1, sizeof(int))) == NULL)
        MPI_Abort(comm, 1);
    send_lists(comm, EDONIO_TAG_NEIGHBOUR, mine, first, hi, nhigh, &in, &nin);
    nlow = nin;
    if ((*nbr = malloc(((size_t)nlow + nhigh + 1) * sizeof(int))) == NULL)
        MPI_Abort(comm, 1);
    for (int k = 0; k < nlow; k++)
        (*nbr)[k] = in[k].peer;
    memcpy(*nbr + nlow, mine, (size_t)nhigh * sizeof(int));
    ADIOI_EDONIO_Msgs_free(in, nin, NULL);
    free(mine);
    free(first);
    free(peer);
    free(hi);
    return nlow + nhigh;
}

/*
 * Collective: this process's colour (Jones-Plassmann, ad_edonio_plan.h): wait for the colours of
 * the neighbours that come first, take the smallest free one, send it to those that come after.
 * Messages: one per edge. Returns the colour; *ncolours: how many there are (one reduction).
 */
static int colour(MPI_Comm comm, int rank, const int *nbr, int n, int *ncolours)
{
    struct edonio_jp v;
    MPI_Request *rq = malloc(((size_t)n + 1) * sizeof(*rq));
    int *heard = malloc(((size_t)n + 1) * sizeof(int)),
        *from = malloc(((size_t)n + 1) * sizeof(int));
    int nrecv = 0, nsend = 0, mine;

    if (rq == NULL || heard == NULL || from == NULL || !edonio_jp_init(&v, rank, nbr, n))
        MPI_Abort(comm, 1);
    for (int k = 0; k < v.n; k++)
        if (!edonio_jp_waits(&v, k)) {
            from[nrecv] = v.nbr[k];
            MPI_Irecv(&heard[nrecv], 1, MPI_INT, v.nbr[k], EDONIO_TAG_COLOUR, comm, &rq[nrecv]);
            nrecv++;
        }
    while (!edonio_jp_step(&v)) {
        int k;
        MPI_Waitany(nrecv, rq, &k, MPI_STATUS_IGNORE);
        edonio_jp_heard(&v, from[k], heard[k]);
    }
    mine = v.mine;
    for (int k = 0; k < v.n; k++)
        if (edonio_jp_waits(&v, k))
            MPI_Isend(&mine, 1, MPI_INT, v.nbr[k], EDONIO_TAG_COLOUR, comm, &rq[nsend++]);
    edonio_wait_all(ADIOI_EDONIO_Crowded(comm), nsend, rq);
    long long own = mine, most;
    ADIOI_EDONIO_Reduce_small(comm, MPI_MAX, 1, &own, &most);
    *ncolours = (int)most + 1;
    edonio_jp_free(&v);
    free(rq);
    free(heard);
    free(from);
    return mine;
}

/*
 * Collective: the overlap graph, its colouring, then one write pass per colour (pass: how each
 * write pass ends at the owners). errno or 0.
 */
int ADIOI_EDONIO_Coloured_write(const struct edonio_pass *pass, struct edonio_req *req)
{
    struct edonio_edges edges = {NULL, 0, 0};
    struct edonio_pass detect = *pass, each = *pass;
    int *nbr, n, mine, ncolours, err;

    detect.op = EDONIO_COLL_DETECT;
    detect.edges = &edges;
    detect.record = each.record = NULL; /* no kept exchange: a pass per colour, and atomic */
    detect.reuse = each.reuse = NULL;
    err = ADIOI_EDONIO_Coll_run(&detect, req, 1, NULL, NULL);
    edonio_edges_unique(&edges);
    n = neighbours(pass->comm, &edges, &nbr);
    edonio_edges_free(&edges);
    mine = colour(pass->comm, pass->cache->rank, nbr, n, &ncolours);
    free(nbr);
    /* Where owners write through (atomic mode across nodes: the cache holds nothing else), they
     * write back once, after the last colour, when the colours' pieces have merged in their
     * blocks: not once per colour, with each colour's scattered pieces. */
    if (pass->keep == EDONIO_KEEP_NONE)
        each.keep = EDONIO_KEEP_ALL;
    for (int c = 0; c < ncolours; c++) {
        int e = ADIOI_EDONIO_Coll_run(&each, req, mine == c, NULL, NULL);
        if (e && !err)
            err = e;
    }
    if (pass->keep == EDONIO_KEEP_NONE) {
        int e = ADIOI_EDONIO_Cache_write_back_own(pass->cache, pass->st, 1);
        if (e && !err)
            err = e;
    }
    pass->st->coll_phases += ncolours;
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
