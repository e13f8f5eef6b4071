/*
 * edonio cache test: a write is visible to every process after an MPI_Barrier (issue 39), with no
 * MPI_File_sync anywhere. MPI itself asks for sync-barrier-sync (MPI-3.1 13.6.1); programs written
 * for POSIX file systems, HDF5's metadata cache among them, hand bytes over with a write and a
 * barrier, and across nodes edonio keeps a write to a block owned on another node on the writer's
 * node until the next collective point. A barrier on a communicator that holds all the file's
 * processes must be such a point.
 *
 *   t_barrier FILE [KEY=VALUE...]
 *
 * The file starts with (2P + 2) blocks of known bytes (rank 0 writes them with POSIX calls before
 * the open). In each case, each rank w in turn writes 4P pieces of 1,000 bytes: one inside each
 * of the blocks 0 to 2P - 1 (blocks of every owner, twice) and one across the boundary after each;
 * the pieces of consecutive writers overlap. Then the case's barrier, then every rank reads every
 * piece of w and checks it, then the barrier again before the next writer. Two rounds over the same
 * bytes with new values (overwrites must be seen too); then the file is closed, reopened and read
 * whole. Every rank keeps the model of the file's bytes.
 *
 *   barrier     MPI_File_write_at, MPI_Barrier(MPI_COMM_WORLD), MPI_File_read_at
 *   dup         the barrier on a duplicate of MPI_COMM_WORLD
 *   file-comm   the file opened on a communicator of its own (MPI_Comm_split, ranks reversed: other
 *               owners), the barrier on a duplicate of it
 *   ibarrier    MPI_Ibarrier(MPI_COMM_WORLD) and MPI_Wait
 *   ibarrier-*  the same, completed by MPI_Test in a loop, MPI_Waitall (beside a message's
 *               requests), MPI_Waitany, MPI_Waitsome, MPI_Testall, MPI_Testany, MPI_Testsome
 *   collective  MPI_File_write_at_all (the writer its bytes, the others count 0), MPI_Barrier,
 *               independent reads
 *   view        a strided file view on every rank (8-byte elements every 24 bytes): writes and
 *               reads through it
 *   read-fill   romio_edonio_read_fill=block, and every rank reads the writer's pieces before it
 *               writes them (and a barrier), so that every node holds copies of those blocks: they
 *               must not serve the old bytes after the barrier
 * Needs 2 processes or more; meant for simulated nodes (on one node the caches are shared memory).
 */
#include "cache_test.h"

#include <fcntl.h>
#include <unistd.h>

enum { LEN = 1000, ELEM = 8, STRIDE = 24, VIEW_DISP = 100, ROUNDS = 2 };

enum handoff {
    BARRIER,
    BARRIER_DUP,
    BARRIER_FILE_DUP,
    IBARRIER,
    IBARRIER_TEST,
    IBARRIER_WAITALL,
    IBARRIER_WAITANY,
    IBARRIER_WAITSOME,
    IBARRIER_TESTALL,
    IBARRIER_TESTANY,
    IBARRIER_TESTSOME,
};

struct test_case {
    const char *name;
    enum handoff handoff;
    int collective; /* the writes are MPI_File_write_at_all, the other ranks' of count 0 */
    int view;       /* through a strided file view */
    int read_first; /* romio_edonio_read_fill=block, the pieces read by all before the write */
    int file_comm;  /* the file opened on a communicator of its own, ranks reversed */
};

static const struct test_case plain = {"plain", BARRIER, 0, 0, 0, 0}; /* no view */
static const struct test_case cases[] = {
    {"barrier", BARRIER, 0, 0, 0, 0},
    {"dup", BARRIER_DUP, 0, 0, 0, 0},
    {"file-comm", BARRIER_FILE_DUP, 0, 0, 0, 1},
    {"ibarrier", IBARRIER, 0, 0, 0, 0},
    {"ibarrier-test", IBARRIER_TEST, 0, 0, 0, 0},
    {"ibarrier-waitall", IBARRIER_WAITALL, 0, 0, 0, 0},
    {"ibarrier-waitany", IBARRIER_WAITANY, 0, 0, 0, 0},
    {"ibarrier-waitsome", IBARRIER_WAITSOME, 0, 0, 0, 0},
    {"ibarrier-testall", IBARRIER_TESTALL, 0, 0, 0, 0},
    {"ibarrier-testany", IBARRIER_TESTANY, 0, 0, 0, 0},
    {"ibarrier-testsome", IBARRIER_TESTSOME, 0, 0, 0, 0},
    {"collective", BARRIER, 1, 0, 0, 0},
    {"view", BARRIER, 0, 1, 0, 0},
    {"read-fill", BARRIER, 0, 0, 1, 0},
};

