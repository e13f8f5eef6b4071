/*
 * edonio: the cache of one file, shared by the handles of that file on this process.
 *
 * The file is a sequence of blocks; block b belongs to rank b mod P of the processes that opened
 * the file (the cache's group), and only its owner caches it: one dirty copy of every byte, so no
 * coherence protocol. Each process has two segments (ad_edonio_segment.h) in memory of its own
 * (a memfd) that the processes of its node map:
 *
 *   own     the blocks it owns;
 *   remote  blocks owned on other nodes, for the processes of this node: copies read from the
 *           file, and the bytes written to them, kept until the next collective point.
 *
 * A piece of block b goes to one segment on this node (ADIOI_EDONIO_Node_hold): the owner's own
 * segment when the owner is on this node, else one of this node's remote segments. Both are
 * worked on the same way, in shared memory, by whoever needs them; no process ever waits for
 * another to answer, so a process that computes outside MPI delays nobody. The network is used
 * only at collective calls, where every process is inside MPI anyway: there the remote segments'
 * dirty bytes are delivered to their owners (ad_edonio_net.c). Why MPI allows each deferral:
 * doc/design.md.
 *
 * Files:
 *   ad_edonio_cache.c     the object: create (collective), share, rebuild, release
 *   ad_edonio_node.c      the shared-memory way: memory, the node's processes, locks, the size
 *   ad_edonio_net.c       the network way: delivery of remote segments to the owners
 *   ad_edonio_cache_io.c  reads and writes through the segments, write-back, trim, preload
 */
#ifndef AD_EDONIO_CACHE_H_INCLUDED
#define AD_EDONIO_CACHE_H_INCLUDED

#include <sys/types.h>

#include "ad_edonio.h"
#include "ad_edonio_segment.h"

/* What a process publishes at open, so that the processes of its node can map its segments. */
struct edonio_peer {
    uint64_t key;    /* its node: processes with equal keys share memory */
    uint64_t cookie; /* the identity of its segments */
    uint64_t bytes;  /* how much memory it laid out */
    int32_t pid;     /* its memory is its descriptor memfd (ad_edonio_node.c, peer_memfd) */
    int32_t memfd;
    int32_t err;     /* errno of its part of the open, 0 when it worked */
    int32_t pad;
};

/* The processes of this node that this process reaches, and their segments (ad_edonio_node.c). */
struct edonio_node {
    int n;                          /* processes mapped, this one included */
    int me;                         /* this process's index among them */
    int *rank;                      /* [n] their ranks in the cache's group, ascending */
    int *index;                     /* [nprocs] rank -> index, or -1: reached over the network */
    struct edonio_segment **own;    /* [n] their own segments */
    struct edonio_segment **remote; /* [n] their remote segments */
    void **map;                     /* [n] their memory, mapped here */
    size_t *bytes;                  /* [n] its size */
    int *fd;                        /* [n] its memfd, opened here: the blocks' bytes */
    int32_t *pid;                   /* [n] their process ids (the keeper waits for them) */
    _Atomic int64_t *size;          /* the file's size as this node knows it */
    int memfd;                      /* this process's memory */
    uint64_t key, cookie;
};

