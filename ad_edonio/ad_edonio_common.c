/*
 * edonio: errors. One translator from errno to MPI error codes (the class, and a message that names
 * the operation, the cause and the file), the agreement that makes every process of a collective
 * call report the same outcome in one collective, and byte-range locks.
 */
#include <errno.h>
#include <fcntl.h>
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
        default: /* EIO, EFBIG, short transfers, and the rest */
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
 * Up to this many processes an agreement gathers every process's pair and takes the maxima
 * itself: MPICH's allgather of 16 bytes costs half its allreduce at 2 processes (0.30 against
 * 0.68 us per call, on one node and across simulated nodes), and collective reads and writes make
 * one agreement per call. Beyond it the gathered pairs would grow with the processes.
 */
enum { AGREE_GATHER_MAX = 16 };

/* The elementwise maxima of every process's two values, the same on every process. */
static void max_of_all(MPI_Comm comm, int nprocs, const long long mine[2], long long all[2])
{
    long long pairs[2 * AGREE_GATHER_MAX];

    if (nprocs > AGREE_GATHER_MAX) {
        MPI_Allreduce(mine, all, 2, MPI_LONG_LONG, MPI_MAX, comm);
        return;
    }
    MPI_Allgather(mine, 2, MPI_LONG_LONG, pairs, 2, MPI_LONG_LONG, comm);
    all[0] = pairs[0];
    all[1] = pairs[1];
    for (int i = 1; i < nprocs; i++) {
        all[0] = pairs[2 * i] > all[0] ? pairs[2 * i] : all[0];
        all[1] = pairs[2 * i + 1] > all[1] ? pairs[2 * i + 1] : all[1];
    }
}

/*
 * Collective: one collective (max_of_all) of the lowest failing rank with its errno, and of a
 * value. Every process returns an error if any failed: the failing one its own, the others one of
 * the same class that names the failing process. *max is the largest value (when not NULL).
 */
int ADIOI_EDONIO_Agree_max(MPI_Comm comm, const char *myname, const char *filename, int my_errno,
                           long long value, long long *max)
{
    long long mine[2] = {0, value}, all[2];
    char text[MPI_MAX_ERROR_STRING];
    int rank, nprocs, first;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nprocs);
    if (my_errno != 0) /* the lowest failing rank wins the maximum */
        mine[0] = ((long long)(nprocs - rank) << 32) | (unsigned)my_errno;
    max_of_all(comm, nprocs, mine, all);
    if (max != NULL)
        *max = all[1];
    if (all[0] == 0)
        return MPI_SUCCESS;
    if (my_errno != 0)
        return ADIOI_EDONIO_Err(myname, filename, my_errno);
    first = nprocs - (int)(all[0] >> 32);
    snprintf(text, sizeof(text), "%s (failed on process %d)", filename, first);
    return ADIOI_EDONIO_Err(myname, text, (int)(all[0] & 0xffffffff));
}

/* The same, with a flag: *any is whether any process raised it. */
int ADIOI_EDONIO_Agree_flag(MPI_Comm comm, const char *myname, const char *filename, int my_errno,
                            int flag, int *any)
{
    long long max = 0;
    int code = ADIOI_EDONIO_Agree_max(comm, myname, filename, my_errno, flag != 0, &max);

    *any = max != 0;
    return code;
}

int ADIOI_EDONIO_Agree(MPI_Comm comm, const char *myname, const char *filename, int my_errno)
{
    return ADIOI_EDONIO_Agree_max(comm, myname, filename, my_errno, 0, NULL);
}

/*
 * A byte-range lock of the file (F_WRLCK, F_RDLCK or F_UNLCK) over [start, start + len), waiting
 * for it. errno or 0.
 */
int ADIOI_EDONIO_Lock_range(int fd_sys, int type, ADIO_Offset start, ADIO_Offset len)
{
    struct flock lock;

    memset(&lock, 0, sizeof(lock));
    lock.l_type = (short)type;
    lock.l_whence = SEEK_SET;
    lock.l_start = (off_t)start;
    lock.l_len = (off_t)len;
    while (fcntl(fd_sys, F_SETLKW, &lock) != 0)
        if (errno != EINTR)
            return errno;
    return 0;
}
