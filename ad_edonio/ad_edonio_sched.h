/*
 * edonio: plans of collective calls kept per handle and reused (issue 43 A; doc/design.md, "Plans
 * reused").
 *
 * A program that calls MPI_File_write_all every time step with the same view, count and offset
 * asks for the same file extents every time. The plan of such a call, the extents ROMIO's
 * ADIOI_Calc_my_off_len walks the filetype for, is kept by the handle and taken again when a call
 * of the same kind asks for the same bytes at the same place through the same view: each process
 * decides that alone. Across nodes a write's or a read's exchange with the owners is kept with
 * the plan it used (struct edonio_xlayout, ad_edonio_coll.c) and made again only when every
 * process keeps the exchange of the same earlier call (ad_edonio_io_coll.c, plan_write and
 * plan_read). A new view or new
 * hints (ADIOI_EDONIO_SetInfo: MPI_File_set_view and MPI_File_set_info call it), a new size and
 * the close drop every plan.
 */
#ifndef AD_EDONIO_SCHED_H_INCLUDED
#define AD_EDONIO_SCHED_H_INCLUDED

#include <stdint.h>

#include "adio.h"

/* What makes two calls' plans the same, besides the view (dropped with the plans). */
struct edonio_sched_key {
    int writing;      /* a write (1) or a read (0) */
    int individual;   /* from the individual file pointer (the plan moves it) */
    ADIO_Offset at;   /* the byte where the call starts in the file (view disp included) */
    ADIO_Offset size; /* its bytes: count * the size of the memory type */
};

/* A collective call's exchange with the owners, as one call made it (ad_edonio_coll.c). */
struct edonio_xlayout;
void ADIOI_EDONIO_Xlayout_free(struct edonio_xlayout *x);
long long ADIOI_EDONIO_Xlayout_stamp(const struct edonio_xlayout *x);

/* One plan: the call's extents in file order, and the individual file pointer after the call. */
struct edonio_sched {
    struct edonio_sched_key key;
    ADIO_Offset *off, *len; /* ROMIO's allocation (ADIOI_Calc_my_off_len), len inside it */
    int64_t n;
    ADIO_Offset start, end, bytes; /* the first byte, one past the last, in all (edonio_req) */
    ADIO_Offset fp_after;          /* fd->fp_ind after the call */
    uint64_t used;                 /* when it was last taken (the least recently used goes first) */
    struct edonio_xlayout *x;      /* the exchange a call across nodes made with it, or NULL */
};

/* A handle's plans: at most max (romio_edonio_schedules); none when reuse is off. */
struct edonio_scheds {
    struct edonio_sched *s;
    int n, max;
    uint64_t clock;
    long long calls; /* collective reads and writes so far: the same count on every process */
};

/* The plan for key, or NULL; taken now. */
struct edonio_sched *ADIOI_EDONIO_Sched_find(struct edonio_scheds *ss,
                                             const struct edonio_sched_key *key);
/* Keep a new plan (it takes off's allocation); the least recently used goes when full. NULL: not
 * kept (no room, or reuse off), and off stays the caller's. */
struct edonio_sched *ADIOI_EDONIO_Sched_keep(struct edonio_scheds *ss,
                                             const struct edonio_sched *plan);
/* Drop every plan (a new view, hints or size); max becomes the new bound (0: reuse off). */
void ADIOI_EDONIO_Sched_drop(struct edonio_scheds *ss, int max);

#endif /* AD_EDONIO_SCHED_H_INCLUDED */
