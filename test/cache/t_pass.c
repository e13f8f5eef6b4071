/*
 * edonio cache test: with romio_edonio_write_through on, a request that passes the cache and finds
 * none of its blocks cached is one file operation, as ufs makes it, whatever its alignment; and
 * with romio_edonio_read_fill=none a read of blocks not cached is one read.
 *
 *   t_pass FILE [KEY=VALUE...] [test_pass=0]
 *
 * Blocks of 16 KiB, write_through 8 KiB, read_fill none. Rank r writes NREQ requests of 10,000
 * bytes, one after the other, in a region of its own: most cross a block boundary, leaving a piece
 * smaller than 8 KiB on one side. Before any sync the processes' fs_writes sum to P * NREQ (one
 * write per request), and reading them back in the same requests makes P * NREQ fs_reads. Then
 * each rank writes 100 bytes into a new block (they are cached) and a request of 10,000 bytes
 * whose first 4,384 bytes are in that block and the rest in the next: one fs_write (the piece of
 * the block not cached), and both read back. After the close, rank 0 checks the file with POSIX.
 * test_pass=0 expects what romio_edonio_write_through=0 and read_fill=block give instead: every
 * byte cached, no operation at all before the sync (so the counts above fail without passing).
 * Seen to fail on the code that judged each piece alone (a piece under 8 KiB took the cache):
 * "fs_writes of 24 requests per rank: 14, want 24" at 1 rank (and fs_reads 3, want 24).
 * The writes that pass take a byte-range lock each (fs_locks) only where romio_edonio_write_back
 * is span (as get_info reports it: auto is exact on a local file system with a page cache, where
 * no write of the cache covers bytes it was not given, so none needs a lock, as ufs takes none).
 * Seen to fail with lock_range ignoring the hint: "fs_locks of 24 passing writes per rank: 48,
 * want 0 (write_back=exact)" at 2 ranks.
 * Across nodes, the pieces a collective write sends to owners on other nodes, which they would
 * write back at once, go to the file from the messages where the block is not cached
 * (owners_pass). Seen to fail on the code before: "4 fs_writes, 2 write-backs, want 4 and 0" on 2
 * nodes at 4 ranks.
 */
#include "cache_test.h"

#include <fcntl.h>
#include <unistd.h>

enum { BS = 16384, REQ = 10000, NREQ = 24, REGION = NREQ * REQ + 4 * BS };

static long long written(long long *before, MPI_File fh)
{
    long long now = ct_stat_sum(fh, "fs_writes"), d = now - *before;
    *before = now;
    return d;
}

/*
 * Across nodes: a collective write of 100 bytes per rank into a block owned on another node, each
 * rank's bytes apart. The owners would write them back at once; they go to the file from the
 * messages instead (one fs_write each, no write-back, no block cached), except with
 * write_back=span or test_pass=0, where the owners cache them and write their blocks back.
 */
static void owners_pass(MPI_File fh, long long pass, const char *mode, const unsigned char *want,
                        unsigned char *buf)
{
    int nnodes, *node = ct_nodes(&nnodes), q = 0;
    long long writes = 0, first = ((long long)ct_nprocs * REGION / BS + 1) * ct_nprocs;

    while (node[q] == node[ct_rank]) /* the lowest rank of another node */
        q++;
    free(node);
    long long off = (first + q) * BS + 200LL * ct_rank, wb;
    ct_sync(fh); /* nothing left to deliver first */
    written(&writes, fh);
    wb = ct_stat_sum(fh, "writebacks");
    CT_MPI(MPI_File_write_at_all(fh, off, want, 100, MPI_BYTE, MPI_STATUS_IGNORE));
    long long p = written(&writes, fh);
    wb = ct_stat_sum(fh, "writebacks") - wb;
    if (pass && strcmp(mode, "span") != 0)
        CT_CHECK(p == ct_nprocs && wb == 0,
                 "pieces of other nodes' blocks at their owners: %lld fs_writes, %lld write-backs, "
                 "want %d and 0 (straight from the messages)",
                 p, wb, ct_nprocs);
    else
        CT_CHECK(wb > 0, "pieces of other nodes' blocks at their owners: no write-back (%s)",
                 pass ? "write_back=span" : "test_pass=0");
    memset(buf, 0xee, 100);
    ct_read_at(fh, off, buf, 100, 100, "100 bytes at another node's owner");
    ct_compare("100 bytes at another node's owner, read back", buf, want, off, 100);
}