/* The cache of one file (see above). */
struct edonio_cache {
    struct edonio_hints hints; /* its shape and behaviour: rank 0's at open */
    struct edonio_hints asked; /* rank 0's as asked, before the node's memory bounded them */
    uint64_t id;               /* the same on every process: rank 0's cookie at open */
    long long reused;          /* bytes of memory it found allocated (kept from a closed cache) */
    int fd_sys;                /* the descriptor its file-system operations use */
    char *filename;            /* for messages */
    dev_t dev;                 /* the file's identity, for handles opened later */
    ino_t ino;
    int writable;              /* opened for writing: handles that write may share it */
    MPI_Group group;           /* the processes that opened the file */
    int rank, nprocs;          /* this process in the group */
    int nodes_apart;           /* some processes of the group are on other nodes (the same on
                                * every process: remote segments are delivered at collective
                                * points) */
    int nodes_shared;          /* some node has several of its processes (the same on every
                                * process: a delivery waits until all of them are in the call) */
    int bypass;                /* MPI atomic mode across nodes: nothing is cached */
    int all_in_call;           /* a collective flush that delivers: every process is in the call,
                                * so none writes this file's bytes directly; write-backs may write
                                * a block's span (ad_edonio_cache_io.c, write_span) */
    int atomic_handles;        /* this process's handles of it in MPI atomic mode: ROMIO holds
                                * byte-range locks then, so write-backs take none of their own */
    int no_locks;              /* the file system refused a byte-range lock: write-backs go
                                * unlocked, and never as spans */
    int took_peer_slot;        /* this process put a block in a node peer's segment since it
                                * last answered ADIOI_EDONIO_Cache_may_hold, or entered a
                                * collective flush */
    int wrote_peer_remote;     /* this process wrote into a node peer's remote segment since
                                * it last answered ADIOI_EDONIO_Cache_may_deliver, or entered a
                                * collective flush */
    int wrote;                 /* this process wrote through the cache since the last collective
                                * flush that worked: where the processes span nodes, an
                                * MPI_Barrier must put the writes where other nodes read them
                                * (ad_edonio_visible.c) */
    ADIO_Offset fits;          /* the file system can hold a file this long (checked) */
    struct edonio_node node;
    unsigned char *fetch_buf;  /* one block: bytes on their way between the file and a slot */
    int refs;                  /* handles that point here; fd_sys < 0 once closed */
    struct edonio_cache *next; /* this process's caches (ad_edonio_cache.c) */
};

/* ---------------------------------------------------------------- the object (ad_edonio_cache.c) */

/*
 * Collective over comm, right after every process opened the file (open_code: how that went here):
 * in one exchange (two when kept memory offered without making any is refused: ad_edonio_cache.c,
 * exchange_again), every process learns how the others' opens went, and the cache of the file is
 * made with rank 0's hints, unless every process found one to share (found, from
 * ADIOI_EDONIO_Cache_find). Returns an MPI error code, the same class on every process (the
 * process that failed returns its own); on error *cache is NULL. *tag: rank 0's tag for this open.
 */
int ADIOI_EDONIO_Cache_open(MPI_Comm comm, int open_code, int fd_sys, const char *filename,
                            int writable, const struct edonio_hints *hints,
                            struct edonio_cache *found, struct edonio_cache **cache,
                            struct edonio_open_tag *tag);
/*
 * A cache of this file that a handle on comm may share: its processes are comm's, or comm is one
 * process; and it was opened for writing (a read-only cache is its handle's alone: nothing
 * refreshes its copies). Local. NULL when none.
 */
struct edonio_cache *ADIOI_EDONIO_Cache_find(int fd_sys, MPI_Comm comm, int *same_group);
/*
 * Its processes close the cache (every dirty byte written back): handles still sharing it go to the
 * file system from now on (ADIOI_EDONIO_Cache_of). With 'keep' (the close succeeded on every
 * process, which all left a collective call first) and romio_edonio_keep_memory, its memory is
 * kept for the next cache of the same processes (ADIOI_EDONIO_Node_keep). Then, or for a handle that shares it, one
 * handle less: the last one frees it.
 */
void ADIOI_EDONIO_Cache_close(struct edonio_cache *c, int keep);
void ADIOI_EDONIO_Cache_release(struct edonio_cache *c);
/* Collective over the cache's processes: the same cache in a new shape (written back first). */
int ADIOI_EDONIO_Cache_rebuild(struct edonio_cache *c, MPI_Comm comm, struct edonio_stats *st,
                               const struct edonio_hints *hints);

/* ---------------------------------------------------------------- the node (ad_edonio_node.c) */

