/*
 * edonio: hints.
 *
 * ROMIO's generic hints first, then edonio's own (doc/hints.md). An invalid value falls back to
 * the documented default, and MPI_File_get_info reports the value in effect for every hint: for
 * the memory hints, what this process can really cache (bounded by what its node can give). The
 * cache's shape is fixed by rank 0's values at open; MPI_File_set_info with new values later
 * rebuilds the cache (collectively, after writing every dirty block back), except through a
 * one-process handle that shares a larger cache, which keeps the cache's shape. The read-only keys
 * romio_edonio_version and romio_edonio_romio_version tell a program that edonio serves the file.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>

#include "ad_edonio_cache.h"
#include "adioi.h"
#include "edonio.h"

void ADIOI_EDONIO_Hints_defaults(struct edonio_hints *h)
{
    h->block_size = EDONIO_DEFAULT_BLOCK_SIZE;
    h->cache_size = EDONIO_DEFAULT_CACHE_SIZE;
    h->remote_cache_size = EDONIO_DEFAULT_REMOTE_CACHE_SIZE;
    h->direct_threshold = EDONIO_DEFAULT_DIRECT;
    h->preload = 0;
    h->flush_groups = 1;
    h->shared_memory = 1;
    h->keep_memory = 1;
    h->atomicity = EDONIO_ATOMIC_RANK_ORDER;
    h->coll_path = EDONIO_COLL_PATH_AUTO;
    h->read_fill = EDONIO_READ_FILL_AUTO;
    h->write_through = EDONIO_WRITE_THROUGH_AUTO;
    h->write_back = EDONIO_WRITE_BACK_AUTO;
    h->dirty_expire = EDONIO_DEFAULT_DIRTY_EXPIRE;
    h->schedule_reuse = 1;
    h->schedules = EDONIO_DEFAULT_SCHEDULES;
}

static const char *const atomicity_names[] = {"rank_order", "graph_coloring", "locking"};
static const char *const coll_path_names[] = {"auto", "exchange"};
static const char *const read_fill_names[] = {"auto", "block", "none"};
static const char *const write_back_names[] = {"auto", "span", "exact"};

/* The value of key in info, into value (MPI_MAX_INFO_VAL + 1 bytes); 0 when absent. */
static int get_value(MPI_Info info, const char *key, char *value)
{
    int flag = 0;

    if (info != MPI_INFO_NULL)
        MPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag);
    return flag;
}

/* The value of key as a byte count: -1 when absent, -2 when not a non-negative number. */
static long long get_bytes(MPI_Info info, const char *key)
{
    char value[MPI_MAX_INFO_VAL + 1], *end;
    long long v;

    if (!get_value(info, key, value))
        return -1;
    errno = 0;
    v = strtoll(value, &end, 10);
    if (errno || end == value || *end != '\0' || v < 0)
        return -2;
    return v;
}

/* 1 for true/enable, 0 for false/disable, -1 when absent, -2 for anything else. */
static int get_bool(MPI_Info info, const char *key)
{
    char value[MPI_MAX_INFO_VAL + 1];

    if (!get_value(info, key, value))
        return -1;
    if (!strcasecmp(value, "true") || !strcasecmp(value, "enable") || !strcmp(value, "1"))
        return 1;
    if (!strcasecmp(value, "false") || !strcasecmp(value, "disable") || !strcmp(value, "0"))
        return 0;
    return -2;
}

/* Which of n names key's value is: -1 when absent, 0 (the default) when none. */
static int get_name(MPI_Info info, const char *key, const char *const *names, int n)
{
    char value[MPI_MAX_INFO_VAL + 1];

    if (!get_value(info, key, value))
        return -1;
    for (int i = 0; i < n; i++)
        if (!strcasecmp(value, names[i]))
            return i;
    return 0;
}

static int power_of_two(long long v)
{
    return v > 0 && (v & (v - 1)) == 0;
}

