/*
 * edonio: one owner's block cache, as a self-contained structure in one piece of memory.
 *
 * Block b of a file is cached only by its owner, rank b mod P. Each owner's cache is a segment:
 * a header, the slot table, a hash index and the slots' data, addressed by offsets and indices
 * only (no pointers), so that it can live in a shared-memory window and be worked on directly by
 * every process of the node, or be read and written with RMA from other nodes.
 *
 * A slot holds one block. Its bytes are valid either all (VALID: fetched from the file or entirely
 * written) or only in its dirty extents (written since the slot was taken, never fetched). Dirty
 * extents are kept sorted and disjoint, at most EDONIO_MAX_EXTENTS of them; when a write would need
 * more, the caller fetches the block, which makes it VALID, and the extents collapse into one.
 *
 * Nothing here locks, does I/O, talks to MPI or touches a slot's data: the caller holds the
 * segment's lock, moves the data and does the file-system operations (ad_edonio_segments.c,
 * ad_edonio_cache_io.c). So the same code works on a segment in shared memory and on a local copy
 * of a remote segment's metadata, and is testable on its own (test/unit/t_cache.c).
 */
#ifndef AD_EDONIO_CACHE_H_INCLUDED
#define AD_EDONIO_CACHE_H_INCLUDED

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define EDONIO_MAX_EXTENTS 8
#define EDONIO_NO_SLOT     (-1)

enum edonio_size_kind {
    EDONIO_SIZE_FILE = 0, /* the file's size: every byte written, cached or not */
    EDONIO_SIZE_DISK = 1, /* how far the file system's copy reaches: nothing to read past it */
};

enum edonio_slot_flags {
    EDONIO_SLOT_VALID = 1u << 0, /* every byte of the block is known (fetched or written) */
};

struct edonio_extent {
    uint32_t lo, hi; /* [lo, hi) within the block */
};

struct edonio_slot {
    int64_t block;     /* block number, or -1 when the slot is free */
    int32_t lru_prev;  /* more recently used neighbour, or EDONIO_NO_SLOT */
    int32_t lru_next;  /* less recently used neighbour, or EDONIO_NO_SLOT */
    int32_t hash_next; /* next slot in the same hash bucket, or EDONIO_NO_SLOT */
    uint32_t flags;    /* enum edonio_slot_flags */
    uint32_t ndirty;   /* dirty extents in use */
    uint32_t pad;
    struct edonio_extent dirty[EDONIO_MAX_EXTENTS];
};

struct edonio_segment {
    atomic_int lock;          /* taken by whoever works on this segment (ad_edonio_segments.c) */
    _Atomic int64_t sizes[2]; /* in rank 0's segment, on one node: the file's size, and how far
                                * the file on disk reaches (EDONIO_SIZE_*) */
    int32_t nslots;           /* slots in this segment */
    int32_t nbuckets;         /* hash buckets, a power of two */
    int32_t lru_head;         /* most recently used slot, or EDONIO_NO_SLOT */
    int32_t lru_tail;         /* least recently used slot, or EDONIO_NO_SLOT */
    int32_t free_head;        /* a free slot (chained through lru_next), or EDONIO_NO_SLOT */
    int32_t nused;            /* slots holding a block */
    uint32_t block_size;      /* bytes per block, a power of two */
    uint64_t slots_offset;    /* from the segment's start */
    uint64_t buckets_offset;
    uint64_t data_offset; /* slot i's data at data_offset + i * block_size; before it: metadata */
};

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

/* Bytes a segment of nslots blocks of block_size bytes needs. */
size_t edonio_segment_size(int32_t nslots, uint32_t block_size);
/* Lay out an empty segment in mem (edonio_segment_size bytes, 8-byte aligned). */
struct edonio_segment *edonio_segment_init(void *mem, int32_t nslots, uint32_t block_size);

struct edonio_slot *edonio_slot_at(struct edonio_segment *seg, int32_t slot);
unsigned char *edonio_slot_data(struct edonio_segment *seg, int32_t slot);

/* The slot holding block, or EDONIO_NO_SLOT. */
int32_t edonio_lookup(struct edonio_segment *seg, int64_t block);
/* Make slot the most recently used. */
void edonio_touch(struct edonio_segment *seg, int32_t slot);
/*
 * A free slot for block, most recently used, with no valid byte; EDONIO_NO_SLOT when the cache is
 * full. Its data is left as it was: no byte of it is readable until written or fetched.
 */
int32_t edonio_insert(struct edonio_segment *seg, int64_t block);
/* The slot to evict when the cache is full: the least recently used. */
int32_t edonio_victim(const struct edonio_segment *seg);
/* Forget slot's block and free the slot (its dirty bytes must be written back first). */
void edonio_remove(struct edonio_segment *seg, int32_t slot);

/*
 * Record that [lo, hi) of the slot's block was written. Returns 0, or -1 when the extent does not
 * fit (too many extents in a block that is not VALID): fetch the block, mark it VALID with
 * edonio_mark_valid, and call again.
 */
int edonio_dirty_add(struct edonio_slot *s, uint32_t lo, uint32_t hi);
/* The block was fetched: every byte is known; dirty extents collapse into their hull. */
void edonio_mark_valid(struct edonio_slot *s);
/* Clean after write-back. */
void edonio_dirty_clear(struct edonio_slot *s);
/* Is [lo, hi) entirely readable from the slot (VALID, or inside one dirty extent)? */
int edonio_readable(const struct edonio_slot *s, uint32_t lo, uint32_t hi);
/*
 * The file shrank to end inside this block at byte 'keep' (0 drops the block): dirty extents are
 * cut there, and the block is no longer VALID, so bytes before 'keep' that were not written are
 * read again from the (truncated) file and bytes after it read as zeros.
 */
void edonio_truncate_slot(struct edonio_segment *seg, int32_t slot, uint32_t keep);

#endif /* AD_EDONIO_CACHE_H_INCLUDED */
