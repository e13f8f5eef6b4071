/*
 * edonio: errors. One translator from errno to MPI error codes (the class, and a message that names
 * the operation, the cause and the file), the agreement that makes every process of a collective
 * call report the same outcome in one collective, and byte-range locks.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
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

/* ------------------------------------------------------------------ waiting for the others */

/*
 * Do the processes of a file crowd a machine: more of them on it than processors they may run on?
 * Then a process that waits in a blocking collective busy-polls on a processor that the process it
 * waits for needs: MPICH's MPI_Allgather of 24 bytes took 4-5 ms a call (a scheduler's time slice)
 * at 4 processes on 2 processors, against 11-19 us for MPI_Iallgather tested in a loop that gives
 * the processor away (sched_yield) after a few polls without progress (and 0.7 against 1.9 us
 * where each process has a processor of its own: there the blocking calls stay).
 * Whether a collective is blocking or not must be the same on every process (MPI matches neither
 * with the other), so the answer is the communicator's: an attribute of the handle's
 * communicator, set by every process alike from the open's records (ADIOI_EDONIO_Crowd_set).
 */
static int crowd_keyval = MPI_KEYVAL_INVALID;

/* Tests without progress before a waiting process gives its processor away. */
enum { IDLE_POLLS = 8 };

void ADIOI_EDONIO_Crowd_set(MPI_Comm comm, int crowded)
{
    if (crowd_keyval == MPI_KEYVAL_INVALID)
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &crowd_keyval, NULL);
    MPI_Comm_set_attr(comm, crowd_keyval, crowded ? (void *)&crowd_keyval : NULL);
}

int ADIOI_EDONIO_Crowded(MPI_Comm comm)
{
    void *value = NULL;
    int found = 0;

    if (crowd_keyval != MPI_KEYVAL_INVALID)
        MPI_Comm_get_attr(comm, crowd_keyval, &value, &found);
    return found && value != NULL;
}

void ADIOI_EDONIO_Idle(int crowded, int *idle)
{
    if (crowded && ++*idle >= IDLE_POLLS) {
        sched_yield();
        *idle = 0;
    }
}

void ADIOI_EDONIO_Wait(int crowded, MPI_Request *req)
{
    int done = 0, idle = 0;

    if (!crowded) {
        MPI_Wait(req, MPI_STATUS_IGNORE);
        return;
    }
    for (MPI_Test(req, &done, MPI_STATUS_IGNORE); !done; MPI_Test(req, &done, MPI_STATUS_IGNORE))
        ADIOI_EDONIO_Idle(1, &idle);
}

void ADIOI_EDONIO_Barrier(MPI_Comm comm)
{
    MPI_Request req;

    if (!ADIOI_EDONIO_Crowded(comm)) {
        MPI_Barrier(comm);
        return;
    }
    PMPI_Ibarrier(comm, &req); /* not the library's own (mpiio-glue/barrier.c) */
    ADIOI_EDONIO_Wait(1, &req);
}

void ADIOI_EDONIO_Allgather_open(const void *mine, int bytes, void *all, MPI_Comm comm)
{
    MPI_Request req;

    MPI_Iallgather(mine, bytes, MPI_BYTE, all, bytes, MPI_BYTE, comm, &req);
    ADIOI_EDONIO_Wait(1, &req);
}

/*
 * Up to this many processes a reduction of a few values gathers every process's values and
 * reduces them itself: MPICH's allgather of 16 bytes costs half its allreduce at 2 processes
 * (0.30 against 0.68 us per call, on one node and across simulated nodes; 0.9 against 2.4 us on
 * the 2-core machine of 2026-11-26), and collective reads and writes make one or two per call.
 * Beyond it the gathered values would grow with the processes.
 */
enum { SMALL_GATHER_MAX = 16 };

/* Collective: the elementwise MPI_MIN or MPI_MAX (op) of every process's n values, n <= 4. */
void ADIOI_EDONIO_Reduce_small(MPI_Comm comm, MPI_Op op, int n, const long long *mine,
                               long long *all)
{
    long long got[EDONIO_REDUCE_SMALL_MAX * SMALL_GATHER_MAX];
    int nprocs;

    MPI_Comm_size(comm, &nprocs);
    int crowded = ADIOI_EDONIO_Crowded(comm);
    MPI_Request req;
    if (nprocs > SMALL_GATHER_MAX || n > EDONIO_REDUCE_SMALL_MAX) {
        if (!crowded) {
            MPI_Allreduce(mine, all, n, MPI_LONG_LONG, op, comm);
            return;
        }
        MPI_Iallreduce(mine, all, n, MPI_LONG_LONG, op, comm, &req);
        ADIOI_EDONIO_Wait(1, &req);
        return;
    }
    if (!crowded) {
        MPI_Allgather(mine, n, MPI_LONG_LONG, got, n, MPI_LONG_LONG, comm);
    } else {
        MPI_Iallgather(mine, n, MPI_LONG_LONG, got, n, MPI_LONG_LONG, comm, &req);
        ADIOI_EDONIO_Wait(1, &req);
    }
    for (int k = 0; k < n; k++) {
        all[k] = got[k];
        for (int i = 1; i < nprocs; i++) {
            long long v = got[i * n + k];
            if (op == MPI_MIN ? v < all[k] : v > all[k])
                all[k] = v;
        }
    }
}

/*
 * Collective: one reduction (ADIOI_EDONIO_Reduce_small) of the lowest failing rank with its errno,
 * and of a value. Every process returns an error if any failed: the failing one its own, the
 * others one of the same class that names the failing process. *max is the largest value (when
 * not NULL).
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
    ADIOI_EDONIO_Reduce_small(comm, MPI_MAX, 2, mine, all);
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
