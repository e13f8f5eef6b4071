/*
 * edonio irregular test: software caching between irregular loops (seed 002, section 3):
 * edonio_ir_schedule_update and edonio_ir_switch against a model of the memory and the file.
 *
 * Rank 0 fills FILE (POSIX) with the array's initial values, test_n elements of test_esize bytes
 * at test_disp. Loop 1 holds a random partition of about 9/10 of the array (random order; at 3
 * or more ranks the last one holds nothing in loop 1); its schedule reads the elements, which
 * the loop then changes in memory. Each next loop (test_loops in all) keeps 7/8 of every rank's
 * elements (in a new order) and takes as many new ones: a third from those another rank lets go
 * (moved), the rest from elements no process held (fresh); the rank empty in loop 1 takes a few
 * fresh ones. Its schedule comes from edonio_ir_schedule_update of the previous one, and
 * edonio_ir_switch moves the data; then the loop changes its elements in memory again. At the
 * end edonio_ir_write writes the last loop's elements.
 *
 * test_pattern=scattered (default): each rank lets go of a random eighth of its elements, spread
 * over the whole array (every chunk changes); test_pattern=clustered: every rank lets go of its
 * elements in one window of an eighth of the array, and takes new ones there only (the chunks
 * outside it do not change), as a repartition of a mesh does.
 *
 * Checked after every switch: the new buffer holds the kept elements' values from the old
 * buffer (changed in memory, never written), the moved elements' values as the rank that let
 * them go had changed them, the fresh elements' values from the file; the old buffer is
 * untouched. The file (POSIX, after sync-barrier-sync): every element a rank let go holds its
 * changed value (moved ones too: the rank that lets go writes), every kept one still its old
 * value (the switch wrote no kept element). The switch's statistics (the new schedule's, made by
 * the switch alone): over all ranks at least the released elements' bytes written and the new
 * elements' bytes read, and (clustered) all in all at most half of what a full write of the
 * old loop's elements and a full read of the new loop's would move; on each rank, chunk c's
 * handler (rank c % P) writes at least the released elements of its chunks and at most those
 * chunks' bytes, and reads at least the new elements of its chunks and at most the bytes of its
 * chunks holding new or (a read-modify-write) released elements, once. After the final write and
 * the close: the file is the model's, byte for byte.
 *
 *   t_ir_update FILE [edonio_ir_chunk_size=N ...] [test_seed=N] [test_n=N] [test_esize=N]
 *               [test_disp=N] [test_loops=N] [test_pattern=scattered|clustered]
 *               [test_fs=edonio|ufs]
 */
#include "ir_test.h"

static uint64_t seed;
static long long N, E, disp;

/* Byte j of element g's value in loop l (0: the initial value in the file). */
static unsigned char val(long long g, int l, long long j)
{
    return ir_byte(seed, 7, (uint64_t)(g * 64 + l), j);
}

static void put(unsigned char *dst, long long g, int l)
{
    for (long long j = 0; j < E; j++)
        dst[j] = val(g, l, j);
}

/* Loop 1: a random partition of about 9/10 of the array; owner[g] is g's rank or -1. */
static ir_list *first_loop(int P, int *owner)
{
    ir_list *w = calloc((size_t)P, sizeof(*w));
    uint64_t s = ir_seed(seed, 11, (uint64_t)P);
    int empty = P >= 3 ? P - 1 : -1;

    for (long long g = 0; g < N; g++) {
        owner[g] = -1;
        if (ir_below(&s, 10) == 0)
            continue;
        int r;
        do
            r = (int)ir_below(&s, P);
        while (r == empty);
        owner[g] = r;
        ir_push(&w[r], g);
    }
    for (int r = 0; r < P; r++)
        ir_shuffle(&s, w[r].idx, w[r].n);
    return w;
}

