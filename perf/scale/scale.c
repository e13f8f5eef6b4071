/*
 * scale: what edonio's collective passes and atomic-mode handshakes cost as the number of
 * processes grows, for P = 16 ... 65,536, without starting P processes.
 *
 * It runs the driver's own planning code (ad_edonio/ad_edonio_plan.c: the ownership map, the
 * round windows, the cutting of extents into pieces, the overlap detection at the owners, the
 * Jones-Plassmann colouring) for every simulated process, and counts the messages the driver
 * (ad_edonio_coll.c, ad_edonio_atomic.c) would send for them:
 *
 *   every round   MPI_Allreduce of 3 x 8 bytes (log2 P steps each way), then a sparse exchange:
 *                 one message per (process, owner) pair that has pieces, 8 + 16 x pieces bytes
 *                 (+ the pieces' bytes in a write pass), and a nonblocking barrier (log2 P
 *                 empty messages each way)
 *   rank_order    one write pass
 *   graph_coloring  a pass without data (detection); each owner's pairs to their lower ranks
 *                 (4 bytes a pair, one message per lower rank; sparse exchange); each lower rank
 *                 to each higher neighbour (empty message; sparse exchange); one 4-byte colour per
 *                 edge; MPI_Allreduce of the colour count; one write pass per colour
 *   romio_two_phase (a model, for comparison) the same data, plus what ROMIO's two-phase
 *                 exchanges about it: 2 MPI_Allgather of 8 bytes, then 1 + rounds MPI_Alltoall of
 *                 4 bytes per pair of processes (ad_write_coll.c, ad_aggregate.c), each counted at
 *                 its lower bound (P - 1 blocks each way, log2 P messages), every process an
 *                 aggregator (its cheapest case)
 *
 * Per (method, pattern, P) it writes a line of scale.csv:
 *   bytes_total        bytes of all messages (each counted once)
 *   bytes_max_rank     the most bytes one process sends and receives
 *   messages_max_rank  the most messages one process sends and receives
 *   steps              data-moving rounds: rank_order the rounds of its pass, graph_coloring
 *                      those of its colour passes (the detection pass moves no data)
 * and of scale_detail.csv (edges, colours, the colouring's longest chain, the detection rounds,
 * the pieces, the time the planning took here).
 *
 *   scale [--max-p P] [--csv FILE] [--detail FILE]
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ad_edonio_plan.h"

enum { BLOCK = 64 * 1024 };                       /* romio_edonio_block_size's default */
static const int64_t BUDGET = 16LL * 1024 * 1024; /* cb_buffer_size's default */

/* ------------------------------------------------------------------ the patterns */

/* Every process's extents, in file order, non-overlapping: those of process r at first[r]. */
struct layout {
    int P;
    int64_t *off, *len, *first, n, cap;
};

static void oom(void)
{
    fprintf(stderr, "scale: out of memory\n");
    exit(2);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL)
        oom();
    return p;
}

static void put(struct layout *l, int64_t off, int64_t len)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 1024;
        l->off = realloc(l->off, (size_t)l->cap * sizeof(int64_t));
        l->len = realloc(l->len, (size_t)l->cap * sizeof(int64_t));
        if (l->off == NULL || l->len == NULL)
            oom();
    }
    l->off[l->n] = off;
    l->len[l->n++] = len;
}

/* Seed 003's column-wise overlap: a 2-D array of ROWS rows, P column blocks of W bytes; each
 * process writes its block widened by G bytes into each neighbour's (ghost cells). */
enum { ROWS = 16, W = 512, G = 64 };
static void column(struct layout *l, int r)
{
    int64_t row = (int64_t)l->P * W;
    for (int i = 0; i < ROWS; i++) {
        int64_t lo = (int64_t)r * W - G, hi = (int64_t)(r + 1) * W + G;
        lo = lo < 0 ? 0 : lo;
        hi = hi > row ? row : hi;
        put(l, i * row + lo, hi - lo);
    }
}

/* The EDONIO report's finite-element grid: columns of 32 elements x 32 bytes dealt round-robin. */
enum { COLUMNS = 16, COLUMN_BYTES = 32 * 32 };
static void fem(struct layout *l, int r)
{
    for (int j = 0; j < COLUMNS; j++)
        put(l, ((int64_t)j * l->P + r) * COLUMN_BYTES, COLUMN_BYTES);
}

