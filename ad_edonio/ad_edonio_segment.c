/*
 * edonio: one segment of the block cache (see ad_edonio_segment.h): hash index, LRU list, slots
 * taken lazily, exact dirty extents.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* CLOCK_MONOTONIC_COARSE */
#endif
#include <sched.h>
#include <string.h>
#include <time.h>

#include "ad_edonio_segment.h"

uint32_t edonio_now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC_COARSE, &t); /* the vDSO's: no system call */
    return (uint32_t)t.tv_sec;
}

static size_t align8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

static int32_t buckets_for(int32_t nslots)
{
    int32_t n = 1;
    while (n < 2 * nslots && n < (1 << 30))
        n <<= 1;
    return n;
}

struct edonio_piece edonio_piece_at(int64_t pos, int64_t left, uint32_t block_size)
{
    struct edonio_piece p;

    p.block = pos / block_size;
    p.lo = (uint32_t)(pos - p.block * (int64_t)block_size);
    p.hi = left < (int64_t)(block_size - p.lo) ? p.lo + (uint32_t)left : block_size;
    return p;
}

size_t edonio_segment_meta_size(int32_t nslots)
{
    size_t size = align8(sizeof(struct edonio_segment));
    size += align8((size_t)nslots * sizeof(struct edonio_slot));
    size += align8((size_t)buckets_for(nslots) * sizeof(int32_t));
    return (size + 4095) & ~(size_t)4095; /* the data starts on a page */
}

size_t edonio_segment_size(int32_t nslots, uint32_t block_size)
{
    return edonio_segment_meta_size(nslots) + (size_t)nslots * block_size;
}

static int32_t *buckets(struct edonio_segment *seg)
{
    return (int32_t *)((char *)seg + seg->buckets_offset);
}

struct edonio_slot *edonio_slot_at(struct edonio_segment *seg, int32_t slot)
{
    return (struct edonio_slot *)((char *)seg + seg->slots_offset) + slot;
}

unsigned char *edonio_slot_data(struct edonio_segment *seg, int32_t slot)
{
    return (unsigned char *)seg + seg->data_offset + (size_t)slot * seg->block_size;
}

static void reset(struct edonio_segment *seg)
{
    seg->nused = seg->nhigh = 0;
    seg->lru_head = seg->lru_tail = seg->free_head = EDONIO_NO_SLOT;
}

struct edonio_segment *edonio_segment_init(void *mem, int32_t nslots, uint32_t block_size,
                                           uint64_t cookie)
{
    struct edonio_segment *seg = mem;

    atomic_init(&seg->lock, 0);
    atomic_init(&seg->ready, 0);
    atomic_init(&seg->size, 0);
    atomic_init(&seg->syncs, 0);
    seg->magic = EDONIO_SEGMENT_MAGIC;
    seg->cookie = cookie;
    seg->nslots = seg->limit = nslots;
    seg->planned = seg->share = 0;
    seg->nbuckets = buckets_for(nslots);
    seg->block_size = block_size;
    seg->slots_offset = align8(sizeof(*seg));
    seg->buckets_offset = seg->slots_offset + align8((size_t)nslots * sizeof(struct edonio_slot));
    seg->data_offset = edonio_segment_meta_size(nslots);
    reset(seg);
    return seg;
}

static int32_t bucket_of(const struct edonio_segment *seg, int64_t block);

void edonio_segment_clear(struct edonio_segment *seg)
{
    for (int32_t i = 0; i < seg->nhigh; i++)
        if (edonio_slot_at(seg, i)->block >= 0)
            __atomic_store_n(&buckets(seg)[bucket_of(seg, edonio_slot_at(seg, i)->block)], 0,
                             __ATOMIC_RELAXED); /* edonio_may_hold */
    reset(seg);
}

static int32_t bucket_of(const struct edonio_segment *seg, int64_t block)
{
    /* Blocks of one owner are b, b + P, b + 2P...: mix the bits so they spread. */
    uint64_t h = (uint64_t)block * 0x9E3779B97F4A7C15ull;
    return (int32_t)(h >> 32) & (seg->nbuckets - 1);
}

int edonio_may_hold(const struct edonio_segment *seg, int64_t block)
{
    const int32_t *head =
        (const int32_t *)((const char *)seg + seg->buckets_offset) + bucket_of(seg, block);

    return __atomic_load_n(head, __ATOMIC_ACQUIRE) != 0;
}

