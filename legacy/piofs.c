/*
 * edonio: the PIOFS-style API's calls. Files are opened by each process on its own
 * (MPI_COMM_SELF), as with Unix calls on PIOFS. The layout of PIOFS_CREATE (bsu, cells,
 * base_node) is kept in the file's extended attribute user.piofs.layout (else, on file systems
 * without user attributes, for this process only); a file without one has bsu 32 KiB, 1 cell.
 * Reads and writes in a view go through ADIO_ReadStrided/ADIO_WriteStrided at subfile offsets,
 * without data sieving for writes (romio_ds_write=disable): PIOFS had no locks, and processes
 * that write disjoint subfiles through their own handles must not write back each other's bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "edonio_piofs.h"
#include "legacy.h"
#include "adioi.h"

int legacy_piofs_set_view(struct legacy_file *f, const struct piofs_change_view *cv);

#define LAYOUT_XATTR "user.piofs.layout"
enum { DEFAULT_BSU = 32768, REMEMBERED = 16 };

/* Layouts created by this process where the file system has no user attributes. */
static struct {
    char path[PIOFS_NAME_MAX];
    long long bsu;
    int cells, base_node;
} remembered[REMEMBERED];
static int nremembered;

static void layout_store(const char *path, long long bsu, int cells, int base_node)
{
    char v[64];

    snprintf(v, sizeof(v), "%lld %d %d", bsu, cells, base_node);
    if (setxattr(legacy_bare_path(path), LAYOUT_XATTR, v, strlen(v), 0) == 0)
        return;
    int i = nremembered < REMEMBERED ? nremembered++ : REMEMBERED - 1;
    snprintf(remembered[i].path, sizeof(remembered[i].path), "%s", legacy_bare_path(path));
    remembered[i].bsu = bsu;
    remembered[i].cells = cells;
    remembered[i].base_node = base_node;
}

static void layout_load(const char *path, struct legacy_file *f, int *base_node)
{
    char v[64];
    ssize_t n = getxattr(legacy_bare_path(path), LAYOUT_XATTR, v, sizeof(v) - 1);

    f->bsu = DEFAULT_BSU;
    f->cells = 1;
    *base_node = 0;
    if (n > 0) {
        v[n] = '\0';
        if (sscanf(v, "%lld %d %d", &f->bsu, &f->cells, base_node) == 3 && f->bsu > 0 &&
            f->cells > 0)
            return;
        f->bsu = DEFAULT_BSU;
        f->cells = 1;
    }
    for (int i = 0; i < nremembered; i++)
        if (strcmp(remembered[i].path, legacy_bare_path(path)) == 0) {
            f->bsu = remembered[i].bsu;
            f->cells = remembered[i].cells;
            *base_node = remembered[i].base_node;
        }
}

static int base_nodes[1024]; /* by descriptor, for PIOFS_FSTAT (0 beyond) */

int piofs_open(const char *path, int flags, mode_t mode)
{
    struct legacy_open_args a = {
        .comm = MPI_COMM_SELF, .path = path, .flags = flags, .perm = (int)mode,
        .info = MPI_INFO_NULL, .api = LEGACY_PIOFS, .shared_fp = 0, .create = 0,
    };
    int d, base = 0;

    if (path == NULL) {
        errno = EINVAL;
        return -1;
    }
    if (legacy_mpi_init() != 0)
        return -1;
    /* Each process has its own handle (and, on edonio, its own cache): a data-sieving write would
     * write back bytes of other processes' subfiles it read before they wrote them. */
    MPI_Info_create(&a.info);
    MPI_Info_set(a.info, "romio_ds_write", "disable");
    d = legacy_open(&a);
    MPI_Info_free(&a.info);
    if (d < 0)
        return -1;
    struct legacy_file *f = legacy_get(d, LEGACY_PIOFS);
    layout_load(path, f, &base);
    if (d < 1024)
        base_nodes[d] = base;
    if (flags & O_APPEND)
        f->pos = legacy_size(f) < 0 ? 0 : legacy_size(f);
    return d;
}

