/*
 * edonio: errors. One translator from errno to MPI error codes (the class, and a message that names
 * the operation, the cause and the file), and the agreement that makes every process of a
 * collective call report the same outcome.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ad_edonio.h"
#include "adioi.h"
#include "glue.h"

static int errno_class(int my_errno)
{
    switch (my_errno) {
        case ENOENT:
            return MPI_ERR_NO_SUCH_FILE;
        case EACCES:
        case EPERM:
            return MPI_ERR_ACCESS;
        case ENOSPC:
            return MPI_ERR_NO_SPACE;
        case EDQUOT:
            return MPI_ERR_QUOTA;
        case EEXIST:
            return MPI_ERR_FILE_EXISTS;
        case EROFS:
            return MPI_ERR_READ_ONLY;
        case ENAMETOOLONG:
        case ENOTDIR:
        case EISDIR:
            return MPI_ERR_BAD_FILE;
        case ENOMEM:
            return MPI_ERR_NO_MEM;
        default: /* EIO, short transfers, and the rest */
            return MPI_ERR_IO;
    }
}

/* The one translator: an errno from a file-system call on filename, as an MPI error code. */
int ADIOI_EDONIO_Err(const char *myname, const char *filename, int my_errno)
{
    char text[MPI_MAX_ERROR_STRING];

    snprintf(text, sizeof(text), "%s: %s: %s", myname, strerror(my_errno), filename);
    return edonio_error_code(errno_class(my_errno), text);
}

/*
 * Collective: if any process failed, every process returns an error of the class of the failure
 * on the lowest failing rank, with its message; a process that failed keeps its own code.
 */
void ADIOI_EDONIO_Agree(MPI_Comm comm, int *error_code)
{
    struct {
        int error_class;
        char text[MPI_MAX_ERROR_STRING];
    } failure;
    int rank, nprocs, mine, first, len = 0;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nprocs);
    mine = *error_code == MPI_SUCCESS ? nprocs : rank;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
    if (first == nprocs)
        return;
    if (rank == first) {
        MPI_Error_class(*error_code, &failure.error_class);
        MPI_Error_string(*error_code, failure.text, &len);
        failure.text[len] = '\0';
    }
    MPI_Bcast(&failure, sizeof(failure), MPI_BYTE, first, comm);
    if (*error_code == MPI_SUCCESS) {
        char text[MPI_MAX_ERROR_STRING + 64];
        snprintf(text, sizeof(text), "failed on process %d: %s", first, failure.text);
        *error_code = edonio_error_code(failure.error_class, text);
    }
}
