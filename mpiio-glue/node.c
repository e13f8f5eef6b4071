/*
 * edonio: which node is a process on? Answered with the public MPI API.
 *
 * ROMIO uses the answer to group processes that share a node (MPIX_Comm_split_filesystem). The
 * id of a node is the lowest rank in comm among the processes that share its memory, as
 * MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) sees them. Collective over comm, as all ROMIO's
 * callers are; only the caller's own id can be asked for.
 */
#include "glue.h"

int MPIR_Get_node_id(MPI_Comm comm, int rank, int *id)
{
    MPI_Comm node;
    int me, err;

    MPI_Comm_rank(comm, &me);
    if (rank != me)
        return MPI_ERR_RANK;
    err = MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &node);
    if (err != MPI_SUCCESS)
        return err;
    err = MPI_Allreduce(&me, id, 1, MPI_INT, MPI_MIN, node);
    MPI_Comm_free(&node);
    return err;
}