/*
 * Before the open's exchange of records: this process's memory, sized by its own hints (all that
 * can fail is done here). errno or 0.
 */
int ADIOI_EDONIO_Node_prepare(struct edonio_cache *c, struct edonio_peer *me);
/* 64 random bits (getrandom, else the clock and the process id): identities, open tags. */
uint64_t ADIOI_EDONIO_Node_random(void);
/* A 64-bit hash of a text (node keys, the names in open tags). */
uint64_t ADIOI_EDONIO_Node_hash_text(const char *s);
/* v mixed into the hash h (keys made of several values). */
uint64_t ADIOI_EDONIO_Node_mix(uint64_t h, uint64_t v);
/* This process's machine: processes with equal values run on one kernel, PID namespace and user. */
uint64_t ADIOI_EDONIO_Node_machine(void);
/*
 * The processors this process may run on now (its affinity mask: a cpuset or a binding counts; a
 * binding made after an open counts from the next), and in *mask a hash of which they are (0 when
 * unknown). EDONIO_TEST_CPUS, for tests only, stands for the count; where the mask cannot be
 * read, the processors online.
 */
long ADIOI_EDONIO_Node_cpus(uint64_t *mask);
/* The same record without memory (its memfd -1): for a process that offers kept memory. */
void ADIOI_EDONIO_Node_identify(struct edonio_cache *c, struct edonio_peer *me);
/*
 * After it, with the cache's hints (rank 0's): lay out this process's segments in its memory and
 * map the node's other processes. Cannot fail: a process that cannot be mapped is reached over
 * the network.
 */
void ADIOI_EDONIO_Node_attach(struct edonio_cache *c, const struct edonio_peer *all);
void ADIOI_EDONIO_Node_detach(struct edonio_cache *c);
/*
 * Memory kept from a closed cache, for the next cache of the same processes (ad_edonio_node.c).
 * keep: at close, after the close's collective flush or barrier (nobody touches the segments any
 * more), instead of detach: the segments emptied, their memory kept (else detached). kept: before
 * the open's exchange, the kept memory's id when it is of c's processes (it is made ready for
 * use), else 0. adopt: after it, with the cache's hints: c takes the kept memory when this process
 * offered it, every process offered the same and the shape is the same (1; the memory prepared
 * for a new cache is let go); the same answer on every process.
 */
void ADIOI_EDONIO_Node_keep(struct edonio_cache *c);
uint64_t ADIOI_EDONIO_Node_kept(struct edonio_cache *c);
/* Is memory kept, in the shape these hints ask? */
int ADIOI_EDONIO_Node_kept_shape(const struct edonio_hints *h);
int ADIOI_EDONIO_Node_adopt(struct edonio_cache *c, int offered, int offered_by_all);
/* The segment that caches block on this node (not locked: edonio_may_hold only); locked; and
 * unlocked. */
struct edonio_segment *ADIOI_EDONIO_Node_segment(struct edonio_cache *c, int64_t block);
struct edonio_segment *ADIOI_EDONIO_Node_hold(struct edonio_cache *c, int64_t block);
void ADIOI_EDONIO_Node_release(struct edonio_segment *seg);
void ADIOI_EDONIO_Node_lock(struct edonio_segment *seg);
/*
 * This process enters a flush of one node's segments (ad_edonio_flush.c), and waits until every
 * process mapped on the node has entered it too: then no more writes come into the node's
 * segments before the flush's agreement, and any process may write back any of them.
 */
void ADIOI_EDONIO_Node_all_in_flush(struct edonio_node *n);
/*
 * A held segment that reached its first limit (planned > limit): the node's memory limit is read
 * (once per process) and the limit set to planned, or to what that memory allows, which may be
 * less than the first limit (doc/hints.md); planned is then 0.
 */
