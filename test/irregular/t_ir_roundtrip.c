/*
 * edonio irregular test: edonio_ir_write and edonio_ir_read of random irregular distributions,
 * checked against a serial model of the file.
 *
 * For each element size of test_esizes (default 1, 8, 24 and 13 bytes) the program makes a file
 * FILE.eE of test_n elements at displacement test_disp, which rank 0 first fills with a pattern
 * (POSIX, before the MPI open), and a random distribution of the array over the writers, from
 * test_seed: each element is written by one process, by two or three (duplicates across ranks),
 * or by none (holes: single elements and runs of up to 300); 4 in 100 copies twice on one rank
 * (duplicates within a rank); rank 1 holds no element at 3 or more writers (its indices and
 * buffer NULL); every rank's elements in random order. Each process writes its elements with
 * edonio_ir_write twice (other values the second time). The model: every written element holds
 * the lowest writing rank's copy, within that rank the last occurrence's; every other byte the
 * pattern (holes, the bytes before disp, a tail after the array). Rank 0 checks the file with
 * POSIX after the close, byte for byte, and its size.
 *
 * Then the processes read the array back with edonio_ir_read through another random
 * distribution (runs and single elements anywhere, holes too, duplicates; the last rank reads
 * nothing when there are several), and check every element against the model.
 *
 * The schedules' statistics must follow the chunk dealing: chunk c (of edonio_ir_chunk_size
 * bytes, whole elements) is written and read by rank c % P alone, which writes at least the
 * written elements of its chunks and at most its touched chunks' bytes, in at most one file
 * operation per run of written elements within a chunk (reads: of requested elements); no
 * process sends more than its elements. get_info must report the chunk size rounded down to
 * whole elements.
 *
 * test_phase=write writes and checks the files only; test_phase=read (another run, with another
 * process count) opens them read-only and reads them back, with the model of test_writers
 * writers: P processes write, Q read. test_phase=all (default) does both in one run, the read
 * after a sync-barrier-sync in the same open.
 *
 *   t_ir_roundtrip FILE [edonio_ir_chunk_size=N ...] [test_seed=N] [test_n=N] [test_disp=N]
 *                  [test_esizes=1,8,24,13] [test_phase=all|write|read] [test_writers=P]
 *                  [test_fs=edonio|ufs]
 */
#include "ir_test.h"

#define TAIL 37 /* pattern bytes after the array */

static uint64_t seed;
static long long N, disp;

/* The writers' distribution: every rank's indices, for P writers (the same on every process). */
static ir_list *gen_writers(int P)
{
    ir_list *w = calloc((size_t)P, sizeof(*w));
    uint64_t s = ir_seed(seed, 1, (uint64_t)P);
    int empty = P >= 3 ? 1 : -1;
    long long hole_run = 0;

    for (long long g = 0; g < N; g++) {
        if (g != 0 && g != N - 1) { /* the first and last elements are always written */
            if (hole_run > 0) {
                hole_run--;
                continue;
            }
            long long u = ir_below(&s, 1000);
            if (u < 6) { /* a run of holes */
                hole_run = ir_below(&s, 300);
                continue;
            }
            if (u < 60) /* a single hole */
                continue;
        }
        long long u = ir_below(&s, 100);
        int copies = u < 15 ? 2 : u < 20 ? 3 : 1;
        for (int c = 0; c < copies; c++) {
            int r;
            do
                r = (int)ir_below(&s, P);
            while (r == empty);
            ir_push(&w[r], g);
            if (ir_below(&s, 100) < 4)
                ir_push(&w[r], g);
        }
    }
    for (int r = 0; r < P; r++) {
        uint64_t sr = ir_seed(seed, 2, (uint64_t)(P * 1000 + r));
        ir_shuffle(&sr, w[r].idx, w[r].n);
    }
    return w;
}

