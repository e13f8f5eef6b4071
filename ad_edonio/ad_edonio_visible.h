/*
 * edonio: what MPI_Barrier and MPI_Ibarrier hand over across nodes (ad_edonio_visible.c).
 *
 * The calls the library's MPI_Barrier and MPI_Ibarrier (mpiio-glue/barrier.c) make of the driver,
 * and the way its waits poll.
 * This header needs nothing but mpi.h: barrier.c defines MPI_ names, which ROMIO's headers would
 * rename to PMPI_ ones.
 */
#ifndef AD_EDONIO_VISIBLE_H_INCLUDED
#define AD_EDONIO_VISIBLE_H_INCLUDED

#include <mpi.h>
#include <stdint.h>

/*
 * One poll of a wait that found nothing yet (ad_edonio_common.c): where crowded, every 8th gives
 * the processor away (sched_yield), so that the process waited for may run on it. The driver's
 * waits and the library's barrier rounds poll with it; *idle counts the polls, 0 to start.
 */
void ADIOI_EDONIO_Idle(int crowded, int *idle);

/* Has this process written, since the last collective flush, to a file whose processes span
 * nodes? 1 or 0. Local. */
int ADIOI_EDONIO_Visible_pending(void);

/*
 * After the barrier's word on comm said that some process of comm has (every process of comm makes
 * this call): every file open here whose processes are all in comm, in the order it was opened,
 * puts what its processes wrote where every process reads it. Collective over each such file.
 */
void ADIOI_EDONIO_Visible_barrier(MPI_Comm comm);

/*
 * MPI_Ibarrier: a process that cannot wait for the others makes its own writes (to files whose
 * processes are all in comm) reach the file before it enters, and the files' ids go in the record
 * that its completion hands to ADIOI_EDONIO_Visible_done.
 */
struct edonio_ibarrier {
    int mine;        /* 1 when this process wrote to one of the files, else 0 */
    int any;         /* the MPI_Iallreduce's MPI_MAX of them: the program's request */
    int n;           /* files whose processes are all in comm */
    uint64_t *ids;   /* their caches' ids */
    MPI_Request req; /* the request the program waits for */
    struct edonio_ibarrier *next;
};

/* A record for MPI_Ibarrier on comm (writes made visible, ids taken), or NULL when out of memory. */
struct edonio_ibarrier *ADIOI_EDONIO_Visible_ibarrier(MPI_Comm comm);
/* The program saw the request complete: forget this node's copies the others' writes made stale,
 * when some process wrote. Frees the record. Local. */
void ADIOI_EDONIO_Visible_done(struct edonio_ibarrier *b);

#endif /* AD_EDONIO_VISIBLE_H_INCLUDED */