int main(int argc, char **argv)
{
    MPI_File fh;
    long long base, writes = 0, reads, pass, want_ops, p = 0;
    unsigned char *buf = malloc(REGION), *want = malloc(REGION);

    ct_init(&argc, &argv, "FILE [KEY=VALUE...] [test_pass=0]");
    pass = ct_opt_ll("pass", 1);
    MPI_Info info = ct_info("romio_edonio_block_size", "16384", "romio_edonio_write_through",
                            "8192", "romio_edonio_read_fill", "none", NULL);
    ct_fresh(argv[1]);
    CT_MPI(MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    base = (long long)ct_rank * REGION;
    for (long long k = 0; k < REGION; k++)
        want[k] = ct_pattern(base + k, 3);

    want_ops = pass ? (long long)ct_nprocs * NREQ : 0;
    for (int i = 0; i < NREQ; i++)
        ct_write_at(fh, base + (long long)i * REQ, want + (long long)i * REQ, REQ, "a request");
    p = written(&writes, fh);
    CT_CHECK(p == want_ops, "fs_writes of %d requests per rank: %lld, want %lld", NREQ, p,
             want_ops);
    char mode[MPI_MAX_INFO_VAL + 1];
    ct_get(fh, "romio_edonio_write_back", mode);
    long long locks = ct_stat_sum(fh, "fs_locks"), want_locks = strcmp(mode, "span") ? 0 : want_ops;
    CT_CHECK(locks == want_locks, "fs_locks of %d passing writes per rank: %lld, want %lld "
             "(write_back=%s)", NREQ, locks, want_locks, mode);
    memset(buf, 0xee, REGION);
    for (int i = 0; i < NREQ; i++)
        ct_read_at(fh, base + (long long)i * REQ, buf + (long long)i * REQ, REQ, REQ, "a request");
    ct_compare("read back before any sync", buf, want, base, (long long)NREQ * REQ);
    reads = ct_stat_sum(fh, "fs_reads");
    CT_CHECK(reads == want_ops, "fs_reads of %d requests per rank: %lld, want %lld", NREQ, reads,
             want_ops);

    /* A request whose first block is cached (100 bytes written into it): by pieces. */
    long long x = (base + (long long)NREQ * REQ + BS - 1) / BS * BS, at = x + 12000;
    ct_write_at(fh, x, want + (x - base), 100, "100 bytes");
    written(&writes, fh);
    ct_write_at(fh, at, want + (at - base), REQ, "a request half in a cached block");
    p = written(&writes, fh);
    CT_CHECK(p == (pass ? ct_nprocs : 0), "fs_writes of a request half in a cached block: %lld, "
             "want %d (its piece in the block not cached)", p, pass ? ct_nprocs : 0);
    memset(buf, 0xee, REQ);
    ct_read_at(fh, x, buf, 100, 100, "100 bytes");
    ct_compare("the 100 bytes read back", buf, want + (x - base), x, 100);
    ct_read_at(fh, at, buf, REQ, REQ, "a request half in a cached block");
    ct_compare("the request half in a cached block read back", buf, want + (at - base), at, REQ);
    if (!ct_one_node())
        owners_pass(fh, pass, mode, want, buf);
    CT_MPI(MPI_File_close(&fh));

    if (ct_rank == 0) { /* the file itself */
        int fd = open(argv[1], O_RDONLY);
        CT_CHECK(fd >= 0, "open %s after the close", argv[1]);
        for (int r = 0; fd >= 0 && r < ct_nprocs; r++) {
            long long b = (long long)r * REGION;
            long long xr = (b + (long long)NREQ * REQ + BS - 1) / BS * BS;
            for (long long k = 0; k < REGION; k++)
                want[k] = ct_pattern(b + k, 3);
            ct_disk_check(fd, buf, want, b, (long long)NREQ * REQ, "the requests after the close");
            ct_disk_check(fd, buf, want + (xr - b), xr, 100, "the 100 bytes after the close");
            ct_disk_check(fd, buf, want + (xr + 12000 - b), xr + 12000, REQ,
                          "the last request after the close");
        }
        if (fd >= 0)
            close(fd);
    }
    free(buf);
    free(want);
    MPI_Info_free(&info);
    return ct_finish();
}