/* A reader's indices: runs and single elements anywhere in the array, in random order. */
static ir_list gen_reader(int Q, int q)
{
    ir_list l = {0, 0, NULL};
    uint64_t s = ir_seed(seed, 3, (uint64_t)(Q * 1000 + q));

    if (Q > 1 && q == Q - 1)
        return l; /* reads nothing */
    long long want = N / Q + ir_below(&s, N / Q / 2 + 1) + 1;
    while (l.n < want) {
        long long g = ir_below(&s, N);
        if (ir_below(&s, 100) < 30) {
            long long len = 1 + ir_below(&s, 50);
            for (long long i = 0; i < len && g + i < N; i++)
                ir_push(&l, g + i);
        } else {
            ir_push(&l, g);
        }
    }
    ir_shuffle(&s, l.idx, l.n);
    return l;
}

/* The value of element k of rank r's buffer at a write step. */
static void fill(unsigned char *buf, const ir_list *mine, int r, int step, long long e)
{
    for (long long k = 0; k < mine->n; k++)
        for (long long j = 0; j < e; j++)
            buf[k * e + j] = ir_byte(seed + (uint64_t)step, (uint64_t)r, (uint64_t)k, j);
}

/* The file the model says (disp + N * e + TAIL bytes) after writes of step by P writers. */
static unsigned char *model_file(const ir_list *w, int P, int step, long long e)
{
    long long size = disp + N * e + TAIL;
    unsigned char *f = malloc((size_t)size);
    int *wr = malloc(sizeof(*wr) * (size_t)N);
    long long *wk = malloc(sizeof(*wk) * (size_t)N);

    for (long long o = 0; o < size; o++)
        f[o] = ct_pattern(o, (int)(seed % 1000));
    for (long long g = 0; g < N; g++)
        wr[g] = -1;
    /* lowest rank last, within a rank the last occurrence last: they win */
    for (int r = P - 1; r >= 0; r--)
        for (long long k = 0; k < w[r].n; k++) {
            wr[w[r].idx[k]] = r;
            wk[w[r].idx[k]] = k;
        }
    for (long long g = 0; g < N; g++)
        if (wr[g] >= 0)
            for (long long j = 0; j < e; j++)
                f[disp + g * e + j] =
                    ir_byte(seed + (uint64_t)step, (uint64_t)wr[g], (uint64_t)wk[g], j);
    free(wr);
    free(wk);
    return f;
}

/* What the statistics may say of the chunks this rank handles, given which elements are covered
 * (written, or asked for): the covered elements' bytes (lower bound), the touched chunks' bytes
 * and the runs of covered elements within the chunks (upper bounds). */
typedef struct bounds {
    long long elems, chunk_bytes, runs;
} bounds;

static bounds handled(const unsigned char *covered, long long ce, long long e, int P, int r)
{
    bounds b = {0, 0, 0};
    long long chunks = (N + ce - 1) / ce;

    for (long long c = r; c < chunks; c += P) {
        long long first = c * ce, end = first + ce < N ? first + ce : N, touched = 0;
        for (long long g = first; g < end; g++) {
            if (!covered[g])
                continue;
            touched = 1;
            b.elems++;
            if (g == first || !covered[g - 1])
                b.runs++;
        }
        if (touched)
            b.chunk_bytes += (end - first) * e;
    }
    b.elems *= e;
    return b;
}

static void check_stats(edonio_ir_stats st, bounds b, int calls, const char *what)
{
    CT_CHECK(st.calls == calls, "%s: stats.calls is %lld, expected %d", what, (long long)st.calls,
             calls);
    if (calls == 0)
        return;
    long long bytes = st.bytes_written + st.bytes_read;
    long long ops = st.file_writes + st.file_reads;
    CT_CHECK(bytes >= b.elems * calls && bytes <= b.chunk_bytes * calls,
             "%s: %lld bytes moved to or from the file by this rank, expected %lld to %lld (its "
             "chunks: rank r handles chunks r, r + P, ...)",
             what, bytes, b.elems * calls, b.chunk_bytes * calls);
    CT_CHECK(ops <= b.runs * calls && (b.elems == 0 || ops >= calls),
             "%s: %lld file operations on this rank, expected %lld to %lld (one per run of "
             "elements in a chunk at most)",
             what, ops, b.elems ? (long long)calls : 0, b.runs * calls);
}

