/*
 * edonio unit test: the planning of collective passes on its own (ad_edonio/ad_edonio_plan.c):
 * the window limit under a budget, cutting extents at block boundaries and window ends (64-bit
 * offsets, empty extents, owners), overlap detection at an owner (touching is not overlapping, a
 * process never overlaps itself, a pair found twice is one edge), and the Jones-Plassmann
 * colouring on paths, cliques, stars and random graphs, run the way the driver runs it (each
 * vertex waits for its earlier neighbours' colours): a proper colouring, at most degree + 1
 * colours, 3 at most on a path.
 *
 * Prints "PASS plan/<case>" or "FAIL plan/<case> (...)" per case and "N passed, N failed".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ad_edonio_plan.h"

#define UNIT_GROUP "plan"
#include "unit_test.h"

/* ------------------------------------------------------------------ cutting */

struct cut {
    int64_t off[64], len[64];
    int owner[64];
    int n, stop_at;
};

static int add(void *ctx, int64_t off, int64_t len, int owner)
{
    struct cut *c = ctx;
    if (c->n == c->stop_at)
        return 0;
    c->off[c->n] = off;
    c->len[c->n] = len;
    c->owner[c->n++] = owner;
    return 1;
}

static void t_limit(void)
{
    const int64_t off[] = {0, 100, 1000}, len[] = {10, 50, 5};
    struct edonio_extents x = {off, len, 3, 0, 0};

    EXPECT(edonio_plan_next(&x) == 0);
    EXPECT(edonio_plan_limit(&x, 5) == 5);
    EXPECT(edonio_plan_limit(&x, 10) == 100);  /* extent 0 exactly: extent 1 is past it */
    EXPECT(edonio_plan_limit(&x, 11) == 101);  /* one byte into extent 1 */
    EXPECT(edonio_plan_limit(&x, 64) == 1004); /* 10 + 50 + 4 */
    EXPECT(edonio_plan_limit(&x, 65) == EDONIO_PLAN_NONE); /* all that is left */
    EXPECT(edonio_plan_limit(&x, 66) == EDONIO_PLAN_NONE);
    x.i = 1;
    x.done = 20;
    EXPECT(edonio_plan_next(&x) == 120);
    EXPECT(edonio_plan_limit(&x, 30) == 1000);
    EXPECT(edonio_plan_limit(&x, 31) == 1001);
}

static void t_cut(void)
{
    /* Block size 16, 3 processes; extents: an empty one, one over three blocks, one far out. */
    const int64_t big = (int64_t)5 << 40; /* 5 TiB: 64-bit offsets */
    const int64_t off[] = {4, 10, big + 30}, len[] = {0, 30, 4};
    struct edonio_extents x = {off, len, 3, 0, 0};
    struct cut c = {.stop_at = -1};

    EXPECT(edonio_plan_cut(&x, 20, 16, 3, add, &c) == 1); /* the window ends inside block 1 */
    EXPECT(c.n == 2);
    EXPECT(c.off[0] == 10 && c.len[0] == 6 && c.owner[0] == 0);
    EXPECT(c.off[1] == 16 && c.len[1] == 4 && c.owner[1] == 1);
    EXPECT(edonio_plan_next(&x) == 20);
    EXPECT(edonio_plan_cut(&x, big + 32, 16, 3, add, &c) == 1);
    EXPECT(c.n == 5);
    EXPECT(c.off[2] == 20 && c.len[2] == 12 && c.owner[2] == 1);
    EXPECT(c.off[3] == 32 && c.len[3] == 8 && c.owner[3] == 2);
    EXPECT(c.off[4] == big + 30 && c.len[4] == 2 && c.owner[4] == (int)((big / 16 + 1) % 3));
    EXPECT(edonio_plan_next(&x) == big + 32); /* two bytes are left */
    /* The callback stops the cut: the piece is not taken. */
    c.stop_at = c.n;
    EXPECT(edonio_plan_cut(&x, EDONIO_PLAN_NONE, 16, 3, add, &c) == 0);
    EXPECT(edonio_plan_next(&x) == big + 32);
    c.stop_at = -1;
    EXPECT(edonio_plan_cut(&x, EDONIO_PLAN_NONE, 16, 3, add, &c) == 1);
    EXPECT(c.n == 6 && c.off[5] == big + 32 && c.len[5] == 2);
    EXPECT(c.owner[5] == (int)((big / 16 + 2) % 3));
    EXPECT(edonio_plan_next(&x) == EDONIO_PLAN_NONE);
}

