/*
 * edonio: several handles of one file in one process.
 *
 * A program may open a file it already has open: PnetCDF opens every file twice, on the file's
 * communicator and on MPI_COMM_SELF for independent mode, and writes through both without
 * MPI_File_sync in between, relying on what it sees through one handle being what it wrote
 * through the other. Two caches of one file would break that. So a file opened on one process
 * (a communicator of size 1) while the process has it open and cached already becomes an alias:
 * it shares that handle's cache (its segments, its size, its owners). Its own state is a copy of
 * the primary's, with its own counters and system file descriptor; the primary's resources are
 * the primary's alone. When the primary closes, after writing every dirty block back, its aliases
 * go straight to the file system from then on, which is then up to date.
 *
 * Handles of one file open at once on several processes each, on different communicators, have
 * caches of their own, and follow MPI's rule: MPI_File_sync between conflicting accesses.
 */
#include <sys/stat.h>

#include "ad_edonio.h"
#include "adioi.h"

static struct edonio_file *open_files; /* this process's primaries, most recent first */

static struct edonio_file *find_primary(dev_t dev, ino_t ino)
{
    for (struct edonio_file *p = open_files; p; p = p->next_open)
        if (p->dev == dev && p->ino == ino && p->access != EDONIO_ACCESS_NONE)
            return p;
    return NULL;
}

/* A primary is known by its file's identity, for later handles to find. */
void ADIOI_EDONIO_Alias_register(struct edonio_file *ef)
{
    ef->next_open = open_files;
    open_files = ef;
}

/* The primary goes: forget it, and send its aliases to the file system. */
void ADIOI_EDONIO_Alias_unregister(struct edonio_file *ef)
{
    struct edonio_file **p;

    for (p = &open_files; *p && *p != ef; p = &(*p)->next_open)
        ;
    if (*p)
        *p = ef->next_open;
    for (struct edonio_file *a = ef->next_alias; a; a = a->next_alias) {
        a->access = EDONIO_ACCESS_NONE;
        a->primary = NULL;
    }
    ef->next_alias = NULL;
}

/*
 * At open, on one process: share the cache of a handle of the same file this process has open.
 * Returns 1 when fd became an alias.
 */
int ADIOI_EDONIO_Alias_attach(ADIO_File fd)
{
    struct edonio_file *ef = edonio_state(fd), *p;
    struct stat st;

    if (fstat(fd->fd_sys, &st) != 0)
        return 0;
    ef->dev = st.st_dev;
    ef->ino = st.st_ino;
    if (ef->nprocs != 1 || (p = find_primary(st.st_dev, st.st_ino)) == NULL)
        return 0;
    /* The primary's cache, seen from this process: its rank there, its owners, its hints. */
    ef->primary = p;
    ef->access = p->access;
    ef->rank = p->rank;
    ef->nprocs = p->nprocs;
    ef->hints = p->hints;
    ef->win = p->win;
    ef->size_win = p->size_win;
    ef->seg = p->seg;
    ef->mine = p->mine;
    ef->mirror = p->mirror;
    ef->meta_bytes = p->meta_bytes;
    ef->fetch_buf = p->fetch_buf;
    ef->wb_buf = p->wb_buf;
    ef->ro = NULL;
    ef->next_alias = p->next_alias;
    p->next_alias = ef;
    return 1;
}

/* An alias closes: the primary keeps the cache. */
void ADIOI_EDONIO_Alias_detach(struct edonio_file *ef)
{
    struct edonio_file **a;

    if (ef->primary == NULL)
        return;
    for (a = &ef->primary->next_alias; *a && *a != ef; a = &(*a)->next_alias)
        ;
    if (*a)
        *a = ef->next_alias;
    ef->primary = NULL;
    ef->access = EDONIO_ACCESS_NONE;
}