void ADIOI_EDONIO_Node_grow(struct edonio_segment *seg);
/*
 * Allocate the memory of a slot of a held segment (and of the slots before it, and a little
 * ahead), so that its bytes (edonio_slot_data) may be loaded and stored through the mapping:
 * errno (a node out of memory) or 0. Every slot a block is put in has been backed so.
 */
int ADIOI_EDONIO_Node_back(struct edonio_cache *c, struct edonio_segment *seg, int32_t slot);
/* The same for a slot's map (edonio_slot_map), before a slot of a held segment takes it. */
int ADIOI_EDONIO_Node_back_map(struct edonio_cache *c, struct edonio_segment *seg, int32_t slot);
/* This process's segments. */
struct edonio_segment *ADIOI_EDONIO_Node_own(struct edonio_cache *c);
struct edonio_segment *ADIOI_EDONIO_Node_remote(struct edonio_cache *c);
/* Does this process reach rank's segments in memory? */
int ADIOI_EDONIO_Node_reaches(const struct edonio_cache *c, int rank);
/* The file's size as this node knows it: read, raise to at least end, set. */
ADIO_Offset ADIOI_EDONIO_Size_get(struct edonio_cache *c);
void ADIOI_EDONIO_Size_max(struct edonio_cache *c, ADIO_Offset end);
/*
 * The size, looked up in the file system first when a read reaches past it (end): the file may
 * have grown by others' synced writes, or by another program, as ufs would show.
 */
ADIO_Offset ADIOI_EDONIO_Size_reaching(struct edonio_cache *c, ADIO_Offset end);
void ADIOI_EDONIO_Size_set(struct edonio_cache *c, ADIO_Offset size);
/* Bytes of cache memory this process laid out, and used. */
void ADIOI_EDONIO_Node_memory(struct edonio_cache *c, long long *mapped, long long *touched);

/* ---------------------------------------------------------------- the keeper (ad_edonio_keeper.c) */

/*
 * A writable cache's memory and file, handed to this process's keeper (started at the first, once
 * per process), which writes its dirty bytes to the file if the process dies, and those older than
 * romio_edonio_dirty_expire while it lives. Local; without a keeper (none found or started: said
 * once on stderr) the cache works as before, its dirty bytes living only in the processes.
 */
void ADIOI_EDONIO_Keeper_attach(struct edonio_cache *c);
/* Before the cache's memory is kept, detached or rebuilt, once every dirty byte is written back. */
void ADIOI_EDONIO_Keeper_detach(struct edonio_cache *c);
/* With 1, this process's keeper writes nothing of the cache's segments (the segments held while
 * it is said, so that no write-back of the keeper's is under way after it) until the same with 0. */
void ADIOI_EDONIO_Keeper_hold(struct edonio_cache *c, int hold);
/* romio_edonio_dirty_expire changed (MPI_File_set_info): into this process's segments. */
void ADIOI_EDONIO_Keeper_expire(struct edonio_cache *c);

/* ---------------------------------------------------------------- I/O (ad_edonio_cache_io.c) */

/*
 * Can the file hold [off, off + len)? Checked before any block arithmetic: EINVAL for a negative
 * offset, EOVERFLOW when the end overflows an MPI_Offset, EFBIG past the largest file the file
 * system holds; 0 when it can.
 */
int ADIOI_EDONIO_Cache_check(struct edonio_cache *c, ADIO_Offset off, ADIO_Offset len);
/*
 * Is [off, off + len) a range at all? EINVAL for a negative offset or length, EOVERFLOW when the
 * end overflows an MPI_Offset, else 0. Reads need no more: past the end of the file they are short.
 */
int ADIOI_EDONIO_Range_check(ADIO_Offset off, ADIO_Offset len);
/*
 * May a read of [off, off + len) skip the cache (ADIOI_EDONIO_Cache_sieve)? 1 when no block of it
 * is cached on this node (each hash bucket seen empty, without a lock) and it ends within the
 * file's size as this node knows it. Asked before the file is read: a block cached (and written)
 * after the question is a concurrent access; one that left the cache before it was written back
 * first.
 */
