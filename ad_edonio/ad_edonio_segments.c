/*
 * edonio: the owners' segments, and how a process reaches them.
 *
 * Every process of the file allocates its segment (ad_edonio_cache.h) in one MPI window.
 *
 * - One node (every process shares memory with every other): the window is a shared-memory window
 *   (MPI_Win_allocate_shared); each segment is mapped in every process, its lock is an atomic word
 *   in it, and data moves with memcpy. No MPI call is needed to read or write another owner's
 *   blocks, so an owner that computes outside MPI never delays anyone.
 * - Several nodes: an ordinary window; a segment is held under MPI_Win_lock(MPI_LOCK_EXCLUSIVE),
 *   its metadata copied here (the mirror), worked on, and put back; data moves with MPI_Get and
 *   MPI_Put. This needs the MPI library to progress passive-target RMA at a target that is
 *   outside MPI; MPICH's ch4:ucx does that only with MPIR_CVAR_ASYNC_PROGRESS=1 (doc/design.md).
 *
 * The file's size (what has been written, cached or not) and how far its copy on disk reaches are
 * kept beside: in rank 0's segment header on one node, in a two-integer window at rank 0
 * otherwise.
 */
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ad_edonio.h"
#include "adioi.h"

/*
 * Groups of processes already known to share one node, or not. Finding out takes an
 * MPI_Comm_split_type, the dearest step of an open after the window itself (tenths of a second
 * when ranks share cores), so each answer is kept for the life of the process. Every member of a
 * group learns it in the same collective open, and entries are never dropped, so all members
 * make the same choice later; MPI_Group_compare is local.
 */
struct known_group {
    MPI_Group group;
    int one_node;
    struct known_group *next;
};
static struct known_group *known_groups;

static int one_node(MPI_Comm comm, int nprocs)
{
    struct known_group *k;
    MPI_Comm node;
    MPI_Group group;
    int node_size, all, same;

    MPI_Comm_group(comm, &group);
    for (k = known_groups; k != NULL; k = k->next) {
        MPI_Group_compare(k->group, group, &same);
        if (same == MPI_IDENT) {
            MPI_Group_free(&group);
            return k->one_node;
        }
    }
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &node_size);
    MPI_Comm_free(&node);
    node_size = node_size == nprocs;
    MPI_Allreduce(&node_size, &all, 1, MPI_INT, MPI_LAND, comm);
    k = malloc(sizeof(*k));
    if (k == NULL) {
        MPI_Group_free(&group);
        return all;
    }
    *k = (struct known_group){group, all, known_groups};
    known_groups = k;
    return all;
}

static int create_shared(struct edonio_file *ef, size_t bytes, void **base)
{
    MPI_Info info;
    MPI_Aint size;
    int disp;

    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_shared_noncontig", "true"); /* each segment near its owner */
    if (MPI_Win_allocate_shared((MPI_Aint)bytes, 1, info, ef->comm, base, &ef->win) !=
        MPI_SUCCESS) {
        MPI_Info_free(&info);
        return 0;
    }
    MPI_Info_free(&info);
    ef->seg = ADIOI_Calloc(ef->nprocs, sizeof(*ef->seg));
    for (int r = 0; r < ef->nprocs; r++) {
        void *ptr;
        MPI_Win_shared_query(ef->win, r, &size, &disp, &ptr);
        ef->seg[r] = ptr;
    }
    /* A passive epoch to every process for the file's lifetime: loads and stores need no more. */
    MPI_Win_lock_all(MPI_MODE_NOCHECK, ef->win);
    ef->access = EDONIO_ACCESS_SHARED;
    return 1;
}

static int create_rma(struct edonio_file *ef, size_t bytes, void **base)
{
    int64_t *size_base;

    if (MPI_Win_allocate((MPI_Aint)bytes, 1, MPI_INFO_NULL, ef->comm, base, &ef->win) !=
        MPI_SUCCESS)
        return 0;
    if (MPI_Win_allocate(ef->rank == 0 ? 2 * sizeof(int64_t) : 0, sizeof(int64_t), MPI_INFO_NULL,
                         ef->comm, &size_base, &ef->size_win) != MPI_SUCCESS) {
        MPI_Win_free(&ef->win);
        return 0;
    }
    if (ef->rank == 0)
        size_base[0] = size_base[1] = 0;
    ef->access = EDONIO_ACCESS_RMA;
    return 1;
}

/* Collective over the file's processes; returns 1 on success on this process. */
int ADIOI_EDONIO_Segments_create(ADIO_File fd)
{
    struct edonio_file *ef = edonio_state(fd);
    uint32_t block = (uint32_t)ef->hints.block_size;
    int32_t nslots = (int32_t)(ef->hints.cache_size / block);
    size_t bytes = edonio_segment_size(nslots, block);
    void *base = NULL;
    int ok;

    ok = ADIOI_EDONIO_Pool_take(ef, bytes, &base) ||
         (one_node(ef->comm, ef->nprocs) ? create_shared(ef, bytes, &base)
                                         : create_rma(ef, bytes, &base));
    if (!ok)
        return 0;
    ef->win_bytes = bytes;
    ef->mine = edonio_segment_init(base, nslots, block);
    ef->meta_bytes = ef->mine->data_offset;
    if (ef->access == EDONIO_ACCESS_RMA)
        ef->mirror = ADIOI_Malloc(ef->meta_bytes);
    ef->fetch_buf = ADIOI_Malloc(block);
    ef->wb_buf = ADIOI_Malloc(block);
    return 1; /* nobody touches a segment before the caller's barrier (ADIOI_EDONIO_Cache_attach) */
}

