/*
 * The steady cost of one independent MPI_File_read_at or MPI_File_write_at that passes edonio's
 * cache (a read with read_fill=none, a write of write_through bytes or more): XFER-byte transfers
 * at columns rank, rank + P, ... of a file of 4096 of them, ROUNDS rounds; the best round and the
 * mean, in ns per call. Run by run.sh, which builds it.
 *
 *   depth DRIVER FILE XFER r|w ROUNDS
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, np;
    MPI_File fh;
    char name[4096];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc < 6)
        MPI_Abort(MPI_COMM_WORLD, 2);
    snprintf(name, sizeof name, "%s:%s", argv[1], argv[2]);
    long xfer = atol(argv[3]), ncol = 4096, mine = (ncol - rank + np - 1) / np;
    int writing = argv[4][0] == 'w', rounds = atoi(argv[5]);
    char *buf = malloc((size_t)xfer);
    memset(buf, rank + 1, (size_t)xfer);
    MPI_File_open(MPI_COMM_WORLD, name, writing ? MPI_MODE_WRONLY : MPI_MODE_RDONLY, MPI_INFO_NULL,
                  &fh);
    double best = 1e9, sum = 0;
    for (int it = 0; it < rounds; it++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t = MPI_Wtime();
        for (long c = rank; c < ncol; c += np) {
            if (writing)
                MPI_File_write_at(fh, c * xfer, buf, (int)xfer, MPI_BYTE, MPI_STATUS_IGNORE);
            else
                MPI_File_read_at(fh, c * xfer, buf, (int)xfer, MPI_BYTE, MPI_STATUS_IGNORE);
        }
        double a = MPI_Wtime() - t;
        best = a < best ? a : best;
        sum += a;
    }
    MPI_File_close(&fh);
    if (rank == 0)
        printf("%s,%d,%ld,%s,%.1f,%.1f\n", argv[1], np, xfer, writing ? "write" : "read",
               best / mine * 1e9, sum / rounds / mine * 1e9);
    free(buf);
    MPI_Finalize();
    return 0;
}
