/*
 * edonio: a segment's lock, taken by the node's processes and by their keepers.
 *
 * The lock word holds the pid of its holder (0: free). A process killed while it holds the lock
 * must not stall the others for ever: the job's processes die together, but a keeper can be killed
 * alone (by the OOM killer, or a user) in the middle of a write-back, with the processes it serves
 * still running. A waiter that has waited a while looks at the holder and takes the lock over
 * when that process is gone (or a zombie). What a dead holder was doing is harmless to redo: a
 * keeper clears a slot's dirty extents only after their bytes are in the file.
 */
#ifndef AD_EDONIO_SEGLOCK_H_INCLUDED
#define AD_EDONIO_SEGLOCK_H_INCLUDED

#include "ad_edonio_segment.h"

/* Take seg's lock, waiting as long as its holder lives. */
void edonio_seglock_take(struct edonio_segment *seg);
/* Take seg's lock unless it stays taken by a live holder for wait_ms: 1 taken, 0 not. */
int edonio_seglock_try(struct edonio_segment *seg, double wait_ms);
void edonio_seglock_give(struct edonio_segment *seg);

/* Has process pid ended (gone, or a zombie nobody has reaped yet)? */
int edonio_seglock_gone(int pid);

#endif