/* Read the array back through Q = nprocs readers' distribution and check it against the model
 * file want. */
static void read_back(MPI_File fh, const unsigned char *want, long long e, const char *what)
{
    ir_list mine = gen_reader(ct_nprocs, ct_rank);
    edonio_ir_schedule s = EDONIO_IR_SCHEDULE_NULL;
    MPI_Info info = ir_info();
    unsigned char *buf = mine.n ? malloc((size_t)(mine.n * e)) : NULL;
    unsigned char *exp = malloc((size_t)(mine.n * e) + 1);
    unsigned char *asked = calloc((size_t)N, 1), *all = malloc((size_t)N);
    char w[160];

    IR_OK(edonio_ir_schedule_create(MPI_COMM_WORLD, N, e, mine.n, mine.idx, info, &s));
    MPI_Info_free(&info);
    long long cs = ir_check_info(s, e, what);
    if (buf)
        memset(buf, 0xee, (size_t)(mine.n * e));
    IR_OK(edonio_ir_read(fh, disp, s, buf));
    for (long long k = 0; k < mine.n; k++) {
        memcpy(exp + k * e, want + disp + mine.idx[k] * e, (size_t)e);
        asked[mine.idx[k]] = 1;
    }
    snprintf(w, sizeof(w), "%s: edonio_ir_read", what);
    ir_compare_elems(w, buf, exp, mine.idx, mine.n, e);

    MPI_Allreduce(asked, all, (int)N, MPI_UNSIGNED_CHAR, MPI_MAX, MPI_COMM_WORLD);
    edonio_ir_stats st = ir_stats(s);
    snprintf(w, sizeof(w), "%s: read statistics", what);
    CT_CHECK(st.bytes_written == 0 && st.file_writes == 0, "%s: a read wrote %lld bytes", w,
             (long long)st.bytes_written);
    check_stats(st, handled(all, cs / e, e, ct_nprocs, ct_rank), 1, w);
    IR_OK(edonio_ir_schedule_free(&s));
    CT_CHECK(s == EDONIO_IR_SCHEDULE_NULL, "%s: edonio_ir_schedule_free left the handle set", what);
    free(buf);
    free(exp);
    free(asked);
    free(all);
    ir_list_free(&mine);
}

