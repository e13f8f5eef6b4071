/*
 * edonio: the legacy APIs' common core: MPI start-up, the descriptor table, open and close on
 * ADIO, errors.
 *
 * Open follows ROMIO's MPI_File_open (mpi-io/open.c): ROMIO's one-time set-up (MPIR_MPIOInit), a
 * duplicate of the communicator for the file, the file system from the prefix or
 * ROMIO_FSTYPE_FORCE (ADIO_ResolveFileType), ADIO_Open with a byte view, and, for PFS's M_LOG
 * mode, the name of ROMIO's shared-file-pointer file. Close is MPI_File_close's.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "legacy.h"
#include "adioi.h"
#include "mpioimpl.h"

enum { TABLE_GROW = 64 };

static struct legacy_file *table;
static int table_len;
static int we_initialized; /* MPI_Init was ours: finalize at exit */
static char last_error[MPI_MAX_ERROR_STRING + 64];
static int last_errno; /* the errno last_error went with */

static void finalize_at_exit(void)
{
    int done = 0;

    MPI_Finalized(&done);
    if (!done)
        MPI_Finalize();
}

int legacy_mpi_init(void)
{
    int up = 0, done = 0;

    MPI_Initialized(&up);
    MPI_Finalized(&done);
    if (done) {
        errno = EINVAL;
        return -1;
    }
    if (up)
        return 0;
    /* An NX program (mynode() first) never calls MPI_Init: start MPI for it. */
    if (MPI_Init(NULL, NULL) != MPI_SUCCESS) {
        errno = EIO;
        return -1;
    }
    we_initialized = 1;
    atexit(finalize_at_exit);
    return 0;
}

struct legacy_file *legacy_get(int d, enum legacy_api api)
{
    if (d < 0 || d >= table_len || table[d].fd == NULL || table[d].api != api) {
        errno = EBADF;
        return NULL;
    }
    return &table[d];
}

/* A free slot (the lowest), or -1 and ENOMEM. */
static int table_slot(void)
{
    for (int d = 0; d < table_len; d++)
        if (table[d].fd == NULL)
            return d;
    struct legacy_file *bigger = realloc(table, (table_len + TABLE_GROW) * sizeof(*table));
    if (bigger == NULL) {
        errno = ENOMEM;
        return -1;
    }
    memset(bigger + table_len, 0, TABLE_GROW * sizeof(*table));
    table = bigger;
    table_len += TABLE_GROW;
    return table_len - TABLE_GROW;
}

static int class_errno(int cls)
{
    switch (cls) {
        case MPI_ERR_ACCESS:
            return EACCES;
        case MPI_ERR_NO_SUCH_FILE:
            return ENOENT;
        case MPI_ERR_FILE_EXISTS:
            return EEXIST;
        case MPI_ERR_NO_SPACE:
            return ENOSPC;
        case MPI_ERR_QUOTA:
            return EDQUOT;
        case MPI_ERR_READ_ONLY:
            return EROFS;
        case MPI_ERR_FILE_IN_USE:
            return EBUSY;
        case MPI_ERR_NO_MEM:
            return ENOMEM;
        case MPI_ERR_UNSUPPORTED_OPERATION:
            return ENOTSUP;
        case MPI_ERR_BAD_FILE:
        case MPI_ERR_AMODE:
        case MPI_ERR_ARG:
            return EINVAL;
        default:
            return EIO;
    }
}

int legacy_errno(int error_code)
{
    int cls = MPI_ERR_OTHER, len = 0;
    char msg[MPI_MAX_ERROR_STRING];

    MPI_Error_class(error_code, &cls);
    if (MPI_Error_string(error_code, msg, &len) == MPI_SUCCESS)
        snprintf(last_error, sizeof(last_error), "%s", msg);
    errno = last_errno = class_errno(cls);
    return errno;
}

const char *legacy_last_error(void)
{
    return last_error[0] && errno == last_errno ? last_error : strerror(errno);
}

void legacy_report(const char *what)
{
    int rank = 0;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "edonio (process %d): %s: %s\n", rank, what, legacy_last_error());
}

