/*
 * edonio: one segment of the block cache, as a self-contained structure in one piece of memory.
 *
 * Block b of a file is owned by rank b mod P. Every process has two segments: its own (the blocks
 * it owns) and a remote one (copies of, and writes to, blocks owned on other nodes; see
 * ad_edonio_cache.h). A segment is a header, the slot table, a hash index and the slots' data,
 * addressed by offsets and indices only (no pointers), so that it can live in memory that the
 * processes of a node map at different addresses, and be worked on by any of them.
 *
 * Memory follows data: the segment is laid out over zeroed memory, and only its header is written
 * at that point. Zero is an empty hash bucket, slots are taken from a high-water mark before the
 * ones freed, so a page of the slot table, the index or the data is first touched when a block
 * needs it.
 *
 * A slot holds one block. Its bytes are readable when the block is VALID (fetched from the file)
 * or inside its dirty extents (written since the slot was taken). Dirty extents are exact, sorted
 * and disjoint: a write-back writes exactly the bytes that were written, never bytes fetched from
 * the file, so it cannot overwrite what another process wrote to the file directly meanwhile
 * (doc/design.md, "What may reach the file, and when"). They are kept as a list of at most
 * EDONIO_MAX_EXTENTS, or, for a block written in more pieces than that (fine-grained strided
 * writes), as a bitmap of the block's bytes, one bit a byte, in the segment's map area: the
 * slot's *map*, taken when the list overflows (edonio_dirty_map) and given back, zeroed, when
 * the block is clean again or written whole. Either way the extents are walked with
 * edonio_dirty_run, and dirty[0] .. the last one's hi with edonio_dirty_span.
 *
 * Nothing here locks, does I/O, talks to MPI or touches a slot's data (it only says where the data
 * is): the caller holds the segment's lock (ad_edonio_node.c), allocates the slots' memory, moves
 * the data and does the file-system operations (ad_edonio_cache_io.c). It is tested on its own
 * (test/unit/t_segment.c).
 */
#ifndef AD_EDONIO_SEGMENT_H_INCLUDED
#define AD_EDONIO_SEGMENT_H_INCLUDED

#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define EDONIO_MAX_EXTENTS   128 /* about 1 KiB of a slot's header; small interleaved records need many */
#define EDONIO_NO_SLOT       (-1)
#define EDONIO_SEGMENT_MAGIC 0x31306f696e6f6465ULL /* "edonio01" */

enum edonio_slot_flags {
    EDONIO_SLOT_VALID = 1u << 0, /* every byte of the block was fetched from the file */
};

struct edonio_extent {
    uint32_t lo, hi; /* [lo, hi) within the block */
};

struct edonio_slot {
    int64_t block;     /* block number, or -1 when the slot is free */
    int32_t lru_prev;  /* more recently used neighbour, or EDONIO_NO_SLOT */
    int32_t lru_next;  /* less recently used neighbour (free list: next free), or EDONIO_NO_SLOT */
    int32_t hash_next; /* next slot in the same hash bucket, or EDONIO_NO_SLOT */
    uint32_t flags;    /* enum edonio_slot_flags */
    uint32_t ndirty;   /* dirty extents in use */
    uint32_t dirty_since; /* when it was first written since it was last clean: seconds of
                           * CLOCK_MONOTONIC (edonio_now), for the keeper's age bound */
    uint32_t copy_lo;  /* while busy: the bytes writes are copying in that no write had made */
    uint32_t copy_hi;  /* dirty before [copy_lo, copy_hi) (edonio_copy_begin); the keeper does
                        * not write them if the process died during the copy */
    atomic_uint busy;  /* processes copying its bytes in or out without the segment's lock */
    atomic_uint filling; /* not 0 while a process reads the block from the file into it without
                          * the segment's lock (a read-only cache's fill, ADIOI_EDONIO_Cache_fill):
                          * its bytes are there once it is 0 again (acquire); 2: a waiter sleeps
                          * on it (edonio_wait_filled) */
    uint32_t map_bits; /* with a map: the block's size (bits of the map) */
    int64_t map;       /* 0: the dirty extents are dirty[0 .. ndirty). Else the dirty bytes are
                        * the bits of a map this many bytes from the slot (an offset: processes
                        * map the segment at different addresses); ndirty counts their runs and
                        * dirty[0] is their span */
    struct edonio_extent dirty[EDONIO_MAX_EXTENTS];
};

