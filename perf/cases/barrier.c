/*
 * perf case: what an MPI_Barrier costs (issue 39). edonio's library defines MPI_Barrier as an
 * MPI_Allreduce of one word, and a flush when some process wrote to a file whose processes span
 * nodes; this times a loop of barriers, so that perf/barrier can set it beside MPICH's own.
 *
 *   barrier N MODE [FILE]
 *     MODE none   no file open
 *          open   FILE open (edonio with ROMIO_FSTYPE_FORCE=edonio:), nothing written
 *          write  FILE open, rank 0 writes 8 bytes into another rank's block before each barrier
 *                 (the flush a barrier then makes; reported, not held to the bound)
 *
 * Prints, on rank 0: "barrier mode=MODE n=N nprocs=P us=MICROSECONDS-PER-BARRIER".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_File fh = MPI_FILE_NULL;
    int rank, nprocs, n;
    const char *mode;
    double t;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 3 || (strcmp(argv[2], "none") != 0 && argc < 4)) {
        if (rank == 0)
            fprintf(stderr, "usage: barrier N none|open|write [FILE]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    n = atoi(argv[1]);
    mode = argv[2];
    if (strcmp(mode, "none") != 0)
        MPI_File_open(MPI_COMM_WORLD, argv[3], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    for (int i = 0; i < n / 10 + 1; i++) /* warm up: connections, the first collectives */
        MPI_Barrier(MPI_COMM_WORLD);
    t = MPI_Wtime();
    for (int i = 0; i < n; i++) {
        if (rank == 0 && strcmp(mode, "write") == 0)
            MPI_File_write_at(fh, (MPI_Offset)65536 * (1 + i % (nprocs > 1 ? nprocs - 1 : 1)), &i,
                              (int)sizeof(i), MPI_BYTE, MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    t = MPI_Wtime() - t;
    if (fh != MPI_FILE_NULL)
        MPI_File_close(&fh);
    if (rank == 0)
        printf("barrier mode=%s n=%d nprocs=%d us=%.3f\n", mode, n, nprocs, t / n * 1e6);
    MPI_Finalize();
    return 0;
}