/* The hints in info, on top of h; absent keys leave h as it is, invalid ones set the default. */
static void parse(MPI_Info info, struct edonio_hints *h)
{
    struct edonio_hints d;
    long long v;
    int b;

    ADIOI_EDONIO_Hints_defaults(&d);
    v = get_bytes(info, "romio_edonio_block_size");
    if (v != -1)
        h->block_size = power_of_two(v) && v >= EDONIO_MIN_BLOCK_SIZE && v <= EDONIO_MAX_BLOCK_SIZE
                            ? v
                            : d.block_size;
    v = get_bytes(info, "romio_edonio_cache_size");
    if (v != -1)
        h->cache_size = v > 0 ? v : d.cache_size;
    v = get_bytes(info, "romio_edonio_ro_cache_size"); /* its name before 0.2 */
    if (v != -1)
        h->remote_cache_size = v > 0 ? v : d.remote_cache_size;
    v = get_bytes(info, "romio_edonio_remote_cache_size");
    if (v != -1)
        h->remote_cache_size = v > 0 ? v : d.remote_cache_size;
    b = get_bool(info, "romio_edonio_preload");
    if (b != -1)
        h->preload = b >= 0 ? b : d.preload;
    v = get_bytes(info, "romio_edonio_flush_groups");
    if (v != -1)
        h->flush_groups = v >= 1 && v <= INT_MAX ? (int)v : d.flush_groups;
    v = get_bytes(info, "romio_edonio_direct_threshold");
    if (v != -1)
        h->direct_threshold = v >= 0 ? v : d.direct_threshold;
    b = get_bool(info, "romio_edonio_shared_memory");
    if (b != -1)
        h->shared_memory = b >= 0 ? b : d.shared_memory;
    b = get_bool(info, "romio_edonio_keep_memory");
    if (b != -1)
        h->keep_memory = b >= 0 ? b : d.keep_memory;
    b = get_name(info, "romio_edonio_atomicity", atomicity_names, 3);
    if (b != -1)
        h->atomicity = (enum edonio_atomicity)b;
    b = get_name(info, "romio_edonio_coll_path", coll_path_names, 2);
    if (b != -1)
        h->coll_path = (enum edonio_coll_path)b;
    b = get_name(info, "romio_edonio_read_fill", read_fill_names, 3);
    if (b != -1)
        h->read_fill = (enum edonio_read_fill)b;
    v = get_bytes(info, "romio_edonio_write_through"); /* "auto" is not a number: the default */
    if (v != -1)
        h->write_through = v >= 0 ? v : d.write_through;
    b = get_name(info, "romio_edonio_write_back", write_back_names, 3);
    if (b != -1)
        h->write_back = (enum edonio_write_back)b;
    v = get_bytes(info, "romio_edonio_dirty_expire");
    if (v != -1)
        h->dirty_expire = v >= 0 && v <= INT_MAX ? v : d.dirty_expire;
    b = get_bool(info, "romio_edonio_schedule_reuse");
    if (b != -1)
        h->schedule_reuse = b >= 0 ? b : d.schedule_reuse;
    v = get_bytes(info, "romio_edonio_schedules"); /* 0: none kept, as schedule_reuse=false */
    if (v != -1)
        h->schedules = v < 0                      ? d.schedules
                       : v > EDONIO_MAX_SCHEDULES ? EDONIO_MAX_SCHEDULES
                                                  : (int)v;
    /* A cache smaller than a block falls back; a remote cache holds at least one block. */
    if (h->cache_size < h->block_size)
        h->cache_size = d.cache_size >= h->block_size ? d.cache_size : h->block_size;
    if (h->remote_cache_size < h->block_size)
        h->remote_cache_size = h->block_size;
}

static void info_set_ll(ADIO_File fd, const char *key, long long v)
{
    char value[32];

    snprintf(value, sizeof(value), "%lld", v);
    ADIOI_Info_set(fd->info, key, value);
}

