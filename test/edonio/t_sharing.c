/*
 * edonio test: handles of one file that share a cache, and handles that must not (issue 12,
 * items 2 to 5).
 *
 *   t_sharing DIR [CASE]      (CASE 1 to 4: that case alone)
 *
 * 1. Read-only beside writable: every rank opens F on MPI_COMM_WORLD read-only; rank 0 opens it
 *    again on MPI_COMM_SELF read-write, writes 100 bytes at 64 KiB, syncs and closes that handle.
 *    Every rank's MPI_File_close of the read-only handle succeeds, the disk has the bytes, and
 *    every rank reads them after reopening (ROMIO refuses MPI_File_sync on a read-only handle).
 * 2. MPI_File_set_info with a new cache size on a handle that shares a larger cache: on rank 0
 *    alone, then on every rank; no hang (the run's time limit), no crash, nothing lost.
 * 3. A rebuild of the shared cache (MPI_File_set_info on the world handle, every rank), then
 *    handles opened afterwards still share it: each rank's writes through its MPI_COMM_SELF handle
 *    and through the world handle, interleaved with no sync, read back exactly through either.
 * 4. MPI_File_sync through the MPI_COMM_SELF handle puts everything that handle's process wrote in
 *    the file, whichever process owns the blocks (the disk is read with POSIX, the world handle
 *    still open).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "edonio_check.h"

enum { REC = 5000, NREC = 6 };

static int nprocs;
static char dir[4096];

#define MPI_OK(call)                                                                               \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        CHECK(rc_ == MPI_SUCCESS, "line %d: %s failed (class %d)", __LINE__, #call,                \
              class_of(rc_));                                                                      \
    } while (0)

static int class_of(int code)
{
    int cls = code;

    if (code != MPI_SUCCESS)
        MPI_Error_class(code, &cls);
    return cls;
}

static unsigned char byte_of(long long off, int version)
{
    return (unsigned char)(off * 3 + off / 511 + version * 41 + 1);
}

static void fill(unsigned char *buf, long long off, long long len, int version)
{
    for (long long i = 0; i < len; i++)
        buf[i] = byte_of(off + i, version);
}

static long long wrong(const unsigned char *buf, long long off, long long len, int version)
{
    long long bad = 0;

    for (long long i = 0; i < len; i++)
        bad += buf[i] != byte_of(off + i, version);
    return bad;
}

static void path_of(char *path, size_t size, const char *name)
{
    snprintf(path, size, "%s/%s", dir, name);
}

static const char *block_size = "16384";

static MPI_File open_h(MPI_Comm comm, const char *path, int amode)
{
    MPI_File fh = MPI_FILE_NULL;
    MPI_Info info;

    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_edonio_block_size", block_size);
    MPI_OK(MPI_File_open(comm, path, amode, info, &fh));
    MPI_Info_free(&info);
    if (fh != MPI_FILE_NULL)
        MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
    return fh;
}

static void case_read_only_beside_writable(void)
{
    char path[4200];
    unsigned char buf[100];
    MPI_File ro, rw;

    path_of(path, sizeof(path), "ro-rw");
    block_size = "65536"; /* the default: the block at 64 KiB is rank 1's */
    if (rank == 0) { /* the old bytes: zeros up to 128 KiB */
        int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
        CHECK(fd >= 0 && ftruncate(fd, 128 << 10) == 0, "cannot make %s", path);
        close(fd);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    ro = open_h(MPI_COMM_WORLD, path, MPI_MODE_RDONLY);
    MPI_OK(MPI_File_read_at(ro, 64 << 10, buf, 100, MPI_BYTE, MPI_STATUS_IGNORE)); /* cached */
    if (rank == 0) {
        rw = open_h(MPI_COMM_SELF, path, MPI_MODE_RDWR);
        fill(buf, 64 << 10, 100, 1);
        MPI_OK(MPI_File_write_at(rw, 64 << 10, buf, 100, MPI_BYTE, MPI_STATUS_IGNORE));
        MPI_OK(MPI_File_sync(rw));
        MPI_OK(MPI_File_close(&rw));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_File_close(&ro));
    ro = open_h(MPI_COMM_WORLD, path, MPI_MODE_RDONLY);
    memset(buf, 0, sizeof(buf));
    MPI_OK(MPI_File_read_at(ro, 64 << 10, buf, 100, MPI_BYTE, MPI_STATUS_IGNORE));
    CHECK(wrong(buf, 64 << 10, 100, 1) == 0,
          "read-only beside writable: after reopening, the write is not seen");
    MPI_OK(MPI_File_close(&ro));
    if (rank == 0) {
        int fd = open(path, O_RDONLY);
        CHECK(fd >= 0 && pread(fd, buf, 100, 64 << 10) == 100 && wrong(buf, 64 << 10, 100, 1) == 0,
              "read-only beside writable: the disk does not have the write");
        close(fd);
    }
    block_size = "16384";
}

