/*
 * edonio: file size, preallocation, atomicity, sync and resize.
 *
 * The size of an edonio file is what has been written, cached or not (EDONIO tracked the largest
 * byte written), so MPI_File_get_size needs no sync. Sync writes every dirty block back, each
 * owner its own, then fsyncs; resize drops or cuts cached blocks past the new end.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "ad_edonio.h"
#include "adioi.h"

/* Collective: on success every process's failure is agreed on (ADIOI_EDONIO_Agree). */
static void flush_all(ADIO_File fd, const char *myname, int *error_code)
{
    struct edonio_file *ef = edonio_state(fd);
    int err = ADIOI_EDONIO_Cache_flush_mine(fd);

    if (err == 0 && fsync(fd->fd_sys) != 0)
        err = errno;
    *error_code = err ? ADIOI_EDONIO_Err(myname, fd->filename, err) : MPI_SUCCESS;
    ADIOI_EDONIO_Agree(ef->comm, error_code);
}

void ADIOI_EDONIO_Flush(ADIO_File fd, int *error_code)
{
    static char myname[] = "ADIOI_EDONIO_FLUSH";

    if (edonio_state(fd)->access == EDONIO_ACCESS_NONE) {
        ADIOI_GEN_Flush(fd, error_code);
        return;
    }
    flush_all(fd, myname, error_code);
}

void ADIOI_EDONIO_Resize(ADIO_File fd, ADIO_Offset size, int *error_code)
{
    static char myname[] = "ADIOI_EDONIO_RESIZE";
    struct edonio_file *ef = edonio_state(fd);
    int err = 0;

    if (ef->access == EDONIO_ACCESS_NONE) {
        ADIOI_GEN_Resize(fd, size, error_code);
        return;
    }
    /* Nobody writes while the end moves: MPI_File_set_size is collective. */
    MPI_Barrier(ef->comm);
    ADIOI_EDONIO_Cache_trim_mine(fd, size);
    if (ef->rank == 0) {
        if (ftruncate(fd->fd_sys, size) != 0)
            err = errno;
        else
            ADIOI_EDONIO_Size_set(ef, EDONIO_SIZE_FILE, size);
        ADIOI_EDONIO_Size_set(ef, EDONIO_SIZE_DISK, size);
    }
    MPI_Barrier(ef->comm);
    *error_code = err ? ADIOI_EDONIO_Err(myname, fd->filename, err) : MPI_SUCCESS;
    ADIOI_EDONIO_Agree(ef->comm, error_code);
}

/*
 * MPI_File_preallocate (EDONIO's do_lsize): space on disk, and the file at least that long. ROMIO
 * calls this on rank 0 only, and synchronizes the processes afterwards.
 */
static void preallocate(ADIO_File fd, ADIO_Offset bytes, int *error_code)
{
    static char myname[] = "ADIOI_EDONIO_PREALLOCATE";
    struct edonio_file *ef = edonio_state(fd);
    int err = posix_fallocate(fd->fd_sys, 0, bytes);

    if (err == EOPNOTSUPP || err == EINVAL) /* file systems without fallocate */
        err = ADIOI_EDONIO_Size_get(ef, EDONIO_SIZE_FILE) < bytes && ftruncate(fd->fd_sys, bytes)
                  ? errno
                  : 0;
    if (err == 0)
        ADIOI_EDONIO_Size_max(ef, EDONIO_SIZE_FILE, bytes);
    ADIOI_EDONIO_Size_max(ef, EDONIO_SIZE_DISK, bytes);
    *error_code = err ? ADIOI_EDONIO_Err(myname, fd->filename, err) : MPI_SUCCESS;
}

void ADIOI_EDONIO_Fcntl(ADIO_File fd, int flag, ADIO_Fcntl_t *fcntl_struct, int *error_code)
{
    struct edonio_file *ef = edonio_state(fd);

    if (ef->access == EDONIO_ACCESS_NONE) {
        ADIOI_GEN_Fcntl(fd, flag, fcntl_struct, error_code);
        return;
    }
    switch (flag) {
        case ADIO_FCNTL_GET_FSIZE:
            fcntl_struct->fsize = ADIOI_EDONIO_Size_get(ef, EDONIO_SIZE_FILE);
            *error_code = MPI_SUCCESS;
            break;
        case ADIO_FCNTL_SET_DISKSPACE:
            preallocate(fd, fcntl_struct->diskspace, error_code);
            break;
        default: /* atomicity: ROMIO's generic handling */
            ADIOI_GEN_Fcntl(fd, flag, fcntl_struct, error_code);
            break;
    }
}
