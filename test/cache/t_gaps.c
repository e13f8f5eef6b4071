/*
 * edonio cache test: bytes never written read back as zeros.
 *
 *   t_gaps FILE [KEY=VALUE...]
 *
 * In a fresh file (blocks of 16 KiB) every rank writes scattered records, so that the file has
 * holes of every kind: whole blocks never written, holes inside a block between two records
 * written by different ranks, holes at a block's start and end, and a block with more separate
 * records than the cache keeps extents for. Every rank reads the whole file and the holes alone,
 * before any sync (across nodes: once the writes are shared, ct_share), after MPI_File_sync,
 * after close and reopen (read-write, then read-only), and rank 0 checks the file system's copy
 * with pread.
 */
#include "cache_test.h"

#include <fcntl.h>
#include <unistd.h>

enum { BS = 16384, NRECS_SMALL = 12 };

struct record {
    long long off, len;
    int writer;
};

static struct record *recs;
static int nrecs;

static void add(long long off, long long len, int writer)
{
    recs[nrecs].off = off;
    recs[nrecs].len = len;
    recs[nrecs].writer = writer % ct_nprocs;
    nrecs++;
}

/*
 * The records, by block b of 4P + 2 blocks (the writer is never the owner when P > 1):
 *   b % 4 == 0: written whole
 *   b % 4 == 1: never written (a hole the size of a block)
 *   b % 4 == 2: [100, 1000) and [5000, 9000), by two different ranks: holes at the block's start,
 *               between the records and at its end
 *   b % 4 == 3: NRECS_SMALL records of 8 bytes, 1000 bytes apart (more than the extents a block
 *               keeps), alternately by two ranks
 * and the file ends inside the last block: [0, 777) of block 4P + 1 (b % 4 == 1 when P is even).
 */
static long long plan(long long nblocks)
{
    for (long long b = 0; b < nblocks - 1; b++) {
        int w = (int)(b + 1);
        switch (b % 4) {
            case 0:
                add(b * BS, BS, w);
                break;
            case 2:
                add(b * BS + 100, 900, w);
                add(b * BS + 5000, 4000, w + 1);
                break;
            case 3:
                for (int i = 0; i < NRECS_SMALL; i++)
                    add(b * BS + 500 + 1000 * i, 8, w + i);
                break;
            default:
                break;
        }
    }
    add((nblocks - 1) * BS, 777, (int)nblocks);
    return (nblocks - 1) * BS + 777;
}

static void check_all(MPI_File fh, const unsigned char *want, long long size, const char *what)
{
    unsigned char *buf = malloc((size_t)size + BS);
    char where[128];

    ct_expect_size(fh, size, what);
    /* The whole file in one read, asking for more than there is. */
    memset(buf, 0xee, (size_t)size + BS);
    snprintf(where, sizeof(where), "%s, whole file", what);
    ct_read_at(fh, 0, buf, size + BS, size, where);
    ct_compare(where, buf, want, 0, size);
    /* Each hole alone: the never-written block, and the gaps inside blocks. */
    snprintf(where, sizeof(where), "%s, a hole of a whole block", what);
    memset(buf, 0xee, BS);
    ct_read_at(fh, 1 * BS, buf, BS, BS, where);
    ct_compare(where, buf, want + 1 * BS, 1 * BS, BS);
    snprintf(where, sizeof(where), "%s, the hole between two records", what);
    memset(buf, 0xee, 4000);
    ct_read_at(fh, 2 * BS + 1000, buf, 4000, 4000, where);
    ct_compare(where, buf, want + 2 * BS + 1000, 2 * BS + 1000, 4000);
    snprintf(where, sizeof(where), "%s, the hole at the start of a block", what);
    memset(buf, 0xee, 100);
    ct_read_at(fh, 2 * BS, buf, 100, 100, where);
    ct_compare(where, buf, want + 2 * BS, 2 * BS, 100);
    /* Byte by byte around two of the small records. */
    snprintf(where, sizeof(where), "%s, bytes around small records", what);
    const long long around[] = {499, 500, 507, 508, 1499, 1500, 1507, 1508};
    for (size_t i = 0; i < sizeof(around) / sizeof(around[0]); i++) {
        long long off = 3 * BS + around[i];
        unsigned char c = 0xee;
        ct_read_at(fh, off, &c, 1, 1, where);
        ct_compare(where, &c, want + off, off, 1);
    }
    free(buf);
}

int main(int argc, char **argv)
{
    MPI_File fh;
    MPI_Info info;
    char bsval[32];

    ct_init(&argc, &argv, "FILE [KEY=VALUE...]");
    const char *filename = argv[1];
    long long nblocks = 4 * ct_nprocs + 2;
    recs = calloc((size_t)(nblocks * NRECS_SMALL + 4), sizeof(*recs));
    long long size = plan(nblocks);
    unsigned char *want = calloc((size_t)size, 1);
    for (int i = 0; i < nrecs; i++)
        for (long long j = recs[i].off; j < recs[i].off + recs[i].len; j++)
            want[j] = ct_pattern(j, 2);

    ct_fresh(filename);
    snprintf(bsval, sizeof(bsval), "%d", BS);
    info = ct_info("romio_edonio_block_size", bsval, NULL);
    CT_MPI(MPI_File_open(MPI_COMM_WORLD, filename, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    CT_CHECK(ct_get_ll(fh, "romio_edonio_block_size") == BS, "the block size in effect is not %d",
             BS);

    for (int i = 0; i < nrecs; i++)
        if (recs[i].writer == ct_rank)
            ct_write_at(fh, recs[i].off, want + recs[i].off, recs[i].len, "record");
    ct_share(fh);
    check_all(fh, want, size, ct_one_node() ? "before sync" : "shared");
    MPI_Barrier(MPI_COMM_WORLD);
    ct_sync(fh);
    check_all(fh, want, size, "after sync");
    CT_MPI(MPI_File_close(&fh));

    CT_MPI(MPI_File_open(MPI_COMM_WORLD, filename, MPI_MODE_RDWR, info, &fh));
    check_all(fh, want, size, "after reopen");
    CT_MPI(MPI_File_close(&fh));
    CT_MPI(MPI_File_open(MPI_COMM_WORLD, filename, MPI_MODE_RDONLY, info, &fh));
    check_all(fh, want, size, "after reopen read-only");
    check_all(fh, want, size, "after reopen read-only, again");
    CT_MPI(MPI_File_close(&fh));
    MPI_Info_free(&info);

    /* What is on disk, past the cache. */
    if (ct_rank == 0) {
        unsigned char *buf = malloc((size_t)size + 1);
        int fd = open(filename, O_RDONLY);
        long long got = 0;
        ssize_t n = 0;
        CT_CHECK(fd >= 0, "cannot open %s", filename);
        while (fd >= 0 && got < size + 1 &&
               (n = pread(fd, buf + got, (size_t)(size + 1 - got), got)) > 0)
            got += n;
        if (fd >= 0)
            close(fd);
        CT_CHECK(got == size, "the file on disk has %lld bytes, expected %lld", got, size);
        ct_compare("on disk", buf, want, 0, got < size ? got : size);
        free(buf);
    }
    free(want);
    free(recs);
    return ct_finish();
}
