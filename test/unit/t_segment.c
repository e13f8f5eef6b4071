/*
 * edonio unit test: one segment of the block cache on its own (ad_edonio/ad_edonio_segment.c):
 * the hash index under wrap-mapped block numbers, LRU order and the victims, free-slot reuse, the
 * limit, laying out over zeroed memory and touching it only as blocks need it, clearing, exact
 * dirty extents (merging, overflow, no collapse when valid, the map a block written in more
 * pieces takes), readability, truncation, the
 * ownership map, and how a request is cut into block pieces (64-bit offsets).
 *
 * Prints "PASS segment/<case>" or "FAIL segment/<case> (...)" per case and "N passed, N failed".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ad_edonio_segment.h"

#define UNIT_GROUP "segment"
#include "unit_test.h"

static struct edonio_segment *new_segment(int32_t nslots, uint32_t block_size)
{
    void *mem = calloc(1, edonio_segment_size(nslots, block_size)); /* zeroed, as a new memfd */
    return edonio_segment_init(mem, nslots, block_size, 42);
}

/* Blocks owned by rank 3 of 7: 3, 10, 17, ... */
static int64_t owned(int i)
{
    return 3 + 7 * (int64_t)i;
}

static void test_lookup(void)
{
    struct edonio_segment *seg = new_segment(64, 4096);

    for (int i = 0; i < 64; i++)
        EXPECT(edonio_insert(seg, owned(i)) != EDONIO_NO_SLOT);
    EXPECT(edonio_insert(seg, owned(64)) == EDONIO_NO_SLOT);
    for (int i = 0; i < 64; i++) {
        int32_t s = edonio_lookup(seg, owned(i));
        EXPECT(s != EDONIO_NO_SLOT && edonio_slot_at(seg, s)->block == owned(i));
    }
    EXPECT(edonio_lookup(seg, owned(64)) == EDONIO_NO_SLOT);
    EXPECT(edonio_lookup(seg, 4) == EDONIO_NO_SLOT);
    free(seg);
}

static void test_lru(void)
{
    struct edonio_segment *seg = new_segment(4, 4096);
    int32_t s[4];

    for (int i = 0; i < 4; i++)
        s[i] = edonio_insert(seg, owned(i));
    EXPECT(edonio_victim(seg) == s[0]);
    edonio_touch(seg, s[0]);
    EXPECT(edonio_victim(seg) == s[1]);
    edonio_touch(seg, s[2]);
    edonio_touch(seg, s[1]);
    EXPECT(edonio_victim(seg) == s[3]);
    edonio_remove(seg, s[3]);
    EXPECT(edonio_victim(seg) == s[0]);
    EXPECT(edonio_lookup(seg, owned(3)) == EDONIO_NO_SLOT);
    /* The freed slot is reused, clean: nothing in it is readable. */
    edonio_mark_valid(edonio_slot_at(seg, s[3]));
    int32_t again = edonio_insert(seg, owned(9));
    EXPECT(again == s[3]);
    EXPECT(!edonio_readable(edonio_slot_at(seg, again), 0, 1));
    EXPECT(edonio_slot_at(seg, again)->ndirty == 0 && edonio_slot_at(seg, again)->flags == 0);
    EXPECT(seg->lru_head == again);
    free(seg);
}

static void test_remove_all(void)
{
    struct edonio_segment *seg = new_segment(16, 4096);

    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 16; i++)
            EXPECT(edonio_insert(seg, owned(i + round * 100)) != EDONIO_NO_SLOT);
        for (int i = 15; i >= 0; i--)
            edonio_remove(seg, edonio_lookup(seg, owned(i + round * 100)));
        EXPECT(seg->nused == 0 && seg->lru_head == EDONIO_NO_SLOT &&
               seg->lru_tail == EDONIO_NO_SLOT);
    }
    free(seg);
}

static void test_dirty_merge(void)
{
    struct edonio_slot s = {.block = 0};

    EXPECT(edonio_dirty_add(&s, 100, 200) == 0);
    EXPECT(edonio_dirty_add(&s, 300, 400) == 0);
    EXPECT(edonio_dirty_add(&s, 0, 50) == 0);
    EXPECT(s.ndirty == 3 && s.dirty[0].lo == 0 && s.dirty[2].hi == 400);
    EXPECT(edonio_dirty_add(&s, 200, 300) == 0); /* touches both neighbours: one extent */
    EXPECT(s.ndirty == 2 && s.dirty[1].lo == 100 && s.dirty[1].hi == 400);
    EXPECT(edonio_dirty_add(&s, 40, 120) == 0);
    EXPECT(s.ndirty == 1 && s.dirty[0].lo == 0 && s.dirty[0].hi == 400);
    EXPECT(edonio_dirty_add(&s, 10, 10) == 0 && s.ndirty == 1);
}