int32_t edonio_lookup(struct edonio_segment *seg, int64_t block)
{
    int32_t i = buckets(seg)[bucket_of(seg, block)] - 1;

    while (i != EDONIO_NO_SLOT && edonio_slot_at(seg, i)->block != block)
        i = edonio_slot_at(seg, i)->hash_next;
    return i;
}

static void lru_unlink(struct edonio_segment *seg, int32_t slot)
{
    struct edonio_slot *s = edonio_slot_at(seg, slot);

    if (s->lru_prev != EDONIO_NO_SLOT)
        edonio_slot_at(seg, s->lru_prev)->lru_next = s->lru_next;
    else
        seg->lru_head = s->lru_next;
    if (s->lru_next != EDONIO_NO_SLOT)
        edonio_slot_at(seg, s->lru_next)->lru_prev = s->lru_prev;
    else
        seg->lru_tail = s->lru_prev;
    s->lru_prev = s->lru_next = EDONIO_NO_SLOT;
}

static void lru_push_head(struct edonio_segment *seg, int32_t slot)
{
    struct edonio_slot *s = edonio_slot_at(seg, slot);

    s->lru_prev = EDONIO_NO_SLOT;
    s->lru_next = seg->lru_head;
    if (seg->lru_head != EDONIO_NO_SLOT)
        edonio_slot_at(seg, seg->lru_head)->lru_prev = slot;
    seg->lru_head = slot;
    if (seg->lru_tail == EDONIO_NO_SLOT)
        seg->lru_tail = slot;
}

void edonio_touch(struct edonio_segment *seg, int32_t slot)
{
    if (seg->lru_head == slot)
        return;
    lru_unlink(seg, slot);
    lru_push_head(seg, slot);
}

/* A slot never used or freed, or EDONIO_NO_SLOT (the limit is reached). */
static int32_t take_free(struct edonio_segment *seg)
{
    int32_t slot;

    if (seg->nused >= seg->limit)
        return EDONIO_NO_SLOT;
    if (seg->free_head != EDONIO_NO_SLOT) {
        slot = seg->free_head;
        seg->free_head = edonio_slot_at(seg, slot)->lru_next;
        return slot;
    }
    return seg->nhigh < seg->nslots ? seg->nhigh++ : EDONIO_NO_SLOT;
}

int32_t edonio_insert(struct edonio_segment *seg, int64_t block)
{
    int32_t slot = take_free(seg), b;
    struct edonio_slot *s;

    if (slot == EDONIO_NO_SLOT)
        return EDONIO_NO_SLOT;
    s = edonio_slot_at(seg, slot);
    s->block = block;
    s->flags = 0;
    s->ndirty = 0;
    atomic_store_explicit(&s->busy, 0, memory_order_relaxed);
    b = bucket_of(seg, block);
    s->hash_next = buckets(seg)[b] - 1;
    __atomic_store_n(&buckets(seg)[b], slot + 1, __ATOMIC_RELEASE); /* edonio_may_hold */
    s->lru_prev = s->lru_next = EDONIO_NO_SLOT;
    lru_push_head(seg, slot);
    seg->nused++;
    return slot;
}

int32_t edonio_victim(const struct edonio_segment *seg)
{
    return seg->lru_tail;
}

int32_t edonio_newer(struct edonio_segment *seg, int32_t slot)
{
    return edonio_slot_at(seg, slot)->lru_prev;
}

static void hash_unlink(struct edonio_segment *seg, int32_t slot)
{
    int32_t *link = &buckets(seg)[bucket_of(seg, edonio_slot_at(seg, slot)->block)];

    if (*link - 1 == slot) {
        __atomic_store_n(link, edonio_slot_at(seg, slot)->hash_next + 1, __ATOMIC_RELEASE);
        return;
    }
    int32_t i = *link - 1;
    while (edonio_slot_at(seg, i)->hash_next != slot)
        i = edonio_slot_at(seg, i)->hash_next;
    edonio_slot_at(seg, i)->hash_next = edonio_slot_at(seg, slot)->hash_next;
}