int piofs_close(int fd)
{
    return legacy_get(fd, LEGACY_PIOFS) ? legacy_close(fd) : -1;
}

/* In a view: ADIO's strided calls at a subfile offset; else contiguous. */
static ssize_t io(int fd, void *buf, size_t n, int writing)
{
    struct legacy_file *f = legacy_get(fd, LEGACY_PIOFS);
    MPI_Status status;
    int err = MPI_SUCCESS, got = 0;
    ssize_t moved;

    if (f == NULL)
        return -1;
    if (!f->view.active) {
        moved = writing ? legacy_pwrite(f, buf, n, f->pos, 0) : legacy_pread(f, buf, n, f->pos, 0);
    } else if (n > INT_MAX || (writing ? f->accmode == O_RDONLY : f->accmode == O_WRONLY)) {
        errno = n > INT_MAX ? EINVAL : EBADF;
        return -1;
    } else {
        if (writing)
            ADIO_WriteStrided(f->fd, buf, (int)n, MPI_BYTE, ADIO_EXPLICIT_OFFSET, f->pos, &status,
                              &err);
        else
            ADIO_ReadStrided(f->fd, buf, (int)n, MPI_BYTE, ADIO_EXPLICIT_OFFSET, f->pos, &status,
                             &err);
        if (err != MPI_SUCCESS)
            return legacy_errno(err), -1;
        MPI_Get_count(&status, MPI_BYTE, &got);
        moved = got == MPI_UNDEFINED ? (ssize_t)n : got;
    }
    if (moved > 0)
        f->pos += moved;
    return moved;
}

ssize_t piofs_read(int fd, void *buf, size_t nbytes)
{
    return io(fd, buf, nbytes, 0);
}

ssize_t piofs_write(int fd, const void *buf, size_t nbytes)
{
    return io(fd, (void *)buf, nbytes, 1);
}

int64_t piofs_llseek(int fd, int64_t offset, int whence)
{
    struct legacy_file *f = legacy_get(fd, LEGACY_PIOFS);
    ADIO_Offset to;

    if (f == NULL)
        return -1;
    if (f->view.active && whence == SEEK_END) { /* a subfile's end: not kept */
        errno = EINVAL;
        return -1;
    }
    if ((to = legacy_seek_target(f, f->pos, offset, whence)) < 0)
        return -1;
    f->pos = to;
    return to;
}

off_t piofs_lseek(int fd, off_t offset, int whence)
{
    return (off_t)piofs_llseek(fd, offset, whence);
}

static int do_create(const struct piofs_create *c)
{
    int fd, flags = O_RDWR | O_CREAT | (c->flags & (O_EXCL | O_TRUNC));

    if (c->bsu <= 0 || c->cells <= 0 || memchr(c->name, '\0', sizeof(c->name)) == NULL) {
        errno = EINVAL;
        return -1;
    }
    if ((fd = piofs_open(c->name, flags, (mode_t)c->permissions)) < 0)
        return -1;
    layout_store(c->name, c->bsu, c->cells, c->base_node);
    return piofs_close(fd);
}

static int do_fstat(int fd, struct piofs_fstat *st)
{
    struct legacy_file *f = legacy_get(fd, LEGACY_PIOFS);
    ADIO_Offset size;

    if (f == NULL || (size = legacy_size(f)) < 0)
        return -1;
    st->bsu = f->bsu;
    st->cells = f->cells;
    st->base_node = fd < 1024 ? base_nodes[fd] : 0;
    st->size = size;
    return 0;
}

int piofs_ioctl(int fd, int cmd, void *arg)
{
    struct legacy_file *f;

    if (legacy_mpi_init() != 0)
        return -1;
    if (arg == NULL) {
        errno = EINVAL;
        return -1;
    }
    switch (cmd) {
        case PIOFS_CREATE:
            return do_create(arg);
        case PIOFS_FSTAT:
            return do_fstat(fd, arg);
        case PIOFS_CHANGE_VIEW:
            if ((f = legacy_get(fd, LEGACY_PIOFS)) == NULL)
                return -1;
            return legacy_piofs_set_view(f, arg);
        default:
            errno = EINVAL;
            return -1;
    }
}
