/*
 * edonio: the legacy APIs' reads, writes, size, seek and flush on ADIO.
 *
 * Reads and writes go to ADIO at explicit byte offsets (the APIs keep their own file pointers):
 * ADIO_ReadContig/ADIO_WriteContig, cut in pieces of at most 1 GiB (ADIO counts are int), under
 * ROMIO's byte-range lock when the API asks for atomic access, as ROMIO's MPI_File_read does in
 * atomic mode. Collective ones are ADIO_ReadStridedColl/ADIO_WriteStridedColl on the byte view.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <unistd.h>

#include "legacy.h"
#include "adioi.h"

enum { PIECE = 1 << 30 };

/* One piece: bytes moved or -1 and errno. */
static ssize_t piece(struct legacy_file *f, void *buf, int len, ADIO_Offset off, int lock,
                     int writing)
{
    ADIO_File fd = f->fd;
    MPI_Status status;
    int err = MPI_SUCCESS, got = 0;

    lock = lock && ADIO_Feature(fd, ADIO_LOCKS);
    if (lock)
        ADIOI_WRITE_LOCK(fd, off, SEEK_SET, len);
    if (writing)
        ADIO_WriteContig(fd, buf, len, MPI_BYTE, ADIO_EXPLICIT_OFFSET, off, &status, &err);
    else
        ADIO_ReadContig(fd, buf, len, MPI_BYTE, ADIO_EXPLICIT_OFFSET, off, &status, &err);
    if (lock)
        ADIOI_UNLOCK(fd, off, SEEK_SET, len);
    if (err != MPI_SUCCESS)
        return legacy_errno(err), -1;
    MPI_Get_count(&status, MPI_BYTE, &got);
    return got == MPI_UNDEFINED ? len : got;
}

static ssize_t transfer(struct legacy_file *f, void *buf, size_t n, ADIO_Offset off, int lock,
                        int writing)
{
    size_t done = 0;

    if (n > SSIZE_MAX) {
        errno = EINVAL;
        return -1;
    }
    while (done < n) {
        int len = n - done > PIECE ? PIECE : (int)(n - done);
        ssize_t got = piece(f, (char *)buf + done, len, off + (ADIO_Offset)done, lock, writing);
        if (got < 0)
            return -1;
        done += (size_t)got;
        if (got < len) /* end of file */
            break;
    }
    return (ssize_t)done;
}

ssize_t legacy_pread(struct legacy_file *f, void *buf, size_t n, ADIO_Offset off, int lock)
{
    if (f->accmode == O_WRONLY) {
        errno = EBADF;
        return -1;
    }
    return transfer(f, buf, n, off, lock, 0);
}

ssize_t legacy_pwrite(struct legacy_file *f, const void *buf, size_t n, ADIO_Offset off, int lock)
{
    if (f->accmode == O_RDONLY) {
        errno = EBADF;
        return -1;
    }
    return transfer(f, (void *)buf, n, off, lock, 1);
}

/* Collective: every process of the file takes part, and all return the same success or failure. */
static ssize_t transfer_all(struct legacy_file *f, void *buf, size_t n, ADIO_Offset off,
                            int writing)
{
    ADIO_File fd = f->fd;
    MPI_Status status;
    int err = MPI_SUCCESS, got = 0, ok = 1;

    if (n > INT_MAX || (writing ? f->accmode == O_RDONLY : f->accmode == O_WRONLY)) {
        errno = n > INT_MAX ? EINVAL : EBADF;
        ok = 0;
    }
    /* Everybody must enter the collective call, even with nothing to move or a bad request. */
    if (writing)
        ADIO_WriteStridedColl(fd, buf, ok ? (int)n : 0, MPI_BYTE, ADIO_EXPLICIT_OFFSET, off,
                              &status, &err);
    else
        ADIO_ReadStridedColl(fd, buf, ok ? (int)n : 0, MPI_BYTE, ADIO_EXPLICIT_OFFSET, off,
                             &status, &err);
    if (ok && err != MPI_SUCCESS)
        ok = (legacy_errno(err), 0);
    if (legacy_agree(fd->comm, ok) != 0)
        return -1;
    MPI_Get_count(&status, MPI_BYTE, &got);
    return got == MPI_UNDEFINED || n == 0 ? (ssize_t)n : got;
}

ssize_t legacy_pread_all(struct legacy_file *f, void *buf, size_t n, ADIO_Offset off)
{
    return transfer_all(f, buf, n, off, 0);
}

ssize_t legacy_pwrite_all(struct legacy_file *f, const void *buf, size_t n, ADIO_Offset off)
{
    return transfer_all(f, (void *)buf, n, off, 1);
}

ADIO_Offset legacy_size(struct legacy_file *f)
{
    ADIO_Fcntl_t fc;
    int err = MPI_SUCCESS;

    ADIO_Fcntl(f->fd, ADIO_FCNTL_GET_FSIZE, &fc, &err);
    if (err != MPI_SUCCESS)
        return legacy_errno(err), -1;
    return fc.fsize;
}

ADIO_Offset legacy_seek_target(struct legacy_file *f, ADIO_Offset cur, ADIO_Offset offset,
                               int whence)
{
    ADIO_Offset base;

    switch (whence) {
        case SEEK_SET:
            base = 0;
            break;
        case SEEK_CUR:
            base = cur;
            break;
        case SEEK_END:
            if ((base = legacy_size(f)) < 0)
                return -1;
            break;
        default:
            errno = EINVAL;
            return -1;
    }
    if (base + offset < 0) {
        errno = EINVAL;
        return -1;
    }
    return base + offset;
}

int legacy_flush(struct legacy_file *f)
{
    int err = MPI_SUCCESS, ok;

    ADIO_Flush(f->fd, &err);
    ok = err == MPI_SUCCESS || (legacy_errno(err), 0);
    return legacy_agree(f->fd->comm, ok);
}