/* Every hint with the value in effect, and the version keys. */
void ADIOI_EDONIO_Hints_report(ADIO_File fd, const struct edonio_hints *h)
{
    info_set_ll(fd, "romio_edonio_block_size", h->block_size);
    info_set_ll(fd, "romio_edonio_cache_size", h->cache_size);
    info_set_ll(fd, "romio_edonio_remote_cache_size", h->remote_cache_size);
    ADIOI_Info_set(fd->info, "romio_edonio_preload", h->preload ? "true" : "false");
    info_set_ll(fd, "romio_edonio_flush_groups", h->flush_groups);
    ADIOI_Info_set(fd->info, "romio_edonio_shared_memory", h->shared_memory ? "true" : "false");
    ADIOI_Info_set(fd->info, "romio_edonio_keep_memory", h->keep_memory ? "true" : "false");
    info_set_ll(fd, "romio_edonio_direct_threshold", h->direct_threshold);
    ADIOI_Info_set(fd->info, "romio_edonio_atomicity", atomicity_names[h->atomicity]);
    ADIOI_Info_set(fd->info, "romio_edonio_coll_path", coll_path_names[h->coll_path]);
    ADIOI_Info_set(fd->info, "romio_edonio_read_fill", read_fill_names[h->read_fill]);
    if (h->write_through == EDONIO_WRITE_THROUGH_AUTO)
        ADIOI_Info_set(fd->info, "romio_edonio_write_through", "auto");
    else
        info_set_ll(fd, "romio_edonio_write_through", h->write_through);
    ADIOI_Info_set(fd->info, "romio_edonio_write_back", write_back_names[h->write_back]);
    info_set_ll(fd, "romio_edonio_dirty_expire", h->dirty_expire);
    ADIOI_Info_set(fd->info, "romio_edonio_schedule_reuse", h->schedule_reuse ? "true" : "false");
    info_set_ll(fd, "romio_edonio_schedules", h->schedules);
    ADIOI_Info_set(fd->info, EDONIO_VERSION_KEY, edonio_version());
    ADIOI_Info_set(fd->info, EDONIO_ROMIO_VERSION_KEY, edonio_romio_version());
}

/*
 * File systems whose files the kernel caches in its page cache on this node, where reading a
 * whole block to serve a few bytes of it costs a second copy and gains nothing: the next read
 * of the block is a page-cache hit for ufs too. Elsewhere (parallel and network file systems,
 * FUSE) every operation costs a round trip, and a block read once serves many.
 */
static int page_cached(int fd_sys)
{
    static const unsigned long local[] = {
        0xEF53UL,     /* ext2, ext3, ext4 */
        0x58465342UL, /* xfs */
        0x9123683EUL, /* btrfs */
        0x01021994UL, /* tmpfs */
        0xF2F52010UL, /* f2fs */
        0x2FC12FC1UL, /* zfs */
        0x794C7630UL, /* overlayfs */
    };
    struct statfs sb;

    if (fd_sys < 0 || fstatfs(fd_sys, &sb) != 0)
        return 0;
    for (size_t i = 0; i < sizeof(local) / sizeof(local[0]); i++)
        if ((unsigned long)sb.f_type == local[i])
            return 1;
    return 0;
}

/*
 * The hints whose auto depends on the file system, decided for the file open on fd_sys (one
 * fstatfs, only if one of them is auto). On a file system with a page cache: read_fill none (the
 * next read of a block is a page-cache hit for ufs too), write_through 16 KiB (caching larger
 * writes copies every byte twice), write_back exact (the kernel gathers small writes, so a span
 * saves only system calls, and costs a read of the gaps and a lock that every write of the file
 * must then take too: doc/design.md, "Write-back"). Elsewhere every operation is a round trip:
 * block, 0 (full write-behind) and span.
 */
void ADIOI_EDONIO_Hints_resolve(struct edonio_hints *h, int fd_sys)
{
    if (h->read_fill != EDONIO_READ_FILL_AUTO && h->write_through != EDONIO_WRITE_THROUGH_AUTO &&
        h->write_back != EDONIO_WRITE_BACK_AUTO)
        return;
    int local = page_cached(fd_sys);
    if (h->read_fill == EDONIO_READ_FILL_AUTO)
        h->read_fill = local ? EDONIO_READ_FILL_NONE : EDONIO_READ_FILL_BLOCK;
    if (h->write_through == EDONIO_WRITE_THROUGH_AUTO)
        h->write_through = local ? EDONIO_WRITE_THROUGH_LOCAL : 0;
    if (h->write_back == EDONIO_WRITE_BACK_AUTO)
        h->write_back = local ? EDONIO_WRITE_BACK_EXACT : EDONIO_WRITE_BACK_SPAN;
}

int ADIOI_EDONIO_Hints_same_shape(const struct edonio_hints *a, const struct edonio_hints *b)
{
    return a->block_size == b->block_size && a->cache_size == b->cache_size &&
           a->remote_cache_size == b->remote_cache_size && a->shared_memory == b->shared_memory;
}

