/*
 * edonio: the planning of collective passes, with no MPI in it (ad_edonio_plan.h).
 *
 * Tested on its own (test/unit/t_plan.c) and run for up to 65,536 simulated processes by
 * perf/scale/scale.c.
 */
#include <stdlib.h>
#include <string.h>

#include "ad_edonio_plan.h"

/* ------------------------------------------------------------------ a process's extents */

int64_t edonio_plan_next(struct edonio_extents *x)
{
    while (x->i < x->n && x->done >= x->len[x->i]) {
        x->i++;
        x->done = 0;
    }
    return x->i < x->n ? x->off[x->i] + x->done : EDONIO_PLAN_NONE;
}

/*
 * No window may reach past this offset, so that no process sends more than budget in a round: the
 * offset of the process's byte that would be one too many, or NONE when it has budget bytes left
 * or fewer (a window to the end then takes all of them: its round is the last). Extents do not
 * overlap each other, so a window is at least budget bytes of the file long.
 */
int64_t edonio_plan_limit(const struct edonio_extents *x, int64_t budget)
{
    int64_t left = budget, done = x->done;

    for (int64_t i = x->i; i < x->n; i++, done = 0) {
        int64_t have = x->len[i] - done;
        if (have > left)
            return x->off[i] + done + left;
        left -= have;
    }
    return EDONIO_PLAN_NONE;
}

int edonio_plan_cut(struct edonio_extents *x, int64_t hi, int64_t block_size, int nprocs,
                    int (*add)(void *ctx, int64_t off, int64_t len, int owner), void *ctx)
{
    int64_t at;

    while ((at = edonio_plan_next(x)) < hi) {
        int64_t len = x->len[x->i] - x->done, block = at / block_size;
        if (len > hi - at)
            len = hi - at;
        if (len > (block + 1) * block_size - at)
            len = (block + 1) * block_size - at;
        if (!add(ctx, at, len, edonio_owner(block, nprocs)))
            return 0;
        x->done += len;
    }
    return 1;
}

/* ------------------------------------------------------------------ overlaps */

int edonio_edges_add(struct edonio_edges *e, int a, int b)
{
    if (e->n == e->cap) {
        int cap = e->cap ? 2 * e->cap : 64;
        int *pair = realloc(e->pair, 2 * (size_t)cap * sizeof(int));
        if (pair == NULL)
            return 0;
        e->pair = pair;
        e->cap = cap;
    }
    e->pair[2 * e->n] = a < b ? a : b;
    e->pair[2 * e->n + 1] = a < b ? b : a;
    e->n++;
    return 1;
}

static int by_pair(const void *a, const void *b)
{
    const int *x = a, *y = b;
    return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

void edonio_edges_unique(struct edonio_edges *e)
{
    int n = 0;

    if (e->n == 0)
        return;
    qsort(e->pair, (size_t)e->n, 2 * sizeof(int), by_pair);
    for (int k = 0; k < e->n; k++)
        if (n == 0 || by_pair(e->pair + 2 * k, e->pair + 2 * (n - 1)) != 0) {
            e->pair[2 * n] = e->pair[2 * k];
            e->pair[2 * n + 1] = e->pair[2 * k + 1];
            n++;
        }
    e->n = n;
}

void edonio_edges_free(struct edonio_edges *e)
{
    free(e->pair);
    memset(e, 0, sizeof(*e));
}

static int by_start(const void *a, const void *b)
{
    const struct edonio_span *x = a, *y = b;
    return x->lo != y->lo ? (x->lo > y->lo) - (x->lo < y->lo)
                          : (x->src > y->src) - (x->src < y->src);
}

int edonio_plan_overlaps(struct edonio_span *s, int64_t n, struct edonio_edges *edges)
{
    int64_t open = 0;

    if (n < 2)
        return 1;
    qsort(s, (size_t)n, sizeof(*s), by_start);
    /* s[0, open) are the spans still open, compacted in place as the sweep goes. */
    for (int64_t k = 0; k < n; k++) {
        struct edonio_span cur = s[k];
        int64_t keep = 0;
        for (int64_t j = 0; j < open; j++) {
            if (s[j].hi <= cur.lo)
                continue; /* closed before cur starts */
            if (s[j].src != cur.src && !edonio_edges_add(edges, s[j].src, cur.src))
                return 0;
            s[keep++] = s[j];
        }
        s[keep++] = cur;
        open = keep;
    }
    edonio_edges_unique(edges);
    return 1;
}

/* ------------------------------------------------------------------ colouring */

/* splitmix64: a fixed pseudo-random priority, the same on every process without a message. */
uint64_t edonio_jp_priority(int rank)
{
    uint64_t z = (uint64_t)(unsigned)rank + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

int edonio_jp_before(int a, int b)
{
    uint64_t pa = edonio_jp_priority(a), pb = edonio_jp_priority(b);
    return pa != pb ? pa > pb : a < b;
}

static int by_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int edonio_jp_init(struct edonio_jp *v, int me, const int *nbr, int n)
{
    memset(v, 0, sizeof(*v));
    v->me = me;
    v->mine = -1;
    v->nbr = malloc(((size_t)n + 1) * sizeof(int));
    v->colour = malloc(((size_t)n + 1) * sizeof(int));
    v->used = malloc((size_t)n + 1);
    if (v->nbr == NULL || v->colour == NULL || v->used == NULL) {
        edonio_jp_free(v);
        return 0;
    }
    memcpy(v->nbr, nbr, (size_t)n * sizeof(int));
    qsort(v->nbr, (size_t)n, sizeof(int), by_int);
    v->n = n;
    for (int k = 0; k < n; k++) {
        v->colour[k] = -1;
        v->waiting += edonio_jp_before(v->nbr[k], me);
    }
    return 1;
}

void edonio_jp_free(struct edonio_jp *v)
{
    free(v->nbr);
    free(v->colour);
    free(v->used);
    v->nbr = v->colour = NULL;
    v->used = NULL;
    v->n = 0;
}

void edonio_jp_heard(struct edonio_jp *v, int rank, int c)
{
    int *at = bsearch(&rank, v->nbr, (size_t)v->n, sizeof(int), by_int);

    if (at == NULL || v->colour[at - v->nbr] >= 0)
        return; /* not a neighbour, or heard already */
    v->colour[at - v->nbr] = c;
    if (edonio_jp_before(rank, v->me))
        v->waiting--;
}

int edonio_jp_step(struct edonio_jp *v)
{
    int c = 0;

    if (v->mine >= 0 || v->waiting > 0)
        return 0;
    /* The smallest colour no coloured neighbour has: one of 0..n. */
    char *used = v->used;
    memset(used, 0, (size_t)v->n + 1);
    for (int k = 0; k < v->n; k++)
        if (v->colour[k] >= 0 && v->colour[k] <= v->n)
            used[v->colour[k]] = 1;
    while (used[c])
        c++;
    v->mine = c;
    return 1;
}

int edonio_jp_waits(const struct edonio_jp *v, int k)
{
    return edonio_jp_before(v->me, v->nbr[k]);
}
