/*
 * edonio: the PFS-style API's I/O modes on ADIO (the ADIO paper, section 4.1.4).
 *
 *   M_UNIX    a pointer per node; contiguous I/O under ROMIO's byte-range lock (atomic)
 *   M_ASYNC   a pointer per node; no lock
 *   M_RECORD  a pointer per node, moved alike on all: record of node r at fp + r*len, fp += P*len
 *   M_LOG     ROMIO's shared file pointer (ADIO_Get_shared_fp): first come first served
 *   M_SYNC    collective: offset = fp + lengths of lower nodes (MPI_Exscan), ADIO's collective
 *             strided calls; fp moves past the last byte moved
 *   M_GLOBAL  collective: node 0 reads and broadcasts, or writes once; fp moves alike on all
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "edonio_pfs.h"
#include "legacy_pfs.h"
#include "adioi.h"

int legacy_pfs_mode_valid(int mode)
{
    return mode >= M_UNIX && mode <= M_ASYNC;
}

int legacy_pfs_mode_collective(int mode)
{
    return mode == M_SYNC || mode == M_GLOBAL;
}

/* The ADIO shared pointer's value (M_LOG), or -1. */
static ADIO_Offset shared_get(struct legacy_file *f, ADIO_Offset advance)
{
    ADIO_Offset off = 0;
    int err = MPI_SUCCESS;

    if (!f->shared_fp) {
        errno = ENOTSUP;
        return -1;
    }
    ADIO_Get_shared_fp(f->fd, advance, &off, &err);
    return err == MPI_SUCCESS ? off : (legacy_errno(err), -1);
}

static int shared_set(struct legacy_file *f, ADIO_Offset off)
{
    int err = MPI_SUCCESS;

    if (!f->shared_fp) {
        errno = ENOTSUP;
        return -1;
    }
    ADIO_Set_shared_fp(f->fd, off, &err);
    return err == MPI_SUCCESS ? 0 : (legacy_errno(err), -1);
}

ADIO_Offset legacy_pfs_pointer(struct legacy_file *f)
{
    switch (f->iomode) {
        case M_LOG:
            return shared_get(f, 0);
        case M_SYNC:
        case M_GLOBAL:
            return f->shared;
        default:
            return f->pos;
    }
}

int legacy_pfs_set_pointer(struct legacy_file *f, ADIO_Offset off)
{
    switch (f->iomode) {
        case M_LOG:
            return shared_set(f, off);
        case M_SYNC:
        case M_GLOBAL:
            f->shared = off;
            return 0;
        default:
            f->pos = off;
            return 0;
    }
}

/* Collective: the new mode; node 0's pointer becomes the pointer of the new mode. 0 or -1. */
int legacy_pfs_change_mode(struct legacy_file *f, int mode)
{
    long long p;
    int ok = legacy_pfs_mode_valid(mode) || (errno = EINVAL, 0);

    if (legacy_agree(f->fd->comm, ok) != 0)
        return -1;
    p = f->rank == 0 ? legacy_pfs_pointer(f) : 0;
    if (legacy_agree(f->fd->comm, p >= 0) != 0)
        return -1;
    MPI_Bcast(&p, 1, MPI_LONG_LONG, 0, f->fd->comm);
    f->iomode = mode;
    if (mode == M_LOG) {
        ok = f->rank != 0 || legacy_pfs_set_pointer(f, p) == 0;
        return legacy_agree(f->fd->comm, ok);
    }
    f->pos = f->shared = p;
    return 0;
}

/* M_SYNC: node order, variable lengths. */
static ssize_t sync_transfer(struct legacy_file *f, void *buf, size_t n, int writing)
{
    long long len = (long long)n, before = 0, end, last;
    ssize_t got;

    MPI_Exscan(&len, &before, 1, MPI_LONG_LONG, MPI_SUM, f->fd->comm);
    if (f->rank == 0)
        before = 0;
    ADIO_Offset off = f->shared + before;
    got = writing ? legacy_pwrite_all(f, buf, n, off) : legacy_pread_all(f, buf, n, off);
    if (got < 0)
        return -1;
    end = got > 0 ? off + got : f->shared;
    MPI_Allreduce(&end, &last, 1, MPI_LONG_LONG, MPI_MAX, f->fd->comm);
    f->shared = last;
    return got;
}

/* M_GLOBAL: the same request on every node; node 0 does it, everybody gets its outcome. */
static ssize_t global_transfer(struct legacy_file *f, void *buf, size_t n, int writing)
{
    long long mine = (long long)n, range[2] = {-mine, mine}, out[2];
    long long res[2] = {0, 0}; /* bytes moved or -1, errno */

    MPI_Allreduce(range, out, 2, MPI_LONG_LONG, MPI_MAX, f->fd->comm);
    if (-out[0] != out[1] || n > INT_MAX) { /* different lengths: not M_GLOBAL's contract */
        errno = EINVAL;
        return -1;
    }
    if (f->rank == 0) {
        res[0] = writing ? legacy_pwrite(f, buf, n, f->shared, 0)
                         : legacy_pread(f, buf, n, f->shared, 0);
        res[1] = errno;
    }
    MPI_Bcast(res, 2, MPI_LONG_LONG, 0, f->fd->comm);
    if (res[0] < 0) {
        errno = (int)res[1];
        return -1;
    }
    if (!writing)
        MPI_Bcast(buf, (int)res[0], MPI_BYTE, 0, f->fd->comm);
    f->shared += res[0];
    return (ssize_t)res[0];
}

/* The offset of an independent request in the current mode, the pointer moved past it (at issue,
 * by the length asked for); -1 on error. */
ADIO_Offset legacy_pfs_claim(struct legacy_file *f, size_t n)
{
    ADIO_Offset off;

    switch (f->iomode) {
        case M_LOG:
            return shared_get(f, (ADIO_Offset)n);
        case M_RECORD:
            off = f->pos + (ADIO_Offset)f->rank * (ADIO_Offset)n;
            f->pos += (ADIO_Offset)f->nprocs * (ADIO_Offset)n;
            return off;
        default:
            off = f->pos;
            f->pos += (ADIO_Offset)n;
            return off;
    }
}

ssize_t legacy_pfs_transfer(struct legacy_file *f, void *buf, size_t n, int writing)
{
    ADIO_Offset off, before = f->pos;
    ssize_t got;
    int lock = f->iomode == M_UNIX;

    if (f->iomode == M_SYNC)
        return sync_transfer(f, buf, n, writing);
    if (f->iomode == M_GLOBAL)
        return global_transfer(f, buf, n, writing);
    if ((off = legacy_pfs_claim(f, n)) < 0)
        return -1;
    got = writing ? legacy_pwrite(f, buf, n, off, lock) : legacy_pread(f, buf, n, off, lock);
    if (f->iomode == M_UNIX || f->iomode == M_ASYNC) /* Unix: the pointer moves by what moved */
        f->pos = got < 0 ? before : before + got;
    return got;
}
