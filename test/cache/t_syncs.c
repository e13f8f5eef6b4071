/*
 * edonio cache test: how many collective operations a collective read or write makes, each
 * process counting its own. Each one makes every process wait for the slowest and costs
 * O(log P) steps, so a collective call should make as few as it needs (ad_edonio_io_coll.c).
 *
 *   t_syncs FILE [KEY=VALUE...]
 *
 * The program defines the MPI collectives edonio and ROMIO call (MPI_Allreduce, MPI_Ibarrier,
 * ..., and their PMPI_ names) and counts them before calling the MPI library's: the preloaded
 * library's calls resolve to the program's definitions first (run.sh links it with -rdynamic,
 * which exports them). A collective call that counts none fails the test (the counting would not
 * be working). Blocks of 64 KiB (the default), romio_edonio_write_through=0: every piece takes the
 * cache, so across nodes the calls go through the owners' exchange. For comparison, ufs makes 2
 * collectives in case 1 (ROMIO's two-phase write: its requests do not interleave).
 *
 * One node (every process reaches every owner in memory):
 * 1. a collective write: each process puts its pieces in place itself; 1 collective (the
 *    agreement on the outcome), no exchange round;
 * 2. a collective read: 1 (the agreement).
 * Across nodes:
 * 1. a collective write of 100 bytes a process, one round: 3 (plan_write's reduction, which also
 *    finds the round's window; the exchange's barrier; the agreement);
 * 2. 256 KiB a process with cb_buffer_size=65536, R rounds: 2R + 1 (a window reduction and a
 *    barrier a round, the first window found by plan_write's reduction, none after the last);
 * 3. an independent write that waits in a remote segment, then a collective write: the delivery
 *    first (its rounds, and a reduction after its last: whether any process failed) then the
 *    write's rounds: 2R + 2 over both;
 * 4. a collective read: 1.
 * Where the processes crowd the machine (more of them than the processors their affinity masks
 * allow, or than EDONIO_TEST_CPUS, which run.sh sets to try both ways on any machine), none of
 * these may be a blocking collective (ad_edonio_common.c: each process waits in a nonblocking one,
 * giving its processor away); elsewhere the agreement is MPI's blocking call. run.sh also runs it
 * with both processes confined to the first processor the job may run on (crowded: 2 processes,
 * 1 processor) and each bound to a processor of its own (not crowded), and says which with
 * EDONIO_TEST_EXPECT_CROWDED.
 * Seen to fail: with every wait blocking, at 3 and 4 processes on 2 processors ("1 blocking
 * collectives among 4 processes on 2 processors"). On the code before (a reduction of its own for
 * the pass's first window, and one after the last round), cases 1-3 across nodes (5, 2R + 3,
 * 2R + 4); with plan_write's window not used, the same cases (4, 2R + 2, 2R + 3).
 */
#define _GNU_SOURCE /* RTLD_NEXT */
#include "cache_test.h"

#include <dlfcn.h>
#include <sched.h>

static long long collectives, blocking;

/*
 * Each collective twice, as MPI_X and PMPI_X (ROMIO's code calls most of them by their profiling
 * names), both counting, both calling the MPI library's PMPI_X, found past this program.
 */
#define COUNTED(NAME, PARAMS, ARGS)     COUNTED_AS(NAME, PARAMS, ARGS, 1)
#define NONBLOCKING(NAME, PARAMS, ARGS) COUNTED_AS(NAME, PARAMS, ARGS, 0)
#define COUNTED_AS(NAME, PARAMS, ARGS, BLOCKS)                                                     \
    static int call_##NAME PARAMS                                                                  \
    {                                                                                              \
        static int(*real) PARAMS;                                                                  \
        collectives++;                                                                             \
        blocking += BLOCKS;                                                                        \
        if (real == NULL)                                                                          \
            *(void **)&real = dlsym(RTLD_NEXT, "PMPI_" #NAME);                                     \
        return real ARGS;                                                                          \
    }                                                                                              \
    int MPI_##NAME PARAMS                                                                          \
    {                                                                                              \
        return call_##NAME ARGS;                                                                   \
    }                                                                                              \
    int PMPI_##NAME PARAMS                                                                         \
    {                                                                                              \
        return call_##NAME ARGS;                                                                   \
    }

COUNTED(Allreduce,
        (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm),
        (sbuf, rbuf, count, type, op, comm))
NONBLOCKING(Iallreduce,
            (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
             MPI_Request *req),
            (sbuf, rbuf, count, type, op, comm, req))
COUNTED(Allgather,
        (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
         MPI_Datatype rtype, MPI_Comm comm),
        (sbuf, scount, stype, rbuf, rcount, rtype, comm))
NONBLOCKING(Iallgather,
            (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
             MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req),
            (sbuf, scount, stype, rbuf, rcount, rtype, comm, req))
COUNTED(Alltoall,
        (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
         MPI_Datatype rtype, MPI_Comm comm),
        (sbuf, scount, stype, rbuf, rcount, rtype, comm))
COUNTED(Barrier, (MPI_Comm comm), (comm))
NONBLOCKING(Ibarrier, (MPI_Comm comm, MPI_Request *req), (comm, req))
COUNTED(Bcast, (void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm),
        (buf, count, type, root, comm))
COUNTED(Reduce,
        (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
         MPI_Comm comm),
        (sbuf, rbuf, count, type, op, root, comm))

enum { BS = 65536, SMALL = 100, LARGE = 4 * BS };

static unsigned char buf[LARGE];

/* The processors this process may run on, as the library counts them (EDONIO_TEST_CPUS,
 * test-only, in their place). */
static long cpus(void)
{
    const char *test = getenv("EDONIO_TEST_CPUS");
    cpu_set_t set;

    if (test != NULL)
        return atol(test);
    return sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set)
                                                        : sysconf(_SC_NPROCESSORS_ONLN);
}