/* The next loop from the previous one (owner: the previous loop's, then the next's). */
static ir_list *next_loop(int P, const ir_list *prev, int *owner, int l, int clustered)
{
    ir_list *w = calloc((size_t)P, sizeof(*w));
    uint64_t s = ir_seed(seed, 12, (uint64_t)(P * 100 + l));
    int *next = malloc(sizeof(*next) * (size_t)N);
    long long *need = calloc((size_t)P, sizeof(*need));
    ir_list moved = {0, 0, NULL}, fresh = {0, 0, NULL};
    int *from = malloc(sizeof(*from) * (size_t)N);
    /* clustered: what changes lies in one window of N / 8 elements */
    long long w0 = ir_below(&s, N - N / 8 + 1), w1 = w0 + N / 8;

    for (long long g = 0; g < N; g++) {
        next[g] = -1;
        from[g] = owner[g];
        if (owner[g] < 0 && (!clustered || (g >= w0 && g < w1)))
            ir_push(&fresh, g);
    }
    for (int r = 0; r < P; r++) {
        for (long long k = 0; k < prev[r].n; k++) {
            MPI_Offset g = prev[r].idx[k];
            if (clustered ? g >= w0 && g < w1 : ir_below(&s, 8) == 0) {
                ir_push(&moved, g);
                need[r]++;
            } else {
                next[g] = r;
                ir_push(&w[r], g);
            }
        }
        if (prev[r].n == 0)
            need[r] = N / (16 * P) + 1;
    }
    ir_shuffle(&s, moved.idx, moved.n);
    ir_shuffle(&s, fresh.idx, fresh.n);
    long long mi = 0, fi = 0;
    for (int r = 0; r < P; r++) {
        for (long long i = 0; i < need[r]; i++) {
            MPI_Offset g = -1;
            if (clustered ? ir_below(&s, 3) != 0 : ir_below(&s, 3) == 0) {
                /* one another rank let go (not this rank's own: that would be kept) */
                for (long long t = mi; t < moved.n && g < 0; t++)
                    if (from[moved.idx[t]] != r && next[moved.idx[t]] < 0) {
                        g = moved.idx[t];
                        moved.idx[t] = moved.idx[mi++];
                    }
            }
            while (g < 0 && fi < fresh.n)
                if (next[fresh.idx[fi++]] < 0)
                    g = fresh.idx[fi - 1];
            if (g < 0)
                break;
            next[g] = r;
            ir_push(&w[r], g);
        }
        ir_shuffle(&s, w[r].idx, w[r].n);
    }
    memcpy(owner, next, sizeof(*owner) * (size_t)N);
    free(next);
    free(need);
    free(from);
    ir_list_free(&moved);
    ir_list_free(&fresh);
    return w;
}

static void free_loop(ir_list *w, int P)
{
    for (int r = 0; r < P; r++)
        ir_list_free(&w[r]);
    free(w);
}

/* The chunks this rank handles: the bytes of the elements marked in a (lower bound of what it
 * moves) and the bytes of the chunks that hold any (upper bound: sieving moves a chunk's
 * extent). */
static void handled(const unsigned char *a, long long ce, long long *lo, long long *hi)
{
    long long chunks = (N + ce - 1) / ce;

    *lo = *hi = 0;
    for (long long c = ct_rank; c < chunks; c += ct_nprocs) {
        long long first = c * ce, end = first + ce < N ? first + ce : N, touched = 0;
        for (long long g = first; g < end; g++) {
            *lo += a[g] ? E : 0;
            touched |= a[g];
        }
        if (touched)
            *hi += (end - first) * E;
    }
}

