/*
 * edonio: the EDONIO do_* API from C, every call and the manual's error cases.
 *   t_do FILE     (FILE may carry a ROMIO prefix; FILE.missing must not exist)
 * With test/edonio/fault.c preloaded and the file on edonio, also: a preload whose reads fail
 * sets errno to EIO on every process (do_preload returns nothing).
 * Prints " No Errors" on success.
 */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>
#include "edonio_do.h"

enum { N = 1000 };

#include "legacy_test.h"

static void fill(char *buf, int who, int len)
{
    for (int i = 0; i < len; i++)
        buf[i] = (char)(who * 31 + i * 7);
}

static void before_nio(const char *path)
{
    FAILS(do_open(path, O_RDWR, 0644), EINVAL);
    FAILS(do_read(0, NULL, 1), EINVAL);
    FAILS(do_nio(rank + 1, nprocs), EINVAL);
    FAILS(do_nio(rank, nprocs + 1), EINVAL);
    CHECK(do_nio(rank, nprocs) == 0);
    FAILS(do_csize(16, 0), EINVAL); /* disk_size 0: an error */
    CHECK(do_csize(64, 256) == 0);
}

/* Read-write: every rank writes its block, flush, everyone reads every block. */
static void read_write(const char *path)
{
    char buf[N], want[N];
    int fd = do_open(path, O_RDWR, 0644);

    CHECK(fd >= 0);
    fill(buf, rank, N);
    CHECK(do_lseek(fd, rank * N, SEEK_SET) == rank * N);
    CHECK(do_write(fd, buf, N) == N);
    CHECK(do_lseek(fd, 0, SEEK_CUR) == (rank + 1) * N);
    CHECK(do_flush(fd) == 0);
    CHECK(do_lseek(fd, 0, SEEK_END) == nprocs * N);
    for (int r = 0; r < nprocs; r++) {
        CHECK(do_lseek(fd, r * N, SEEK_SET) == r * N);
        memset(buf, 0, N);
        CHECK(do_read(fd, buf, N) == N);
        fill(want, r, N);
        CHECK(memcmp(buf, want, N) == 0);
    }
    /* Past the end of file: an error, not a short read, and the pointer stays. */
    CHECK(do_lseek(fd, -10, SEEK_END) == nprocs * N - 10);
    FAILS(do_read(fd, buf, 11), EIO);
    CHECK(do_lseek(fd, 0, SEEK_CUR) == nprocs * N - 10);
    CHECK(do_read(fd, buf, 10) == 10);
    FAILS(do_read(fd, buf, 1), EIO);
    FAILS(do_read(fd, buf, -1), EINVAL);
    FAILS(do_write(fd, buf, -1), EINVAL);
    FAILS(do_lseek(fd, -1, SEEK_SET), EINVAL);
    FAILS(do_lseek(fd, 0, 7), EINVAL);
    /* 64-bit offsets: do_eseek past 2 GiB; do_lseek cannot say it. */
    CHECK(do_eseek(fd, (esize_t)5 << 30, SEEK_SET) == (esize_t)5 << 30);
    CHECK(do_eseek(fd, 3, SEEK_CUR) == ((esize_t)5 << 30) + 3);
    FAILS(do_lseek(fd, 0, SEEK_CUR), EOVERFLOW);
    CHECK(do_lsize(fd, 4 * N * nprocs) == 4 * N * nprocs);
    CHECK(do_esize(fd, (esize_t)3 << 31) == (esize_t)3 << 31);
    FAILS(do_lsize(fd, -5), EINVAL);
    CHECK(do_close(fd) == 0);
    FAILS(do_read(fd, buf, 1), EBADF);
    FAILS(do_flush(fd), EBADF); /* collective, and EBADF on every process */
    FAILS(do_write(12345, buf, 1), EBADF);
}

/* Write-only: the existing file is truncated; reading is an error; lsize is only a hint. */
static void write_only(const char *path)
{
    char buf[N];
    int fd = do_open(path, O_WRONLY, 0644);

    CHECK(fd >= 0);
    CHECK(do_lseek(fd, 0, SEEK_END) == 0);
    FAILS(do_read(fd, buf, 1), EBADF);
    CHECK(do_lsize(fd, 1 << 20) == 1 << 20);
    fill(buf, rank + 100, N);
    CHECK(do_lseek(fd, rank * 10, SEEK_SET) == rank * 10);
    CHECK(do_write(fd, buf, 10) == 10);
    CHECK(do_close(fd) == 0);
}

/* Read-only: writing and lsize are errors; preload; the data of write_only. */
static void read_only(const char *path)
{
    char buf[N], want[N];
    int fd = do_open(path, O_RDONLY, 0);

    CHECK(fd >= 0);
    CHECK(do_lseek(fd, 0, SEEK_END) == 10 * nprocs); /* the hint did not grow it */
    FAILS(do_write(fd, buf, 1), EBADF);
    FAILS(do_lsize(fd, 100), EBADF);
    CHECK(do_lseek(fd, 0, SEEK_SET) == 0);
    do_preload(fd);
    CHECK(do_check() == 0);
    for (int r = nprocs - 1; r >= 0; r--) {
        CHECK(do_lseek(fd, r * 10, SEEK_SET) == r * 10);
        CHECK(do_read(fd, buf, 10) == 10);
        fill(want, r + 100, N);
        CHECK(memcmp(buf, want, 10) == 0);
    }
    CHECK(do_close(fd) == 0);
}

/* A preload whose reads fail (fault.so, when preloaded): EIO in errno on every process. */
static void preload_fails(const char *path)
{
    typedef void arm_fn(const char *call, const char *path_part, int err, long long count);
    arm_fn *arm = (arm_fn *)dlsym(RTLD_DEFAULT, "edonio_fault_arm");
    const char *force = getenv("ROMIO_FSTYPE_FORCE"), *base = strrchr(path, '/');

    if (arm == NULL || force == NULL || strncmp(force, "edonio", 6) != 0)
        return;
    int fd = do_open(path, O_RDONLY, 0);
    CHECK(fd >= 0);
    arm("pread", base != NULL ? base + 1 : path, EIO, -1);
    errno = 0;
    do_preload(fd);
    int err = errno;
    arm("pread", "", 0, 0);
    CHECK(err == EIO);
    CHECK(do_close(fd) == 0);
}

int main(int argc, char **argv)
{
    char missing[4096];
    int total;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 2) {
        fprintf(stderr, "usage: t_do FILE\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    before_nio(argv[1]);
    read_write(argv[1]);
    write_only(argv[1]);
    read_only(argv[1]);
    preload_fails(argv[1]);
    snprintf(missing, sizeof(missing), "%s.missing", argv[1]);
    FAILS(do_open(missing, O_RDONLY, 0), ENOENT);
    do_gsync();
    MPI_Allreduce(&errs, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        if (total)
            printf(" Found %d errors\n", total);
        else
            printf(" No Errors\n");
    }
    MPI_Finalize();
    return 0;
}
