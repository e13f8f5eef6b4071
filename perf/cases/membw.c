/*
 * membw: the memory-copy bandwidth of the machine, the physical limit of a re-read served from
 * memory. Every rank copies a buffer of -s bytes (default 256 MiB, far larger than any CPU
 * cache) with memcpy, -k times after one warm-up copy; the aggregate bandwidth is the bytes copied
 * by all ranks over the slowest rank's time (the best of the repetitions).
 *
 *   mpiexec -n P ./membw [-s BYTES] [-k REPS]
 *
 * Prints "RESULT membw nprocs=P bytes=N aggregate_MBps=X per_rank_MBps=Y" on rank 0
 * (MB = 10^6 bytes; a copy counts its bytes once, as a read served from memory does).
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, nprocs, c, reps = 5;
    size_t size = 256u << 20;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    while ((c = getopt(argc, argv, "s:k:")) != -1) {
        if (c == 's')
            size = (size_t)strtoull(optarg, NULL, 10);
        else if (c == 'k')
            reps = atoi(optarg);
    }
    char *src = malloc(size), *dst = malloc(size);
    if (!src || !dst || reps < 1) {
        fprintf(stderr, "membw: out of memory or bad -k\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(src, 1, size);
    memset(dst, 2, size);
    memcpy(dst, src, size); /* warm-up: pages faulted in */
    double best = 1e30;
    for (int k = 0; k < reps; k++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        src[(size_t)k % size] = (char)k;
        memcpy(dst, src, size);
        double t = MPI_Wtime() - t0;
        MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (t < best)
            best = t;
    }
    if (rank == 0)
        printf("RESULT membw nprocs=%d bytes=%zu aggregate_MBps=%.0f per_rank_MBps=%.0f check=%d\n",
               nprocs, size, (double)size * nprocs / best / 1e6, (double)size / best / 1e6,
               dst[size / 2]);
    free(src);
    free(dst);
    MPI_Finalize();
    return 0;
}