void legacy_die(const char *what)
{
    legacy_report(what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

const char *legacy_bare_path(const char *path)
{
    const char *colon = strchr(path, ':');

    return colon != NULL && colon > path + 1 ? colon + 1 : path; /* a prefix, not a drive letter */
}

char *legacy_fortran_name(const char *name, size_t len)
{
    size_t n = strnlen(name, len);
    char *s;

    if (n == len) /* no NUL: the blanks Fortran padded the name with go */
        while (n > 0 && name[n - 1] == ' ')
            n--;
    if ((s = malloc(n + 1)) == NULL) {
        errno = ENOMEM;
        return NULL;
    }
    memcpy(s, name, n);
    s[n] = '\0';
    return s;
}

int legacy_agree(MPI_Comm comm, int ok)
{
    int rank, nprocs, key, lowest, err = ok ? 0 : errno;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nprocs);
    /* The lowest failing process wins; a plain EIO (often "failed elsewhere") only if no other. */
    key = ok ? INT_MAX : (err == EIO ? nprocs + rank : rank);
    MPI_Allreduce(&key, &lowest, 1, MPI_INT, MPI_MIN, comm);
    if (lowest == INT_MAX)
        return 0;
    MPI_Bcast(&err, 1, MPI_INT, lowest % nprocs, comm);
    errno = err;
    return -1;
}

/* ADIO's access mode for Unix open flags. */
static int adio_amode(const struct legacy_open_args *a)
{
    int acc = a->flags & O_ACCMODE, amode;

    amode = acc == O_RDONLY ? ADIO_RDONLY : acc == O_WRONLY ? ADIO_WRONLY : ADIO_RDWR;
    if (acc != O_RDONLY && ((a->flags & O_CREAT) || a->create))
        amode |= ADIO_CREATE;
    if (acc != O_RDONLY && (a->flags & O_EXCL))
        amode |= ADIO_EXCL;
    return amode;
}

/* A path the system cannot take (ROMIO reports it as MPI_ERR_BAD_FILE, EINVAL here): errno
 * ENAMETOOLONG and a message that says which limit, and 1; else 0. */
static int name_too_long(const char *path)
{
    const char *p = legacy_bare_path(path), *slash;
    size_t n, longest = 0;

    for (const char *c = p; *c; c = slash + 1) {
        slash = strchr(c, '/');
        n = slash ? (size_t)(slash - c) : strlen(c);
        longest = n > longest ? n : longest;
        if (slash == NULL)
            break;
    }
    if ((n = strlen(p)) >= PATH_MAX)
        snprintf(last_error, sizeof(last_error),
                 "File name too long: %zu bytes, at most %d can be opened: %.64s...", n,
                 PATH_MAX - 1, p);
    else if (longest > NAME_MAX)
        snprintf(last_error, sizeof(last_error),
                 "File name too long: a part of it has %zu bytes, at most %d: %.64s...", longest,
                 NAME_MAX, p);
    else
        return 0;
    errno = last_errno = ENAMETOOLONG;
    return 1;
}

/* ROMIO's one-time set-up, the communicator and the file system; the ADIO file or NULL. */
static ADIO_File open_adio(const struct legacy_open_args *a, int *error_code)
{
    MPI_Comm dup = MPI_COMM_NULL;
    ADIOI_Fns *ops = NULL;
    int fs = -1;
    ADIO_File fd;

    MPIR_MPIOInit(error_code);
    if (*error_code != MPI_SUCCESS)
        return NULL;
    MPI_Comm_dup(a->comm, &dup);
    ADIO_ResolveFileType(dup, a->path, &fs, &ops, error_code);
    if (*error_code != MPI_SUCCESS) {
        MPI_Comm_free(&dup);
        return NULL;
    }
    fd = ADIO_Open(a->comm, dup, legacy_bare_path(a->path), fs, ops, adio_amode(a), 0, MPI_BYTE,
                   MPI_BYTE, a->info, a->perm, error_code);
    if (*error_code != MPI_SUCCESS) {
        MPI_Comm_free(&dup);
        return NULL;
    }
    return fd;
}

/* After a successful open: truncation, the shared file pointer's file name. 0 or -1. */
static int open_extras(const struct legacy_open_args *a, ADIO_File fd, int *shared)
{
    int err = MPI_SUCCESS, rank, acc = a->flags & O_ACCMODE;

    *shared = 0;
    if (acc != O_RDONLY && (a->flags & O_TRUNC)) {
        ADIO_Resize(fd, 0, &err); /* collective, the same outcome everywhere */
        if (err != MPI_SUCCESS)
            return legacy_errno(err), -1;
    }
    if (a->shared_fp && ADIO_Feature(fd, ADIO_SHARED_FP)) {
        MPI_Comm_rank(fd->comm, &rank);
        ADIOI_Shfp_fname(fd, rank, &err);
        if (err != MPI_SUCCESS)
            return legacy_errno(err), -1;
        *shared = 1;
    }
    return 0;
}

static void close_adio(ADIO_File fd, int shared, int *error_code)
{
    int err = MPI_SUCCESS;

    if (shared) {
        ADIOI_Free(fd->shared_fp_fname);
        MPI_Barrier(fd->comm);
        if (fd->shared_fp_fd != ADIO_FILE_NULL) {
            ADIO_Close(fd->shared_fp_fd, &err);
            MPIO_File_free(&fd->shared_fp_fd);
        }
    }
    ADIO_Close(fd, error_code);
    MPIO_File_free(&fd);
    if (*error_code == MPI_SUCCESS)
        *error_code = err;
}

int legacy_open(const struct legacy_open_args *a)
{
    int err = MPI_SUCCESS, shared = 0, d = -1, ok;
    ADIO_File fd;

    if (legacy_mpi_init() != 0)
        return -1;
    fd = open_adio(a, &err);
    ok = fd != NULL;
    if (!ok && legacy_errno(err) == EINVAL)
        name_too_long(a->path); /* as ENAMETOOLONG, with the limit */
    if (ok && open_extras(a, fd, &shared) != 0)
        ok = 0;
    if (ok && (d = table_slot()) < 0)
        ok = 0;
    if (legacy_agree(a->comm, ok) != 0) {
        int keep = errno;
        if (fd != NULL)
            close_adio(fd, shared, &err);
        errno = keep;
        return -1;
    }
    struct legacy_file *f = &table[d];
    memset(f, 0, sizeof(*f));
    f->fd = fd;
    f->api = a->api;
    f->accmode = a->flags & O_ACCMODE;
    f->shared_fp = shared;
    f->iomode = 0;
    MPI_Comm_rank(fd->comm, &f->rank);
    MPI_Comm_size(fd->comm, &f->nprocs);
    return d;
}

int legacy_close(int d)
{
    struct legacy_file *f = &table[d];
    MPI_Comm comm;
    int err = MPI_SUCCESS, ok;

    /* The file's communicator goes with it: agree on a copy. */
    MPI_Comm_dup(f->fd->comm, &comm);
    close_adio(f->fd, f->shared_fp, &err);
    memset(f, 0, sizeof(*f));
    ok = err == MPI_SUCCESS || (legacy_errno(err), 0);
    ok = legacy_agree(comm, ok) == 0;
    MPI_Comm_free(&comm);
    return ok ? 0 : -1;
}
