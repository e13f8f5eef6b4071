/*
 * edonio cache test: collective writes across nodes that each process makes itself, and the ones
 * that must go through the owners (ad_edonio_io_coll.c, plan_write).
 *
 *   t_coll_direct FILE [KEY=VALUE...] [test_direct=1]
 *
 * Blocks of 4 KiB; requests of 8 KiB or more pass the cache (romio_edonio_write_through=8192).
 * Rank r's region is NCH chunks of 8 KiB at r * REGION; its blocks belong to every rank in turn.
 * After each collective write every rank reads what was written at once, without a sync, and must
 * find at least the bytes that a pass through the owners lets it see then (seen_at_once; all of
 * them on one node, and after a direct call); after a sync, and after reopening, all of them.
 * romio_edonio_stats_coll_rounds says whether the call went through the owners' exchange (rounds)
 * or each process wrote its own (none).
 *
 * 1. direct:  each rank writes its region, a chunk per MPI_File_write_at_all. Every piece goes
 *             to the file anyway and no segment holds a block: no round, across nodes too, and
 *             every byte seen at once (test_direct=0 expects rounds instead, and only what
 *             seen_at_once says, for hints under which the pieces would stay in the cache).
 * 2. owner:   with romio_edonio_read_fill=block every rank reads the whole file (each owner keeps
 *             a copy of its blocks, each node of the others'), then each rank writes the next
 *             rank's region in one collective call. Across nodes that call must go through the
 *             owners (rounds): written straight to the file, the owners' copies would go stale and
 *             their nodes' reads return the old bytes. After a sync (which drops clean copies)
 *             the next collective write is direct again.
 * 3. pending: a rank on another node than rank 0 writes 100 bytes of block 0 (rank 0's)
 *             independently: across nodes they wait in its node's remote segment. Then a rank
 *             on a third node if there is one (else that one) writes blocks 0-1 whole in a
 *             collective call. Its bytes must win (the earlier write is delivered first, as
 *             through the owners), at once and after the sync.
 * 4. late:    (three nodes, the last with two processes: run.sh's 1+1+2) a process that reads or
 *             writes a block in its node peer's segments after the peer answered for them.
 * 5. mixed:   rank 0's small piece of its own block and another node's large piece of the same
 *             block in one call: both seen at once, as through the owners.
 * 6. strided: a strided file view and memory with gaps (cut into cb_buffer_size pieces).
 * Seen to fail: with ADIOI_EDONIO_Cache_may_hold answering 0, cases 2 and 3 (stale bytes; no
 * round); with ADIOI_EDONIO_Cache_may_deliver answering 0, case 3 ("pending, after sync": the
 * earlier write delivered over the collective's bytes); with every write taken as direct
 * (ADIOI_EDONIO_Cache_write_direct answering 1), the test_direct=0 runs (no round); with only the
 * pieces of other nodes' blocks counted (the rule first built), "mixed, at once" (rank 0's bytes
 * not in the file); without the check of memory with gaps, "strided, at once" in the whole-blocks
 * runs (4 KiB pieces waiting in remote segments); with no slot taken in a peer's segment counted,
 * "late read, round 0" (a remote segment) and "late read, round 8" (the peer's own); with no write
 * into a peer's remote segment counted, "late write, round 3" (delivered at the sync, over the
 * collective's bytes); with the count not cleared at a collective flush, "owner, after the sync"
 * at 2x2 (a round where none was needed).
 */
#include "cache_test.h"

#include <time.h>

enum { BS = 4096, CH = 2 * BS, NCH = 6, REGION = NCH * CH };

static void fill(unsigned char *buf, long long off, long long len, int version)
{
    for (long long k = 0; k < len; k++)
        buf[k] = ct_pattern(off + k, version);
}

static MPI_File open_with(const char *filename, int amode, const char *read_fill)
{
    MPI_Info info = ct_info("romio_edonio_block_size", "4096", "romio_edonio_write_through", "8192",
                            "romio_edonio_read_fill", read_fill, NULL);
    MPI_File fh;

    CT_MPI(MPI_File_open(MPI_COMM_WORLD, filename, amode, info, &fh));
    MPI_Info_free(&info);
    return fh;
}

