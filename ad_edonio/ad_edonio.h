/*
 * edonio: the ADIO driver's private declarations.
 *
 * Each open handle (ADIO_File) has a small state of its own in fd->fs_ptr, struct edonio_handle:
 * its hints, its statistics, and the cache it works through, if any. The cache of a file (struct
 * edonio_cache, ad_edonio_cache.h) is shared by the handles of that file on this process whose
 * access it covers: PnetCDF, for one, opens every file on its communicator and again on
 * MPI_COMM_SELF and writes through both with no sync between. ROMIO's own file structure is left
 * as it is. Design: doc/design.md.
 */
#ifndef AD_EDONIO_H_INCLUDED
#define AD_EDONIO_H_INCLUDED

#include <sys/types.h>

#include "ad_edonio_sched.h"
#include "ad_edonio_visible.h"
#include "adio.h"

/*
 * For the functions between an ADIO entry point and the pread or pwrite of a request that passes
 * the cache: inlined, so that the system call returns through one frame more than ufs's (the
 * cache's interface, ADIOI_EDONIO_Cache_read/_write), not four. Where the kernel guards the
 * return to user space (AMD's SRSO "Safe RET", RSB filling), each frame it returns through cost
 * about 10 ns on this project's machine, by all appearances a mispredicted return, on a 2 KiB
 * read from the page cache of 620 ns (measured at 6acf510: perf/results/2026-11-26-syscall-depth/
 * in the git history).
 */
#define EDONIO_SYSCALL_PATH static inline __attribute__((always_inline))

#define EDONIO_VERSION_KEY       "romio_edonio_version"
#define EDONIO_ROMIO_VERSION_KEY "romio_edonio_romio_version"

/* Hint defaults and bounds (doc/hints.md). */
#define EDONIO_DEFAULT_BLOCK_SIZE        (64 * 1024)
#define EDONIO_MIN_BLOCK_SIZE            (4 * 1024)
#define EDONIO_MAX_BLOCK_SIZE            (64 * 1024 * 1024)
#define EDONIO_DEFAULT_CACHE_SIZE        (64LL * 1024 * 1024)
#define EDONIO_DEFAULT_REMOTE_CACHE_SIZE (64LL * 1024 * 1024)
#define EDONIO_DEFAULT_DIRECT            (1024LL * 1024)
#define EDONIO_WRITE_THROUGH_AUTO        (-1LL)       /* romio_edonio_write_through=auto */
#define EDONIO_WRITE_THROUGH_LOCAL       (16 * 1024)  /* what auto gives on a page-cached one */
#define EDONIO_DEFAULT_SCHEDULES         4            /* plans kept per handle */
#define EDONIO_MAX_SCHEDULES             64           /* at most (a larger value: this) */
#define EDONIO_DEFAULT_DIRTY_EXPIRE      30           /* seconds: the kernel's page cache's */

/* How MPI atomic mode is enforced (romio_edonio_atomicity; doc/atomicity.md). */
enum edonio_atomicity {
    EDONIO_ATOMIC_RANK_ORDER,     /* overlaps: the highest rank's bytes win (the default) */
    EDONIO_ATOMIC_GRAPH_COLORING, /* overlapping ranks write in turn, colour by colour */
    EDONIO_ATOMIC_LOCKING,        /* byte-range locks over each rank's extent (ROMIO's way) */
};

/* How collective reads and writes reach the owners (romio_edonio_coll_path). */
enum edonio_coll_path {
    EDONIO_COLL_PATH_AUTO,     /* each process itself where it reaches the owner, else exchange */
    EDONIO_COLL_PATH_EXCHANGE, /* always the exchange with the owners */
};

/*
 * What a read of a block that this node does not cache brings into the cache
 * (romio_edonio_read_fill; doc/hints.md).
 */
enum edonio_read_fill {
    EDONIO_READ_FILL_AUTO,  /* none on a local file system with a page cache, else block */
    EDONIO_READ_FILL_BLOCK, /* the whole block, into a slot: later reads of it hit */
    EDONIO_READ_FILL_NONE,  /* nothing: only the bytes asked, from the file into the buffer */
};

/*
 * How dirty extents of a block go back to the file (romio_edonio_write_back; doc/hints.md).
 */
