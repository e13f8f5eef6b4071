/*
 * edonio: the legacy parallel-I/O APIs (EDONIO do_*, PFS-style, PIOFS-style), private part.
 *
 * Every API is a thin layer over ROMIO's ADIO calls. A descriptor of any of the three APIs is an
 * index into one table of struct legacy_file; each entry holds the ADIO file, the process's own
 * file pointer (all reads and writes go to ADIO at explicit offsets), and what the API keeps on top
 * (PFS's I/O mode and shared pointer, PIOFS's view). Errors come back as -1 and errno, translated
 * from the MPI error class of the ADIO error code (legacy_errno); the message of the last ADIO
 * error is kept for the calls that print it (legacy_last_error).
 */
#ifndef LEGACY_H_INCLUDED
#define LEGACY_H_INCLUDED

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "adio.h"

enum legacy_api {
    LEGACY_DO,    /* EDONIO do_* */
    LEGACY_PFS,   /* PFS-style (gopen, open) */
    LEGACY_PIOFS, /* PIOFS-style */
};

/* A PIOFS logical view (its filetype is the ADIO file's, set with ADIO_Set_view). */
struct legacy_view {
    int active; /* 0: the whole file, byte by byte */
};

/* One open file of a legacy API. */
struct legacy_file {
    ADIO_File fd;             /* NULL: a free slot */
    enum legacy_api api;      /* which API opened it */
    int accmode;              /* O_RDONLY, O_WRONLY or O_RDWR */
    int rank, nprocs;         /* this process in fd->comm, and its size */
    int shared_fp;            /* ROMIO's shared file pointer was set up (ADIOI_Shfp_fname) */
    ADIO_Offset pos;          /* this process's file pointer (bytes; in a PIOFS view: subfile bytes) */
    ADIO_Offset shared;       /* PFS M_SYNC, M_GLOBAL: the shared pointer (equal on every process) */
    int iomode;               /* PFS I/O mode (M_UNIX for every other API) */
    long long bsu;            /* PIOFS: basic striping unit */
    int cells;                /* PIOFS: BSUs per row */
    struct legacy_view view;  /* PIOFS: the logical view */
};

/* Open with these (collective over comm): */
struct legacy_open_args {
    MPI_Comm comm;      /* who opens: every process of it, with the same arguments */
    const char *path;   /* may carry a ROMIO prefix ("edonio:", "ufs:") */
    int flags;          /* Unix open flags (O_RDONLY... O_CREAT, O_TRUNC, O_EXCL) */
    int perm;           /* permissions of a new file */
    MPI_Info info;      /* hints, or MPI_INFO_NULL */
    enum legacy_api api;
    int shared_fp;      /* set up ROMIO's shared file pointer (PFS M_LOG) */
    int create;         /* create even without O_CREAT (do_open: write access creates) */
};

/* MPI is running: MPI_Init'ed here if the program has not (then finalized at exit). 0 or -1. */
int legacy_mpi_init(void);

/* The open file behind descriptor d opened by api, or NULL with errno EBADF. */
struct legacy_file *legacy_get(int d, enum legacy_api api);

/* Collective open: a descriptor, or -1 and errno (on every process alike). */
int legacy_open(const struct legacy_open_args *args);

/* Close (collective over the file's communicator): 0, or -1 and errno. */
int legacy_close(int d);

/* Contiguous reads and writes at a byte offset: bytes moved (a read stops at the end of file), or
 * -1 and errno. Independent. lock: take ROMIO's byte-range lock (atomic access) when the file
 * system has locks. */
ssize_t legacy_pread(struct legacy_file *f, void *buf, size_t n, ADIO_Offset off, int lock);
ssize_t legacy_pwrite(struct legacy_file *f, const void *buf, size_t n, ADIO_Offset off, int lock);

/* Collective contiguous reads and writes (ADIO's strided collective calls): bytes moved or -1. */
ssize_t legacy_pread_all(struct legacy_file *f, void *buf, size_t n, ADIO_Offset off);
ssize_t legacy_pwrite_all(struct legacy_file *f, const void *buf, size_t n, ADIO_Offset off);

/* The file's size (what has been written, for edonio cached or not), or -1 and errno. */
ADIO_Offset legacy_size(struct legacy_file *f);

/* A new pointer from (offset, whence) against the current one and the size, or -1 and errno
 * (EINVAL: bad whence or a negative result). */
ADIO_Offset legacy_seek_target(struct legacy_file *f, ADIO_Offset cur, ADIO_Offset offset,
                               int whence);

/* Collective: every dirty byte to the file system. 0, or -1 and errno on every process. */
int legacy_flush(struct legacy_file *f);

/* Collective agreement: 0 when every process of comm had ok != 0, else -1 with errno set to the
 * lowest failing process's errno. */
int legacy_agree(MPI_Comm comm, int ok);

/* errno for an ADIO error code (its MPI error class); also remembers its message. */
int legacy_errno(int error_code);

/* The message of the last error seen by legacy_errno, or strerror(errno). */
const char *legacy_last_error(void);

/* Print "what: message" (the last error) on standard error. */
void legacy_report(const char *what);

/* Print "what: message" and abort the job (the PFS plain forms). */
void legacy_die(const char *what);

/* The path without a ROMIO prefix ("edonio:", "ufs:"). */
const char *legacy_bare_path(const char *path);

/* A Fortran CHARACTER argument of length len as a new C string (free it), or NULL and ENOMEM:
 * up to its first NUL, else up to its last non-blank (Fortran pads with blanks). */
char *legacy_fortran_name(const char *name, size_t len);

/* do_csize's cache hints, added to every later do_open (MPI_INFO_NULL: none). */
MPI_Info legacy_do_hints(void);
int legacy_do_set_cache(long long ro_bytes, long long cache_bytes);
/* do_nio called? */
int legacy_do_ready(void);

#endif /* LEGACY_H_INCLUDED */