/* Rank 0: the file must be the model's, byte for byte. */
static void check_file(const char *name, const unsigned char *want, long long e, const char *what)
{
    if (ct_rank == 0) {
        long long size = disp + N * e + TAIL, got_size = 0;
        unsigned char *got = ir_slurp(name, &got_size);
        CT_CHECK(got_size == size, "%s: the file has %lld bytes, expected %lld", what, got_size,
                 size);
        if (got != NULL && got_size == size)
            ct_compare(what, got, want, 0, size);
        free(got);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void one_size(const char *base, long long e, const char *phase, int writers)
{
    char name[4096], what[160];
    int P = strcmp(phase, "read") == 0 ? writers : ct_nprocs;
    ir_list *w = gen_writers(P);
    unsigned char *want = model_file(w, P, 2, e);
    MPI_File fh;

    snprintf(name, sizeof(name), "%s.e%lld", base, e);
    if (strcmp(phase, "read") != 0) {
        ir_list *mine = &w[ct_rank];
        edonio_ir_schedule s = EDONIO_IR_SCHEDULE_NULL;
        MPI_Info info = ir_info();
        unsigned char *buf = mine->n ? malloc((size_t)(mine->n * e)) : NULL;

        ct_fresh(name);
        if (ct_rank == 0) {
            unsigned char *pre = model_file(w, 0, 0, e); /* no writers: the pattern */
            CT_CHECK(ir_pwrite(name, 0, pre, disp + N * e + TAIL) == 0, "cannot write %s", name);
            free(pre);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        fh = co_open(name, MPI_MODE_RDWR, info, "open");
        snprintf(what, sizeof(what), "element size %lld, %d writers", e, P);
        IR_OK(edonio_ir_schedule_create(MPI_COMM_WORLD, N, e, mine->n, mine->idx, info, &s));
        MPI_Info_free(&info);
        long long cs = ir_check_info(s, e, what);
        for (int step = 1; step <= 2; step++) {
            if (buf)
                fill(buf, mine, ct_rank, step, e);
            IR_OK(edonio_ir_write(fh, disp, s, buf));
        }

        /* which elements were written, and the statistics of this rank's chunks */
        unsigned char *written = calloc((size_t)N, 1);
        for (int r = 0; r < P; r++)
            for (long long k = 0; k < w[r].n; k++)
                written[w[r].idx[k]] = 1;
        edonio_ir_stats st = ir_stats(s);
        snprintf(what, sizeof(what), "element size %lld, %d writers: write statistics", e, P);
        CT_CHECK(st.bytes_read <= st.bytes_written,
                 "%s: %lld bytes read for %lld written (at most a read-modify-write)", what,
                 (long long)st.bytes_read, (long long)st.bytes_written);
        st.bytes_read = 0; /* a read-modify-write's reads are not counted in the bounds */
        st.file_reads = 0;
        check_stats(st, handled(written, cs / e, e, P, ct_rank), 2, what);
        CT_CHECK(st.bytes_sent <= 2 * mine->n * e && (P > 1 || st.bytes_sent == 0),
                 "%s: %lld element bytes sent, this rank holds %lld", what,
                 (long long)st.bytes_sent, mine->n * e);
        free(written);
        IR_OK(edonio_ir_schedule_free(&s));

        snprintf(what, sizeof(what), "element size %lld, %d writers, %d readers", e, P, ct_nprocs);
        if (strcmp(phase, "all") == 0) {
            ct_sync(fh);
            read_back(fh, want, e, what);
        }
        CT_MPI(MPI_File_close(&fh));
        MPI_Barrier(MPI_COMM_WORLD);
        snprintf(what, sizeof(what), "element size %lld, %d writers: the file", e, P);
        check_file(name, want, e, what);
        free(buf);
    } else {
        MPI_Info info = ir_info();
        fh = co_open(name, MPI_MODE_RDONLY, info, "open for reading");
        MPI_Info_free(&info);
        snprintf(what, sizeof(what), "element size %lld, %d writers, %d readers", e, P, ct_nprocs);
        read_back(fh, want, e, what);
        CT_MPI(MPI_File_close(&fh));
        MPI_Barrier(MPI_COMM_WORLD);
        snprintf(what, sizeof(what), "element size %lld, %d writers: the file after the reads", e,
                 P);
        check_file(name, want, e, what);
    }
    for (int r = 0; r < P; r++)
        ir_list_free(&w[r]);
    free(w);
    free(want);
}

int main(int argc, char **argv)
{
    long long esizes[16];

    ct_init(&argc, &argv, "FILE [KEY=VALUE...] [test_OPTION=VALUE...]");
    seed = (uint64_t)ct_opt_ll("seed", 1);
    N = ct_opt_ll("n", 4000);
    disp = ct_opt_ll("disp", 100);
    const char *phase = ct_opt("phase", "all");
    int writers = (int)ct_opt_ll("writers", ct_nprocs);
    int ne = ir_numbers(ct_opt("esizes", "1,8,24,13"), esizes, 16);

    if (strcmp(phase, "all") != 0 && strcmp(phase, "write") != 0 && strcmp(phase, "read") != 0)
        ct_error("test_phase=%s: all, write or read", phase);
    else
        for (int i = 0; i < ne; i++)
            one_size(argv[1], esizes[i], phase, writers);
    return ct_finish();
}