/* ------------------------------------------------------------------ overlaps */

static int has(const struct edonio_edges *e, int a, int b)
{
    for (int k = 0; k < e->n; k++)
        if (e->pair[2 * k] == a && e->pair[2 * k + 1] == b)
            return 1;
    return 0;
}

static void t_overlaps(void)
{
    struct edonio_span s[] = {
        {100, 200, 3}, {0, 50, 1},    {50, 60, 2},   /* 1 and 2 touch: no edge */
        {150, 160, 0}, {190, 250, 1}, {120, 130, 3}, /* 3 with itself: no edge */
        {300, 310, 5}, {305, 306, 4}, {309, 400, 4}, /* 4-5 twice: one edge */
    };
    struct edonio_edges e = {NULL, 0, 0};

    EXPECT(edonio_plan_overlaps(s, 9, &e) == 1);
    EXPECT(e.n == 3);
    EXPECT(has(&e, 0, 3) && has(&e, 1, 3) && has(&e, 4, 5));
    EXPECT(!has(&e, 1, 2) && !has(&e, 0, 1));
    /* A second owner finds 0-3 again and 2-6: still unique, sorted by lower rank. */
    struct edonio_span t[] = {{0, 10, 3}, {5, 6, 0}, {20, 30, 6}, {25, 26, 2}};
    EXPECT(edonio_plan_overlaps(t, 4, &e) == 1);
    EXPECT(e.n == 4 && has(&e, 2, 6));
    for (int k = 1; k < e.n; k++)
        EXPECT(e.pair[2 * k - 2] < e.pair[2 * k] ||
               (e.pair[2 * k - 2] == e.pair[2 * k] && e.pair[2 * k - 1] < e.pair[2 * k + 1]));
    edonio_edges_free(&e);
    EXPECT(e.pair == NULL && e.n == 0);
}

/* ------------------------------------------------------------------ colouring */

/*
 * Colour a graph of nv vertices (adjacency as the unique pairs) as the driver does: every vertex
 * waits for its earlier neighbours, then colours and tells its later ones, in rounds. Returns the
 * colours used; the rounds in *rounds.
 */
static int jp_run(int nv, const struct edonio_edges *e, int *colour, int *rounds)
{
    int *deg = calloc((size_t)nv, sizeof(int)), **adj = calloc((size_t)nv, sizeof(int *));
    struct edonio_jp *v = calloc((size_t)nv, sizeof(*v));
    int left = nv, ncolours = 0;

    for (int k = 0; k < e->n; k++) {
        deg[e->pair[2 * k]]++;
        deg[e->pair[2 * k + 1]]++;
    }
    for (int a = 0; a < nv; a++) {
        adj[a] = malloc(((size_t)deg[a] + 1) * sizeof(int));
        deg[a] = 0;
    }
    for (int k = 0; k < e->n; k++) {
        int a = e->pair[2 * k], b = e->pair[2 * k + 1];
        adj[a][deg[a]++] = b;
        adj[b][deg[b]++] = a;
    }
    for (int a = 0; a < nv; a++)
        EXPECT(edonio_jp_init(&v[a], a, adj[a], deg[a]));
    for (*rounds = 0; left > 0; (*rounds)++) {
        int *now = calloc((size_t)nv, sizeof(int)), progress = 0;
        for (int a = 0; a < nv; a++)
            now[a] = edonio_jp_step(&v[a]);
        for (int a = 0; a < nv; a++) {
            if (!now[a])
                continue;
            progress = 1;
            left--;
            colour[a] = v[a].mine;
            ncolours = colour[a] + 1 > ncolours ? colour[a] + 1 : ncolours;
            for (int k = 0; k < v[a].n; k++)
                if (edonio_jp_waits(&v[a], k))
                    edonio_jp_heard(&v[v[a].nbr[k]], a, v[a].mine);
        }
        free(now);
        if (!progress) {
            EXPECT(progress); /* a vertex waits for nothing that comes */
            break;
        }
    }
    for (int a = 0; a < nv; a++) {
        edonio_jp_free(&v[a]);
        free(adj[a]);
    }
    free(v);
    free(adj);
    free(deg);
    return ncolours;
}

