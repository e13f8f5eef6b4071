/*
 * edonio: a PFS-style API (the Intel Paragon's NX file calls) on ROMIO's ADIO, for any ROMIO file
 * system (ufs, edonio, ...). doc/legacy-pfs.md is the manual.
 *
 * The symbols are prefixed so that they cannot clash with the C library: pfs_NAME is NX's NAME,
 * pfs__NAME is NX's _NAME. Plain forms (pfs_cread, ...) print the error and abort the job, as
 * NX's did; the underscore forms return -1 and set errno. pfs_open/read/write/lseek/close, like
 * Unix's, return -1 and set errno. With EDONIO_PFS_NAMES defined before including this header,
 * NX's own names are macros for these (gopen, cread, _cread, iread, iowait, setiomode, ...); with
 * EDONIO_PFS_UNIX_NAMES also open, read, write, lseek and close (which then hide the C
 * library's in that source file).
 */
#ifndef EDONIO_PFS_H_INCLUDED
#define EDONIO_PFS_H_INCLUDED

#include <stdint.h>
#include <sys/types.h>

#include "edonio_nx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* I/O modes */
#define M_UNIX   0 /* a pointer per node, atomic reads and writes */
#define M_LOG    1 /* a shared pointer, first come first served */
#define M_SYNC   2 /* a shared pointer, node order; every read and write collective */
#define M_RECORD 3 /* a pointer per node, equal records in node order */
#define M_GLOBAL 4 /* a shared pointer, every node the same operation and data */
#define M_ASYNC  5 /* a pointer per node, no atomicity */

/* lsize's whence */
#define SIZE_SET 0
#define SIZE_CUR 1
#define SIZE_END 2

/* NX's esize_t: extended (64-bit) offsets and sizes. */
typedef int64_t pfs_esize_t;

/* Collective over MPI_COMM_WORLD: open (flags and mode as open(2)) and set the I/O mode. */
int pfs_gopen(const char *path, int flags, int iomode, mode_t mode);
int pfs__gopen(const char *path, int flags, int iomode, mode_t mode);
/* Private to the calling node (M_UNIX). */
int pfs_open(const char *path, int flags, mode_t mode);
/* Collective over the nodes that opened the file. */
int pfs_close(int fd);

/* Collective: change the I/O mode (the file pointer is kept: node 0's becomes everybody's). */
void pfs_setiomode(int fd, int iomode);
int pfs__setiomode(int fd, int iomode);
int pfs_iomode(int fd);

/* Read, write at the pointer of the current mode: bytes moved (a read stops at end of file). */
ssize_t pfs_read(int fd, void *buf, size_t nbytes);
ssize_t pfs_write(int fd, const void *buf, size_t nbytes);
long pfs_cread(int fd, void *buf, long nbytes);
long pfs_cwrite(int fd, const void *buf, long nbytes);
long pfs__cread(int fd, void *buf, long nbytes);
long pfs__cwrite(int fd, const void *buf, long nbytes);

/* Asynchronous from the current pointer (moved at issue): a request id. */
long pfs_iread(int fd, void *buf, long nbytes);
long pfs_iwrite(int fd, const void *buf, long nbytes);
long pfs__iread(int fd, void *buf, long nbytes);
long pfs__iwrite(int fd, const void *buf, long nbytes);
/* Wait for a request: bytes moved; the id is released. */
long pfs_iowait(long id);
long pfs__iowait(long id);
/* 1 done (the id is released), 0 pending, -1 error. */
long pfs_iodone(long id);
long pfs__iodone(long id);

/* The pointer of the current mode (M_LOG: the shared pointer; M_SYNC, M_GLOBAL: every node must
 * seek alike). */
off_t pfs_lseek(int fd, off_t offset, int whence);
pfs_esize_t pfs_eseek(int fd, pfs_esize_t offset, int whence);
pfs_esize_t pfs__eseek(int fd, pfs_esize_t offset, int whence);

/* Grow the file to at least this size (SIZE_SET, SIZE_CUR, SIZE_END): the new size. */
long pfs_lsize(int fd, long size, int whence);
long pfs__lsize(int fd, long size, int whence);
pfs_esize_t pfs_esize(int fd, pfs_esize_t size, int whence);
pfs_esize_t pfs__esize(int fd, pfs_esize_t size, int whence);

#ifdef EDONIO_PFS_NAMES
#define gopen      pfs_gopen
#define _gopen     pfs__gopen
#define setiomode  pfs_setiomode
#define _setiomode pfs__setiomode
#define iomode     pfs_iomode
#define cread      pfs_cread
#define cwrite     pfs_cwrite
#define _cread     pfs__cread
#define _cwrite    pfs__cwrite
#define iread      pfs_iread
#define iwrite     pfs_iwrite
#define _iread     pfs__iread
#define _iwrite    pfs__iwrite
#define iowait     pfs_iowait
#define _iowait    pfs__iowait
#define iodone     pfs_iodone
#define _iodone    pfs__iodone
#define eseek      pfs_eseek
#define _eseek     pfs__eseek
#define lsize      pfs_lsize
#define _lsize     pfs__lsize
#define esize      pfs_esize
#define _esize     pfs__esize
#endif
#ifdef EDONIO_PFS_UNIX_NAMES
#define open  pfs_open
#define read  pfs_read
#define write pfs_write
#define lseek pfs_lseek
#define close pfs_close
#endif

#ifdef __cplusplus
}
#endif

#endif /* EDONIO_PFS_H_INCLUDED */
