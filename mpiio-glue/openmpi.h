/*
 * edonio: ROMIO and the driver over Open MPI (4.1). Forced into every file of both (configure's
 * EDONIO_HOST_CPPFLAGS, adio/build-romio.sh --host-mpi openmpi); the MPICH build never sees it.
 *
 * - An MPI_File is ROMIO's file structure, as MPICH's mpi.h declares it: Open MPI's mpi.h names
 *   its own struct, so that name is made ROMIO's before mpi.h is read, and ROMIO's mpio.h is told
 *   that MPI_File is defined. A program compiled against Open MPI's mpi.h holds the same pointer.
 *   MPI_FILE_NULL stays Open MPI's (an address, not 0): MPIO_File_resolve maps it to NULL.
 * - MPI-2 combiners MPICH's mpi.h advertises to ROMIO (MPIIMPL_HAVE_*), which Open MPI's has.
 * - MPI-1 names MPI-3 removed, which ROMIO's flatten.c still names in case labels and
 *   comparisons: Open MPI 4.1 makes each a static assertion. They become the values Open MPI
 *   keeps for them (the combiners), or a type no datatype's contents ever hold (MPI_LB, MPI_UB).
 * - MPI-4 calls Open MPI 4.1 lacks, and MPICH's polled generalized requests
 *   (MPIX_Grequest_class_*), which ROMIO's nonblocking ufs requests are made of: declared here,
 *   defined in openmpi.c under names of edonio's own, so the library exports none of them.
 */
#ifndef EDONIO_OPENMPI_H_INCLUDED
#define EDONIO_OPENMPI_H_INCLUDED

#define ompi_file_t ADIOI_FileD
#define MPI_FILE_DEFINED
#define MPICH_ATTR_POINTER_WITH_TYPE_TAG(buffer_idx, type_idx)

#include <mpi.h>

#ifndef OPEN_MPI
#error "mpiio-glue/openmpi.h is for builds over Open MPI only"
#endif

/* What MPICH's mpi.h advertises and ROMIO's flatten.c asks before it flattens such types (without
 * them a subarray, darray or dup view aborts the job): Open MPI has them too. */
#define MPIIMPL_HAVE_MPI_COMBINER_DARRAY   1
#define MPIIMPL_HAVE_MPI_COMBINER_SUBARRAY 1
#define MPIIMPL_HAVE_MPI_COMBINER_DUP      1

#undef MPI_COMBINER_HVECTOR_INTEGER
#undef MPI_COMBINER_HINDEXED_INTEGER
#undef MPI_COMBINER_STRUCT_INTEGER
#define MPI_COMBINER_HVECTOR_INTEGER  OMPI_WAS_MPI_COMBINER_HVECTOR_INTEGER
#define MPI_COMBINER_HINDEXED_INTEGER OMPI_WAS_MPI_COMBINER_HINDEXED_INTEGER
#define MPI_COMBINER_STRUCT_INTEGER   OMPI_WAS_MPI_COMBINER_STRUCT_INTEGER
#undef MPI_LB
#undef MPI_UB
#define MPI_LB MPI_DATATYPE_NULL
#define MPI_UB MPI_DATATYPE_NULL

#if MPI_VERSION < 4
/* MPI-4's handler that aborts the communicator's processes only: here the fatal one does. */
#define MPI_ERRORS_ABORT MPI_ERRORS_ARE_FATAL

/* The large-count calls the driver makes, for counts that fit an int (MPI_ERR_COUNT otherwise). */
#define MPI_Isend_c                edonio_ompi_isend_c
#define MPI_Issend_c               edonio_ompi_issend_c
#define MPI_Irecv_c                edonio_ompi_irecv_c
#define MPI_Mrecv_c                edonio_ompi_mrecv_c
#define MPI_Get_count_c            edonio_ompi_get_count_c
#define MPI_Type_create_hindexed_c edonio_ompi_type_create_hindexed_c
int MPI_Isend_c(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag,
                MPI_Comm comm, MPI_Request *request);
int MPI_Issend_c(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag,
                 MPI_Comm comm, MPI_Request *request);
int MPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                MPI_Request *request);
int MPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype type, MPI_Message *message,
                MPI_Status *status);
int MPI_Get_count_c(const MPI_Status *status, MPI_Datatype type, MPI_Count *count);
int MPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count blocklengths[],
                               const MPI_Count displacements[], MPI_Datatype oldtype,
                               MPI_Datatype *newtype);
#endif

/* MPICH's polled generalized requests: the class's poll function is called from MPI_Wait,
 * MPI_Test and their kin (mpiio-glue/barrier.c) until it completes the request. */
typedef int MPIX_Grequest_class;
typedef int(MPIX_Grequest_poll_function)(void *extra_state, MPI_Status *status);
typedef int(MPIX_Grequest_wait_function)(int count, void **array_of_states, double timeout,
                                         MPI_Status *status);
#define PMPIX_Grequest_class_create   edonio_ompi_grequest_class_create
#define MPIX_Grequest_class_create    edonio_ompi_grequest_class_create
#define PMPIX_Grequest_class_allocate edonio_ompi_grequest_class_allocate
#define MPIX_Grequest_class_allocate  edonio_ompi_grequest_class_allocate
int MPIX_Grequest_class_create(MPI_Grequest_query_function *query_fn,
                               MPI_Grequest_free_function *free_fn,
                               MPI_Grequest_cancel_function *cancel_fn,
                               MPIX_Grequest_poll_function *poll_fn,
                               MPIX_Grequest_wait_function *wait_fn,
                               MPIX_Grequest_class *greq_class);
int MPIX_Grequest_class_allocate(MPIX_Grequest_class greq_class, void *extra_state,
                                 MPI_Request *request);

/* Progress the generalized requests of that kind among these requests (all of them if count < 0);
 * 1 if one or more of them is still pending afterwards. */
int edonio_ompi_greq_poll(int count, const MPI_Request requests[]);
/* Is any such request pending? */
extern int edonio_ompi_greq_pending;

#endif /* EDONIO_OPENMPI_H_INCLUDED */
