/*
 * edonio: the PFS-style API, every call and mode and the error cases.
 *   t_pfs DIR          writes DIR/pfs.dat (the same bytes on every file system: compared with
 *                      cmp by run.sh), DIR/pfs-log.dat (M_LOG: order varies) and DIR/own.<rank>
 *   t_pfs DIR abort    a plain form (cread) on a bad descriptor: the job must abort
 * Prints " No Errors" on success.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <mpi.h>
#define EDONIO_PFS_NAMES
#define EDONIO_PFS_UNIX_NAMES
#include "edonio_pfs.h"

#include "legacy_test.h"

static char path[4096], logpath[4096], ownpath[4096];

static void fill(char *buf, int who, int tag, int len)
{
    for (int i = 0; i < len; i++)
        buf[i] = (char)(who * 13 + tag * 29 + i);
}

/* Sum of (r+1)*10 for r < n: M_SYNC's lengths. */
static long sync_bytes(int n)
{
    return 10L * n * (n + 1) / 2;
}

static void errors(void)
{
    char b[8];

    FAILS(_gopen(path, O_RDWR | O_CREAT, 9, 0644), EINVAL);
    FAILS(_gopen(logpath, O_RDONLY, M_UNIX, 0), ENOENT);
    FAILS(_cread(999, b, 1), EBADF);
    FAILS(_cwrite(-1, b, 1), EBADF);
    FAILS(_iowait(12345), EINVAL);
    FAILS(_iodone(0), EINVAL);
    FAILS(iomode(77), EBADF);
    FAILS(_eseek(77, 0, SEEK_SET), EBADF);
}

/* M_RECORD, M_SYNC, M_GLOBAL, M_UNIX, M_ASYNC on one file, with iread/iwrite. */
static long write_modes(void)
{
    char buf[200], got[200];
    int fd = gopen(path, O_RDWR | O_CREAT | O_TRUNC, M_RECORD, 0644);
    long end, id;

    CHECK(iomode(fd) == M_RECORD);
    /* Two records of 100 bytes per node: r0 r1 ... r0 r1 ... */
    fill(buf, rank, 1, 100);
    CHECK(cwrite(fd, buf, 100) == 100);
    fill(buf, rank, 2, 100);
    CHECK(write(fd, buf, 100) == 100);
    CHECK(eseek(fd, 0, SEEK_CUR) == 200L * nprocs);
    FAILS(_setiomode(fd, -1), EINVAL);
    /* M_SYNC: (rank+1)*10 bytes each, in node order; one by iwrite. */
    setiomode(fd, M_SYNC);
    CHECK(iomode(fd) == M_SYNC);
    CHECK(lseek(fd, 0, SEEK_CUR) == 200L * nprocs);
    fill(buf, rank, 3, 200);
    CHECK(cwrite(fd, buf, (rank + 1) * 10) == (rank + 1) * 10);
    fill(buf, rank, 4, 200);
    id = iwrite(fd, buf, (rank + 1) * 10);
    CHECK(iodone(id) == 1);
    end = 200L * nprocs + 2 * sync_bytes(nprocs);
    CHECK(eseek(fd, 0, SEEK_CUR) == end);
    /* M_GLOBAL: the same 50 bytes from everybody, written once. */
    setiomode(fd, M_GLOBAL);
    fill(buf, 0, 5, 50);
    CHECK(cwrite(fd, buf, 50) == 50);
    end += 50;
    CHECK(lseek(fd, 0, SEEK_CUR) == end);
    /* M_UNIX and M_ASYNC: each node its own 64 bytes past that, one of them by iwrite. */
    setiomode(fd, M_UNIX);
    CHECK(lseek(fd, end + rank * 64L, SEEK_SET) == end + rank * 64L);
    fill(buf, rank, 6, 32);
    CHECK(cwrite(fd, buf, 32) == 32);
    setiomode(fd, M_ASYNC); /* node 0's pointer becomes everybody's */
    CHECK(lseek(fd, end + rank * 64L + 32, SEEK_SET) == end + rank * 64L + 32);
    fill(got, rank, 7, 32);
    id = iwrite(fd, got, 32);
    CHECK(iowait(id) == 32);
    FAILS(_iowait(id), EINVAL); /* released */
    end += 64L * nprocs;
    /* lsize: grow by 100 past the end (collective here only to keep the test simple). */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        CHECK(lsize(fd, 100, SIZE_END) == end + 100);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(esize(fd, 10, SIZE_SET) == end + 100); /* never shrinks */
    FAILS(_lsize(fd, 0, 9), EINVAL);
    CHECK(close(fd) == 0);
    FAILS(_cread(fd, buf, 1), EBADF);
    return end + 100;
}

