/*
 * edonio: reads and writes through the block cache.
 *
 * A request is cut at block boundaries into pieces; each piece goes to the segment that caches its
 * block on this node (the owner's, or one of the node's remote segments: ADIOI_EDONIO_Node_hold),
 * and the same code serves both. Holding the segment, the process finds the block's slot or takes
 * one (evicting a block if need be), fetches the block from the file when bytes it needs are
 * neither written nor fetched, and copies the piece in or out. A request that passes the cache
 * (romio_edonio_write_through, read_fill=none) and finds none of its blocks cached is not cut:
 * it is one file operation, as ufs makes it (pass_whole).
 *
 * What reaches the file: a write-back writes exactly the dirty extents, never fetched bytes, so
 * bytes that another node wrote to the file directly cannot be overwritten with stale ones. A
 * block written whole is one aligned operation (with write-through on, made at once:
 * write_back_whole). A block whose extents are full is written back
 * before it takes another. When no slot can be had (every candidate's write-back failed), reads
 * and writes go to the file themselves, and the error of a write-back stays with its block, which
 * stays dirty for a later sync.
 *
 * The segment's lock is held to find a slot and record what is written, not for the copy: a
 * process marks the slot busy, lets the lock go and copies; whoever writes a slot's bytes to the
 * file or gives the slot away waits until it is idle (the copier needs no lock to finish). Two
 * processes copying the same bytes at once make concurrent conflicting accesses, which MPI leaves
 * undefined outside atomic mode (in atomic mode ROMIO's byte-range locks keep them apart).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "ad_edonio_cache.h"
#include "adioi.h"

enum { EVICT_SCAN = 16 }; /* candidates looked at for a clean block before writing one back */
/* Dirty extents for which one read of the block (to write their span at once) saves writes. */
enum { EDONIO_COALESCE_MIN = 3 };

/* ------------------------------------------------------------------ file-system operations */

