/*
 * edonio: collective I/O through the block owners, shared by ad_edonio_coll.c (the exchange) and
 * ad_edonio_atomic.c (MPI atomic mode). Design: doc/design.md, doc/atomicity.md.
 */
#ifndef AD_EDONIO_COLL_H_INCLUDED
#define AD_EDONIO_COLL_H_INCLUDED

#include <stdint.h>

#include "ad_edonio.h"
#include "adioi.h"

#define EDONIO_COLL_NONE INT64_MAX /* no more bytes: the end of a request */

/* Where a request's bytes are in memory, walked once, in order. */
struct edonio_mem {
    char *buf;                 /* the user's buffer (contiguous: where the bytes start) */
    ADIOI_Flatlist_node *flat; /* the buffer type's blocks; NULL when contiguous */
    MPI_Aint extent;           /* of the buffer type */
    MPI_Count rep;             /* which copy of the type */
    MPI_Count blk;             /* which of its blocks */
    ADIO_Offset in_blk;        /* bytes of that block passed (contiguous: of the buffer) */
};

/* One process's part of a collective call: its file extents, in file order, and its memory. */
struct edonio_req {
    ADIO_Offset *off, *len; /* from ADIOI_Calc_my_off_len */
    int n;
    int i;                  /* the next extent */
    ADIO_Offset done;       /* bytes of extent i already taken */
    ADIO_Offset start, end; /* the first byte and one past the last; start NONE: nothing */
    ADIO_Offset bytes;      /* in all */
    struct edonio_mem mem;
};

/* What a pass over the request does at the owners. */
enum edonio_coll_op {
    EDONIO_COLL_WRITE,  /* owners store the pieces */
    EDONIO_COLL_READ,   /* owners send the pieces' bytes back */
    EDONIO_COLL_DETECT, /* owners note which processes' pieces overlap (no data moves) */
};

/* Pairs of processes whose pieces overlap (lower rank first), as owners find them. */
struct edonio_edges {
    int *pair;
    int n, cap;
};

void ADIOI_EDONIO_Req_init(ADIO_File fd, struct edonio_req *req, const void *buf, int count,
                           MPI_Datatype datatype, int file_ptr_type, ADIO_Offset offset);
void ADIOI_EDONIO_Req_rewind(struct edonio_req *req);
void ADIOI_EDONIO_Req_free(struct edonio_req *req);
void ADIOI_EDONIO_Mem_copy(struct edonio_mem *m, char *data, ADIO_Offset n, int to_mem);
ADIO_Offset ADIOI_EDONIO_Coll_round_size(ADIO_File fd);
int ADIOI_EDONIO_Req_independent(ADIO_File fd, struct edonio_req *req, int writing);
int ADIOI_EDONIO_Coll_run(ADIO_File fd, struct edonio_req *req, int active,
                          enum edonio_coll_op op, struct edonio_edges *edges);

/* Atomic mode (ad_edonio_atomic.c). */
void ADIOI_EDONIO_Edges_find(struct edonio_edges *edges, const int64_t *hdr, const int *count,
                             const int *displ, int nprocs);
int ADIOI_EDONIO_Coloured_write(ADIO_File fd, struct edonio_req *req);
int ADIOI_EDONIO_Locked_io(ADIO_File fd, struct edonio_req *req, int writing);

#endif /* AD_EDONIO_COLL_H_INCLUDED */
