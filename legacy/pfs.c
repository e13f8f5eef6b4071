/*
 * edonio: the PFS-style API's calls: gopen/open/close, setiomode/iomode, read/write,
 * cread/cwrite, lseek/eseek, lsize/esize. The modes are in pfs_modes.c, iread/iwrite in
 * pfs_async.c. pfs__NAME returns -1 and sets errno; pfs_NAME (NX's plain form) aborts on error.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <unistd.h>

#include "edonio_pfs.h"
#include "legacy_pfs.h"
#include "adioi.h"

static int open_on(MPI_Comm comm, const char *path, int flags, int iomode, mode_t mode)
{
    struct legacy_open_args a = {
        .comm = comm, .path = path, .flags = flags, .perm = (int)mode, .info = MPI_INFO_NULL,
        .api = LEGACY_PFS, .shared_fp = 1, .create = 0,
    };
    int ok = path != NULL && legacy_pfs_mode_valid(iomode), d;

    if (legacy_mpi_init() != 0)
        return -1;
    if (!ok)
        errno = EINVAL;
    if (legacy_agree(comm, ok) != 0 || (d = legacy_open(&a)) < 0)
        return -1;
    struct legacy_file *f = legacy_get(d, LEGACY_PFS);
    ADIO_Offset start = (flags & O_APPEND) ? legacy_size(f) : 0;
    if (legacy_agree(comm, start >= 0) != 0 || legacy_pfs_set_pointer(f, start) != 0 ||
        legacy_pfs_change_mode(f, iomode) != 0) {
        int keep = errno;
        legacy_close(d);
        errno = keep;
        return -1;
    }
    return d;
}

int pfs__gopen(const char *path, int flags, int iomode, mode_t mode)
{
    return open_on(MPI_COMM_WORLD, path, flags, iomode, mode);
}

int pfs_gopen(const char *path, int flags, int iomode, mode_t mode)
{
    int fd = pfs__gopen(path, flags, iomode, mode);

    if (fd < 0)
        legacy_die("gopen");
    return fd;
}

int pfs_open(const char *path, int flags, mode_t mode)
{
    return open_on(MPI_COMM_SELF, path, flags, M_UNIX, mode);
}

int pfs_close(int fd)
{
    return legacy_get(fd, LEGACY_PFS) ? legacy_close(fd) : -1;
}

int pfs__setiomode(int fd, int iomode)
{
    struct legacy_file *f = legacy_get(fd, LEGACY_PFS);

    return f ? legacy_pfs_change_mode(f, iomode) : -1;
}

void pfs_setiomode(int fd, int iomode)
{
    if (pfs__setiomode(fd, iomode) != 0)
        legacy_die("setiomode");
}

int pfs_iomode(int fd)
{
    struct legacy_file *f = legacy_get(fd, LEGACY_PFS);

    return f ? f->iomode : -1;
}

static ssize_t io(int fd, void *buf, size_t n, int writing)
{
    struct legacy_file *f = legacy_get(fd, LEGACY_PFS);

    return f ? legacy_pfs_transfer(f, buf, n, writing) : -1;
}

ssize_t pfs_read(int fd, void *buf, size_t nbytes)
{
    return io(fd, buf, nbytes, 0);
}

ssize_t pfs_write(int fd, const void *buf, size_t nbytes)
{
    return io(fd, (void *)buf, nbytes, 1);
}

long pfs__cread(int fd, void *buf, long nbytes)
{
    if (nbytes < 0) {
        errno = EINVAL;
        return -1;
    }
    return io(fd, buf, (size_t)nbytes, 0);
}

long pfs__cwrite(int fd, const void *buf, long nbytes)
{
    if (nbytes < 0) {
        errno = EINVAL;
        return -1;
    }
    return io(fd, (void *)buf, (size_t)nbytes, 1);
}

long pfs_cread(int fd, void *buf, long nbytes)
{
    long got = pfs__cread(fd, buf, nbytes);

    if (got < 0)
        legacy_die("cread");
    return got;
}

long pfs_cwrite(int fd, const void *buf, long nbytes)
{
    long put = pfs__cwrite(fd, buf, nbytes);

    if (put < 0)
        legacy_die("cwrite");
    return put;
}

pfs_esize_t pfs__eseek(int fd, pfs_esize_t offset, int whence)
{
    struct legacy_file *f = legacy_get(fd, LEGACY_PFS);
    ADIO_Offset cur, to;

    if (f == NULL || (cur = legacy_pfs_pointer(f)) < 0)
        return -1;
    if ((to = legacy_seek_target(f, cur, offset, whence)) < 0 || legacy_pfs_set_pointer(f, to) != 0)
        return -1;
    return to;
}

pfs_esize_t pfs_eseek(int fd, pfs_esize_t offset, int whence)
{
    pfs_esize_t to = pfs__eseek(fd, offset, whence);

    if (to < 0)
        legacy_die("eseek");
    return to;
}

off_t pfs_lseek(int fd, off_t offset, int whence)
{
    return (off_t)pfs__eseek(fd, offset, whence);
}

/* The file at least this long (ADIO's preallocation, MPI_File_preallocate's call). */
pfs_esize_t pfs__esize(int fd, pfs_esize_t size, int whence)
{
    struct legacy_file *f = legacy_get(fd, LEGACY_PFS);
    ADIO_Offset now, cur, want;
    ADIO_Fcntl_t fc;
    int err = MPI_SUCCESS;

    if (f == NULL || (now = legacy_size(f)) < 0 || (cur = legacy_pfs_pointer(f)) < 0)
        return -1;
    if (f->accmode == O_RDONLY) {
        errno = EBADF;
        return -1;
    }
    want = whence == SIZE_SET ? size : whence == SIZE_CUR ? cur + size : now + size;
    if ((whence != SIZE_SET && whence != SIZE_CUR && whence != SIZE_END) || want < 0) {
        errno = EINVAL;
        return -1;
    }
    if (want <= now)
        return now;
    fc.diskspace = want;
    ADIO_Fcntl(f->fd, ADIO_FCNTL_SET_DISKSPACE, &fc, &err);
    if (err != MPI_SUCCESS)
        return legacy_errno(err), -1;
    return want;
}

pfs_esize_t pfs_esize(int fd, pfs_esize_t size, int whence)
{
    pfs_esize_t now = pfs__esize(fd, size, whence);

    if (now < 0)
        legacy_die("esize");
    return now;
}

long pfs__lsize(int fd, long size, int whence)
{
    pfs_esize_t now = pfs__esize(fd, size, whence);

    if (now > LONG_MAX) {
        errno = EOVERFLOW;
        return -1;
    }
    return (long)now;
}

long pfs_lsize(int fd, long size, int whence)
{
    long now = pfs__lsize(fd, size, whence);

    if (now < 0)
        legacy_die("lsize");
    return now;
}