int ADIOI_EDONIO_Cache_uncached(struct edonio_cache *c, ADIO_Offset off, ADIO_Offset len);
/*
 * Does a read's span go into the cache (ADIOI_EDONIO_Cache_fill) rather than past it
 * (ADIOI_EDONIO_Cache_sieve)? In a read-only cache with read_fill=block, on a node of several
 * processes: no process writes its blocks, so a block read whole for one process serves the
 * node's others (doc/design.md, "A strided read's small pieces"). A process alone on its node has
 * no one to serve, and its pieces' runs read less than their whole blocks.
 */
int ADIOI_EDONIO_Cache_fills(const struct edonio_cache *c);
/*
 * Bring the blocks of [off, off + len) that this node does not cache into the cache: each run of
 * consecutive ones with one read of the file into their slots, made without any segment's lock
 * (the slots are marked as being filled; readers of them wait for the bytes). Blocks cached, being
 * filled by another process, or for which no slot can be had are left to the pieces' reads.
 * errno or 0.
 */
int ADIOI_EDONIO_Cache_fill(struct edonio_cache *c, struct edonio_stats *st, ADIO_Offset off,
                            ADIO_Offset len);
/* Read [off, off + len) from the file in one operation, past the cache. errno or 0. */
int ADIOI_EDONIO_Cache_sieve(struct edonio_cache *c, struct edonio_stats *st, void *buf,
                             ADIO_Offset off, ADIO_Offset len);
/* Read up to len bytes at off; *got is what the file holds there (less at its end). errno or 0. */
int ADIOI_EDONIO_Cache_read(struct edonio_cache *c, struct edonio_stats *st, void *buf,
                            ADIO_Offset off, ADIO_Offset len, ADIO_Offset *got);
/*
 * Would a write of [off, off + len) go straight to the file, every piece of it (the request passes
 * the cache, or it covers whole blocks only and is large enough to move them directly), were none
 * of its blocks cached on this node? 1 or 0.
 */
int ADIOI_EDONIO_Cache_write_direct(struct edonio_cache *c, ADIO_Offset off, ADIO_Offset len);
/*
 * May a segment hold a block, as far as this process can tell? 1 when its own or its remote
 * segment holds one now, or when it put a block in a node peer's segment since it last answered
 * or entered a collective flush (the peer may have looked at its segments before that). Asked of
 * every process of the cache once all are in a collective call, 0 everywhere means that no
 * segment holds a block: what a process put in a peer's segment before its last answer (or
 * flush), the peer sees in its own now.
 */
int ADIOI_EDONIO_Cache_may_hold(struct edonio_cache *c);
/*
 * May a delivery find dirty bytes in a remote segment? 1 when this process's remote segment holds
 * some now, or when it wrote into a node peer's remote segment since it last answered or entered a
 * collective flush. Asked as ADIOI_EDONIO_Cache_may_hold is, 0 everywhere means that no remote
 * segment holds a dirty byte; a 1 anywhere must be followed by a delivery in the same call.
 */
int ADIOI_EDONIO_Cache_may_deliver(struct edonio_cache *c);
/*
 * This process's answer of ADIOI_EDONIO_Cache_may_deliver was followed by no delivery after all
 * (a collective read that stayed on the nodes: ad_edonio_io_coll.c, plan_read): when it was 1,
 * the next answer is 1 too.
 */
void ADIOI_EDONIO_Cache_undelivered(struct edonio_cache *c, int answered);
/*
 * Every process of the cache is in a collective flush, which waits for all of them before it
 * returns: the blocks this process put in node peers' segments before it, and its writes into
 * their remote segments, their processes see from then on, so ADIOI_EDONIO_Cache_may_hold and
 * ADIOI_EDONIO_Cache_may_deliver need not count them again.
 */
