/*
 * edonio: what NX programs (Intel Paragon) need of the NX environment, on MPI_COMM_WORLD: the node
 * number and count, a global integer sum, the clock and the global barrier. MPI is started by the
 * first of these calls if the program has not started it (and finalized at exit).
 *
 * The symbols are prefixed (nx_...); define EDONIO_NX_NAMES before including this header to get
 * the NX names (mynode(), numnodes(), gisum(), dclock(), gsync()) as macros.
 * Fortran (include 'fnx.h'): mynode, numnodes, gisum, dclock, gsync.
 */
#ifndef EDONIO_NX_H_INCLUDED
#define EDONIO_NX_H_INCLUDED

#ifdef __cplusplus
extern "C" {
#endif

long nx_mynode(void);
long nx_numnodes(void);
/* x[0..n) summed over all nodes, in place; work is scratch of n elements (NX's signature). */
void nx_gisum(long x[], long n, long work[]);
/* Seconds, as a double (MPI_Wtime). */
double nx_dclock(void);
void nx_gsync(void);

#ifdef EDONIO_NX_NAMES
#define mynode   nx_mynode
#define numnodes nx_numnodes
#define gisum    nx_gisum
#define dclock   nx_dclock
#define gsync    nx_gsync
#endif

#ifdef __cplusplus
}
#endif

#endif /* EDONIO_NX_H_INCLUDED */
