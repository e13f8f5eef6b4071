/*
 * edonio cache test: fine-grained collective writes make file-system writes by the block, not by
 * the piece (issue 41).
 *
 *   t_coll_fine FILE [KEY=VALUE...]
 *
 * Blocks of 16 KiB, elements of 8 bytes, 32 blocks (512 KiB) in all, whatever the ranks.
 * 1. cyclic:   a 2-D array of 128 rows of 512 elements, partitioned *-cyclic (each column to rank
 *              column mod P, MPI_Type_create_darray), so that every element of a rank is a piece
 *              of its own; one MPI_File_write_all.
 * 2. shuffled: every element to a rank in a shuffled order (the same permutation on every rank),
 *              16,384 / P elements per rank in an indexed file view; NCALLS MPI_File_write_at_all
 *              of new values over the same view.
 * Counted (romio_edonio_stats_fs_writes, summed over the ranks): from before each collective write
 * to after it, and over the sync that follows the last one, at most one write per block touched
 * (plus SLACK); every byte is checked after the sync, and with POSIX after the close.
 * 3. cyclic, independent: case 1's view, one MPI_File_write per rank, then a sync; and rank 0
 *    alone writing its part (the others' elements holes). One write per block here too.
 * 4. the file of 3 read back through the view, one MPI_File_read per rank: one read per block.
 * 5. the same with read_fill=block on a read-only handle, 3 times: each block read once a node
 *    (seen to fail before the fills into a read-only cache: 4 times the file's bytes on one node
 *    at 4 ranks, each process's span read for itself).
 * 6. whole blocks held until a sync, each rank its contiguous part: on one node at most one write
 *    per process (runs of consecutive blocks; seen to fail before them: 32, one per block).
 * 7. runs far apart: rank r reads region k (2 blocks) for k mod P = r, a KiB of every 2 in it, with
 *    one MPI_File_read (the NAS BT-IO read's shape), on a read-only handle with read_fill=block
 *    and on a read-write one: a process alone on its node (every process, read-write) reads its
 *    regions only, not the regions between (seen to fail before the sieve left out gaps longer
 *    than a block: 480 KiB read for 256 KiB of regions at 2 ranks on 2 nodes).
 * 8. a collective read across nodes with read_fill=block of runs of a KiB dealt round-robin to
 *    the ranks, after each rank rewrote its first run's first 8 bytes without a sync: every rank
 *    reads its own new bytes and the file's others, and the file is read once in all (each block
 *    by its owner), not once per node (seen to fail before collective reads went through the
 *    owners: 2 MiB read for 512 KiB at 4 ranks on 4 single-process nodes; and with no delivery
 *    before the read: the rank's old bytes).
 * 9. the same read of runs past the end of the file as its cache knows it: rank 0 first appends
 *    SIZE bytes with POSIX (another program, or a write through another handle, as ufs would
 *    show); the owners must look at the file's size again, as reads through a node do (seen to
 *    fail without it: zeros).
 * Seen to fail on the code before issue 41's change, at every layout of 2 ranks or more (32 writes
 * now, or none until the sync on one node): case 1, 64,512 writes in the call at 4 ranks on 2
 * nodes (each owner applied each sender's pieces alone, one extent per element, and wrote its
 * 128 extents back one by one whenever they filled), 61,056 in the call and 3,806 at the sync at
 * 4 ranks on one node (every process putting its pieces in the owners' segments itself, the
 * extents of a block filled by interleaved pieces); case 2, 47,104 in the first call at 4 ranks
 * on one node, 48,550 on 2 nodes; with write_back=span and write_through=0 on one node, 477 and
 * 368 (a read and a write of the span for every 128 pieces).
 */
#include "cache_test.h"

#include <fcntl.h>

enum {
    BS = 16384, /* the block size */
    ELEM = 8,   /* bytes per element */
    ROWS = 128, /* case 1's array: ROWS x COLS elements */
    COLS = 512,
    NELEM = ROWS * COLS,
    SIZE = NELEM * ELEM,
    NBLOCKS = SIZE / BS,
    NCALLS = 3, /* case 2's calls */
    SLACK = 4,  /* writes allowed beyond one per block */
};