void ADIOI_EDONIO_Cache_all_in_call(struct edonio_cache *c);
/* Write len bytes at off; *done: the bytes written before a failure (len on success). errno or 0. */
int ADIOI_EDONIO_Cache_write(struct edonio_cache *c, struct edonio_stats *st, const void *buf,
                             ADIO_Offset off, ADIO_Offset len, ADIO_Offset *done);
/*
 * Write pieces of one block in a row, as ADIOI_EDONIO_Cache_write would one by one: the first of
 * the n pieces (off[k], len[k]) and those after it in the same block, as long as each is smaller
 * than what passes the cache or moves directly (8 KiB in all at most), their bytes one after the
 * other in buf. The block's segment is held once for them all. Returns the pieces written (*end:
 * where the last ends), 0 when this takes none (fewer than two, the cache bypassed, or no slot to
 * be had: write them with ADIOI_EDONIO_Cache_write); *err: why it stopped before the run's end.
 */
int64_t ADIOI_EDONIO_Cache_write_pieces(struct edonio_cache *c, struct edonio_stats *st,
                                        const char *buf, const ADIO_Offset *off,
                                        const ADIO_Offset *len, int64_t n, ADIO_Offset *end,
                                        int *err);
/*
 * Read pieces of one block in a row, as ADIOI_EDONIO_Cache_read would one by one, into buf one
 * after the other: the first of the n pieces and those after it in the same block, each too small
 * to move directly, where the block is read through the cache and every piece lies within the
 * file's size as the node knows it. Returns the pieces read, 0 when this takes none (read them with
 * ADIOI_EDONIO_Cache_read); *err: the block could not be read.
 */
int64_t ADIOI_EDONIO_Cache_read_pieces(struct edonio_cache *c, struct edonio_stats *st, char *buf,
                                       const ADIO_Offset *off, const ADIO_Offset *len, int64_t n,
                                       int *err);
/*
 * At the owner, in a collective read: n pieces (offset, length) of blocks this process owns, each
 * within one block, their bytes read one after the other into data, under one hold of its own
 * segment. Past the file's end: zeros. errno of the first failure; the rest is still done.
 */
int ADIOI_EDONIO_Cache_serve(struct edonio_cache *c, struct edonio_stats *st, const int64_t *piece,
                             int64_t n, char *data);
/* A piece of a collective write at its block's owner (ADIOI_EDONIO_Cache_apply_writes). */
struct edonio_wpiece {
    int64_t off, len; /* where in the file, within one block */
    char *data;       /* its bytes */
    int64_t seq;      /* its place in rank order: the sources' pieces one source after another */
    int note;         /* its block goes back to the file at once (the caller writes it back) */
    int src;          /* the message it came in (a kept exchange keeps the order) */
};
/*
 * At the owner, in a collective write: n pieces of blocks this process owns, applied in the order
 * given under one hold of its own segment. The block of each noted piece stored in the segment is
 * appended to 'blocks' (*nblocks grows), for the caller to write back; a noted piece that touches
 * neither its neighbours in the list goes straight to the file instead when its block is not
 * cached here, write-through is on and write-backs are exact (no slot, and no more operations
 * than the block's write-back would make). The file's size, and *stored, grow to the end of the
 * pieces stored, not of those that failed. errno of the first failure; the rest is still done.
 */
int ADIOI_EDONIO_Cache_apply_writes(struct edonio_cache *c, struct edonio_stats *st,
                                    const struct edonio_wpiece *p, int64_t n, int64_t *blocks,
                                    int64_t *nblocks, ADIO_Offset *stored);
/* Write back these blocks of this process's own segment now (sorted, repeats allowed). */
int ADIOI_EDONIO_Cache_write_back_blocks(struct edonio_cache *c, struct edonio_stats *st,
                                         int64_t *blocks, int64_t n, int drop);
