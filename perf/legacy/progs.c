/*
 * edonio: the ADIO paper's Programs I and II (Thakur, Gropp & Lusk 1996, section 5): each process
 * writes 1 MB to its own file (I) or to its rank's part of a common file (II) and reads it back,
 * ten times, in three forms: direct POSIX calls, the PFS-style API through ADIO (edonio_pfs.h),
 * MPI-IO through ADIO. The file system of the ADIO forms is ROMIO_FSTYPE_FORCE's.
 *   progs {1|2} {posix|pfs|mpiio} DIR [MB] [ITERATIONS]
 * Prints "seconds S" (the I/O loop, slowest process; opens and closes not timed), and fails on any
 * error or wrong data.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>
#include "edonio_pfs.h"

static int rank, nprocs;
static long len;

static void die(const char *what)
{
    fprintf(stderr, "[%d] %s failed\n", rank, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void posix_loop(const char *path, int common, int iters, char *buf, char *back)
{
    int fd = open(path, O_RDWR | O_CREAT, 0644);
    off_t at = common ? (off_t)rank * len : 0;
    double t;

    if (fd < 0)
        die("open");
    MPI_Barrier(MPI_COMM_WORLD);
    t = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        if (lseek(fd, at, SEEK_SET) != at || write(fd, buf, len) != len)
            die("write");
        if (lseek(fd, at, SEEK_SET) != at || read(fd, back, len) != len)
            die("read");
    }
    t = MPI_Wtime() - t;
    close(fd);
    MPI_Reduce(rank ? &t : MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("seconds %.6f\n", t);
}

static void pfs_loop(const char *path, int common, int iters, char *buf, char *back)
{
    int fd = common ? pfs_gopen(path, O_RDWR | O_CREAT, M_ASYNC, 0644)
                    : pfs_open(path, O_RDWR | O_CREAT, 0644);
    off_t at = common ? (off_t)rank * len : 0;
    double t;

    if (fd < 0)
        die("open");
    MPI_Barrier(MPI_COMM_WORLD);
    t = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        pfs_lseek(fd, at, SEEK_SET);
        pfs_cwrite(fd, buf, len);
        pfs_lseek(fd, at, SEEK_SET);
        if (pfs_cread(fd, back, len) != len)
            die("cread");
    }
    t = MPI_Wtime() - t;
    pfs_close(fd);
    MPI_Reduce(rank ? &t : MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("seconds %.6f\n", t);
}

static void mpiio_loop(const char *path, int common, int iters, char *buf, char *back)
{
    MPI_File fh;
    MPI_Offset at = common ? (MPI_Offset)rank * len : 0;
    double t;

    if (MPI_File_open(common ? MPI_COMM_WORLD : MPI_COMM_SELF, path,
                      MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh) != MPI_SUCCESS)
        die("MPI_File_open");
    MPI_Barrier(MPI_COMM_WORLD);
    t = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        if (MPI_File_write_at(fh, at, buf, (int)len, MPI_BYTE, MPI_STATUS_IGNORE) ||
            MPI_File_read_at(fh, at, back, (int)len, MPI_BYTE, MPI_STATUS_IGNORE))
            die("MPI_File_write_at/read_at");
    }
    t = MPI_Wtime() - t;
    MPI_File_close(&fh);
    MPI_Reduce(rank ? &t : MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("seconds %.6f\n", t);
}

int main(int argc, char **argv)
{
    char path[4096];
    int prog, iters;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 4) {
        fprintf(stderr, "usage: progs {1|2} {posix|pfs|mpiio} DIR [MB] [ITERATIONS]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    prog = atoi(argv[1]);
    len = (argc > 4 ? atol(argv[4]) : 1) << 20;
    iters = argc > 5 ? atoi(argv[5]) : 10;
    int n = prog == 1 ? snprintf(path, sizeof(path), "%s/prog1-%s.%d", argv[3], argv[2], rank)
                      : snprintf(path, sizeof(path), "%s/prog2-%s", argv[3], argv[2]);
    if (n < 0 || n >= (int)sizeof(path))
        die("naming the file in DIR (too long a path)");
    char *buf = malloc(len), *back = malloc(len);
    for (long i = 0; i < len; i++)
        buf[i] = (char)(rank + i);
    if (strcmp(argv[2], "posix") == 0)
        posix_loop(path, prog == 2, iters, buf, back);
    else if (strcmp(argv[2], "pfs") == 0)
        pfs_loop(path, prog == 2, iters, buf, back);
    else
        mpiio_loop(path, prog == 2, iters, buf, back);
    if (memcmp(buf, back, len) != 0)
        die("data check");
    free(buf);
    free(back);
    MPI_Finalize();
    return 0;
}