void ADIOI_EDONIO_Segments_free(ADIO_File fd)
{
    struct edonio_file *ef = edonio_state(fd);

    MPI_Barrier(ef->comm);
    if (ef->access == EDONIO_ACCESS_RMA)
        ADIOI_Free(ef->mirror);
    if (ef->access != EDONIO_ACCESS_NONE &&
        !(ef->hints.keep_window && ADIOI_EDONIO_Pool_park(ef, ef->win_bytes))) {
        if (ef->access == EDONIO_ACCESS_SHARED) {
            MPI_Win_unlock_all(ef->win);
            ADIOI_Free(ef->seg);
        } else {
            MPI_Win_free(&ef->size_win);
        }
        MPI_Win_free(&ef->win);
    }
    ef->seg = NULL;
    ADIOI_Free(ef->fetch_buf);
    ADIOI_Free(ef->wb_buf);
    ef->access = EDONIO_ACCESS_NONE;
}

static void spin_lock(atomic_int *lock)
{
    while (atomic_exchange_explicit(lock, 1, memory_order_acquire))
        while (atomic_load_explicit(lock, memory_order_relaxed))
            sched_yield(); /* the holder may share our core */
}

/* Hold an owner's segment: the returned metadata may be read and changed until Release. */
struct edonio_segment *ADIOI_EDONIO_Acquire(struct edonio_file *ef, int owner)
{
    if (ef->access == EDONIO_ACCESS_SHARED) {
        spin_lock(&ef->seg[owner]->lock);
        return ef->seg[owner];
    }
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, owner, 0, ef->win);
    MPI_Get(ef->mirror, (int)ef->meta_bytes, MPI_BYTE, owner, 0, (int)ef->meta_bytes, MPI_BYTE,
            ef->win);
    MPI_Win_flush(owner, ef->win);
    return ef->mirror;
}

void ADIOI_EDONIO_Release(struct edonio_file *ef, int owner, int modified)
{
    if (ef->access == EDONIO_ACCESS_SHARED) {
        atomic_store_explicit(&ef->seg[owner]->lock, 0, memory_order_release);
        return;
    }
    if (modified)
        MPI_Put(ef->mirror, (int)ef->meta_bytes, MPI_BYTE, owner, 0, (int)ef->meta_bytes, MPI_BYTE,
                ef->win);
    MPI_Win_unlock(owner, ef->win);
}

/* Where a held slot's data is in this process's memory, or NULL when it is only reachable by RMA. */
unsigned char *ADIOI_EDONIO_Slot_ptr(struct edonio_file *ef, int owner, int32_t slot)
{
    if (ef->access != EDONIO_ACCESS_SHARED)
        return NULL;
    return edonio_slot_data(ef->seg[owner], slot);
}

static MPI_Aint slot_disp(struct edonio_file *ef, int32_t slot, uint32_t off)
{
    return (MPI_Aint)(ef->mine->data_offset + (uint64_t)slot * ef->mine->block_size + off);
}

void ADIOI_EDONIO_Slot_get(struct edonio_file *ef, int owner, int32_t slot, uint32_t off, void *buf,
                           uint32_t len)
{
    unsigned char *ptr = ADIOI_EDONIO_Slot_ptr(ef, owner, slot);

    if (ptr != NULL) {
        memcpy(buf, ptr + off, len);
        return;
    }
    MPI_Get(buf, (int)len, MPI_BYTE, owner, slot_disp(ef, slot, off), (int)len, MPI_BYTE, ef->win);
    MPI_Win_flush(owner, ef->win);
}

void ADIOI_EDONIO_Slot_put(struct edonio_file *ef, int owner, int32_t slot, uint32_t off,
                           const void *buf, uint32_t len)
{
    unsigned char *ptr = ADIOI_EDONIO_Slot_ptr(ef, owner, slot);

    if (ptr != NULL) {
        memcpy(ptr + off, buf, len);
        return;
    }
    MPI_Put(buf, (int)len, MPI_BYTE, owner, slot_disp(ef, slot, off), (int)len, MPI_BYTE, ef->win);
    MPI_Win_flush(owner, ef->win);
}

static int64_t size_op(struct edonio_file *ef, int which, int64_t value, MPI_Op op)
{
    int64_t old;

    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, ef->size_win);
    MPI_Fetch_and_op(&value, &old, MPI_INT64_T, 0, which, op, ef->size_win);
    MPI_Win_unlock(0, ef->size_win);
    return old;
}

ADIO_Offset ADIOI_EDONIO_Size_get(struct edonio_file *ef, int which)
{
    if (ef->access == EDONIO_ACCESS_SHARED)
        return atomic_load(&ef->seg[0]->sizes[which]);
    return size_op(ef, which, 0, MPI_NO_OP);
}

/* The file (or its copy on disk) now reaches at least 'end'. */
void ADIOI_EDONIO_Size_max(struct edonio_file *ef, int which, ADIO_Offset end)
{
    if (ef->access == EDONIO_ACCESS_SHARED) {
        _Atomic int64_t *size = &ef->seg[0]->sizes[which];
        int64_t cur = atomic_load(size);
        while (cur < end && !atomic_compare_exchange_weak(size, &cur, end))
            ;
        return;
    }
    size_op(ef, which, end, MPI_MAX);
}

void ADIOI_EDONIO_Size_set(struct edonio_file *ef, int which, ADIO_Offset size)
{
    if (ef->access == EDONIO_ACCESS_SHARED)
        atomic_store(&ef->seg[0]->sizes[which], size);
    else
        size_op(ef, which, size, MPI_REPLACE);
}
