/*
 * edonio: open and close.
 *
 * Open makes the system file descriptor on one process. OpenColl is the collective part: every
 * process of the communicator opens the file (every one owns blocks, so ROMIO's deferred open is
 * off), then the handle gets its cache: one it may share (ad_edonio_cache.c), or a new one. Both
 * come out of one exchange of records (rarely two: exchange_again in ad_edonio_cache.c), which
 * also makes every process agree on how the open went.
 * Close writes every dirty byte back (collectively, or alone for a one-process handle that shares
 * a larger cache) and lets the cache go; under MPI_File_close the flush is the call's one
 * collective, in place of ROMIO's barrier (patch 0011), as the open's exchange is the open's.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ad_edonio_flush.h"
#include "ad_edonio_coll.h"
#include "adioi.h"

static int open_flags(int access_mode)
{
    int flags = 0;

    if (access_mode & ADIO_CREATE)
        flags |= O_CREAT;
    if (access_mode & ADIO_EXCL)
        flags |= O_EXCL;
    /* A cache reads blocks to fill in around what is written: write-only needs read access. */
    if (access_mode & (ADIO_WRONLY | ADIO_RDWR))
        flags |= O_RDWR;
    else
        flags |= O_RDONLY;
    return flags;
}

static mode_t open_perm(ADIO_File fd)
{
    mode_t mask;

    if (fd->perm != ADIO_PERM_NULL)
        return (mode_t)fd->perm;
    mask = umask(022);
    umask(mask);
    return 0666 & ~mask;
}

void ADIOI_EDONIO_Open(ADIO_File fd, int *error_code)
{
    static char myname[] = "ADIOI_EDONIO_OPEN";

    fd->fd_direct = -1;
    fd->fd_sys = open(fd->filename, open_flags(fd->access_mode), open_perm(fd));
    if (fd->fd_sys == -1) {
        if (errno == EACCES && (fd->access_mode & ADIO_WRONLY))
            *error_code = MPIO_Err_create_code(
                MPI_SUCCESS, MPIR_ERR_RECOVERABLE, myname, __LINE__, MPI_ERR_ACCESS, "**fileaccess",
                "**fileaccess %s: edonio caches the file, so it needs read "
                "permission even when the file is opened write-only",
                fd->filename);
        else
            *error_code = ADIOI_EDONIO_Err(myname, fd->filename, errno);
        return;
    }
    if (fd->access_mode & ADIO_APPEND)
        fd->fp_ind = fd->fp_sys_posn = lseek(fd->fd_sys, 0, SEEK_END);
    *error_code = MPI_SUCCESS;
}

/* ROMIO's shared-file-pointer file: a counter updated under fcntl locks, never cached. */
static int is_shared_fp_file(ADIO_File fd, int nprocs)
{
    const char *base = strrchr(fd->filename, '/');

    base = base ? base + 1 : fd->filename;
    return nprocs == 1 && base[0] == '.' && strstr(base, ".shfp.") != NULL;
}

static void handle_free(ADIO_File fd)
{
    if (fd->fs_ptr != NULL)
        ADIOI_EDONIO_Sched_drop(&edonio_handle(fd)->scheds, 0);
    free(fd->fs_ptr);
    fd->fs_ptr = NULL;
}

struct edonio_cache *ADIOI_EDONIO_Cache_of(ADIO_File fd)
{
    struct edonio_handle *h = edonio_handle(fd);

    /* A cache closed by its processes leaves its other handles to the file system. */
    return h != NULL && h->cache != NULL && h->cache->fd_sys >= 0 ? h->cache : NULL;
}

/*
 * Did the last open's exchange give every process the same outcome? Asked once by ROMIO's
 * ADIO_Open right after the open (ROMIO patch 0010), which then needs no agreement of its own:
 * one collective fewer per open, as many as ufs's. ROMIO serialises opens (its critical
 * section), so one flag for the process does.
 */
static int open_agreed;

int ADIOI_EDONIO_Open_agreed(void)
{
    int agreed = open_agreed;

    open_agreed = 0;
    return agreed;
}

