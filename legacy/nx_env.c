/*
 * edonio: the NX environment an NX or EDONIO program expects, on MPI_COMM_WORLD (C: nx_*,
 * edonio_nx.h; Fortran: mynode, numnodes, gisum, dclock, gsync, fnx.h).
 */
#include <stdlib.h>

#include "edonio_nx.h"
#include "legacy.h"

/* Fortran: called from Fortran only. */
int mynode_(void);
int numnodes_(void);
void gisum_(int *x, const int *n, int *work);
double dclock_(void);
void gsync_(void);

/* MPI up, or the program cannot go on. */
static void need_mpi(void)
{
    if (legacy_mpi_init() != 0)
        abort();
}

long nx_mynode(void)
{
    int rank;

    need_mpi();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

long nx_numnodes(void)
{
    int size;

    need_mpi();
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return size;
}

void nx_gisum(long x[], long n, long work[])
{
    (void)work;
    need_mpi();
    MPI_Allreduce(MPI_IN_PLACE, x, (int)n, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
}

double nx_dclock(void)
{
    need_mpi();
    return MPI_Wtime();
}

void nx_gsync(void)
{
    need_mpi();
    MPI_Barrier(MPI_COMM_WORLD);
}

int mynode_(void)
{
    return (int)nx_mynode();
}

int numnodes_(void)
{
    return (int)nx_numnodes();
}

void gisum_(int *x, const int *n, int *work)
{
    (void)work;
    need_mpi();
    MPI_Allreduce(MPI_IN_PLACE, x, *n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
}

double dclock_(void)
{
    return nx_dclock();
}

void gsync_(void)
{
    nx_gsync();
}
