/*
 * edonio cache test: MPI's consistency rules (MPI-3.1 13.6.1), on which edonio's deferrals rest
 * (doc/design.md, "What may reach the file, and when"). Meant for simulated nodes, where other
 * owners are reached the network way, and run on one node too.
 *
 *   t_consistency FILE [KEY=VALUE...]
 *
 * 1. own:       each rank writes records into blocks owned by every rank and reads them back at
 *               once, with no sync.
 * 2. sync:      after sync-barrier-sync every rank reads everyone's records.
 * 3. reopen:    after close and reopen, the same.
 * 4. exact:     an owner fetches a block (reads it) and writes its first bytes; a rank on another
 *               node writes bytes in the middle, and its remote cache of one block overflows, so
 *               they go to the file directly; after sync-barrier-sync the block has both, the
 *               owner's write-back did not put the fetched (old) bytes back over them.
 * 5. coll-own:  a collective write (interleaved records), then each rank reads its own records with
 *               independent reads at once: the owners on other nodes wrote those blocks back.
 * 6. order:     an independent write, then a collective write of the same bytes by the same rank:
 *               the collective one's bytes win (the earlier one, kept on its node, is delivered
 *               first, never after).
 * 7. shrink:    writes spread over the file (on other nodes: not delivered), then set_size to half:
 *               after a sync the file ends there and holds what was written below it.
 * 8. durable:   rank 0 enters MPI_File_sync at once; the last rank first sleeps, then writes a
 *               block rank 0 owns, then syncs: when its sync returns, its bytes are in the file
 *               (read around MPI-IO). On one node the owner must not write back before every
 *               process is in the call.
 * 9. closed:    the same with MPI_File_close: rank 0 enters it at once, the last rank sleeps, writes
 *               a block rank 0 owns and closes; then its bytes are in the file. The close's flush
 *               takes the place of MPI_File_close's barrier (ROMIO patch 0011), so on one node too
 *               the owner writes back before the last rank's write.
 * 10. span:     with romio_edonio_write_back=span and read_fill=block, the owner caches block 0
 *               whole; another writer (the last rank, with pwrite: another program, or a handle
 *               with a cache of its own; a handle of MPI_COMM_SELF would share this one) writes
 *               bytes in its middle; the owner then writes three pieces around them and syncs,
 *               one span write-back: the bytes between its pieces are read afresh under the lock,
 *               not taken from the copy it cached before the other write.
 * Each case checks every byte; needs 2 processes or more.
 */
#include "cache_test.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { BS = 4096, REC = 700, NREC = 24 };

static unsigned char byte_of(long long off, int version)
{
    return (unsigned char)(off * 7 + off / 4099 + version * 29 + 1);
}

static void fill(unsigned char *buf, long long off, long long len, int version)
{
    for (long long i = 0; i < len; i++)
        buf[i] = byte_of(off + i, version);
}

/* Record k of rank r: interleaved, so that every rank writes into blocks of every owner. */
static long long rec_off(int k, int r)
{
    return ((long long)k * ct_nprocs + r) * REC + 13;
}

/* The file opened on every process with info (freed here). */
static MPI_File open_info(const char *filename, int amode, MPI_Info info)
{
    MPI_File fh = MPI_FILE_NULL;

    CT_MPI(MPI_File_open(MPI_COMM_WORLD, filename, amode, info, &fh));
    MPI_Info_free(&info);
    return fh;
}

static MPI_File open_with(const char *filename, int amode, const char *remote)
{
    return open_info(
        filename, amode,
        ct_info("romio_edonio_block_size", "4096", "romio_edonio_remote_cache_size", remote, NULL));
}

static void read_records(MPI_File fh, int from, int to, int version, const char *what)
{
    unsigned char want[REC], got[REC];

    for (int r = from; r <= to; r++)
        for (int k = 0; k < NREC; k++) {
            fill(want, rec_off(k, r), REC, version);
            memset(got, 0xee, REC);
            ct_read_at(fh, rec_off(k, r), got, REC, REC, what);
            ct_compare(what, got, want, rec_off(k, r), REC);
        }
}

static void write_records(MPI_File fh, int version)
{
    unsigned char buf[REC];

    for (int k = 0; k < NREC; k++) {
        fill(buf, rec_off(k, ct_rank), REC, version);
        ct_write_at(fh, rec_off(k, ct_rank), buf, REC, "record");
    }
}

static void cases_1_to_3(const char *filename)
{
    MPI_File fh;

    ct_fresh(filename);
    fh = open_with(filename, MPI_MODE_CREATE | MPI_MODE_RDWR, "1048576");
    write_records(fh, 1);
    read_records(fh, ct_rank, ct_rank, 1, "own, no sync");
    ct_sync(fh);
    read_records(fh, 0, ct_nprocs - 1, 1, "everyone's, after sync-barrier-sync");
    CT_MPI(MPI_File_close(&fh));
    fh = open_with(filename, MPI_MODE_RDWR, "1048576");
    read_records(fh, 0, ct_nprocs - 1, 1, "everyone's, after close and reopen");
    CT_MPI(MPI_File_close(&fh));
}

