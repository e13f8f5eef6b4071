/*
 * edonio: one segment of the block cache (see ad_edonio_segment.h): hash index, LRU list, slots
 * taken lazily, exact dirty extents.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* CLOCK_MONOTONIC_COARSE */
#endif
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

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
    return edonio_segment_meta_size(nslots) + (size_t)nslots * (block_size + block_size / 8);
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

uint64_t edonio_slot_map_offset(const struct edonio_segment *seg, int32_t slot)
{
    return seg->maps_offset + (uint64_t)slot * (seg->block_size / 8);
}

uint64_t *edonio_slot_map(struct edonio_segment *seg, int32_t slot)
{
    return (uint64_t *)((char *)seg + edonio_slot_map_offset(seg, slot));
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
    seg->maps_offset = seg->data_offset + (uint64_t)nslots * block_size;
    reset(seg);
    return seg;
}

static int32_t bucket_of(const struct edonio_segment *seg, int64_t block);

static void unmap(struct edonio_slot *s);

void edonio_segment_clear(struct edonio_segment *seg)
{
    for (int32_t i = 0; i < seg->nhigh; i++) {
        struct edonio_slot *s = edonio_slot_at(seg, i);
        if (s->block >= 0)
            __atomic_store_n(&buckets(seg)[bucket_of(seg, s->block)], 0,
                             __ATOMIC_RELAXED); /* edonio_may_hold */
        unmap(s);
    }
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
    s->map = 0; /* a slot gives its map back, zeroed, before it is freed */
    atomic_store_explicit(&s->busy, 0, memory_order_relaxed);
    atomic_store_explicit(&s->filling, 0, memory_order_relaxed);
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
    unmap(s);
    s->block = -1;
    s->flags = 0;
    s->ndirty = 0;
    s->hash_next = EDONIO_NO_SLOT;
    s->lru_next = seg->free_head;
    seg->free_head = slot;
    seg->nused--;
}

/* ------------------------------------------------------------------ a slot's map */

/* Bit i of a map is byte i of the block: bit i % 64 of word i / 64. */
static uint64_t *map_of(const struct edonio_slot *s)
{
    return (uint64_t *)((char *)s + s->map);
}

static int bit(const uint64_t *m, uint32_t i)
{
    return (int)(m[i / 64] >> (i % 64) & 1);
}

/* The bits of word w that lie in [lo, hi). */
static uint64_t word_mask(uint32_t w, uint32_t lo, uint32_t hi)
{
    uint32_t first = w * 64, a = lo > first ? lo - first : 0, b = hi - first < 64 ? hi - first : 64;
    uint64_t upto = b == 64 ? ~0ull : (1ull << b) - 1;

    return upto & ~((1ull << a) - 1);
}

static void bits_set(uint64_t *m, uint32_t lo, uint32_t hi, int on)
{
    for (uint32_t w = lo / 64; lo < hi && w <= (hi - 1) / 64; w++)
        m[w] = on ? m[w] | word_mask(w, lo, hi) : m[w] & ~word_mask(w, lo, hi);
}

static int bits_all(const uint64_t *m, uint32_t lo, uint32_t hi)
{
    for (uint32_t w = lo / 64; lo < hi && w <= (hi - 1) / 64; w++)
        if ((m[w] & word_mask(w, lo, hi)) != word_mask(w, lo, hi))
            return 0;
    return 1;
}

/* The first bit at or after 'from', below 'end', that is set (want 1) or clear; else 'end'. */
static uint32_t next_bit(const uint64_t *m, uint32_t from, uint32_t end, int want)
{
    for (uint32_t w = from / 64; from < end && w <= (end - 1) / 64; w++) {
        uint64_t x = (want ? m[w] : ~m[w]) & word_mask(w, from, end);
        if (x != 0)
            return w * 64 + (uint32_t)__builtin_ctzll(x);
    }
    return end;
}

/* Runs that start in [lo, hi): set bits whose lower neighbour is clear (or bit 0). A piece added
 * to a map touches a run or two, so the bits are counted one by one: __builtin_popcountll is a
 * call into libgcc on x86-64 without -mpopcnt, 3% of a collective write of 8-byte pieces. */