/* IO500's ior-hard: 47,008-byte records, interleaved. */
enum { RECORDS = 16, RECORD = 47008 };
static void records(struct layout *l, int r)
{
    for (int j = 0; j < RECORDS; j++)
        put(l, ((int64_t)j * l->P + r) * RECORD, RECORD);
}

/* Random: 16 pieces of 4 KiB at random byte offsets in a file of P MiB (some overlap). */
enum { PIECES = 16, PIECE = 4096 };
static uint64_t mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static int by_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}
static void random_pieces(struct layout *l, int r)
{
    int64_t at[PIECES], size = (int64_t)l->P << 20, lo = -1, hi = -1;
    for (int j = 0; j < PIECES; j++)
        at[j] = (int64_t)(mix((uint64_t)r * PIECES + (uint64_t)j + ((uint64_t)l->P << 40)) %
                          (uint64_t)(size - PIECE));
    qsort(at, PIECES, sizeof(at[0]), by_i64);
    for (int j = 0; j < PIECES; j++) { /* a process's own pieces merged where they overlap */
        if (at[j] <= hi) {
            hi = at[j] + PIECE > hi ? at[j] + PIECE : hi;
            continue;
        }
        if (lo >= 0)
            put(l, lo, hi - lo);
        lo = at[j];
        hi = at[j] + PIECE;
    }
    put(l, lo, hi - lo);
}

static const struct {
    const char *name;
    void (*make)(struct layout *, int);
} patterns[] = {{"column", column}, {"fem", fem}, {"ior_hard", records}, {"random", random_pieces}};

static void layout_make(struct layout *l, int P, void (*make)(struct layout *, int))
{
    memset(l, 0, sizeof(*l));
    l->P = P;
    l->first = xmalloc(((size_t)P + 1) * sizeof(int64_t));
    for (int r = 0; r < P; r++) {
        l->first[r] = l->n;
        make(l, r);
    }
    l->first[P] = l->n;
}

static void layout_free(struct layout *l)
{
    free(l->off);
    free(l->len);
    free(l->first);
}

/* ------------------------------------------------------------------ counting messages */

struct sim {
    int P, L;              /* processes, ceil(log2 P) */
    int64_t *bytes, *msgs; /* per process: sent + received */
    int64_t total;         /* bytes of all messages */
    int64_t data;          /* of which the pieces' bytes */
    int64_t pieces;
    /* one sender's messages in a round, by owner */
    int64_t *stamp, *nto, *bto, now;
    int *touched, ntouched;
    int sender;
    int64_t window_hi;
    /* detection: the round's pieces as spans, with their owners */
    struct edonio_span *span;
    int *span_owner;
    int64_t nspan, capspan;
    int detecting;
};

static void sim_init(struct sim *s, int P)
{
    memset(s, 0, sizeof(*s));
    s->P = P;
    while ((1 << s->L) < P)
        s->L++;
    s->bytes = calloc((size_t)P, sizeof(int64_t));
    s->msgs = calloc((size_t)P, sizeof(int64_t));
    s->stamp = calloc((size_t)P, sizeof(int64_t));
    s->nto = xmalloc((size_t)P * sizeof(int64_t));
    s->bto = xmalloc((size_t)P * sizeof(int64_t));
    s->touched = xmalloc((size_t)P * sizeof(int));
    if (s->bytes == NULL || s->msgs == NULL || s->stamp == NULL)
        oom();
}

static void sim_free(struct sim *s)
{
    free(s->bytes);
    free(s->msgs);
    free(s->stamp);
    free(s->nto);
    free(s->bto);
    free(s->touched);
    free(s->span);
    free(s->span_owner);
}

static void message(struct sim *s, int from, int to, int64_t bytes)
{
    if (from == to)
        return; /* handed over in place */
    s->bytes[from] += bytes;
    s->bytes[to] += bytes;
    s->msgs[from]++;
    s->msgs[to]++;
    s->total += bytes;
}

/* A reduction of n bytes (recursive doubling) or, n = 0, a barrier (dissemination). */
static void log_steps(struct sim *s, int64_t n)
{
    for (int r = 0; r < s->P; r++) {
        s->bytes[r] += 2 * n * s->L;
        s->msgs[r] += 2 * s->L;
    }
    s->total += (int64_t)s->P * n * s->L;
}

