/*
 * edonio: the PFS-style API's asynchronous calls: iread/iwrite (ADIO_IreadContig and
 * ADIO_IwriteContig at the offset claimed from the current mode's pointer, which moves at issue),
 * iowait and iodone. In M_SYNC and M_GLOBAL the request is collective: it is done at issue and its
 * id is returned already complete.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "edonio_pfs.h"
#include "legacy_pfs.h"
#include "adioi.h"

/* One request; ids are index + 1 (0 is never an id). */
struct pfs_request {
    int used;
    int pending;         /* req is an ADIO request still to be completed */
    MPI_Request req;
    long done;           /* bytes moved, when not pending */
};

enum { REQ_GROW = 64 };

static struct pfs_request *reqs;
static long nreqs;

static long request_new(void)
{
    for (long i = 0; i < nreqs; i++)
        if (!reqs[i].used)
            return i + 1;
    struct pfs_request *bigger = realloc(reqs, (nreqs + REQ_GROW) * sizeof(*reqs));
    if (bigger == NULL) {
        errno = ENOMEM;
        return -1;
    }
    memset(bigger + nreqs, 0, REQ_GROW * sizeof(*reqs));
    reqs = bigger;
    nreqs += REQ_GROW;
    return nreqs - REQ_GROW + 1;
}

static struct pfs_request *request_get(long id)
{
    if (id < 1 || id > nreqs || !reqs[id - 1].used) {
        errno = EINVAL;
        return NULL;
    }
    return &reqs[id - 1];
}

/* Start the request: 0, or -1 and errno. */
static int start(struct legacy_file *f, struct pfs_request *r, void *buf, long n, int writing)
{
    ADIO_Offset off;
    int err = MPI_SUCCESS, lock = f->iomode == M_UNIX && ADIO_Feature(f->fd, ADIO_LOCKS);

    if (legacy_pfs_mode_collective(f->iomode)) {
        r->done = legacy_pfs_transfer(f, buf, (size_t)n, writing);
        return r->done < 0 ? -1 : 0;
    }
    if (writing ? f->accmode == O_RDONLY : f->accmode == O_WRONLY) {
        errno = EBADF;
        return -1;
    }
    if ((off = legacy_pfs_claim(f, (size_t)n)) < 0)
        return -1;
    if (lock) /* M_UNIX: atomic; the request is done within (ROMIO's generic Iread is blocking) */
        ADIOI_WRITE_LOCK(f->fd, off, SEEK_SET, n);
    if (writing)
        ADIO_IwriteContig(f->fd, buf, (int)n, MPI_BYTE, ADIO_EXPLICIT_OFFSET, off, &r->req, &err);
    else
        ADIO_IreadContig(f->fd, buf, (int)n, MPI_BYTE, ADIO_EXPLICIT_OFFSET, off, &r->req, &err);
    if (lock)
        ADIOI_UNLOCK(f->fd, off, SEEK_SET, n);
    if (err != MPI_SUCCESS)
        return legacy_errno(err), -1;
    r->pending = 1;
    return 0;
}

static long issue(int fd, void *buf, long n, int writing)
{
    struct legacy_file *f = legacy_get(fd, LEGACY_PFS);
    long id;

    if (f == NULL)
        return -1;
    if (n < 0 || n > INT_MAX) {
        errno = EINVAL;
        return -1;
    }
    if ((id = request_new()) < 0)
        return -1;
    struct pfs_request *r = &reqs[id - 1];
    memset(r, 0, sizeof(*r));
    if (start(f, r, buf, n, writing) != 0)
        return -1;
    r->used = 1;
    return id;
}

long pfs__iread(int fd, void *buf, long nbytes)
{
    return issue(fd, buf, nbytes, 0);
}

long pfs__iwrite(int fd, const void *buf, long nbytes)
{
    return issue(fd, (void *)buf, nbytes, 1);
}

long pfs_iread(int fd, void *buf, long nbytes)
{
    long id = pfs__iread(fd, buf, nbytes);

    if (id < 0)
        legacy_die("iread");
    return id;
}

long pfs_iwrite(int fd, const void *buf, long nbytes)
{
    long id = pfs__iwrite(fd, buf, nbytes);

    if (id < 0)
        legacy_die("iwrite");
    return id;
}

/* The outcome of a finished ADIO request. */
static long finished(struct pfs_request *r, MPI_Status *status)
{
    int got = 0;

    r->pending = 0;
    MPI_Get_count(status, MPI_BYTE, &got);
    r->done = got == MPI_UNDEFINED ? 0 : got;
    return r->done;
}

long pfs__iowait(long id)
{
    struct pfs_request *r = request_get(id);
    MPI_Status status;
    long done;

    if (r == NULL)
        return -1;
    if (r->pending) {
        if (MPI_Wait(&r->req, &status) != MPI_SUCCESS) {
            r->used = 0;
            errno = EIO;
            return -1;
        }
        finished(r, &status);
    }
    done = r->done;
    r->used = 0;
    return done;
}

long pfs_iowait(long id)
{
    long done = pfs__iowait(id);

    if (done < 0)
        legacy_die("iowait");
    return done;
}

long pfs__iodone(long id)
{
    struct pfs_request *r = request_get(id);
    MPI_Status status;
    int flag = 1;

    if (r == NULL)
        return -1;
    if (r->pending) {
        if (MPI_Test(&r->req, &flag, &status) != MPI_SUCCESS) {
            r->used = 0;
            errno = EIO;
            return -1;
        }
        if (flag)
            finished(r, &status);
    }
    if (flag)
        r->used = 0;
    return flag ? 1 : 0;
}

long pfs_iodone(long id)
{
    long done = pfs__iodone(id);

    if (done < 0)
        legacy_die("iodone");
    return done;
}