static uint32_t starts(const uint64_t *m, uint32_t lo, uint32_t hi)
{
    uint32_t n = 0;

    for (uint32_t w = lo / 64; lo < hi && w <= (hi - 1) / 64; w++) {
        uint64_t carry = w > 0 ? m[w - 1] >> 63 : 0;
        for (uint64_t x = m[w] & ~(m[w] << 1 | carry) & word_mask(w, lo, hi); x != 0; x &= x - 1)
            n++;
    }
    return n;
}

/* Give the map back, zeroed (only the words the dirty span covers can be set). */
static void unmap(struct edonio_slot *s)
{
    if (s->map == 0)
        return;
    uint64_t *m = map_of(s);
    for (uint32_t w = s->dirty[0].lo / 64; s->ndirty > 0 && w <= (s->dirty[0].hi - 1) / 64; w++)
        m[w] = 0;
    s->map = 0;
}

void edonio_dirty_map(struct edonio_slot *s, uint64_t *map, uint32_t block_size)
{
    struct edonio_extent span = edonio_dirty_span(s);

    for (uint32_t i = 0; i < s->ndirty; i++)
        bits_set(map, s->dirty[i].lo, s->dirty[i].hi, 1);
    s->map_bits = block_size;
    s->dirty[0] = span; /* ndirty: the extents were maximal runs already */
    s->map = (char *)map - (char *)s;
}

/* [lo, hi) into the map: the runs it touches (its neighbours' included) become one. */
static void map_add(struct edonio_slot *s, uint32_t lo, uint32_t hi)
{
    uint64_t *m = map_of(s);
    uint32_t end = hi < s->map_bits ? hi + 1 : s->map_bits;
    uint32_t touched = (lo > 0 && bit(m, lo - 1)) + starts(m, lo, end);

    bits_set(m, lo, hi, 1);
    s->ndirty = s->ndirty + 1 - touched;
    s->dirty[0].lo = lo < s->dirty[0].lo ? lo : s->dirty[0].lo;
    s->dirty[0].hi = hi > s->dirty[0].hi ? hi : s->dirty[0].hi;
    if (s->ndirty == 1 && s->dirty[0].lo == 0 && s->dirty[0].hi == s->map_bits)
        unmap(s); /* written whole: one extent, dirty[0] */
}

int edonio_dirty_run(const struct edonio_slot *s, uint32_t from, struct edonio_extent *run)
{
    if (s->ndirty == 0)
        return 0;
    if (s->map != 0) {
        const uint64_t *m = map_of(s);
        uint32_t end = s->dirty[0].hi;
        run->lo = next_bit(m, from > s->dirty[0].lo ? from : s->dirty[0].lo, end, 1);
        run->hi = next_bit(m, run->lo, end, 0);
        return run->lo < end;
    }
    for (uint32_t i = 0; i < s->ndirty; i++)
        if (s->dirty[i].hi > from) {
            run->lo = s->dirty[i].lo > from ? s->dirty[i].lo : from;
            run->hi = s->dirty[i].hi;
            return 1;
        }
    return 0;
}

struct edonio_extent edonio_dirty_span(const struct edonio_slot *s)
{
    struct edonio_extent span = {0, 0};

    if (s->ndirty > 0) {
        span.lo = s->dirty[0].lo;
        span.hi = s->map != 0 ? s->dirty[0].hi : s->dirty[s->ndirty - 1].hi;
    }
    return span;
}

/* ------------------------------------------------------------------ dirty extents */

