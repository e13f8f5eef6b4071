/*
 * edonio: the EDONIO do_* API (ORNL report, section 3) on ADIO. The manual's rules: do_nio first;
 * a write-only open of an existing file truncates it; reading past the end of file is an error;
 * do_open, do_lsize, do_flush, do_close, do_csize and do_preload are collective (MPI_COMM_WORLD).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "edonio_do.h"
#include "legacy.h"
#include "ad_edonio.h"
#include "adioi.h"

static int ready;                   /* do_nio was called */
static MPI_Info hints = MPI_INFO_NULL; /* do_csize's */

int legacy_do_ready(void)
{
    if (!ready)
        errno = EINVAL;
    return ready;
}

MPI_Info legacy_do_hints(void)
{
    return hints;
}

int legacy_do_set_cache(long long ro_bytes, long long cache_bytes)
{
    char v[32];

    if (hints == MPI_INFO_NULL)
        MPI_Info_create(&hints);
    snprintf(v, sizeof(v), "%lld", ro_bytes);
    MPI_Info_set(hints, "romio_edonio_remote_cache_size", v);
    snprintf(v, sizeof(v), "%lld", cache_bytes);
    MPI_Info_set(hints, "romio_edonio_cache_size", v);
    return 0;
}

int do_nio(int myid, int nproc)
{
    int rank, size;

    if (legacy_mpi_init() != 0)
        return -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (myid != rank || nproc != size) {
        errno = EINVAL;
        return -1;
    }
    ready = 1;
    return 0;
}

int do_open(const char *path, int flags, int mode)
{
    struct legacy_open_args a = {
        .comm = MPI_COMM_WORLD, .path = path, .flags = flags, .perm = mode,
        .info = hints, .api = LEGACY_DO, .shared_fp = 0, .create = 1,
    };
    int acc = flags & O_ACCMODE;

    if (!legacy_do_ready())
        return -1;
    if (path == NULL || (acc != O_RDONLY && acc != O_WRONLY && acc != O_RDWR)) {
        errno = EINVAL;
        return -1;
    }
    if (acc == O_WRONLY) /* the manual: an existing write-only file is rewritten from empty */
        a.flags |= O_TRUNC;
    return legacy_open(&a);
}

/* The open file, after do_nio. */
static struct legacy_file *get(int fd)
{
    return legacy_do_ready() ? legacy_get(fd, LEGACY_DO) : NULL;
}

int do_read(int fd, void *buf, int nbytes)
{
    struct legacy_file *f = get(fd);
    ADIO_Offset size;
    ssize_t got;

    if (f == NULL)
        return -1;
    if (nbytes < 0 || f->accmode == O_WRONLY) {
        errno = nbytes < 0 ? EINVAL : EBADF;
        return -1;
    }
    if ((size = legacy_size(f)) < 0)
        return -1;
    if (f->pos + nbytes > size) { /* the manual: an error, not a short read */
        errno = EIO;
        return -1;
    }
    if ((got = legacy_pread(f, buf, (size_t)nbytes, f->pos, 0)) < 0)
        return -1;
    f->pos += got;
    return (int)got;
}

int do_write(int fd, const void *buf, int nbytes)
{
    struct legacy_file *f = get(fd);
    ssize_t put;

    if (f == NULL)
        return -1;
    if (nbytes < 0) {
        errno = EINVAL;
        return -1;
    }
    if ((put = legacy_pwrite(f, buf, (size_t)nbytes, f->pos, 0)) < 0)
        return -1;
    f->pos += put;
    return (int)put;
}

esize_t do_eseek(int fd, esize_t offset, int whence)
{
    struct legacy_file *f = get(fd);
    ADIO_Offset to;

    if (f == NULL || (to = legacy_seek_target(f, f->pos, offset, whence)) < 0)
        return -1;
    f->pos = to;
    return to;
}

int do_lseek(int fd, int offset, int whence)
{
    struct legacy_file *f = get(fd);
    ADIO_Offset to;

    if (f == NULL || (to = legacy_seek_target(f, f->pos, offset, whence)) < 0)
        return -1;
    if (to > INT_MAX) { /* do_eseek's job; the pointer stays */
        errno = EOVERFLOW;
        return -1;
    }
    f->pos = to;
    return (int)to;
}

/* Collective checks of a call on one open file: 0 on every process, or -1 on every process. */
static int collective_check(int fd, struct legacy_file **fp, int writable)
{
    struct legacy_file *f = get(fd);
    int ok = f != NULL;

    if (ok && writable && f->accmode == O_RDONLY) {
        errno = EBADF;
        ok = 0;
    }
    *fp = f;
    return legacy_agree(MPI_COMM_WORLD, ok);
}

esize_t do_esize(int fd, esize_t nbytes)
{
    struct legacy_file *f;

    if (collective_check(fd, &f, 1) != 0)
        return -1;
    if (legacy_agree(MPI_COMM_WORLD, nbytes >= 0 || (errno = EINVAL, 0)) != 0)
        return -1;
    /* Only a hint: ADIO's preallocation would make the file that long, and the manual promises
     * a file of the size actually written. */
    return nbytes;
}

int do_lsize(int fd, int nbytes)
{
    return (int)do_esize(fd, nbytes);
}

int do_flush(int fd)
{
    struct legacy_file *f;

    if (collective_check(fd, &f, 0) != 0)
        return -1;
    return legacy_flush(f);
}

int do_close(int fd)
{
    struct legacy_file *f;

    if (collective_check(fd, &f, 0) != 0)
        return -1;
    return legacy_close(fd);
}

int do_csize(int data_size, int disk_size)
{
    int ok = data_size >= 0 && disk_size > 0;

    if (legacy_mpi_init() != 0)
        return -1;
    if (!ok)
        errno = EINVAL;
    if (legacy_agree(MPI_COMM_WORLD, ok && legacy_do_ready()) != 0)
        return -1;
    return legacy_do_set_cache(data_size * 1024LL, disk_size * 1024LL);
}

void do_preload(int fd)
{
    struct legacy_file *f;

    if (collective_check(fd, &f, 0) != 0)
        return;
    if (f->fd->file_system == ADIO_EDONIO && ADIOI_EDONIO_Cache_of(f->fd) != NULL) {
        f->fd->fp_ind = f->pos; /* the preload starts at the smallest of these */
        int code = ADIOI_EDONIO_Preload(f->fd);
        if (code != MPI_SUCCESS) /* do_preload returns nothing: errno says it, on every process */
            legacy_errno(code);
        return;
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

int do_check(void)
{
    return 0;
}

void do_gsync(void)
{
    if (legacy_mpi_init() == 0)
        MPI_Barrier(MPI_COMM_WORLD);
}
