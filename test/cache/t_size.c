/*
 * edonio cache test: the size of a cached file.
 *
 *   t_size FILE [KEY=VALUE...]
 *
 * 1. MPI_File_get_size before any sync is the largest byte written by any rank (after a
 *    barrier on one node, after sync-barrier-sync across nodes: ct_share).
 * 2. MPI_File_set_size shrinking a cached file: 10 blocks written (not synced), shrunk to 3.5
 *    blocks: get_size says so, a read past the end returns 0 bytes, a read across it returns the
 *    bytes before it; grown again to 8 blocks: the bytes between 3.5 and 8 blocks read as zeros
 *    (the dropped cached blocks do not come back), also after sync and after close and reopen.
 * 3. MPI_File_preallocate growing it to 12 blocks (zeros past 8 blocks, the data kept), not
 *    shrinking it when asked for less; and on a file whose only data is still in the cache.
 */
#include "cache_test.h"

#include <sys/stat.h>

enum { BS = 16384 };

static long long disk_size(const char *filename)
{
    struct stat st;

    return stat(filename, &st) == 0 ? (long long)st.st_size : -1;
}

/* Every rank reads [0, len) of the file, which must be want's first 'expect' bytes. */
static void check(MPI_File fh, const unsigned char *want, long long len, long long expect,
                  const char *what)
{
    unsigned char *buf = malloc((size_t)len);

    memset(buf, 0xee, (size_t)len);
    ct_read_at(fh, 0, buf, len, expect, what);
    ct_compare(what, buf, want, 0, expect);
    free(buf);
}