enum edonio_write_back {
    EDONIO_WRITE_BACK_AUTO,  /* exact on a local file system with a page cache, else span */
    EDONIO_WRITE_BACK_SPAN,  /* 3 extents or more as their span, read-modify-write under a
                              * byte-range lock that every write of the file to it then takes */
    EDONIO_WRITE_BACK_EXACT, /* only the bytes written, one operation per extent, and no lock */
};

/* The hints in effect (the same on every process of a cache: rank 0's values win). */
struct edonio_hints {
    long long block_size;            /* romio_edonio_block_size */
    long long cache_size;            /* romio_edonio_cache_size, bytes per process (a ceiling) */
    long long remote_cache_size;     /* romio_edonio_remote_cache_size, bytes per process */
    long long direct_threshold;      /* romio_edonio_direct_threshold, bytes; 0: never */
    int preload;                     /* romio_edonio_preload */
    int flush_groups;                /* romio_edonio_flush_groups: groups that write back in turn */
    int shared_memory;               /* romio_edonio_shared_memory: 0 = every process a node */
    int keep_memory;                 /* romio_edonio_keep_memory: a closed cache's memory serves
                                      * the next cache of the same processes */
    enum edonio_atomicity atomicity; /* romio_edonio_atomicity */
    enum edonio_coll_path coll_path; /* romio_edonio_coll_path */
    enum edonio_read_fill read_fill; /* romio_edonio_read_fill: never auto in a cache's hints */
    long long write_through;         /* romio_edonio_write_through, bytes; 0: never; -1: auto
                                      * (never in a cache's hints) */
    enum edonio_write_back write_back; /* romio_edonio_write_back; never auto in a cache's hints */
    long long dirty_expire; /* romio_edonio_dirty_expire, seconds: a block dirty this long goes to
                             * the file (the keeper); 0: never */
    int schedule_reuse;     /* romio_edonio_schedule_reuse: collective calls reuse plans */
    int schedules;          /* romio_edonio_schedules: plans kept per handle */
};

/* What edonio did for one handle on one process (summed over processes at close). */
struct edonio_stats {
    long long hits;           /* block pieces found cached (own node's segments) */
    long long misses;         /* block pieces not found */
    long long evictions;      /* blocks dropped to make room */
    long long writebacks;     /* dirty blocks written back (each once per write-back) */
    long long remote_hits;    /* pieces of other nodes' blocks served by this node's copies */
    long long fs_reads;       /* read operations issued to the file system */
    long long fs_writes;      /* write operations issued to the file system */
    long long fs_read_bytes;  /* bytes those reads asked for */
    long long fs_write_bytes; /* bytes those writes asked for */
    long long coll_rounds;    /* exchange rounds of collective calls (deliveries included) */
    long long coll_phases;    /* graph_coloring: colour phases of atomic collective writes */
    long long direct;         /* whole blocks of large requests moved without the cache */
    long long delivered;      /* bytes of other nodes' blocks delivered to their owners */
    long long mem_mapped;     /* bytes of cache memory this process laid out (address space) */
    long long mem_touched;    /* bytes of cache memory this process's blocks have used */
    long long mem_reused;     /* bytes of it that were allocated at open: kept from a closed
                               * cache (romio_edonio_keep_memory) */
    long long fs_locks;       /* byte-range locks taken on the file (write_back=span only) */
    long long barriers;       /* MPI_Barrier or MPI_Ibarrier calls that put this process's or
                               * others' writes where other nodes read them */
    long long plans_made;     /* collective calls that planned (romio_edonio_schedule_reuse) */
    long long plans_reused;   /* collective calls that took a kept plan */
    long long exchanges_reused; /* collective calls across nodes that made a kept exchange again */
};

struct edonio_cache;

/*
 * Rank 0's name for one open, the same on every process after the open's exchange: ROMIO names the
 * open's shared-file-pointer file with it (ROMIO patch 0012), as it would with what rank 0 drew
 * and broadcast, when every process names the file by the same last component (MPI lets the
 * processes name one file differently: a link, another mount).
 */
struct edonio_open_tag {
    uint32_t random;
    uint32_t pid;
    uint64_t name_hash; /* of the last component of the file name, each process its own */
    int32_t same_name;  /* after the exchange: every process's name_hash is rank 0's (0: no tag) */
    int32_t stats_root; /* before the exchange: this process's rank if its EDONIO_STATS asks for the
                         * close's report (ADIOI_EDONIO_Stats_wanted), else -1; after it: the
                         * lowest such rank, which prints the report, or -1 (no report) */
};

