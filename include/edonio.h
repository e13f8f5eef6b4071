/*
 * edonio: the library's own public calls.
 */
#ifndef EDONIO_H_INCLUDED
#define EDONIO_H_INCLUDED

#ifdef __cplusplus
extern "C" {
#endif

/* The version of edonio, and of the ROMIO (from MPICH) it was built with. */
const char *edonio_version(void);
const char *edonio_romio_version(void);

/* An MPI error code of error_class whose MPI_Error_string is message (through the library's
 * MPI_Error_string: MPICH 4.0.2 misreads MPI_Add_error_string on predefined classes). For
 * libraries over edonio, such as libedonio_irregular. The message stays readable until 16 more
 * codes of its class were made. */
int edonio_error_code(int error_class, const char *message);

#ifdef __cplusplus
}
#endif

#endif /* EDONIO_H_INCLUDED */