void edonio_remove(struct edonio_segment *seg, int32_t slot)
{
    struct edonio_slot *s = edonio_slot_at(seg, slot);

    hash_unlink(seg, slot);
    lru_unlink(seg, slot);
    s->block = -1;
    s->flags = 0;
    s->ndirty = 0;
    s->hash_next = EDONIO_NO_SLOT;
    s->lru_next = seg->free_head;
    seg->free_head = slot;
    seg->nused--;
}

/* Merge [lo, hi) into the sorted, disjoint extents (touching extents merge too). */
int edonio_dirty_add(struct edonio_slot *s, uint32_t lo, uint32_t hi)
{
    struct edonio_extent merged = {lo, hi}, out[EDONIO_MAX_EXTENTS + 1];
    uint32_t n = 0, i = 0;

    if (lo >= hi)
        return 0;
    while (i < s->ndirty && s->dirty[i].hi < lo)
        out[n++] = s->dirty[i++];
    while (i < s->ndirty && s->dirty[i].lo <= hi) {
        merged.lo = s->dirty[i].lo < merged.lo ? s->dirty[i].lo : merged.lo;
        merged.hi = s->dirty[i].hi > merged.hi ? s->dirty[i].hi : merged.hi;
        i++;
    }
    out[n++] = merged;
    while (i < s->ndirty)
        out[n++] = s->dirty[i++];
    if (n > EDONIO_MAX_EXTENTS)
        return -1;
    if (s->ndirty == 0)
        s->dirty_since = edonio_now();
    memcpy(s->dirty, out, n * sizeof(out[0]));
    s->ndirty = n;
    return 0;
}

void edonio_copy_begin(struct edonio_slot *s, uint32_t lo, uint32_t hi, int writing)
{
    if (atomic_load_explicit(&s->busy, memory_order_relaxed) == 0)
        s->copy_lo = s->copy_hi = 0;
    if (!writing || lo >= hi)
        return;
    for (uint32_t i = 0; i < s->ndirty; i++)
        if (s->dirty[i].lo <= lo && hi <= s->dirty[i].hi)
            return; /* written over written bytes */
    if (s->copy_hi == 0) {
        s->copy_lo = lo;
        s->copy_hi = hi;
    } else {
        s->copy_lo = lo < s->copy_lo ? lo : s->copy_lo;
        s->copy_hi = hi > s->copy_hi ? hi : s->copy_hi;
    }
}

void edonio_mark_valid(struct edonio_slot *s)
{
    s->flags |= EDONIO_SLOT_VALID;
}

void edonio_mark_stale(struct edonio_slot *s)
{
    s->flags &= ~(uint32_t)EDONIO_SLOT_VALID;
}

void edonio_dirty_clear(struct edonio_slot *s)
{
    s->ndirty = 0;
}

int edonio_readable(const struct edonio_slot *s, uint32_t lo, uint32_t hi)
{
    if (s->flags & EDONIO_SLOT_VALID)
        return 1;
    for (uint32_t i = 0; i < s->ndirty; i++)
        if (s->dirty[i].lo <= lo && hi <= s->dirty[i].hi)
            return 1;
    return lo >= hi;
}

void edonio_truncate_slot(struct edonio_segment *seg, int32_t slot, uint32_t keep)
{
    struct edonio_slot *s = edonio_slot_at(seg, slot);
    uint32_t n = 0;

    if (keep == 0) {
        edonio_remove(seg, slot);
        return;
    }
    for (uint32_t i = 0; i < s->ndirty; i++) {
        if (s->dirty[i].lo >= keep)
            break;
        s->dirty[n] = s->dirty[i];
        if (s->dirty[n].hi > keep)
            s->dirty[n].hi = keep;
        n++;
    }
    s->ndirty = n;
    s->flags &= ~(uint32_t)EDONIO_SLOT_VALID;
}

void edonio_wait_idle(struct edonio_slot *s)
{
    for (int spins = 0; atomic_load_explicit(&s->busy, memory_order_acquire) != 0; spins++)
        if (spins > 1000)
            sched_yield(); /* the copier may share our core */
}

void edonio_drop(struct edonio_segment *seg, int32_t slot)
{
    edonio_wait_idle(edonio_slot_at(seg, slot));
    edonio_remove(seg, slot);
}

void edonio_clear(struct edonio_segment *seg)
{
    for (int32_t i = 0; i < seg->nhigh; i++)
        edonio_wait_idle(edonio_slot_at(seg, i));
    edonio_segment_clear(seg);
}
