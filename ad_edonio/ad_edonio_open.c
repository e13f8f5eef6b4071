/*
 * edonio: open and close.
 *
 * Open makes the system file descriptor on one process. OpenColl is the collective part: every
 * process of the communicator opens the file (edonio's processes all take part in its I/O, so
 * ROMIO's deferred open is turned off) and sets up its per-file state. Close tears that state down
 * collectively and reports the statistics.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ad_edonio.h"
#include "adioi.h"

static int open_flags(int access_mode)
{
    int flags = 0;

    if (access_mode & ADIO_CREATE)
        flags |= O_CREAT;
    if (access_mode & ADIO_RDONLY)
        flags |= O_RDONLY;
    if (access_mode & ADIO_WRONLY)
        flags |= O_WRONLY;
    if (access_mode & ADIO_RDWR)
        flags |= O_RDWR;
    if (access_mode & ADIO_EXCL)
        flags |= O_EXCL;
    return flags;
}

static mode_t open_perm(ADIO_File fd)
{
    mode_t mask;

    if (fd->perm != ADIO_PERM_NULL)
        return (mode_t)fd->perm;
    mask = umask(022);
    umask(mask);
    return 0666 & ~mask;
}

void ADIOI_EDONIO_Open(ADIO_File fd, int *error_code)
{
    static char myname[] = "ADIOI_EDONIO_OPEN";

    fd->fd_direct = -1;
    fd->fd_sys = open(fd->filename, open_flags(fd->access_mode), open_perm(fd));
    if (fd->fd_sys == -1) {
        *error_code = ADIOI_EDONIO_Err(myname, fd->filename, errno);
        return;
    }
    if (fd->access_mode & ADIO_APPEND)
        fd->fp_ind = fd->fp_sys_posn = lseek(fd->fd_sys, 0, SEEK_END);
    *error_code = MPI_SUCCESS;
}

static int state_create(ADIO_File fd)
{
    struct edonio_file *ef = ADIOI_Calloc(1, sizeof(*ef));

    if (ef == NULL)
        return 0;
    MPI_Comm_rank(fd->comm, &ef->rank);
    MPI_Comm_size(fd->comm, &ef->nprocs);
    fd->fs_ptr = ef;
    return 1;
}

void ADIOI_EDONIO_OpenColl(ADIO_File fd, int rank, int access_mode, int *error_code)
{
    static char myname[] = "ADIOI_EDONIO_OPENCOLL";

    fd->hints->deferred_open = 0;
    ADIOI_GEN_OpenColl(fd, rank, access_mode, error_code);
    if (*error_code == MPI_SUCCESS && !state_create(fd))
        *error_code = MPIO_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, myname, __LINE__,
                                           MPI_ERR_NO_MEM, "**nomem2", 0);
    /* Every process keeps the file open, or none does, and all report the same error. */
    ADIOI_EDONIO_Agree(fd->comm, error_code);
    if (*error_code != MPI_SUCCESS && fd->fs_ptr != NULL) {
        ADIOI_Free(fd->fs_ptr);
        fd->fs_ptr = NULL;
    }
}

void ADIOI_EDONIO_Close(ADIO_File fd, int *error_code)
{
    /* Rank 0 also closes once during a create, before the collective open: no state then. */
    if (fd->fs_ptr != NULL) {
        ADIOI_EDONIO_Stats_report(fd);
        ADIOI_Free(fd->fs_ptr);
        fd->fs_ptr = NULL;
    }
    ADIOI_GEN_Close(fd, error_code);
}
