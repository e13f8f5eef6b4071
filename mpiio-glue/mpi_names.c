/*
 * edonio: the MPI_ names of the error calls in errhandler.c and error.c call their PMPI_ ones, as in
 * any MPI library, so a tool that intercepts MPI_ calls still sees them and can reach PMPI_.
 *
 * Kept apart from errhandler.c because ROMIO's headers rename MPI_ calls to PMPI_ ones.
 */
#include <mpi.h>

int MPI_File_create_errhandler(MPI_File_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    return PMPI_File_create_errhandler(fn, errhandler);
}

int MPI_File_set_errhandler(MPI_File fh, MPI_Errhandler errhandler)
{
    return PMPI_File_set_errhandler(fh, errhandler);
}

int MPI_File_get_errhandler(MPI_File fh, MPI_Errhandler *errhandler)
{
    return PMPI_File_get_errhandler(fh, errhandler);
}

int MPI_File_call_errhandler(MPI_File fh, int errorcode)
{
    return PMPI_File_call_errhandler(fh, errorcode);
}

int MPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    return PMPI_Errhandler_free(errhandler);
}

int MPI_Error_string(int errorcode, char *string, int *resultlen)
{
    return PMPI_Error_string(errorcode, string, resultlen);
}

/* The driver refreshes what it reports (edonio's statistics) before ROMIO copies the info. */
void ADIOI_EDONIO_Refresh_info(MPI_File fh);

int MPI_File_get_info(MPI_File fh, MPI_Info *info_used)
{
    ADIOI_EDONIO_Refresh_info(fh);
    return PMPI_File_get_info(fh, info_used);
}
