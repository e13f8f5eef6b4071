/*
 * edonio: reads and writes through the block cache.
 *
 * A request is cut at block boundaries into pieces; each piece goes to its block's owner
 * (block mod P). Holding the owner's segment, the process finds the block's slot or takes one,
 * evicting the least recently used block (written back first if dirty), fetches the block from the
 * file when bytes it needs were never written here, and copies the piece in or out. All file-system
 * operations are whole blocks or dirty extents: few, large and aligned.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ad_edonio.h"
#include "adioi.h"

/* ------------------------------------------------------------------ file-system operations */

/* pread until len bytes or end of file; bytes past the end are zeros. Returns 0 or an errno. */
static int fs_read(ADIO_File fd, void *buf, size_t len, ADIO_Offset off)
{
    struct edonio_file *ef = edonio_state(fd);
    size_t done = 0;

    ef->stats.fs_reads++;
    while (done < len) {
        ssize_t n = pread(fd->fd_sys, (char *)buf + done, len - done, off + (off_t)done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno;
        if (n == 0)
            break;
        done += (size_t)n;
    }
    ef->stats.fs_read_bytes += (long long)done;
    memset((char *)buf + done, 0, len - done);
    return 0;
}

/* pwrite all of it. Returns 0 or an errno (a write that makes no progress is ENOSPC). */
static int fs_write(ADIO_File fd, const void *buf, size_t len, ADIO_Offset off)
{
    struct edonio_file *ef = edonio_state(fd);
    size_t done = 0;

    ef->stats.fs_writes++;
    ef->stats.fs_write_bytes += (long long)len;
    while (done < len) {
        ssize_t n = pwrite(fd->fd_sys, (const char *)buf + done, len - done, off + (off_t)done);
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

/* ------------------------------------------------------------------ one block */

static ADIO_Offset block_start(struct edonio_file *ef, int64_t block)
{
    return (ADIO_Offset)block * ef->hints.block_size;
}

/* Write [lo, hi) of a held slot to the file. */
static int write_range(ADIO_File fd, int owner, int32_t slot, int64_t block, uint32_t lo,
                       uint32_t hi)
{
    struct edonio_file *ef = edonio_state(fd);
    unsigned char *ptr = ADIOI_EDONIO_Slot_ptr(ef, owner, slot);

    if (ptr == NULL) {
        ADIOI_EDONIO_Slot_get(ef, owner, slot, lo, ef->wb_buf, hi - lo);
        ptr = ef->wb_buf - lo;
    }
    int err = fs_write(fd, ptr + lo, hi - lo, block_start(ef, block) + lo);
    if (err == 0)
        ADIOI_EDONIO_Size_max(ef, EDONIO_SIZE_DISK, block_start(ef, block) + hi);
    return err;
}

/*
 * Write a held slot's dirty bytes back: a VALID block in one aligned operation (up to the end of
 * the file), otherwise each dirty extent on its own, so bytes nobody wrote are not clobbered.
 * On failure the block stays dirty, for a later sync to retry.
 */
static int write_back(ADIO_File fd, struct edonio_segment *seg, int owner, int32_t slot)
{
    struct edonio_file *ef = edonio_state(fd);
    struct edonio_slot *s = edonio_slot_at(seg, slot);
    int err = 0;

    if (s->ndirty == 0)
        return 0;
    if (s->flags & EDONIO_SLOT_VALID) {
        ADIO_Offset left = ADIOI_EDONIO_Size_get(ef, EDONIO_SIZE_FILE) - block_start(ef, s->block);
        uint32_t hi = left < seg->block_size ? (uint32_t)(left > 0 ? left : 0) : seg->block_size;
        if (hi < s->dirty[s->ndirty - 1].hi)
            hi = s->dirty[s->ndirty - 1].hi;
        err = write_range(fd, owner, slot, s->block, 0, hi);
    } else {
        for (uint32_t i = 0; i < s->ndirty && err == 0; i++)
            err = write_range(fd, owner, slot, s->block, s->dirty[i].lo, s->dirty[i].hi);
    }
    if (err == 0) {
        edonio_dirty_clear(s);
        ef->stats.writebacks++;
    }
    return err;
}

/* Read a held slot's block from the file into every byte that was not written here. */
static int fetch(ADIO_File fd, struct edonio_segment *seg, int owner, int32_t slot)
{
    struct edonio_file *ef = edonio_state(fd);
    struct edonio_slot *s = edonio_slot_at(seg, slot);
    uint32_t at = 0;
    int err;

    /* Only what the file system has: past its end, a block is zeros (EDONIO left garbage). */
    ADIO_Offset on_disk = ADIOI_EDONIO_Size_get(ef, EDONIO_SIZE_DISK) - block_start(ef, s->block);
    size_t len = on_disk <= 0 ? 0 : on_disk < seg->block_size ? (size_t)on_disk : seg->block_size;
    memset(ef->fetch_buf + len, 0, seg->block_size - len);
    if (len > 0 && (err = fs_read(fd, ef->fetch_buf, len, block_start(ef, s->block))) != 0)
        return err;
    for (uint32_t i = 0; i <= s->ndirty; i++) {
        uint32_t end = i < s->ndirty ? s->dirty[i].lo : seg->block_size;
        if (end > at)
            ADIOI_EDONIO_Slot_put(ef, owner, slot, at, ef->fetch_buf + at, end - at);
        if (i < s->ndirty)
            at = s->dirty[i].hi;
    }
    edonio_mark_valid(s);
    return 0;
}

/* The slot of a held segment that holds block, taking (and if need be evicting) one. */
static int slot_for(ADIO_File fd, struct edonio_segment *seg, int owner, int64_t block,
                    int32_t *slot)
{
    struct edonio_file *ef = edonio_state(fd);
    int err;

    *slot = edonio_lookup(seg, block);
    if (*slot != EDONIO_NO_SLOT) {
        ef->stats.hits++;
        edonio_touch(seg, *slot);
        return 0;
    }
    ef->stats.misses++;
    *slot = edonio_insert(seg, block);
    if (*slot != EDONIO_NO_SLOT)
        return 0;
    int32_t victim = edonio_victim(seg);
    err = write_back(fd, seg, owner, victim);
    if (err)
        return err;
    edonio_remove(seg, victim);
    ef->stats.evictions++;
    *slot = edonio_insert(seg, block);
    return 0;
}

/* ------------------------------------------------------------------ the read-only data cache */

/* A remote block of a read-only file, from this process's own read-only cache. */
static int ro_lookup(struct edonio_file *ef, int64_t block, uint32_t lo, uint32_t hi, void *out)
{
    int32_t slot;

    if (ef->ro == NULL || edonio_owner(block, ef->nprocs) == ef->rank)
        return 0;
    slot = edonio_lookup(ef->ro, block);
    if (slot == EDONIO_NO_SLOT)
        return 0;
    edonio_touch(ef->ro, slot);
    memcpy(out, edonio_slot_data(ef->ro, slot) + lo, hi - lo);
    ef->stats.ro_hits++;
    return 1;
}

/* Keep a copy of a whole (VALID) remote block read from its owner. */
static void ro_keep(struct edonio_file *ef, int owner, int32_t owner_slot, int64_t block)
{
    int32_t slot;

    if (ef->ro == NULL || owner == ef->rank)
        return;
    slot = edonio_insert(ef->ro, block);
    if (slot == EDONIO_NO_SLOT) {
        edonio_remove(ef->ro, edonio_victim(ef->ro)); /* never dirty: just drop it */
        slot = edonio_insert(ef->ro, block);
    }
    ADIOI_EDONIO_Slot_get(ef, owner, owner_slot, 0, edonio_slot_data(ef->ro, slot),
                          ef->ro->block_size);
}

/* ------------------------------------------------------------------ pieces */

/* Read [lo, hi) of block from its owner's segment, held. */
static int read_held(ADIO_File fd, struct edonio_segment *seg, int owner, int64_t block,
                     uint32_t lo, uint32_t hi, void *out)
{
    struct edonio_file *ef = edonio_state(fd);
    int32_t slot;
    int err = slot_for(fd, seg, owner, block, &slot);

    if (err)
        return err;
    struct edonio_slot *s = edonio_slot_at(seg, slot);
    /* The read-only cache keeps whole blocks, so fetch the whole block for it. */
    int whole = ef->ro != NULL && owner != ef->rank;
    if (!edonio_readable(s, lo, hi) || (whole && !(s->flags & EDONIO_SLOT_VALID)))
        err = fetch(fd, seg, owner, slot);
    if (err == 0) {
        ADIOI_EDONIO_Slot_get(ef, owner, slot, lo, out, hi - lo);
        if (whole)
            ro_keep(ef, owner, slot, block);
    }
    return err;
}

/* Write [lo, hi) of block into its owner's segment, held. */
static int write_held(ADIO_File fd, struct edonio_segment *seg, int owner, int64_t block,
                      uint32_t lo, uint32_t hi, const void *in)
{
    struct edonio_file *ef = edonio_state(fd);
    int32_t slot;
    int err = slot_for(fd, seg, owner, block, &slot);

    if (err)
        return err;
    struct edonio_slot *s = edonio_slot_at(seg, slot);
    if (edonio_dirty_add(s, lo, hi) != 0) {
        /* Too many separate extents: fetch the rest of the block, then one extent does. */
        err = fetch(fd, seg, owner, slot);
        if (err == 0)
            edonio_dirty_add(s, lo, hi);
    }
    if (err == 0)
        ADIOI_EDONIO_Slot_put(ef, owner, slot, lo, in, hi - lo);
    return err;
}

static int read_piece(ADIO_File fd, int64_t block, uint32_t lo, uint32_t hi, void *out)
{
    struct edonio_file *ef = edonio_state(fd);
    int owner = edonio_owner(block, ef->nprocs), err;

    if (ro_lookup(ef, block, lo, hi, out))
        return 0;
    err = read_held(fd, ADIOI_EDONIO_Acquire(ef, owner), owner, block, lo, hi, out);
    ADIOI_EDONIO_Release(ef, owner, 1);
    return err;
}

static int write_piece(ADIO_File fd, int64_t block, uint32_t lo, uint32_t hi, const void *in)
{
    struct edonio_file *ef = edonio_state(fd);
    int owner = edonio_owner(block, ef->nprocs);
    int err = write_held(fd, ADIOI_EDONIO_Acquire(ef, owner), owner, block, lo, hi, in);

    ADIOI_EDONIO_Release(ef, owner, 1);
    return err;
}

/* Is block cached at its owner? (The segment is held only for the look.) */
static int cached(struct edonio_file *ef, int64_t block)
{
    int owner = edonio_owner(block, ef->nprocs);
    int found = edonio_lookup(ADIOI_EDONIO_Acquire(ef, owner), block) != EDONIO_NO_SLOT;

    ADIOI_EDONIO_Release(ef, owner, 0);
    return found;
}

/*
 * After a direct transfer of block (its bytes in buf): a copy some process cached meanwhile from
 * the file's old bytes is dropped, unless it was written since (then it is newer, or the two
 * writes were concurrent and either may win); else the block is kept, clean, if its owner has a
 * free slot. Nothing is evicted for it.
 */
static void direct_settle(struct edonio_file *ef, int64_t block, const char *buf, int writing)
{
    int owner = edonio_owner(block, ef->nprocs);
    struct edonio_segment *seg = ADIOI_EDONIO_Acquire(ef, owner);
    int32_t slot = edonio_lookup(seg, block);

    if (slot != EDONIO_NO_SLOT) {
        if (writing && edonio_slot_at(seg, slot)->ndirty == 0)
            edonio_remove(seg, slot);
    } else if (seg->free_head != EDONIO_NO_SLOT) {
        slot = edonio_insert(seg, block);
        ADIOI_EDONIO_Slot_put(ef, owner, slot, 0, buf, seg->block_size);
        edonio_mark_valid(edonio_slot_at(seg, slot));
    }
    ADIOI_EDONIO_Release(ef, owner, 1);
}

/*
 * Whole blocks of a large request (romio_edonio_direct_threshold) that are not cached go
 * straight between the file and the caller's buffer, as ufs would move them: consecutive ones in
 * one operation, one copy instead of two, and no write-back later. A cached block (maybe dirty)
 * ends the run and takes the cache. No segment is held during the transfer: a process that
 * touches one of these blocks meanwhile makes a concurrent conflicting access, which MPI leaves
 * undefined outside atomic mode (and in atomic mode ROMIO's byte-range lock covers the request);
 * direct_settle() then keeps what it cached only if it is newer.
 * Returns the blocks moved (0: the first is cached), or a negated errno.
 */
static int64_t direct_run(ADIO_File fd, int64_t block, int64_t nblocks, char *buf, int writing)
{
    struct edonio_file *ef = edonio_state(fd);
    ADIO_Offset bs = ef->hints.block_size, start = block_start(ef, block);
    int64_t n = 0;
    int err;

    while (n < nblocks && !cached(ef, block + n))
        n++;
    if (n == 0)
        return 0;
    err = writing ? fs_write(fd, buf, (size_t)(n * bs), start)
                  : fs_read(fd, buf, (size_t)(n * bs), start);
    if (err)
        return -err;
    if (writing)
        ADIOI_EDONIO_Size_max(ef, EDONIO_SIZE_DISK, start + n * bs);
    for (int64_t k = 0; k < n; k++)
        direct_settle(ef, block + k, buf + k * bs, writing);
    ef->stats.direct += n;
    return n;
}

/*
 * Cut [off, off + len) at block boundaries and call fn on each piece; in a large request, whole
 * blocks go direct when they are not cached (read: only below the end of the copy on disk).
 */
static int for_pieces(ADIO_File fd, ADIO_Offset off, ADIO_Offset len, char *buf,
                      int (*fn)(ADIO_File, int64_t, uint32_t, uint32_t, char *), int writing)
{
    struct edonio_file *ef = edonio_state(fd);
    uint32_t bs = (uint32_t)ef->hints.block_size;
    ADIO_Offset done = 0, end = off + len;
    int large = ef->hints.direct_threshold > 0 && len >= ef->hints.direct_threshold;

    if (large && !writing) { /* reads go direct only where the disk has the bytes */
        ADIO_Offset disk = ADIOI_EDONIO_Size_get(ef, EDONIO_SIZE_DISK);
        end = disk < end ? disk : end;
    }
    while (done < len) {
        struct edonio_piece p = edonio_piece_at(off + done, len - done, bs);
        ADIO_Offset whole = large && p.lo == 0 ? (end - (off + done)) / bs : 0;
        if (whole > 0) {
            int64_t moved = direct_run(fd, p.block, whole, buf + done, writing);
            if (moved < 0)
                return (int)-moved;
            if (moved > 0) {
                done += moved * bs;
                continue;
            }
        }
        int err = fn(fd, p.block, p.lo, p.hi, buf + done);
        if (err)
            return err;
        done += p.hi - p.lo;
    }
    return 0;
}

static int read_piece_cb(ADIO_File fd, int64_t block, uint32_t lo, uint32_t hi, char *buf)
{
    return read_piece(fd, block, lo, hi, buf);
}

static int write_piece_cb(ADIO_File fd, int64_t block, uint32_t lo, uint32_t hi, char *buf)
{
    return write_piece(fd, block, lo, hi, buf);
}

/* ------------------------------------------------------------------ the entry points */

/* Read up to len bytes at off; *got is what the file holds there (less at its end). errno or 0. */
int ADIOI_EDONIO_Cache_read(ADIO_File fd, void *buf, ADIO_Offset off, ADIO_Offset len,
                            ADIO_Offset *got)
{
    ADIO_Offset size = ADIOI_EDONIO_Size_get(edonio_state(fd), EDONIO_SIZE_FILE);

    *got = 0;
    if (off >= size || len <= 0)
        return 0;
    if (len > size - off)
        len = size - off;
    int err = for_pieces(fd, off, len, buf, read_piece_cb, 0);
    if (err == 0)
        *got = len;
    return err;
}

int ADIOI_EDONIO_Cache_write(ADIO_File fd, const void *buf, ADIO_Offset off, ADIO_Offset len)
{
    int err;

    if (len <= 0)
        return 0;
    err = for_pieces(fd, off, len, (char *)buf, write_piece_cb, 1);
    /* What was written is part of the file, even if a piece after it failed. */
    ADIOI_EDONIO_Size_max(edonio_state(fd), EDONIO_SIZE_FILE, off + len);
    return err;
}

/*
 * Collective I/O at the owner (ad_edonio_coll.c): n pieces (offset, length pairs) of blocks this
 * process owns, each within one block, their bytes one after the other in data, applied in order
 * under one hold of this process's segment. A read past the file's end gives zeros. errno of the
 * first failure, or 0; the pieces after a failure are still done.
 */
int ADIOI_EDONIO_Cache_owner_io(ADIO_File fd, const int64_t *piece, int64_t n, char *data,
                                int writing)
{
    struct edonio_file *ef = edonio_state(fd);
    ADIO_Offset bs = ef->hints.block_size, size = 0;
    struct edonio_segment *seg;
    int err = 0, e = 0;

    if (n == 0)
        return 0;
    if (!writing)
        size = ADIOI_EDONIO_Size_get(ef, EDONIO_SIZE_FILE);
    seg = ADIOI_EDONIO_Acquire(ef, ef->rank);
    for (int64_t k = 0; k < n; k++) {
        ADIO_Offset off = piece[2 * k], len = piece[2 * k + 1], block = off / bs;
        uint32_t lo = (uint32_t)(off - block * bs);
        if (writing) {
            e = write_held(fd, seg, ef->rank, block, lo, lo + (uint32_t)len, data);
        } else {
            ADIO_Offset have = size - off < 0 ? 0 : size - off < len ? size - off : len;
            memset(data + have, 0, (size_t)(len - have));
            e = have ? read_held(fd, seg, ef->rank, block, lo, lo + (uint32_t)have, data) : 0;
        }
        if (e && !err)
            err = e;
        data += len;
    }
    ADIOI_EDONIO_Release(ef, ef->rank, 1);
    return err;
}

/*
 * Write back every dirty block this process owns, the processes in romio_edonio_flush_groups
 * groups of consecutive ranks, one group after the other (pipelined flush, doc/hints.md).
 * Collective, unless this handle is an alias (it writes back alone). errno or 0.
 */
int ADIOI_EDONIO_Cache_flush_grouped(ADIO_File fd, int drop)
{
    struct edonio_file *ef = edonio_state(fd);
    int groups = ef->hints.flush_groups < ef->nprocs ? ef->hints.flush_groups : ef->nprocs;
    int mine = (int)((long long)ef->rank * groups / ef->nprocs), err = 0;

    if (groups <= 1 || ef->primary != NULL)
        return ADIOI_EDONIO_Cache_flush_mine(fd, drop);
    for (int g = 0; g < groups; g++) {
        if (g == mine)
            err = ADIOI_EDONIO_Cache_flush_mine(fd, drop);
        MPI_Barrier(ef->comm);
    }
    return err;
}

static int by_block(const void *a, const void *b)
{
    int64_t x = ((const int64_t *)a)[0], y = ((const int64_t *)b)[0];
    return (x > y) - (x < y);
}

/*
 * Write back every dirty block this process owns, in file order; errno of the first failure.
 * With 'drop', clean blocks are dropped too (MPI_File_sync: the next read sees the file system,
 * which other handles of the file, or other programs, may have written).
 */
int ADIOI_EDONIO_Cache_flush_mine(ADIO_File fd, int drop)
{
    struct edonio_file *ef = edonio_state(fd);
    struct edonio_segment *seg = ADIOI_EDONIO_Acquire(ef, ef->rank);
    int64_t(*dirty)[2] = ADIOI_Malloc((size_t)(seg->nslots + 1) * sizeof(*dirty));
    int32_t n = 0;
    int err = 0;

    for (int32_t i = 0; i < seg->nslots; i++) {
        struct edonio_slot *s = edonio_slot_at(seg, i);
        if (s->block >= 0 && s->ndirty > 0) {
            dirty[n][0] = s->block;
            dirty[n++][1] = i;
        }
    }
    qsort(dirty, (size_t)n, sizeof(*dirty), by_block);
    for (int32_t i = 0; i < n; i++) {
        int e = write_back(fd, seg, ef->rank, (int32_t)dirty[i][1]);
        if (e && !err)
            err = e; /* keep going: write back what can be written */
    }
    ADIOI_Free(dirty);
    for (int32_t i = 0; drop && i < seg->nslots; i++)
        if (edonio_slot_at(seg, i)->block >= 0 && edonio_slot_at(seg, i)->ndirty == 0)
            edonio_remove(seg, i);
    ADIOI_EDONIO_Release(ef, ef->rank, 1);
    if (drop && ef->ro != NULL)
        edonio_segment_init(ef->ro, ef->ro->nslots, ef->ro->block_size);
    return err;
}

/* The file now ends at size: drop or cut owner's blocks past it. */
static void trim(ADIO_File fd, int owner, ADIO_Offset size)
{
    struct edonio_file *ef = edonio_state(fd);
    struct edonio_segment *seg = ADIOI_EDONIO_Acquire(ef, owner);

    for (int32_t i = 0; i < seg->nslots; i++) {
        struct edonio_slot *s = edonio_slot_at(seg, i);
        ADIO_Offset start = s->block >= 0 ? block_start(ef, s->block) : -1;
        if (start < 0 || start + seg->block_size <= size)
            continue;
        edonio_truncate_slot(seg, i, start >= size ? 0 : (uint32_t)(size - start));
    }
    ADIOI_EDONIO_Release(ef, owner, 1);
}

void ADIOI_EDONIO_Cache_trim_mine(ADIO_File fd, ADIO_Offset size)
{
    struct edonio_file *ef = edonio_state(fd);

    trim(fd, ef->rank, size);
    if (ef->ro != NULL) /* read-only files do not shrink, but be safe */
        edonio_segment_init(ef->ro, ef->ro->nslots, ef->ro->block_size);
}

void ADIOI_EDONIO_Cache_trim_all(ADIO_File fd, ADIO_Offset size)
{
    for (int owner = 0; owner < edonio_state(fd)->nprocs; owner++)
        trim(fd, owner, size);
}

/*
 * Collective: fill this process's free slots with the blocks it owns, from the block holding the
 * smallest file pointer of all processes on, never displacing cached blocks. errno or 0.
 */
int ADIOI_EDONIO_Cache_preload(ADIO_File fd)
{
    struct edonio_file *ef = edonio_state(fd);
    long long mine = (long long)fd->fp_ind, from;
    ADIO_Offset size = ADIOI_EDONIO_Size_get(ef, EDONIO_SIZE_FILE);
    int err = 0;

    MPI_Allreduce(&mine, &from, 1, MPI_LONG_LONG, MPI_MIN, ef->comm);
    int64_t first = from / ef->hints.block_size;
    int64_t b = edonio_first_owned(first, ef->rank, ef->nprocs);
    for (; block_start(ef, b) < size && err == 0; b += ef->nprocs) {
        struct edonio_segment *seg = ADIOI_EDONIO_Acquire(ef, ef->rank);
        int32_t slot = EDONIO_NO_SLOT;
        int full = seg->free_head == EDONIO_NO_SLOT;
        if (!full && edonio_lookup(seg, b) == EDONIO_NO_SLOT) {
            slot = edonio_insert(seg, b);
            err = fetch(fd, seg, ef->rank, slot);
            if (err)
                edonio_remove(seg, slot);
        }
        ADIOI_EDONIO_Release(ef, ef->rank, 1);
        if (full)
            break;
    }
    return err;
}
