#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
    int rank, np;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    long long nrec = 20000, rec = 3200;
    int passes = argc > 2 ? atoi(argv[2]) : 3;
    char *buf = malloc(rec);
    memset(buf, rank + 1, rec);
    for (int p = 0; p < passes; p++) {
        MPI_File fh;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
        double t1 = MPI_Wtime();
        for (long long i = rank; i < nrec; i += np)
            MPI_File_write_at(fh, i * rec, buf, (int)rec, MPI_BYTE, MPI_STATUS_IGNORE);
        double t2 = MPI_Wtime();
        MPI_File_sync(fh);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_File_sync(fh);
        double t3 = MPI_Wtime();
        for (long long i = (rank + 1) % np; i < nrec; i += np)
            MPI_File_read_at(fh, i * rec, buf, (int)rec, MPI_BYTE, MPI_STATUS_IGNORE);
        double t4 = MPI_Wtime();
        MPI_File_close(&fh);
        double t5 = MPI_Wtime();
        double ph[5] = {t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4}, mx[5];
        MPI_Reduce(ph, mx, 5, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (rank == 0)
            printf("pass %d open %.4f write %.4f sync %.4f read %.4f close %.4f\n", p, mx[0], mx[1],
                   mx[2], mx[3], mx[4]);
    }
    MPI_Finalize();
    return 0;
}
