/*
 * edonio: file size, preallocation, atomic mode, sync and resize.
 *
 * The size of an edonio file is the larger of what the file system says and what this node has
 * written, cached or not (EDONIO tracked the largest byte written), so MPI_File_get_size needs no
 * sync for a process's own writes. Sync and resize are collective over the cache's processes,
 * or act alone for a one-process handle that shares a larger cache.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ad_edonio_flush.h"
#include "ad_edonio_coll.h"
#include "adioi.h"

static struct edonio_flush flush_of(ADIO_File fd, enum edonio_flush_how how, const char *myname)
{
    struct edonio_handle *h = edonio_handle(fd);
    struct edonio_flush f = {fd->comm,  &h->stats, ADIOI_EDONIO_Coll_budget(fd),
                             h->hints.flush_groups, how, myname, 0};
    return f;
}

/*
 * MPI_File_sync: every dirty byte in the file and fsynced, and clean copies forgotten, so that
 * after sync-barrier-sync this handle sees what other processes and handles wrote (MPI's
 * consistency rule). Every process returns the same outcome; what could not be written stays
 * dirty, and a later sync tries again.
 */
void ADIOI_EDONIO_Flush(ADIO_File fd, int *error_code)
{
    static char myname[] = "ADIOI_EDONIO_FLUSH";
    struct edonio_cache *c = ADIOI_EDONIO_Cache_of(fd);

    if (c == NULL) {
        ADIOI_GEN_Flush(fd, error_code);
    } else if (edonio_handle(fd)->collective) {
        struct edonio_flush f = flush_of(fd, EDONIO_FLUSH_SYNC, myname);
        *error_code = ADIOI_EDONIO_Flush_all(c, &f);
    } else {
        *error_code =
            ADIOI_EDONIO_Flush_alone(c, &edonio_handle(fd)->stats, EDONIO_FLUSH_SYNC, myname);
    }
}

/*
 * MPI_File_set_size: rank 0 truncates (or extends) the file; only once every process knows it
 * worked are cached bytes past the new end dropped, so a failure loses nothing. The barrier at the
 * end keeps a process's next write from being cut by a slower one's trim.
 */
void ADIOI_EDONIO_Resize(ADIO_File fd, ADIO_Offset size, int *error_code)
{
    static char myname[] = "ADIOI_EDONIO_RESIZE";
    struct edonio_cache *c = ADIOI_EDONIO_Cache_of(fd);
    int collective = edonio_handle(fd) != NULL && edonio_handle(fd)->collective, rank, err = 0;

    if (c == NULL) {
        ADIOI_GEN_Resize(fd, size, error_code);
        return;
    }
    /* A new size: the plans go, as with a new view (ad_edonio_sched.h). */
    ADIOI_EDONIO_Sched_drop(&edonio_handle(fd)->scheds, edonio_handle(fd)->scheds.max);
    MPI_Comm_rank(fd->comm, &rank);
    /* No keeper may write back a block between the truncation and the trim, which would make the
     * file long again: every process's keeper held off, then the truncation. */
    ADIOI_EDONIO_Keeper_hold(c, 1);
    if (collective)
        ADIOI_EDONIO_Barrier(fd->comm);
    if ((rank == 0 || !collective) && ftruncate(fd->fd_sys, size) != 0)
        err = errno;
    if (collective)
        *error_code = ADIOI_EDONIO_Agree(fd->comm, myname, fd->filename, err);
    else
        *error_code = err ? ADIOI_EDONIO_Err(myname, fd->filename, err) : MPI_SUCCESS;
    if (*error_code != MPI_SUCCESS) {
        ADIOI_EDONIO_Keeper_hold(c, 0);
        return;
    }
    ADIOI_EDONIO_Cache_trim(c, size, !collective);
    ADIOI_EDONIO_Keeper_hold(c, 0);
    ADIOI_EDONIO_Size_set(c, size);
    if (collective)
        ADIOI_EDONIO_Barrier(fd->comm);
}

