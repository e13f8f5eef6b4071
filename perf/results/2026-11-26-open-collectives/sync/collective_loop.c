/*
 * K broadcasts, or K allreduces, of one int after a barrier: the slowest rank's time, best and
 * mean of 30 rounds. At 4 ranks on 2 cores a broadcast does not wait for the ranks that are not
 * running (the root's message waits for them) while an allreduce does: a scheduling round each.
 *   mpicc -O2 -o collective_loop collective_loop.c
 *   mpiexec -n 4 ./collective_loop bcast 10; mpiexec -n 4 ./collective_loop allreduce 10
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, k = argc > 2 ? atoi(argv[2]) : 10, bcast = argc > 1 && !strcmp(argv[1], "bcast");
    double best = 1e9, sum = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int round = 0; round < 30; round++) {
        int x = 0, y;
        double t, slowest;
        MPI_Barrier(MPI_COMM_WORLD);
        t = MPI_Wtime();
        for (int i = 0; i < k; i++) {
            if (bcast)
                MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
            else
                MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        }
        t = MPI_Wtime() - t;
        MPI_Reduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        best = slowest < best ? slowest : best;
        sum += slowest;
    }
    if (rank == 0)
        printf("%s x%d: best %.2f ms, mean %.2f ms\n", bcast ? "bcast" : "allreduce", k,
               best * 1e3, sum / 30 * 1e3);
    MPI_Finalize();
    return 0;
}