static int *node_of, nnodes; /* each rank's node, and how many (ct_nodes) */

/*
 * Without a sync, what a collective write through the owners lets a reader see at once (and so
 * must a direct one): its own bytes; bytes written into a block owned on another node than the
 * writer's (the owner writes them back at once, and no copy on any node predates them); bytes
 * written into a block owned on the reader's node (in its owner's segment). Bytes a process wrote
 * into its own node's blocks may stay in their owners' segments until the sync (MPI-3.1 13.6.1).
 */
static int seen_at_once(long long block, int writer)
{
    int owner = (int)(block % ct_nprocs);

    return writer == ct_rank || node_of[owner] != node_of[writer] ||
           node_of[owner] == node_of[ct_rank];
}

/*
 * Every region, block by block: region r holds version[r], written by rank (r - shift) mod P; with
 * 'at_once' (no sync since the write) only the bytes seen_at_once.
 */
static void check_all(MPI_File fh, const int *version, int shift, int at_once, const char *what)
{
    unsigned char *buf = malloc(REGION), *want = malloc(REGION);

    for (int r = 0; r < ct_nprocs; r++) {
        long long off = (long long)r * REGION;
        int writer = (r - shift + ct_nprocs) % ct_nprocs;
        memset(buf, 0xee, REGION);
        fill(want, off, REGION, version[r]);
        ct_read_at(fh, off, buf, REGION, REGION, what);
        for (long long b = off / BS; b < (off + REGION) / BS; b++)
            if (!at_once || seen_at_once(b, writer))
                ct_compare(what, buf + (b * BS - off), want + (b * BS - off), b * BS, BS);
    }
    free(buf);
    free(want);
}

static void all_versions(int *version, int v)
{
    for (int r = 0; r < ct_nprocs; r++)
        version[r] = v;
}

/* The rounds a collective write took here: 0 (each process wrote its own) or more, as expected. */
static void check_rounds(MPI_File fh, long long before, int direct, const char *what)
{
    long long rounds = ct_stat(fh, "coll_rounds") - before;

    if (ct_one_node()) /* romio_edonio_coll_path=auto: each process writes its own */
        direct = 1;
    if (direct)
        CT_CHECK(rounds == 0,
                 "%s: the collective write took %lld rounds through the owners, "
                 "expected none (each process writes its own)",
                 what, rounds);
    else
        CT_CHECK(rounds > 0, "%s: the collective write took no round through the owners", what);
}

static void case_direct(const char *filename, int *version)
{
    unsigned char *buf = malloc(CH);
    MPI_File fh;

    ct_fresh(filename);
    fh = open_with(filename, MPI_MODE_CREATE | MPI_MODE_RDWR, "none");
    for (int k = 0; k < NCH; k++) {
        long long off = (long long)ct_rank * REGION + (long long)k * CH,
                  before = ct_stat(fh, "coll_rounds");
        fill(buf, off, CH, 1);
        CT_MPI(MPI_File_write_at_all(fh, off, buf, CH, MPI_BYTE, MPI_STATUS_IGNORE));
        check_rounds(fh, before, (int)ct_opt_ll("direct", 1), "direct");
    }
    all_versions(version, 1);
    check_all(fh, version, 0, !ct_opt_ll("direct", 1), "direct, at once"); /* direct: all */
    ct_sync(fh);
    check_all(fh, version, 0, 0, "direct, after sync");
    CT_MPI(MPI_File_close(&fh));
    free(buf);
}

