/*
 * ir_mesh: an unstructured-mesh loop through libedonio_irregular (doc/irregular.md).
 *
 * A mesh of NODES nodes, one double each, and EDGES random edges (the same seed on every rank).
 * Each rank owns a block of nodes, and its edges are those with an end it owns: it reaches
 * their nodes through an indirection array, so a node near the border of two blocks appears on
 * both ranks. A sweep writes the owned values to FILE (schedule `own`), reads the values at both
 * ends of every edge (schedule `ends`), and moves each owned node towards its neighbours. After
 * SWEEPS sweeps the borders move (a repartition): edonio_ir_switch hands the nodes that change
 * owner over through the file and keeps the others in memory; SWEEPS more sweeps follow. The
 * result goes to FILE.z compressed; every rank reads the whole array back from FILE and from
 * FILE.z and checks it against a serial run.
 *
 *   mpicc.mpich -std=c11 -I include ir_mesh.c -L _build/.libs -ledonio_irregular -o ir_mesh
 *   mpiexec.mpich -n 4 ./ir_mesh FILE
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "edonio_irregular.h"

#define NODES  20000
#define EDGES  40000
#define SWEEPS 4
#define ALPHA  0.0625

/* Every call returns an MPI error code, the same class on every rank. edonio_ir_error_string is
 * MPI_Error_string knowing the library's messages (MPICH's own does not show them). */
#define CHECK(call)                                                                                \
    do {                                                                                           \
        int err_ = (call), len_;                                                                   \
        char msg_[MPI_MAX_ERROR_STRING];                                                           \
        if (err_ != MPI_SUCCESS) {                                                                 \
            edonio_ir_error_string(err_, msg_, &len_);                                             \
            fprintf(stderr, "ir_mesh: line %d: %s\n", __LINE__, msg_);                             \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                          \
        }                                                                                          \
    } while (0)

static MPI_Offset ea[EDGES], eb[EDGES]; /* edge e joins nodes ea[e] and eb[e] */

static void make_mesh(void)
{
    unsigned long long s = 42;
    for (int e = 0; e < EDGES; e++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        ea[e] = (MPI_Offset)((s >> 33) % NODES);
        eb[e] = (ea[e] + 1 + (MPI_Offset)((s >> 20) % 64)) % NODES; /* a node nearby */
    }
}

static double initial(MPI_Offset n)
{
    return (double)(n % 97);
}

/* The serial run: one sweep over the whole mesh. */
static void serial_sweep(double *x)
{
    double *acc = calloc(NODES, sizeof *acc);
    for (int e = 0; e < EDGES; e++) {
        acc[ea[e]] += x[eb[e]] - x[ea[e]];
        acc[eb[e]] += x[ea[e]] - x[eb[e]];
    }
    for (int n = 0; n < NODES; n++)
        x[n] += ALPHA * acc[n];
    free(acc);
}

/* A rank's part of the mesh: the nodes it owns, and both ends of each edge with an owned end. */
typedef struct {
    MPI_Offset first, nown, *owned; /* owned[i] = first + i */
    MPI_Offset nedges, *ends;       /* edge k joins nodes ends[2k] and ends[2k + 1] */
} part;

/* Rank r owns the nodes [bound(r), bound(r + 1)); shift moves the inner borders down. */
static MPI_Offset bound(int r, int nprocs, MPI_Offset shift)
{
    return r == 0 ? 0 : r == nprocs ? NODES : (MPI_Offset)r * NODES / nprocs - shift;
}

static void partition(part *p, int rank, int nprocs, MPI_Offset shift)
{
    p->first = bound(rank, nprocs, shift);
    p->nown = bound(rank + 1, nprocs, shift) - p->first;
    p->owned = malloc((p->nown + 1) * sizeof *p->owned);
    p->ends = malloc(2 * EDGES * sizeof *p->ends);
    for (MPI_Offset i = 0; i < p->nown; i++)
        p->owned[i] = p->first + i;
    p->nedges = 0;
    for (int e = 0; e < EDGES; e++)
        if ((ea[e] - p->first >= 0 && ea[e] - p->first < p->nown) ||
            (eb[e] - p->first >= 0 && eb[e] - p->first < p->nown)) {
            p->ends[2 * p->nedges] = ea[e];
            p->ends[2 * p->nedges++ + 1] = eb[e];
        }
}

/* One sweep: publish the owned values, read both ends of every edge, move the owned nodes (the
 * same sums in the same order as serial_sweep, so the results are identical). */
static void sweep(MPI_File fh, const part *p, edonio_ir_schedule own, edonio_ir_schedule ends,
                  double *x)
{
    double *xe = malloc((2 * p->nedges + 1) * sizeof *xe);
    double *acc = calloc(p->nown + 1, sizeof *acc);
    CHECK(edonio_ir_write(fh, 0, own, x));
    CHECK(edonio_ir_read(fh, 0, ends, xe));
    for (MPI_Offset k = 0; k < p->nedges; k++) {
        MPI_Offset a = p->ends[2 * k] - p->first, b = p->ends[2 * k + 1] - p->first;
        if (a >= 0 && a < p->nown)
            acc[a] += xe[2 * k + 1] - xe[2 * k];
        if (b >= 0 && b < p->nown)
            acc[b] += xe[2 * k] - xe[2 * k + 1];
    }
    for (MPI_Offset i = 0; i < p->nown; i++)
        x[i] += ALPHA * acc[i];
    free(xe);
    free(acc);
}