/* Do this run's processes crowd this machine? What run.sh says (a binding), else: more of them
 * than the processors one of them may run on (no binding: all of them may run on those). */
static int crowded(void)
{
    const char *expect = getenv("EDONIO_TEST_EXPECT_CROWDED");

    return expect != NULL ? atoi(expect) : ct_nprocs > cpus();
}

/*
 * One collective call's count on this process: must be want (any count when want < 0); and where
 * the processes crowd the machine, none of them may be a blocking one.
 */
static void check(const char *what, long long before, long long before_blocking, long long want)
{
    long long got = collectives - before, blocked = blocking - before_blocking;

    CT_CHECK(got > 0,
             "%s: no collective counted: the program's MPI_Allreduce and the others are "
             "not the ones the library calls",
             what);
    CT_CHECK(want < 0 || got == want, "%s: %lld collective operations, expected %lld", what, got,
             want);
    CT_CHECK(!crowded() || blocked == 0,
             "%s: %lld blocking collectives among %d processes on %ld processors (crowded: each "
             "waits in a nonblocking one, giving its processor away)",
             what, blocked, ct_nprocs, cpus());
    CT_CHECK(crowded() || blocked > 0,
             "%s: no blocking collective among %d processes on %ld processors (not crowded: "
             "the agreement is MPI's blocking call)",
             what, ct_nprocs, cpus());
}

static MPI_File open_file(const char *filename, const char *cb_buffer_size)
{
    MPI_Info info =
        ct_info("cb_buffer_size", cb_buffer_size, "romio_edonio_write_through", "0", NULL);
    MPI_File fh;

    CT_MPI(MPI_File_open(MPI_COMM_WORLD, filename, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    MPI_Info_free(&info);
    return fh;
}

/* A collective write of len bytes at off: its count must be 2 * rounds + extra (1 and no round
 * on one node). */
static void write_all(MPI_File fh, const char *what, long long off, int len, long long extra)
{
    long long rounds = ct_stat(fh, "coll_rounds"), before = collectives, held = blocking;

    memset(buf, ct_rank + 1, (size_t)len);
    CT_MPI(MPI_File_write_at_all(fh, off, buf, len, MPI_BYTE, MPI_STATUS_IGNORE));
    long long got = collectives;
    rounds = ct_stat(fh, "coll_rounds") - rounds;
    if (ct_one_node()) {
        CT_CHECK(rounds == 0, "%s: %lld exchange rounds on one node, expected none", what, rounds);
        check(what, before, held, 1);
    } else {
        CT_CHECK(rounds > 0, "%s: no exchange round across nodes", what);
        check(what, before, held, 2 * rounds + extra);
    }
    if (ct_rank == 0)
        printf("%s: %lld collectives, %lld rounds\n", what, got - before, rounds);
}

int main(int argc, char **argv)
{
    long long before;

    ct_init(&argc, &argv, "FILE [KEY=VALUE...]");
    const char *filename = argv[1];
    (void)ct_one_node(); /* its collectives before any counting */
    ct_fresh(filename);

    MPI_File fh = open_file(filename, "16777216");
    write_all(fh, "one round", (long long)ct_rank * BS + 10, SMALL, 1);
    MPI_File_close(&fh);

    fh = open_file(filename, "65536");
    write_all(fh, "several rounds", (long long)ct_rank * 8 * BS + 10, LARGE, 1);
    /* waits in a remote segment across nodes: the next process's block */
    long long mine = (long long)((ct_rank + 1) % ct_nprocs) * BS + 2000;
    CT_MPI(MPI_File_write_at(fh, mine, buf, SMALL, MPI_BYTE, MPI_STATUS_IGNORE));
    write_all(fh, "after an independent write", (long long)ct_rank * BS + 5000, SMALL, 2);

    before = collectives;
    long long held = blocking;
    CT_MPI(MPI_File_read_at_all(fh, (long long)ct_rank * BS, buf, BS, MPI_BYTE, MPI_STATUS_IGNORE));
    check("read", before, held, 1);
    MPI_File_close(&fh);
    return ct_finish();
}
