/*
 * edonio: collective passes through the block owners, shared by ad_edonio_coll.c (the exchange and
 * collective I/O), ad_edonio_net.c (delivery of remote segments) and ad_edonio_atomic.c (MPI atomic
 * mode). Design: doc/design.md, doc/atomicity.md.
 */
#ifndef AD_EDONIO_COLL_H_INCLUDED
#define AD_EDONIO_COLL_H_INCLUDED

#include <stdint.h>

#include "ad_edonio_cache.h"
#include "ad_edonio_plan.h"
#include "adioi.h"

/* The plan's offsets are the file's (long over MPICH, long long over Open MPI: both 64 bits). */
_Static_assert(sizeof(ADIO_Offset) == sizeof(int64_t) && (ADIO_Offset)-1 < 0,
               "ADIO_Offset is not a signed 64-bit integer");

/*
 * Tags of the passes' point-to-point messages on the handle's communicator (ROMIO's duplicate of
 * the user's): under this driver nothing else sends on it (its nonblocking collective calls
 * complete at once, ad_edonio_io_coll.c).
 */
enum {
    EDONIO_TAG_PIECES = 0x4544, /* a round's pieces, to their owner */
    EDONIO_TAG_REPLY,           /* a read's bytes, back from the owner */
    EDONIO_TAG_PAIRS,           /* overlapping pairs, to the lower rank of each */
    EDONIO_TAG_NEIGHBOUR,       /* "we overlap", to the higher rank */
    EDONIO_TAG_COLOUR,          /* a colour, to the neighbours that wait for it */
};

/* One message of a sparse exchange. */
struct edonio_msg {
    int peer; /* to, or from */
    int own;  /* data was allocated for it (received) */
    MPI_Count bytes;
    char *data;
    int typed;         /* sent as (MPI_BOTTOM, 1, type), not from data: the bytes where they lie */
    MPI_Datatype type; /* (a message to another process; committed, freed by its maker) */
};

/* Where a request's bytes are in memory, walked once, in order. */
struct edonio_mem {
    char *buf;                 /* the user's buffer (contiguous: where the bytes start) */
    ADIOI_Flatlist_node *flat; /* the buffer type's blocks; NULL when contiguous */
    MPI_Aint extent;           /* of the buffer type */
    MPI_Count rep;             /* which copy of the type */
    MPI_Count blk;             /* which of its blocks */
    ADIO_Offset in_blk;        /* bytes of that block passed (contiguous: of the buffer) */
    char **where;              /* instead: where each extent's bytes are (a delivery) */
    const ADIO_Offset *len;    /* and their lengths */
};

/* One process's part of a collective pass: its file extents, in file order, and its memory. */
struct edonio_req {
    ADIO_Offset *off, *len; /* from ADIOI_Calc_my_off_len, or pieces to deliver */
    int64_t n;
    ADIO_Offset start, end; /* the first byte and one past the last; start NONE: nothing */
    ADIO_Offset bytes;      /* in all */
    ADIO_Offset stored;     /* a write: one past the last byte this process put in the cache or
                             * the file in this call, its own or, as an owner, others' (0: none);
                             * the file's size grows to that, not to where a failed write ends */
    struct edonio_mem mem;
    int borrowed; /* off and len belong to a kept plan (ad_edonio_sched.h): not freed here */
    struct edonio_sched *plan; /* that plan (a collective call's, made or taken), or NULL */
    int taken;                 /* the plan was an earlier call's: the same pattern again */
    long long call;            /* the collective call's number on the handle (sched.calls) */
};

/* What a pass does at the owners. */
enum edonio_coll_op {
    EDONIO_COLL_WRITE,  /* owners store the pieces */
    EDONIO_COLL_READ,   /* owners send the pieces' bytes back */
    EDONIO_COLL_DETECT, /* owners note which processes' pieces overlap (no data moves) */
};

/* After a write pass, which blocks the owners write back (and forget) at once. */
enum edonio_coll_keep {
    EDONIO_KEEP_ALL,     /* none: the cache keeps them dirty */
    EDONIO_KEEP_REACHED, /* those written by processes the owner does not reach: their writers
                          * read them back from the file, which must have them */
    EDONIO_KEEP_NONE,    /* all, and forget them (atomic mode across nodes: nothing cached) */
};