static void case_owner(const char *filename, int *version)
{
    unsigned char *buf = malloc(REGION);
    int next = (ct_rank + 1) % ct_nprocs;
    long long off = (long long)next * REGION, before;
    MPI_File fh = open_with(filename, MPI_MODE_RDWR, "block");

    check_all(fh, version, 0, 0, "owner, before"); /* every block cached by its owner or node */
    MPI_Barrier(MPI_COMM_WORLD);
    fill(buf, off, REGION, 2);
    before = ct_stat(fh, "coll_rounds");
    CT_MPI(MPI_File_write_at_all(fh, off, buf, REGION, MPI_BYTE, MPI_STATUS_IGNORE));
    check_rounds(fh, before, 0, "owner, over cached copies");
    all_versions(version, 2);
    check_all(fh, version, 1, 1, "owner, at once (no sync)");
    ct_sync(fh); /* drops every clean copy: nothing cached any more */
    off = (long long)ct_rank * REGION;
    fill(buf, off, REGION, 3);
    before = ct_stat(fh, "coll_rounds");
    CT_MPI(MPI_File_write_at_all(fh, off, buf, REGION, MPI_BYTE, MPI_STATUS_IGNORE));
    check_rounds(fh, before, 1, "owner, after the sync");
    all_versions(version, 3);
    check_all(fh, version, 0, 0, "owner, after the sync, at once"); /* direct: all of it */
    CT_MPI(MPI_File_close(&fh));
    free(buf);
}

/* Rank 0's block 0: written by 'pending' (independently), then by 'writer' (collectively). */
static void case_pending(const char *filename, int *version)
{
    int pending = ct_nprocs - 1, writer = -1;
    unsigned char *buf = malloc(REGION);
    long long before;

    for (int r = ct_nprocs - 1; r > 0 && writer < 0; r--)
        if (node_of[r] != node_of[0] && node_of[r] != node_of[pending])
            writer = r;
    if (writer < 0)
        writer = pending;
    MPI_File fh = open_with(filename, MPI_MODE_RDWR, "none");
    if (ct_rank == pending) {
        fill(buf, 100, 100, 4);
        CT_MPI(MPI_File_write_at(fh, 100, buf, 100, MPI_BYTE, MPI_STATUS_IGNORE));
    }
    /* The host's barrier: edonio's MPI_Barrier would deliver the write (doc/design.md, "What a
     * barrier hands over"), and this case is about a write still waiting in a remote segment. */
    PMPI_Barrier(MPI_COMM_WORLD);
    fill(buf, 0, CH, 5);
    before = ct_stat(fh, "coll_rounds");
    CT_MPI(
        MPI_File_write_at_all(fh, 0, buf, ct_rank == writer ? CH : 0, MPI_BYTE, MPI_STATUS_IGNORE));
    if (nnodes > 1 && pending != 0) /* pieces wait in a remote segment: through the owners */
        check_rounds(fh, before, 0, "pending");
    /* Region 0 now: blocks 0-1 of version 5, the rest as before. */
    unsigned char *want = malloc(REGION);
    for (int pass = 0; pass < 2; pass++) {
        const char *what = pass == 0 ? "pending, at once (no sync)" : "pending, after sync";
        if (pass == 1)
            ct_sync(fh);
        fill(want, 0, CH, 5);
        fill(want + CH, CH, REGION - CH, version[0]);
        memset(buf, 0xee, REGION);
        ct_read_at(fh, 0, buf, REGION, REGION, what);
        for (long long b = 0; b < REGION / BS; b++)
            if (pass == 1 || b >= CH / BS || seen_at_once(b, writer))
                ct_compare(what, buf + b * BS, want + b * BS, b * BS, BS);
    }
    CT_MPI(MPI_File_close(&fh));
    fh = open_with(filename, MPI_MODE_RDONLY, "none");
    memset(buf, 0xee, REGION);
    ct_read_at(fh, 0, buf, REGION, REGION, "pending, reopened");
    ct_compare("pending, reopened", buf, want, 0, REGION);
    CT_MPI(MPI_File_close(&fh));
    free(want);
    free(buf);
}

/*
 * Case 5: in one call, rank 0 writes 100 bytes of its own block 0 (they take the cache), and a
 * rank on another node the rest of the block and the next one (8 KiB: they would pass it). Through
 * the owners rank 0 writes block 0 back at once, since another node wrote into it: every rank
 * reads both pieces at once. So a small piece anywhere, of any node's block, keeps the call on the
 * owners' way.
 */