/*
 * ROMIO's MPI_File_open names the shared-file-pointer file ".<name>.shfp.<random>.<pid>" with
 * rank 0's random number and process id, and broadcasts the name (two broadcasts). The open's
 * exchange carried rank 0's (attach_cache), so every process makes the same name alone (ROMIO
 * patch 0012) from its own path, when every process named the file by the same last component.
 * Otherwise (a link), and for a one-process handle that shares a cache (no exchange), ROMIO draws
 * and broadcasts rank 0's name, as for any file.
 */
int ADIOI_EDONIO_Shfp_suffix(ADIO_File fd, char *suffix, int size)
{
    struct edonio_handle *h = edonio_handle(fd);

    if (h == NULL || !h->tag.same_name)
        return 0;
    snprintf(suffix, (size_t)size, ".shfp.%u.%u", (unsigned)h->tag.random, (unsigned)h->tag.pid);
    return 1;
}

/* The handle's cache: shared, or made; every process ends with the same outcome. */
static int attach_cache(ADIO_File fd, struct edonio_handle *h, int open_code)
{
    int writes = (fd->access_mode & (ADIO_WRONLY | ADIO_RDWR)) != 0, same = 0, nprocs;
    struct edonio_cache *found = NULL;

    MPI_Comm_size(fd->comm, &nprocs);
    if (open_code == MPI_SUCCESS)
        found = ADIOI_EDONIO_Cache_find(fd->fd_sys, fd->comm, &same);
    if (nprocs == 1 && open_code == MPI_SUCCESS && found != NULL) { /* no one else to ask */
        found->refs++;
        h->cache = found;
        h->tag.stats_root = ADIOI_EDONIO_Stats_wanted() ? 0 : -1;
    } else {
        int code = ADIOI_EDONIO_Cache_open(fd->comm, open_code, fd->fd_sys, fd->filename, writes,
                                           &h->hints, found, &h->cache, &h->tag);
        open_agreed = 1; /* success or failure, the same on every process */
        if (code != MPI_SUCCESS)
            return code;
    }
    h->made = h->cache != found;
    h->collective = h->made || same;
    h->hints = h->cache->hints; /* the cache's shape, and what this process can cache */
    return MPI_SUCCESS;
}

/*
 * Collective: every owner fills its free slots with the blocks it owns, from the block holding the
 * smallest file pointer of all processes on, never displacing cached blocks.
 */
int ADIOI_EDONIO_Preload(ADIO_File fd)
{
    struct edonio_handle *h = edonio_handle(fd);
    long long mine = (long long)fd->fp_ind, from;

    ADIOI_EDONIO_Reduce_small(fd->comm, MPI_MIN, 1, &mine, &from);
    int err = ADIOI_EDONIO_Cache_preload(h->cache, &h->stats, from);
    return ADIOI_EDONIO_Agree(fd->comm, "ADIOI_EDONIO_PRELOAD", fd->filename, err);
}

void ADIOI_EDONIO_OpenColl(ADIO_File fd, int rank, int access_mode, int *error_code)
{
    struct edonio_handle *h = edonio_handle(fd);
    int nprocs;

    fd->hints->deferred_open = 0;
    fd->fd_sys = -1; /* a process that never opens (another's create failed) has no descriptor */
    /* ROMIO's: one process creates the file, then every process opens it (not every process with
     * O_CREAT: a path on node-local storage would then give a file per node without an error,
     * and on Lustre N creates of one name queue on the directory's lock). */
    ADIOI_GEN_OpenColl(fd, rank, access_mode, error_code);
    MPI_Comm_size(fd->comm, &nprocs);
    if (*error_code == MPI_SUCCESS && is_shared_fp_file(fd, nprocs)) {
        h->opened = 1; /* no cache */
        return;
    }
    int code = attach_cache(fd, h, *error_code);
    if (code != MPI_SUCCESS) {
        /* Every process fails alike: close what opened here, or it leaks. */
        if (*error_code == MPI_SUCCESS && fd->fd_sys >= 0)
            close(fd->fd_sys);
        fd->fd_sys = -1;
        handle_free(fd);
        *error_code = code;
        return;
    }
    ADIOI_EDONIO_Hints_report(fd, &h->hints);
    h->opened = 1;
    if (h->hints.preload && h->made) /* EDONIO's preload at open */
        *error_code = ADIOI_EDONIO_Preload(fd);
    /* Only an open that worked: ROMIO frees a failed open's handle without closing it. */
    if (*error_code == MPI_SUCCESS && h->made && h->cache->writable && h->cache->nprocs > 1)
        ADIOI_EDONIO_Visible_add(fd);
}

