/*
 * edonio cache test: romio_edonio_preload.
 *
 *   t_preload FILE [KEY=VALUE...]
 *
 * A file of 8 P blocks of 16 KiB and a bit is written and closed.
 * 1. Reopened MPI_MODE_RDONLY with romio_edonio_preload=true and a cache that holds it all:
 *    MPI_File_get_info reports romio_edonio_preload=true; the preload read every block from the
 *    file system once (fs_reads summed over the ranks); then every rank reads everything: no
 *    misses at all (summed over the ranks), and no more reads from the file system.
 * 2. Reopened with a cache of 4 blocks per process: the preload fills the free slots from the
 *    smallest file pointer (0): the first 4 P blocks are read with no miss, the rest miss.
 *    Then every rank moves its file pointer (rank r to block 4 P + r) and a new cache size
 *    (MPI_File_set_info) rebuilds the cache, which preloads from the smallest pointer, block 4 P:
 *    the rest of the file is read with no miss.
 * Across nodes each rank reads the blocks owned on its node only: those of other nodes go
 * through its node's remote segments, which the preload does not fill (the owners' caches are
 * what it fills).
 */
#include "cache_test.h"

enum { BS = 16384, TAIL = 1000 };

static int *node; /* each rank's node */

static void read_range(MPI_File fh, const unsigned char *want, long long from, long long to,
                       const char *what)
{
    unsigned char *buf = malloc(BS);

    for (long long off = from; off < to; off += BS) {
        if (node[(off / BS) % ct_nprocs] != node[ct_rank])
            continue; /* owned on another node */
        long long len = off + BS <= to ? BS : to - off;
        memset(buf, 0xee, BS);
        ct_read_at(fh, off, buf, len, len, what);
        ct_compare(what, buf, want + off, off, len);
    }
    free(buf);
}

