/*
 * edonio: windows kept between a close and the next open on the same processes.
 *
 * Creating the window that holds the owners' segments is the dearest part of an open (MPICH's
 * MPI_Win_allocate_shared: tenths of a second when ranks share cores). HDF5, PnetCDF and most
 * applications open file after file on the same communicator, so at close edonio keeps the
 * window (romio_edonio_keep_window, default true), one per group of processes, and the next open
 * by the same group, with segments of the same size, lays its segments out in it again.
 *
 * Every member of a group parks and takes the group's window in the same collective close and
 * open, so all members always agree on what is parked (MPI_Group_compare is local). The windows
 * still parked are freed at the start of MPI_Finalize (a delete callback on MPI_COMM_SELF, the
 * place MPI gives libraries for this), where every process takes part.
 */
#include <stdlib.h>

#include "ad_edonio.h"
#include "adioi.h"

struct parked {
    MPI_Group group;
    size_t bytes;
    enum edonio_access access;
    MPI_Win win, size_win;
    struct edonio_segment **seg; /* SHARED: every segment, mapped here */
    void *base;                  /* this process's segment */
    struct parked *next;
};
static struct parked *parked;
static int finalize_keyval = MPI_KEYVAL_INVALID;

static void window_free(enum edonio_access access, MPI_Win *win, MPI_Win *size_win)
{
    if (access == EDONIO_ACCESS_SHARED)
        MPI_Win_unlock_all(*win);
    else
        MPI_Win_free(size_win);
    MPI_Win_free(win);
}

static void parked_free(struct parked *p)
{
    window_free(p->access, &p->win, &p->size_win);
    if (p->seg != NULL)
        ADIOI_Free(p->seg);
    MPI_Group_free(&p->group);
    free(p);
}

static int at_finalize(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm, (void)keyval, (void)value, (void)extra;
    while (parked != NULL) {
        struct parked *p = parked;
        parked = p->next;
        parked_free(p);
    }
    return MPI_SUCCESS;
}

/* The parked entry of comm's group (unlinked), or NULL. */
static struct parked *unlink_group(MPI_Comm comm)
{
    struct parked **at;
    MPI_Group group;
    int same = MPI_UNEQUAL;

    MPI_Comm_group(comm, &group);
    for (at = &parked; *at != NULL; at = &(*at)->next) {
        MPI_Group_compare((*at)->group, group, &same);
        if (same == MPI_IDENT)
            break;
    }
    MPI_Group_free(&group);
    struct parked *p = *at;
    if (p != NULL)
        *at = p->next;
    return p;
}

/* Collective: take the window this group parked, if its segments are of this size. 1 if taken. */
int ADIOI_EDONIO_Pool_take(struct edonio_file *ef, size_t bytes, void **base)
{
    struct parked *p = unlink_group(ef->comm);

    if (p == NULL)
        return 0;
    if (p->bytes != bytes) { /* another shape: make room for the new window */
        parked_free(p);
        return 0;
    }
    ef->access = p->access;
    ef->win = p->win;
    ef->size_win = p->size_win;
    ef->seg = p->seg;
    *base = p->base;
    MPI_Group_free(&p->group);
    free(p);
    return 1;
}

/* Collective: park this file's window for the next open by its group. 1 if parked. */
int ADIOI_EDONIO_Pool_park(struct edonio_file *ef, size_t bytes)
{
    struct parked *p, *old = unlink_group(ef->comm);

    if (old != NULL) { /* one window per group: keep the one already parked */
        old->next = parked;
        parked = old;
        return 0;
    }
    if (finalize_keyval == MPI_KEYVAL_INVALID &&
        (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_finalize, &finalize_keyval, NULL) !=
             MPI_SUCCESS ||
         MPI_Comm_set_attr(MPI_COMM_SELF, finalize_keyval, NULL) != MPI_SUCCESS)) {
        finalize_keyval = MPI_KEYVAL_INVALID;
        return 0;
    }
    p = malloc(sizeof(*p));
    if (p == NULL)
        return 0;
    *p = (struct parked){MPI_GROUP_NULL, bytes, ef->access, ef->win, ef->size_win, ef->seg,
                         ef->mine, parked};
    MPI_Comm_group(ef->comm, &p->group);
    parked = p;
    return 1;
}
