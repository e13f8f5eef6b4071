/*
 * edonio: what ROMIO needs from its host MPI, written with the public MPI API only.
 *
 * ROMIO built inside MPICH reaches into MPICH internals for error codes, error handlers and
 * datatype facts. edonio builds ROMIO on its own (configure --with-mpio-glue=external) and supplies
 * those hooks here, so that the same library runs over any MPI with the MPICH ABI.
 */
#ifndef EDONIO_GLUE_H_INCLUDED
#define EDONIO_GLUE_H_INCLUDED

#include <stddef.h>

#include <mpi.h>

/* The hooks ROMIO calls by these names (declared by ROMIO only implicitly or in its own headers). */
void MPIR_Datatype_iscontig(MPI_Datatype datatype, int *flag);
int MPIR_Get_node_id(MPI_Comm comm, int rank, int *id);
int MPIO_Datatype_iscommitted(MPI_Datatype datatype);
int MPIO_Err_name_file(int error_code, const char *filename);

/* An error code of this class whose MPI_Error_string is this text (error.c). */
int edonio_error_code(int error_class, const char *text);
/* Make the error codes every process must have alike before codes pass between them (error.c). */
void edonio_error_codes_init(void);

/* Error handlers for files (errhandler.c). */
int edonio_errhandler_invoke(MPI_File fh, MPI_Errhandler eh, int *error_code);
void edonio_errhandler_file_freed(MPI_File fh);

/* Readable text for ROMIO's "**key" message keys (messages.c); NULL when the key is unknown. */
const char *edonio_message_text(const char *key, size_t keylen);

#endif /* EDONIO_GLUE_H_INCLUDED */