struct edonio_segment {
    uint64_t magic;           /* EDONIO_SEGMENT_MAGIC once laid out */
    uint64_t cookie;          /* who laid it out: checked by the processes that map it */
    atomic_int lock;          /* the pid of whoever works on this segment, 0: nobody
                               * (ad_edonio_seglock.c) */
    atomic_int ready;         /* 1 once laid out (release): others may use it */
    /* in the node's first process's own segment: the file's size as this node knows it
     * (ad_edonio_node.c). Every write reads it, holding no lock: on a cache line of its own, away
     * from the lock that the node's writers take in turn */
    alignas(64) _Atomic int64_t size;
    /* flushes this process has entered on one node (Node_all_in_flush) */
    alignas(64) _Atomic uint64_t syncs;
    _Atomic int32_t dirty_expire; /* romio_edonio_dirty_expire of the cache it serves, in seconds
                                   * (0: never): a block dirty this long goes to the file, written
                                   * back by the process's keeper (keeper/edonio_keeper.c) */
    _Atomic int32_t locked_writes; /* its cache's write-backs take byte-range locks (write_back
                                    * span): the keeper's writes take them too */
    _Atomic uint64_t cache_id;    /* the cache it serves now, as the keeper was told (0: none): a
                                   * keeper writes a slot to a file only for that cache, so memory
                                   * kept from a closed cache never reaches the old file */
    int32_t nslots;           /* slots laid out */
    int32_t limit;            /* slots that may hold a block at once (<= nslots) */
    int32_t planned;          /* > limit: what limit becomes once the node's memory limit is
                               * known, or less if it allows less (ADIOI_EDONIO_Node_grow) */
    int32_t share;            /* with planned: the segment's share, 1/share, of that memory */
    int32_t nbuckets;         /* hash buckets, a power of two */
    int32_t nused;            /* slots holding a block */
    int32_t nhigh;            /* slots ever taken: [0, nhigh) have been initialised */
    int32_t lru_head;         /* most recently used slot, or EDONIO_NO_SLOT */
    int32_t lru_tail;         /* least recently used slot, or EDONIO_NO_SLOT */
    int32_t free_head;        /* a freed slot (chained through lru_next), or EDONIO_NO_SLOT */
    uint32_t block_size;      /* bytes per block, a power of two */
    int32_t nbacked;          /* slots [0, nbacked) have their memory allocated: their bytes may
                               * be stored through the mapping (ADIOI_EDONIO_Node_back) */
    uint64_t slots_offset;    /* from the segment's start */
    uint64_t buckets_offset;  /* int32 per bucket: slot + 1, 0 when empty */
    uint64_t data_offset;     /* slot i's data at data_offset + i * block_size */
    uint64_t maps_offset;     /* slot i's map at maps_offset + i * block_size / 8: touched (and
                               * backed, ADIOI_EDONIO_Node_back_map) only when a slot needs it */
};

/* Seconds of CLOCK_MONOTONIC, the clock of every process of the machine (slots' dirty_since). */
uint32_t edonio_now(void);

/* The ownership map: block b of the file belongs to rank b mod nprocs (EDONIO's wrap mapping). */
static inline int edonio_owner(int64_t block, int nprocs)
{
    return (int)(block % nprocs);
}

/* The first block this rank owns at or after block 'from'. */
static inline int64_t edonio_first_owned(int64_t from, int rank, int nprocs)
{
    return from + ((rank - edonio_owner(from, nprocs)) % nprocs + nprocs) % nprocs;
}

/* A request's piece at byte 'pos' of the file, 'left' bytes to go: its block and [lo, hi). */
struct edonio_piece {
    int64_t block;
    uint32_t lo, hi;
};
struct edonio_piece edonio_piece_at(int64_t pos, int64_t left, uint32_t block_size);

/* Bytes a segment of nslots blocks of block_size bytes needs at most, and before its data. */
size_t edonio_segment_size(int32_t nslots, uint32_t block_size);
size_t edonio_segment_meta_size(int32_t nslots);
/*
 * Lay out an empty segment over mem (edonio_segment_size bytes, 8-byte aligned, ZEROED: only the
 * header is written). limit starts at nslots. 'ready' stays 0: the caller publishes it.
 */
struct edonio_segment *edonio_segment_init(void *mem, int32_t nslots, uint32_t block_size,
                                           uint64_t cookie);
/* Forget every block (their dirty bytes must have been dealt with). Only the hash buckets of the
 * blocks it held are written, so no page of the index is touched that was not before; the slots'
 * memory stays allocated (nbacked). */
void edonio_segment_clear(struct edonio_segment *seg);

struct edonio_slot *edonio_slot_at(struct edonio_segment *seg, int32_t slot);
unsigned char *edonio_slot_data(struct edonio_segment *seg, int32_t slot);
/* Where slot's map lies (block_size / 8 bytes, zero while unused), and its offset in the segment. */
uint64_t *edonio_slot_map(struct edonio_segment *seg, int32_t slot);
uint64_t edonio_slot_map_offset(const struct edonio_segment *seg, int32_t slot);

/* The slot holding block, or EDONIO_NO_SLOT. */
int32_t edonio_lookup(struct edonio_segment *seg, int64_t block);
/*
 * Without the segment's lock: 0 when block is surely not in seg (its hash bucket is empty), 1
 * when it may be. The bucket heads are read and written atomically for this. A block inserted
 * meanwhile by another process is one it is writing or reading now: a concurrent access.
 */
