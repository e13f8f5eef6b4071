/*
 * edonio: the EDONIO do_* API (D'Azevedo & Romine, ORNL 1995, section 3), on ROMIO's ADIO.
 *
 * Calls return -1 and set errno on failure. do_open, do_lsize/do_esize, do_flush, do_close,
 * do_csize and do_preload are collective over MPI_COMM_WORLD: every process calls them, with the
 * same arguments, and every process gets the same outcome. doc/legacy-do.md is the manual.
 * Fortran names (gfortran convention): donio, doopen, doread, dowrite, dolseek, doeseek, dolsize,
 * doesize, doflush, doclose, docsize (and docsiz), dopreload, docheck, dogsync.
 */
#ifndef EDONIO_DO_H_INCLUDED
#define EDONIO_DO_H_INCLUDED

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* EDONIO's extended (64-bit) offsets and sizes. */
typedef int64_t esize_t;

/* Initialize: myid and nproc must be this process's rank in MPI_COMM_WORLD and its size
 * (MPI_Init is called here if the program has not). 0, or -1 (EINVAL: wrong myid/nproc). */
int do_nio(int myid, int nproc);

/* Collective open. O_RDONLY, O_WRONLY or O_RDWR; write access creates the file (mode) when it does
 * not exist; an existing file opened O_WRONLY (or with O_TRUNC) is truncated. The path may carry a
 * ROMIO prefix ("edonio:", "ufs:"). A descriptor, or -1. */
int do_open(const char *path, int flags, int mode);

/* Read nbytes at the file pointer, which moves past them. Reading past the end of file is an
 * error (-1, errno EIO), not a short read; so is reading a write-only file (EBADF). */
int do_read(int fd, void *buf, int nbytes);

/* Write nbytes at the file pointer; -1 and EBADF on a read-only file. */
int do_write(int fd, const void *buf, int nbytes);

/* Move the file pointer (SEEK_SET, SEEK_CUR, SEEK_END: the size of the file, what has been
 * written, cached or not); the new position or -1. */
int do_lseek(int fd, int offset, int whence);
esize_t do_eseek(int fd, esize_t offset, int whence);

/* Collective hint of the final size: nbytes, or -1 (EBADF on a read-only file). */
int do_lsize(int fd, int nbytes);
esize_t do_esize(int fd, esize_t nbytes);

/* Collective: dirty cached blocks to disk. 0 or -1. */
int do_flush(int fd);

/* Collective: flush and close. 0 or -1. */
int do_close(int fd);

/* Collective: the read-only data cache and the disk cache, in KiB per process, for the files
 * opened afterwards (edonio's romio_edonio_ro_cache_size and romio_edonio_cache_size hints).
 * disk_size 0 is an error. 0 or -1. */
int do_csize(int data_size, int disk_size);

/* Collective: fill empty cache slots from the disk, from the block of the smallest file pointer. */
void do_preload(int fd);

/* Service other processes' requests: edonio needs no polling, so this only returns 0. */
int do_check(void);

/* The NX global synchronization (a barrier over MPI_COMM_WORLD). */
void do_gsync(void);

#ifdef __cplusplus
}
#endif

#endif /* EDONIO_DO_H_INCLUDED */