int main(int argc, char **argv)
{
    int rank, nprocs;
    long long sum[4] = {0}; /* wrong values, nodes moved, bytes the switch wrote and read */
    char zname[4096], chunk[32];
    MPI_File fh, zf;
    MPI_Info info;
    edonio_ir_schedule own, own2, ends, all;
    edonio_ir_stats st;
    part p1, p2;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: %s FILE\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    make_mesh();
    MPI_Info_create(&info);
    MPI_Info_set(info, "edonio_ir_chunk_size", "16384"); /* 10 chunks of 2048 nodes */
    CHECK(MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                        &fh));

    /* Loop 1: SWEEPS sweeps on the first partition. */
    partition(&p1, rank, nprocs, 0);
    double *x = malloc((p1.nown + 1) * sizeof *x);
    for (MPI_Offset i = 0; i < p1.nown; i++)
        x[i] = initial(p1.first + i);
    CHECK(edonio_ir_schedule_create(MPI_COMM_WORLD, NODES, sizeof(double), p1.nown, p1.owned, info,
                                    &own));
    CHECK(edonio_ir_schedule_create(MPI_COMM_WORLD, NODES, sizeof(double), 2 * p1.nedges, p1.ends,
                                    info, &ends));
    for (int s = 0; s < SWEEPS; s++)
        sweep(fh, &p1, own, ends, x);

    /* Repartition: the inner borders move down by NODES / (8 P) nodes. Nodes that leave a rank
     * go to the file, nodes that join it come from the file, the others stay in memory. */
    partition(&p2, rank, nprocs, NODES / (8 * nprocs));
    double *x2 = malloc((p2.nown + 1) * sizeof *x2);
    CHECK(edonio_ir_schedule_update(own, p2.nown, p2.owned, &own2));
    CHECK(edonio_ir_switch(fh, 0, own2, x, x2));
    CHECK(edonio_ir_schedule_stats(own2, &st));
    sum[1] = rank == nprocs - 1 ? 0 : NODES / (8 * nprocs);
    sum[2] = st.bytes_written;
    sum[3] = st.bytes_read;
    CHECK(edonio_ir_schedule_free(&own));
    CHECK(edonio_ir_schedule_free(&ends));
    CHECK(edonio_ir_schedule_create(MPI_COMM_WORLD, NODES, sizeof(double), 2 * p2.nedges, p2.ends,
                                    info, &ends));

    /* Loop 2, then the final values: to FILE, and compressed to FILE.z. */
    for (int s = 0; s < SWEEPS; s++)
        sweep(fh, &p2, own2, ends, x2);
    CHECK(edonio_ir_write(fh, 0, own2, x2));
    snprintf(zname, sizeof zname, "%s.z", argv[1]);
    CHECK(MPI_File_open(MPI_COMM_WORLD, zname, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
                        &zf));
    CHECK(MPI_File_set_size(zf, 0));
    CHECK(edonio_ir_zwrite(zf, 0, own2, x2));
    CHECK(MPI_File_close(&zf));

    /* Read back: every rank reads the whole array, last node first, with a schedule made from
     * what FILE.z says of itself (a reader needs the writer's chunk size). */
    MPI_Offset gcount, esize, csize, zsize;
    CHECK(MPI_File_open(MPI_COMM_WORLD, zname, MPI_MODE_RDONLY, MPI_INFO_NULL, &zf));
    CHECK(edonio_ir_zinquire(zf, 0, &gcount, &esize, &csize));
    snprintf(chunk, sizeof chunk, "%lld", (long long)csize);
    MPI_Info_set(info, "edonio_ir_chunk_size", chunk);
    MPI_Offset *rev = malloc(gcount * sizeof *rev);
    double *back = malloc(gcount * esize), *zback = malloc(gcount * esize);
    for (MPI_Offset k = 0; k < gcount; k++)
        rev[k] = gcount - 1 - k;
    CHECK(edonio_ir_schedule_create(MPI_COMM_WORLD, gcount, esize, gcount, rev, info, &all));
    CHECK(edonio_ir_read(fh, 0, all, back));
    CHECK(edonio_ir_zread(zf, 0, all, zback));
    CHECK(MPI_File_get_size(zf, &zsize));

    /* Check against the serial run. */
    double *ref = malloc(NODES * sizeof *ref);
    for (MPI_Offset n = 0; n < NODES; n++)
        ref[n] = initial(n);
    for (int s = 0; s < 2 * SWEEPS; s++)
        serial_sweep(ref);
    for (MPI_Offset k = 0; k < NODES; k++)
        sum[0] += (back[k] != ref[NODES - 1 - k]) + (zback[k] != ref[NODES - 1 - k]);
    MPI_Allreduce(MPI_IN_PLACE, sum, 4, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("ir_mesh: %d ranks, %d nodes, %d edges, %d + %d sweeps, chunks of %lld bytes\n",
               nprocs, NODES, EDGES, SWEEPS, SWEEPS, (long long)csize);
        printf("repartition: %lld nodes change owner, %lld stay in memory; the switch wrote "
               "%lld bytes and read %lld\n",
               sum[1], NODES - sum[1], sum[2], sum[3]);
        printf("%s: %lld bytes of doubles in %lld bytes\n", zname, (long long)(gcount * esize),
               (long long)zsize);
        printf("check against the serial run (FILE and FILE.z): %s (%lld wrong)\n",
               sum[0] ? "FAILED" : "OK", sum[0]);
    }
    CHECK(edonio_ir_schedule_free(&all));
    CHECK(edonio_ir_schedule_free(&own2));
    CHECK(edonio_ir_schedule_free(&ends));
    CHECK(MPI_File_close(&zf));
    CHECK(MPI_File_close(&fh));
    MPI_Info_free(&info);
    free(x), free(x2), free(rev), free(back), free(zback), free(ref);
    free(p1.owned), free(p1.ends), free(p2.owned), free(p2.ends);
    MPI_Finalize();
    return sum[0] != 0;
}
