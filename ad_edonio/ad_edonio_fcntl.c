/*
 * edonio: file size, preallocation, atomicity, sync and resize.
 *
 * The size of an edonio file is what has been written, cached or not (EDONIO tracked the largest
 * byte written), so MPI_File_get_size needs no sync. Sync writes every dirty block back, each
 * owner its own, then fsyncs; resize drops or cuts cached blocks past the new end.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ad_edonio.h"
#include "adioi.h"

/*
 * Collective (MPI_File_sync): every dirty block written back and fsynced, and every clean one
 * dropped, so that after sync-barrier-sync this handle sees what other handles of the file wrote
 * (MPI's consistency rule; PnetCDF, for one, opens a file twice). The file's size is then what
 * the file system says. Every process returns the same outcome.
 */
static void flush_all(ADIO_File fd, const char *myname, int *error_code)
{
    struct edonio_file *ef = edonio_state(fd);
    /* An alias writes back what this process owns in the shared cache, and keeps the rest. */
    int err = ADIOI_EDONIO_Cache_flush_grouped(fd, ef->primary == NULL);
    struct stat st;

    if (err == 0 && fsync(fd->fd_sys) != 0)
        err = errno;
    *error_code = err ? ADIOI_EDONIO_Err(myname, fd->filename, err) : MPI_SUCCESS;
    ADIOI_EDONIO_Agree(ef->comm, error_code);
    if (*error_code != MPI_SUCCESS || ef->primary != NULL)
        return; /* some dirty data is still cached: the size stays what was written */
    if (ef->rank == 0 && fstat(fd->fd_sys, &st) == 0) {
        ADIOI_EDONIO_Size_set(ef, EDONIO_SIZE_FILE, st.st_size);
        ADIOI_EDONIO_Size_set(ef, EDONIO_SIZE_DISK, st.st_size);
    }
    MPI_Barrier(ef->comm);
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
    if (ef->primary != NULL)
        ADIOI_EDONIO_Cache_trim_all(fd, size); /* an alias alone: every owner's blocks */
    else
        ADIOI_EDONIO_Cache_trim_mine(fd, size);
    if (ef->rank == 0 || ef->primary != NULL) {
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