static long long bs;          /* the block size: romio_edonio_block_size's (default 64 KiB) */
static long long fsize;       /* the file's size, (2P + 2) blocks */
static unsigned char *model;  /* what every byte of the file must be */
static MPI_Comm handoff_comm; /* the communicator of the case's barrier */
static int shown;             /* the error lines this rank printed in this case */

/* The file offset of byte off of the requests (through the view when there is one). */
static long long file_of(const struct test_case *tc, long long off)
{
    return tc->view ? VIEW_DISP + off / ELEM * STRIDE + off % ELEM : off;
}

/* Count an error; say what it is, the first few of each case only (ct_error's cap is global). */
static void case_error(const char *fmt, ...)
{
    va_list ap;

    ct_errors++;
    if (shown++ >= 3)
        return;
    va_start(ap, fmt);
    ct_say(fmt, ap);
    va_end(ap);
}

/* The len bytes at file offset file_of(tc, off + i) read into buf must be the model's. */
static void compare(const struct test_case *tc, const char *what, const unsigned char *buf,
                    long long off, long long len)
{
    long long bad = 0, first = -1;

    for (long long i = 0; i < len; i++)
        if (buf[i] != model[file_of(tc, off + i)]) {
            if (first < 0)
                first = i;
            bad++;
        }
    if (bad)
        case_error("%s: %lld of %lld bytes wrong from file offset %lld (block %lld); the first at "
                   "%lld (block %lld) is %d, expected %d",
                   what, bad, len, file_of(tc, off), file_of(tc, off) / bs,
                   file_of(tc, off + first), file_of(tc, off + first) / bs, buf[first],
                   model[file_of(tc, off + first)]);
}

/* The block size a KEY=VALUE argument asks for, else edonio's default. */
static long long block_size(void)
{
    const char *key = "romio_edonio_block_size=";

    for (int i = 2; i < ct_argc; i++)
        if (strncmp(ct_argv[i], key, strlen(key)) == 0)
            return strtoll(ct_argv[i] + strlen(key), NULL, 10);
    return 65536;
}

/*
 * Piece k (0 to 4P - 1) of writer w: its offset as the requests give it. Even k: inside block
 * k / 2; odd k: across the boundary between block k / 2 and the next, its middle near the
 * boundary. Writers shift by 600 and 97 bytes: consecutive writers' pieces overlap.
 */
static long long piece_off(const struct test_case *tc, int w, int k)
{
    long long span = tc->view ? (long long)LEN / ELEM * STRIDE : LEN;
    long long b = k / 2, start;

    if (k % 2 == 0)
        start = b * bs + bs / 16 + (w * 600LL) % (bs / 4);
    else
        start = (b + 1) * bs - span / 2 + (w * 97LL) % 450 - 225;
    return tc->view ? (start - VIEW_DISP) / STRIDE * ELEM + w % ELEM : start;
}

/*
 * MPI_Ibarrier completed by one of the other calls, its request beside those of a message to the
 * next rank (so that the array forms find it among others, in either place).
 */
static void ibarrier_completed_by(enum handoff how)
{
    int next = (ct_rank + 1) % ct_nprocs, prev = (ct_rank + ct_nprocs - 1) % ct_nprocs;
    int out = ct_rank, in = -1, flag = 0, index, count, left = 3, idx[3];
    MPI_Request req[3];
    MPI_Status st[3]; /* not MPI_STATUSES_IGNORE: GCC 12 takes it for an array of size 0 */

    MPI_Irecv(&in, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, &req[0]);
    MPI_Ibarrier(MPI_COMM_WORLD, &req[1]);
    MPI_Isend(&out, 1, MPI_INT, next, 7, MPI_COMM_WORLD, &req[2]);
    switch (how) {
        case IBARRIER_TEST:
            MPI_Waitall(1, &req[0], st);
            MPI_Waitall(1, &req[2], st);
            while (!flag)
                MPI_Test(&req[1], &flag, MPI_STATUS_IGNORE);
            break;
        case IBARRIER_WAITALL:
            MPI_Waitall(3, req, st);
            break;
        case IBARRIER_TESTALL:
            while (!flag)
                MPI_Testall(3, req, &flag, st);
            break;
        case IBARRIER_WAITANY:
        case IBARRIER_TESTANY:
            for (; left > 0; left--) {
                if (how == IBARRIER_WAITANY)
                    MPI_Waitany(3, req, &index, MPI_STATUS_IGNORE);
                else
                    for (flag = 0; !flag;)
                        MPI_Testany(3, req, &index, &flag, MPI_STATUS_IGNORE);
            }
            break;
        case IBARRIER_WAITSOME:
        case IBARRIER_TESTSOME:
            while (left > 0) {
                if (how == IBARRIER_WAITSOME)
                    MPI_Waitsome(3, req, &count, idx, st);
                else
                    MPI_Testsome(3, req, &count, idx, st);
                left -= count > 0 ? count : 0;
            }
            break;
        default:
            break;
    }
    CT_CHECK(in == prev, "%s: the message from rank %d was %d", "ibarrier", prev, in);
}

