/*
 * edonio test: collective calls that repeat a pattern reuse its plan (issue 43 A), and what drops
 * the plans.
 *
 * Every rank holds test_elems 8-byte elements of a global array, a random subset of it (an
 * indexed view, displacements in file order; the memory in another order), and writes them with
 * MPI_File_write_at_all test_steps times, the values changing at each step, then reads them back
 * twice with MPI_File_read_at_all. Then:
 *   one rank alone writes half its elements at one step (a changed count on one rank only), then
 *     every rank the whole pattern again, twice (across nodes the first must not make a kept
 *     exchange again: the ranks keep those of different calls; the second must);
 *   MPI_File_set_view with the same view, MPI_File_set_size and MPI_File_set_info each drop the
 *     plans (the next call plans afresh);
 *   romio_edonio_schedule_reuse=false set by MPI_File_set_info: no reuse; true again: reuse;
 *   the individual file pointer (MPI_File_write_all after a seek) ends where it must;
 *   two offsets in turn with romio_edonio_schedules=1: no reuse; with 2: reuse;
 *   a sparse view (every 64th element of each rank's) read 3 times: across nodes such a read
 *     goes through the owners (its node would read whole blocks for a few bytes), and the next
 *     reads make its exchange again; then rank 0 alone reads half of it, and every rank all of it
 *     twice (the first plans its exchange afresh, the second makes it again), as for writes;
 *   after the close, the sparse view read 3 times through a handle opened read-only with
 *     romio_edonio_read_fill=block: where a node has several processes the next reads take the
 *     first's plan and stay on the node, whose cache fills (no exchange made again, no round
 *     through the owners; the third reads no file); across single-process nodes they make the
 *     first's exchange with the owners again.
 * The file's final contents are the program's model's (checked by reading with POSIX after the
 * close), so the run script compares an edonio run's file with a ufs run's byte for byte. With
 * test_fs=edonio the counters romio_edonio_stats_plans_made and _plans_reused must say what was
 * planned and reused, on every process, and with test_across=1 (simulated nodes)
 * _exchanges_reused the writes and reads whose exchange with the owners was made again (0
 * otherwise).
 *
 * With test_min_rounds=N (edonio; a small cb_buffer_size) the repeated writes of 1. must have
 * taken N rounds each on average at least, and with test_min_read_rounds=N the sparse reads of
 * 7. too (test_sparse=S: every S-th element of each rank's, default 64): a kept exchange is made
 * again round by round. With test_kept=0 (a small romio_edonio_cache_size) no exchange may be
 * made again: the kept exchanges of a handle take at most its cache's memory.
 *
 * test_node_procs=N: processes a node (default 1 with test_across=1, else all).
 *
 *   t_plans FILE [KEY=VALUE...] [test_elems=N] [test_steps=N] [test_across=0|1]
 *           [test_min_rounds=N] [test_node_procs=N] test_fs=edonio|ufs
 */
#include "coll_test.h"

static int elems, edonio, across;
static int kept_x = 1;    /* test_kept=0: no exchange may be kept (a cache too small for them) */
static long long xr;      /* calls whose exchange with the owners was made again (across nodes) */
static long long *mine_g; /* this rank's global indices, in file order */
static int *mem_at;       /* element k of the view is at mem_at[k] in memory */

static long long value(long long g, int step)
{
    return g << 8 | (step & 0xff);
}

/* Which rank holds global index g: a random assignment, the same on every rank. */
static int holder(long long g)
{
    unsigned long long x = (unsigned long long)g * 0x9e3779b97f4a7c15ull + 12345;
    x ^= x >> 29;
    return (int)(x % (unsigned long long)ct_nprocs);
}

/* The indexed view of this rank's elements; each rank holds about elems of them. */
static MPI_Datatype make_view(long long total)
{
    MPI_Datatype t;
    int *disp, n = 0;

    mine_g = malloc(sizeof(*mine_g) * (size_t)total);
    for (long long g = 0; g < total; g++)
        if (holder(g) == ct_rank)
            mine_g[n++] = g;
    elems = n;
    disp = malloc(sizeof(*disp) * (size_t)(n + 1));
    mem_at = malloc(sizeof(*mem_at) * (size_t)(n + 1));
    for (int k = 0; k < n; k++) {
        disp[k] = (int)mine_g[k];
        mem_at[k] = (int)(((long long)k * 7919 + ct_rank) % n); /* 7919 prime: a permutation */
    }
    MPI_Datatype blocks;
    MPI_Type_create_indexed_block(n, 1, disp, MPI_LONG_LONG, &blocks);
    MPI_Type_create_resized(blocks, 0, total * 8, &t); /* tiles of the whole array */
    MPI_Type_commit(&t);
    MPI_Type_free(&blocks);
    free(disp);
    return t;
}

