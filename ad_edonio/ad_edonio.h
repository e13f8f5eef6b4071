/*
 * edonio: the ADIO driver's private declarations.
 *
 * Everything edonio keeps about an open file hangs off fd->fs_ptr as a struct edonio_file; ROMIO's
 * own file structure is left as it is.
 *
 * The cache (design: doc/design.md). The file is a sequence of blocks of block_size bytes; block
 * b is owned by rank b mod P of the file's communicator, and only its owner's segment may hold it,
 * so there is one cached copy of every byte and no coherence to keep. Any process works on any
 * owner's segment itself, under that segment's lock: on one node directly in shared memory, across
 * nodes with passive-target RMA. The owner need not be in MPI for that, so independent I/O needs
 * no polling.
 */
#ifndef AD_EDONIO_H_INCLUDED
#define AD_EDONIO_H_INCLUDED

#include <sys/types.h>

#include "adio.h"
#include "ad_edonio_cache.h"

#define EDONIO_VERSION_KEY       "romio_edonio_version"
#define EDONIO_ROMIO_VERSION_KEY "romio_edonio_romio_version"

/* Hint defaults (doc/hints.md). */
#define EDONIO_DEFAULT_BLOCK_SIZE    (64 * 1024)
#define EDONIO_MIN_BLOCK_SIZE        (4 * 1024)
#define EDONIO_MAX_BLOCK_SIZE        (64 * 1024 * 1024)
#define EDONIO_DEFAULT_CACHE_SIZE    (64LL * 1024 * 1024)
#define EDONIO_DEFAULT_RO_CACHE_SIZE (16LL * 1024 * 1024)
#define EDONIO_DEFAULT_DIRECT        (1024LL * 1024)

/* How MPI atomic mode is enforced (romio_edonio_atomicity; doc/atomicity.md). */
enum edonio_atomicity {
    EDONIO_ATOMIC_RANK_ORDER,     /* overlaps: the highest rank's bytes win (the default) */
    EDONIO_ATOMIC_GRAPH_COLORING, /* overlapping ranks write in turn, colour by colour */
    EDONIO_ATOMIC_LOCKING,        /* byte-range locks over each rank's extent (ROMIO's way) */
};

/* How collective reads and writes reach the owners (romio_edonio_coll_path). */
enum edonio_coll_path {
    EDONIO_COLL_PATH_AUTO,     /* one node: each process itself, in shared memory; else exchange */
    EDONIO_COLL_PATH_EXCHANGE, /* always the all-to-all exchange with the owners */
};

/* The hints in effect (the same on every process: rank 0's values win). */
struct edonio_hints {
    long long block_size;    /* romio_edonio_block_size */
    long long cache_size;    /* romio_edonio_cache_size, bytes per process */
    long long ro_cache_size; /* romio_edonio_ro_cache_size, bytes per process, 0: none */
    int preload;             /* romio_edonio_preload */
    int flush_groups;        /* romio_edonio_flush_groups: groups that write back in turn */
    enum edonio_atomicity atomicity; /* romio_edonio_atomicity */
    enum edonio_coll_path coll_path; /* romio_edonio_coll_path */
    int keep_window;                 /* romio_edonio_keep_window */
    long long direct_threshold;      /* romio_edonio_direct_threshold, bytes; 0: never */
};

/* What edonio did to one open file on one process (summed over processes at close). */
struct edonio_stats {
    long long hits;           /* block pieces found in an owner's cache */
    long long misses;         /* block pieces not found */
    long long evictions;      /* blocks dropped to make room */
    long long writebacks;     /* dirty blocks written back */
    long long ro_hits;        /* pieces served by the read-only data cache */
    long long fs_reads;       /* read operations issued to the file system */
    long long fs_writes;      /* write operations issued to the file system */
    long long fs_read_bytes;  /* bytes those reads asked for */
    long long fs_write_bytes; /* bytes those writes asked for */
    long long coll_rounds;    /* exchange rounds of collective reads and writes */
    long long coll_phases;    /* graph_coloring: colour phases of atomic collective writes */
    long long direct;         /* whole blocks of large requests moved without the cache */
};

/* How this process reaches the owners' segments. */
enum edonio_access {
    EDONIO_ACCESS_NONE,   /* no cache: the file goes straight to the file system */
    EDONIO_ACCESS_SHARED, /* all processes on one node: load/store in shared memory */
    EDONIO_ACCESS_RMA,    /* several nodes: passive-target RMA on the segments' window */
};

/* Per-process state of one open edonio file (fd->fs_ptr). */
struct edonio_file {
    int rank;                      /* this process in fd->comm */
    int nprocs;                    /* processes that opened the file */
    struct edonio_hints hints;     /* in effect */
    struct edonio_stats stats;     /* this process's counters */
    enum edonio_access access;     /* how segments are reached */
    MPI_Comm comm;                 /* edonio's own duplicate of fd->comm */
    MPI_Win win;                   /* every process's segment */
    MPI_Win size_win;              /* RMA: the file's size, at rank 0 */
    size_t win_bytes;              /* each process's part of win */
    struct edonio_segment **seg;   /* SHARED: each owner's segment, mapped here */
    struct edonio_segment *mine;   /* this process's own segment */
    struct edonio_segment *mirror; /* RMA: a copy of one owner's metadata while it is held */
    size_t meta_bytes;             /* a segment's metadata (header, slots, hash) */
    unsigned char *fetch_buf;      /* one block, for reads from the file system */
    unsigned char *wb_buf;         /* one block, for write-back of a segment reached by RMA */
    struct edonio_segment *ro;     /* read-only data cache of remote blocks, or NULL */
    int opened;                    /* the collective open is done (the state is complete) */
    struct edonio_file *primary;   /* an alias: the handle whose cache this one shares */
    dev_t dev;                     /* the file's identity, to find other handles of it */
    ino_t ino;
    struct edonio_file *next_open;  /* this process's primaries (ad_edonio_alias.c) */
    struct edonio_file *next_alias; /* primary: its first alias; alias: the next one */
};