/*
 * Collective (MPI_File_set_info, MPI_File_set_view) on an open file: rank 0's new hints for all.
 * A new shape rebuilds the cache; preload turned on now preloads now, as EDONIO's do_preload.
 */
static int change(ADIO_File fd, struct edonio_handle *h, struct edonio_hints *want)
{
    struct edonio_cache *c = ADIOI_EDONIO_Cache_of(fd);
    struct edonio_hints old = h->hints; /* as asked, not as the node could give */
    int nprocs, preload_now, code = MPI_SUCCESS;

    old.cache_size = h->asked_cache_size;
    old.remote_cache_size = h->asked_remote_size;
    MPI_Bcast(want, sizeof(*want), MPI_BYTE, 0, fd->comm);
    MPI_Comm_size(fd->comm, &nprocs);
    if (want->flush_groups > nprocs) /* at most one group per process */
        want->flush_groups = nprocs;
    preload_now = want->preload && !h->hints.preload; /* or with a new shape, below */
    h->asked_cache_size = want->cache_size;
    h->asked_remote_size = want->remote_cache_size;
    if (c != NULL && h->collective && !ADIOI_EDONIO_Hints_same_shape(want, &old)) {
        code = ADIOI_EDONIO_Cache_rebuild(c, fd->comm, &h->stats, want);
        preload_now = want->preload;
        h->hints = *want;
        h->hints.cache_size = c->hints.cache_size; /* what this process can really cache */
        h->hints.remote_cache_size = c->hints.remote_cache_size;
    } else { /* the same shape, or a one-process handle on a larger cache: it keeps its shape */
        struct edonio_hints kept = h->hints;
        h->hints = *want;
        h->hints.block_size = kept.block_size;
        h->hints.cache_size = kept.cache_size;
        h->hints.remote_cache_size = kept.remote_cache_size;
        h->hints.shared_memory = kept.shared_memory;
    }
    if (c != NULL) {
        c->hints.direct_threshold = h->hints.direct_threshold;
        c->hints.keep_memory = h->hints.keep_memory;
        ADIOI_EDONIO_Hints_resolve(&h->hints, c->fd_sys);
        c->hints.read_fill = h->hints.read_fill;
        c->hints.write_through = h->hints.write_through;
        c->hints.write_back = h->hints.write_back;
        c->hints.dirty_expire = h->hints.dirty_expire;
        ADIOI_EDONIO_Keeper_expire(c);
    }
    if (code == MPI_SUCCESS && preload_now && c != NULL && h->collective)
        code = ADIOI_EDONIO_Preload(fd);
    return code;
}

void ADIOI_EDONIO_SetInfo(ADIO_File fd, MPI_Info users_info, int *error_code)
{
    struct edonio_handle *h = edonio_handle(fd);
    struct edonio_hints want;

    ADIOI_GEN_SetInfo(fd, users_info, error_code);
    if (*error_code != MPI_SUCCESS)
        return;
    /* Every process of an edonio file takes part in its I/O: no deferred open. */
    fd->hints->deferred_open = 0;
    if (h == NULL) { /* first call, at open: the handle starts here */
        if ((h = calloc(1, sizeof(*h))) == NULL) {
            *error_code = ADIOI_EDONIO_Err("ADIOI_EDONIO_SETINFO", fd->filename, ENOMEM);
            return;
        }
        ADIOI_EDONIO_Hints_defaults(&h->hints);
        h->tag.stats_root = -1; /* no report until the open's exchange says (attach_cache) */
        fd->fs_ptr = h;
    }
    want = h->hints;
    if (h->opened) { /* start from what was asked, not from what the node could give */
        want.cache_size = h->asked_cache_size;
        want.remote_cache_size = h->asked_remote_size;
    }
    parse(users_info, &want);
    if (h->opened) {
        *error_code = change(fd, h, &want);
    } else {
        h->hints = want; /* the open takes rank 0's */
        h->asked_cache_size = want.cache_size;
        h->asked_remote_size = want.remote_cache_size;
    }
    /* A new view or new hints: the plans of the old ones go (ad_edonio_sched.h). */
    ADIOI_EDONIO_Sched_drop(&h->scheds, h->hints.schedule_reuse ? h->hints.schedules : 0);
    ADIOI_EDONIO_Hints_report(fd, &h->hints);
}