int main(int argc, char **argv)
{
    MPI_File fh;
    MPI_Info info;
    char bsval[32], cacheval[32], value[MPI_MAX_INFO_VAL + 1];

    ct_init(&argc, &argv, "FILE [KEY=VALUE...]");
    const char *filename = argv[1];
    int nnodes;
    node = ct_nodes(&nnodes);
    long long P = ct_nprocs, nblocks = 8 * P + 1, size = 8 * P * BS + TAIL;
    unsigned char *want = malloc((size_t)size);
    for (long long i = 0; i < size; i++)
        want[i] = ct_pattern(i, 9);
    snprintf(bsval, sizeof(bsval), "%d", BS);

    ct_fresh(filename);
    info = ct_info("romio_edonio_block_size", bsval, NULL);
    CT_MPI(MPI_File_open(MPI_COMM_WORLD, filename, MPI_MODE_CREATE | MPI_MODE_WRONLY, info, &fh));
    for (long long b = 0; b < nblocks; b++)
        if ((b + 1) % P == ct_rank)
            ct_write_at(fh, b * BS, want + b * BS, b + 1 < nblocks ? BS : TAIL, "block");
    CT_MPI(MPI_File_close(&fh));
    MPI_Info_free(&info);

    /* 1. Everything preloaded. */
    info = ct_info("romio_edonio_block_size", bsval, "romio_edonio_preload", "true", NULL);
    CT_MPI(MPI_File_open(MPI_COMM_WORLD, filename, MPI_MODE_RDONLY, info, &fh));
    MPI_Info_free(&info);
    ct_get(fh, "romio_edonio_preload", value);
    CT_CHECK(strcmp(value, "true") == 0, "MPI_File_get_info: romio_edonio_preload is '%s'", value);
    long long cache = ct_get_ll(fh, "romio_edonio_cache_size");
    CT_CHECK(cache >= (nblocks / P + 1) * BS, "the cache (%lld bytes) cannot hold the file", cache);
    long long fs_reads0 = ct_stat_sum(fh, "fs_reads"), misses0 = ct_stat_sum(fh, "misses");
    long long hits0 = ct_stat_sum(fh, "hits");
    MPI_Barrier(MPI_COMM_WORLD);
    read_range(fh, want, 0, size, "all preloaded");
    long long misses = ct_stat_sum(fh, "misses") - misses0;
    long long hits = ct_stat_sum(fh, "hits") - hits0;
    long long fs_reads = ct_stat_sum(fh, "fs_reads") - fs_reads0;
    if (ct_rank == 0)
        printf("preloaded: %lld reads from the file system at open; then %lld hits, %lld misses, "
               "%lld reads from the file system (sums over ranks)\n",
               fs_reads0, hits, misses, fs_reads);
    CT_CHECK(ct_rank != 0 || misses0 == 0, "%lld misses during the preload", misses0);
    CT_CHECK(ct_rank != 0 || fs_reads0 == nblocks,
             "the preload read %lld blocks from the file system, expected %lld", fs_reads0,
             nblocks);
    CT_CHECK(ct_rank != 0 || misses == 0, "%lld misses reading a preloaded file", misses);
    CT_CHECK(ct_rank != 0 || hits > 0, "no hits reading a preloaded file");
    CT_CHECK(ct_rank != 0 || fs_reads == 0,
             "%lld reads from the file system reading a preloaded file", fs_reads);
    CT_MPI(MPI_File_close(&fh));

    /* 2. A cache of 4 blocks per process: the first 4 P blocks. */
    snprintf(cacheval, sizeof(cacheval), "%d", 4 * BS);
    info = ct_info("romio_edonio_block_size", bsval, "romio_edonio_preload", "true",
                   "romio_edonio_cache_size", cacheval, NULL);
    CT_MPI(MPI_File_open(MPI_COMM_WORLD, filename, MPI_MODE_RDONLY, info, &fh));
    MPI_Info_free(&info);
    misses0 = ct_stat_sum(fh, "misses");
    MPI_Barrier(MPI_COMM_WORLD);
    read_range(fh, want, 0, 4 * P * BS, "small cache, preloaded part");
    misses = ct_stat_sum(fh, "misses") - misses0;
    if (ct_rank == 0)
        printf("cache of 4 blocks: %lld misses reading the first 4 P blocks\n", misses);
    CT_CHECK(ct_rank != 0 || misses == 0,
             "%lld misses reading the first 4 P blocks, preloaded in a cache of 4 blocks", misses);
    MPI_Barrier(MPI_COMM_WORLD);
    misses0 = ct_stat_sum(fh, "misses");
    read_range(fh, want, 4 * P * BS, size, "small cache, the rest");
    misses = ct_stat_sum(fh, "misses") - misses0;
    if (ct_rank == 0)
        printf("cache of 4 blocks: %lld misses reading the rest\n", misses);
    CT_CHECK(ct_rank != 0 || misses > 0, "no misses reading blocks that were not preloaded");

    /* From the smallest file pointer, after a rebuild. */
    CT_MPI(MPI_File_seek(fh, (4 * P + ct_rank) * BS, MPI_SEEK_SET));
    snprintf(cacheval, sizeof(cacheval), "%d", 5 * BS);
    info = ct_info("romio_edonio_cache_size", cacheval, NULL);
    CT_MPI(MPI_File_set_info(fh, info));
    MPI_Info_free(&info);
    CT_CHECK(ct_get_ll(fh, "romio_edonio_cache_size") == 5 * BS,
             "romio_edonio_cache_size is not %d after MPI_File_set_info", 5 * BS);
    MPI_Barrier(MPI_COMM_WORLD);
    misses0 = ct_stat_sum(fh, "misses");
    read_range(fh, want, 4 * P * BS, size, "rebuilt cache, from the smallest pointer");
    misses = ct_stat_sum(fh, "misses") - misses0;
    if (ct_rank == 0)
        printf("rebuilt with 5 blocks, pointers at block 4 P and on: %lld misses reading from "
               "block 4 P on\n",
               misses);
    CT_CHECK(ct_rank != 0 || misses == 0,
             "%lld misses reading from the smallest file pointer on, after a rebuild with "
             "preload",
             misses);
    CT_MPI(MPI_File_close(&fh));
    free(want);
    return ct_finish();
}
