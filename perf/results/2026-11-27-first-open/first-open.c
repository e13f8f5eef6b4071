#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    int rank;
    MPI_File fh;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
    double t1 = MPI_Wtime();
    MPI_File_close(&fh);
    double t2 = MPI_Wtime();
    MPI_Barrier(MPI_COMM_WORLD);
    double t3 = MPI_Wtime();
    MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
    double t4 = MPI_Wtime();
    MPI_File_close(&fh);
    printf("OC rank=%d open1=%.0f close1=%.0f open2=%.0f\n", rank, (t1 - t0) * 1e6,
           (t2 - t1) * 1e6, (t4 - t3) * 1e6);
    MPI_Finalize();
    return 0;
}