/* Per-handle state of an open edonio file (fd->fs_ptr). */
struct edonio_handle {
    struct edonio_hints hints;   /* in effect: the cache's shape for a handle that shares one */
    struct edonio_stats stats;   /* this handle's counters on this process */
    struct edonio_scheds scheds; /* its collective calls' plans (ad_edonio_sched.h) */
    struct edonio_cache *cache;  /* the cache this handle works through; NULL: the file system */
    int collective;              /* the handle's processes are the cache's: collective calls
                                  * reach every owner (else it is a one-process handle sharing
                                  * a larger cache, and its collective calls act locally) */
    int made;                    /* this handle made the cache: its close closes it */
    long long asked_cache_size;  /* the memory hints as asked (hints: as the node can give) */
    long long asked_remote_size;
    int opened;                  /* the collective open is done (the state is complete) */
    int flushed;                 /* MPI_File_close's flush is done (ROMIO patch 0011) ... */
    int close_code;              /* ... with this outcome */
    int together;                /* the close made a collective call that no process left
                                  * before all entered (its flush, or the barrier) */
    struct edonio_open_tag tag;  /* from the open's exchange: ROMIO names the shared-file-pointer
                                  * file with it (zeros: there was none) */
};

static inline struct edonio_handle *edonio_handle(ADIO_File fd)
{
    return (struct edonio_handle *)fd->fs_ptr;
}

/* The handle's cache, or NULL when its I/O goes to the file system. */
struct edonio_cache *ADIOI_EDONIO_Cache_of(ADIO_File fd);
/* Whether the last open agreed on its outcome already (ROMIO patch 0010). */
int ADIOI_EDONIO_Open_agreed(void);
/* The suffix ROMIO puts in the shared-file-pointer file's name, when the open agreed on one
 * (ROMIO patch 0012): 1, or 0 when ROMIO is to draw and broadcast it. */
int ADIOI_EDONIO_Shfp_suffix(ADIO_File fd, char *suffix, int size);
/* Bytes one process sends per round of a collective pass (cb_buffer_size, at least a block). */
ADIO_Offset ADIOI_EDONIO_Coll_budget(ADIO_File fd);

/* Operations table entries (ad_edonio_*.c). */
void ADIOI_EDONIO_Open(ADIO_File fd, int *error_code);
void ADIOI_EDONIO_OpenColl(ADIO_File fd, int rank, int access_mode, int *error_code);
void ADIOI_EDONIO_Close(ADIO_File fd, int *error_code);
/* Called by MPI_File_close in place of its barrier (ROMIO patch 0011). */
void ADIOI_EDONIO_Close_begin(ADIO_File fd);
void ADIOI_EDONIO_ReadContig(ADIO_File fd, void *buf, int count, MPI_Datatype datatype,
                             int file_ptr_type, ADIO_Offset offset, ADIO_Status *status,
                             int *error_code);
void ADIOI_EDONIO_WriteContig(ADIO_File fd, const void *buf, int count, MPI_Datatype datatype,
                              int file_ptr_type, ADIO_Offset offset, ADIO_Status *status,
                              int *error_code);
void ADIOI_EDONIO_ReadStrided(ADIO_File fd, void *buf, int count, MPI_Datatype datatype,
                              int file_ptr_type, ADIO_Offset offset, ADIO_Status *status,
                              int *error_code);
void ADIOI_EDONIO_WriteStrided(ADIO_File fd, const void *buf, int count, MPI_Datatype datatype,
                               int file_ptr_type, ADIO_Offset offset, ADIO_Status *status,
                               int *error_code);
void ADIOI_EDONIO_WriteStridedColl(ADIO_File fd, const void *buf, int count,
                                   MPI_Datatype datatype, int file_ptr_type, ADIO_Offset offset,
                                   ADIO_Status *status, int *error_code);
void ADIOI_EDONIO_ReadStridedColl(ADIO_File fd, void *buf, int count, MPI_Datatype datatype,
                                  int file_ptr_type, ADIO_Offset offset, ADIO_Status *status,
                                  int *error_code);
