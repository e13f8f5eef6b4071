/*
 * edonio cache test: a file four times larger than the aggregate cache.
 *
 *   t_evict FILE [KEY=VALUE...]
 *
 * Blocks of 16 KiB and 256 KiB of cache per process (16 blocks; a KEY=VALUE argument may change
 * that); the file is 4 P times the cache size in effect. All
 * ranks write it in an interleaved pattern (chunks of CHUNK bytes, not aligned to blocks, chunk i
 * by rank i mod P), then every rank reads it back byte for byte in pieces, each rank starting at
 * a different place; the statistics (summed over the ranks) must show evictions and write-backs.
 * Then after sync, and after close and reopen, it is read again.
 * romio_edonio_read_fill is block, as on a parallel file system (where auto gives it): with none
 * (auto on a local disk) a block made whole leaves the cache as soon as it is written back, so one
 * writer that fills its blocks in order never needs an eviction (run.sh also runs none at 3 ranks,
 * whose interleaved writers do). Seen to fail with none at 1 rank: "no eviction".
 */
#include "cache_test.h"

enum { BS = 16384, CACHE = 256 * 1024, CHUNK = 5000, PIECE = 50000 };

static void read_all(MPI_File fh, const unsigned char *want, long long size, const char *what)
{
    unsigned char *buf = malloc((size_t)size);
    long long npieces = (size + PIECE - 1) / PIECE, first = npieces * ct_rank / ct_nprocs;

    memset(buf, 0xee, (size_t)size);
    /* Piece by piece, each rank from a different piece on, round to the one before it. */
    for (long long j = 0; j < npieces; j++) {
        long long off = (first + j) % npieces * PIECE;
        long long len = off + PIECE <= size ? PIECE : size - off;
        ct_read_at(fh, off, buf + off, len, len, what);
    }
    ct_compare(what, buf, want, 0, size);
    free(buf);
}

int main(int argc, char **argv)
{
    MPI_File fh;
    MPI_Info info;
    char bsval[32], cacheval[32];

    ct_init(&argc, &argv, "FILE [KEY=VALUE...]");
    const char *filename = argv[1];
    ct_fresh(filename);
    snprintf(bsval, sizeof(bsval), "%d", BS);
    snprintf(cacheval, sizeof(cacheval), "%d", CACHE);
    info = ct_info("romio_edonio_block_size", bsval, "romio_edonio_cache_size", cacheval,
                   "romio_edonio_read_fill", "block", NULL);
    CT_MPI(MPI_File_open(MPI_COMM_WORLD, filename, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    long long bs = ct_get_ll(fh, "romio_edonio_block_size");
    long long cache = ct_get_ll(fh, "romio_edonio_cache_size");
    long long size = 4LL * ct_nprocs * (cache > 0 ? cache : CACHE);
    unsigned char *want = malloc((size_t)size);
    for (long long i = 0; i < size; i++)
        want[i] = ct_pattern(i, 7);
    if (ct_rank == 0)
        printf("file %lld bytes, block %lld, cache %lld per process: %.1f x the aggregate cache\n",
               size, bs, cache, (double)size / ((double)cache * ct_nprocs));

    for (long long c = 0; c * CHUNK < size; c++) {
        if (c % ct_nprocs != ct_rank)
            continue;
        long long len = (c + 1) * CHUNK <= size ? CHUNK : size - c * CHUNK;
        ct_write_at(fh, c * CHUNK, want + c * CHUNK, len, "chunk");
    }
    ct_share(fh);
    ct_expect_size(fh, size, "written");
    read_all(fh, want, size, "read back");

    long long evictions = ct_stat_sum(fh, "evictions");
    long long writebacks = ct_stat_sum(fh, "writebacks");
    long long fs_writes = ct_stat_sum(fh, "fs_writes");
    long long fs_reads = ct_stat_sum(fh, "fs_reads");
    if (ct_rank == 0)
        printf("summed over ranks: evictions=%lld writebacks=%lld fs_writes=%lld fs_reads=%lld\n",
               evictions, writebacks, fs_writes, fs_reads);
    CT_CHECK(evictions > 0, "no eviction (sum over ranks) in a file 4 x the aggregate cache");
    CT_CHECK(writebacks > 0, "no write-back (sum over ranks) in a file 4 x the aggregate cache");
    CT_CHECK(fs_reads > 0, "no read from the file system in a file 4 x the aggregate cache");

    MPI_Barrier(MPI_COMM_WORLD);
    ct_sync(fh);
    read_all(fh, want, size, "after sync");
    CT_MPI(MPI_File_close(&fh));
    CT_MPI(MPI_File_open(MPI_COMM_WORLD, filename, MPI_MODE_RDONLY, info, &fh));
    read_all(fh, want, size, "after reopen");
    CT_MPI(MPI_File_close(&fh));
    MPI_Info_free(&info);
    free(want);
    return ct_finish();
}