static int add(void *ctx, int64_t off, int64_t len, int owner)
{
    struct sim *s = ctx;

    if (s->stamp[owner] != s->now) {
        s->stamp[owner] = s->now;
        s->nto[owner] = s->bto[owner] = 0;
        s->touched[s->ntouched++] = owner;
    }
    s->nto[owner]++;
    s->bto[owner] += len;
    s->pieces++;
    if (s->detecting) {
        if (s->nspan == s->capspan) {
            s->capspan = s->capspan ? 2 * s->capspan : 4096;
            s->span = realloc(s->span, (size_t)s->capspan * sizeof(*s->span));
            s->span_owner = realloc(s->span_owner, (size_t)s->capspan * sizeof(int));
            if (s->span == NULL || s->span_owner == NULL)
                oom();
        }
        s->span[s->nspan] = (struct edonio_span){off, off + len, s->sender};
        s->span_owner[s->nspan++] = owner;
    }
    return 1;
}

/* Owner by owner, the pairs among the round's spans (edges[o]: owner o's). */
static void detect_round(struct sim *s, struct edonio_edges *edges)
{
    int64_t *count = calloc((size_t)s->P + 1, sizeof(int64_t));
    struct edonio_span *by = xmalloc((size_t)s->nspan * sizeof(*by) + 1);

    for (int64_t k = 0; k < s->nspan; k++)
        count[s->span_owner[k] + 1]++;
    for (int o = 0; o < s->P; o++)
        count[o + 1] += count[o];
    for (int64_t k = 0; k < s->nspan; k++)
        by[count[s->span_owner[k]]++] = s->span[k];
    for (int o = 0, from = 0; o < s->P; o++) { /* count[o] is now where owner o's end */
        int64_t n = count[o] - from;
        if (n > 1 && !edonio_plan_overlaps(by + from, n, &edges[o]))
            oom();
        from = (int)count[o];
    }
    free(by);
    free(count);
    s->nspan = 0;
}

/*
 * One pass over the extents of the active processes (x: their progress), round by round, as
 * ADIOI_EDONIO_Coll_run does it. Returns the rounds.
 */
static int pass(struct sim *s, struct edonio_extents *x, const char *active, int with_data,
                struct edonio_edges *edges)
{
    int rounds = 0;

    s->detecting = edges != NULL;
    for (;;) {
        int64_t lo = EDONIO_PLAN_NONE, hi = EDONIO_PLAN_NONE;
        for (int r = 0; r < s->P; r++) {
            if (!active[r])
                continue;
            int64_t a = edonio_plan_next(&x[r]), b = edonio_plan_limit(&x[r], BUDGET);
            lo = a < lo ? a : lo;
            hi = b < hi ? b : hi;
        }
        log_steps(s, 3 * sizeof(long long)); /* the window */
        if (lo == EDONIO_PLAN_NONE)
            return rounds;
        rounds++;
        for (int r = 0; r < s->P; r++) {
            if (!active[r])
                continue;
            s->now++;
            s->sender = r;
            s->ntouched = 0;
            edonio_plan_cut(&x[r], hi, BLOCK, s->P, add, s);
            for (int k = 0; k < s->ntouched; k++) {
                int o = s->touched[k];
                message(s, r, o, 8 + 16 * s->nto[o] + (with_data ? s->bto[o] : 0));
                if (with_data && o != r)
                    s->data += s->bto[o];
            }
        }
        log_steps(s, 0); /* the nonblocking barrier */
        if (edges != NULL)
            detect_round(s, edges);
    }
}

static void extents_reset(struct edonio_extents *x, const struct layout *l)
{
    for (int r = 0; r < l->P; r++)
        x[r] = (struct edonio_extents){l->off + l->first[r], l->len + l->first[r],
                                       l->first[r + 1] - l->first[r], 0, 0};
}

/* ------------------------------------------------------------------ the methods */

struct result {
    int64_t bytes_total, bytes_max, msgs_max, steps;
    int64_t edges, colours, depth, detect_rounds, pieces, data;
    double seconds;
};