static void case_mixed(const char *filename)
{
    int writer = -1;
    unsigned char buf[CH], want[BS];
    long long before;

    for (int r = ct_nprocs - 1; r > 0 && writer < 0; r--)
        if (node_of[r] != node_of[0])
            writer = r;
    MPI_File fh = open_with(filename, MPI_MODE_RDWR, "none");
    long long off = ct_rank == 0 ? 0 : 100, len = ct_rank == 0 ? 100 : ct_rank == writer ? CH : 0;
    fill(buf, off, len, 6);
    before = ct_stat(fh, "coll_rounds");
    CT_MPI(MPI_File_write_at_all(fh, off, buf, (int)len, MPI_BYTE, MPI_STATUS_IGNORE));
    if (writer > 0)
        check_rounds(fh, before, 0, "mixed");
    fill(want, 0, writer > 0 ? BS : 100, 6);
    memset(buf, 0xee, BS);
    ct_read_at(fh, 0, buf, writer > 0 ? BS : 100, writer > 0 ? BS : 100, "mixed, at once");
    ct_compare("mixed, at once (no sync)", buf, want, 0, writer > 0 ? BS : 100);
    CT_MPI(MPI_File_close(&fh));
}

/*
 * Case 6: a strided file view (every rank a chunk of 8 KiB in turn) and a strided memory type (a
 * gap after every 4 KiB), each rank all its chunks in one call. Memory with gaps goes by pieces of
 * at most cb_buffer_size bytes (run.sh's whole-blocks runs give 4096: pieces too small to move
 * directly, which must go through the owners). Read at once, seen_at_once; after a sync, all.
 */
static void case_strided(const char *filename)
{
    MPI_Datatype chunk, view, mem;
    unsigned char *mbuf = malloc(2 * (size_t)REGION), *buf = malloc(REGION), *want = malloc(REGION);
    MPI_File fh = open_with(filename, MPI_MODE_RDWR, "none");

    MPI_Type_contiguous(CH, MPI_BYTE, &chunk);
    MPI_Type_create_resized(chunk, 0, (MPI_Aint)CH * ct_nprocs, &view);
    MPI_Type_commit(&view);
    MPI_Type_vector(REGION / BS, BS, 2 * BS, MPI_BYTE, &mem);
    MPI_Type_commit(&mem);
    CT_MPI(
        MPI_File_set_view(fh, (MPI_Offset)ct_rank * CH, MPI_BYTE, view, "native", MPI_INFO_NULL));
    for (int k = 0; k < NCH; k++) /* chunk k of this rank: file bytes at (k P + rank) CH */
        for (int h = 0; h < 2; h++)
            fill(mbuf + (2 * k + h) * 2 * BS, ((long long)k * ct_nprocs + ct_rank) * CH + h * BS,
                 BS, 7);
    CT_MPI(MPI_File_write_at_all(fh, 0, mbuf, 1, mem, MPI_STATUS_IGNORE));
    CT_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    for (int pass = 0; pass < 2; pass++) {
        const char *what = pass == 0 ? "strided, at once (no sync)" : "strided, after sync";
        if (pass == 1)
            ct_sync(fh);
        for (int r = 0; r < ct_nprocs; r++)
            for (int k = 0; k < NCH; k++) {
                long long off = ((long long)k * ct_nprocs + r) * CH;
                memset(buf, 0xee, CH);
                fill(want, off, CH, 7);
                ct_read_at(fh, off, buf, CH, CH, what);
                for (long long b = off / BS; b < (off + CH) / BS; b++)
                    if (pass == 1 || seen_at_once(b, r))
                        ct_compare(what, buf + (b * BS - off), want + (b * BS - off), b * BS, BS);
            }
    }
    CT_MPI(MPI_File_close(&fh));
    MPI_Type_free(&chunk);
    MPI_Type_free(&view);
    MPI_Type_free(&mem);
    free(mbuf);
    free(buf);
    free(want);
}