void ADIOI_EDONIO_IwriteStridedColl(ADIO_File fd, const void *buf, int count,
                                    MPI_Datatype datatype, int file_ptr_type, ADIO_Offset offset,
                                    MPI_Request *request, int *error_code);
void ADIOI_EDONIO_IreadStridedColl(ADIO_File fd, void *buf, int count, MPI_Datatype datatype,
                                   int file_ptr_type, ADIO_Offset offset, MPI_Request *request,
                                   int *error_code);
void ADIOI_EDONIO_Fcntl(ADIO_File fd, int flag, ADIO_Fcntl_t *fcntl_struct, int *error_code);
void ADIOI_EDONIO_Flush(ADIO_File fd, int *error_code);
void ADIOI_EDONIO_Resize(ADIO_File fd, ADIO_Offset size, int *error_code);
void ADIOI_EDONIO_SetInfo(ADIO_File fd, MPI_Info users_info, int *error_code);
int ADIOI_EDONIO_Feature(ADIO_File fd, int flag);

/*
 * The handles whose writes an MPI_Barrier makes visible across nodes (ad_edonio_visible.c): those
 * that made a writable cache of several processes, listed at open, in that order.
 */
void ADIOI_EDONIO_Visible_add(ADIO_File fd);
void ADIOI_EDONIO_Visible_remove(ADIO_File fd);

/* Collective: fill the owners' free slots from the smallest file pointer on (ad_edonio_open.c). */
int ADIOI_EDONIO_Preload(ADIO_File fd);

/* Helpers (ad_edonio_common.c, ad_edonio_hints.c, ad_edonio_stats.c). */
int ADIOI_EDONIO_Err(const char *myname, const char *filename, int my_errno);
int ADIOI_EDONIO_Agree(MPI_Comm comm, const char *myname, const char *filename, int my_errno);
enum { EDONIO_REDUCE_SMALL_MAX = 6 };
void ADIOI_EDONIO_Reduce_small(MPI_Comm comm, MPI_Op op, int n, const long long *mine,
                               long long *all);
int ADIOI_EDONIO_Agree_flag(MPI_Comm comm, const char *myname, const char *filename, int my_errno,
                            int flag, int *any);
int ADIOI_EDONIO_Agree_max(MPI_Comm comm, const char *myname, const char *filename, int my_errno,
                           long long value, long long *max);
int ADIOI_EDONIO_Lock_range(int fd_sys, int type, ADIO_Offset start, ADIO_Offset len);
/*
 * Waiting for the other processes (ad_edonio_common.c). Where a file's processes crowd a machine
 * (more of them on it than processors: decided at open from every process's record, the same on
 * all, and kept as an attribute of the handle's communicator), edonio's own collectives are
 * nonblocking ones tested in a loop that gives the processor away after a few polls without
 * progress (ADIOI_EDONIO_Idle); elsewhere they are MPI's blocking calls. The open's exchange,
 * before anything is known, is always waited for so.
 */
void ADIOI_EDONIO_Crowd_set(MPI_Comm comm, int crowded);
int ADIOI_EDONIO_Crowded(MPI_Comm comm);
/* ADIOI_EDONIO_Idle: in ad_edonio_visible.h, for the library's barrier too */
void ADIOI_EDONIO_Wait(int crowded, MPI_Request *req);
void ADIOI_EDONIO_Barrier(MPI_Comm comm);
void ADIOI_EDONIO_Allgather_open(const void *mine, int bytes, void *all, MPI_Comm comm);
void ADIOI_EDONIO_Hints_defaults(struct edonio_hints *h);
void ADIOI_EDONIO_Hints_report(ADIO_File fd, const struct edonio_hints *h);
/* Do a and b give a cache the same shape (its memory's layout)? */
int ADIOI_EDONIO_Hints_same_shape(const struct edonio_hints *a, const struct edonio_hints *b);
/* read_fill, write_through and write_back as they apply to the file open on fd_sys: each auto
 * decided by its file system. */
void ADIOI_EDONIO_Hints_resolve(struct edonio_hints *h, int fd_sys);
int ADIOI_EDONIO_Stats_wanted(void);
void ADIOI_EDONIO_Stats_report(ADIO_File fd);
void ADIOI_EDONIO_Stats_info(ADIO_File fd);
void ADIOI_EDONIO_Refresh_info(MPI_File fh);

#endif /* AD_EDONIO_H_INCLUDED */