int main(int argc, char **argv)
{
    MPI_File fh;
    MPI_Info info;
    char what[160];

    ct_init(&argc, &argv, "FILE [KEY=VALUE...] [test_OPTION=VALUE...]");
    seed = (uint64_t)ct_opt_ll("seed", 1);
    N = ct_opt_ll("n", 8000);
    E = ct_opt_ll("esize", 8);
    disp = ct_opt_ll("disp", 64);
    int loops = (int)ct_opt_ll("loops", 3), P = ct_nprocs, me = ct_rank;
    int clustered = strcmp(ct_opt("pattern", "scattered"), "clustered") == 0;
    long long size = disp + N * E;

    /* the file's model: ftag[g] the loop whose value element g holds in the file */
    int *owner = malloc(sizeof(*owner) * (size_t)N), *ftag = calloc((size_t)N, sizeof(int));
    int *prev_owner = malloc(sizeof(int) * (size_t)N);
    unsigned char *released = malloc((size_t)N), *fetched = malloc((size_t)N);

    ct_fresh(argv[1]);
    if (me == 0) {
        unsigned char *init = malloc((size_t)size);
        for (long long o = 0; o < disp; o++)
            init[o] = ct_pattern(o, 3);
        for (long long g = 0; g < N; g++)
            put(init + disp + g * E, g, 0);
        CT_CHECK(ir_pwrite(argv[1], 0, init, size) == 0, "cannot write %s", argv[1]);
        free(init);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    info = ir_info();
    fh = co_open(argv[1], MPI_MODE_RDWR, info, "open");

    /* loop 1: read, then change in memory */
    ir_list *cur = first_loop(P, owner);
    edonio_ir_schedule s = EDONIO_IR_SCHEDULE_NULL;
    long long n = cur[me].n;
    unsigned char *buf = malloc((size_t)(n * E) + 1), *want = malloc((size_t)(n * E) + 1);
    IR_OK(edonio_ir_schedule_create(MPI_COMM_WORLD, N, E, n, cur[me].idx, info, &s));
    long long cs = ir_check_info(s, E, "loop 1");
    IR_OK(edonio_ir_read(fh, disp, s, buf));
    for (long long k = 0; k < n; k++)
        put(want + k * E, cur[me].idx[k], 0);
    ir_compare_elems("loop 1: edonio_ir_read", buf, want, cur[me].idx, n, E);
    for (long long k = 0; k < n; k++)
        put(buf + k * E, cur[me].idx[k], 1);

    for (int l = 1; l < loops; l++) {
        memcpy(prev_owner, owner, sizeof(*owner) * (size_t)N);
        ir_list *nxt = next_loop(P, cur, owner, l, clustered);
        long long n2 = nxt[me].n;
        unsigned char *buf2 = malloc((size_t)(n2 * E) + 1), *old = malloc((size_t)(n * E) + 1);
        edonio_ir_schedule s2 = EDONIO_IR_SCHEDULE_NULL;

        snprintf(what, sizeof(what), "loop %d to %d", l, l + 1);
        IR_OK(edonio_ir_schedule_update(s, n2, nxt[me].idx, &s2));
        ir_check_info(s2, E, what);
        memcpy(old, buf, (size_t)(n * E));
        memset(buf2, 0xee, (size_t)(n2 * E));
        IR_OK(edonio_ir_switch(fh, disp, s2, buf, buf2));

        /* memory: kept from the old buffer, moved as their rank changed them, fresh from the
         * file */
        free(want);
        want = malloc((size_t)(n2 * E) + 1);
        for (long long k = 0; k < n2; k++) {
            MPI_Offset g = nxt[me].idx[k];
            put(want + k * E, g, prev_owner[g] >= 0 ? l : ftag[g]);
        }
        char w2[200];
        snprintf(w2, sizeof(w2), "%s: edonio_ir_switch's new buffer", what);
        ir_compare_elems(w2, buf2, want, nxt[me].idx, n2, E);
        CT_CHECK(memcmp(old, buf, (size_t)(n * E)) == 0,
                 "%s: edonio_ir_switch changed the old buffer", what);

        /* released (per rank: held before, not now) and new (held now, not before) */
        long long rel = 0, nw = 0, full = 0;
        for (long long g = 0; g < N; g++) {
            released[g] = prev_owner[g] >= 0 && owner[g] != prev_owner[g];
            fetched[g] = owner[g] >= 0 && owner[g] != prev_owner[g];
            rel += released[g];
            nw += fetched[g];
            full += (prev_owner[g] >= 0) + (owner[g] >= 0);
        }
        edonio_ir_stats st = ir_stats(s2), sum = ir_stats_sum(st);
        snprintf(w2, sizeof(w2), "%s: edonio_ir_switch's statistics", what);
        CT_CHECK(st.calls == 1, "%s: calls is %lld, expected 1", w2, (long long)st.calls);
        CT_CHECK(me != 0 || sum.bytes_written >= rel * E,
                 "%s: %lld bytes written over all ranks, fewer than the %lld released elements' "
                 "%lld",
                 w2, (long long)sum.bytes_written, rel, rel * E);
        CT_CHECK(me != 0 || sum.bytes_read >= nw * E,
                 "%s: %lld bytes read over all ranks, fewer than the %lld new elements' %lld", w2,
                 (long long)sum.bytes_read, nw, nw * E);
        /* Clustered changes: at most half of a full write and read. Scattered ones make a
         * chunk thousands of runs of one element, which its handler sieves (one read of the
         * released and new elements' joint extent serves both, one write): what that moves is
         * bounded per rank below, by its chunks' bytes, each read once (seen to fail when the
         * new elements were read a second time after the read-modify-write: "this rank read
         * 57544 bytes, expected 3632 to 32000"). */
        CT_CHECK(me != 0 || !clustered || 2 * (sum.bytes_written + sum.bytes_read) <= full * E,
                 "%s: %lld bytes written and %lld read over all ranks, expected at most half of "
                 "a full write and read (%lld bytes; %lld released and %lld new elements of %lld "
                 "bytes)",
                 w2, (long long)sum.bytes_written, (long long)sum.bytes_read, full * E, rel, nw, E);
        long long lo, hi;
        handled(released, cs / E, &lo, &hi);
        CT_CHECK(st.bytes_written >= lo && st.bytes_written <= hi,
                 "%s: this rank wrote %lld bytes, expected %lld to %lld (the released elements "
                 "of its chunks: rank r handles chunks r, r + P, ...)",
                 w2, (long long)st.bytes_written, lo, hi);
        /* at most one read of each chunk holding new or released elements: a sieved write of
         * the released ones reads their extent, which then serves the new ones too */
        unsigned char *either = malloc((size_t)N);
        for (long long g = 0; g < N; g++)
            either[g] = released[g] | fetched[g];
        handled(either, cs / E, &lo, &hi);
        free(either);
        handled(fetched, cs / E, &lo, &(long long){0});
        CT_CHECK(st.bytes_read >= lo && st.bytes_read <= hi,
                 "%s: this rank read %lld bytes, expected %lld to %lld (the new elements of its "
                 "chunks)",
                 w2, (long long)st.bytes_read, lo, hi);

        /* the file: every released element holds its changed value (written by the rank that
         * let it go, whether or not another rank takes it) */
        for (long long g = 0; g < N; g++)
            if (released[g])
                ftag[g] = l;
        ct_sync(fh);
        if (me == 0) {
            unsigned char *got = malloc((size_t)size), e1[64];
            long long bad = 0;
            CT_CHECK(co_pread(argv[1], 0, got, size) == size, "%s: cannot read the file", what);
            for (long long g = 0; g < N; g++) {
                put(e1, g, ftag[g]);
                if (memcmp(got + disp + g * E, e1, (size_t)E) != 0 && bad++ < 3)
                    fprintf(stderr,
                            "rank 0: %s: the file's element %lld is not loop %d's value (%s, "
                            "held by rank %d before, %d now)\n",
                            what, g, ftag[g],
                            released[g]  ? "released"
                            : fetched[g] ? "new"
                                         : "untouched or kept",
                            prev_owner[g], owner[g]);
            }
            CT_CHECK(bad == 0, "%s: %lld elements of the file wrong after the switch", what, bad);
            free(got);
        }
        MPI_Barrier(MPI_COMM_WORLD);

        IR_OK(edonio_ir_schedule_free(&s));
        free_loop(cur, P);
        free(buf);
        free(old);
        cur = nxt;
        s = s2;
        buf = buf2;
        n = n2;
        for (long long k = 0; k < n; k++)
            put(buf + k * E, cur[me].idx[k], l + 1);
    }

    /* the last loop's elements written; the file the model's */
    IR_OK(edonio_ir_write(fh, disp, s, buf));
    IR_OK(edonio_ir_schedule_free(&s));
    CT_MPI(MPI_File_close(&fh));
    MPI_Info_free(&info);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        long long got_size = 0;
        unsigned char *got = ir_slurp(argv[1], &got_size), *model = malloc((size_t)size);
        for (long long o = 0; o < disp; o++)
            model[o] = ct_pattern(o, 3);
        for (long long g = 0; g < N; g++)
            put(model + disp + g * E, g, owner[g] >= 0 ? loops : ftag[g]);
        CT_CHECK(got_size == size, "the file has %lld bytes, expected %lld", got_size, size);
        if (got != NULL && got_size == size)
            ct_compare("the file after the last loop's edonio_ir_write", got, model, 0, size);
        free(got);
        free(model);
    }
    free_loop(cur, P);
    free(buf);
    free(want);
    free(owner);
    free(ftag);
    free(prev_owner);
    free(released);
    free(fetched);
    return ct_finish();
}