/*
 * Write back every dirty block of this process's own segment, in file order; with 'drop', forget
 * the clean ones too (MPI_File_sync: the next read sees what others wrote). errno of the first
 * failure; what cannot be written stays dirty, for a later sync.
 */
int ADIOI_EDONIO_Cache_write_back_own(struct edonio_cache *c, struct edonio_stats *st, int drop);
/*
 * With every process of the node in a flush (ADIOI_EDONIO_Node_all_in_flush): write back the
 * blocks written whole in any of the node's own segments, in runs of consecutive blocks, whatever
 * their owners, one write each within an aligned MiB of the file; this process writes those of
 * every n-th MiB (n: the node's processes). A run that fails stays dirty, for a later sync. errno
 * of the first failure or 0.
 */
int ADIOI_EDONIO_Cache_write_back_runs(struct edonio_cache *c, struct edonio_stats *st);
/* ADIOI_EDONIO_Cache_write_back_own, but for the blocks written whole (the runs' part). */
int ADIOI_EDONIO_Cache_write_back_parts(struct edonio_cache *c, struct edonio_stats *st,
                                        int drop);
/*
 * Write every dirty byte this process reaches to the file itself: the node's own segments and
 * remote segments (a one-process handle's sync or close on a larger cache); with 'drop', forget
 * their clean blocks too. errno or 0.
 */
int ADIOI_EDONIO_Cache_write_back_reachable(struct edonio_cache *c, struct edonio_stats *st,
                                            int drop);
/*
 * Forget this process's remote segment's clean blocks: copies that may predate others' writes.
 * Dirty ones (not delivered because some owner failed) stay for the next delivery.
 */
void ADIOI_EDONIO_Cache_forget_remote(struct edonio_cache *c);
/* Does this process's remote segment hold dirty bytes? */
int ADIOI_EDONIO_Cache_remote_dirty(struct edonio_cache *c);
/*
 * For the delivery: the dirty extents of this process's remote segment, in file order (offsets,
 * lengths in the same allocation as *off, and where their bytes are: in the slots themselves, not
 * copied, to be read only, and only until ADIOI_EDONIO_Cache_remote_done; free *off and *where),
 * the segment held until ADIOI_EDONIO_Cache_remote_done, which lets them go if they were
 * delivered.
 * The count, or -1 when out of memory. Held across a collective exchange: call it only once
 * every process of the node is in the call (no node peer may be waiting for the segment).
 */
int64_t ADIOI_EDONIO_Cache_remote_pieces(struct edonio_cache *c, ADIO_Offset **off,
                                         ADIO_Offset **len, char ***where);
void ADIOI_EDONIO_Cache_remote_done(struct edonio_cache *c, int delivered);
/* The file now ends at size: cut this process's segments (every reachable one with 'all'). */
void ADIOI_EDONIO_Cache_trim(struct edonio_cache *c, ADIO_Offset size, int all);
/* Collective: fill this process's free slots with the blocks it owns from byte 'from' on. */
int ADIOI_EDONIO_Cache_preload(struct edonio_cache *c, struct edonio_stats *st, ADIO_Offset from);

/* ---------------------------------------------------------------- the network (ad_edonio_net.c) */

/*
 * Collective over the cache's processes: every process's remote segment delivers its dirty bytes
 * to their owners, which keep them (or, with 'through', write the blocks that received them now,
 * so that their writers read them from the file). Delivered bytes leave the remote segments; if
 * any owner could not take its share, every remote segment keeps its bytes for the next time.
 * budget: bytes a process sends per round. all_in: a collective the caller made in this call has
 * shown every process inside it (else, where a node has several processes, a barrier first).
 * errno of this process's failure, or 0 (the caller makes everyone agree).
 */
int ADIOI_EDONIO_Net_deliver(struct edonio_cache *c, MPI_Comm comm, struct edonio_stats *st,
                             ADIO_Offset budget, int through, int all_in);

#endif /* AD_EDONIO_CACHE_H_INCLUDED */