/* Pieces in file order, the common case (edonio_dirty_add's shortcut at the last extent). */
static void test_dirty_in_order(void)
{
    struct edonio_slot s = {.block = 0};

    EXPECT(edonio_dirty_add(&s, 0, 8) == 0);
    EXPECT(edonio_dirty_add(&s, 8, 16) == 0); /* touches the last: one extent */
    EXPECT(s.ndirty == 1 && s.dirty[0].lo == 0 && s.dirty[0].hi == 16);
    EXPECT(edonio_dirty_add(&s, 24, 32) == 0); /* past it: appended */
    EXPECT(s.ndirty == 2 && s.dirty[1].lo == 24 && s.dirty[1].hi == 32);
    EXPECT(edonio_dirty_add(&s, 24, 28) == 0); /* inside the last: nothing changes */
    EXPECT(s.ndirty == 2 && s.dirty[1].lo == 24 && s.dirty[1].hi == 32);
    EXPECT(edonio_dirty_add(&s, 30, 40) == 0); /* overlaps its end: it grows */
    EXPECT(s.ndirty == 2 && s.dirty[1].lo == 24 && s.dirty[1].hi == 40);
    EXPECT(edonio_dirty_add(&s, 12, 26) == 0); /* back over both: they join */
    EXPECT(s.ndirty == 1 && s.dirty[0].lo == 0 && s.dirty[0].hi == 40);
    for (uint32_t i = 1; i < EDONIO_MAX_EXTENTS; i++)
        EXPECT(edonio_dirty_add(&s, 40 + 10 * i, 45 + 10 * i) == 0);
    EXPECT(s.ndirty == EDONIO_MAX_EXTENTS);
    uint32_t end = 45 + 10 * (EDONIO_MAX_EXTENTS - 1);
    EXPECT(edonio_dirty_add(&s, end + 1, end + 2) == -1); /* full, and touches none */
    EXPECT(edonio_dirty_add(&s, end, end + 2) == 0);      /* touches the last: still fits */
    EXPECT(s.ndirty == EDONIO_MAX_EXTENTS && s.dirty[EDONIO_MAX_EXTENTS - 1].hi == end + 2);
}

static void test_dirty_overflow(void)
{
    struct edonio_slot s = {.block = 0};
    const uint32_t top = EDONIO_MAX_EXTENTS * 100;

    for (uint32_t i = 0; i < EDONIO_MAX_EXTENTS; i++)
        EXPECT(edonio_dirty_add(&s, i * 100, i * 100 + 10) == 0);
    EXPECT(edonio_dirty_add(&s, top + 5000, top + 5010) == -1); /* full: no more */
    EXPECT(s.ndirty == EDONIO_MAX_EXTENTS);
    EXPECT(edonio_dirty_add(&s, 105, 150) == 0); /* merging into one still fits */
    EXPECT(s.ndirty == EDONIO_MAX_EXTENTS && s.dirty[1].hi == 150);
    edonio_mark_valid(&s); /* fetched: the extents stay exact, fetched bytes are never dirty */
    EXPECT(s.ndirty == EDONIO_MAX_EXTENTS && s.dirty[0].lo == 0 && s.dirty[0].hi == 10);
    EXPECT(edonio_dirty_add(&s, top + 5000, top + 5010) == -1); /* still full */
    edonio_dirty_clear(&s); /* written back */
    EXPECT(s.ndirty == 0 && (s.flags & EDONIO_SLOT_VALID));
    EXPECT(edonio_dirty_add(&s, top + 5000, top + 5010) == 0);
}

