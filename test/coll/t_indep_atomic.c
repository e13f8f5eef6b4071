/*
 * edonio atomic-mode test: independent writes and reads in MPI atomic mode are atomic.
 *
 *   t_indep_atomic FILE [KEY=VALUE...] [test_OPTION=VALUE...]
 *
 * Writers (the even ranks; at 2 ranks both) write, test_iters times (50), a region of 5 cache
 * blocks (romio_edonio_block_size=4096, the test's own hint) with MPI_File_write_at, each write
 * with a byte of its own (writer and iteration). Writer k's region starts at k * 11000, so
 * neighbouring writers overlap in 9480 bytes (across 3 blocks of 3 owners, not aligned), and each
 * writer has some bytes of its own.
 * Readers (the odd ranks; at 2 ranks both) read the overlaps with MPI_File_read_at meanwhile: every
 * read must return one value throughout (one write, or the initial bytes), never a mix. After
 * sync-barrier-sync every overlap must hold one writer's last byte throughout, and the rest of
 * each region its writer's last byte; rank 0 checks that again with POSIX reads after close.
 * At 1 rank the one process writes and reads (nothing concurrent: the checks still run).
 * With test_coll_read=1 the reads are collective (MPI_File_read_at_all, every rank each iteration,
 * the writers with nothing to read): a collective read must never see half of an independent
 * atomic write that another process makes before it enters the call.
 * Options: test_atomic=1 (0: non-atomic mode, where MPI allows torn reads and results, but the
 * checks stay: that is how the test is seen to fail, e.g. on ufs at 2 ranks) test_iters=50.
 */
#include "coll_test.h"

enum { BLK = 4096, REGION = 5 * BLK, SHIFT = 11000, INIT = 0xee };

static int nwriters, iters;

static int is_writer(int r)
{
    return ct_nprocs <= 2 || r % 2 == 0;
}

static int is_reader(int r)
{
    return ct_nprocs <= 2 || r % 2 == 1;
}

static unsigned char byte_of(int k, int it)
{
    return (unsigned char)(1 + (k * iters + it) % 230); /* never INIT (0xee = 238) */
}

/* All len bytes equal? The first value in *v. */
static int uniform(const unsigned char *b, long long len, unsigned char *v)
{
    *v = b[0];
    for (long long i = 1; i < len; i++)
        if (b[i] != b[0])
            return 0;
    return 1;
}

/* Describe a torn buffer: its runs of equal bytes (the first few). */
static void describe(const char *what, const unsigned char *b, long long len, long long off)
{
    char s[400];
    int n = 0, runs = 0;

    for (long long i = 0; i < len && runs < 8; runs++) {
        long long j = i;
        while (j < len && b[j] == b[i])
            j++;
        n += snprintf(s + n, sizeof(s) - (size_t)n, " [%lld,%lld)=%d", off + i, off + j, b[i]);
        i = j;
    }
    ct_error("%s: torn: runs%s", what, s);
}