/* Element e's bytes in version v. */
static void element(unsigned char *to, long long e, int v)
{
    for (int k = 0; k < ELEM; k++)
        to[k] = ct_pattern(e * ELEM + k, v);
}

static long long fs_writes(MPI_File fh)
{
    return ct_stat_sum(fh, "fs_writes");
}

/* At most one write per block (and SLACK) since *before, which moves on. */
static void check_writes(MPI_File fh, long long *before, const char *what)
{
    long long now = fs_writes(fh), n = now - *before;

    *before = now;
    if (ct_rank != 0) /* the same sum on every rank: rank 0 says it */
        return;
    printf("%s: %lld file-system writes for %d blocks\n", what, n, NBLOCKS);
    CT_CHECK(n <= NBLOCKS + SLACK,
             "%s: %lld file-system writes for %d blocks of %d-byte pieces, at most %d expected",
             what, n, NBLOCKS, ELEM, NBLOCKS + SLACK);
}

/* The whole file, read back through MPI and, after the close, with POSIX, must be want. */
static void check_file(MPI_File *fh, const char *filename, const unsigned char *want,
                       const char *what)
{
    char label[128];

    snprintf(label, sizeof(label), "%s, after the sync", what);
    ct_read_check(*fh, want, SIZE, label);
    CT_MPI(MPI_File_close(fh));
    if (ct_rank == 0) {
        unsigned char *buf = malloc(SIZE);
        int fd = open(filename, O_RDONLY);
        snprintf(label, sizeof(label), "%s, on disk after the close", what);
        ct_disk_check(fd, buf, want, 0, SIZE, label);
        if (fd >= 0)
            close(fd);
        free(buf);
    }
}

