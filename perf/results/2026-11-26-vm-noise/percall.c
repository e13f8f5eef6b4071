/*
 * The steady cost of one MPI_File_write_at / MPI_File_read_at, the file open and its pages in the
 * page cache: 16 MiB per rank in XFER-byte transfers, 20 rounds of writes then reads, the first 2
 * not counted. Run by run.sh.
 *
 *   percall DRIVER XFER DIR
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_File fh;
    char name[4096];
    double tw = 0, tr = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc < 4)
        MPI_Abort(MPI_COMM_WORLD, 2);
    snprintf(name, sizeof name, "%s:%s/pc.%s", argv[1], argv[3], argv[1]);
    long xfer = atol(argv[2]), size = 16L << 20, n = size / xfer;
    char *buf = malloc((size_t)xfer);
    MPI_Offset base = (MPI_Offset)rank * size;
    memset(buf, rank + 1, (size_t)xfer);
    MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
    for (int it = 0; it < 20; it++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t = MPI_Wtime();
        for (long i = 0; i < n; i++)
            MPI_File_write_at(fh, base + i * xfer, buf, (int)xfer, MPI_BYTE, MPI_STATUS_IGNORE);
        double a = MPI_Wtime() - t;
        MPI_Barrier(MPI_COMM_WORLD);
        t = MPI_Wtime();
        for (long i = 0; i < n; i++)
            MPI_File_read_at(fh, base + i * xfer, buf, (int)xfer, MPI_BYTE, MPI_STATUS_IGNORE);
        double b = MPI_Wtime() - t;
        if (it >= 2) {
            tw += a;
            tr += b;
        }
    }
    MPI_File_close(&fh);
    if (rank == 0)
        printf("%-6s xfer %ld: write %.2f us/call, read %.2f us/call\n", argv[1], xfer,
               tw / 18 / n * 1e6, tr / 18 / n * 1e6);
    free(buf);
    MPI_Finalize();
    return 0;
}
