/*
 * first_open: what the first MPI_File_open of a process costs, and a second open of the same file
 * (edonio's first open maps the node's shared memory and its peers' segments: doc/design.md, "What
 * an open and a close cost"). Each process opens, closes, opens again and closes; prints each rank's
 * microseconds ("OC rank=R open1= close1= open2=") and, from rank 0, a RESULT line for perf/ab:
 * t_write the first open, t_read the second, seconds, the slowest rank.
 *
 *   mpiexec -n P ./first_open -f DRIVER -d DIR
 *   perf/ab --old OLD.so --new NEW.so --out DIR --prog first_open --reps 21
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    const char *driver = "ufs", *dir = ".";
    char name[4096];
    int rank, c;
    MPI_File fh;
    double t[3], tmax[3];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    while ((c = getopt(argc, argv, "f:d:")) != -1) {
        if (c == 'f')
            driver = optarg;
        else if (c == 'd')
            dir = optarg;
        else
            MPI_Abort(MPI_COMM_WORLD, 2);
    }
    snprintf(name, sizeof name, "%s:%s/first_open.%s", driver, dir, driver);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh))
        MPI_Abort(MPI_COMM_WORLD, 1);
    double t1 = MPI_Wtime();
    MPI_File_close(&fh);
    double t2 = MPI_Wtime();
    MPI_Barrier(MPI_COMM_WORLD);
    double t3 = MPI_Wtime();
    if (MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDWR, MPI_INFO_NULL, &fh))
        MPI_Abort(MPI_COMM_WORLD, 1);
    double t4 = MPI_Wtime();
    MPI_File_close(&fh);
    t[0] = t1 - t0;
    t[1] = t2 - t1;
    t[2] = t4 - t3;
    printf("OC rank=%d open1=%.0f close1=%.0f open2=%.0f\n", rank, t[0] * 1e6, t[1] * 1e6,
           t[2] * 1e6);
    MPI_Reduce(t, tmax, 3, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("RESULT t_write=%.6f t_read=%.6f errors=0\n", tmax[0], tmax[2]);
        unlink(name + strlen(driver) + 1);
    }
    MPI_Finalize();
    return 0;
}
