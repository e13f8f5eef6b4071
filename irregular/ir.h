/*
 * libedonio_irregular's internals: the schedule, its routes, errors. The public calls are in
 * include/edonio_irregular.h; doc/irregular.md is the manual.
 *
 * A route says where each reference of this process goes (the chunk's handler) and what this
 * process receives for the chunks it handles. The global array is cut into chunks of
 * chunk_elems elements; chunk c is handled by rank c % P in round c / P. Sorting the references
 * by global index sorts them by chunk, so the references sent to the handler of chunk c are one
 * run of the sorted order: spos[soff[c] .. soff[c + 1]).
 */
#ifndef IR_H_INCLUDED
#define IR_H_INCLUDED

#include <stdint.h>
#include <stddef.h>
#include <mpi.h>
#include "edonio_irregular.h"

#define IR_MAGIC 0x45444952u /* "EDIR": a live schedule */
/* Reductions of MPI_Offsets go as MPI_INT64_T: Open MPI 4.1.4 takes MPI_OFFSET as unsigned in
 * MPI_MIN and MPI_MAX (the minimum of 0 and -8 is 0 there). */
#define IR_OFFSET_REDUCE MPI_INT64_T
_Static_assert(sizeof(MPI_Offset) == 8, "MPI_Offset reduced as MPI_INT64_T");
#define IR_TAG 4302

typedef struct ir_route {
    MPI_Offset n;          /* references of this process */
    MPI_Offset *spos;      /* their buffer positions, in send order (by global index, position) */
    MPI_Offset *soff;      /* [chunks + 1]: the references to chunk c's handler */
    MPI_Offset nrecv;      /* references received, over every round */
    uint32_t *relem;       /* each one's element within its chunk: by round, then source */
    MPI_Offset *roff;      /* [rounds * P + 1]: received from source s in round r */
    MPI_Offset *runoff;    /* [rounds + 1]: each round's runs */
    MPI_Offset *runs;      /* pairs (first element, elements): the covered parts of a chunk */
    MPI_Offset smax, rmax; /* most references sent, received in one round */
} ir_route;

struct edonio_ir_schedule_s {
    uint32_t magic;
    MPI_Comm comm; /* the schedule's own duplicate */
    int nprocs, rank;
    MPI_Offset global_count, elem_size;
    MPI_Offset chunk_elems, chunks, rounds;
    MPI_Offset align;
    int zlevel;
    int shuffle;         /* edonio_ir_shuffle: compressed chunks byte-shuffled (format 2) */
    MPI_Offset n;        /* this process's references */
    MPI_Offset *indices; /* a copy of them, in the caller's order */
    ir_route *full;      /* all of them; built at first use after an update */
    /* What edonio_ir_schedule_update found between the previous loop and this one. */
    int has_switch;
    ir_route *release; /* positions in the previous loop's buffer */
    ir_route *fetch;   /* positions in this loop's buffer */
    MPI_Offset nkeep;  /* kept elements */
    MPI_Offset nruns;
    MPI_Offset *keep;  /* runs (previous position, position, length), by position */
    MPI_Request *reqs; /* 4 * nprocs: one round's exchanges (a switch's two at once) */
    MPI_Datatype elem; /* element_size contiguous bytes: messages count elements, not bytes */
    int can_read;      /* the current call's file is not write-only: sieving may read it */
    edonio_ir_stats stats;
};

/* ir_error.c: errors. A local failure is recorded with ir_fail (class and message); ir_agree
 * makes every process of the communicator return the lowest failing rank's error. */
typedef struct ir_status {
    int errclass;     /* MPI_SUCCESS or an MPI error class */
    const char *call; /* the public call, which every message names first */
    char msg[480];
} ir_status;
#define IR_STATUS(call)                                                                            \
    {                                                                                              \
        MPI_SUCCESS, (call), ""                                                                    \
    }
int ir_fail(ir_status *st, int errclass, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int ir_agree(MPI_Comm comm, ir_status *st);
int ir_agree_barrier(MPI_Comm comm, ir_status *st);
int ir_agree_at(MPI_Comm comm, ir_status *st, MPI_Offset disp);
int ir_error_code(int errclass, const char *msg);
int ir_check_sched(edonio_ir_schedule s, const char *call, ir_status *st);
int ir_check_file(MPI_File fh, edonio_ir_schedule s, const char *call, ir_status *st);
int ir_waitall(int n, MPI_Request *reqs);
int ir_allreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm);

/* A reference: a global index and its place in the process's buffer. */
typedef struct ir_ref {
    MPI_Offset g, pos;
} ir_ref;

/* ir_route.c */
int ir_sort_refs(ir_ref *a, MPI_Offset n, MPI_Offset keys);
int ir_route_build(edonio_ir_schedule s, MPI_Offset n, const MPI_Offset *idx, const MPI_Offset *pos,
                   ir_route **route, ir_status *st);
void ir_route_free(ir_route **route);

/* ir_io.c: one route's data moved between buffers and the file, chunk by chunk. */
int ir_route_write(edonio_ir_schedule s, ir_route *r, MPI_File fh, MPI_Offset disp, const void *buf,
                   ir_status *st);
int ir_route_read(edonio_ir_schedule s, ir_route *r, MPI_File fh, MPI_Offset disp, void *buf,
                  ir_status *st);
int ir_route_switch(edonio_ir_schedule s, ir_route *rel, ir_route *fresh, MPI_File fh,
                    MPI_Offset disp, const void *old_buf, void *new_buf, ir_status *st);
MPI_Offset ir_read_at(edonio_ir_schedule s, MPI_File fh, MPI_Offset off, void *p, MPI_Offset len,
                      ir_status *st);
void ir_write_at(edonio_ir_schedule s, MPI_File fh, MPI_Offset off, const void *p, MPI_Offset len,
                 ir_status *st);
/* The exchanges of one round, for the chunk writers (gather: references to chunk buffer) and
 * readers (scatter: chunk buffer to references). */
int ir_gather_round(edonio_ir_schedule s, ir_route *r, MPI_Offset round, const void *buf,
                    char *sbuf, char *rbuf, char *cbuf, ir_status *st);
int ir_scatter_round(edonio_ir_schedule s, ir_route *r, MPI_Offset round, const char *cbuf,
                     char *sbuf, char *rbuf, void *buf, ir_status *st);
int ir_ensure_full(edonio_ir_schedule s, ir_status *st);
int ir_start(MPI_File fh, MPI_Offset disp, edonio_ir_schedule s, const void *buf, ir_status *st);
int ir_written(edonio_ir_schedule s, ir_status *st);

static inline MPI_Offset ir_chunk_len(edonio_ir_schedule s, MPI_Offset c)
{
    MPI_Offset first = c * s->chunk_elems, left = s->global_count - first;
    return left < s->chunk_elems ? left : s->chunk_elems;
}

#endif /* IR_H_INCLUDED */