/* A block written in more pieces than the list holds: its map, exact to the byte. */
static void test_dirty_map(void)
{
    struct edonio_segment *seg = new_segment(2, 4096);
    int32_t slot = edonio_insert(seg, 7);
    struct edonio_slot *s = edonio_slot_at(seg, slot);
    struct edonio_extent run;
    uint32_t n = 0;

    for (uint32_t i = 0; i < EDONIO_MAX_EXTENTS; i++) /* every other 8 bytes from 16 */
        EXPECT(edonio_dirty_add(s, 16 + 16 * i, 24 + 16 * i) == 0);
    EXPECT(edonio_dirty_add(s, 3000, 3001) == -1);
    edonio_dirty_map(s, edonio_slot_map(seg, slot), 4096);
    EXPECT(edonio_dirty_mapped(s) && s->ndirty == EDONIO_MAX_EXTENTS);
    EXPECT(edonio_dirty_add(s, 3000, 3001) == 0 && s->ndirty == EDONIO_MAX_EXTENTS + 1);
    EXPECT(edonio_dirty_add(s, 24, 32) == 0 && s->ndirty == EDONIO_MAX_EXTENTS); /* joins two */
    EXPECT(edonio_dirty_add(s, 20, 40) == 0 && s->ndirty == EDONIO_MAX_EXTENTS); /* inside one */
    EXPECT(edonio_dirty_add(s, 40, 48) == 0 && s->ndirty == EDONIO_MAX_EXTENTS - 1);
    EXPECT(edonio_dirty_span(s).lo == 16 && edonio_dirty_span(s).hi == 3001);
    EXPECT(edonio_readable(s, 16, 56) && !edonio_readable(s, 16, 57));
    EXPECT(edonio_readable(s, 3000, 3001) && !edonio_readable(s, 2999, 3001));
    for (uint32_t at = 0; edonio_dirty_run(s, at, &run); at = run.hi) {
        EXPECT(run.lo < run.hi && (n > 0 || (run.lo == 16 && run.hi == 56)));
        n++;
    }
    EXPECT(n == s->ndirty);
    EXPECT(edonio_dirty_run(s, 20, &run) && run.lo == 20 && run.hi == 56); /* from inside one */
    edonio_truncate_slot(seg, slot, 2048); /* bits at 2048 and after are cleared */
    EXPECT(edonio_dirty_mapped(s) && edonio_dirty_span(s).hi == 2040 &&
           !edonio_readable(s, 3000, 3001));
    EXPECT(edonio_dirty_add(s, 0, 4096) == 0); /* written whole: one extent, the map given back */
    EXPECT(!edonio_dirty_mapped(s) && s->ndirty == 1 && s->dirty[0].lo == 0 &&
           s->dirty[0].hi == 4096);
    for (uint32_t w = 0; w < 4096 / 64; w++)
        EXPECT(edonio_slot_map(seg, slot)[w] == 0);
    /* Given back zeroed when clean, and when the slot is freed. */
    edonio_dirty_clear(s);
    for (uint32_t i = 0; i <= EDONIO_MAX_EXTENTS; i++)
        if (edonio_dirty_add(s, 16 * i, 16 * i + 1) != 0)
            edonio_dirty_map(s, edonio_slot_map(seg, slot), 4096),
                edonio_dirty_add(s, 16 * i, 16 * i + 1);
    EXPECT(edonio_dirty_mapped(s) && s->ndirty == EDONIO_MAX_EXTENTS + 1);
    edonio_remove(seg, slot);
    for (uint32_t w = 0; w < 4096 / 64; w++)
        EXPECT(edonio_slot_map(seg, slot)[w] == 0);
    slot = edonio_insert(seg, 8);
    EXPECT(!edonio_dirty_mapped(edonio_slot_at(seg, slot)));
    free(seg);
}

static void test_lazy(void)
{
    int32_t nslots = 1000;
    uint32_t bs = 4096;
    size_t size = edonio_segment_size(nslots, bs);
    unsigned char *mem = calloc(1, size);
    struct edonio_segment *seg = edonio_segment_init(mem, nslots, bs, 7);

    /* Laying out writes the header only: the slot table, index and data are untouched. */
    for (size_t i = seg->slots_offset; i < size; i++)
        if (mem[i] != 0) {
            EXPECT(mem[i] == 0);
            break;
        }
    EXPECT(seg->magic == EDONIO_SEGMENT_MAGIC && seg->cookie == 7 && seg->nhigh == 0);
    /* Slots are taken from the start: three blocks touch three slots' data, no more. */
    for (int i = 0; i < 3; i++)
        memset(edonio_slot_data(seg, edonio_insert(seg, 100 + i)), 0xab, bs);
    EXPECT(seg->nhigh == 3);
    for (size_t i = seg->data_offset + 3 * (size_t)bs; i < size; i++)
        if (mem[i] != 0) {
            EXPECT(mem[i] == 0);
            break;
        }
    /* A freed slot is taken again before a new one. */
    edonio_remove(seg, edonio_lookup(seg, 101));
    EXPECT(edonio_insert(seg, 200) == 1 && seg->nhigh == 3);
    /* The limit: no more blocks at once than it says. */
    seg->limit = 4;
    EXPECT(edonio_insert(seg, 300) != EDONIO_NO_SLOT);
    EXPECT(edonio_insert(seg, 301) == EDONIO_NO_SLOT);
    /* Cleared: nothing found, and the index is empty again. */
    edonio_segment_clear(seg);
    EXPECT(seg->nused == 0 && edonio_lookup(seg, 100) == EDONIO_NO_SLOT &&
           edonio_lookup(seg, 300) == EDONIO_NO_SLOT && edonio_victim(seg) == EDONIO_NO_SLOT);
    EXPECT(edonio_insert(seg, 100) == 0);
    free(mem);
}

