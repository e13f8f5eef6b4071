/*
 * N opens of one existing file on every rank, each after a barrier, and their closes: the
 * slowest rank's open time (quartiles, mean) and the median close, to stdout as one line.
 *   mpicc -O2 -o open_loop open_loop.c
 *   LD_PRELOAD=libedonio.so mpiexec -n 4 ./open_loop edonio:/tmp/f 60 0 LABEL   (0: read-only)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int rank, n = atoi(argv[2]);
    int amode = atoi(argv[3]) ? MPI_MODE_CREATE | MPI_MODE_RDWR : MPI_MODE_RDONLY;
    double *to = malloc(n * sizeof(double)), *tc = malloc(n * sizeof(double)), sum = 0;
    MPI_File f;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &f);
    MPI_File_close(&f);
    for (int i = 0; i < n; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        MPI_File_open(MPI_COMM_WORLD, argv[1], amode, MPI_INFO_NULL, &f);
        double t1 = MPI_Wtime();
        MPI_Barrier(MPI_COMM_WORLD);
        double t2 = MPI_Wtime();
        MPI_File_close(&f);
        double t3 = MPI_Wtime();
        double mine[2] = {t1 - t0, t3 - t2}, slowest[2];
        MPI_Reduce(mine, slowest, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        to[i] = slowest[0] * 1e3;
        tc[i] = slowest[1] * 1e3;
    }
    if (rank == 0) {
        qsort(to, n, sizeof(double), cmp);
        qsort(tc, n, sizeof(double), cmp);
        for (int i = 0; i < n; i++)
            sum += to[i];
        printf("%s open p25 %.1f med %.1f p75 %.1f mean %.1f | close med %.1f\n", argv[4],
               to[n / 4], to[n / 2], to[3 * n / 4], sum / n, tc[n / 2]);
    }
    MPI_Finalize();
    return 0;
}
