/*
 * edonio: open and close, and setting the cache up and down.
 *
 * Open makes the system file descriptor on one process. OpenColl is the collective part: every
 * process of the communicator opens the file (every one owns blocks, so ROMIO's deferred open is
 * off), then the cache is attached: the owners' segments, the file's size, the read-only cache,
 * and the preload. Close writes every dirty block back and takes the cache down.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ad_edonio.h"
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

static int ro_cache_create(ADIO_File fd)
{
    struct edonio_file *ef = edonio_state(fd);
    int32_t nslots = (int32_t)(ef->hints.ro_cache_size / ef->hints.block_size);
    void *mem;

    if (!(fd->access_mode & ADIO_RDONLY) || nslots < 1 || ef->nprocs == 1)
        return 1;
    mem = ADIOI_Malloc(edonio_segment_size(nslots, (uint32_t)ef->hints.block_size));
    if (mem == NULL)
        return 0;
    ef->ro = edonio_segment_init(mem, nslots, (uint32_t)ef->hints.block_size);
    return 1;
}

/* Collective: the segments, the file's size as the file system has it, the read-only cache. */
int ADIOI_EDONIO_Cache_attach(ADIO_File fd)
{
    struct edonio_file *ef = edonio_state(fd);
    long long size = 0;
    struct stat st;

    if (!ADIOI_EDONIO_Segments_create(fd))
        return ENOMEM;
    if (ef->rank == 0) {
        if (fstat(fd->fd_sys, &st) == 0)
            size = st.st_size;
        ADIOI_EDONIO_Size_set(ef, EDONIO_SIZE_FILE, size);
        ADIOI_EDONIO_Size_set(ef, EDONIO_SIZE_DISK, size);
    }
    /* Every owner has laid its segment out, and rank 0 has set the size: the cache is open. */
    MPI_Barrier(ef->comm);
    if (!ro_cache_create(fd))
        return ENOMEM;
    return ef->hints.preload ? ADIOI_EDONIO_Cache_preload(fd) : 0;
}

/*
 * Collective: write every dirty block back, then take the cache down. When a write-back fails the
 * cache stays up (the dirty blocks with it, for a later sync), unless 'always': at close the file
 * goes whatever happens, and the error says that data was lost.
 */
void ADIOI_EDONIO_Cache_detach(ADIO_File fd, int always, int *error_code)
{
    static char myname[] = "ADIOI_EDONIO_CLOSE";
    struct edonio_file *ef = edonio_state(fd);
    int err = ADIOI_EDONIO_Cache_flush_grouped(fd, 0);

    *error_code = err ? ADIOI_EDONIO_Err(myname, fd->filename, err) : MPI_SUCCESS;
    ADIOI_EDONIO_Agree(ef->comm, error_code);
    if (*error_code != MPI_SUCCESS && !always)
        return;
    ADIOI_EDONIO_Alias_unregister(ef); /* its aliases go to the file system, now up to date */
    ADIOI_EDONIO_Segments_free(fd);
    if (ef->ro != NULL) /* ROMIO's allocator refuses NULL */
        ADIOI_Free(ef->ro);
    ef->ro = NULL;
}

/* Collective (MPI_File_set_info): the cache again, in a new shape. */
void ADIOI_EDONIO_Cache_rebuild(ADIO_File fd, const struct edonio_hints *h, int *error_code)
{
    static char myname[] = "ADIOI_EDONIO_SETINFO";
    struct edonio_file *ef = edonio_state(fd);
    struct edonio_hints mine = *h; /* the same on every process (see ad_edonio_hints.c) */
    int err;

    ADIOI_EDONIO_Cache_detach(fd, 0, error_code);
    if (*error_code != MPI_SUCCESS)
        return;
    ef->hints = mine;
    err = ADIOI_EDONIO_Cache_attach(fd);
    *error_code = err ? ADIOI_EDONIO_Err(myname, fd->filename, err) : MPI_SUCCESS;
    ADIOI_EDONIO_Agree(ef->comm, error_code);
}

static void state_free(ADIO_File fd)
{
    struct edonio_file *ef = edonio_state(fd);

    if (ef == NULL)
        return;
    if (ef->comm != MPI_COMM_NULL)
        MPI_Comm_free(&ef->comm);
    ADIOI_Free(ef);
    fd->fs_ptr = NULL;
}

void ADIOI_EDONIO_OpenColl(ADIO_File fd, int rank, int access_mode, int *error_code)
{
    static char myname[] = "ADIOI_EDONIO_OPENCOLL";
    struct edonio_file *ef = edonio_state(fd);
    int err = 0;

    fd->hints->deferred_open = 0;
    ADIOI_GEN_OpenColl(fd, rank, access_mode, error_code);
    /* Every process keeps the file open, or none does, and all report the same error. */
    ADIOI_EDONIO_Agree(fd->comm, error_code);
    if (*error_code != MPI_SUCCESS) {
        state_free(fd);
        return;
    }
    MPI_Comm_dup(fd->comm, &ef->comm);
    MPI_Comm_rank(ef->comm, &ef->rank);
    MPI_Comm_size(ef->comm, &ef->nprocs);
    /* One shape for everyone: rank 0's hints. */
    MPI_Bcast(&ef->hints, sizeof(ef->hints), MPI_BYTE, 0, ef->comm);
    if (ef->hints.flush_groups > ef->nprocs) /* at most one group per process */
        ef->hints.flush_groups = ef->nprocs;
    ADIOI_EDONIO_Hints_report(fd, &ef->hints);
    if (!is_shared_fp_file(fd, ef->nprocs) && !ADIOI_EDONIO_Alias_attach(fd)) {
        err = ADIOI_EDONIO_Cache_attach(fd);
        if (err == 0)
            ADIOI_EDONIO_Alias_register(ef);
    }
    *error_code = err ? ADIOI_EDONIO_Err(myname, fd->filename, err) : MPI_SUCCESS;
    ADIOI_EDONIO_Agree(ef->comm, error_code);
    if (*error_code != MPI_SUCCESS) {
        int ignored;
        if (ef->access != EDONIO_ACCESS_NONE)
            ADIOI_EDONIO_Cache_detach(fd, 1, &ignored);
        state_free(fd);
        return;
    }
    ef->opened = 1;
}

void ADIOI_EDONIO_Close(ADIO_File fd, int *error_code)
{
    struct edonio_file *ef = edonio_state(fd);
    int err = MPI_SUCCESS;

    /* Rank 0 also closes once while creating the file, before the collective open. */
    if (ef != NULL && ef->opened) {
        if (ef->primary != NULL)
            ADIOI_EDONIO_Alias_detach(ef); /* the primary keeps the cache, and writes it back */
        else if (ef->access != EDONIO_ACCESS_NONE)
            ADIOI_EDONIO_Cache_detach(fd, 1, &err);
        ADIOI_EDONIO_Stats_report(fd);
        state_free(fd);
    }
    ADIOI_GEN_Close(fd, error_code);
    if (*error_code == MPI_SUCCESS)
        *error_code = err;
}