/* Back to a byte view, sync (at most a write per block with what came before), check the file. */
static void sync_and_check(MPI_File *fh, const char *filename, const unsigned char *want,
                           long long *before, const char *what)
{
    char label[64];

    CT_MPI(MPI_File_set_view(*fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    ct_sync(*fh);
    snprintf(label, sizeof(label), "%s, the sync", what);
    check_writes(*fh, before, label);
    check_file(fh, filename, want, what);
}

static MPI_File open_fresh(const char *filename)
{
    MPI_Info info = ct_info("romio_edonio_block_size", "16384", NULL);
    MPI_File fh;

    ct_fresh(filename);
    CT_MPI(MPI_File_open(MPI_COMM_WORLD, filename, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    MPI_Info_free(&info);
    return fh;
}

/* This rank's columns of the ROWS x COLS array, *-cyclic: column c to rank c mod P. */
static MPI_Datatype cyclic_view(MPI_Datatype elem)
{
    int gsizes[2] = {ROWS, COLS}, distribs[2] = {MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_CYCLIC},
        dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, 1}, psizes[2] = {1, ct_nprocs};
    MPI_Datatype view;

    MPI_Type_create_darray(ct_nprocs, ct_rank, 2, gsizes, distribs, dargs, psizes, MPI_ORDER_C,
                           elem, &view);
    MPI_Type_commit(&view);
    return view;
}

static void case_cyclic(const char *filename, MPI_Datatype elem)
{
    unsigned char *want = malloc(SIZE), *mine = malloc(SIZE);
    long long n = 0, before;
    MPI_Datatype view = cyclic_view(elem);
    MPI_File fh = open_fresh(filename);

    for (long long e = 0; e < NELEM; e++) {
        element(want + e * ELEM, e, 1);
        if (e % COLS % ct_nprocs == ct_rank) /* this rank's, in file order */
            memcpy(mine + ELEM * n++, want + e * ELEM, ELEM);
    }
    CT_MPI(MPI_File_set_view(fh, 0, elem, view, "native", MPI_INFO_NULL));
    before = fs_writes(fh);
    CT_MPI(MPI_File_write_all(fh, mine, (int)n, elem, MPI_STATUS_IGNORE));
    check_writes(fh, &before, "cyclic, the collective write");
    sync_and_check(&fh, filename, want, &before, "cyclic");
    MPI_Type_free(&view);
    free(want);
    free(mine);
}

/*
 * 4. The file read back through the view with one independent MPI_File_read per rank, its blocks
 *    not cached: at most one file-system read per block (not one per piece); 'mine' must come back.
 */
static void read_back(const char *filename, MPI_Datatype view, MPI_Datatype elem,
                      const unsigned char *mine, long long n)
{
    MPI_Info info = ct_info("romio_edonio_block_size", "16384", NULL);
    unsigned char *got = malloc(SIZE);
    long long reads, before;
    MPI_File fh;

    CT_MPI(MPI_File_open(MPI_COMM_WORLD, filename, MPI_MODE_RDONLY, info, &fh));
    MPI_Info_free(&info);
    CT_MPI(MPI_File_set_view(fh, 0, elem, view, "native", MPI_INFO_NULL));
    before = ct_stat_sum(fh, "fs_reads");
    CT_MPI(MPI_File_read(fh, got, (int)n, elem, MPI_STATUS_IGNORE));
    reads = ct_stat_sum(fh, "fs_reads") - before;
    ct_compare("cyclic, the independent read", got, mine, 0, n * ELEM);
    if (ct_rank == 0) {
        printf("cyclic, independent reads: %lld file-system reads for %d blocks\n", reads, NBLOCKS);
        CT_CHECK(reads <= NBLOCKS + SLACK,
                 "cyclic, independent reads: %lld file-system reads for %d blocks of %d-byte "
                 "pieces, at most %d expected",
                 reads, NBLOCKS, ELEM, NBLOCKS + SLACK);
    }
    CT_MPI(MPI_File_close(&fh));
    free(got);
}

/*
 * 5. The same read with romio_edonio_read_fill=block (a parallel file system's auto) on a
 *    read-only handle: every process of a node reads every block of the file, so the node reads
 *    each block from the file once, into its cache, for all of them (ADIOI_EDONIO_Cache_fill),
 *    not once per process. At most the file's size per node, one read per run of blocks.
 */
static void read_back_shared(const char *filename, MPI_Datatype view, MPI_Datatype elem,
                             const unsigned char *mine, long long n)
{
    MPI_Info info =
        ct_info("romio_edonio_block_size", "16384", "romio_edonio_read_fill", "block", NULL);
    unsigned char *got = malloc(SIZE);
    long long reads, bytes;
    int nnodes;
    MPI_File fh;

    free(ct_nodes(&nnodes));
    for (int pass = 0; pass < 3; pass++) { /* the processes meet on the same blocks at once */
        memset(got, 0, SIZE);
        CT_MPI(MPI_File_open(MPI_COMM_WORLD, filename, MPI_MODE_RDONLY, info, &fh));
        CT_MPI(MPI_File_set_view(fh, 0, elem, view, "native", MPI_INFO_NULL));
        CT_MPI(MPI_File_read(fh, got, (int)n, elem, MPI_STATUS_IGNORE));
        reads = ct_stat_sum(fh, "fs_reads");
        bytes = ct_stat_sum(fh, "fs_read_bytes");
        ct_compare("cyclic, the independent read into the cache", got, mine, 0, n * ELEM);
        if (ct_rank == 0 && pass == 0)
            printf("cyclic, independent reads, read_fill=block: %lld file-system reads of %lld "
                   "bytes for %d blocks on %d node(s)\n",
                   reads, bytes, NBLOCKS, nnodes);
        if (ct_rank == 0)
            CT_CHECK(bytes <= (long long)SIZE * nnodes && reads <= (NBLOCKS + SLACK) * nnodes,
                     "cyclic, independent reads, read_fill=block: %lld file-system reads of %lld "
                     "bytes, at most %d reads of %d bytes expected (each block once a node)",
                     reads, bytes, (NBLOCKS + SLACK) * nnodes, SIZE * nnodes);
        CT_MPI(MPI_File_close(&fh));
    }
    MPI_Info_free(&info);
    free(got);
}

/*
 * 3. The *-cyclic view of case 1 written with one independent MPI_File_write per rank ('alone':
 *    by rank 0 only, the other ranks' elements left as holes), then a sync.
 */
static void case_cyclic_independent(const char *filename, MPI_Datatype elem, int alone)
{
    unsigned char *want = calloc(1, SIZE), *mine = malloc(SIZE);
    long long n = 0, before;
    const char *what = alone ? "cyclic, rank 0's independent write" : "cyclic, independent writes";
    MPI_Datatype view = cyclic_view(elem);
    MPI_File fh = open_fresh(filename);

    for (long long e = 0; e < NELEM; e++) {
        int who = (int)(e % COLS % ct_nprocs);
        if (!alone || who == 0)
            element(want + e * ELEM, e, 5);
        if (who == ct_rank) /* this rank's, in file order */
            memcpy(mine + ELEM * n++, want + e * ELEM, ELEM);
    }
    CT_MPI(MPI_File_set_size(fh, SIZE)); /* holes up to the end where rank 0 writes alone */
    CT_MPI(MPI_File_set_view(fh, 0, elem, view, "native", MPI_INFO_NULL));
    before = fs_writes(fh);
    if (!alone || ct_rank == 0)
        CT_MPI(MPI_File_write(fh, mine, (int)n, elem, MPI_STATUS_IGNORE));
    sync_and_check(&fh, filename, want, &before, what);
    if (!alone) {
        read_back(filename, view, elem, mine, n);
        read_back_shared(filename, view, elem, mine, n);
    }
    MPI_Type_free(&view);
    free(want);
    free(mine);
}

/* Which rank has element e: the same shuffle on every rank (xorshift, Fisher-Yates). */
static int *shuffled_owners(void)
{
    int *perm = malloc(NELEM * sizeof(int)), *owner = malloc(NELEM * sizeof(int));
    unsigned long long x = 88172645463325252ull;

    for (int i = 0; i < NELEM; i++)
        perm[i] = i;
    for (int i = NELEM - 1; i > 0; i--) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        int j = (int)(x % (unsigned long long)(i + 1)), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (int i = 0; i < NELEM; i++) /* the i-th of the shuffle goes to rank i / (NELEM / P) */
        owner[perm[i]] = (int)((long long)i * ct_nprocs / NELEM);
    free(perm);
    return owner;
}

static void case_shuffled(const char *filename, MPI_Datatype elem)
{
    int *owner = shuffled_owners(), *disp = malloc(NELEM * sizeof(int)), n = 0;
    unsigned char *want = malloc(SIZE), *mine = malloc(SIZE);
    long long before;
    MPI_Datatype view;
    MPI_File fh = open_fresh(filename);

    for (int e = 0; e < NELEM; e++)
        if (owner[e] == ct_rank)
            disp[n++] = e;
    MPI_Type_create_indexed_block(n, 1, disp, elem, &view);
    MPI_Type_commit(&view);
    CT_MPI(MPI_File_set_view(fh, 0, elem, view, "native", MPI_INFO_NULL));
    before = fs_writes(fh);
    for (int v = 2; v < 2 + NCALLS; v++) {
        char what[64];
        for (int k = 0; k < n; k++)
            element(mine + (long long)k * ELEM, disp[k], v);
        CT_MPI(MPI_File_write_at_all(fh, 0, mine, n, elem, MPI_STATUS_IGNORE));
        snprintf(what, sizeof(what), "shuffled, collective write %d", v - 1);
        check_writes(fh, &before, what);
    }
    for (long long e = 0; e < NELEM; e++)
        element(want + e * ELEM, e, 1 + NCALLS);
    sync_and_check(&fh, filename, want, &before, "shuffled");
    MPI_Type_free(&view);
    free(owner);
    free(disp);
    free(want);
    free(mine);
}

/*
 * 6. Whole blocks held until a sync (write_through=0, a parallel file system's auto), each rank
 *    writing its contiguous part of the file: on one node the sync writes them in runs of
 *    consecutive blocks, whatever their owners, at most one write per process (each takes its
 *    share of the file, under 4 MiB); across nodes still at most one per block.
 */
static void case_whole_runs(const char *filename)
{
    MPI_Info info = ct_info("romio_edonio_block_size", "16384", "romio_edonio_write_through", "0",
                            NULL);
    long long part = SIZE / ct_nprocs, from = part * ct_rank, before, n;
    long long bound = ct_one_node() ? ct_nprocs + SLACK : NBLOCKS + SLACK;
    unsigned char *want = malloc(SIZE);
    MPI_File fh;

    if (ct_rank == ct_nprocs - 1)
        part = SIZE - from;
    for (long long i = 0; i < SIZE; i++)
        want[i] = ct_pattern(i, 8);
    ct_fresh(filename);
    CT_MPI(MPI_File_open(MPI_COMM_WORLD, filename, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    MPI_Info_free(&info);
    before = fs_writes(fh);
    ct_write_at(fh, from, want + from, part, "whole blocks, each rank its part");
    ct_sync(fh);
    n = fs_writes(fh) - before;
    if (ct_rank == 0) {
        printf("whole blocks, the sync: %lld file-system writes for %d blocks\n", n, NBLOCKS);
        CT_CHECK(n <= bound, "whole blocks, the sync: %lld file-system writes for %d blocks, at "
                 "most %lld expected", n, NBLOCKS, bound);
    }
    check_file(&fh, filename, want, "whole blocks");
    free(want);
}

/*
 * 7. Runs far apart (above), through 'mode'. Returns nothing; checks the data on every rank, and
 *    the bytes each process read where it reads for itself only.
 */
static void case_far_runs(const char *filename, int mode)
{
    enum { REG = 2 * BS, PIECE = 1024, PER_REG = REG / (2 * PIECE), NREG = SIZE / REG };
    MPI_Info info =
        ct_info("romio_edonio_block_size", "16384", "romio_edonio_read_fill", "block", NULL);
    int displs[NREG * PER_REG], n = 0, nnodes, *node = ct_nodes(&nnodes), alone = 0;
    unsigned char *got = malloc(SIZE), *want = malloc(SIZE);
    const char *what = mode == MPI_MODE_RDONLY ? "runs far apart, read-only" : "runs far apart";
    long long bytes;
    MPI_Datatype view;
    MPI_File fh;

    for (int r = 0; r < ct_nprocs; r++)
        alone += node[r] == node[ct_rank];
    alone = alone == 1;
    free(node);
    for (int k = ct_rank; k < NREG; k += ct_nprocs)
        for (int p = 0; p < PER_REG; p++) {
            displs[n] = k * REG + 2 * p * PIECE;
            for (int b = 0; b < PIECE; b++)
                want[(long long)n * PIECE + b] = ct_pattern(displs[n] + b, 8);
            n++;
        }
    MPI_Type_create_indexed_block(n, PIECE, displs, MPI_BYTE, &view);
    MPI_Type_commit(&view);
    CT_MPI(MPI_File_open(MPI_COMM_WORLD, filename, mode, info, &fh));
    MPI_Info_free(&info);
    CT_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, view, "native", MPI_INFO_NULL));
    bytes = ct_stat(fh, "fs_read_bytes");
    CT_MPI(MPI_File_read(fh, got, n * PIECE, MPI_BYTE, MPI_STATUS_IGNORE));
    bytes = ct_stat(fh, "fs_read_bytes") - bytes;
    ct_compare(what, got, want, 0, (long long)n * PIECE);
    if (alone || mode != MPI_MODE_RDONLY) {
        long long regions = (long long)(n / PER_REG) * REG;
        if (ct_rank == 0)
            printf("%s: %lld bytes read by rank 0 for %lld bytes of regions\n", what, bytes,
                   regions);
        CT_CHECK(bytes <= regions,
                 "%s: rank %d read %lld bytes of the file for its %lld bytes of regions, at most "
                 "those expected",
                 what, ct_rank, bytes, regions);
    }
    CT_MPI(MPI_File_close(&fh));
    MPI_Type_free(&view);
    free(got);
    free(want);
}

/* 8. A collective read through the owners (above), on the file case 7 read; 9. with 'grown':
 *    past the end of the file as the cache knows it. */
static void case_read_all_owners(const char *filename, int grown)
{
    enum { RUN = 1024 };
    MPI_Info info =
        ct_info("romio_edonio_block_size", "16384", "romio_edonio_read_fill", "block", NULL);
    unsigned char *want = malloc(SIZE), *got = malloc(SIZE);
    long long n = 0, bytes;
    MPI_Datatype run, view;
    MPI_File fh;

    long long from = grown ? SIZE : 0; /* where the runs start */
    for (long long r = ct_rank; r < SIZE / RUN; r += ct_nprocs, n++) /* this rank's runs */
        for (int k = 0; k < RUN; k++)
            want[n * RUN + k] = ct_pattern(from + r * RUN + k, grown ? 10 : 8);
    if (!grown)
        element(want, ct_rank * RUN / ELEM, 9); /* its first run's first 8 bytes, rewritten */
    MPI_Type_contiguous(RUN, MPI_BYTE, &run);
    MPI_Type_create_resized(run, 0, (MPI_Aint)RUN * ct_nprocs, &view);
    MPI_Type_commit(&view);
    CT_MPI(MPI_File_open(MPI_COMM_WORLD, filename, MPI_MODE_RDWR, info, &fh));
    MPI_Info_free(&info);
    if (!grown)
        ct_write_at(fh, (long long)ct_rank * RUN, want, ELEM, "a rank's first run rewritten");
    if (grown && ct_rank == 0) { /* SIZE more bytes, behind the cache's back */
        unsigned char *more = malloc(SIZE);
        int fd = open(filename, O_WRONLY);
        for (long long i = 0; i < SIZE; i++)
            more[i] = ct_pattern(SIZE + i, 10);
        CT_CHECK(fd >= 0 && pwrite(fd, more, SIZE, SIZE) == SIZE, "appending with POSIX failed");
        if (fd >= 0)
            close(fd);
        free(more);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CT_MPI(MPI_File_set_view(fh, (MPI_Offset)(from + ct_rank * RUN), MPI_BYTE, view, "native",
                             MPI_INFO_NULL));
    bytes = ct_stat_sum(fh, "fs_read_bytes");
    CT_MPI(MPI_File_read_all(fh, got, (int)(n * RUN), MPI_BYTE, MPI_STATUS_IGNORE));
    bytes = ct_stat_sum(fh, "fs_read_bytes") - bytes;
    ct_compare(grown ? "runs of a KiB past the size the cache knew, the collective read"
                     : "runs of a KiB, the collective read after a rank's own write",
               got, want, 0, n * RUN);
    if (ct_rank == 0)
        printf("runs of a KiB, collective read, read_fill=block: %lld bytes read for %d\n", bytes,
               SIZE);
    if (ct_rank == 0 && !ct_one_node())
        CT_CHECK(bytes <= SIZE,
                 "runs of a KiB, collective read across nodes, read_fill=block: %lld bytes of the "
                 "file read, at most its %d expected (each block once, by its owner)",
                 bytes, SIZE);
    CT_MPI(MPI_File_close(&fh));
    MPI_Type_free(&run);
    MPI_Type_free(&view);
    free(want);
    free(got);
}

int main(int argc, char **argv)
{
    MPI_Datatype elem;

    ct_init(&argc, &argv, "FILE [KEY=VALUE...]");
    MPI_Type_contiguous(ELEM, MPI_BYTE, &elem);
    MPI_Type_commit(&elem);
    case_cyclic(argv[1], elem);
    case_shuffled(argv[1], elem);
    case_cyclic_independent(argv[1], elem, 0);
    case_cyclic_independent(argv[1], elem, 1);
    case_whole_runs(argv[1]);
    case_far_runs(argv[1], MPI_MODE_RDONLY);
    case_far_runs(argv[1], MPI_MODE_RDWR);
    case_read_all_owners(argv[1], 0);
    case_read_all_owners(argv[1], 1);
    MPI_Type_free(&elem);
    return ct_finish();
}