/* pread until len bytes or end of file; bytes past the end are zeros. Returns 0 or an errno. */
EDONIO_SYSCALL_PATH int fs_read(struct edonio_cache *c, struct edonio_stats *st, void *buf,
                                size_t len, ADIO_Offset off)
{
    size_t done = 0;

    st->fs_reads++;
    while (done < len) {
        ssize_t n = pread(c->fd_sys, (char *)buf + done, len - done, off + (off_t)done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno;
        if (n == 0)
            break;
        done += (size_t)n;
    }
    st->fs_read_bytes += (long long)done;
    if (done < len)
        memset((char *)buf + done, 0, len - done);
    return 0;
}

/* pwrite all of it. Returns 0 or an errno (a write that makes no progress is ENOSPC). */
EDONIO_SYSCALL_PATH int fs_write(struct edonio_cache *c, struct edonio_stats *st, const void *buf,
                                 size_t len, ADIO_Offset off)
{
    size_t done = 0;

    st->fs_writes++;
    st->fs_write_bytes += (long long)len;
    while (done < len) {
        ssize_t n = pwrite(c->fd_sys, (const char *)buf + done, len - done, off + (off_t)done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno;
        if (n == 0)
            return ENOSPC;
        done += (size_t)n;
    }
    return 0;
}

/*
 * preadv or pwritev all of iov[0, n) at off, again after a short transfer (the iovecs are used up
 * as it goes); *done: the bytes moved. A read stops at the end of the file; a write that makes no
 * progress is ENOSPC. Returns 0 or an errno. (Counted by the caller: one operation.)
 */
static int fs_vector(struct edonio_cache *c, struct iovec *iov, int n, off_t off, int writing,
                     size_t *done)
{
    int k = 0;

    *done = 0;
    while (k < n) {
        ssize_t r = writing ? pwritev(c->fd_sys, iov + k, n - k, off + (off_t)*done)
                            : preadv(c->fd_sys, iov + k, n - k, off + (off_t)*done);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return errno;
        if (r == 0)
            return writing ? ENOSPC : 0;
        *done += (size_t)r;
        for (; k < n && (size_t)r >= iov[k].iov_len; k++)
            r -= (ssize_t)iov[k].iov_len;
        if (k < n) {
            iov[k].iov_base = (char *)iov[k].iov_base + r;
            iov[k].iov_len -= (size_t)r;
        }
    }
    return 0;
}

static ADIO_Offset block_start(const struct edonio_cache *c, int64_t block)
{
    return (ADIO_Offset)block * c->hints.block_size;
}

/* ------------------------------------------------------------------ one block, held */

static void copy_done(struct edonio_slot *s)
{
    atomic_fetch_sub_explicit(&s->busy, 1, memory_order_release);
}

/* The bounce buffer of one block, for bytes on their way between the file and a slot. */
static unsigned char *bounce(struct edonio_cache *c)
{
    if (c->fetch_buf == NULL)
        c->fetch_buf = malloc((size_t)c->hints.block_size);
    return c->fetch_buf;
}

static int fetch(struct edonio_cache *c, struct edonio_stats *st, struct edonio_segment *seg,
                 int32_t slot);

/*
 * A byte-range write lock on what a write to the file from the cache writes (doc/design.md,
 * "Write-back"): with romio_edonio_write_back=span, a span write-back reads the bytes between its
 * pieces and writes them again, and every other write of every edonio cache of the file takes the
 * same lock, so that none lands in between. 1 when taken (wait: wait for it, else only if free at
 * once); 0, and no lock, where no span is written ('span' 0, as write_back=exact makes it outside
 * write_span: every write covers only bytes written through MPI, as ufs's do), a handle of this
 * cache is in atomic mode (ROMIO holds this process's locks then, which ours would merge with and
 * release) or the file system has none (c->no_locks: span write-backs are off there).
 */
static int lock_span(struct edonio_cache *c, struct edonio_stats *st, ADIO_Offset start,
                     ADIO_Offset len, int wait, int span)
{
    struct flock lock = {
        .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = (off_t)start, .l_len = (off_t)len};

    if (!span || c->no_locks || c->atomic_handles > 0)
        return 0;
    while (fcntl(c->fd_sys, wait ? F_SETLKW : F_SETLK, &lock) != 0) {
        if (errno == EINTR)
            continue;
        if (errno != EAGAIN && errno != EACCES && errno != EDEADLK)
            c->no_locks = 1; /* ENOLCK, ENOSYS, EOPNOTSUPP, EINVAL: no locks here */
        return 0;
    }
    st->fs_locks++;
    return 1;
}

/* lock_span as romio_edonio_write_back says: a span where it is span. */
static int lock_range(struct edonio_cache *c, struct edonio_stats *st, ADIO_Offset start,
                      ADIO_Offset len, int wait)
{
    return lock_span(c, st, start, len, wait, c->hints.write_back == EDONIO_WRITE_BACK_SPAN);
}

static void unlock_range(struct edonio_cache *c, ADIO_Offset start, ADIO_Offset len)
{
    struct flock lock = {
        .l_type = F_UNLCK, .l_whence = SEEK_SET, .l_start = (off_t)start, .l_len = (off_t)len};

    fcntl(c->fd_sys, F_SETLK, &lock);
}

/* Write block bytes to the file, under the write-back lock where one is taken. errno or 0. */
EDONIO_SYSCALL_PATH int locked_write(struct edonio_cache *c, struct edonio_stats *st,
                                     const void *buf, size_t len, ADIO_Offset off)
{
    int locked = lock_range(c, st, off, (ADIO_Offset)len, 1), err = fs_write(c, st, buf, len, off);

    if (locked)
        unlock_range(c, off, (ADIO_Offset)len);
    return err;
}

/*
 * Write a held, idle slot's dirty extents as their span, in one write rather than one per piece
 * (many writers' small interleaved records leave many extents): a read-modify-write of the span,
 * as ROMIO's data sieving does, under a write lock on it, with the bytes between the pieces read
 * afresh inside the lock, so that what another handle or node wrote there is not overwritten with
 * old bytes (their write-backs take the lock too). Not done where:
 *   - there are too few extents for one read to save writes;
 *   - across nodes, outside a collective flush that delivers (c->all_in_call): another node may
 *     write bytes of the block to the file directly, and takes no lock to do so;
 *   - romio_edonio_write_back is exact, a handle of this cache is in atomic mode, or the file
 *     system has no locks (lock_range); a block written in more pieces than a slot's list of
 *     extents holds (its extents in a map) takes the lock and its span with write_back=exact
 *     too: one write where there would be thousands, as ROMIO's data sieving makes for the same
 *     strided request, under the same lock;
 *   - the lock is not free at once (another write-back of the range under way).
 * 1 when the span was written (*err: how), 0 when the extents must go back one by one.
 */
static int write_span(struct edonio_cache *c, struct edonio_stats *st, struct edonio_segment *seg,
                      int32_t slot, int *err)
{
    struct edonio_slot *s = edonio_slot_at(seg, slot);
    struct edonio_extent span = edonio_dirty_span(s);
    uint32_t lo = span.lo, hi = span.hi;
    ADIO_Offset start = block_start(c, s->block) + lo;
    int spans = c->hints.write_back == EDONIO_WRITE_BACK_SPAN || edonio_dirty_mapped(s);

    if (s->ndirty < EDONIO_COALESCE_MIN || (c->nodes_apart && !c->all_in_call) ||
        !lock_span(c, st, start, hi - lo, 0, spans))
        return 0;
    *err = fetch(c, st, seg, slot); /* the bytes between the pieces, as the file has them now */
    if (*err == 0)
        *err = fs_write(c, st, edonio_slot_data(seg, slot) + lo, hi - lo, start);
    unlock_range(c, start, hi - lo);
    return *err == 0;
}

/* Is a held slot's block written whole, every byte dirty? */
static int written_whole(const struct edonio_segment *seg, const struct edonio_slot *s)
{
    return s->ndirty == 1 && s->dirty[0].lo == 0 && s->dirty[0].hi == seg->block_size;
}

/* Write a held slot's dirty extents to the file (as one span where write_span can); clean on
 * success. */
static int write_back(struct edonio_cache *c, struct edonio_stats *st, struct edonio_segment *seg,
                      int32_t slot)
{
    struct edonio_slot *s = edonio_slot_at(seg, slot);
    const unsigned char *data = edonio_slot_data(seg, slot); /* written from where it lies */
    ADIO_Offset start = block_start(c, s->block);
    int err;

    if (s->ndirty == 0)
        return 0;
    edonio_wait_idle(s); /* a copy into it still under way would be half written, then lost */
    if (!write_span(c, st, seg, slot, &err)) {
        struct edonio_extent span = edonio_dirty_span(s), run;
        int locked = lock_range(c, st, start + span.lo, span.hi - span.lo, 1);
        err = 0;
        for (uint32_t at = 0; err == 0 && edonio_dirty_run(s, at, &run); at = run.hi)
            err = fs_write(c, st, data + run.lo, run.hi - run.lo, start + run.lo);
        if (locked)
            unlock_range(c, start + span.lo, span.hi - span.lo);
    }
    if (err == 0) {
        if (written_whole(seg, s))
            edonio_mark_valid(s); /* written whole: every byte is the file's now */
        edonio_dirty_clear(s);
        st->writebacks++;
    }
    return err;
}

/*
 * Read a held slot's block from the file into every byte not written here; it becomes VALID. A
 * slot with nothing written is read into where it lies (no byte of it is readable yet, so nobody
 * copies out of it meanwhile); else the block goes through the bounce buffer, and only the bytes
 * between the dirty extents into the slot (others may be copying the extents out).
 */
static int fetch(struct edonio_cache *c, struct edonio_stats *st, struct edonio_segment *seg,
                 int32_t slot)
{
    struct edonio_slot *s = edonio_slot_at(seg, slot);
    uint32_t bs = seg->block_size, at = 0;
    unsigned char *buf = s->ndirty == 0 ? edonio_slot_data(seg, slot) : bounce(c);
    struct edonio_extent run;
    int err;

    if (buf == NULL)
        return ENOMEM;
    err = fs_read(c, st, buf, bs, block_start(c, s->block));
    while (err == 0 && s->ndirty > 0 && at < bs) { /* the bytes between the extents */
        uint32_t end = edonio_dirty_run(s, at, &run) ? run.lo : bs;
        memcpy(edonio_slot_data(seg, slot) + at, buf + at, end - at);
        at = end < bs ? run.hi : bs;
    }
    if (err == 0)
        edonio_mark_valid(s);
    return err;
}

/*
 * Free a slot of a full segment: a clean block among the least recently used if there is one,
 * else the least recently used dirty block that can be written back. errno when none can. A slot
 * being filled (ADIOI_EDONIO_Cache_fill) is never taken: its filler may be the caller.
 */
static int make_room(struct edonio_cache *c, struct edonio_stats *st, struct edonio_segment *seg)
{
    int32_t v = edonio_victim(seg);
    int err = ENOSPC;

    for (int k = 0; v != EDONIO_NO_SLOT && k < EVICT_SCAN; k++, v = edonio_newer(seg, v))
        if (edonio_slot_at(seg, v)->ndirty == 0 && !edonio_filling(edonio_slot_at(seg, v)))
            goto evict;
    for (v = edonio_victim(seg); v != EDONIO_NO_SLOT; v = edonio_newer(seg, v)) {
        if (edonio_filling(edonio_slot_at(seg, v)))
            continue; /* its filler needs no lock to finish, but would wait for itself here */
        int e = write_back(c, st, seg, v);
        if (e == 0)
            goto evict;
        err = e; /* it stays dirty, for a later sync: try the next one */
    }
    return err;
evict:
    edonio_drop(seg, v);
    st->evictions++;
    return 0;
}

/*
 * Is a held segment full? A segment that reaches its first limit learns the node's memory limit
 * then, and grows, or shrinks below what it holds (ADIOI_EDONIO_Node_grow; slot_for evicts).
 */
static int full(struct edonio_segment *seg)
{
    if (seg->nused >= seg->limit && seg->planned > seg->limit)
        ADIOI_EDONIO_Node_grow(seg);
    return seg->nused >= seg->limit;
}

/*
 * A free slot of a held segment for block, its memory allocated; EDONIO_NO_SLOT when none is free
 * (*err 0) or its memory cannot be had (*err: the node is out of memory).
 */
static int32_t take_slot(struct edonio_cache *c, struct edonio_segment *seg, int64_t block,
                         int *err)
{
    int32_t slot = full(seg) ? EDONIO_NO_SLOT : edonio_insert(seg, block);

    *err = 0;
    if (slot != EDONIO_NO_SLOT && (*err = ADIOI_EDONIO_Node_back(c, seg, slot)) != 0) {
        edonio_remove(seg, slot);
        slot = EDONIO_NO_SLOT;
    }
    if (slot != EDONIO_NO_SLOT && seg != ADIOI_EDONIO_Node_own(c) &&
        seg != ADIOI_EDONIO_Node_remote(c))
        c->took_peer_slot = 1; /* ADIOI_EDONIO_Cache_may_hold */
    return slot;
}

/* The slot of a held segment that holds block, taking (and if need be freeing) one. errno or 0. */
static int slot_for(struct edonio_cache *c, struct edonio_stats *st, struct edonio_segment *seg,
                    int64_t block, int32_t *slot)
{
    int err;

    *slot = edonio_lookup(seg, block);
    if (*slot != EDONIO_NO_SLOT) {
        st->hits++;
        if (!ADIOI_EDONIO_Node_reaches(c, edonio_owner(block, c->nprocs)))
            st->remote_hits++; /* a copy of another node's block */
        edonio_touch(seg, *slot);
        return 0;
    }
    st->misses++;
    *slot = take_slot(c, seg, block, &err);
    if (*slot != EDONIO_NO_SLOT || err != 0)
        return err;
    do { /* one block out, or more where the node's memory limit lowered the segment's */
        if ((err = make_room(c, st, seg)) != 0)
            return err;
    } while (full(seg));
    *slot = take_slot(c, seg, block, &err);
    return *slot == EDONIO_NO_SLOT && err == 0 ? ENOMEM : err;
}

/*
 * Read [lo, hi) of block from a held segment: the slot holding its bytes, marked busy (the caller
 * copies them out after letting the lock go, then calls copy_done); or EDONIO_NO_SLOT when done
 * or failed (*err): without a slot, the bytes were read from the file, which has them all. A slot
 * that another process is filling has no bytes yet: with 'wait', EDONIO_NO_SLOT and *wait 1 (the
 * caller lets the lock go, waits for it and asks again); without (a caller that holds the segment
 * over many pieces, which the filler's end does not need), the bytes are read from the file.
 */
static int32_t read_begin(struct edonio_cache *c, struct edonio_stats *st,
                          struct edonio_segment *seg, int64_t block, uint32_t lo, uint32_t hi,
                          void *out, int *err, int *wait)
{
    int32_t slot;

    *err = 0;
    if (slot_for(c, st, seg, block, &slot) != 0) {
        *err = fs_read(c, st, out, hi - lo, block_start(c, block) + lo);
        return EDONIO_NO_SLOT;
    }
    if (edonio_filling(edonio_slot_at(seg, slot))) {
        if (wait != NULL)
            *wait = 1;
        else
            *err = fs_read(c, st, out, hi - lo, block_start(c, block) + lo);
        return EDONIO_NO_SLOT;
    }
    if (!edonio_readable(edonio_slot_at(seg, slot), lo, hi) && (*err = fetch(c, st, seg, slot)))
        return EDONIO_NO_SLOT;
    edonio_copy_begin(edonio_slot_at(seg, slot), lo, hi, 0);
    atomic_fetch_add_explicit(&edonio_slot_at(seg, slot)->busy, 1, memory_order_relaxed);
    return slot;
}

/* A held slot's list of dirty extents is full: they move to its map, or where the map's memory
 * cannot be had, go back to the file (no copy into the slot may be under way). errno or 0. */
static int dirty_room(struct edonio_cache *c, struct edonio_stats *st, struct edonio_segment *seg,
                      int32_t slot)
{
    if (ADIOI_EDONIO_Node_back_map(c, seg, slot) != 0)
        return write_back(c, st, seg, slot);
    edonio_dirty_map(edonio_slot_at(seg, slot), edonio_slot_map(seg, slot), seg->block_size);
    return 0;
}

/*
 * Write [lo, hi) of block into a held segment: the extent recorded, the slot marked busy and
 * returned (the caller copies the bytes in after letting the lock go, then calls copy_done); or
 * EDONIO_NO_SLOT when done or failed (*err): without a slot, the bytes went to the file. A copy
 * that fails leaves its range's bytes unspecified, as a failed write leaves a file's. *was_whole
 * (when not NULL): the block was written whole before.
 */
static int32_t write_begin(struct edonio_cache *c, struct edonio_stats *st,
                           struct edonio_segment *seg, int64_t block, uint32_t lo, uint32_t hi,
                           const void *in, int *err, int *was_whole)
{
    int32_t slot;

    *err = 0;
    if (slot_for(c, st, seg, block, &slot) != 0) {
        *err = locked_write(c, st, in, hi - lo, block_start(c, block) + lo);
        return EDONIO_NO_SLOT;
    }
    struct edonio_slot *s = edonio_slot_at(seg, slot);
    if (seg != ADIOI_EDONIO_Node_remote(c) &&
        !ADIOI_EDONIO_Node_reaches(c, edonio_owner(block, c->nprocs)))
        c->wrote_peer_remote = 1; /* ADIOI_EDONIO_Cache_may_deliver */
    if (was_whole != NULL)
        *was_whole = written_whole(seg, s);
    edonio_copy_begin(s, lo, hi, 1); /* before the extent: is it over bytes written already? */
    if (edonio_dirty_add(s, lo, hi) != 0) {
        if ((*err = dirty_room(c, st, seg, slot)) != 0)
            return EDONIO_NO_SLOT;
        edonio_dirty_add(s, lo, hi);
    }
    atomic_fetch_add_explicit(&s->busy, 1, memory_order_relaxed);
    return slot;
}

/* Copy a busy slot's bytes in or out (no lock needed), then let it be; nothing without a slot. */
static void copy_slot(struct edonio_segment *seg, int32_t slot, uint32_t lo, void *buf, size_t len,
                      int writing)
{
    if (slot == EDONIO_NO_SLOT)
        return;
    if (writing)
        memcpy(edonio_slot_data(seg, slot) + lo, buf, len);
    else
        memcpy(buf, edonio_slot_data(seg, slot) + lo, len);
    copy_done(edonio_slot_at(seg, slot));
}

/*
 * Does a read of block go to the file alone (romio_edonio_read_fill=none, and the block not cached
 * in seg: held, or, with 'unlocked', its hash bucket seen empty without the lock)? Then the file
 * has every byte of it that this node wrote: a block leaves the cache only once its dirty bytes
 * are written back.
 */
static int read_through(struct edonio_cache *c, struct edonio_stats *st, struct edonio_segment *seg,
                        int64_t block, int unlocked)
{
    if (c->hints.read_fill != EDONIO_READ_FILL_NONE ||
        (unlocked ? edonio_may_hold(seg, block) : edonio_lookup(seg, block) != EDONIO_NO_SLOT))
        return 0;
    st->misses++;
    return 1;
}

/* The same, copying under the lock (the owner applying many pieces in a collective call). */
static int read_held(struct edonio_cache *c, struct edonio_stats *st, struct edonio_segment *seg,
                     int64_t block, uint32_t lo, uint32_t hi, void *out)
{
    int err;
    if (read_through(c, st, seg, block, 0))
        return fs_read(c, st, out, hi - lo, block_start(c, block) + lo);
    int32_t slot = read_begin(c, st, seg, block, lo, hi, out, &err, NULL);

    copy_slot(seg, slot, lo, out, hi - lo, 0);
    return err;
}

static int write_held(struct edonio_cache *c, struct edonio_stats *st, struct edonio_segment *seg,
                      int64_t block, uint32_t lo, uint32_t hi, const void *in)
{
    int err;
    int32_t slot = write_begin(c, st, seg, block, lo, hi, in, &err, NULL);

    copy_slot(seg, slot, lo, (void *)in, hi - lo, 1);
    return err;
}

/* ------------------------------------------------------------------ pieces */

static int read_piece(struct edonio_cache *c, struct edonio_stats *st, int64_t block, uint32_t lo,
                      uint32_t hi, char *out, ADIO_Offset request)
{
    struct edonio_segment *seg = ADIOI_EDONIO_Node_segment(c, block);
    int err, wait, through = read_through(c, st, seg, block, 1); /* no lock taken to know it */
    int32_t slot;

    (void)request; /* reads of every size take the cache alike */

    if (!through) {
        ADIOI_EDONIO_Node_lock(seg);
        /* Let go before the file is read: a block evicted meanwhile was written back first; one
         * written meanwhile is a concurrent conflicting access (MPI-3.1 13.6.1). */
        if ((through = read_through(c, st, seg, block, 0)))
            ADIOI_EDONIO_Node_release(seg);
    }
    if (through)
        return fs_read(c, st, out, hi - lo, block_start(c, block) + lo);
    for (;;) { /* a slot being filled: wait for its bytes without the lock, and ask again */
        wait = 0;
        slot = read_begin(c, st, seg, block, lo, hi, out, &err, &wait);
        if (!wait)
            break;
        int32_t filled = edonio_lookup(seg, block);
        ADIOI_EDONIO_Node_release(seg);
        edonio_wait_filled(edonio_slot_at(seg, filled));
        ADIOI_EDONIO_Node_lock(seg);
    }
    ADIOI_EDONIO_Node_release(seg);
    copy_slot(seg, slot, lo, out, hi - lo, 0);
    return err;
}

/*
 * Does a write request of this many bytes pass the cache (romio_edonio_write_through)? On a
 * page-cached local file system the kernel already gathers such writes for ufs; caching them too
 * would copy each byte twice, in and out at the write-back.
 */
static int passes(const struct edonio_cache *c, ADIO_Offset request)
{
    return c->hints.write_through > 0 && request >= c->hints.write_through;
}

/* Does a piece of such a request, to a block that the held seg does not cache, go to the file? */
static int write_through(struct edonio_cache *c, struct edonio_stats *st,
                         struct edonio_segment *seg, int64_t block, ADIO_Offset request)
{
    if (!passes(c, request) || edonio_lookup(seg, block) != EDONIO_NO_SLOT)
        return 0;
    st->misses++;
    return 1;
}

/*
 * With write-through on (a page-cached file system), a block that writes have made whole in a
 * segment of this node goes to the file at once, by the process whose write completed it: the
 * kernel's cache defers that write as well as ours would, and the copy into it then costs during
 * the writes, spread over the processes, not all at the close, where they would wait on one
 * another for the file's lock. Then, where reads of blocks not cached go to the file
 * (read_fill=none: the kernel's page cache serves them), the block leaves the cache: a clean copy
 * would only serve reads that the page cache serves too, and keeping it would take fresh cache
 * memory for every block written (first touches of its pages), where the freed slot, the next one
 * taken (segment.c's free list is last in, first out), is still mapped and in the processor's
 * cache. With read_fill=block it stays (VALID, clean) until a sync drops it as it drops every
 * clean copy. Across nodes too: a block whole in a remote segment goes from there, exactly its
 * bytes, as an eviction sends one (ad_edonio_net.c), instead of travelling to its owner at the next
 * collective point only to be written there. A copy its owner's node holds may keep older bytes
 * until the next sync, which drops every clean copy: other processes are entitled to this write
 * only after sync-barrier-sync (MPI-3.1 13.6.1), and dirty bytes of the owner's that overlap it
 * are concurrent conflicting writes, which MPI leaves undefined.
 */
static void write_back_whole(struct edonio_cache *c, struct edonio_stats *st,
                             struct edonio_segment *seg, int64_t block)
{
    if (c->hints.write_through <= 0)
        return;
    ADIOI_EDONIO_Node_lock(seg);
    int32_t slot = edonio_lookup(seg, block);
    /* failed, it stays dirty: the sync or close reports it */
    if (slot != EDONIO_NO_SLOT && written_whole(seg, edonio_slot_at(seg, slot)) &&
        write_back(c, st, seg, slot) == 0 && c->hints.read_fill == EDONIO_READ_FILL_NONE)
        edonio_drop(seg, slot);
    ADIOI_EDONIO_Node_release(seg);
}

/*
 * After a write of block's bytes straight to the file, made holding no segment (a request that
 * passed the cache, whole or by pieces, or a whole block moved directly), a copy of block that a
 * process of this node cached meanwhile (filled with other bytes of the block, perhaps before this
 * write reached the file) must not keep the old bytes, so that this process reads what it wrote: a
 * clean copy is dropped; one with dirty bytes is no longer VALID, so a read of other bytes fetches
 * them afresh (its dirty bytes are another process's concurrent writes; those that overlap this one
 * conflict with it, which MPI-3.1 13.6.1 leaves undefined). Under the lock, which every fill that
 * keeps a copy holds from taking the slot to reading the file: either its read came after this
 * write, or its slot is seen here. (A large read with read_fill=block that moves a whole block
 * directly reads it before taking the lock: it conflicts with this write, whatever comes of it.)
 */
static void settle_written(struct edonio_cache *c, int64_t block)
{
    struct edonio_segment *seg = ADIOI_EDONIO_Node_hold(c, block);
    int32_t slot = edonio_lookup(seg, block);

    if (slot != EDONIO_NO_SLOT && edonio_slot_at(seg, slot)->ndirty == 0)
        edonio_drop(seg, slot);
    else if (slot != EDONIO_NO_SLOT)
        edonio_mark_stale(edonio_slot_at(seg, slot));
    ADIOI_EDONIO_Node_release(seg);
}

static int write_piece(struct edonio_cache *c, struct edonio_stats *st, int64_t block, uint32_t lo,
                       uint32_t hi, char *in, ADIO_Offset request)
{
    struct edonio_segment *seg = ADIOI_EDONIO_Node_hold(c, block);
    int err, whole, was_whole = 0;

    if (write_through(c, st, seg, block, request)) { /* as a request that passes whole */
        ADIOI_EDONIO_Node_release(seg);
        err = locked_write(c, st, in, hi - lo, block_start(c, block) + lo);
        settle_written(c, block);
        return err;
    }
    int32_t slot = write_begin(c, st, seg, block, lo, hi, in, &err, &was_whole);

    /* made whole by this piece; one whole already (an owner's pass made it) stays, for the
     * pieces of the next calls, until its sync or close */
    whole = slot != EDONIO_NO_SLOT && !was_whole && written_whole(seg, edonio_slot_at(seg, slot));
    ADIOI_EDONIO_Node_release(seg);
    copy_slot(seg, slot, lo, in, hi - lo, 1);
    if (whole)
        write_back_whole(c, st, seg, block);
    return err;
}

/*
 * Under the lock, the slot busy (the caller's count, which it still holds on return): [lo, hi)
 * recorded dirty and its bytes copied in from 'in', or on failure (errno) neither. A list of dirty
 * extents that is full goes to the slot's map, or back to the file, with the slot idle, as in
 * write_begin; the copy range is this piece's where no other copy is under way (edonio_copy_next),
 * so that the keeper of a process that dies here leaves out only the piece being copied.
 */
static int put_held(struct edonio_cache *c, struct edonio_stats *st, struct edonio_segment *seg,
                    int32_t slot, uint32_t lo, uint32_t hi, const char *in)
{
    struct edonio_slot *s = edonio_slot_at(seg, slot);

    edonio_copy_next(s, lo, hi);
    if (edonio_dirty_add(s, lo, hi) != 0) {
        copy_done(s); /* a write-back waits for the slot to be idle */
        int err = dirty_room(c, st, seg, slot);
        atomic_fetch_add_explicit(&s->busy, 1, memory_order_relaxed);
        if (err)
            return err;
        edonio_copy_next(s, lo, hi);
        edonio_dirty_add(s, lo, hi);
    }
    memcpy(edonio_slot_data(seg, slot) + lo, in, hi - lo);
    return 0;
}

/*
 * The pieces of one block that ADIOI_EDONIO_Cache_write_pieces (writing) or _read_pieces takes
 * together: from the first, those in its block that would each take the cache (write_piece:
 * smaller than what passes it; both: too small to move directly), their bytes at most
 * EDONIO_HELD_COPY, which are copied holding the block's segment. The node's other processes wait
 * for that copy where they used to copy beside it: 8 KiB (well under a microsecond) still takes a
 * thousand 8-byte pieces at once, and a process that waits gives its core away (seglock.c).
 * (perf/ab, 4 ranks, 9 runs: strided 1 KiB records and BT-IO's 1,280-byte runs took the same time
 * with 8 KiB and 64 KiB, within the runs' 10-15%.)
 */
enum { EDONIO_HELD_COPY = 8 * 1024 };

static int64_t pieces_in_block(const struct edonio_cache *c, const ADIO_Offset *off,
                               const ADIO_Offset *len, int64_t n, int writing)
{
    ADIO_Offset bs = c->hints.block_size, lo = off[0] / bs * bs, hi = lo + bs, bytes = 0;
    ADIO_Offset direct = c->hints.direct_threshold;
    int64_t k = 0;

    while (k < n && len[k] > 0 && off[k] >= lo && off[k] + len[k] <= hi &&
           !(writing && passes(c, len[k])) && !(direct > 0 && len[k] >= direct) &&
           (bytes += len[k]) <= EDONIO_HELD_COPY)
        k++;
    return k;
}

/*
 * A fine-grained request (a *-cyclic array's 8-byte elements, a shuffled indexed view's) puts many
 * pieces into each block. Written one by one, each piece held the block's segment, looked its slot
 * up, took and gave back the slot's busy count and raised the node's size: about 55 ns per 8-byte
 * piece at 2 ranks, most of a collective write of such a view on one node. Here the segment is held
 * once for the block's pieces and its slot found once; each piece is recorded and copied in under
 * the lock (put_held: a copy of a few bytes costs less than letting the lock go and taking it
 * again), the slot busy throughout.
 */
int64_t ADIOI_EDONIO_Cache_write_pieces(struct edonio_cache *c, struct edonio_stats *st,
                                        const char *buf, const ADIO_Offset *off,
                                        const ADIO_Offset *len, int64_t n, ADIO_Offset *end,
                                        int *err)
{
    ADIO_Offset bs = c->hints.block_size;
    int64_t block = off[0] / bs, k = c->bypass ? 0 : pieces_in_block(c, off, len, n, 1);
    struct edonio_segment *seg;
    int32_t slot;
    int was_whole, whole;

    *err = 0;
    if (k < 2)
        return 0;
    seg = ADIOI_EDONIO_Node_hold(c, block);
    if (slot_for(c, st, seg, block, &slot) != 0) { /* the pieces go one by one, to the file */
        ADIOI_EDONIO_Node_release(seg);
        return 0;
    }
    struct edonio_slot *s = edonio_slot_at(seg, slot);

    st->hits += k - 1; /* as many lookups as write_piece would make */
    if (!ADIOI_EDONIO_Node_reaches(c, edonio_owner(block, c->nprocs))) {
        st->remote_hits += k - 1;
        if (seg != ADIOI_EDONIO_Node_remote(c))
            c->wrote_peer_remote = 1; /* ADIOI_EDONIO_Cache_may_deliver */
    }
    was_whole = written_whole(seg, s);
    atomic_fetch_add_explicit(&s->busy, 1, memory_order_relaxed);
    int64_t done = 0;
    for (*end = 0; done < k; buf += len[done], done++) {
        uint32_t lo = (uint32_t)(off[done] - block * bs);
        if ((*err = put_held(c, st, seg, slot, lo, lo + (uint32_t)len[done], buf)) != 0)
            break;
        *end = off[done] + len[done] > *end ? off[done] + len[done] : *end;
    }
    copy_done(s);
    whole = !was_whole && written_whole(seg, s);
    ADIOI_EDONIO_Node_release(seg);
    if (whole)
        write_back_whole(c, st, seg, block);
    if (done > 0)
        ADIOI_EDONIO_Size_max(c, *end);
    return done;
}

/*
 * The same for reads, where the block is read through the cache (read_piece: cached, or
 * read_fill=block): the segment held once, the slot found once and fetched once if a piece is not
 * readable, the pieces copied out under the lock. Not for pieces past the node's size (read_piece's
 * zeros), nor a block another process is filling (read_piece waits for it without the lock).
 */
int64_t ADIOI_EDONIO_Cache_read_pieces(struct edonio_cache *c, struct edonio_stats *st, char *buf,
                                       const ADIO_Offset *off, const ADIO_Offset *len, int64_t n,
                                       int *err)
{
    ADIO_Offset bs = c->hints.block_size;
    int64_t block = off[0] / bs, k = c->bypass ? 0 : pieces_in_block(c, off, len, n, 0);
    ADIO_Offset end = 0;

    *err = 0;
    if (k < 2) /* one piece: read_piece's path, with nothing looked up here */
        return 0;
    for (int64_t j = 0; j < k; j++)
        end = off[j] + len[j] > end ? off[j] + len[j] : end;

    struct edonio_segment *seg = ADIOI_EDONIO_Node_segment(c, block);
    int32_t slot = EDONIO_NO_SLOT;
    int readable = 1;
    int through = c->hints.read_fill == EDONIO_READ_FILL_NONE; /* unless cached: read_through */

    if (end > ADIOI_EDONIO_Size_get(c) || (through && !edonio_may_hold(seg, block)))
        return 0;
    ADIOI_EDONIO_Node_lock(seg);
    if (through && edonio_lookup(seg, block) == EDONIO_NO_SLOT)
        goto none;
    if (slot_for(c, st, seg, block, &slot) != 0 || edonio_filling(edonio_slot_at(seg, slot)))
        goto none;
    struct edonio_slot *s = edonio_slot_at(seg, slot);
    const unsigned char *data = edonio_slot_data(seg, slot);

    for (int64_t j = 0; j < k && readable; j++)
        readable = edonio_readable(s, (uint32_t)(off[j] - block * bs),
                                   (uint32_t)(off[j] + len[j] - block * bs));
    if (!readable && (*err = fetch(c, st, seg, slot)) != 0)
        goto none;
    st->hits += k - 1; /* as many lookups as read_piece would make */
    if (!ADIOI_EDONIO_Node_reaches(c, edonio_owner(block, c->nprocs)))
        st->remote_hits += k - 1;
    for (int64_t j = 0; j < k; buf += len[j], j++)
        memcpy(buf, data + (off[j] - block * bs), (size_t)len[j]);
    ADIOI_EDONIO_Node_release(seg);
    return k;
none:
    ADIOI_EDONIO_Node_release(seg);
    return 0;
}

/*
 * Is block cached on this node? An empty hash bucket says no without the lock (this process's own
 * earlier writes are in a slot it made; a slot another process makes meanwhile is a concurrent
 * access to a block the caller moves whole); else the segment is held only for the look.
 */
static int cached(struct edonio_cache *c, int64_t block)
{
    struct edonio_segment *seg = ADIOI_EDONIO_Node_segment(c, block);

    if (!edonio_may_hold(seg, block))
        return 0;
    ADIOI_EDONIO_Node_lock(seg);
    int found = edonio_lookup(seg, block) != EDONIO_NO_SLOT;

    ADIOI_EDONIO_Node_release(seg);
    return found;
}

/*
 * After a direct transfer of block (its bytes in buf): a block written is settled as any write
 * that passed the cache (settle_written), and not cached itself: what a write streams out, the
 * cache cannot help. A block read is kept, clean, in a free slot, for the reads that follow
 * (romio_edonio_read_fill=block).
 */
static void direct_settle(struct edonio_cache *c, int64_t block, const char *buf, int writing)
{
    if (writing) {
        settle_written(c, block);
        return;
    }
    if (c->hints.read_fill != EDONIO_READ_FILL_BLOCK)
        return; /* a read that keeps no copy leaves nothing to settle: no lock taken */
    struct edonio_segment *seg = ADIOI_EDONIO_Node_hold(c, block);

    if (edonio_lookup(seg, block) == EDONIO_NO_SLOT && !full(seg)) {
        int err;
        int32_t slot = take_slot(c, seg, block, &err);
        if (slot != EDONIO_NO_SLOT) { /* else no room for a copy: nothing lost */
            memcpy(edonio_slot_data(seg, slot), buf, seg->block_size);
            edonio_mark_valid(edonio_slot_at(seg, slot));
        }
    }
    ADIOI_EDONIO_Node_release(seg);
}

/*
 * Whole blocks of a large request (romio_edonio_direct_threshold) that are not cached on this node
 * go straight between the file and the caller's buffer, as ufs would move them: consecutive ones
 * in one operation. A cached block (maybe dirty) ends the run and takes the cache. No segment is
 * held during the transfer: a process that touches one of these blocks meanwhile makes a
 * concurrent conflicting access, which MPI leaves undefined outside atomic mode (in atomic mode
 * ROMIO's byte-range lock covers the request). A whole block written directly conflicts with any
 * byte another node holds dirty in it, so no exact write-back can undo it unfairly either.
 * Returns the blocks moved (0: the first is cached), or a negated errno.
 */
static int64_t direct_run(struct edonio_cache *c, struct edonio_stats *st, int64_t block,
                          int64_t nblocks, char *buf, int writing)
{
    ADIO_Offset bs = c->hints.block_size, start = block_start(c, block);
    int64_t n = 0;
    int err;

    while (n < nblocks && !cached(c, block + n))
        n++;
    if (n == 0)
        return 0;
    err = writing ? fs_write(c, st, buf, (size_t)(n * bs), start)
                  : fs_read(c, st, buf, (size_t)(n * bs), start);
    if (err)
        return -err;
    for (int64_t k = 0; k < n; k++)
        direct_settle(c, block + k, buf + k * bs, writing);
    st->direct += n;
    return n;
}

/* One piece of a request of 'request' bytes: the bytes [lo, hi) of block. */
typedef int piece_fn(struct edonio_cache *c, struct edonio_stats *st, int64_t block, uint32_t lo,
                     uint32_t hi, char *buf, ADIO_Offset request);

/*
 * Cut [off, off + len) at block boundaries and call fn on each piece; in a large request, whole
 * blocks go direct when they are not cached. *done: the bytes done before a failure.
 */
static int for_pieces(struct edonio_cache *c, struct edonio_stats *st, ADIO_Offset off,
                      ADIO_Offset len, char *buf, piece_fn *fn, int writing, ADIO_Offset *done)
{
    uint32_t bs = (uint32_t)c->hints.block_size;
    int large = c->hints.direct_threshold > 0 && len >= c->hints.direct_threshold;

    for (*done = 0; *done < len;) {
        struct edonio_piece p = edonio_piece_at(off + *done, len - *done, bs);
        ADIO_Offset whole = large && p.lo == 0 ? (len - *done) / bs : 0;
        if (whole > 0) {
            int64_t moved = direct_run(c, st, p.block, whole, buf + *done, writing);
            if (moved < 0)
                return (int)-moved;
            if (moved > 0) {
                *done += moved * bs;
                continue;
            }
        }
        int err = fn(c, st, p.block, p.lo, p.hi, buf + *done, len);
        if (err)
            return err;
        *done += p.hi - p.lo;
    }
    return 0;
}

/*
 * A request that passes the cache (a write of romio_edonio_write_through bytes or more, a read
 * with romio_edonio_read_fill=none) and finds none of its blocks cached on this node is one file
 * operation, as ufs makes it, rather than one per block; a write is made under the write-back
 * lock (locked_write), then settles its blocks, also when it failed (part of it may be in the
 * file). The whole blocks of a large request (romio_edonio_direct_threshold) count as moved
 * directly. 1 when done (*err: how; a failed operation counts as not done at all, as in
 * bypass_io), 0 when a block is cached: the request goes by pieces.
 */
EDONIO_SYSCALL_PATH int pass_whole(struct edonio_cache *c, struct edonio_stats *st, ADIO_Offset off,
                                   ADIO_Offset len, char *buf, int writing, int *err)
{
    ADIO_Offset bs = c->hints.block_size;
    int64_t first = off / bs, last = (off + len - 1) / bs;

    if (writing ? !passes(c, len) : c->hints.read_fill != EDONIO_READ_FILL_NONE)
        return 0;
    for (int64_t b = first; b <= last; b++)
        if (cached(c, b))
            return 0;
    st->misses += last - first + 1;
    if (c->hints.direct_threshold > 0 && len >= c->hints.direct_threshold &&
        (off + len) / bs > (off + bs - 1) / bs)
        st->direct += (off + len) / bs - (off + bs - 1) / bs;
    if (!writing) {
        *err = fs_read(c, st, buf, (size_t)len, off);
        return 1;
    }
    *err = locked_write(c, st, buf, (size_t)len, off);
    for (int64_t b = first; b <= last; b++)
        settle_written(c, b);
    return 1;
}

int ADIOI_EDONIO_Cache_write_direct(struct edonio_cache *c, ADIO_Offset off, ADIO_Offset len)
{
    ADIO_Offset bs = c->hints.block_size;
    int large = c->hints.direct_threshold > 0 && len >= c->hints.direct_threshold;

    /* passes whole (pass_whole), or every block whole and moved directly (for_pieces) */
    return len <= 0 || passes(c, len) || (large && off % bs == 0 && (off + len) % bs == 0);
}

static int holds_any(struct edonio_segment *seg)
{
    ADIOI_EDONIO_Node_lock(seg);
    int n = seg->nused;

    ADIOI_EDONIO_Node_release(seg);
    return n > 0;
}

int ADIOI_EDONIO_Cache_may_hold(struct edonio_cache *c)
{
    int held = c->took_peer_slot;

    c->took_peer_slot = 0;
    return held || holds_any(ADIOI_EDONIO_Node_own(c)) || holds_any(ADIOI_EDONIO_Node_remote(c));
}

int ADIOI_EDONIO_Cache_may_deliver(struct edonio_cache *c)
{
    int wrote = c->wrote_peer_remote;

    c->wrote_peer_remote = 0;
    return wrote || ADIOI_EDONIO_Cache_remote_dirty(c);
}

void ADIOI_EDONIO_Cache_undelivered(struct edonio_cache *c, int answered)
{
    c->wrote_peer_remote |= answered;
}

void ADIOI_EDONIO_Cache_all_in_call(struct edonio_cache *c)
{
    c->took_peer_slot = 0;
    c->wrote_peer_remote = 0;
}

/* ------------------------------------------------------------------ reads and writes */

int ADIOI_EDONIO_Range_check(ADIO_Offset off, ADIO_Offset len)
{
    if (off < 0 || len < 0)
        return EINVAL;
    if (len > INT64_MAX - off)
        return EOVERFLOW;
    return 0;
}

int ADIOI_EDONIO_Cache_check(struct edonio_cache *c, ADIO_Offset off, ADIO_Offset len)
{
    int err = ADIOI_EDONIO_Range_check(off, len);

    if (err)
        return err;
    if (len == 0 || off + len <= c->fits)
        return 0;
    /*
     * lseek refuses positions past the largest file the file system holds (EINVAL). A growing
     * file asks once for twice its new end, so a file written front to back asks a few times.
     */
    ADIO_Offset end = off + len, ahead = end <= INT64_MAX / 2 ? 2 * end : INT64_MAX;
    if (lseek(c->fd_sys, ahead - 1, SEEK_SET) >= 0) {
        c->fits = ahead;
        return 0;
    }
    if (lseek(c->fd_sys, end - 1, SEEK_SET) < 0)
        return errno == EINVAL ? EFBIG : errno;
    c->fits = end;
    return 0;
}

/* Atomic mode across nodes: straight between the buffer and the file, as ufs. errno or 0. */
static int bypass_io(struct edonio_cache *c, struct edonio_stats *st, char *buf, ADIO_Offset off,
                     ADIO_Offset len, int writing, ADIO_Offset *got)
{
    struct stat sb;
    int err;

    if (writing) {
        if ((err = fs_write(c, st, buf, (size_t)len, off)) == 0)
            ADIOI_EDONIO_Size_max(c, off + len);
        return err;
    }
    if (fstat(c->fd_sys, &sb) == 0)
        ADIOI_EDONIO_Size_max(c, sb.st_size);
    ADIO_Offset size = ADIOI_EDONIO_Size_get(c);
    *got = off >= size ? 0 : off + len <= size ? len : size - off;
    return *got > 0 ? fs_read(c, st, buf, (size_t)*got, off) : 0;
}

int ADIOI_EDONIO_Cache_uncached(struct edonio_cache *c, ADIO_Offset off, ADIO_Offset len)
{
    ADIO_Offset bs = c->hints.block_size;

    if (len <= 0 || off + len > ADIOI_EDONIO_Size_get(c))
        return 0;
    for (int64_t b = off / bs; b <= (off + len - 1) / bs; b++)
        if (edonio_may_hold(ADIOI_EDONIO_Node_segment(c, b), b))
            return 0;
    return 1;
}

int ADIOI_EDONIO_Cache_sieve(struct edonio_cache *c, struct edonio_stats *st, void *buf,
                             ADIO_Offset off, ADIO_Offset len)
{
    st->misses++;
    return fs_read(c, st, buf, (size_t)len, off);
}

/* ------------------------------------------------------------------ a span into the cache */

/* Blocks one read of a fill brings at most (an iovec each: well within IOV_MAX). */
enum { EDONIO_FILL_BLOCKS = 256 };

struct edonio_claim {
    struct edonio_segment *seg;
    int32_t slot;
};

int ADIOI_EDONIO_Cache_fills(const struct edonio_cache *c)
{
    return !c->writable && !c->bypass && c->hints.read_fill == EDONIO_READ_FILL_BLOCK &&
           c->node.n > 1;
}

/*
 * Take a slot for block to fill it without the lock: 1, and *out, when the block was not cached
 * and a slot could be had (clean blocks evicted for it); 0 otherwise (cached, being filled by
 * another process, or no room: its pieces then go through the cache one by one). The slot is
 * VALID, being filled and busy: readers wait for its bytes (read_piece), nobody evicts it.
 */
static int claim(struct edonio_cache *c, struct edonio_stats *st, int64_t block,
                 struct edonio_claim *out)
{
    struct edonio_segment *seg = ADIOI_EDONIO_Node_segment(c, block);
    int32_t slot = EDONIO_NO_SLOT;

    ADIOI_EDONIO_Node_lock(seg);
    if (edonio_lookup(seg, block) == EDONIO_NO_SLOT && slot_for(c, st, seg, block, &slot) == 0) {
        struct edonio_slot *s = edonio_slot_at(seg, slot);
        edonio_mark_valid(s);
        atomic_store_explicit(&s->filling, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&s->busy, 1, memory_order_relaxed);
    }
    ADIOI_EDONIO_Node_release(seg);
    out->seg = seg;
    out->slot = slot;
    return slot != EDONIO_NO_SLOT;
}

/*
 * Read n consecutive claimed blocks from 'block' on with one preadv into their slots (bytes past
 * the end of the file are zeros, as fetch makes them), then hand them over: their bytes are there
 * (release), or, when the read failed, the slots are freed and their readers read the file
 * themselves. errno or 0.
 */
static int fill_run(struct edonio_cache *c, struct edonio_stats *st, int64_t block,
                    struct edonio_claim *cl, int n)
{
    struct iovec iov[EDONIO_FILL_BLOCKS];
    size_t bs = (size_t)c->hints.block_size, done;
    int err;

    for (int i = 0; i < n; i++)
        iov[i] = (struct iovec){edonio_slot_data(cl[i].seg, cl[i].slot), bs};
    st->fs_reads++;
    err = fs_vector(c, iov, n, block_start(c, block), 0, &done);
    st->fs_read_bytes += (long long)done;
    for (int i = 0; err == 0 && i < n; i++) /* past the end of the file */
        if (done < bs * (size_t)(i + 1)) {
            size_t have = done > bs * (size_t)i ? done - bs * (size_t)i : 0;
            memset(edonio_slot_data(cl[i].seg, cl[i].slot) + have, 0, bs - have);
        }
    for (int i = 0; i < n; i++) {
        struct edonio_slot *s = edonio_slot_at(cl[i].seg, cl[i].slot);
        if (err) {
            ADIOI_EDONIO_Node_lock(cl[i].seg);
            edonio_fill_done(s);
            copy_done(s);
            edonio_drop(cl[i].seg, cl[i].slot);
            ADIOI_EDONIO_Node_release(cl[i].seg);
        } else {
            edonio_fill_done(s);
            copy_done(s);
        }
    }
    return err;
}

int ADIOI_EDONIO_Cache_fill(struct edonio_cache *c, struct edonio_stats *st, ADIO_Offset off,
                            ADIO_Offset len)
{
    struct edonio_claim cl[EDONIO_FILL_BLOCKS];
    ADIO_Offset bs = c->hints.block_size;
    int64_t b = off / bs, last = (off + len - 1) / bs;
    int err = 0;

    while (b <= last && err == 0) {
        int64_t first = b;
        int n = 0;
        while (b <= last && n < EDONIO_FILL_BLOCKS && claim(c, st, b, &cl[n])) {
            n++;
            b++;
        }
        if (n > 0)
            err = fill_run(c, st, first, cl, n);
        else
            b++; /* cached or being filled already, or no room: its pieces take the cache */
    }
    return err;
}

int ADIOI_EDONIO_Cache_read(struct edonio_cache *c, struct edonio_stats *st, void *buf,
                            ADIO_Offset off, ADIO_Offset len, ADIO_Offset *got)
{
    ADIO_Offset size, done;
    int err;

    *got = 0;
    if (len <= 0)
        return 0;
    if (c->bypass)
        return bypass_io(c, st, buf, off, len, 0, got);
    size = ADIOI_EDONIO_Size_reaching(c, off + len);
    if (off >= size)
        return 0;
    if (len > size - off)
        len = size - off;
    if (!pass_whole(c, st, off, len, buf, 0, &err))
        err = for_pieces(c, st, off, len, buf, read_piece, 0, &done);
    if (err == 0)
        *got = len;
    return err;
}

int ADIOI_EDONIO_Cache_write(struct edonio_cache *c, struct edonio_stats *st, const void *buf,
                             ADIO_Offset off, ADIO_Offset len, ADIO_Offset *done)
{
    int err = 0;

    *done = 0;
    if (c->bypass && len > 0) {
        err = bypass_io(c, st, (char *)buf, off, len, 1, done);
        *done = err ? 0 : len; /* one operation: all or (as far as anyone can tell) nothing */
        return err;
    }
    if (len > 0 && pass_whole(c, st, off, len, (char *)buf, 1, &err))
        *done = err ? 0 : len;
    else if (len > 0)
        err = for_pieces(c, st, off, len, (char *)buf, write_piece, 1, done);
    if (*done > 0) /* what was written is part of the file, even if a piece after it failed */
        ADIOI_EDONIO_Size_max(c, off + *done);
    return err;
}

/* ------------------------------------------------------------------ at the owner */

/*
 * Does a piece that the owner would write back at once (apply_writes: written by a process of
 * another node, or in atomic mode across nodes) go to the file straight from its message when its
 * block is not cached here? Where write-through is on (a page-cached file system) and write-backs
 * write exactly the dirty bytes: as an independent write that passes the cache, no slot is taken
 * and no cache memory touched for a copy that reads of the page-cached file do not need (4 KiB
 * collective writes across 2 simulated nodes: 0.47 -> 0.56 of ufs's speed). Only a piece that
 * touches neither of its neighbours in file order: pieces that join (a *-cyclic pattern's, whose
 * block is whole once all are in) take the slot and go back as one write, where one write each
 * made a file operation per element (65,536 writes of 8 bytes for 512 KiB, 4 ranks on 2 nodes).
 * The owner holds its segment, so no process caches the block meanwhile; a later piece of the
 * same block finds it cached only where a piece of the same call put it there, and then takes the
 * cache and is written back at once with it. With write_back=span the pieces of a block stay
 * together for one write.
 */
static int apply_passes(const struct edonio_cache *c)
{
    return c->hints.write_through > 0 && c->hints.write_back != EDONIO_WRITE_BACK_SPAN;
}

int ADIOI_EDONIO_Cache_serve(struct edonio_cache *c, struct edonio_stats *st, const int64_t *piece,
                             int64_t n, char *data)
{
    ADIO_Offset bs = c->hints.block_size, size = ADIOI_EDONIO_Size_get(c);
    struct edonio_segment *seg;
    int err = 0, e;

    if (n == 0)
        return 0;
    for (int64_t k = 0; k < n; k++) /* past what this node knows: as ADIOI_EDONIO_Cache_read */
        if (piece[2 * k] + piece[2 * k + 1] > size) {
            size = ADIOI_EDONIO_Size_reaching(c, piece[2 * k] + piece[2 * k + 1]);
            break;
        }
    seg = ADIOI_EDONIO_Node_own(c);
    ADIOI_EDONIO_Node_lock(seg);
    for (int64_t k = 0; k < n; k++) {
        ADIO_Offset off = piece[2 * k], len = piece[2 * k + 1], block = off / bs;
        uint32_t lo = (uint32_t)(off - block * bs);
        ADIO_Offset have = size - off < 0 ? 0 : size - off < len ? size - off : len;
        memset(data + have, 0, (size_t)(len - have));
        e = have ? read_held(c, st, seg, block, lo, lo + (uint32_t)have, data) : 0;
        if (e && !err)
            err = e;
        data += len;
    }
    ADIOI_EDONIO_Node_release(seg);
    return err;
}

/*
 * Does piece k of the owner's list touch the piece before or after it? Pieces that join go to the
 * slot, where they become one dirty extent and one write; alone, a piece makes one write either
 * way. (The list is in file order unless pieces overlap: then this only guesses, safely.)
 */
static int joins(const struct edonio_wpiece *p, int64_t n, int64_t k)
{
    return (k > 0 && p[k - 1].off + p[k - 1].len >= p[k].off && p[k - 1].off <= p[k].off) ||
           (k + 1 < n && p[k].off + p[k].len >= p[k + 1].off && p[k].off <= p[k + 1].off);
}

/*
 * Pieces of a collective write to one block at its owner, the segment held: its slot found once
 * and each piece put in under the lock (put_held), as ADIOI_EDONIO_Cache_write_pieces does; a
 * *-cyclic array's 8-byte elements arrive a few thousand per block. Without a slot, each piece goes
 * its own way (write_held: to the file where no slot can be had). *end grows to the end of each
 * piece stored (a piece that failed is not part of the file); errno of the first failure, the rest
 * still done.
 */
static int apply_in_block(struct edonio_cache *c, struct edonio_stats *st,
                          struct edonio_segment *seg, int64_t block, const struct edonio_wpiece *p,
                          int64_t n, ADIO_Offset *end)
{
    ADIO_Offset at = block_start(c, block);
    int32_t slot = EDONIO_NO_SLOT;
    int err = 0, e;

    if (n > 1 && slot_for(c, st, seg, block, &slot) == 0) {
        st->hits += n - 1;
        atomic_fetch_add_explicit(&edonio_slot_at(seg, slot)->busy, 1, memory_order_relaxed);
    }
    for (int64_t k = 0; k < n; k++) {
        uint32_t lo = (uint32_t)(p[k].off - at), hi = lo + (uint32_t)p[k].len;
        e = slot != EDONIO_NO_SLOT ? put_held(c, st, seg, slot, lo, hi, p[k].data)
                                   : write_held(c, st, seg, block, lo, hi, p[k].data);
        if (e == 0 && p[k].off + p[k].len > *end)
            *end = p[k].off + p[k].len;
        err = err ? err : e;
    }
    if (slot != EDONIO_NO_SLOT)
        copy_done(edonio_slot_at(seg, slot));
    return err;
}

int ADIOI_EDONIO_Cache_apply_writes(struct edonio_cache *c, struct edonio_stats *st,
                                    const struct edonio_wpiece *p, int64_t n, int64_t *blocks,
                                    int64_t *nblocks, ADIO_Offset *stored)
{
    ADIO_Offset bs = c->hints.block_size, end = 0;
    int passes_ok = apply_passes(c), err = 0, e;
    struct edonio_segment *seg;

    if (n == 0)
        return 0;
    seg = ADIOI_EDONIO_Node_own(c);
    ADIOI_EDONIO_Node_lock(seg);
    for (int64_t k = 0, m; k < n; k += m) {
        ADIO_Offset block = p[k].off / bs;
        if (p[k].note && passes_ok && !joins(p, n, k) &&
            edonio_lookup(seg, block) == EDONIO_NO_SLOT) {
            st->misses++;
            e = locked_write(c, st, p[k].data, (size_t)p[k].len, p[k].off);
            m = 1;
            end = e == 0 && p[k].off + p[k].len > end ? p[k].off + p[k].len : end;
        } else { /* this piece and the next ones of its block go to its slot */
            for (m = 1; k + m < n && p[k + m].off / bs == block; m++)
                ;
            e = apply_in_block(c, st, seg, block, p + k, m, &end);
            for (int64_t j = k; j < k + m; j++)
                if (p[j].note) { /* once: the list is sorted before the write-backs */
                    blocks[(*nblocks)++] = block;
                    break;
                }
        }
        if (e && !err)
            err = e;
    }
    ADIOI_EDONIO_Node_release(seg);
    ADIOI_EDONIO_Size_max(c, end);
    if (stored != NULL && end > *stored)
        *stored = end;
    return err;
}

static int by_value(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int ADIOI_EDONIO_Cache_write_back_blocks(struct edonio_cache *c, struct edonio_stats *st,
                                         int64_t *blocks, int64_t n, int forget)
{
    struct edonio_segment *seg = ADIOI_EDONIO_Node_own(c);
    int err = 0;

    qsort(blocks, (size_t)n, sizeof(*blocks), by_value);
    ADIOI_EDONIO_Node_lock(seg);
    for (int64_t k = 0; k < n; k++) {
        int32_t slot =
            k > 0 && blocks[k] == blocks[k - 1] ? EDONIO_NO_SLOT : edonio_lookup(seg, blocks[k]);
        if (slot == EDONIO_NO_SLOT)
            continue;
        int e = write_back(c, st, seg, slot);
        if (e && !err)
            err = e;
        if (forget && e == 0)
            edonio_drop(seg, slot);
    }
    ADIOI_EDONIO_Node_release(seg);
    return err;
}

/* ------------------------------------------------------------------ runs of whole blocks */

/*
 * A run of whole blocks lies within one aligned chunk of this many bytes (or one block, if larger:
 * a parallel file system's stripe, Lustre's default), which one process of the node writes. At
 * most EDONIO_RUN_BLOCKS blocks (iovecs: within IOV_MAX).
 */
enum { EDONIO_RUN_MAX = 1 << 20, EDONIO_RUN_BLOCKS = 1024 };

struct edonio_whole {
    int64_t block;
    int32_t seg; /* index among the node's own segments */
    int32_t slot;
};

static int by_block(const void *a, const void *b)
{
    int64_t x = ((const struct edonio_whole *)a)->block,
            y = ((const struct edonio_whole *)b)->block;
    return (x > y) - (x < y);
}

/* Blocks in a chunk of runs (ADIOI_EDONIO_Cache_write_back_runs). */
static int64_t run_blocks(const struct edonio_cache *c)
{
    int64_t b = EDONIO_RUN_MAX / c->hints.block_size;

    return b < 1 ? 1 : b > EDONIO_RUN_BLOCKS ? EDONIO_RUN_BLOCKS : b;
}

/*
 * The blocks written whole in the node's own segments whose chunk is this process's (chunk k of
 * the file to the node's process k mod n: a choice that depends on the block alone, so that the
 * node's processes, which look at different times, share the blocks out exactly), in file order:
 * how many (-1: no memory).
 */
static int64_t list_whole(struct edonio_cache *c, struct edonio_whole **out)
{
    int64_t per = run_blocks(c), n = 0, cap = 0;

    for (int i = 0; i < c->node.n; i++)
        cap += c->node.own[i]->nhigh;
    if ((*out = malloc((size_t)(cap + 1) * sizeof(**out))) == NULL)
        return -1;
    for (int i = 0; i < c->node.n; i++) {
        struct edonio_segment *seg = c->node.own[i];
        ADIOI_EDONIO_Node_lock(seg);
        for (int32_t j = 0; j < seg->nhigh && n < cap; j++) {
            struct edonio_slot *s = edonio_slot_at(seg, j);
            if (s->block >= 0 && (s->block / per) % c->node.n == c->node.me &&
                written_whole(seg, s))
                (*out)[n++] = (struct edonio_whole){s->block, i, j};
        }
        ADIOI_EDONIO_Node_release(seg);
    }
    qsort(*out, (size_t)n, sizeof(**out), by_block);
    return n;
}

/*
 * Write n consecutive whole blocks from w with one pwritev from their slots (under the write-back
 * lock where one is taken), then mark them clean. Failed, they stay dirty for a later sync.
 */
static int write_run(struct edonio_cache *c, struct edonio_stats *st, const struct edonio_whole *w,
                     int n)
{
    struct iovec iov[EDONIO_RUN_BLOCKS];
    size_t bs = (size_t)c->hints.block_size, done, total = bs * (size_t)n;
    ADIO_Offset start = block_start(c, w[0].block);
    int err, locked;

    for (int i = 0; i < n; i++)
        iov[i] = (struct iovec){edonio_slot_data(c->node.own[w[i].seg], w[i].slot), bs};
    locked = lock_range(c, st, start, (ADIO_Offset)total, 1);
    st->fs_writes++;
    st->fs_write_bytes += (long long)total;
    err = fs_vector(c, iov, n, start, 1, &done);
    if (locked)
        unlock_range(c, start, (ADIO_Offset)total);
    for (int i = 0; i < n; i++) {
        struct edonio_segment *seg = c->node.own[w[i].seg];
        struct edonio_slot *s = edonio_slot_at(seg, w[i].slot);
        copy_done(s); /* before the lock: its holder may be waiting for the slot to be idle */
        ADIOI_EDONIO_Node_lock(seg);
        /* Not whole any more: a keeper wrote it back meanwhile. */
        if (err == 0 && s->block == w[i].block && written_whole(seg, s)) {
            edonio_mark_valid(s);
            edonio_dirty_clear(s);
            st->writebacks++;
        }
        ADIOI_EDONIO_Node_release(seg);
    }
    return err;
}

/*
 * Is block w still written whole in its slot? Then the slot is marked busy, so that nobody frees it
 * while a run is written from it (a keeper may write it back meanwhile: the same bytes).
 */
static int hold_whole(struct edonio_cache *c, const struct edonio_whole *w)
{
    struct edonio_segment *seg = c->node.own[w->seg];
    struct edonio_slot *s = edonio_slot_at(seg, w->slot);
    int ok;

    ADIOI_EDONIO_Node_lock(seg);
    ok = s->block == w->block && written_whole(seg, s);
    if (ok)
        atomic_fetch_add_explicit(&s->busy, 1, memory_order_relaxed);
    ADIOI_EDONIO_Node_release(seg);
    return ok;
}

/* Does w[i] continue the run of w[i - 1]: the next block, in the same chunk? */
static int continues(const struct edonio_whole *w, int64_t i, int64_t per)
{
    return w[i].block == w[i - 1].block + 1 && w[i].block % per != 0;
}

int ADIOI_EDONIO_Cache_write_back_runs(struct edonio_cache *c, struct edonio_stats *st)
{
    struct edonio_whole *w;
    int64_t n = list_whole(c, &w), from = 0, per = run_blocks(c);
    int err = 0;

    if (n < 0)
        return ENOMEM;
    while (from < n) {
        int64_t k = 0;
        while (from + k < n && (k == 0 || continues(w, from + k, per)) &&
               hold_whole(c, &w[from + k]))
            k++;
        int e = k > 0 ? write_run(c, st, w + from, (int)k) : 0;
        if (e && !err)
            err = e;           /* keep going: write back what can be written */
        from += k > 0 ? k : 1; /* a block no longer whole: written back already */
    }
    free(w);
    return err;
}

/* ------------------------------------------------------------------ whole segments */

/*
 * Write back every dirty block of a held segment in file order (but those written whole, with
 * 'parts': ADIOI_EDONIO_Cache_write_back_runs writes them); with 'forget', forget clean ones.
 */
static int write_back_some(struct edonio_cache *c, struct edonio_stats *st,
                           struct edonio_segment *seg, int forget, int parts)
{
    int64_t(*dirty)[2] = malloc((size_t)(seg->nhigh + 1) * sizeof(*dirty));
    int32_t n = 0;
    int err = 0;

    if (dirty == NULL)
        return ENOMEM;
    for (int32_t i = 0; i < seg->nhigh; i++) {
        struct edonio_slot *s = edonio_slot_at(seg, i);
        if (s->block >= 0 && s->ndirty > 0 && !(parts && written_whole(seg, s))) {
            dirty[n][0] = s->block;
            dirty[n++][1] = i;
        }
    }
    qsort(dirty, (size_t)n, sizeof(*dirty), by_value);
    for (int32_t i = 0; i < n; i++) {
        int e = write_back(c, st, seg, (int32_t)dirty[i][1]);
        if (e && !err)
            err = e; /* keep going: write back what can be written */
    }
    free(dirty);
    for (int32_t i = 0; forget && i < seg->nhigh; i++)
        if (edonio_slot_at(seg, i)->block >= 0 && edonio_slot_at(seg, i)->ndirty == 0)
            edonio_drop(seg, i);
    return err;
}

static int write_back_segment(struct edonio_cache *c, struct edonio_stats *st,
                              struct edonio_segment *seg, int forget)
{
    return write_back_some(c, st, seg, forget, 0);
}

static int write_back_own(struct edonio_cache *c, struct edonio_stats *st, int forget, int parts)
{
    struct edonio_segment *seg = ADIOI_EDONIO_Node_own(c);

    ADIOI_EDONIO_Node_lock(seg);
    int err = write_back_some(c, st, seg, forget, parts);
    ADIOI_EDONIO_Node_release(seg);
    return err;
}

int ADIOI_EDONIO_Cache_write_back_parts(struct edonio_cache *c, struct edonio_stats *st, int forget)
{
    return write_back_own(c, st, forget, 1);
}

int ADIOI_EDONIO_Cache_write_back_own(struct edonio_cache *c, struct edonio_stats *st, int forget)
{
    return write_back_own(c, st, forget, 0);
}

int ADIOI_EDONIO_Cache_write_back_reachable(struct edonio_cache *c, struct edonio_stats *st,
                                            int forget)
{
    int err = 0;

    for (int i = 0; i < c->node.n; i++) {
        struct edonio_segment *segs[2] = {c->node.own[i], c->node.remote[i]};
        for (int k = 0; k < 2; k++) {
            ADIOI_EDONIO_Node_lock(segs[k]);
            int e = write_back_segment(c, st, segs[k], forget);
            ADIOI_EDONIO_Node_release(segs[k]);
            if (e && !err)
                err = e;
        }
    }
    return err;
}

/* The file now ends at size: drop or cut a segment's blocks past it. */
static void trim_segment(struct edonio_cache *c, struct edonio_segment *seg, ADIO_Offset size)
{
    ADIOI_EDONIO_Node_lock(seg);
    for (int32_t i = 0; i < seg->nhigh; i++) {
        struct edonio_slot *s = edonio_slot_at(seg, i);
        ADIO_Offset start = s->block >= 0 ? block_start(c, s->block) : -1;
        if (start < 0 || start + seg->block_size <= size)
            continue;
        edonio_wait_idle(s);
        edonio_truncate_slot(seg, i, start >= size ? 0 : (uint32_t)(size - start));
    }
    ADIOI_EDONIO_Node_release(seg);
}

void ADIOI_EDONIO_Cache_trim(struct edonio_cache *c, ADIO_Offset size, int all)
{
    for (int i = 0; i < c->node.n; i++) {
        if (!all && i != c->node.me)
            continue;
        trim_segment(c, c->node.own[i], size);
        trim_segment(c, c->node.remote[i], size);
    }
}

/*
 * Fill this process's free slots with the blocks it owns, from the block holding byte 'from' on,
 * never displacing cached blocks. errno or 0.
 */
int ADIOI_EDONIO_Cache_preload(struct edonio_cache *c, struct edonio_stats *st, ADIO_Offset from)
{
    struct edonio_segment *seg = ADIOI_EDONIO_Node_own(c);
    ADIO_Offset size = ADIOI_EDONIO_Size_get(c);
    int64_t b = edonio_first_owned(from / c->hints.block_size, c->rank, c->nprocs);
    int err = 0, stop = 0;

    for (; block_start(c, b) < size && err == 0 && !stop; b += c->nprocs) {
        ADIOI_EDONIO_Node_lock(seg);
        stop = full(seg);
        if (!stop && edonio_lookup(seg, b) == EDONIO_NO_SLOT) {
            int32_t slot = take_slot(c, seg, b, &err);
            if (slot != EDONIO_NO_SLOT && (err = fetch(c, st, seg, slot)) != 0)
                edonio_drop(seg, slot);
        }
        ADIOI_EDONIO_Node_release(seg);
    }
    return err;
}