/* Merge [lo, hi) into the sorted, disjoint extents (touching extents merge too). */
int edonio_dirty_add(struct edonio_slot *s, uint32_t lo, uint32_t hi)
{
    struct edonio_extent merged = {lo, hi}, out[EDONIO_MAX_EXTENTS + 1];
    uint32_t n = 0, i = 0;

    if (lo >= hi)
        return 0;
    if (s->map != 0) {
        map_add(s, lo, hi);
        return 0;
    }
    if (s->ndirty > 0 && lo >= s->dirty[s->ndirty - 1].lo) { /* in file order: at the end */
        struct edonio_extent *last = &s->dirty[s->ndirty - 1];
        if (lo <= last->hi) {
            last->hi = hi > last->hi ? hi : last->hi;
            return 0;
        }
        if (s->ndirty == EDONIO_MAX_EXTENTS)
            return -1;
        s->dirty[s->ndirty++] = (struct edonio_extent){lo, hi};
        return 0;
    }
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

/* Add [lo, hi) to the slot's copy range, unless every byte of it is written already. */
static void copy_add(struct edonio_slot *s, uint32_t lo, uint32_t hi)
{
    if (lo >= hi)
        return;
    if (s->map != 0 && bits_all(map_of(s), lo, hi))
        return; /* written over written bytes */
    for (uint32_t i = 0; s->map == 0 && i < s->ndirty; i++)
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

void edonio_copy_begin(struct edonio_slot *s, uint32_t lo, uint32_t hi, int writing)
{
    if (atomic_load_explicit(&s->busy, memory_order_relaxed) == 0)
        s->copy_lo = s->copy_hi = 0;
    if (writing)
        copy_add(s, lo, hi);
}

void edonio_copy_next(struct edonio_slot *s, uint32_t lo, uint32_t hi)
{
    if (atomic_load_explicit(&s->busy, memory_order_relaxed) == 1) {
        atomic_thread_fence(memory_order_release); /* the pieces before are in, then forgotten */
        s->copy_lo = s->copy_hi = 0;
    }
    copy_add(s, lo, hi);
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
    unmap(s);
    s->ndirty = 0;
}

int edonio_readable(const struct edonio_slot *s, uint32_t lo, uint32_t hi)
{
    if (s->flags & EDONIO_SLOT_VALID)
        return 1;
    if (s->map != 0)
        return bits_all(map_of(s), lo, hi);
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
    if (s->map != 0 && s->dirty[0].hi > keep) {
        uint64_t *m = map_of(s);
        bits_set(m, keep, s->dirty[0].hi, 0);
        s->ndirty = starts(m, 0, keep);
        if (s->ndirty == 0) {
            s->map = 0; /* every bit is clear: nothing to zero */
        } else {
            uint32_t last = keep; /* the end of the last run: after the last set bit */
            while (!bit(m, last - 1))
                last--;
            s->dirty[0].hi = last;
        }
    }
    for (uint32_t i = 0; s->map == 0 && i < s->ndirty; i++) {
        if (s->dirty[i].lo >= keep)
            break;
        s->dirty[n] = s->dirty[i];
        if (s->dirty[n].hi > keep)
            s->dirty[n].hi = keep;
        n++;
    }
    if (s->map == 0)
        s->ndirty = n;
    s->flags &= ~(uint32_t)EDONIO_SLOT_VALID;
}

void edonio_wait_idle(struct edonio_slot *s)
{
    for (int spins = 0; atomic_load_explicit(&s->busy, memory_order_acquire) != 0; spins++)
        if (spins > 1000)
            sched_yield(); /* the copier may share our core */
}

/*
 * A fill waits for the file, for far longer than a copy: its waiters sleep on the word (a futex
 * in the node's shared memory, FUTEX_WAIT without FUTEX_PRIVATE_FLAG) rather than spin on the
 * processors that the file system's own daemons may need. 2 says that someone sleeps on it.
 */
void edonio_wait_filled(struct edonio_slot *s)
{
    const struct timespec tick = {0, 10 * 1000 * 1000}; /* look again now and then, whatever */

    for (int spins = 0; edonio_filling(s); spins++) {
        unsigned one = 1;
        if (spins < 64)
            continue;
        atomic_compare_exchange_strong(&s->filling, &one, 2u);
        if (atomic_load_explicit(&s->filling, memory_order_acquire) == 2)
            syscall(SYS_futex, (unsigned *)&s->filling, FUTEX_WAIT, 2, &tick, NULL, 0);
    }
}

void edonio_fill_done(struct edonio_slot *s)
{
    if (atomic_exchange_explicit(&s->filling, 0u, memory_order_release) == 2)
        syscall(SYS_futex, (unsigned *)&s->filling, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
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