static void test_victims(void)
{
    struct edonio_segment *seg = new_segment(4, 4096);
    int32_t s[4];

    for (int i = 0; i < 4; i++)
        s[i] = edonio_insert(seg, owned(i));
    /* From the least recently used towards the most: 0, 1, 2, 3. */
    int32_t v = edonio_victim(seg);
    for (int i = 0; i < 4; i++, v = edonio_newer(seg, v))
        EXPECT(v == s[i]);
    EXPECT(v == EDONIO_NO_SLOT);
    free(seg);
}

static void test_readable(void)
{
    struct edonio_slot s = {.block = 0};

    edonio_dirty_add(&s, 100, 200);
    EXPECT(edonio_readable(&s, 100, 200));
    EXPECT(edonio_readable(&s, 120, 130));
    EXPECT(!edonio_readable(&s, 90, 130));
    EXPECT(!edonio_readable(&s, 0, 10));
    edonio_mark_valid(&s);
    EXPECT(edonio_readable(&s, 0, 4096));
}

static void test_truncate(void)
{
    struct edonio_segment *seg = new_segment(2, 4096);
    int32_t slot = edonio_insert(seg, 7);
    struct edonio_slot *s = edonio_slot_at(seg, slot);

    edonio_dirty_add(s, 0, 100);
    edonio_dirty_add(s, 1000, 3000);
    edonio_mark_valid(s);
    edonio_truncate_slot(seg, slot, 2000);
    EXPECT(s->ndirty == 2 && s->dirty[0].hi == 100 && s->dirty[1].hi == 2000);
    EXPECT(!(s->flags & EDONIO_SLOT_VALID)); /* unwritten bytes come from the truncated file */
    EXPECT(edonio_readable(s, 1000, 2000) && !edonio_readable(s, 1999, 2001));
    edonio_truncate_slot(seg, slot, 50);
    EXPECT(s->ndirty == 1 && s->dirty[0].lo == 0 && s->dirty[0].hi == 50);
    edonio_truncate_slot(seg, slot, 0);
    EXPECT(edonio_lookup(seg, 7) == EDONIO_NO_SLOT && seg->nused == 0);
    free(seg);
}

static void test_ownership(void)
{
    /* Wrap mapping, and each rank's first block from any starting block. */
    for (int nprocs = 1; nprocs <= 5; nprocs++)
        for (int64_t from = 0; from < 12; from++)
            for (int rank = 0; rank < nprocs; rank++) {
                int64_t b = edonio_first_owned(from, rank, nprocs);
                EXPECT(b >= from && b < from + nprocs && edonio_owner(b, nprocs) == rank);
            }
    EXPECT(edonio_owner(7, 3) == 1 && edonio_owner(0, 4) == 0);
    /* Blocks past 4 GiB with 64-bit offsets. */
    EXPECT(edonio_owner((int64_t)5 << 30 >> 16, 3) == (int)((((int64_t)5 << 30) >> 16) % 3));
}

static void test_pieces(void)
{
    struct edonio_piece p = edonio_piece_at(100, 50, 4096);
    EXPECT(p.block == 0 && p.lo == 100 && p.hi == 150);
    p = edonio_piece_at(4000, 200, 4096); /* crosses a boundary: stops at it */
    EXPECT(p.block == 0 && p.lo == 4000 && p.hi == 4096);
    p = edonio_piece_at(4096, 4096, 4096); /* exactly one whole block */
    EXPECT(p.block == 1 && p.lo == 0 && p.hi == 4096);
    int64_t big = ((int64_t)5 << 30) + 17; /* past 5 GiB */
    p = edonio_piece_at(big, 10, 65536);
    EXPECT(p.block == big / 65536 && p.lo == 17 && p.hi == 27);
    /* A long request: pieces tile it exactly. */
    int64_t pos = 1000, left = 3 * 4096 + 5, covered = 0;
    while (left > 0) {
        p = edonio_piece_at(pos, left, 4096);
        EXPECT(p.block * 4096 + p.lo == pos && p.hi > p.lo && p.hi <= 4096);
        covered += p.hi - p.lo;
        pos += p.hi - p.lo;
        left -= p.hi - p.lo;
    }
    EXPECT(covered == 3 * 4096 + 5);
}

int main(void)
{
    run("lookup", test_lookup);
    run("lru", test_lru);
    run("remove-all", test_remove_all);
    run("dirty-merge", test_dirty_merge);
    run("dirty-in-order", test_dirty_in_order);
    run("dirty-overflow", test_dirty_overflow);
    run("dirty-map", test_dirty_map);
    run("lazy", test_lazy);
    run("victims", test_victims);
    run("readable", test_readable);
    run("truncate", test_truncate);
    run("ownership", test_ownership);
    run("pieces", test_pieces);
    return finish();
}