static inline struct edonio_file *edonio_state(ADIO_File fd)
{
    return (struct edonio_file *)fd->fs_ptr;
}

/* Operations table entries (ad_edonio_*.c). */
void ADIOI_EDONIO_Open(ADIO_File fd, int *error_code);
void ADIOI_EDONIO_OpenColl(ADIO_File fd, int rank, int access_mode, int *error_code);
void ADIOI_EDONIO_Close(ADIO_File fd, int *error_code);
void ADIOI_EDONIO_ReadContig(ADIO_File fd, void *buf, int count, MPI_Datatype datatype,
                             int file_ptr_type, ADIO_Offset offset, ADIO_Status *status,
                             int *error_code);
void ADIOI_EDONIO_WriteContig(ADIO_File fd, const void *buf, int count, MPI_Datatype datatype,
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
int ADIOI_EDONIO_SetLock(ADIO_File fd, int cmd, int type, ADIO_Offset offset, int whence,
                         ADIO_Offset len);

/* The segments (ad_edonio_segments.c). */
int ADIOI_EDONIO_Segments_create(ADIO_File fd);
void ADIOI_EDONIO_Segments_free(ADIO_File fd);
int ADIOI_EDONIO_Pool_take(struct edonio_file *ef, size_t bytes, void **base);
int ADIOI_EDONIO_Pool_park(struct edonio_file *ef, size_t bytes);
struct edonio_segment *ADIOI_EDONIO_Acquire(struct edonio_file *ef, int owner);
void ADIOI_EDONIO_Release(struct edonio_file *ef, int owner, int modified);
unsigned char *ADIOI_EDONIO_Slot_ptr(struct edonio_file *ef, int owner, int32_t slot);
void ADIOI_EDONIO_Slot_get(struct edonio_file *ef, int owner, int32_t slot, uint32_t off, void *buf,
                           uint32_t len);
void ADIOI_EDONIO_Slot_put(struct edonio_file *ef, int owner, int32_t slot, uint32_t off,
                           const void *buf, uint32_t len);
ADIO_Offset ADIOI_EDONIO_Size_get(struct edonio_file *ef, int which);
void ADIOI_EDONIO_Size_max(struct edonio_file *ef, int which, ADIO_Offset end);
void ADIOI_EDONIO_Size_set(struct edonio_file *ef, int which, ADIO_Offset size);

/* The cache's I/O (ad_edonio_cache_io.c). */
int ADIOI_EDONIO_Cache_read(ADIO_File fd, void *buf, ADIO_Offset off, ADIO_Offset len,
                            ADIO_Offset *got);
int ADIOI_EDONIO_Cache_write(ADIO_File fd, const void *buf, ADIO_Offset off, ADIO_Offset len);
int ADIOI_EDONIO_Cache_flush_mine(ADIO_File fd, int drop);
int ADIOI_EDONIO_Cache_flush_grouped(ADIO_File fd, int drop);
int ADIOI_EDONIO_Cache_owner_io(ADIO_File fd, const int64_t *piece, int64_t n, char *data,
                                int writing);
void ADIOI_EDONIO_Cache_trim_mine(ADIO_File fd, ADIO_Offset size);
int ADIOI_EDONIO_Cache_preload(ADIO_File fd);
int ADIOI_EDONIO_Cache_attach(ADIO_File fd);
void ADIOI_EDONIO_Cache_detach(ADIO_File fd, int always, int *error_code);
void ADIOI_EDONIO_Cache_rebuild(ADIO_File fd, const struct edonio_hints *h, int *error_code);

/* Several handles of one file in one process (ad_edonio_alias.c). */
int ADIOI_EDONIO_Alias_attach(ADIO_File fd);
void ADIOI_EDONIO_Alias_register(struct edonio_file *ef);
void ADIOI_EDONIO_Alias_unregister(struct edonio_file *ef);
void ADIOI_EDONIO_Alias_detach(struct edonio_file *ef);
void ADIOI_EDONIO_Cache_trim_all(ADIO_File fd, ADIO_Offset size);

/* Helpers (ad_edonio_common.c, ad_edonio_hints.c, ad_edonio_stats.c). */
int ADIOI_EDONIO_Err(const char *myname, const char *filename, int my_errno);
void ADIOI_EDONIO_Agree(MPI_Comm comm, int *error_code);
void ADIOI_EDONIO_Hints_defaults(struct edonio_hints *h);
void ADIOI_EDONIO_Hints_report(ADIO_File fd, const struct edonio_hints *h);
void ADIOI_EDONIO_Stats_report(ADIO_File fd);
void ADIOI_EDONIO_Stats_info(ADIO_File fd);
void ADIOI_EDONIO_Refresh_info(MPI_File fh);

#endif /* AD_EDONIO_H_INCLUDED */
