/*
 * How a cached record is best moved into shared cache memory (issue 13, the warm pass): P
 * processes write 20,000 records of 3,200 B, record r by process r mod P, into one memfd of 64 MB
 * that every process maps (as edonio's segments are shared on a node), twice each way:
 *
 *   pwrite          pwrite on the memfd (how ADIOI_EDONIO_Slot_put moved bytes before 8dd194b)
 *   memcpy          stores through the mapping (how it moves them since), the pages new
 *   populate+memcpy the same after MADV_POPULATE_WRITE of the whole mapping in every process
 *   file pwrite     pwrite on a regular file in DIR (what ufs does), for comparison
 *
 * The second pass of each runs on pages already there. Seconds, slowest process.
 *
 *   mpicc -std=c11 -O2 -o memfd_copy perf/cases/memfd_copy.c && mpiexec -n 4 ./memfd_copy DIR
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

enum { REC = 3200, NREC = 20000 };
static const size_t size = (size_t)REC * NREC;
static int rank, nprocs;
static char rec[REC];

static double tmax(double t)
{
    double m;
    MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

/* One pass of this process's records: pwrite on fd, or stores into map. */
static double pass(int fd, char *map)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    for (long i = rank; i < NREC; i += nprocs) {
        if (map != NULL)
            memcpy(map + i * REC, rec, REC);
        else if (pwrite(fd, rec, REC, (off_t)i * REC) != REC)
            MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return tmax(MPI_Wtime() - t);
}

/* A new memfd made by rank 0 and opened by every other process through /proc, as edonio does. */
static int shared_memfd(void)
{
    int who[2] = {(int)getpid(), -1}, fd;
    char path[64];

    if (rank == 0 && ((who[1] = memfd_create("memfd_copy", 0)) < 0 || ftruncate(who[1], size)))
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Bcast(who, 2, MPI_INT, 0, MPI_COMM_WORLD);
    snprintf(path, sizeof path, "/proc/%d/fd/%d", who[0], who[1]);
    fd = rank == 0 ? who[1] : open(path, O_RDWR);
    MPI_Barrier(MPI_COMM_WORLD); /* every process has it open before rank 0 may close it */
    if (fd < 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    return fd;
}

static void report(const char *how, double first, double second)
{
    if (rank == 0)
        printf("%-16s first %.4f s  second %.4f s\n", how, first, second);
}

static void run_mapped(int populate)
{
    int fd = shared_memfd();
    char *map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    double t;

    if (map == MAP_FAILED)
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (populate) {
        t = MPI_Wtime();
        if (madvise(map, size, MADV_POPULATE_WRITE) != 0)
            perror("madvise(MADV_POPULATE_WRITE)");
        t = tmax(MPI_Wtime() - t);
        if (rank == 0)
            printf("%-16s %.4f s\n", "(populate)", t);
    }
    double a = pass(fd, map), b = pass(fd, map);
    report(populate ? "populate+memcpy" : "memcpy", a, b);
    munmap(map, size);
    close(fd);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    memset(rec, 7, sizeof rec);

    int fd = shared_memfd();
    double a = pass(fd, NULL), b = pass(fd, NULL);
    report("pwrite", a, b);
    close(fd);
    run_mapped(0);
    run_mapped(1);

    char path[4096];
    snprintf(path, sizeof path, "%s/memfd_copy.dat", argc > 1 ? argv[1] : ".");
    if (rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
    if ((fd = open(path, O_RDWR | O_CREAT, 0644)) < 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    a = pass(fd, NULL);
    b = pass(fd, NULL);
    report("file pwrite", a, b);
    close(fd);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        unlink(path);
    MPI_Finalize();
    return 0;
}