static void fill(long long *buf, int n, int step)
{
    for (int k = 0; k < n; k++)
        buf[mem_at[k]] = value(mine_g[k], step);
}

/* Plans made and reused on this process so far; checked against what the test expects. */
static void expect_plans(MPI_File fh, long long made, long long reused, const char *what)
{
    if (!edonio)
        return;
    long long m = ct_stat(fh, "plans_made"), r = ct_stat(fh, "plans_reused");
    long long x = ct_stat(fh, "exchanges_reused"), want_x = across && kept_x ? xr : 0;
    CT_CHECK(m == made && r == reused,
             "%s: %lld plans made and %lld reused, expected %lld and %lld", what, m, r, made,
             reused);
    CT_CHECK(x == want_x, "%s: %lld exchanges made again, expected %lld", what, x, want_x);
}

static void write_step(MPI_File fh, long long *buf, int n, int step)
{
    /* n < elems: the memory positions are those of the full pattern's first n elements */
    fill(buf, elems, step);
    if (n < elems) { /* a smaller count writes the first n elements in view order */
        long long *tmp = malloc(sizeof(*tmp) * (size_t)(n + 1));
        for (int k = 0; k < n; k++)
            tmp[k] = value(mine_g[k], step);
        CT_MPI(MPI_File_write_at_all(fh, 0, tmp, n, MPI_LONG_LONG, MPI_STATUS_IGNORE));
        free(tmp);
        return;
    }
    MPI_Datatype mem;
    /* the memory in another order: an indexed memory type over buf */
    int *bd = malloc(sizeof(*bd) * (size_t)(n + 1));
    for (int k = 0; k < n; k++)
        bd[k] = mem_at[k];
    MPI_Type_create_indexed_block(n, 1, bd, MPI_LONG_LONG, &mem);
    MPI_Type_commit(&mem);
    CT_MPI(MPI_File_write_at_all(fh, 0, buf, 1, mem, MPI_STATUS_IGNORE));
    MPI_Type_free(&mem);
    free(bd);
}

static void read_check(MPI_File fh, const long long *want, const char *what)
{
    long long *got = malloc(sizeof(*got) * (size_t)(elems + 1));
    CT_MPI(MPI_File_read_at_all(fh, 0, got, elems, MPI_LONG_LONG, MPI_STATUS_IGNORE));
    int bad = 0;
    for (int k = 0; k < elems; k++)
        bad += got[k] != want[k];
    CT_CHECK(bad == 0, "%s: %d of %d elements wrong", what, bad, elems);
    free(got);
}

static void set_view(MPI_File fh, MPI_Datatype view)
{
    CT_MPI(MPI_File_set_view(fh, 0, MPI_LONG_LONG, view, "native", MPI_INFO_NULL));
}

static int stride = 64; /* test_sparse: the sparse view takes every stride-th element */

/* Read this rank's sparse elements (every stride-th of its own, the first n of them); record 0
 * holds step 132's values. */
static void sparse_read(MPI_File fh, int n, const char *what)
{
    long long *got = malloc(sizeof(*got) * (size_t)(n + 1));
    int bad = 0;

    CT_MPI(MPI_File_read_at_all(fh, 0, got, n, MPI_LONG_LONG, MPI_STATUS_IGNORE));
    for (int k = 0; k < n; k++)
        bad += got[k] != value(mine_g[stride * k], 132);
    CT_CHECK(bad == 0, "%s: %d of %d sparse elements wrong", what, bad, n);
    free(got);
}

/* The sparse view: every stride-th of this rank's elements (n of them). */
static MPI_Datatype sparse_view(int *n_out)
{
    int n = (elems + stride - 1) / stride, *disp = malloc(sizeof(*disp) * (size_t)(n + 1));
    long long mine = elems, total = 0;
    MPI_Datatype blocks, view;

    for (int k = 0; k < n; k++)
        disp[k] = (int)mine_g[stride * k];
    MPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Type_create_indexed_block(n, 1, disp, MPI_LONG_LONG, &blocks);
    MPI_Type_create_resized(blocks, 0, total * 8, &view);
    MPI_Type_commit(&view);
    MPI_Type_free(&blocks);
    free(disp);
    *n_out = n;
    return view;
}