/* Read it all back, in the same modes. */
static void read_modes(long size)
{
    char buf[200], want[200];
    int fd = gopen(path, O_RDONLY, M_RECORD, 0);
    long id;

    fill(want, rank, 1, 100);
    CHECK(cread(fd, buf, 100) == 100 && memcmp(buf, want, 100) == 0);
    fill(want, rank, 2, 100);
    id = iread(fd, buf, 100);
    CHECK(iowait(id) == 100 && memcmp(buf, want, 100) == 0);
    setiomode(fd, M_SYNC);
    for (int tag = 3; tag <= 4; tag++) {
        fill(want, rank, tag, 200);
        CHECK(read(fd, buf, (rank + 1) * 10) == (rank + 1) * 10);
        CHECK(memcmp(buf, want, (rank + 1) * 10) == 0);
    }
    setiomode(fd, M_GLOBAL);
    fill(want, 0, 5, 50);
    id = iread(fd, buf, 50);
    CHECK(iowait(id) == 50 && memcmp(buf, want, 50) == 0);
    setiomode(fd, M_UNIX);
    long base = lseek(fd, 0, SEEK_CUR);
    for (int r = 0; r < nprocs; r++) {
        CHECK(lseek(fd, base + r * 64L, SEEK_SET) == base + r * 64L);
        CHECK(cread(fd, buf, 64) == 64);
        fill(want, r, 6, 32);
        fill(want + 32, r, 7, 32);
        CHECK(memcmp(buf, want, 64) == 0);
    }
    /* The end of file: a short read (Unix), then 0. lsize on a read-only file: EBADF. */
    CHECK(lseek(fd, -10, SEEK_END) == size - 10);
    CHECK(cread(fd, buf, 100) == 10);
    CHECK(cread(fd, buf, 100) == 0);
    FAILS(_lsize(fd, 1000, SIZE_SET), EBADF);
    FAILS(_cwrite(fd, buf, 1), EBADF);
    CHECK(close(fd) == 0);
}

/* M_LOG: first come first served; every record lands once, somewhere. */
static void log_mode(void)
{
    char buf[32], all[32 * 64];
    int fd = gopen(logpath, O_RDWR | O_CREAT | O_TRUNC, M_LOG, 0644);

    fill(buf, rank, 8, 32);
    CHECK(cwrite(fd, buf, 32) == 32);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(lseek(fd, 0, SEEK_CUR) == 32L * nprocs);
    setiomode(fd, M_GLOBAL);
    CHECK(lseek(fd, 0, SEEK_SET) == 0);
    CHECK(cread(fd, all, 32L * nprocs) == 32L * nprocs);
    for (int r = 0; r < nprocs; r++) {
        int found = 0;
        fill(buf, r, 8, 32);
        for (int k = 0; k < nprocs; k++)
            found += memcmp(all + 32 * k, buf, 32) == 0;
        CHECK(found == 1);
    }
    CHECK(close(fd) == 0);
}

/* open: private to the node. */
static void private_file(void)
{
    char buf[100], want[100];
    int fd = open(ownpath, O_RDWR | O_CREAT | O_TRUNC, 0644);

    CHECK(fd >= 0 && iomode(fd) == M_UNIX);
    fill(want, rank, 9, 100);
    CHECK(write(fd, want, 100) == 100);
    CHECK(lseek(fd, 50, SEEK_SET) == 50);
    CHECK(read(fd, buf, 100) == 50 && memcmp(buf, want + 50, 50) == 0);
    CHECK(close(fd) == 0);
}

int main(int argc, char **argv)
{
    int total;
    long size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 2 || nprocs > 64)
        MPI_Abort(MPI_COMM_WORLD, 2);
    snprintf(path, sizeof(path), "%s/pfs.dat", argv[1]);
    snprintf(logpath, sizeof(logpath), "%s/pfs-log.dat", argv[1]);
    snprintf(ownpath, sizeof(ownpath), "%s/own.%d", argv[1], rank);
    if (argc > 2) { /* a plain form on error: the job aborts with the message */
        char b[4];
        cread(555, b, 4);
        printf(" No Errors (not aborted)\n");
    }
    errors();
    size = write_modes();
    read_modes(size);
    log_mode();
    private_file();
    MPI_Allreduce(&errs, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(total ? " Found %d errors\n" : " No Errors\n", total);
    MPI_Finalize();
    return 0;
}
