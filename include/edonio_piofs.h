/*
 * edonio: a PIOFS-style API (IBM SP's parallel file system) on ROMIO's ADIO, for any ROMIO file
 * system. Unix-like calls (prefixed piofs_ so as not to clash with the C library) and
 * piofs_ioctl (PIOFS's piofsioctl) with PIOFS_CREATE, PIOFS_FSTAT and PIOFS_CHANGE_VIEW. A
 * logical view is an MPI derived datatype read and written with ADIO's strided calls.
 * doc/legacy-piofs.md is the manual (with the view-to-bytes picture). Calls return -1 and set
 * errno on failure. With EDONIO_PIOFS_NAMES defined, piofsioctl and llseek are macros for these.
 */
#ifndef EDONIO_PIOFS_H_INCLUDED
#define EDONIO_PIOFS_H_INCLUDED

#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PIOFS_CREATE      1
#define PIOFS_FSTAT       2
#define PIOFS_CHANGE_VIEW 3

#define PIOFS_NAME_MAX 4096

/* PIOFS_CREATE: a new file of bsu-byte units laid out in rows of cells units. */
struct piofs_create {
    char name[PIOFS_NAME_MAX]; /* may carry a ROMIO prefix ("edonio:", "ufs:") */
    long long bsu;             /* basic striping unit, bytes (> 0) */
    int cells;                 /* BSUs per row (> 0) */
    int permissions;           /* of the new file */
    int flags;                 /* O_EXCL: fail if it exists; O_TRUNC: empty it */
    int base_node;             /* kept and reported; no meaning on ADIO */
};

/* PIOFS_FSTAT: the file's layout and size. */
struct piofs_fstat {
    long long bsu;
    int cells;
    int base_node;
    long long size;
};

/* PIOFS_CHANGE_VIEW: rows go to Vn vertical groups in blocks of Vbs rows, cells to Hn horizontal
 * groups in blocks of Hbs cells; subfile = v * Hn + h is the intersection of group v and group h,
 * row-major. (1, 1, 1, 1) subfile 0 is the whole file. The file pointer goes to 0 of the
 * subfile; offsets are then subfile bytes. */
struct piofs_change_view {
    int Vbs, Vn, Hbs, Hn;
    int subfile;
    int flags; /* unused, must be 0 */
};

int piofs_open(const char *path, int flags, mode_t mode);
int piofs_close(int fd);
ssize_t piofs_read(int fd, void *buf, size_t nbytes);
ssize_t piofs_write(int fd, const void *buf, size_t nbytes);
off_t piofs_lseek(int fd, off_t offset, int whence);
int64_t piofs_llseek(int fd, int64_t offset, int whence);
/* PIOFS_CREATE ignores fd (the name is in the argument). 0, or -1 and errno. */
int piofs_ioctl(int fd, int cmd, void *arg);

#ifdef EDONIO_PIOFS_NAMES
#define piofsioctl piofs_ioctl
#define llseek     piofs_llseek
#endif

#ifdef __cplusplus
}
#endif

#endif /* EDONIO_PIOFS_H_INCLUDED */
