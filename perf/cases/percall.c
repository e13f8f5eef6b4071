/*
 * percall: the steady cost of one MPI_File_write_at and one MPI_File_read_at, the file open and
 * its pages in the page cache, so that what a driver adds to a call is seen apart from opens,
 * closes and the storage (perf/README.md, "Noise": edonio adds nothing measurable per call).
 * Each rank writes then reads its own -s bytes in -t byte transfers, -k rounds; the first 2
 * rounds warm up and are not counted. Prints, from rank 0, microseconds per call (the slowest
 * rank) and a RESULT line for perf/run and perf/ab (t_write, t_read: seconds of the counted
 * rounds' writes and reads, the slowest rank).
 *
 *   mpiexec -n P ./percall -f DRIVER -d DIR [-t BYTES] [-s BYTES] [-k ROUNDS]
 *   (defaults: -t 65536 -s 16m -k 20; sizes take k, m, g)
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long bytes(const char *s)
{
    char *end;
    long v = strtol(s, &end, 10);

    switch (*end) {
    case 'g':
    case 'G':
        v <<= 10;
        /* fall through */
    case 'm':
    case 'M':
        v <<= 10;
        /* fall through */
    case 'k':
    case 'K':
        v <<= 10;
    }
    return v;
}

/* One round of n calls of xfer bytes from base: writes if write, else reads. Seconds. */
static double round_of(MPI_File fh, int write, MPI_Offset base, char *buf, long xfer, long n)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    for (long i = 0; i < n; i++) {
        if (write)
            MPI_File_write_at(fh, base + i * xfer, buf, (int) xfer, MPI_BYTE, MPI_STATUS_IGNORE);
        else
            MPI_File_read_at(fh, base + i * xfer, buf, (int) xfer, MPI_BYTE, MPI_STATUS_IGNORE);
    }
    return MPI_Wtime() - t;
}

int main(int argc, char **argv)
{
    const char *driver = "ufs", *dir = ".";
    long xfer = 65536, size = 16L << 20;
    int rank, rounds = 20, c;
    MPI_File fh;
    char name[4096];
    double t[2] = { 0, 0 }, tmax[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    while ((c = getopt(argc, argv, "f:d:t:s:k:")) != -1) {
        switch (c) {
        case 'f':
            driver = optarg;
            break;
        case 'd':
            dir = optarg;
            break;
        case 't':
            xfer = bytes(optarg);
            break;
        case 's':
            size = bytes(optarg);
            break;
        case 'k':
            rounds = atoi(optarg);
            break;
        default:
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (xfer <= 0 || size < xfer || rounds < 3)
        MPI_Abort(MPI_COMM_WORLD, 2);
    long n = size / xfer;
    char *buf = malloc((size_t) xfer);
    MPI_Offset base = (MPI_Offset) rank * n * xfer;

    memset(buf, rank + 1, (size_t) xfer);
    snprintf(name, sizeof name, "%s:%s/percall.%s", driver, dir, driver);
    if (MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh))
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int r = 0; r < rounds; r++) {
        double w = round_of(fh, 1, base, buf, xfer, n);
        double rd = round_of(fh, 0, base, buf, xfer, n);
        if (r >= 2) {
            t[0] += w;
            t[1] += rd;
        }
    }
    MPI_File_close(&fh);
    MPI_Allreduce(t, tmax, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) {
        double calls = (double) (rounds - 2) * n;
        printf("%-6s xfer %ld: write %.2f us/call, read %.2f us/call\n", driver, xfer,
               tmax[0] / calls * 1e6, tmax[1] / calls * 1e6);
        printf("RESULT t_write=%.6f t_read=%.6f errors=0\n", tmax[0], tmax[1]);
        unlink(name + strlen(driver) + 1);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
