/*
 * edonio: the PFS-style API for Fortran, as Paragon NX Fortran programs call it (gfortran's
 * convention: lower case, a trailing underscore, arguments by reference, a hidden size_t length
 * after all the arguments for each CHARACTER argument).
 *
 * A file is named by a Fortran unit number the program chooses, as with NX's
 *     call gopen(unit, name, iomode)
 * The unit is only a handle of this API (not a libgfortran unit: Fortran's own READ, WRITE and
 * OPEN know nothing of it); every later call takes it. INTEGER arguments are default (4-byte)
 * integers, except eseek/esize's offsets and results (INTEGER*8). Errors print a message and abort
 * the job, as NX's plain forms do (Fortran has no underscore forms).
 *
 *   call gopen(unit, name, iomode)       collective; O_RDWR|O_CREAT, 0666 (less the umask)
 *   call setiomode(unit, iomode)         collective
 *   integer iomode(unit)
 *   call cread(unit, buf, nbytes)        also an INTEGER function: the bytes moved
 *   call cwrite(unit, buf, nbytes)       likewise
 *   integer iread(unit, buf, nbytes)     a request id; iwrite alike
 *   call iowait(id)                      also an INTEGER function: the bytes moved
 *   integer iodone(id)                   1 done (id released), 0 pending
 *   integer lseek(unit, offset, whence)  the symbol nxlseek_: fnx.h maps lseek to nxlseek
 *   integer*8 eseek(unit, offset8, whence)
 *   integer lsize(unit, size, whence)    the new size
 *   integer*8 esize(unit, size8, whence)
 *   close(unit)                          the symbol nxclose_ (fnx.h: close(u) is
 *                                        "call nxclose(u)"), collective
 * lseek and close are not exported under their own names (lseek_, close_) so that they cannot
 * clash with a Fortran run-time or another library's binding of the C library.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "edonio_pfs.h"
#include "legacy.h"

/* Prototypes for -Wmissing-prototypes: these are called from Fortran only. */
void gopen_(const int *unit, const char *name, const int *iomode, size_t len);
void nxclose_(const int *unit);
void setiomode_(const int *unit, const int *iomode);
int iomode_(const int *unit);
int cread_(const int *unit, void *buf, const int *nbytes);
int cwrite_(const int *unit, const void *buf, const int *nbytes);
int iread_(const int *unit, void *buf, const int *nbytes);
int iwrite_(const int *unit, const void *buf, const int *nbytes);
int iowait_(const int *id);
int iodone_(const int *id);
int nxlseek_(const int *unit, const int *offset, const int *whence);
int64_t eseek_(const int *unit, const int64_t *offset, const int *whence);
int lsize_(const int *unit, const int *size, const int *whence);
int64_t esize_(const int *unit, const int64_t *size, const int *whence);

/* The units open with gopen: unit number and PFS descriptor. */
struct unit_map {
    int unit;
    int fd;
};

static struct unit_map *units;
static int nunits, maxunits;

static int find(int unit)
{
    for (int i = 0; i < nunits; i++)
        if (units[i].unit == unit)
            return i;
    return -1;
}

/* The descriptor of an open unit, or the job aborted (NX's plain forms). */
static int unit_fd(const char *what, int unit)
{
    int i = find(unit);

    if (i < 0) {
        if (legacy_mpi_init() != 0)
            abort();
        errno = EBADF;
        legacy_die(what);
        abort(); /* not reached: legacy_die aborts the job */
    }
    return units[i].fd;
}

void gopen_(const int *unit, const char *name, const int *iomode, size_t len)
{
    char *path;
    int fd, ok;

    if (legacy_mpi_init() != 0)
        abort();
    /* every node must see the unit free and have room to record it: agreed before opening */
    ok = find(*unit) < 0 || (errno = EBUSY, 0);
    if (ok && nunits == maxunits) {
        struct unit_map *bigger = realloc(units, (size_t)(maxunits + 16) * sizeof(*units));
        ok = bigger != NULL || (errno = ENOMEM, 0);
        if (ok) {
            units = bigger;
            maxunits += 16;
        }
    }
    path = ok ? legacy_fortran_name(name, len) : NULL;
    if (legacy_agree(MPI_COMM_WORLD, path != NULL) != 0) {
        free(path);
        legacy_die("gopen");
    }
    fd = pfs_gopen(path, O_RDWR | O_CREAT, *iomode, 0666); /* aborts on error */
    free(path);
    units[nunits].unit = *unit;
    units[nunits].fd = fd;
    nunits++;
}

void nxclose_(const int *unit)
{
    int i, fd = unit_fd("close", *unit);

    if (pfs_close(fd) != 0)
        legacy_die("close");
    i = find(*unit);
    units[i] = units[--nunits];
    if (nunits == 0) {
        free(units);
        units = NULL;
        maxunits = 0;
    }
}

void setiomode_(const int *unit, const int *iomode)
{
    pfs_setiomode(unit_fd("setiomode", *unit), *iomode);
}

int iomode_(const int *unit)
{
    return pfs_iomode(unit_fd("iomode", *unit));
}

int cread_(const int *unit, void *buf, const int *nbytes)
{
    return (int)pfs_cread(unit_fd("cread", *unit), buf, *nbytes);
}

int cwrite_(const int *unit, const void *buf, const int *nbytes)
{
    return (int)pfs_cwrite(unit_fd("cwrite", *unit), buf, *nbytes);
}

/* A request id as a default INTEGER (ids are small: the lowest free slot + 1). */
static int short_id(const char *what, long id)
{
    if (id > INT_MAX) {
        errno = EOVERFLOW;
        legacy_die(what);
    }
    return (int)id;
}

int iread_(const int *unit, void *buf, const int *nbytes)
{
    return short_id("iread", pfs_iread(unit_fd("iread", *unit), buf, *nbytes));
}

int iwrite_(const int *unit, const void *buf, const int *nbytes)
{
    return short_id("iwrite", pfs_iwrite(unit_fd("iwrite", *unit), buf, *nbytes));
}

int iowait_(const int *id)
{
    if (legacy_mpi_init() != 0)
        abort();
    return (int)pfs_iowait(*id);
}

int iodone_(const int *id)
{
    if (legacy_mpi_init() != 0)
        abort();
    return (int)pfs_iodone(*id);
}

int nxlseek_(const int *unit, const int *offset, const int *whence)
{
    pfs_esize_t to = pfs_eseek(unit_fd("lseek", *unit), *offset, *whence);

    if (to > INT_MAX) {
        errno = EOVERFLOW;
        legacy_die("lseek");
    }
    return (int)to;
}

int64_t eseek_(const int *unit, const int64_t *offset, const int *whence)
{
    return pfs_eseek(unit_fd("eseek", *unit), *offset, *whence);
}

int lsize_(const int *unit, const int *size, const int *whence)
{
    pfs_esize_t now = pfs_esize(unit_fd("lsize", *unit), *size, *whence);

    if (now > INT_MAX) {
        errno = EOVERFLOW;
        legacy_die("lsize");
    }
    return (int)now;
}

int64_t esize_(const int *unit, const int64_t *size, const int *whence)
{
    return pfs_esize(unit_fd("esize", *unit), *size, *whence);
}
