/*
 * edonio: the keeper, a small process without MPI that keeps a process's cache memory alive after
 * the process dies and writes its dirty bytes to their files (keeper/edonio_keeper.c), and writes
 * back blocks that stayed dirty longer than romio_edonio_dirty_expire while the process lives.
 *
 * Under ufs a byte is in the kernel's page cache when pwrite returns: it survives the death of the
 * process that wrote it, and reaches the disk within the kernel's dirty expiry. In edonio's cache
 * it lives in the memory of the job's processes (their memfds, ad_edonio_node.c). So each process
 * that opens a writable cache starts a keeper once (posix_spawn, its own session, no MPI), and
 * hands it, over a socket, each writable cache's memfd and file descriptor and the pids of the
 * node's processes that map it. When the socket tells the keeper that its process died (the
 * socket closes with it, however it dies), the keeper waits until the node's other processes of
 * those caches have died too (they may still be writing into its segments), writes every dirty
 * extent of its process's segments to the file, and exits. Between those events it wakes every
 * half expiry and writes back the blocks dirty for longer, under the segments' lock.
 *
 * This header is the protocol: the library (ad_edonio_keeper.c) and the keeper both include it,
 * with nothing of MPI or ROMIO.
 */
#ifndef AD_EDONIO_KEEPER_H_INCLUDED
#define AD_EDONIO_KEEPER_H_INCLUDED

#include <stdint.h>

#include "ad_edonio_segment.h"

#define EDONIO_KEEPER_MAGIC 0x6b65657065723031ULL /* "keeper01" */
#define EDONIO_KEEPER_FD    3                     /* the keeper's end of the socket */
#define EDONIO_KEEPER_PIDS  4096                  /* node processes named in one message */
#define EDONIO_KEEPER_NAME  4096                  /* bytes of a file name, its NUL included */

enum edonio_keeper_op {
    EDONIO_KEEPER_ATTACH = 1, /* with two descriptors: the file's, the memfd's */
    EDONIO_KEEPER_DETACH = 2, /* the cache is closed, every dirty byte written back */
};

/* The shape of the segments both sides read: a keeper of another edonio refuses them. */
#define EDONIO_KEEPER_LAYOUT                                                                       \
    ((uint64_t)sizeof(struct edonio_segment) << 32 | (uint64_t)sizeof(struct edonio_slot) << 8 | 1)

/* One message (a SOCK_SEQPACKET datagram): this header, npids pids, then the file's name. */
struct edonio_keeper_msg {
    uint64_t magic;
    uint64_t id;     /* the cache (struct edonio_cache's id) */
    uint64_t bytes;  /* the memfd's size: its own segment at 0, its remote segment after it */
    uint64_t layout; /* EDONIO_KEEPER_LAYOUT of the library: its segments' shape */
    int32_t op;      /* enum edonio_keeper_op */
    int32_t npids;   /* the other processes of the node that map the memfd */
};

#endif /* AD_EDONIO_KEEPER_H_INCLUDED */