/*
 * Case 4: the last rank L, which shares its node with a peer, comes late to collective writes by a
 * rank W of blocks owned by a rank O, W on another node than O and L: the others are in the call
 * (and have answered for their segments) before L, after a sleep, reads such a block (a clean copy
 * in its peer's own segment when O is the peer, else in one of its node's remote segments, perhaps
 * the peer's) or writes 100 bytes of it (dirty there). Either must keep the call on the owners'
 * way (and its delivery first), so that L then reads W's bytes without a sync, and they are the
 * file's after it. Rounds over blocks of three owners in turn: the node spreads other nodes'
 * blocks over its processes' remote segments, so some land in the peer's. Only L's own account of
 * what it put in its peer's segments (ADIOI_EDONIO_Cache_may_hold, _may_deliver) reports those in
 * time (were the others slower than the sleep, the peer would see them itself: the case would pass
 * without testing that). Each round ends with a sync, which leaves every segment empty.
 */
static void case_late(const char *filename)
{
    int late = ct_nprocs - 1, owners[3], nowners = 0, peer = -1;
    unsigned char *buf = malloc(CH), *want = malloc(CH);

    for (int r = 0; r < late; r++) {
        if (node_of[r] == node_of[late] && peer < 0)
            peer = r;
        if (node_of[r] != node_of[late] && nowners < 2 &&
            (nowners == 0 || node_of[r] != node_of[owners[0]]))
            owners[nowners++] = r;
    }
    if (peer < 0 || nowners < 2) {
        free(buf);
        free(want);
        return; /* needs three nodes, the last with two processes */
    }
    owners[nowners++] = peer;
    MPI_File fh = open_with(filename, MPI_MODE_RDWR, "block");
    for (int k = 0; k < 10; k++) {
        int owner = owners[k % 3], writer = owner == owners[0] ? owners[1] : owners[0];
        int version = 10 + k, reading = k / 3 % 2 == 0;
        long long off = (owner + (long long)(k + 1) * ct_nprocs) * BS; /* owner's, in the file */
        char what[64];
        snprintf(what, sizeof(what), "late %s, round %d", reading ? "read" : "write", k);
        if (ct_rank == late) {
            nanosleep(&(struct timespec){0, 200000000}, NULL); /* the others are in the call */
            if (reading)
                ct_read_at(fh, off, buf, BS, BS, what);
            else
                CT_MPI(MPI_File_write_at(fh, off + 100, buf, 100, MPI_BYTE, MPI_STATUS_IGNORE));
        }
        fill(buf, off, CH, version);
        CT_MPI(MPI_File_write_at_all(fh, off, buf, ct_rank == writer ? CH : 0, MPI_BYTE,
                                     MPI_STATUS_IGNORE));
        fill(want, off, CH, version);
        if (ct_rank == late) {
            memset(buf, 0xee, CH);
            ct_read_at(fh, off, buf, BS, BS, what); /* the owner's block: seen at once */
            ct_compare(what, buf, want, off, BS);
        }
        ct_sync(fh);
        memset(buf, 0xee, CH);
        ct_read_at(fh, off, buf, CH, CH, what);
        ct_compare(what, buf, want, off, CH);
        ct_sync(fh); /* and the copies those reads kept are gone: the next round starts empty */
    }
    CT_MPI(MPI_File_close(&fh));
    free(buf);
    free(want);
}

int main(int argc, char **argv)
{
    int *version;

    ct_init(&argc, &argv, "FILE [KEY=VALUE...] [test_direct=1]");
    version = malloc((size_t)ct_nprocs * sizeof(int));
    node_of = ct_nodes(&nnodes);
    case_direct(argv[1], version);
    if (ct_opt_ll("direct", 1)) { /* the others need hints under which writes go direct */
        case_owner(argv[1], version);
        case_pending(argv[1], version);
        case_late(argv[1]);
        case_mixed(argv[1]);
    }
    case_strided(argv[1]);
    free(version);
    free(node_of);
    return ct_finish();
}