static int proper(const struct edonio_edges *e, const int *colour)
{
    for (int k = 0; k < e->n; k++)
        if (colour[e->pair[2 * k]] == colour[e->pair[2 * k + 1]])
            return 0;
    return 1;
}

static void t_colour_shapes(void)
{
    enum { N = 200 };
    int colour[N], rounds;
    struct edonio_edges e = {NULL, 0, 0};

    for (int a = 0; a + 1 < N; a++) /* a path: the column pattern's graph */
        edonio_edges_add(&e, a, a + 1);
    int nc = jp_run(N, &e, colour, &rounds);
    EXPECT(proper(&e, colour) && nc >= 2 && nc <= 3);
    EXPECT(rounds < 20); /* a decreasing chain of random priorities, not N */
    e.n = 0;
    for (int a = 0; a < 12; a++) /* a clique: one colour each */
        for (int b = a + 1; b < 12; b++)
            edonio_edges_add(&e, a, b);
    EXPECT(jp_run(12, &e, colour, &rounds) == 12 && proper(&e, colour));
    e.n = 0;
    for (int a = 1; a < N; a++) /* a star: two colours */
        edonio_edges_add(&e, 0, a);
    EXPECT(jp_run(N, &e, colour, &rounds) == 2 && proper(&e, colour));
    e.n = 0; /* no edges: one colour, no waiting */
    EXPECT(jp_run(N, &e, colour, &rounds) == 1 && rounds == 1);
    edonio_edges_free(&e);
}

static void t_colour_random(void)
{
    enum { N = 500 };
    int colour[N], deg[N], rounds;
    struct edonio_edges e = {NULL, 0, 0};

    srand(7);
    for (int trial = 0; trial < 20; trial++) {
        int maxdeg = 0;
        e.n = 0;
        memset(deg, 0, sizeof(deg));
        for (int k = 0; k < 3 * N; k++) {
            int a = rand() % N, b = rand() % N;
            if (a != b)
                edonio_edges_add(&e, a, b);
        }
        edonio_edges_unique(&e);
        for (int k = 0; k < e.n; k++) {
            deg[e.pair[2 * k]]++;
            deg[e.pair[2 * k + 1]]++;
        }
        for (int a = 0; a < N; a++)
            maxdeg = deg[a] > maxdeg ? deg[a] : maxdeg;
        int nc = jp_run(N, &e, colour, &rounds);
        EXPECT(proper(&e, colour));
        EXPECT(nc <= maxdeg + 1);
    }
    edonio_edges_free(&e);
}

static void t_priority(void)
{
    /* The same on every process, a strict order, and not the rank order. */
    int inversions = 0;
    EXPECT(edonio_jp_priority(5) == edonio_jp_priority(5));
    for (int a = 0; a < 1000; a++) {
        EXPECT(edonio_jp_before(a, a + 1) != edonio_jp_before(a + 1, a));
        inversions += edonio_jp_before(a + 1, a);
    }
    EXPECT(inversions > 300 && inversions < 700);
}

int main(void)
{
    run("limit", t_limit);
    run("cut", t_cut);
    run("overlaps", t_overlaps);
    run("colour-shapes", t_colour_shapes);
    run("colour-random", t_colour_random);
    run("priority", t_priority);
    return finish();
}
