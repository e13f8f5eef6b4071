/*
 * edonio: the EDONIO do_* API for Fortran (gfortran's convention: lower case, a trailing
 * underscore, arguments by reference, a hidden length after the arguments for each CHARACTER
 * argument). Names from the report: doopen, doread, dowrite and dolseek are INTEGER functions,
 * the others subroutines. doeseek and doesize take EDONIO's "integer lnbytes(2)", read here as
 * the two halves of one 64-bit integer in memory (an INTEGER*8 works too).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "edonio_do.h"
#include "legacy.h"

/* Prototypes for -Wmissing-prototypes: these are called from Fortran only. */
void donio_(const int *myid, const int *nproc);
int doopen_(const char *path, const int *flags, const int *mode, size_t len);
int doread_(const int *fd, void *buf, const int *nbytes);
int dowrite_(const int *fd, const void *buf, const int *nbytes);
int dolseek_(const int *fd, const int *offset, const int *whence);
void doeseek_(const int *fd, const int64_t *loffset, const int *whence, int64_t *lpos);
void dolsize_(const int *fd, const int *nbytes);
void doesize_(const int *fd, const int64_t *lnbytes);
void doflush_(const int *fd);
void doclose_(const int *fd);
void docsize_(const int *data_size, const int *disk_size);
void docsiz_(const int *data_size, const int *disk_size);
void dopreload_(const int *fd);
void docheck_(void);
void dogsync_(void);

void donio_(const int *myid, const int *nproc)
{
    (void)do_nio(*myid, *nproc);
}

/* The path ends at its first NUL (the manual asks for one), else at the end of the CHARACTER
 * variable, trailing blanks dropped; any length do_open takes. Fortran cannot read errno: a name
 * the system cannot take is also said on standard error (by process 0; the open is collective). */
int doopen_(const char *path, const int *flags, const int *mode, size_t len)
{
    char *cpath = legacy_fortran_name(path, len);
    int fd, rank = 0;

    if (cpath == NULL)
        return -1;
    fd = do_open(cpath, *flags, *mode);
    free(cpath);
    if (fd < 0 && errno == ENAMETOOLONG) {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (rank == 0)
            legacy_report("doopen");
        errno = ENAMETOOLONG;
    }
    return fd;
}

int doread_(const int *fd, void *buf, const int *nbytes)
{
    return do_read(*fd, buf, *nbytes);
}

int dowrite_(const int *fd, const void *buf, const int *nbytes)
{
    return do_write(*fd, buf, *nbytes);
}

int dolseek_(const int *fd, const int *offset, const int *whence)
{
    return do_lseek(*fd, *offset, *whence);
}

void doeseek_(const int *fd, const int64_t *loffset, const int *whence, int64_t *lpos)
{
    int64_t off;

    memcpy(&off, loffset, sizeof(off)); /* integer(2) need not be 8-byte aligned */
    off = do_eseek(*fd, off, *whence);
    memcpy(lpos, &off, sizeof(off));
}

void dolsize_(const int *fd, const int *nbytes)
{
    (void)do_lsize(*fd, *nbytes);
}

void doesize_(const int *fd, const int64_t *lnbytes)
{
    int64_t n;

    memcpy(&n, lnbytes, sizeof(n));
    (void)do_esize(*fd, n);
}

void doflush_(const int *fd)
{
    (void)do_flush(*fd);
}

void doclose_(const int *fd)
{
    (void)do_close(*fd);
}

void docsize_(const int *data_size, const int *disk_size)
{
    (void)do_csize(*data_size, *disk_size);
}

/* The manual's synopsis spells it docsiz (six letters), its appendix docsize. */
void docsiz_(const int *data_size, const int *disk_size)
{
    (void)do_csize(*data_size, *disk_size);
}

void dopreload_(const int *fd)
{
    do_preload(*fd);
}

void docheck_(void)
{
    (void)do_check();
}

void dogsync_(void)
{
    do_gsync();
}
