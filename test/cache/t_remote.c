/*
 * edonio cache test: this node's copies of other nodes' blocks.
 *
 *   t_remote FILE [KEY=VALUE...]
 *
 * A file of 4 P blocks and a bit is written and closed, then opened (read-only, then read-write);
 * every rank reads the whole file twice, block by block. The first pass reads each block from the
 * file system once per node that reads it: its owner's node into the owner's cache, every other
 * node into one of its remote segments, where its node peers find it (remote hits). The second
 * pass reads nothing from the file system, and each rank's blocks owned on other nodes come from
 * its node's copies (romio_edonio_stats_remote_hits grows by their number: 0 when all processes
 * share one node).
 *
 * With romio_edonio_read_fill=none (the default on a local file system with a page cache) a read
 * of a block that nobody cached brings nothing into the cache: both passes read every block from
 * the file system, once per rank, and remote_hits does not grow.
 */
#include "cache_test.h"

enum { NBLOCKS_PER_RANK = 4, TAIL = 1234 };

struct counters {
    long long remote_hits, fs_reads;
};

static struct counters counters(MPI_File fh)
{
    struct counters c;

    c.remote_hits = ct_stat(fh, "remote_hits");
    c.fs_reads = ct_stat(fh, "fs_reads");
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

static void passes(const char *filename, MPI_Info info, int amode, const unsigned char *want,
                   long long bs, long long size, long long nblocks)
{
    int nnodes, *node = ct_nodes(&nnodes);
    long long remote = 0;
    MPI_File fh;

    for (long long b = 0; b < nblocks; b++)
        remote += node[b % ct_nprocs] != node[ct_rank];
    CT_MPI(MPI_File_open(MPI_COMM_WORLD, filename, amode, info, &fh));
    char fill[MPI_MAX_INFO_VAL + 1];
    int through = strcmp(ct_get(fh, "romio_edonio_read_fill", fill), "none") == 0;
    CT_CHECK(through || strcmp(fill, "block") == 0, "romio_edonio_read_fill is '%s'", fill);
    if (through) /* the file system gives every read */
        remote = 0;
    struct counters c0 = counters(fh);
    read_pass(fh, want, bs, size, "first pass");
    struct counters c1 = counters(fh);
    read_pass(fh, want, bs, size, "second pass");
    struct counters c2 = counters(fh);

    long long hits1 = c1.remote_hits - c0.remote_hits, hits2 = c2.remote_hits - c1.remote_hits;
    long long reads1 = ct_sum(c1.fs_reads - c0.fs_reads),
              reads2 = ct_sum(c2.fs_reads - c1.fs_reads);
    long long per_pass = through ? nblocks * ct_nprocs : 0;
    if (ct_rank == 0)
        printf("read_fill=%s, %s: %lld blocks on %d nodes; reads from the file system: first pass "
               "%lld, second "
               "pass %lld (sums); rank 0's remote hits: first pass %lld, second pass %lld\n",
               fill, amode == MPI_MODE_RDONLY ? "read-only" : "read-write", nblocks, nnodes, reads1,
               reads2, hits1, hits2);
    /* First pass: the first reader on a node of another node's block fetches it; its node peers
     * find it there (no hit at all with one process per node). */
    long long sum1 = ct_sum(hits1);
    long long want1 = ct_sum(remote) - (through ? 0 : nblocks * (nnodes - 1));
    CT_CHECK(ct_rank != 0 || sum1 == want1,
             "first pass: remote_hits grew by %lld (sum), expected %lld", sum1, want1);
    CT_CHECK(hits2 == remote, "second pass: remote_hits grew by %lld, expected %lld", hits2,
             remote);
    CT_CHECK(ct_rank != 0 || reads1 == (through ? per_pass : nblocks * nnodes),
             "first pass: %lld reads from the file system, expected %lld (%s)", reads1,
             through ? per_pass : nblocks * nnodes,
             through ? "every block, every rank" : "one per block and node");
    CT_CHECK(ct_rank != 0 || reads2 == per_pass,
             "second pass: %lld reads from the file system, expected %lld", reads2, per_pass);
    CT_MPI(MPI_File_close(&fh));
    free(node);
}

/*
 * The blocks of one owner on another node that a process writes are spread over its node's remote
 * segments, not all kept in one: when the last rank shares its node, it writes 100 bytes into each
 * of 16 blocks of rank 0 (on another node), and at the sync every process of its node delivers
 * some of them (romio_edonio_stats_delivered). Seen to fail with the segment chosen by the low bits
 * of the block's hash (ad_edonio_node.c, remote_holder), which are the block's own: every block of
 * one owner went to one process's remote segment, the others delivered nothing.
 */
static void spread(const char *filename, MPI_Info info, long long bs)
{
    int nnodes, *node = ct_nodes(&nnodes), writer = ct_nprocs - 1, peers = 0;
    unsigned char rec[100];
    MPI_File fh;

    for (int r = 0; r < ct_nprocs; r++)
        peers += node[r] == node[writer];
    if (peers < 2 || node[0] == node[writer]) {
        free(node);
        return; /* needs rank 0 on another node than the last rank, which has a peer */
    }
    CT_MPI(MPI_File_open(MPI_COMM_WORLD, filename, MPI_MODE_RDWR, info, &fh));
    long long before = ct_stat(fh, "delivered");
    if (ct_rank == writer)
        for (int k = 0; k < 16; k++) {
            long long off = (long long)k * ct_nprocs * bs + 10; /* block k P: rank 0's */
            memset(rec, k, sizeof(rec));
            ct_write_at(fh, off, rec, sizeof(rec), "spread");
        }
    ct_sync(fh);
    long long delivered = ct_stat(fh, "delivered") - before;
    CT_CHECK(node[ct_rank] != node[writer] || delivered > 0,
             "spread: this process's remote segment delivered none of the 16 blocks of rank 0 "
             "that rank %d, on its node, wrote (delivered %lld bytes)",
             writer, delivered);
    long long total = ct_sum(delivered);
    CT_CHECK(ct_rank != 0 || total == 16 * (long long)sizeof(rec),
             "spread: %lld bytes delivered in all, expected %d", total, 16 * (int)sizeof(rec));
    CT_MPI(MPI_File_close(&fh));
    free(node);
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

    passes(filename, info, MPI_MODE_RDONLY, want, bs, size, nblocks);
    passes(filename, info, MPI_MODE_RDWR, want, bs, size, nblocks);
    spread(filename, info, bs);
    MPI_Info_free(&info);
    free(want);
    return ct_finish();
}