static void part1(const char *filename, MPI_Info info)
{
    MPI_File fh;
    unsigned char rec[10];

    ct_fresh(filename);
    CT_MPI(MPI_File_open(MPI_COMM_WORLD, filename, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    ct_expect_size(fh, 0, "a new file");
    MPI_Barrier(MPI_COMM_WORLD);
    /* Rank r's record ends at (r + 1) * 3 blocks + 100 r + 27: the last rank's is the largest. */
    long long off = (ct_rank + 1) * 3LL * BS + 100 * ct_rank + 17;
    long long end = ct_nprocs * 3LL * BS + 100 * (ct_nprocs - 1) + 27;
    for (int i = 0; i < 10; i++)
        rec[i] = ct_pattern(off + i, 3);
    ct_write_at(fh, off, rec, 10, "record");
    MPI_Offset own = -1;
    CT_MPI(MPI_File_get_size(fh, &own)); /* at least its own record (on one node, maybe more) */
    CT_CHECK(own >= off + 10, "own record, before any sync: MPI_File_get_size is %lld, below %lld",
             (long long)own, off + 10);
    ct_share(fh);
    ct_expect_size(fh, end, "every record");
    if (ct_rank == 0 && disk_size(filename) >= end)
        printf("note: the file on disk already has %lld bytes before any sync\n",
               disk_size(filename));
    /* Rank 0's record is read by everyone: it was written, and the rest is zeros. */
    unsigned char buf[64], want[64];
    memset(want, 0, sizeof(want));
    for (int i = 0; i < 10; i++)
        want[20 + i] = ct_pattern(3LL * BS + 17 + i, 3);
    long long n = end - (3LL * BS - 3) < 64 ? end - (3LL * BS - 3) : 64;
    ct_read_at(fh, 3LL * BS - 3, buf, 64, n, "rank 0's record");
    ct_compare("rank 0's record", buf, want, 3LL * BS - 3, n);
    MPI_Barrier(MPI_COMM_WORLD);
    /* A smaller write later does not shrink it. */
    if (ct_rank == 0)
        ct_write_at(fh, 5, rec, 10, "small record");
    MPI_Barrier(MPI_COMM_WORLD);
    ct_expect_size(fh, end, "after a write near the start");
    CT_MPI(MPI_File_close(&fh));
    if (ct_rank == 0)
        CT_CHECK(disk_size(filename) == end,
                 "after close the file on disk has %lld bytes, not %lld", disk_size(filename), end);
}

static void part2_3(const char *filename, MPI_Info info)
{
    MPI_File fh;
    long long len = 12LL * BS;
    unsigned char *want = calloc((size_t)len, 1), *buf = malloc((size_t)len);

    ct_fresh(filename);
    CT_MPI(MPI_File_open(MPI_COMM_WORLD, filename, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    for (long long i = 0; i < 10LL * BS; i++)
        want[i] = ct_pattern(i, 4);
    /* Block b is written by rank b + 1 mod P, not its owner (b mod P). */
    for (long long b = 0; b < 10; b++)
        if ((b + 1) % ct_nprocs == ct_rank)
            ct_write_at(fh, b * BS, want + b * BS, BS, "block");
    if (ct_one_node()) { /* across nodes, the shrink below cuts writes not yet delivered */
        MPI_Barrier(MPI_COMM_WORLD);
        ct_expect_size(fh, 10LL * BS, "10 blocks written");
        check(fh, want, len, 10LL * BS, "10 blocks written");
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* Shrink to 3.5 blocks. */
    long long half = 3LL * BS + BS / 2;
    CT_MPI(MPI_File_set_size(fh, half));
    ct_expect_size(fh, half, "shrunk to 3.5 blocks");
    memset(buf, 0xee, 16);
    ct_read_at(fh, half, buf, 16, 0, "read at the end after shrinking");
    ct_read_at(fh, 5LL * BS, buf, 16, 0, "read past the end after shrinking");
    ct_read_at(fh, 9LL * BS, buf, BS, 0, "read of a dropped block");
    ct_share(fh);
    memset(buf, 0xee, BS);
    ct_read_at(fh, 3LL * BS, buf, BS, BS / 2, "read across the end after shrinking");
    ct_compare("read across the end after shrinking", buf, want + 3 * BS, 3 * BS, BS / 2);
    check(fh, want, len, half, "shrunk to 3.5 blocks");
    MPI_Barrier(MPI_COMM_WORLD);
    if (ct_rank == 0)
        CT_CHECK(disk_size(filename) == half, "after shrinking the file on disk has %lld bytes",
                 disk_size(filename));

    /* Grow to 8 blocks: what was cut off is gone. */
    CT_MPI(MPI_File_set_size(fh, 8LL * BS));
    memset(want + half, 0, (size_t)(len - half));
    ct_expect_size(fh, 8LL * BS, "grown to 8 blocks");
    check(fh, want, len, 8LL * BS, "grown to 8 blocks");
    MPI_Barrier(MPI_COMM_WORLD);
    ct_sync(fh);
    check(fh, want, len, 8LL * BS, "grown to 8 blocks, after sync");
    CT_MPI(MPI_File_close(&fh));
    if (ct_rank == 0)
        CT_CHECK(disk_size(filename) == 8LL * BS, "the file on disk has %lld bytes, not 8 blocks",
                 disk_size(filename));
    CT_MPI(MPI_File_open(MPI_COMM_WORLD, filename, MPI_MODE_RDWR, info, &fh));
    ct_expect_size(fh, 8LL * BS, "grown to 8 blocks, reopened");
    check(fh, want, len, 8LL * BS, "grown to 8 blocks, reopened");
    MPI_Barrier(MPI_COMM_WORLD);

    /* Preallocate grows it; asking for less does not shrink it. */
    CT_MPI(MPI_File_preallocate(fh, 12LL * BS));
    ct_expect_size(fh, 12LL * BS, "preallocated 12 blocks");
    check(fh, want, len, 12LL * BS, "preallocated 12 blocks");
    MPI_Barrier(MPI_COMM_WORLD);
    CT_MPI(MPI_File_preallocate(fh, 5LL * BS));
    ct_expect_size(fh, 12LL * BS, "preallocated 5 blocks of 12");
    CT_MPI(MPI_File_close(&fh));
    if (ct_rank == 0)
        CT_CHECK(disk_size(filename) == 12LL * BS, "the file on disk has %lld bytes, not 12 blocks",
                 disk_size(filename));

    /* Preallocate a file whose only data is in the cache. */
    ct_fresh(filename);
    CT_MPI(MPI_File_open(MPI_COMM_WORLD, filename, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    memset(want, 0, (size_t)len);
    for (long long i = 100; i < 300; i++)
        want[i] = ct_pattern(i, 5);
    for (long long i = 5LL * BS + 10; i < 5LL * BS + 20; i++)
        want[i] = ct_pattern(i, 5);
    if (ct_rank == ct_nprocs - 1) {
        ct_write_at(fh, 100, want + 100, 200, "cached record");
        ct_write_at(fh, 5LL * BS + 10, want + 5 * BS + 10, 10, "cached record");
    }
    ct_share(fh); /* on one node the records stay in the cache */
    CT_MPI(MPI_File_preallocate(fh, 2LL * BS));
    ct_expect_size(fh, 5LL * BS + 20, "preallocated 2 blocks of a cached file of 5 blocks");
    check(fh, want, len, 5LL * BS + 20, "preallocated 2 blocks of a cached file");
    MPI_Barrier(MPI_COMM_WORLD);
    CT_MPI(MPI_File_preallocate(fh, 7LL * BS));
    ct_expect_size(fh, 7LL * BS, "preallocated 7 blocks of a cached file");
    check(fh, want, len, 7LL * BS, "preallocated 7 blocks of a cached file");
    MPI_Barrier(MPI_COMM_WORLD);
    CT_MPI(MPI_File_close(&fh));
    CT_MPI(MPI_File_open(MPI_COMM_WORLD, filename, MPI_MODE_RDONLY, info, &fh));
    ct_expect_size(fh, 7LL * BS, "preallocated 7 blocks, reopened");
    check(fh, want, len, 7LL * BS, "preallocated 7 blocks, reopened");
    CT_MPI(MPI_File_close(&fh));
    free(want);
    free(buf);
}

int main(int argc, char **argv)
{
    char bsval[32];
    MPI_Info info;

    ct_init(&argc, &argv, "FILE [KEY=VALUE...]");
    snprintf(bsval, sizeof(bsval), "%d", BS);
    info = ct_info("romio_edonio_block_size", bsval, NULL);
    part1(argv[1], info);
    part2_3(argv[1], info);
    MPI_Info_free(&info);
    return ct_finish();
}
