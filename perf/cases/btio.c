/*
 * perf case: the NAS BT-IO pattern with independent I/O (issue 41). A 3-D grid of N^3 points, 5
 * doubles per point, as a record variable: -k time steps, step s at s * N^3 * 40 bytes. The grid
 * is cut in blocks over a process grid that splits the two fastest dimensions (MPI_Dims_create),
 * as BT's multipartition cuts each cell, so that a rank's block is runs of N / Pz points (N = 64,
 * 4 ranks: 1,280 B) scattered over the step. Each rank sets a subarray file view and writes each
 * step with one independent MPI_File_write (the "simple" BT-IO kind is worse: one write per run;
 * this is its "full MPI-IO" kind without the collective), then closes; then opens again, reads
 * each step with one MPI_File_read, checks every value and closes.
 *
 *   btio -f ufs|edonio -d DIR [-n N] [-k STEPS] [-H key=value]...
 *
 * RESULT t_write (open + writes + close) and t_read (open + reads + close), seconds, the slowest
 * rank, without making the values written or checking those read; bytes_written, bytes_read,
 * errors (values read wrong, and failed calls).
 */
#define _POSIX_C_SOURCE 200809L /* getopt */

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { VALUES = 5, MAX_HINTS = 16 };

struct grid {
    int n, steps, rank, nprocs;
    int sizes[3], subsizes[3], starts[3]; /* in points, slowest dimension first */
    long long points;                    /* this rank's */
    MPI_Datatype point, view;
};

/* The value of component v of point (x, y, z) at step s: every byte tells where it belongs. */
static double value(const struct grid *g, int s, int x, int y, int z, int v)
{
    return (((double)s * g->n + x) * g->n + y) * g->n * VALUES + (double)z * VALUES + v;
}

static void fill(const struct grid *g, int s, double *buf, int check, long long *errors)
{
    long long i = 0;

    for (int x = 0; x < g->subsizes[0]; x++)
        for (int y = 0; y < g->subsizes[1]; y++)
            for (int z = 0; z < g->subsizes[2]; z++)
                for (int v = 0; v < VALUES; v++, i++) {
                    double want = value(g, s, g->starts[0] + x, g->starts[1] + y,
                                        g->starts[2] + z, v);
                    if (!check)
                        buf[i] = want;
                    else if (buf[i] != want)
                        (*errors)++;
                }
}

static void make_grid(struct grid *g)
{
    int dims[3] = {1, 0, 0}, coords[3], r;

    MPI_Dims_create(g->nprocs, 3, dims); /* the slowest dimension stays whole */
    r = g->rank;
    for (int d = 2; d >= 0; d--) {
        coords[d] = r % dims[d];
        r /= dims[d];
    }
    for (int d = 0; d < 3; d++) {
        int base = g->n / dims[d], extra = g->n % dims[d];
        g->sizes[d] = g->n;
        g->subsizes[d] = base + (coords[d] < extra);
        g->starts[d] = coords[d] * base + (coords[d] < extra ? coords[d] : extra);
    }
    g->points = (long long)g->subsizes[0] * g->subsizes[1] * g->subsizes[2];
    MPI_Type_contiguous(VALUES, MPI_DOUBLE, &g->point);
    MPI_Type_commit(&g->point);
    MPI_Type_create_subarray(3, g->sizes, g->subsizes, g->starts, MPI_ORDER_C, g->point,
                             &g->view);
    MPI_Type_commit(&g->view);
}

/* One phase: open, each step written (write = 1) or read and checked, close. Its seconds. */
static double phase(const struct grid *g, const char *path, MPI_Info info, int write,
                    double *buf, long long *errors)
{
    MPI_Offset step_bytes = (MPI_Offset)g->n * g->n * g->n * VALUES * sizeof(double);
    int mode = write ? MPI_MODE_CREATE | MPI_MODE_WRONLY : MPI_MODE_RDONLY;
    MPI_File fh;
    double t;

    MPI_Barrier(MPI_COMM_WORLD);
    t = MPI_Wtime();
    if (MPI_File_open(MPI_COMM_WORLD, path, mode, info, &fh) != MPI_SUCCESS) {
        (*errors)++;
        return 0;
    }
    for (int s = 0; s < g->steps; s++) {
        int err;
        if (write) { /* untimed, as the read's check: making the data is not I/O */
            double f = MPI_Wtime();
            fill(g, s, buf, 0, errors);
            t += MPI_Wtime() - f;
        }
        MPI_File_set_view(fh, s * step_bytes, g->point, g->view, "native", info);
        if (write)
            err = MPI_File_write(fh, buf, (int)g->points, g->point, MPI_STATUS_IGNORE);
        else
            err = MPI_File_read(fh, buf, (int)g->points, g->point, MPI_STATUS_IGNORE);
        *errors += err != MPI_SUCCESS;
        if (!write) { /* untimed: the check is the benchmark's own work */
            double c = MPI_Wtime();
            fill(g, s, buf, 1, errors);
            t += MPI_Wtime() - c;
        }
    }
    MPI_File_close(&fh);
    t = MPI_Wtime() - t;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return t;
}

int main(int argc, char **argv)
{
    const char *driver = "edonio", *dir = ".";
    struct grid g = {.n = 64, .steps = 5};
    char path[4096];
    long long errors = 0;
    MPI_Info info;
    int opt;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g.nprocs);
    MPI_Info_create(&info);
    while ((opt = getopt(argc, argv, "f:d:n:k:H:")) != -1) {
        char *eq;
        if (opt == 'f')
            driver = optarg;
        else if (opt == 'd')
            dir = optarg;
        else if (opt == 'n')
            g.n = atoi(optarg);
        else if (opt == 'k')
            g.steps = atoi(optarg);
        else if (opt == 'H' && (eq = strchr(optarg, '=')) != NULL) {
            *eq = '\0';
            MPI_Info_set(info, optarg, eq + 1);
        } else
            MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (g.n < 1 || g.steps < 1)
        MPI_Abort(MPI_COMM_WORLD, 2);
    make_grid(&g);
    snprintf(path, sizeof(path), "%s:%s/btio.%s", driver, dir, driver);
    double *buf = malloc((size_t)g.points * VALUES * sizeof(double) + 1);
    if (buf == NULL)
        MPI_Abort(MPI_COMM_WORLD, 3);
    double tw = phase(&g, path, info, 1, buf, &errors);
    double tr = phase(&g, path, info, 0, buf, &errors);
    MPI_Allreduce(MPI_IN_PLACE, &errors, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    long long bytes = (long long)g.steps * g.n * g.n * g.n * VALUES * (long long)sizeof(double);
    if (g.rank == 0)
        printf("RESULT t_write=%.6f t_read=%.6f bytes_written=%lld bytes_read=%lld errors=%lld\n",
               tw, tr, bytes, bytes, errors);
    free(buf);
    MPI_Type_free(&g.view);
    MPI_Type_free(&g.point);
    MPI_Info_free(&info);
    MPI_Finalize();
    return errors != 0;
}