static void finish(struct sim *s, struct result *res)
{
    res->bytes_total = s->total;
    res->bytes_max = res->msgs_max = 0;
    for (int r = 0; r < s->P; r++) {
        res->bytes_max = s->bytes[r] > res->bytes_max ? s->bytes[r] : res->bytes_max;
        res->msgs_max = s->msgs[r] > res->msgs_max ? s->msgs[r] : res->msgs_max;
    }
    res->pieces = s->pieces;
    res->data = s->data;
}

static void rank_order(const struct layout *l, struct result *res)
{
    struct sim s;
    struct edonio_extents *x = xmalloc((size_t)l->P * sizeof(*x));
    char *active = xmalloc((size_t)l->P);

    sim_init(&s, l->P);
    memset(active, 1, (size_t)l->P);
    extents_reset(x, l);
    res->steps = pass(&s, x, active, 1, NULL);
    res->colours = 1;
    finish(&s, res);
    sim_free(&s);
    free(x);
    free(active);
}

static void graph_coloring(const struct layout *l, struct result *res)
{
    int P = l->P;
    struct sim s;
    struct edonio_extents *x = xmalloc((size_t)P * sizeof(*x));
    struct edonio_edges *found = calloc((size_t)P, sizeof(*found)), all = {NULL, 0, 0};
    char *active = xmalloc((size_t)P);

    sim_init(&s, P);
    memset(active, 1, (size_t)P);
    extents_reset(x, l);
    res->detect_rounds = pass(&s, x, active, 0, found);

    /* Each owner's pairs to their lower ranks, one message per lower rank; the lower ranks merge
     * them (here: all at once, the same union). Sparse exchange: + a barrier. */
    for (int o = 0; o < P; o++) {
        struct edonio_edges *e = &found[o];
        for (int k = 0; k < e->n;) {
            int lo = e->pair[2 * k], j = k;
            while (j < e->n && e->pair[2 * j] == lo) {
                edonio_edges_add(&all, lo, e->pair[2 * j + 1]);
                j++;
            }
            message(&s, o, lo, 4 * (int64_t)(j - k));
            k = j;
        }
        edonio_edges_free(e);
    }
    free(found);
    log_steps(&s, 0);
    edonio_edges_unique(&all);
    res->edges = all.n;
    for (int k = 0; k < all.n; k++) /* each lower rank tells each higher neighbour */
        message(&s, all.pair[2 * k], all.pair[2 * k + 1], 0);
    log_steps(&s, 0);

    /* Jones-Plassmann, as the processes run it: a round is a wave of colourings. */
    int *deg = calloc((size_t)P, sizeof(int)), **adj = xmalloc((size_t)P * sizeof(int *));
    int *colour = xmalloc((size_t)P * sizeof(int)), left = P, ncolours = 0;
    struct edonio_jp *v = xmalloc((size_t)P * sizeof(*v));
    char *now = xmalloc((size_t)P);
    for (int k = 0; k < all.n; k++) {
        deg[all.pair[2 * k]]++;
        deg[all.pair[2 * k + 1]]++;
    }
    for (int a = 0; a < P; a++) {
        adj[a] = xmalloc(((size_t)deg[a] + 1) * sizeof(int));
        deg[a] = 0;
    }
    for (int k = 0; k < all.n; k++) {
        int a = all.pair[2 * k], b = all.pair[2 * k + 1];
        adj[a][deg[a]++] = b;
        adj[b][deg[b]++] = a;
    }
    for (int a = 0; a < P; a++)
        if (!edonio_jp_init(&v[a], a, adj[a], deg[a]))
            oom();
    for (res->depth = 0; left > 0; res->depth++) {
        for (int a = 0; a < P; a++)
            now[a] = (char)edonio_jp_step(&v[a]);
        for (int a = 0; a < P; a++) {
            if (!now[a])
                continue;
            left--;
            colour[a] = v[a].mine;
            ncolours = colour[a] + 1 > ncolours ? colour[a] + 1 : ncolours;
            for (int k = 0; k < v[a].n; k++)
                if (edonio_jp_waits(&v[a], k)) {
                    edonio_jp_heard(&v[v[a].nbr[k]], a, v[a].mine);
                    message(&s, a, v[a].nbr[k], sizeof(int));
                }
        }
    }
    log_steps(&s, sizeof(int)); /* the colour count */
    res->colours = ncolours;

    /* One write pass per colour. */
    res->steps = 0;
    extents_reset(x, l);
    for (int c = 0; c < ncolours; c++) {
        for (int a = 0; a < P; a++)
            active[a] = colour[a] == c;
        res->steps += pass(&s, x, active, 1, NULL);
    }
    finish(&s, res);

    for (int a = 0; a < P; a++) {
        edonio_jp_free(&v[a]);
        free(adj[a]);
    }
    free(v);
    free(adj);
    free(deg);
    free(colour);
    free(now);
    edonio_edges_free(&all);
    sim_free(&s);
    free(x);
    free(active);
}