/*
 * MPI_File_preallocate (EDONIO's do_lsize): space on disk, and the file at least that long. ROMIO
 * calls this on rank 0 only; other nodes see the size from the file system.
 */
static void preallocate(ADIO_File fd, struct edonio_cache *c, ADIO_Offset bytes, int *error_code)
{
    static char myname[] = "ADIOI_EDONIO_PREALLOCATE";
    int err = posix_fallocate(fd->fd_sys, 0, bytes);

    if (err == EOPNOTSUPP || err == EINVAL) { /* file systems without fallocate */
        struct stat st;
        err = fstat(fd->fd_sys, &st) != 0 ? errno
              : st.st_size < bytes && ftruncate(fd->fd_sys, bytes) != 0 ? errno
                                                                         : 0;
    }
    if (err == 0)
        ADIOI_EDONIO_Size_max(c, bytes);
    *error_code = err ? ADIOI_EDONIO_Err(myname, fd->filename, err) : MPI_SUCCESS;
}

/* The larger of what this node wrote and what the file system says (others' synced writes). */
static ADIO_Offset file_size(ADIO_File fd, struct edonio_cache *c)
{
    struct stat st;

    if (fstat(fd->fd_sys, &st) == 0)
        ADIOI_EDONIO_Size_max(c, st.st_size);
    return ADIOI_EDONIO_Size_get(c);
}

/*
 * MPI_File_set_atomicity (collective): where some process does not reach every other in memory
 * (several nodes), atomic mode caches nothing, since a write must be seen by the others at once
 * and they reach only the file: everything is written back and forgotten first. On one node the
 * cache is shared memory and stays.
 */
static void set_atomicity(ADIO_File fd, struct edonio_cache *c, ADIO_Fcntl_t *fs, int *error_code)
{
    static char myname[] = "ADIOI_EDONIO_SET_ATOMICITY";
    int apart = c->nodes_apart;

    *error_code = MPI_SUCCESS;
    if (edonio_handle(fd)->collective && fs->atomicity && !c->bypass) {
        if (!apart) /* one node, but does every process reach every other? */
            *error_code = ADIOI_EDONIO_Agree_flag(fd->comm, myname, fd->filename, 0,
                                                  c->node.n < c->nprocs, &apart);
        if (apart) {
            struct edonio_flush f = flush_of(fd, EDONIO_FLUSH_EMPTY, myname);
            *error_code = ADIOI_EDONIO_Flush_all(c, &f);
            c->bypass = *error_code == MPI_SUCCESS;
        }
    } else if (edonio_handle(fd)->collective && !fs->atomicity) {
        c->bypass = 0;
    }
    if (*error_code == MPI_SUCCESS && !fs->atomicity != !fd->atomicity)
        c->atomic_handles += fs->atomicity ? 1 : -1;
    if (*error_code == MPI_SUCCESS)
        ADIOI_GEN_Fcntl(fd, ADIO_FCNTL_SET_ATOMICITY, fs, error_code);
}

void ADIOI_EDONIO_Fcntl(ADIO_File fd, int flag, ADIO_Fcntl_t *fcntl_struct, int *error_code)
{
    struct edonio_cache *c = ADIOI_EDONIO_Cache_of(fd);

    if (c == NULL) {
        ADIOI_GEN_Fcntl(fd, flag, fcntl_struct, error_code);
        return;
    }
    switch (flag) {
        case ADIO_FCNTL_GET_FSIZE:
            fcntl_struct->fsize = file_size(fd, c);
            *error_code = MPI_SUCCESS;
            break;
        case ADIO_FCNTL_SET_DISKSPACE:
            preallocate(fd, c, fcntl_struct->diskspace, error_code);
            break;
        case ADIO_FCNTL_SET_ATOMICITY:
            set_atomicity(fd, c, fcntl_struct, error_code);
            break;
        default:
            ADIOI_GEN_Fcntl(fd, flag, fcntl_struct, error_code);
            break;
    }
}
