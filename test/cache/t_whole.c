/*
 * edonio cache test: with romio_edonio_write_through on (a page-cached file system), a block that
 * writes have made whole goes to the file at once, before any sync, once, and stays readable.
 *
 *   t_whole FILE [KEY=VALUE...] [test_eager=0] [test_shared=0]
 *
 * Blocks of 16 KiB, write_through 1 MiB (on, and no 4 KiB piece large enough to go straight).
 * Rank r writes NB blocks of its own region in 4 KiB pieces, then 3/4 of one more block. Before
 * any sync: the processes' fs_writes sum to P * NB (each whole block written once, by the process
 * whose piece completed it, from the segment that holds it on its node: the owner's, or across
 * nodes a remote segment; the partial block not at all). Reading everything back then reads
 * the written-back blocks from the file, one fs_read per 4 KiB read, where
 * romio_edonio_read_fill is none (auto here: they left the cache, their slots reused), and nothing
 * with read_fill=block (they stay cached, clean); the partial block is read from the cache either
 * way. Then NB blocks after the regions,
 * their 4 KiB pieces dealt round the ranks (piece k by rank k mod P), so that several processes
 * fill a block at once and any of them may complete it: NB more writes, each block once. Across
 * nodes (test_shared=0) no segment holds such a block whole (each node's pieces wait in its own)
 * until the close delivers them: no write. test_eager=0 expects no write before the sync at all:
 * with romio_edonio_write_through=0 (full write-behind). After the close, rank 0 reads the file
 * with POSIX calls: every byte is there.
 * Seen to fail: with the write at once taken out, "fs_writes before any sync: 0, want 32" at 4
 * ranks; with test_eager=0 on one node, "... 32, want 0"; with a block written back whole not
 * kept readable, "fs_reads reading back what was written: 32, want 0" (now: with read_fill=block,
 * 16 at 2 ranks); with it kept whatever read_fill is, "...: 0, want 32" at 1 rank (read_fill=none).
 */
#include "cache_test.h"

#include <fcntl.h>
#include <unistd.h>

enum { BS = 16384, PIECE = 4096, NB = 8, REGION = (NB + 1) * BS, PART = 3 * BS / 4 };

int main(int argc, char **argv)
{
    MPI_Info info;
    MPI_File fh;
    long long base, eager, shared_eager, writes, reads;
    unsigned char piece[PIECE], *buf = malloc(REGION), *want = malloc(REGION);

    ct_init(&argc, &argv, "FILE [KEY=VALUE...] [test_eager=0]");
    eager = ct_opt_ll("eager", 1);
    shared_eager = ct_opt_ll("shared", eager);
    info =
        ct_info("romio_edonio_block_size", "16384", "romio_edonio_write_through", "1048576", NULL);
    if (ct_rank == 0)
        MPI_File_delete(argv[1], MPI_INFO_NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    CT_MPI(MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    base = (long long)ct_rank * REGION;
    for (long long at = 0; at < NB * BS + PART; at += PIECE) {
        for (int k = 0; k < PIECE; k++)
            piece[k] = ct_pattern(base + at + k, 1);
        CT_MPI(MPI_File_write_at(fh, base + at, piece, PIECE, MPI_BYTE, MPI_STATUS_IGNORE));
    }
    writes = ct_stat_sum(fh, "fs_writes");
    CT_CHECK(writes == (eager ? (long long)ct_nprocs * NB : 0),
             "fs_writes before any sync: %lld, want %lld", writes,
             eager ? (long long)ct_nprocs * NB : 0);

    for (long long at = 0; at < NB * BS + PART; at += PIECE) /* its own bytes, before any sync */
        CT_MPI(MPI_File_read_at(fh, base + at, buf + at, PIECE, MPI_BYTE, MPI_STATUS_IGNORE));
    for (long long k = 0; k < NB * BS + PART; k++)
        want[k] = ct_pattern(base + k, 1);
    ct_compare("read back before any sync", buf, want, base, NB * BS + PART);
    char fill[MPI_MAX_INFO_VAL + 1];
    ct_get(fh, "romio_edonio_read_fill", fill);
    long long want_reads = eager && !strcmp(fill, "none") ? (long long)ct_nprocs * NB * BS / PIECE
                                                          : 0;
    reads = ct_stat_sum(fh, "fs_reads");
    CT_CHECK(reads == want_reads, "fs_reads reading back what was written: %lld, want %lld "
             "(read_fill=%s)", reads, want_reads, fill);

    long long shared = (long long)ct_nprocs * REGION, before = ct_stat_sum(fh, "fs_writes");
    for (long long k = ct_rank; k < NB * BS / PIECE; k += ct_nprocs) {
        for (int i = 0; i < PIECE; i++)
            piece[i] = ct_pattern(shared + k * PIECE + i, 1);
        CT_MPI(MPI_File_write_at(fh, shared + k * PIECE, piece, PIECE, MPI_BYTE,
                                 MPI_STATUS_IGNORE));
    }
    writes = ct_stat_sum(fh, "fs_writes") - before;
    CT_CHECK(writes == (shared_eager ? NB : 0), "fs_writes of the blocks filled by every rank: "
             "%lld, want %d", writes, shared_eager ? NB : 0);
    CT_MPI(MPI_File_close(&fh));

    if (ct_rank == 0) { /* the file itself */
        int fd = open(argv[1], O_RDONLY);
        CT_CHECK(fd >= 0, "open %s after the close", argv[1]);
        for (int r = 0; fd >= 0 && r < ct_nprocs; r++) {
            base = (long long)r * REGION;
            ssize_t got = pread(fd, buf, NB * BS + PART, base);
            CT_CHECK(got == NB * BS + PART, "rank %d's region: read %zd bytes", r, got);
            for (long long k = 0; k < NB * BS + PART; k++)
                want[k] = ct_pattern(base + k, 1);
            ct_compare("the file after the close", buf, want, base, NB * BS + PART);
        }
        base = (long long)ct_nprocs * REGION; /* the blocks every rank filled */
        ssize_t got = fd >= 0 ? pread(fd, buf, NB * BS, base) : -1;
        CT_CHECK(got == NB * BS, "the shared blocks: read %zd bytes", got);
        for (long long k = 0; k < NB * BS; k++)
            want[k] = ct_pattern(base + k, 1);
        ct_compare("the shared blocks after the close", buf, want, base, NB * BS);
        if (fd >= 0)
            close(fd);
    }
    MPI_Info_free(&info);
    free(buf);
    free(want);
    return ct_finish();
}