/* The case's barrier: what makes writer w's bytes visible to all. */
static void handoff(const struct test_case *tc)
{
    MPI_Request req;

    switch (tc->handoff) {
        case BARRIER:
            MPI_Barrier(MPI_COMM_WORLD);
            break;
        case BARRIER_DUP:
        case BARRIER_FILE_DUP:
            MPI_Barrier(handoff_comm);
            break;
        case IBARRIER:
            MPI_Ibarrier(MPI_COMM_WORLD, &req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            break;
        default:
            ibarrier_completed_by(tc->handoff);
            break;
    }
}

/* Writer w's piece k with the bytes of seed; every rank enters it (collective writes, model). */
static void write_piece(MPI_File fh, const struct test_case *tc, int w, int k, int seed)
{
    long long off = piece_off(tc, w, k);
    unsigned char buf[LEN];

    for (int i = 0; i < LEN; i++) {
        buf[i] = ct_pattern(off + i, seed);
        model[file_of(tc, off + i)] = buf[i];
    }
    if (tc->collective) {
        int n = ct_rank == w ? LEN : 0;
        MPI_Status status;
        int count = -1;
        CT_MPI(MPI_File_write_at_all(fh, ct_rank == w ? off : 0, buf, n, MPI_BYTE, &status));
        MPI_Get_count(&status, MPI_BYTE, &count);
        CT_CHECK(count == n, "%s: collective write of %d bytes at %lld returned %d", tc->name, n,
                 off, count);
    } else if (ct_rank == w) {
        ct_write_at(fh, off, buf, LEN, tc->name);
    }
}

/* Writer w's piece k, read by this rank, must be the model's bytes. */
static void check_piece(MPI_File fh, const struct test_case *tc, int w, int k, int round,
                        const char *when)
{
    long long off = piece_off(tc, w, k);
    unsigned char buf[LEN];
    char what[160];

    snprintf(what, sizeof(what), "%s, round %d, writer %d, piece %d (%s)", tc->name, round, w, k,
             when);
    memset(buf, 0xee, LEN);
    ct_read_at(fh, off, buf, LEN, LEN, what);
    compare(tc, what, buf, off, LEN);
}

/* A strided view on every rank: 8-byte elements every 24 bytes, from byte VIEW_DISP. */
static void set_strided_view(MPI_File fh)
{
    MPI_Datatype vec, filetype;

    MPI_Type_vector(16, ELEM, STRIDE, MPI_BYTE, &vec);
    MPI_Type_create_resized(vec, 0, 16 * STRIDE, &filetype);
    MPI_Type_commit(&filetype);
    CT_MPI(MPI_File_set_view(fh, VIEW_DISP, MPI_BYTE, filetype, "native", MPI_INFO_NULL));
    MPI_Type_free(&vec);
    MPI_Type_free(&filetype);
}

/* Rank 0 writes the file's first bytes (seed 0) with POSIX calls, before anyone opens it. */
static void make_file(const char *filename)
{
    for (long long i = 0; i < fsize; i++)
        model[i] = ct_pattern(i, 0);
    if (ct_rank == 0) {
        int fd = open(filename, O_CREAT | O_TRUNC | O_WRONLY, 0644);
        CT_CHECK(fd >= 0 && pwrite(fd, model, (size_t)fsize, 0) == fsize,
                 "cannot write %s with POSIX calls", filename);
        if (fd >= 0)
            close(fd);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* After close, the whole file opened again must be the model. */
static void check_reopened(const char *filename, const struct test_case *tc)
{
    MPI_Info info = ct_info(NULL);
    MPI_File fh = MPI_FILE_NULL;
    unsigned char *buf = malloc((size_t)fsize);
    char what[80];

    snprintf(what, sizeof(what), "%s, the whole file after close and reopen", tc->name);
    CT_MPI(MPI_File_open(MPI_COMM_WORLD, filename, MPI_MODE_RDONLY, info, &fh));
    MPI_Info_free(&info);
    ct_expect_size(fh, fsize, what);
    ct_read_at(fh, 0, buf, fsize, fsize, what);
    compare(&plain, what, buf, 0, fsize);
    free(buf);
    CT_MPI(MPI_File_close(&fh));
}

/* Case ci: two rounds of every writer in turn, then the file read whole after reopen. */
static void run_case(const char *filename, int ci)
{
    const struct test_case *tc = &cases[ci];
    MPI_Comm fcomm = MPI_COMM_WORLD;
    MPI_File fh = MPI_FILE_NULL;
    MPI_Info info;
    char value[MPI_MAX_INFO_VAL + 1];
    int before = ct_errors, errors = 0;

    shown = 0;
    make_file(filename);
    if (tc->file_comm)
        MPI_Comm_split(MPI_COMM_WORLD, 0, ct_nprocs - 1 - ct_rank, &fcomm);
    handoff_comm = MPI_COMM_NULL;
    if (tc->handoff == BARRIER_DUP || tc->handoff == BARRIER_FILE_DUP)
        MPI_Comm_dup(fcomm, &handoff_comm);
    info = tc->read_first ? ct_info("romio_edonio_read_fill", "block", NULL) : ct_info(NULL);
    CT_MPI(MPI_File_open(fcomm, filename, MPI_MODE_RDWR, info, &fh));
    MPI_Info_free(&info);
    if (ct_get(fh, "romio_edonio_block_size", value)[0] != '\0')
        CT_CHECK(strtoll(value, NULL, 10) == bs, "%s: block size %s, expected %lld", tc->name,
                 value, bs);
    if (tc->view)
        set_strided_view(fh);

    for (int round = 1; round <= ROUNDS; round++)
        for (int w = 0; w < ct_nprocs; w++) {
            int seed = (ci * ROUNDS + round) * 1024 + w + 1;
            if (tc->read_first) { /* copies of the blocks on every node, then the write */
                for (int k = 0; k < 4 * ct_nprocs; k++)
                    check_piece(fh, tc, w, k, round, "before the write");
                handoff(tc);
            }
            for (int k = 0; k < 4 * ct_nprocs; k++)
                write_piece(fh, tc, w, k, seed);
            handoff(tc);
            for (int k = 0; k < 4 * ct_nprocs; k++)
                check_piece(fh, tc, w, k, round, "after the barrier");
            handoff(tc); /* no read of these bytes still running when the next writer writes */
        }

    CT_MPI(MPI_File_close(&fh));
    check_reopened(filename, tc);
    if (handoff_comm != MPI_COMM_NULL)
        MPI_Comm_free(&handoff_comm);
    if (fcomm != MPI_COMM_WORLD)
        MPI_Comm_free(&fcomm);
    before = ct_errors - before;
    MPI_Reduce(&before, &errors, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (ct_rank == 0 && errors > 0) {
        printf("case %s: %d errors\n", tc->name, errors);
        fflush(stdout);
    }
}

int main(int argc, char **argv)
{
    ct_init(&argc, &argv, "FILE [KEY=VALUE...]");
    if (ct_nprocs < 2) {
        if (ct_rank == 0)
            printf("needs at least 2 processes: nothing to test with 1\n");
        return ct_finish();
    }
    bs = block_size();
    if (bs < 4096) {
        if (ct_rank == 0)
            fprintf(stderr, "t_barrier: needs blocks of 4096 bytes or more, not %lld\n", bs);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    fsize = (2LL * ct_nprocs + 2) * bs;
    model = malloc((size_t)fsize);
    for (int ci = 0; ci < (int)(sizeof(cases) / sizeof(cases[0])); ci++)
        run_case(argv[1], ci);
    free(model);
    /* A communicator whose only barrier was its first, freed at once (libedonio_irregular's
     * schedules do that): its private duplicate completes inside MPI_Finalize, which once
     * waited on that request twice and failed an assertion of MPICH's. */
    MPI_File fh;
    MPI_Comm once;
    CT_MPI(MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    MPI_Comm_dup(MPI_COMM_WORLD, &once);
    MPI_Barrier(once);
    MPI_Comm_free(&once);
    CT_MPI(MPI_File_close(&fh));
    return ct_finish();
}
