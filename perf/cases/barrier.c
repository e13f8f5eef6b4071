/*
 * perf case: what an MPI_Barrier costs with edonio's library (doc/design.md, "What a barrier hands
 * over"). The library defines MPI_Barrier as an MPI_Allreduce of one word, followed by a flush
 * only when some process wrote to a file whose processes span nodes. This times loops of
 * barriers, through the library's MPI_Barrier with -f edonio and through MPICH's own
 * (PMPI_Barrier: what a program without the library calls) with -f ufs.
 *
 *   barrier -f ufs|edonio -d DIR [-n N]
 *
 * RESULT t_write: N barriers with no file open; t_read: N barriers with a file of the driver open,
 * nothing written; t_flush (reported, not a ratio of perf/run's): N/100 barriers, each after rank
 * 0 wrote 8 bytes into another rank's block (across nodes edonio's barrier then flushes).
 */
#define _POSIX_C_SOURCE 200809L /* getopt */

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int use_edonio;

static void barrier(void)
{
    if (use_edonio)
        MPI_Barrier(MPI_COMM_WORLD);
    else
        PMPI_Barrier(MPI_COMM_WORLD);
}

static double loop(int n, MPI_File fh, int rank, int nprocs)
{
    double t;

    barrier();
    t = MPI_Wtime();
    for (int i = 0; i < n; i++) {
        if (fh != MPI_FILE_NULL && rank == 0)
            MPI_File_write_at(fh, (MPI_Offset)65536 * (1 + i % (nprocs > 1 ? nprocs - 1 : 1)), &i,
                              (int)sizeof(i), MPI_BYTE, MPI_STATUS_IGNORE);
        barrier();
    }
    t = MPI_Wtime() - t;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return t;
}

int main(int argc, char **argv)
{
    const char *driver = "edonio", *dir = ".";
    char path[4096];
    int rank, nprocs, n = 10000, opt;
    MPI_File fh;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    while ((opt = getopt(argc, argv, "f:d:n:")) != -1) {
        if (opt == 'f')
            driver = optarg;
        else if (opt == 'd')
            dir = optarg;
        else if (opt == 'n')
            n = atoi(optarg);
    }
    use_edonio = strcmp(driver, "edonio") == 0;
    snprintf(path, sizeof(path), "%s:%s/barrier.dat", driver, dir);
    loop(n / 10 + 1, MPI_FILE_NULL, rank, nprocs); /* warm up */
    double t_none = loop(n, MPI_FILE_NULL, rank, nprocs);
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    double t_open = loop(n, MPI_FILE_NULL, rank, nprocs); /* the file open, nothing written */
    double t_flush = loop(n / 100 + 1, fh, rank, nprocs);
    MPI_File_close(&fh);
    if (rank == 0) {
        MPI_File_delete(path, MPI_INFO_NULL);
        printf("RESULT t_write=%.6f t_read=%.6f t_flush=%.6f bytes_written=0 bytes_read=0 errors=0 "
               "us_none=%.3f us_open=%.3f us_flush=%.3f\n",
               t_none, t_open, t_flush, t_none / n * 1e6, t_open / n * 1e6,
               t_flush / (n / 100 + 1) * 1e6);
    }
    MPI_Finalize();
    return 0;
}