static void case_4(const char *filename)
{
    const long long b = 0; /* owned by rank 0 */
    unsigned char blk[BS], want[BS], buf[BS];
    MPI_File fh;
    int writer = ct_nprocs - 1;

    ct_fresh(filename);
    fh = open_with(filename, MPI_MODE_CREATE | MPI_MODE_RDWR, "4096");
    if (ct_rank == 0) { /* old bytes everywhere: blocks 0 to 2P */
        for (long long x = 0; x <= 2 * ct_nprocs; x++) {
            fill(blk, x * BS, BS, 0);
            ct_write_at(fh, x * BS, blk, BS, "old bytes");
        }
    }
    ct_sync(fh);
    fill(want, b * BS, BS, 0);
    if (ct_rank == 0) { /* fetch the block, then dirty its first bytes */
        ct_read_at(fh, b * BS, buf, BS, BS, "the owner's fetch");
        fill(want, b * BS, 10, 4);
        ct_write_at(fh, b * BS, want, 10, "the owner's bytes");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (ct_rank == writer) { /* the middle of block 0, then enough other blocks to overflow */
        fill(buf, b * BS + 1000, 500, 5);
        ct_write_at(fh, b * BS + 1000, buf, 500, "the other node's bytes");
        for (long long x = 1; x <= 2 * ct_nprocs; x++)
            if (x % ct_nprocs != writer)
                ct_write_at(fh, x * BS + 7, buf, 3, "filler");
    }
    fill(want, b * BS, 10, 4);
    fill(want + 1000, b * BS + 1000, 500, 5);
    ct_sync(fh);
    memset(buf, 0xee, BS);
    ct_read_at(fh, b * BS, buf, BS, BS, "exact write-back");
    ct_compare("exact write-back", buf, want, b * BS, BS);
    CT_MPI(MPI_File_close(&fh));
}

static void case_10(const char *filename)
{
    static const long long piece[3][2] = {{0, 100}, {2000, 2100}, {3000, 3100}}; /* [lo, hi) */
    unsigned char want[BS], buf[BS];
    MPI_File fh;
    long long locks = 0;

    ct_fresh(filename);
    fh = open_info(filename, MPI_MODE_CREATE | MPI_MODE_RDWR,
                   ct_info("romio_edonio_block_size", "4096", "romio_edonio_write_back", "span",
                           "romio_edonio_read_fill", "block", NULL));
    fill(want, 0, BS, 0);
    if (ct_rank == 0) /* block 0, rank 0's: written whole, then cached, valid */
        ct_write_at(fh, 0, want, BS, "old bytes");
    ct_sync(fh);
    if (ct_rank == 0)
        ct_read_at(fh, 0, buf, BS, BS, "the owner's cached copy");
    MPI_Barrier(MPI_COMM_WORLD);
    if (ct_rank == ct_nprocs - 1) { /* another writer: bytes between the pieces */
        int fd = open(filename, O_WRONLY);
        fill(buf, 1000, 500, 6);
        CT_CHECK(fd >= 0 && pwrite(fd, buf, 500, 1000) == 500,
                 "span: the other writer's pwrite failed");
        if (fd >= 0)
            close(fd);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (ct_rank == 0)
        for (int i = 0; i < 3; i++) {
            long long lo = piece[i][0], n = piece[i][1] - lo;
            fill(buf, lo, n, 7);
            ct_write_at(fh, lo, buf, n, "the owner's pieces");
        }
    for (int i = 0; i < 3; i++)
        fill(want + piece[i][0], piece[i][0], piece[i][1] - piece[i][0], 7);
    fill(want + 1000, 1000, 500, 6);
    /* summed: the node's last process to enter the flush may write rank 0's block back (and
     * when two enter at once, both see themselves last: Node_enter_flush) */
    locks = ct_stat_sum(fh, "fs_locks");
    ct_sync(fh);
    locks = ct_stat_sum(fh, "fs_locks") - locks;
    CT_CHECK(ct_rank != 0 || locks > 0,
             "span: no write-back took a byte-range lock (fs_locks +%lld summed): no span "
             "written, the case tests nothing",
             locks);
    memset(buf, 0xee, BS);
    ct_read_at(fh, 0, buf, BS, BS, "span write-back");
    ct_compare("span write-back over a cached block", buf, want, 0, BS);
    CT_MPI(MPI_File_close(&fh));
}

/* Each rank's records as one file view: a vector of NREC records, stride P records. */
static void set_records_view(MPI_File fh)
{
    MPI_Datatype rec, vec, view;

    MPI_Type_contiguous(REC, MPI_BYTE, &rec);
    MPI_Type_vector(NREC, 1, ct_nprocs, rec, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)NREC * ct_nprocs * REC, &view);
    MPI_Type_commit(&view);
    CT_MPI(MPI_File_set_view(fh, rec_off(0, ct_rank), MPI_BYTE, view, "native", MPI_INFO_NULL));
    MPI_Type_free(&rec);
    MPI_Type_free(&vec);
    MPI_Type_free(&view);
}

static void collective_records(MPI_File fh, int version)
{
    unsigned char *buf = malloc((size_t)NREC * REC);

    for (int k = 0; k < NREC; k++)
        fill(buf + (long long)k * REC, rec_off(k, ct_rank), REC, version);
    set_records_view(fh);
    CT_MPI(MPI_File_write_at_all(fh, 0, buf, NREC * REC, MPI_BYTE, MPI_STATUS_IGNORE));
    CT_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    free(buf);
}

static void cases_5_6(const char *filename)
{
    MPI_File fh;

    ct_fresh(filename);
    fh = open_with(filename, MPI_MODE_CREATE | MPI_MODE_RDWR, "1048576");
    collective_records(fh, 6);
    read_records(fh, ct_rank, ct_rank, 6, "own, after a collective write");
    write_records(fh, 7); /* independent, kept on this node for other nodes' blocks */
    collective_records(fh, 8);
    read_records(fh, ct_rank, ct_rank, 8, "own, independent then collective");
    ct_sync(fh);
    read_records(fh, 0, ct_nprocs - 1, 8, "everyone's, independent then collective");
    CT_MPI(MPI_File_close(&fh));
}

static void case_7(const char *filename)
{
    long long half = rec_off(NREC / 2, 0);
    unsigned char want[REC], got[REC];
    MPI_Offset size;
    MPI_File fh;

    ct_fresh(filename);
    fh = open_with(filename, MPI_MODE_CREATE | MPI_MODE_RDWR, "1048576");
    write_records(fh, 9);
    CT_MPI(MPI_File_set_size(fh, half));
    ct_sync(fh);
    CT_MPI(MPI_File_get_size(fh, &size));
    CT_CHECK(size == half, "shrink: MPI_File_get_size is %lld, expected %lld", (long long)size,
             half);
    for (int r = 0; r < ct_nprocs; r++)
        for (int k = 0; k < NREC; k++) {
            long long off = rec_off(k, r), have = off >= half ? 0 : off + REC <= half ? REC
                                                                                   : half - off;
            fill(want, off, REC, 9);
            memset(got, 0xee, REC);
            ct_read_at(fh, off, got, REC, have, "shrunk");
            ct_compare("shrunk", got, want, off, have);
        }
    CT_MPI(MPI_File_close(&fh));
    if (ct_rank == 0) { /* and nothing came back on disk */
        struct stat st;
        CT_CHECK(stat(filename, &st) == 0 && st.st_size == half,
                 "shrink: the file on disk has %lld bytes, expected %lld", (long long)st.st_size,
                 half);
    }
}

/*
 * Cases 8 and 9: rank 0 enters the call (MPI_File_sync, or MPI_File_close with 'closing') at once;
 * the last rank first sleeps, then writes a block rank 0 owns, then makes the call. When its call
 * returns, its bytes are in the file (read around MPI-IO).
 */
static void late_write(const char *filename, int closing, const char *what)
{
    unsigned char want[REC], got[REC];
    MPI_File fh;

    ct_fresh(filename);
    fh = open_with(filename, MPI_MODE_CREATE | MPI_MODE_RDWR, "1048576");
    fill(want, 0, REC, 10 + closing);
    MPI_Barrier(MPI_COMM_WORLD);
    if (ct_rank == ct_nprocs - 1) {
        struct timespec nap = {0, 300 * 1000 * 1000};
        nanosleep(&nap, NULL); /* rank 0 is in its call by now */
        ct_write_at(fh, 0, want, REC, what); /* block 0: rank 0's */
    }
    if (closing)
        CT_MPI(MPI_File_close(&fh));
    else
        CT_MPI(MPI_File_sync(fh)); /* one sync: the promise is about this call */
    if (ct_rank == ct_nprocs - 1) {
        int fd = open(filename, O_RDONLY);
        ssize_t n = fd >= 0 ? pread(fd, got, REC, 0) : -1;
        CT_CHECK(n == REC && memcmp(got, want, REC) == 0,
                 "%s: a write made before this rank's %s is not in the file when the call returns "
                 "(%zd bytes read)",
                 what, closing ? "close" : "sync", n);
        if (fd >= 0)
            close(fd);
    }
    if (!closing)
        CT_MPI(MPI_File_close(&fh));
}

int main(int argc, char **argv)
{
    ct_init(&argc, &argv, "FILE [KEY=VALUE...]");
    if (ct_nprocs < 2) {
        if (ct_rank == 0)
            printf("needs at least 2 processes: nothing to test with 1\n");
        return ct_finish();
    }
    cases_1_to_3(argv[1]);
    case_4(argv[1]);
    cases_5_6(argv[1]);
    case_7(argv[1]);
    late_write(argv[1], 0, "durable"); /* case 8 */
    late_write(argv[1], 1, "closed");  /* case 9 */
    case_10(argv[1]);
    return ct_finish();
}