int edonio_may_hold(const struct edonio_segment *seg, int64_t block);
/* Make slot the most recently used. */
void edonio_touch(struct edonio_segment *seg, int32_t slot);
/*
 * A free slot for block, most recently used, with no readable byte; EDONIO_NO_SLOT when 'limit'
 * slots are in use. Its data is left as it was: no byte of it is readable until written or fetched.
 */
int32_t edonio_insert(struct edonio_segment *seg, int64_t block);
/* The least recently used slot (EDONIO_NO_SLOT when none), and the next older than 'slot'. */
int32_t edonio_victim(const struct edonio_segment *seg);
int32_t edonio_newer(struct edonio_segment *seg, int32_t slot);
/* Forget slot's block and free the slot (its dirty bytes must have been dealt with). */
void edonio_remove(struct edonio_segment *seg, int32_t slot);
/* Wait until nobody copies a held slot's bytes outside the lock. */
void edonio_wait_idle(struct edonio_slot *s);
/* Is another process reading the slot's block from the file into it (its bytes not there yet)? */
static inline int edonio_filling(struct edonio_slot *s)
{
    return atomic_load_explicit(&s->filling, memory_order_acquire) != 0;
}
/* Wait, without the segment's lock, until the slot is no longer being filled. */
void edonio_wait_filled(struct edonio_slot *s);
/* The filler: the slot's bytes are there (release); wakes whoever waits for them. */
void edonio_fill_done(struct edonio_slot *s);
/* edonio_remove, once the slot is idle. */
void edonio_drop(struct edonio_segment *seg, int32_t slot);
/* edonio_segment_clear, once every slot is idle. */
void edonio_clear(struct edonio_segment *seg);

/*
 * Record that [lo, hi) of the slot's block was written. Returns 0, or -1 when the list of extents
 * is full and [lo, hi) touches none of them: give the slot its map (edonio_dirty_map), or write
 * the dirty extents back and clear them, and call again. With a map it never fails; a block whose
 * every byte is then written goes back to one extent, its map given back.
 */
int edonio_dirty_add(struct edonio_slot *s, uint32_t lo, uint32_t hi);
/*
 * Keep the slot's dirty extents in 'map' from now on: block_size / 8 bytes, zeroed, in the same
 * mapping as the slot (edonio_slot_map), whose memory exists.
 */
void edonio_dirty_map(struct edonio_slot *s, uint64_t *map, uint32_t block_size);
/* Are the slot's dirty extents in its map? */
static inline int edonio_dirty_mapped(const struct edonio_slot *s)
{
    return s->map != 0;
}
/*
 * The first dirty extent at or after byte 'from' of the block (extents are maximal runs: the next
 * one starts after this one's hi). 1 and *run, or 0 when none. Walk them all with
 *   for (uint32_t at = 0; edonio_dirty_run(s, at, &run); at = run.hi)
 */
int edonio_dirty_run(const struct edonio_slot *s, uint32_t from, struct edonio_extent *run);
/* The first dirty byte to the end of the last (ndirty > 0). */
struct edonio_extent edonio_dirty_span(const struct edonio_slot *s);
/*
 * Under the lock, before a copy into or out of a held slot (writing: [lo, hi), about to be dirty):
 * the range of new bytes copies are making, kept while any copy is under way, forgotten when the
 * slot is idle. Bytes already dirty are not in it: a copy over them leaves written bytes either way.
 */
void edonio_copy_begin(struct edonio_slot *s, uint32_t lo, uint32_t hi, int writing);
/*
 * Under the lock, a caller that holds the slot busy while it copies pieces in one after another
 * (ad_edonio_cache_io.c, write_pieces) moves on to the next, [lo, hi), before recording it dirty:
 * where no other copy is under way (busy 1: its own), the range is this piece's alone, as the
 * pieces before it are in.
 */
void edonio_copy_next(struct edonio_slot *s, uint32_t lo, uint32_t hi);
/* The block was fetched: every byte not dirty is now the file's. */
void edonio_mark_valid(struct edonio_slot *s);
/* The block's bytes outside the dirty extents are no longer readable (the file has newer ones). */
void edonio_mark_stale(struct edonio_slot *s);
/* Clean after write-back (the fetched bytes, if any, stay readable). */
void edonio_dirty_clear(struct edonio_slot *s);
/* Is [lo, hi) entirely readable from the slot (VALID, or every byte dirty)? */
int edonio_readable(const struct edonio_slot *s, uint32_t lo, uint32_t hi);
/*
 * The file shrank to end inside this block at byte 'keep' (0 drops the block): dirty extents are
 * cut there, and the block is no longer VALID, so bytes before 'keep' that were not written are
 * read again from the (truncated) file and bytes after it read as zeros.
 */
void edonio_truncate_slot(struct edonio_segment *seg, int32_t slot, uint32_t keep);

#endif /* AD_EDONIO_SEGMENT_H_INCLUDED */