static void set_cache(MPI_File fh, const char *bytes)
{
    MPI_Info info;

    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_edonio_cache_size", bytes);
    MPI_OK(MPI_File_set_info(fh, info));
    MPI_Info_free(&info);
}

/* Rank r's records: NREC of REC bytes, interleaved between ranks. */
static long long rec_off(int k, int r)
{
    return ((long long)k * nprocs + r) * REC + 7;
}

static void write_records(MPI_File fh, int version, int first, int step)
{
    unsigned char buf[REC];

    for (int k = first; k < NREC; k += step) {
        fill(buf, rec_off(k, rank), REC, version);
        MPI_OK(MPI_File_write_at(fh, rec_off(k, rank), buf, REC, MPI_BYTE, MPI_STATUS_IGNORE));
    }
}

static void check_records(MPI_File fh, int r, int version, const char *what)
{
    unsigned char buf[REC];

    for (int k = 0; k < NREC; k++) {
        memset(buf, 0xee, REC);
        MPI_OK(MPI_File_read_at(fh, rec_off(k, r), buf, REC, MPI_BYTE, MPI_STATUS_IGNORE));
        CHECK(wrong(buf, rec_off(k, r), REC, version) == 0, "%s: rank %d's record %d is wrong",
              what, r, k);
    }
}

static void case_set_info_on_sharer(void)
{
    char path[4200];
    MPI_File all, self;

    path_of(path, sizeof(path), "sharer-set-info");
    all = open_h(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR);
    self = open_h(MPI_COMM_SELF, path, MPI_MODE_RDWR);
    write_records(self, 2, 0, 1);
    if (rank == 0)
        set_cache(self, "8388608"); /* rank 0 alone */
    MPI_Barrier(MPI_COMM_WORLD);
    set_cache(self, "4194304"); /* every rank, each on its own handle */
    check_records(self, rank, 2, "after set_info on the shared handle");
    check_records(all, rank, 2, "after set_info on the shared handle, world handle");
    MPI_OK(MPI_File_close(&self));
    MPI_OK(MPI_File_close(&all));
    all = open_h(MPI_COMM_WORLD, path, MPI_MODE_RDONLY);
    for (int r = 0; r < nprocs; r++)
        check_records(all, r, 2, "after set_info on the shared handle, reopened");
    MPI_OK(MPI_File_close(&all));
}

static void case_rebuild_then_share(void)
{
    char path[4200];
    MPI_File all, self;

    path_of(path, sizeof(path), "rebuild-share");
    all = open_h(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR);
    write_records(all, 3, 0, 1);
    set_cache(all, "2097152"); /* a rebuild, collectively */
    self = open_h(MPI_COMM_SELF, path, MPI_MODE_RDWR); /* opened after it: shares it */
    write_records(self, 4, 0, 2);                      /* every other record through self */
    write_records(all, 4, 1, 2);                       /* the others through the world handle */
    check_records(self, rank, 4, "after a rebuild, through the second handle");
    check_records(all, rank, 4, "after a rebuild, through the first handle");
    MPI_OK(MPI_File_close(&self));
    MPI_OK(MPI_File_close(&all));
    all = open_h(MPI_COMM_WORLD, path, MPI_MODE_RDONLY);
    for (int r = 0; r < nprocs; r++)
        check_records(all, r, 4, "after a rebuild, reopened");
    MPI_OK(MPI_File_close(&all));
}

static void case_sync_through_sharer(void)
{
    char path[4200];
    unsigned char buf[REC];
    MPI_File all, self;

    path_of(path, sizeof(path), "sharer-sync");
    all = open_h(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR);
    self = open_h(MPI_COMM_SELF, path, MPI_MODE_RDWR);
    write_records(self, 5, 0, 1); /* into blocks owned by every rank */
    MPI_OK(MPI_File_sync(self));
    int fd = open(path, O_RDONLY);
    for (int k = 0; k < NREC; k++) {
        long long got = fd >= 0 ? pread(fd, buf, REC, rec_off(k, rank)) : -1;
        CHECK(got == REC && wrong(buf, rec_off(k, rank), REC, 5) == 0,
              "sync through the second handle: record %d not on disk", k);
    }
    if (fd >= 0)
        close(fd);
    MPI_OK(MPI_File_close(&self));
    MPI_OK(MPI_File_close(&all));
}

int main(int argc, char **argv)
{

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    snprintf(dir, sizeof(dir), "%s", argc > 1 ? argv[1] : ".");
    int only = argc > 2 ? atoi(argv[2]) : 0;
    void (*cases[])(void) = {case_read_only_beside_writable, case_set_info_on_sharer,
                             case_rebuild_then_share, case_sync_through_sharer};
    for (int i = 0; i < 4; i++)
        if (only == 0 || only == i + 1)
            cases[i]();
    int failed = check_verdict();
    MPI_Finalize();
    return failed;
}