/* ROMIO's two-phase: rank_order's data, plus its collectives over every pair of processes. */
static void romio_two_phase(int P, const struct result *data, struct result *res)
{
    int L = 0;
    while ((1 << L) < P)
        L++;
    int64_t rounds = data->steps, pairs = (int64_t)P - 1;
    int64_t per_rank = 2 * (2 * 8 * pairs) + (1 + rounds) * 2 * 4 * pairs; /* sent + received */
    *res = *data;
    res->bytes_total = data->data + (int64_t)P * (2 * 8 * pairs + (1 + rounds) * 4 * pairs);
    res->bytes_max = data->bytes_max + per_rank;
    res->msgs_max = data->msgs_max + 2 * (int64_t)L * (2 + 1 + rounds);
}

/* ------------------------------------------------------------------ main */

int main(int argc, char **argv)
{
    const char *csv_name = "scale.csv", *detail_name = "scale_detail.csv";
    int max_p = 65536;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--max-p") && i + 1 < argc)
            max_p = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--csv") && i + 1 < argc)
            csv_name = argv[++i];
        else if (!strcmp(argv[i], "--detail") && i + 1 < argc)
            detail_name = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--max-p P] [--csv FILE] [--detail FILE]\n", argv[0]);
            return 2;
        }
    }
    FILE *csv = fopen(csv_name, "w"), *detail = fopen(detail_name, "w");
    if (csv == NULL || detail == NULL) {
        perror("scale: fopen");
        return 2;
    }
    fprintf(csv, "method,pattern,P,bytes_total,bytes_max_rank,messages_max_rank,steps\n");
    fprintf(detail, "method,pattern,P,pieces,data_bytes,edges,colours,colouring_depth,"
                    "detect_rounds,seconds\n");
    for (size_t p = 0; p < sizeof(patterns) / sizeof(patterns[0]); p++) {
        for (int P = 16; P <= max_p; P *= 4) {
            struct layout l;
            struct result res[3];
            const char *names[3] = {"rank_order", "graph_coloring", "romio_two_phase"};
            layout_make(&l, P, patterns[p].make);
            for (int m = 0; m < 2; m++) {
                struct timespec t0, t1;
                memset(&res[m], 0, sizeof(res[m]));
                clock_gettime(CLOCK_MONOTONIC, &t0);
                (m == 0 ? rank_order : graph_coloring)(&l, &res[m]);
                clock_gettime(CLOCK_MONOTONIC, &t1);
                res[m].seconds =
                    (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
            }
            romio_two_phase(P, &res[0], &res[2]);
            for (int m = 0; m < 3; m++) {
                fprintf(csv, "%s,%s,%d,%lld,%lld,%lld,%lld\n", names[m], patterns[p].name, P,
                        (long long)res[m].bytes_total, (long long)res[m].bytes_max,
                        (long long)res[m].msgs_max, (long long)res[m].steps);
                if (m < 2)
                    fprintf(detail, "%s,%s,%d,%lld,%lld,%lld,%lld,%lld,%lld,%.3f\n", names[m],
                            patterns[p].name, P, (long long)res[m].pieces, (long long)res[m].data,
                            (long long)res[m].edges, (long long)res[m].colours,
                            (long long)res[m].depth, (long long)res[m].detect_rounds,
                            res[m].seconds);
            }
            fflush(csv);
            fflush(detail);
            fprintf(stderr, "scale: %-8s P=%-6d colours %lld, %.1f s\n", patterns[p].name, P,
                    (long long)res[1].colours, res[0].seconds + res[1].seconds);
            layout_free(&l);
        }
    }
    fclose(csv);
    fclose(detail);
    return 0;
}
