/*
 * edonio: hints.
 *
 * ROMIO's generic hints first, then edonio's own. The read-only keys romio_edonio_version and
 * romio_edonio_romio_version tell a program (and the tests) that edonio serves the file, and which
 * ROMIO it was built with.
 */
#include "ad_edonio.h"
#include "adioi.h"
#include "edonio.h"

void ADIOI_EDONIO_SetInfo(ADIO_File fd, MPI_Info users_info, int *error_code)
{
    ADIOI_GEN_SetInfo(fd, users_info, error_code);
    if (*error_code != MPI_SUCCESS)
        return;
    /* Every process of an edonio file takes part in its I/O: no deferred open. */
    fd->hints->deferred_open = 0;
    ADIOI_Info_set(fd->info, EDONIO_VERSION_KEY, edonio_version());
    ADIOI_Info_set(fd->info, EDONIO_ROMIO_VERSION_KEY, edonio_romio_version());
}
