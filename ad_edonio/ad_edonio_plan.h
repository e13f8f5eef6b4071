/*
 * edonio: the planning of collective passes, with no MPI in it.
 *
 * What a process decides between messages in a collective pass (ad_edonio_coll.c) and in MPI
 * atomic mode (ad_edonio_atomic.c): which owner each piece goes to, where a round's window ends,
 * which processes' pieces overlap at an owner, and the colouring of the overlap graph. The driver
 * moves the messages with MPI; perf/scale runs the same functions for thousands of simulated
 * processes in one program and counts what would travel (doc/atomicity.md, "Cost as P grows").
 */
#ifndef AD_EDONIO_PLAN_H_INCLUDED
#define AD_EDONIO_PLAN_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

#include "ad_edonio_segment.h" /* edonio_owner: block b belongs to rank b mod P */

#define EDONIO_PLAN_NONE INT64_MAX /* no more bytes */

/* A 64-bit offset as the driver holds it: ROMIO's ADIO_Offset, which is long over MPICH and long
 * long over Open MPI, read through a type that may alias either. */
typedef int64_t edonio_off64 __attribute__((may_alias));

/* A process's extents in a pass, in file order (non-overlapping), and how far it has got. */
struct edonio_extents {
    const edonio_off64 *off, *len;
    int64_t n;
    int64_t i;    /* the next extent */
    int64_t done; /* bytes of extent i already taken */
};

/* The file offset of the next byte to move, or NONE. */
int64_t edonio_plan_next(struct edonio_extents *x);
/* The file offset of the byte past the next budget bytes (NONE: no more than budget are left). */
int64_t edonio_plan_limit(const struct edonio_extents *x, int64_t budget);
/*
 * Take the bytes below hi, cut at block boundaries; add(ctx, offset, length, owner) for each
 * piece (owner = block mod nprocs). Stops and returns 0 when add does; 1 when done.
 */
int edonio_plan_cut(struct edonio_extents *x, int64_t hi, int64_t block_size, int nprocs,
                    int (*add)(void *ctx, int64_t off, int64_t len, int owner), void *ctx);

/* Pairs of processes whose pieces overlap (lower rank first). */
struct edonio_edges {
    int *pair;
    int n, cap;
};
/* A piece as an owner received it. */
struct edonio_span {
    int64_t lo, hi;
    int src;
};
/* Add the pair {a, b} (a != b). 0 when out of memory. */
int edonio_edges_add(struct edonio_edges *e, int a, int b);
/*
 * The pairs of processes among n pieces received at one owner, added to edges (sorts s by start,
 * then sweeps each piece against those still open where it starts). 0 when out of memory.
 */
int edonio_plan_overlaps(struct edonio_span *s, int64_t n, struct edonio_edges *edges);
/* Sort the pairs (by lower rank, then higher) and drop repeats. */
void edonio_edges_unique(struct edonio_edges *e);
void edonio_edges_free(struct edonio_edges *e);

/*
 * Colouring the overlap graph, distributed (Jones-Plassmann): every process is a vertex with a
 * pseudo-random priority; it takes the smallest colour none of its coloured neighbours has once
 * every neighbour of higher priority has one, and then tells its neighbours of lower priority.
 * Each edge carries one message; the rounds are as many as the longest chain of decreasing
 * priorities (O(log P) expected); no process learns more than its neighbours.
 */
struct edonio_jp {
    int me;
    int n;       /* neighbours */
    int *nbr;    /* their ranks, ascending */
    int *colour; /* theirs, or -1 while unknown */
    int waiting; /* neighbours of higher priority still without a colour */
    int mine;    /* this process's colour, or -1 */
    char *used;  /* room to find the smallest free colour */
};
uint64_t edonio_jp_priority(int rank);
/* Does rank a colour before rank b when they are neighbours (higher priority, ties by rank)? */
int edonio_jp_before(int a, int b);
/* nbr: n distinct ranks (copied). 0 when out of memory. */
int edonio_jp_init(struct edonio_jp *v, int me, const int *nbr, int n);
void edonio_jp_free(struct edonio_jp *v);
/* Neighbour rank took colour c. */
void edonio_jp_heard(struct edonio_jp *v, int rank, int c);
/* Colour now if every neighbour of higher priority has one: 1 when it coloured in this call. */
int edonio_jp_step(struct edonio_jp *v);
/* Does neighbour k (index into nbr) wait for this process's colour? */
int edonio_jp_waits(const struct edonio_jp *v, int k);

#endif /* AD_EDONIO_PLAN_H_INCLUDED */