/* One collective pass over a request. */
struct edonio_pass {
    struct edonio_cache *cache;
    MPI_Comm comm;           /* the cache's processes, in its order */
    struct edonio_stats *st; /* the calling handle's counters */
    ADIO_Offset budget;      /* bytes one process sends per round at most */
    enum edonio_coll_op op;
    enum edonio_coll_keep keep;
    struct edonio_edges *edges; /* EDONIO_COLL_DETECT: the pairs found here */
    /* A write or a read across nodes whose plan is kept (ad_edonio_sched.h): its exchange is
     * recorded into record->x, round by round, stamped with call; or, when every process agreed
     * to (io_coll.c, plan_write and plan_read), the exchange recorded in reuse is made again,
     * round by round: data only. Neither for a DETECT pass or an atomic write's colours. */
    struct edonio_sched *record;
    long long call;
    struct edonio_xlayout *reuse;
    ADIO_Offset kept_max; /* the memory a recorded pass may keep, all its rounds */
};

void ADIOI_EDONIO_Req_init(ADIO_File fd, struct edonio_req *req, const void *buf, int count,
                           MPI_Datatype datatype, int file_ptr_type, ADIO_Offset offset);
/* The same for a collective call: its plan kept by the handle, or taken from it (issue 43 A). */
void ADIOI_EDONIO_Req_init_coll(ADIO_File fd, struct edonio_req *req, int writing, const void *buf,
                                int count, MPI_Datatype datatype, int file_ptr_type,
                                ADIO_Offset offset);
void ADIOI_EDONIO_Req_pieces(struct edonio_req *req, ADIO_Offset *off, ADIO_Offset *len,
                             char **where, int64_t n);
void ADIOI_EDONIO_Req_free(struct edonio_req *req);
/* Bytes of the request before the file's end (what a read of it gets; past the end it is short). */
MPI_Count ADIOI_EDONIO_Req_bytes_before(const struct edonio_req *req, ADIO_Offset size);
void ADIOI_EDONIO_Mem_copy(struct edonio_mem *m, char *data, ADIO_Offset n, int to_mem);
/* The longest span one read serves for a request's small pieces (ROMIO's ind_rd_buffer_size). */
enum { EDONIO_SIEVE_MAX = 4 << 20 };
int ADIOI_EDONIO_Req_independent(struct edonio_cache *c, struct edonio_stats *st, ADIO_Offset chunk,
                                 struct edonio_req *req, int writing);
void ADIOI_EDONIO_Coll_window(const struct edonio_req *req, ADIO_Offset budget, long long w[2]);
int ADIOI_EDONIO_Coll_run(const struct edonio_pass *pass, struct edonio_req *req, int active,
                          const long long *first, int *anyone);
/*
 * Buffers a collective pass takes again from round to round (ad_edonio_coll.c): memory touched for
 * the first time costs more than a copy into warm memory (0.75 against 0.25 ms per MiB on the
 * 2-core VM of 2026-11-26), and glibc maps every allocation of 128 KiB or more afresh.
 */
enum { EDONIO_BUFS_MAX = 8 };
struct edonio_bufs {
    struct edonio_buf {
        char *p;
        size_t cap;
        int busy;
    } b[EDONIO_BUFS_MAX];
    int n;
};

/*
 * Collective: send out[k].bytes at out[k].data to out[k].peer (peers distinct; this process's own
 * is not sent but handed back), and receive what the others send here: *in, sorted by peer, freed
 * with ADIOI_EDONIO_Msgs_free; what arrives is received into buffers from pool (or malloc's, when
 * NULL). A process pays for its partners only (ad_edonio_coll.c).
 */
void ADIOI_EDONIO_Sparse_exchange(MPI_Comm comm, int tag, const struct edonio_msg *out, int nout,
                                  struct edonio_msg **in, int *nin, struct edonio_bufs *pool);
void ADIOI_EDONIO_Msgs_free(struct edonio_msg *m, int n, struct edonio_bufs *pool);

/* MPI_Waitall without statuses (GCC's -Wstringop-overflow takes MPICH's MPI_STATUSES_IGNORE for
 * an array of no statuses where it inlines the call, and warns), yielding where the processes
 * crowd their machine (ADIOI_EDONIO_Wait). */
static inline void edonio_wait_all(int crowded, int n, MPI_Request *rq)
{
    for (int k = 0; k < n; k++)
        ADIOI_EDONIO_Wait(crowded, &rq[k]);
}

/* Atomic mode (ad_edonio_atomic.c). */
int ADIOI_EDONIO_Coloured_write(const struct edonio_pass *pass, struct edonio_req *req);
int ADIOI_EDONIO_Locked_io(ADIO_File fd, struct edonio_req *req, int writing);

#endif /* AD_EDONIO_COLL_H_INCLUDED */