static void read_sparse(MPI_File fh, long long *made, long long *reused)
{
    long long rounds0 = edonio ? ct_stat(fh, "coll_rounds") : 0;
    int n;
    MPI_Datatype view = sparse_view(&n);
    /* as on a parallel file system (on a local one, auto reads no more than asked, by nodes) */
    ct_set_hint(fh, "romio_edonio_read_fill", "block");
    set_view(fh, view);
    for (int s = 0; s < 3; s++)
        sparse_read(fh, n, "sparse read_at_all");
    *made += 1;
    *reused += 2;
    xr += 2;
    expect_plans(fh, *made, *reused, "sparse reads");
    long long min_rounds = ct_opt_ll("min_read_rounds", 0);
    if (edonio && min_rounds > 0) {
        long long rounds = ct_stat(fh, "coll_rounds") - rounds0;
        CT_CHECK(rounds >= 3 * min_rounds, "3 sparse reads took %lld rounds, expected %lld", rounds,
                 3 * min_rounds);
    }
    sparse_read(fh, ct_rank == 0 ? n / 2 : n, "one rank's smaller sparse read");
    *made += ct_rank == 0;
    *reused += ct_rank != 0;
    for (int s = 0; s < 2; s++)
        sparse_read(fh, n, "the whole sparse read again");
    *reused += 2;
    xr += 1;
    expect_plans(fh, *made, *reused, "sparse reads after one rank's change");
    MPI_Type_free(&view);
}

/* 8. The sparse reads in a handle opened read-only with read_fill=block, 3 times: the first plans
 * (across nodes through the owners: its node caches none of the blocks). Where a node has several
 * processes its reads fill its cache: the next calls take the plan and stay on the node (no
 * exchange made again, no round through the owners), and the third reads nothing from the file.
 * A process alone on its node does not fill (nobody to share the blocks with): across nodes the
 * next calls make the first's exchange with the owners again. */
static void read_sparse_rdonly(const char *name, int node_procs)
{
    MPI_Info info = ct_info(NULL);
    MPI_Info_set(info, "romio_edonio_read_fill", "block");
    MPI_File fh = co_open(name, MPI_MODE_RDONLY, info, "open read-only");
    MPI_Info_free(&info);
    int n;
    MPI_Datatype view = sparse_view(&n);
    long long rounds[3], reads[3], rounds0 = edonio ? ct_stat(fh, "coll_rounds") : 0;

    set_view(fh, view);
    for (int s = 0; s < 3; s++) {
        sparse_read(fh, n, "sparse read_at_all, read-only");
        rounds[s] = edonio ? ct_stat(fh, "coll_rounds") : 0;
        reads[s] = edonio ? ct_stat(fh, "fs_reads") : 0;
    }
    if (edonio) {
        int fills = node_procs > 1, owners = across && !fills;
        long long m = ct_stat(fh, "plans_made"), r = ct_stat(fh, "plans_reused");
        long long x = ct_stat(fh, "exchanges_reused"), want_x = owners && kept_x ? 2 : 0;
        CT_CHECK(m == 1 && r == 2 && x == want_x,
                 "read-only sparse reads (%d processes a node): %lld plans made, %lld reused, "
                 "%lld exchanges made again, expected 1, 2 and %lld",
                 node_procs, m, r, x, want_x);
        CT_CHECK(!across || rounds[0] > rounds0,
                 "read-only sparse reads (%d processes a node): the first took no round through "
                 "the owners (its node caches none of the blocks)",
                 node_procs);
        CT_CHECK(owners ? rounds[2] > rounds[0] : rounds[2] == rounds[0],
                 "read-only sparse reads (%d processes a node): the second and third took %lld "
                 "rounds through the owners, expected %s",
                 node_procs, rounds[2] - rounds[0], owners ? "some" : "none (on the node)");
        CT_CHECK(!fills || reads[2] == reads[1],
                 "read-only sparse reads (%d processes a node): the third read the file %lld "
                 "times, expected none (the node's cache)",
                 node_procs, reads[2] - reads[1]);
    }
    MPI_Type_free(&view);
    CT_MPI(MPI_File_close(&fh));
}

