/*
 * edonio cache test: the read-only cache of remote blocks.
 *
 *   t_rocache FILE [KEY=VALUE...]
 *
 * A file of 4 P blocks and a bit is written and closed, then opened MPI_MODE_RDONLY; every rank
 * reads the whole file twice, block by block. On the second pass each rank's blocks owned by
 * other ranks come from its read-only cache: romio_edonio_stats_ro_hits grows by the number of
 * those blocks (at 2 ranks or more), and no rank reads from the file system again (fs_reads does
 * not grow), which the statistics show.
 */
#include "cache_test.h"

enum { NBLOCKS_PER_RANK = 4, TAIL = 1234 };

struct counters {
    long long ro_hits, fs_reads, hits, misses;
};

static struct counters counters(MPI_File fh)
{
    struct counters c;

    c.ro_hits = ct_stat(fh, "ro_hits");
    c.fs_reads = ct_stat(fh, "fs_reads");
    c.hits = ct_stat(fh, "hits");
    c.misses = ct_stat(fh, "misses");
    return c;
}

static void read_pass(MPI_File fh, const unsigned char *want, long long bs, long long size,
                      const char *what)
{
    unsigned char *buf = malloc((size_t)bs);

    for (long long off = 0; off < size; off += bs) {
        long long len = off + bs <= size ? bs : size - off;
        memset(buf, 0xee, (size_t)bs);
        ct_read_at(fh, off, buf, bs, len, what);
        ct_compare(what, buf, want + off, off, len);
    }
    free(buf);
}

int main(int argc, char **argv)
{
    MPI_File fh;
    MPI_Info info;

    ct_init(&argc, &argv, "FILE [KEY=VALUE...]");
    const char *filename = argv[1];
    info = ct_info(NULL);

    ct_fresh(filename);
    CT_MPI(MPI_File_open(MPI_COMM_WORLD, filename, MPI_MODE_CREATE | MPI_MODE_WRONLY, info, &fh));
    long long bs = ct_get_ll(fh, "romio_edonio_block_size");
    if (bs <= 0)
        bs = 65536;
    long long nblocks = NBLOCKS_PER_RANK * ct_nprocs + 1;
    long long size = (nblocks - 1) * bs + TAIL;
    unsigned char *want = malloc((size_t)size);
    for (long long i = 0; i < size; i++)
        want[i] = ct_pattern(i, 8);
    /* Each rank writes a contiguous share. */
    long long share = (size + ct_nprocs - 1) / ct_nprocs, from = share * ct_rank;
    if (from < size)
        ct_write_at(fh, from, want + from, from + share <= size ? share : size - from, "share");
    CT_MPI(MPI_File_close(&fh));

    CT_MPI(MPI_File_open(MPI_COMM_WORLD, filename, MPI_MODE_RDONLY, info, &fh));
    long long ro_size = ct_get_ll(fh, "romio_edonio_ro_cache_size");
    long long remote = 0;
    for (long long b = 0; b < nblocks; b++)
        remote += b % ct_nprocs != ct_rank;
    struct counters c0 = counters(fh);
    read_pass(fh, want, bs, size, "first pass");
    struct counters c1 = counters(fh);
    read_pass(fh, want, bs, size, "second pass");
    struct counters c2 = counters(fh);

    long long ro_hits1 = c1.ro_hits - c0.ro_hits, ro_hits2 = c2.ro_hits - c1.ro_hits;
    long long fs_reads1 = c1.fs_reads - c0.fs_reads, fs_reads2 = c2.fs_reads - c1.fs_reads;
    printf("rank %d: %lld blocks of which %lld remote; read-only cache %lld bytes; "
           "first pass: ro_hits %lld fs_reads %lld; second pass: ro_hits %lld fs_reads %lld\n",
           ct_rank, nblocks, remote, ro_size, ro_hits1, fs_reads1, ro_hits2, fs_reads2);
    fflush(stdout);
    CT_CHECK(fs_reads2 == 0, "second pass: fs_reads grew by %lld", fs_reads2);
    CT_CHECK(ro_hits1 == 0, "first pass: ro_hits grew by %lld, expected 0", ro_hits1);
    if (ct_nprocs >= 2) {
        CT_CHECK(ro_hits2 > 0, "second pass: ro_hits did not grow");
        CT_CHECK(ro_hits2 == remote,
                 "second pass: ro_hits grew by %lld, expected %lld (remote "
                 "blocks)",
                 ro_hits2, remote);
    } else {
        CT_CHECK(ro_hits2 == 0, "one process has no read-only cache, but ro_hits grew by %lld",
                 ro_hits2);
    }
    /* Summed over the ranks: the first pass read every block from the file system once. */
    long long total_fs_reads1 = ct_sum(fs_reads1), total_fs_reads2 = ct_sum(fs_reads2);
    long long total_ro_hits2 = ct_sum(ro_hits2);
    if (ct_rank == 0)
        printf("summed over ranks: first pass fs_reads %lld; second pass fs_reads %lld, ro_hits "
               "%lld\n",
               total_fs_reads1, total_fs_reads2, total_ro_hits2);
    CT_CHECK(ct_rank != 0 || total_fs_reads1 == nblocks,
             "first pass: %lld reads from the file system (sum over "
             "ranks), expected one per block (%lld)",
             total_fs_reads1, nblocks);
    CT_CHECK(ct_rank != 0 || total_fs_reads2 == 0,
             "second pass: %lld reads from the file system (sum over ranks)", total_fs_reads2);
    CT_MPI(MPI_File_close(&fh));
    MPI_Info_free(&info);
    free(want);
    return ct_finish();
}