/*
 * Every dirty byte of the handle's cache in the file: collectively, or alone. Returns whether it
 * made a collective call that no process leaves before every process entered it (a flush ends in
 * its agreement), and the outcome in *code. No barrier is needed before it: each process writes
 * back its own segment as it enters, and the last of a node to enter writes back what the others
 * wrote into the node's segments since (ad_edonio_flush.c).
 */
static int flush_cache(ADIO_File fd, struct edonio_handle *h, int *code)
{
    static char myname[] = "ADIOI_EDONIO_CLOSE";
    struct edonio_cache *c = ADIOI_EDONIO_Cache_of(fd);

    *code = MPI_SUCCESS;
    if (c == NULL || (fd->access_mode & ADIO_RDONLY))
        return 0; /* nothing of this handle's to write (every process opened it so) */
    if (!h->collective) {
        *code = ADIOI_EDONIO_Flush_alone(c, &h->stats, EDONIO_FLUSH_CLOSE, myname);
        return 0;
    }
    struct edonio_flush f = {.comm = fd->comm,
                             .st = &h->stats,
                             .budget = ADIOI_EDONIO_Coll_budget(fd),
                             .groups = h->hints.flush_groups,
                             .how = EDONIO_FLUSH_CLOSE,
                             .myname = myname};
    *code = ADIOI_EDONIO_Flush_all(c, &f);
    return 1;
}

/*
 * MPI_File_close's barrier (ROMIO patch 0011: ROMIO's close.c makes one before it closes the
 * shared-file-pointer file). The close's flush takes its place where there is one, so a close
 * makes one collective, as ufs's does; ADIOI_EDONIO_Close then returns its outcome.
 */
void ADIOI_EDONIO_Close_begin(ADIO_File fd)
{
    struct edonio_handle *h = edonio_handle(fd);

    if (h != NULL && h->opened && !h->flushed) {
        h->flushed = h->together = 1;
        if (flush_cache(fd, h, &h->close_code))
            return;
    }
    ADIOI_EDONIO_Barrier(fd->comm);
}

/* The handle lets its cache go (the cache itself when the handle made it). */
static int close_cache(ADIO_File fd, struct edonio_handle *h)
{
    struct edonio_cache *c = ADIOI_EDONIO_Cache_of(fd);
    int code = h->close_code;

    ADIOI_EDONIO_Visible_remove(fd);
    if (!h->flushed) /* ADIO_Close called directly (ROMIO's own files, the legacy APIs) */
        h->together = flush_cache(fd, h, &code);
    ADIOI_EDONIO_Stats_report(fd);
    if (c != NULL && fd->atomicity)
        c->atomic_handles--;
    if (c != NULL && h->made) /* its processes are done with it: all of them, once together */
        ADIOI_EDONIO_Cache_close(c, h->together && code == MPI_SUCCESS);
    if (h->cache != NULL)
        ADIOI_EDONIO_Cache_release(h->cache);
    h->cache = NULL;
    return code;
}

void ADIOI_EDONIO_Close(ADIO_File fd, int *error_code)
{
    struct edonio_handle *h = edonio_handle(fd);
    int code = MPI_SUCCESS;

    /* Rank 0 also closes once while creating the file, before the collective open. */
    if (h != NULL && h->opened) {
        code = close_cache(fd, h);
        handle_free(fd);
    }
    ADIOI_GEN_Close(fd, error_code);
    if (*error_code == MPI_SUCCESS)
        *error_code = code;
}