int main(int argc, char **argv)
{
    const char *name;
    MPI_File fh;
    MPI_Info info;
    unsigned char *buf, *init;
    long long end;
    int atomic, coll_read, k_mine = -1, torn_reads = 0, reads = 0;
    char what[200];

    ct_init(&argc, &argv, "FILE [KEY=VALUE...] [test_OPTION=VALUE...]");
    name = argv[1];
    atomic = (int)ct_opt_ll("atomic", 1);
    iters = (int)ct_opt_ll("iters", 50);
    coll_read = (int)ct_opt_ll("coll_read", 0);
    nwriters = 0;
    for (int r = 0; r < ct_nprocs; r++)
        if (is_writer(r)) {
            if (r == ct_rank)
                k_mine = nwriters;
            nwriters++;
        }
    end = (long long)(nwriters - 1) * SHIFT + REGION;
    buf = co_malloc(REGION);
    init = co_malloc((size_t)end);
    memset(init, INIT, (size_t)end);

    ct_fresh(name);
    info = ct_info("romio_edonio_block_size", "4096", NULL);
    fh = co_open(name, MPI_MODE_CREATE | MPI_MODE_RDWR, info, "open");
    if (fh == MPI_FILE_NULL)
        return ct_finish();
    /* The initial bytes, then atomic mode. */
    if (ct_rank == 0)
        ct_write_at(fh, 0, init, end, "initial write");
    ct_sync(fh);
    CT_MPI(MPI_File_set_atomicity(fh, atomic));

    for (int it = 0; it < iters; it++) {
        if (k_mine >= 0) {
            memset(buf, byte_of(k_mine, it), REGION);
            snprintf(what, sizeof(what), "writer %d iteration %d", k_mine, it);
            ct_write_at(fh, (long long)k_mine * SHIFT, buf, REGION, what);
        }
        if (coll_read && !(is_reader(ct_rank) && nwriters > 1)) /* nothing to read: take part */
            CT_MPI(MPI_File_read_at_all(fh, 0, buf, 0, MPI_BYTE, MPI_STATUS_IGNORE));
        if (is_reader(ct_rank) && nwriters > 1) {
            /* Overlap of writers j and j+1: [(j+1) SHIFT, j SHIFT + REGION). */
            int j = (ct_rank / 2 + it) % (nwriters - 1);
            long long off = (long long)(j + 1) * SHIFT, len = REGION - SHIFT;
            unsigned char v;
            memset(buf, 0, (size_t)len);
            snprintf(what, sizeof(what), "read %d of the overlap of writers %d and %d", it, j,
                     j + 1);
            if (coll_read)
                CT_MPI(MPI_File_read_at_all(fh, off, buf, (int)len, MPI_BYTE, MPI_STATUS_IGNORE));
            else
                ct_read_at(fh, off, buf, len, len, what);
            reads++;
            if (!uniform(buf, len, &v)) {
                torn_reads++;
                describe(what, buf, len, off);
            }
        }
    }
    if (torn_reads)
        fprintf(stderr, "rank %d: %s mode: %d of %d reads torn\n", ct_rank,
                atomic ? "atomic" : "non-atomic", torn_reads, reads);

    /* The final contents, through MPI-IO, then (rank 0) through POSIX after close. */
    ct_sync(fh);
    for (int pass = 0; pass < 2; pass++) {
        unsigned char *f = co_malloc((size_t)end);
        if (pass == 0) {
            memset(f, 0, (size_t)end);
            ct_read_at(fh, 0, f, end, end, "final read");
        } else {
            CT_MPI(MPI_File_close(&fh));
            MPI_Barrier(MPI_COMM_WORLD);
            if (ct_rank != 0 || co_pread(name, 0, f, end) < 0) {
                CT_CHECK(ct_rank != 0, "cannot read %s back with POSIX read", name);
                free(f);
                break;
            }
            CT_CHECK(co_file_size(name) == end, "file size %lld, expected %lld",
                     co_file_size(name), end);
        }
        for (int k = 0; k < nwriters; k++) {
            /* Writer k alone: from the end of the overlap with k-1 to the start of k+1's. */
            long long lo = k == 0 ? 0 : (long long)k * SHIFT + (REGION - SHIFT);
            long long hi = k == nwriters - 1 ? end : (long long)(k + 1) * SHIFT;
            unsigned char v;
            snprintf(what, sizeof(what), "%s: writer %d's own bytes", pass ? "POSIX" : "MPI", k);
            if (!uniform(f + lo, hi - lo, &v) || v != byte_of(k, iters - 1))
                ct_error("%s [%lld, %lld): byte %d at %lld, expected %d", what, lo, hi, v, lo,
                         byte_of(k, iters - 1));
            if (k + 1 < nwriters) {
                long long olo = (long long)(k + 1) * SHIFT, ohi = (long long)k * SHIFT + REGION;
                snprintf(what, sizeof(what), "%s: final overlap of writers %d and %d",
                         pass ? "POSIX" : "MPI", k, k + 1);
                if (!uniform(f + olo, ohi - olo, &v))
                    describe(what, f + olo, ohi - olo, olo);
                else if (v != byte_of(k, iters - 1) && v != byte_of(k + 1, iters - 1))
                    ct_error("%s: byte %d, neither writer's last", what, v);
            }
        }
        free(f);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    ct_fresh(name);
    MPI_Info_free(&info);
    free(buf);
    free(init);
    return ct_finish();
}