int main(int argc, char **argv)
{
    MPI_File fh;
    MPI_Info info;
    char what[128], val[MPI_MAX_INFO_VAL + 1];

    ct_init(&argc, &argv, "FILE [KEY=VALUE...] [test_OPTION=VALUE...]");
    edonio = strcmp(ct_opt("fs", ""), "edonio") == 0;
    across = (int)ct_opt_ll("across", 0); /* on simulated nodes: writes go through the owners */
    int per = (int)ct_opt_ll("elems", 4096), steps = (int)ct_opt_ll("steps", 5);
    long long min_rounds = ct_opt_ll("min_rounds", 0);
    stride = (int)ct_opt_ll("sparse", 64);
    kept_x = (int)ct_opt_ll("kept", 1);
    /* processes a node: one on perf's simulated nodes, all of them on one */
    int node_procs = (int)ct_opt_ll("node_procs", across ? 1 : ct_nprocs);
    long long total = (long long)per * ct_nprocs;
    MPI_Datatype view = make_view(total);
    long long *buf = malloc(sizeof(*buf) * (size_t)(elems + 1));
    long long *want = malloc(sizeof(*want) * (size_t)(elems + 1));
    long long made = 0, reused = 0;

    ct_fresh(argv[1]);
    info = ct_info(NULL);
    fh = co_open(argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, info, "open");
    MPI_Info_free(&info);
    if (edonio) {
        CT_CHECK(strcmp(ct_get(fh, "romio_edonio_schedule_reuse", val), "true") == 0,
                 "romio_edonio_schedule_reuse is '%s', expected the default true", val);
        CT_CHECK(strcmp(ct_get(fh, "romio_edonio_schedules", val), "4") == 0,
                 "romio_edonio_schedules is '%s', expected the default 4", val);
    }
    set_view(fh, view);

    /* 1. The same write, steps times: one plan, reused steps - 1 times; two reads: one more. */
    for (int s = 0; s < steps; s++)
        write_step(fh, buf, elems, s);
    made++;
    reused += steps - 1;
    xr += steps - 1;
    expect_plans(fh, made, reused, "repeated write_at_all");
    if (edonio && min_rounds > 0) {
        long long rounds = ct_stat(fh, "coll_rounds");
        CT_CHECK(rounds >= min_rounds * steps, "%d writes took %lld rounds, expected %lld at least",
                 steps, rounds, min_rounds * steps);
    }
    for (int k = 0; k < elems; k++)
        want[k] = value(mine_g[k], steps - 1);
    read_check(fh, want, "read_at_all after the steps");
    read_check(fh, want, "read_at_all again");
    made++;
    reused++;
    expect_plans(fh, made, reused, "repeated read_at_all");

    /* 2. Rank 0 alone writes half its elements: it plans afresh, the others reuse. */
    write_step(fh, buf, ct_rank == 0 ? elems / 2 : elems, 100);
    if (ct_rank == 0) {
        made++;
        for (int k = 0; k < elems / 2; k++)
            want[k] = value(mine_g[k], 100);
    } else {
        reused++;
        for (int k = 0; k < elems; k++)
            want[k] = value(mine_g[k], 100);
    }
    expect_plans(fh, made, reused, "one rank's count changed");
    read_check(fh, want, "after one rank's smaller write");
    reused++;

    /* 2b. Every rank the whole pattern again. Rank 0 takes the plan of 1., whose exchange was
     * recorded there; the others theirs, whose exchange was recorded in 2. with rank 0's smaller
     * part: the processes must see that they keep different exchanges and plan the exchange
     * afresh (taken as it is, an owner would wait for rank 0's smaller message). Then once more:
     * now every process keeps the exchange of the same call. */
    for (int s = 0; s < 2; s++)
        write_step(fh, buf, elems, 200 + s);
    reused += 2;
    xr += 1;
    expect_plans(fh, made, reused, "the whole pattern after one rank's change");
    for (int k = 0; k < elems; k++)
        want[k] = value(mine_g[k], 201);
    read_check(fh, want, "after the whole pattern again");
    reused++;

    /* 3. A new view (the same one), a new size, new hints: each drops the plans. */
    const char *drops[] = {"set_view", "set_size", "set_info"};
    for (int d = 0; d < 3; d++) {
        if (d == 0)
            set_view(fh, view);
        else if (d == 1)
            CT_MPI(MPI_File_set_size(fh, total * 8));
        else
            ct_set_hint(fh, "romio_edonio_flush_groups", "1");
        write_step(fh, buf, elems, 101 + d);
        write_step(fh, buf, elems, 101 + d);
        made++;
        reused++;
        xr++;
        snprintf(what, sizeof(what), "write_at_all after %s", drops[d]);
        expect_plans(fh, made, reused, what);
    }

    /* 4. Reuse off, then on again. */
    ct_set_hint(fh, "romio_edonio_schedule_reuse", "false");
    if (edonio)
        CT_CHECK(strcmp(ct_get(fh, "romio_edonio_schedule_reuse", val), "false") == 0,
                 "romio_edonio_schedule_reuse is '%s' after set_info false", val);
    for (int s = 0; s < 3; s++)
        write_step(fh, buf, elems, 110 + s);
    made += 3;
    expect_plans(fh, made, reused, "schedule_reuse=false");
    ct_set_hint(fh, "romio_edonio_schedule_reuse", "true");
    for (int s = 0; s < 3; s++)
        write_step(fh, buf, elems, 113 + s);
    made++;
    reused += 2;
    xr += 2;
    expect_plans(fh, made, reused, "schedule_reuse=true again");

    /* 5. The individual file pointer: write_all from a seek to 0, twice; it ends past the view's
     * elems elements each time. */
    for (int s = 0; s < 2; s++) {
        MPI_Offset pos = -1;
        fill(buf, elems, 120 + s);
        CT_MPI(MPI_File_seek(fh, 0, MPI_SEEK_SET));
        int *bd = malloc(sizeof(*bd) * (size_t)(elems + 1));
        MPI_Datatype mem;
        for (int k = 0; k < elems; k++)
            bd[k] = mem_at[k];
        MPI_Type_create_indexed_block(elems, 1, bd, MPI_LONG_LONG, &mem);
        MPI_Type_commit(&mem);
        CT_MPI(MPI_File_write_all(fh, buf, 1, mem, MPI_STATUS_IGNORE));
        MPI_Type_free(&mem);
        free(bd);
        MPI_File_get_position(fh, &pos);
        CT_CHECK(pos == elems, "write_all %d: the file pointer is at %lld, expected %d", s,
                 (long long)pos, elems);
    }
    made++;
    reused++;
    xr++;
    expect_plans(fh, made, reused, "write_all from the individual file pointer");

    /* 6. Two offsets in turn: with one plan kept, none is reused; with two, both are. The second
     * offset is one whole view further (the next "record" of the array). */
    for (int kept = 1; kept <= 2; kept++) {
        ct_set_hint(fh, "romio_edonio_schedules", kept == 1 ? "1" : "2");
        for (int s = 0; s < 4; s++) {
            for (int k = 0; k < elems; k++)
                buf[k] = value(mine_g[k], 130 + s);
            CT_MPI(MPI_File_write_at_all(fh, (MPI_Offset)(s % 2) * elems, buf, elems, MPI_LONG_LONG,
                                         MPI_STATUS_IGNORE));
        }
        made += kept == 1 ? 4 : 2;
        reused += kept == 1 ? 0 : 2;
        xr += kept == 1 ? 0 : 2;
        snprintf(what, sizeof(what), "two offsets in turn, romio_edonio_schedules=%d", kept);
        expect_plans(fh, made, reused, what);
    }

    /* 7. Sparse reads: through the owners across nodes, their exchange made again. */
    read_sparse(fh, &made, &reused);
    CT_MPI(MPI_File_close(&fh));
    read_sparse_rdonly(argv[1], node_procs);

    /* The file: the model, read with POSIX: step 133's values in both records. */
    if (ct_rank == 0) {
        long long *all = malloc(sizeof(*all) * (size_t)(2 * total + 1));
        long long got = co_pread(argv[1], 0, (unsigned char *)all, 2 * total * 8);
        int bad = 0;
        for (long long g = 0; g < 2 * total && got >= 0; g++)
            bad += all[g] != value(g % total, g < total ? 132 : 133);
        CT_CHECK(got >= 0 && bad == 0, "the file: %d of %lld elements wrong", bad, 2 * total);
        free(all);
    }
    MPI_Type_free(&view);
    free(buf);
    free(want);
    free(mine_g);
    free(mem_at);
    return ct_finish();
}
