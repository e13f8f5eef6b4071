/*
 * edonio: the shared-memory way of reaching an owner.
 *
 * Every process keeps its two segments (own and remote, ad_edonio_cache.h) in memory of its own,
 * a memfd, laid out lazily: only headers are written at open, and pages are made as blocks need
 * them, so a process's cache costs what its blocks use, however large romio_edonio_cache_size is.
 * At open each process publishes where that memory is (pid and descriptor, in the open's one
 * exchange of records); the processes of its node take it (peer_memfd: pidfd_getfd, else
 * /proc/<pid>/fd/<fd>), map it, check the segment's cookie, and from then on work on it directly:
 * an atomic lock word per segment, loads and stores of the metadata (header, slot table, index)
 * and of the blocks' bytes.
 * A slot's memory is allocated when a slot is first taken (ADIOI_EDONIO_Node_back: fallocate on
 * the memfd), so that a node short of memory gives an error, and the request goes to the file,
 * rather than SIGBUS at a store. Measured here (perf/cases/memfd_copy.c, run by perf/run's micro
 * case; doc/design.md has the figures): into pages that exist, stores are 6-15 times cheaper than pwrite on the memfd,
 * which is what the slots' bytes went through before; into new pages they cost about the same.
 * No MPI call is made to reach an owner on the same node.
 *
 * Processes share a node when the kernel instance, the PID namespace and the user are the same
 * (the key). Where MPICH is told to act as if every process were on a node of its own
 * (MPIR_CVAR_NOLOCAL, how nodes are simulated on one machine), or romio_edonio_shared_memory is
 * false, every process is a node of its own. A process whose memory cannot be mapped is reached
 * over the network instead: that choice is each process's own and needs no agreement.
 *
 * Blocks owned on another node go to a remote segment of this node, chosen by the block, so that
 * the processes of a node share their copies and merge their writes before delivery.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ad_edonio_cache.h"
#include "ad_edonio_memlimit.h"
#include "ad_edonio_seglock.h"
#include "adioi.h"

enum { READY_WAIT_S = 10 };

/* ---------------------------------------------------------------- keys and cookies */

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    return h * 0xBF58476D1CE4E5B9ull;
}

static uint64_t hash_text(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = mix(h, (unsigned char)*s);
    return h;
}

uint64_t ADIOI_EDONIO_Node_mix(uint64_t h, uint64_t v)
{
    return mix(h, v);
}

uint64_t ADIOI_EDONIO_Node_hash_text(const char *s)
{
    return hash_text(0, s);
}

uint64_t ADIOI_EDONIO_Node_random(void)
{
    static uint64_t counter;
    uint64_t v = 0;

    if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != (ssize_t)sizeof(v)) {
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        v = mix(mix((uint64_t)t.tv_nsec, (uint64_t)t.tv_sec), (uint64_t)getpid());
    }
    return mix(v, ++counter);
}

/* MPICH's own switch that makes every process a node of its own (simulated nodes). */
static int mpich_nolocal(void)
{
    static const char *const names[] = {"MPIR_CVAR_NOLOCAL", "MPIR_PARAM_NOLOCAL",
                                        "MPICH_NOLOCAL"};

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        const char *v = getenv(names[i]);
        if (v != NULL && (atoi(v) > 0 || !strcasecmp(v, "true") || !strcasecmp(v, "yes")))
            return 1;
    }
    return 0;
}

/*
 * The PID namespace's inode number, 0 where it cannot be read. The link's text ("pid:[N]") rather
 * than stat: stat makes the kernel instantiate the namespace's file, 16 against 9 us of a
 * process's first open here.
 */
static uint64_t pid_namespace(void)
{
    char link[64];
    ssize_t len = readlink("/proc/self/ns/pid", link, sizeof(link) - 1);
    const char *digits = len > 0 ? memchr(link, '[', (size_t)len) : NULL;

    if (digits == NULL)
        return 0;
    link[len] = '\0';
    return strtoull(digits + 1, NULL, 10);
}

/*
 * The machine: the same kernel instance (its boot id, or the host's name where that cannot be
 * read), PID namespace and user. Read once per process (none of them changes while it runs; a
 * fork's child reads its own).
 */
uint64_t ADIOI_EDONIO_Node_machine(void)
{
    static uint64_t known;
    static pid_t known_by;
    char boot[64] = "", host[256] = "";
    uint64_t key = 0x65646f6e696fULL;
    int fd;

    if (known_by == getpid())
        return known;
    if ((fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC)) >= 0) {
        ssize_t got = read(fd, boot, sizeof(boot) - 1); /* no stdio: 30 us less, first time */
        boot[got > 0 ? got : 0] = '\0';
        close(fd);
    }
    if (boot[0] == '\0' && gethostname(host, sizeof(host) - 1) == 0)
        key = hash_text(key, host);
    key = hash_text(key, boot);
    key = mix(key, pid_namespace());
    known = mix(key, (uint64_t)getuid());
    known_by = getpid();
    return known;
}

enum { MAX_CPUS = 1 << 16 }; /* the largest affinity mask asked for */

long ADIOI_EDONIO_Node_cpus(uint64_t *mask)
{
    const char *test = getenv("EDONIO_TEST_CPUS");
    long count = -1;
    uint64_t h = 0;

    *mask = 0;
    if (test != NULL)
        return atol(test);
    /* A mask of CPU_SETSIZE (1024) processors first; a larger one where the kernel has more. */
    for (int n = CPU_SETSIZE; n <= MAX_CPUS && count < 0; n *= 2) {
        cpu_set_t *set = CPU_ALLOC(n);
        size_t size = CPU_ALLOC_SIZE(n);

        if (set == NULL)
            break;
        if (sched_getaffinity(0, size, set) == 0) {
            for (int cpu = 0; cpu < n; cpu++)
                if (CPU_ISSET_S(cpu, size, set))
                    h = mix(h, (uint64_t)cpu + 1);
            count = CPU_COUNT_S(size, set);
        } else if (errno != EINVAL) {
            n = MAX_CPUS; /* no mask to be had */
        }
        CPU_FREE(set);
    }
    if (count < 0)
        return sysconf(_SC_NPROCESSORS_ONLN);
    *mask = h;
    return count;
}

/*
 * Processes with equal keys can map each other's memfd: the same machine (above).
 * EDONIO_TEST_NODE, for tests only, splits one machine into nodes: processes whose values differ
 * never share memory, so that several processes per node on several nodes can be run on one
 * machine (test/cache/run.sh; MPICH's MPIR_CVAR_NOLOCAL gives every process a node of its own).
 * Its value "process" makes every process a node of its own, as MPIR_CVAR_NOLOCAL does, under
 * an MPI that has no such switch (Open MPI, whose simulated nodes are its tcp transport alone).
 */
static uint64_t node_key(const struct edonio_hints *h, uint64_t cookie)
{
    const char *split = getenv("EDONIO_TEST_NODE");
    uint64_t key = ADIOI_EDONIO_Node_machine();

    if (!h->shared_memory || mpich_nolocal() || (split != NULL && !strcmp(split, "process")))
        return cookie; /* unique: a node of its own */
    return split != NULL ? hash_text(key, split) : key;
}

/* ---------------------------------------------------------------- this process's memory */

/* This machine's physical memory: read at a process's first open. */
static long long physical_memory(void)
{
    static long long known;

    if (known == 0) {
        long long bytes = (long long)sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE);
        known = bytes > 0 ? bytes : (1LL << 30);
    }
    return known;
}

/* The node's memory (node_memory) once read; 0 before. */
static long long node_bytes;

/*
 * Physical memory this node can give a cache: the machine's, or the lowest limit of the cgroups
 * the process is in (its own and their ancestors: a batch system's job limit, a container's), if
 * lower. Both are set before a job starts, so this is read once per process, and only when a
 * segment first fills the memory every segment may use without it (FIRST_LIMIT): reading the
 * cgroup files took 150-250 us of a process's first open, a third of what its open cost beyond
 * ufs's, for a bound that small files never come near. EDONIO_TEST_MEMORY_LIMIT (bytes), for
 * tests only, stands for the cgroup's limit.
 */
static long long node_memory(void)
{
    const char *test = getenv("EDONIO_TEST_MEMORY_LIMIT");
    long long limit;

    if (node_bytes > 0)
        return node_bytes;
    limit = test != NULL ? atoll(test)
                         : edonio_cgroup_limit("/proc/self/cgroup", "/sys/fs/cgroup",
                                               "/sys/fs/cgroup/memory");
    node_bytes = physical_memory();
    if (limit > 0 && limit < node_bytes)
        node_bytes = limit;
    return node_bytes;
}

/*
 * What a segment may cache before the node's memory limit is known: 4 MiB, so that a node of 128
 * processes holds at most 1 GiB (own and remote segments) before each of them bounds its own by the
 * limit; a limit that allows less lowers the segment then, and its blocks beyond it are evicted.
 */
enum { FIRST_LIMIT = 4 << 20 };

/* Slots for 'bytes' of blocks, at most 'cap' bytes of them, at least one. */
static int32_t slots_for(long long bytes, long long block, long long cap)
{
    if (bytes > cap)
        bytes = cap;
    bytes /= block;
    if (bytes > INT32_MAX / 4)
        bytes = INT32_MAX / 4;
    return (int32_t)(bytes > 1 ? bytes : 1);
}

/* The memory of a process: its own segment, then its remote segment. */
static size_t memory_size(const struct edonio_hints *h, int nprocs, long long cap)
{
    uint32_t bs = (uint32_t)h->block_size;
    int32_t remote = nprocs > 1 ? slots_for(h->remote_cache_size, bs, cap) : 0;

    return edonio_segment_size(slots_for(h->cache_size, bs, cap), bs) +
           edonio_segment_size(remote, bs);
}

static int node_alloc(struct edonio_node *n, int nprocs)
{
    n->rank = calloc((size_t)nprocs, sizeof(int));
    n->index = calloc((size_t)nprocs, sizeof(int));
    n->own = calloc((size_t)nprocs, sizeof(*n->own));
    n->remote = calloc((size_t)nprocs, sizeof(*n->remote));
    n->map = calloc((size_t)nprocs, sizeof(*n->map));
    n->bytes = calloc((size_t)nprocs, sizeof(*n->bytes));
    n->fd = malloc((size_t)nprocs * sizeof(*n->fd));
    n->pid = calloc((size_t)nprocs, sizeof(*n->pid));
    for (int i = 0; n->fd != NULL && i < nprocs; i++)
        n->fd[i] = -1;
    return n->rank && n->index && n->own && n->remote && n->map && n->bytes && n->fd && n->pid;
}

void ADIOI_EDONIO_Node_identify(struct edonio_cache *c, struct edonio_peer *me)
{
    struct edonio_node *n = &c->node;

    n->cookie = ADIOI_EDONIO_Node_random();
    n->key = node_key(&c->hints, n->cookie);
    *me = (struct edonio_peer){n->key, n->cookie, 0, (int32_t)getpid(), -1, 0, 0};
}

int ADIOI_EDONIO_Node_prepare(struct edonio_cache *c, struct edonio_peer *me)
{
    struct edonio_node *n = &c->node;
    size_t bytes = memory_size(&c->hints, c->nprocs, physical_memory());
    void *mem;

    ADIOI_EDONIO_Node_identify(c, me);
    me->bytes = bytes;
    if (!node_alloc(n, c->nprocs))
        return ENOMEM;
    if ((n->memfd = memfd_create("edonio-cache", MFD_CLOEXEC)) < 0)
        return errno;
    if (ftruncate(n->memfd, (off_t)bytes) != 0)
        return errno;
    mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, n->memfd, 0);
    if (mem == MAP_FAILED)
        return errno;
    n->map[0] = mem;
    n->bytes[0] = bytes;
    me->memfd = n->memfd;
    return 0;
}

/*
 * The limit of a segment of 'slots' slots that gets 1/share of the node's memory. Before that
 * memory is known (node_memory), the machine's bounds it, and the limit starts at FIRST_LIMIT
 * bytes, to grow when the segment first fills (ADIOI_EDONIO_Node_grow). Returns the limit it may
 * reach.
 */
static int32_t bound(struct edonio_segment *seg, int32_t slots, long long share)
{
    long long bs = seg->block_size;

    if (slots == 0 || node_bytes > 0) {
        seg->limit = slots ? slots_for(slots * bs, bs, node_bytes / share) : 0;
        return seg->limit;
    }
    int32_t planned = slots_for(slots * bs, bs, physical_memory() / share);
    seg->limit = slots_for(FIRST_LIMIT, bs, planned * bs);
    if (planned > seg->limit) {
        seg->planned = planned;
        seg->share = (int32_t)share;
    }
    return planned;
}

/* The bytes a segment may hold, once the node's memory limit is known (bound). */
static long long ceiling(const struct edonio_segment *seg)
{
    return (long long)(seg->planned > seg->limit ? seg->planned : seg->limit) * seg->block_size;
}

void ADIOI_EDONIO_Node_grow(struct edonio_segment *seg)
{
    long long bs = seg->block_size;

    /* up, or down where the limit allows less than the first limit (the caller evicts) */
    seg->limit = slots_for(seg->planned * bs, bs, node_memory() / seg->share);
    seg->planned = 0;
}

/*
 * Lay out this process's segments in its memory with the cache's hints, within what it reserved
 * and what the node can give (half of the node's memory for the own segments of its processes, a
 * quarter for their remote ones; doc/hints.md), and publish them. The hints become what this
 * process can really cache, as MPI_File_get_info reports (before a segment first fills, bounded
 * by the machine's memory only: see node_memory).
 */
static void lay_out(struct edonio_cache *c, int nlocal)
{
    struct edonio_node *n = &c->node;
    uint32_t bs = (uint32_t)c->hints.block_size;
    size_t reserved = n->bytes[0], meta = edonio_segment_size(0, bs);
    long long per = nlocal > 0 ? nlocal : 1;
    long long room = (long long)(reserved - 2 * meta);
    int32_t own = slots_for(c->hints.cache_size, bs, room);
    int32_t remote = c->nprocs > 1 ? slots_for(c->hints.remote_cache_size, bs, room) : 0;
    struct stat st;

    while (edonio_segment_size(own, bs) + edonio_segment_size(remote, bs) > reserved) {
        /* another process's hints: fit what this one reserved */
        own = own > 1 ? own / 2 : 1;
        remote = remote > 1 ? remote / 2 : remote;
    }
    struct edonio_segment *o = edonio_segment_init(n->map[0], own, bs, n->cookie);
    struct edonio_segment *r = edonio_segment_init((char *)n->map[0] + edonio_segment_size(own, bs),
                                                   remote, bs, n->cookie);
    c->hints.cache_size = (long long)bound(o, own, 2 * per) * bs;
    bound(r, remote, 4 * per);
    atomic_store(&o->size, fstat(c->fd_sys, &st) == 0 ? (int64_t)st.st_size : 0);
    long long mem = node_bytes > 0 ? node_bytes : physical_memory();
    c->hints.remote_cache_size =
        (long long)slots_for(c->hints.remote_cache_size, bs, mem / per / 4) * bs;
    n->own[0] = o;
    n->remote[0] = r;
    atomic_store_explicit(&r->ready, 1, memory_order_release);
    atomic_store_explicit(&o->ready, 1, memory_order_release);
}

/* A laid-out segment of the process with this cookie, once its owner has published it. */
static int wait_ready(struct edonio_segment *seg, uint64_t cookie)
{
    time_t until = time(NULL) + READY_WAIT_S;

    while (!atomic_load_explicit(&seg->ready, memory_order_acquire)) {
        if (time(NULL) > until)
            return 0;
        sched_yield(); /* its owner may share our core */
    }
    return seg->magic == EDONIO_SEGMENT_MAGIC && seg->cookie == cookie;
}

/* pidfd_open and pidfd_getfd (Linux 5.3 and 5.6) where the C library's headers predate them: the
 * same numbers on every architecture but alpha; an older kernel answers ENOSYS. */
#if defined(__linux__) && !defined(__alpha__)
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif
#endif

/*
 * May this process ask for copies of its peers' descriptors? Not where Yama restricts tracing
 * (ptrace_scope 1 or more: only a process's descendants, and MPI's processes are siblings), since
 * Yama refuses and logs each refusal; nor with EDONIO_TEST_NO_PIDFD (tests only: the way through
 * /proc alone). Read at the first peer a process maps.
 */
static int pidfd_allowed(void)
{
    char v[8] = "";
    int fd;

    if (getenv("EDONIO_TEST_NO_PIDFD") != NULL)
        return 0;
    if ((fd = open("/proc/sys/kernel/yama/ptrace_scope", O_RDONLY | O_CLOEXEC)) >= 0) {
        ssize_t got = read(fd, v, sizeof(v) - 1);
        v[got > 0 ? got : 0] = '\0';
        close(fd);
    }
    return atoi(v) <= 0;
}

/*
 * A copy of another process's memfd descriptor (pidfd_getfd), -1 when refused or impossible. It
 * needs the right to trace the process (the same user, groups and a dumpable process, or
 * CAP_SYS_PTRACE) and the system calls allowed (a container's seccomp filter, valgrind 3.19 and
 * kernels before 5.6 refuse them): after a refusal this process asks no more.
 */
static int copy_peer_memfd(const struct edonio_peer *p)
{
    static int allowed = -1;
    int fd = -1;

    if (allowed < 0)
        allowed = pidfd_allowed();
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_getfd)
    if (allowed) {
        int pidfd = (int)syscall(SYS_pidfd_open, (pid_t)p->pid, 0), err = errno;
        if (pidfd >= 0) {
            fd = (int)syscall(SYS_pidfd_getfd, pidfd, (int)p->memfd, 0); /* close-on-exec */
            err = errno;
            close(pidfd);
        }
        if (fd < 0 && (err == ENOSYS || err == EPERM || err == EACCES))
            allowed = 0;
    }
#endif
    return fd;
}

/*
 * A descriptor of another process's memfd: a copy of its own (copy_peer_memfd), else the file
 * opened again through /proc/<pid>/fd/<fd>, which needs only the right to read the process. The
 * copy makes no path lookup in /proc: 6.4 against 10.6 us per peer at 63 peers, 17.7 against 21.6
 * at 3 (perf/cases/peer_fds.c; measured at f5dbdfa), and a node of 64 processes maps 63 at a process's
 * first open. -1 when neither works.
 */
static int peer_memfd(const struct edonio_peer *p)
{
    char path[64];
    int fd = copy_peer_memfd(p);

    if (fd >= 0)
        return fd;
    snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)p->pid, (int)p->memfd);
    return open(path, O_RDWR | O_CLOEXEC);
}

/* Map another process of this node at index i; 1 when it can be reached in memory. */
static int map_peer(struct edonio_node *n, const struct edonio_peer *p, int i)
{
    void *mem;
    int fd;

    if ((fd = peer_memfd(p)) < 0)
        return 0;
    /* A file shorter than what the peer laid out (not its memfd after all: a pid reused) would
     * raise SIGBUS at the first look, before its cookie could be checked. */
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size < p->bytes) {
        close(fd);
        return 0;
    }
    mem = mmap(NULL, p->bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
    if (mem == MAP_FAILED) {
        close(fd);
        return 0;
    }
    struct edonio_segment *own = mem;
    if (wait_ready(own, p->cookie)) {
        struct edonio_segment *remote =
            (struct edonio_segment *)((char *)mem + edonio_segment_size(own->nslots,
                                                                        own->block_size));
        if (wait_ready(remote, p->cookie) && own->block_size == n->own[n->me]->block_size) {
            n->map[i] = mem;
            n->bytes[i] = p->bytes;
            n->own[i] = own;
            n->remote[i] = remote;
            n->fd[i] = fd; /* kept: the blocks' bytes go through it */
            return 1;
        }
    }
    munmap(mem, p->bytes);
    close(fd);
    return 0;
}

void ADIOI_EDONIO_Node_attach(struct edonio_cache *c, const struct edonio_peer *all)
{
    struct edonio_node *n = &c->node;
    int nlocal = 0;

    for (int r = 0; r < c->nprocs; r++)
        nlocal += all[r].key == n->key;
    lay_out(c, nlocal);
    /* This process's memory is at index 0 until its place among the node's is known. */
    void *mine = n->map[0];
    size_t mine_bytes = n->bytes[0];
    struct edonio_segment *own = n->own[0], *remote = n->remote[0];
    n->n = 0;
    n->me = 0;
    for (int r = 0; r < c->nprocs; r++) {
        n->index[r] = -1;
        if (all[r].key != n->key)
            continue;
        if (r == c->rank) {
            n->me = n->n;
            n->map[n->n] = mine;
            n->bytes[n->n] = mine_bytes;
            n->own[n->n] = own;
            n->remote[n->n] = remote;
            n->fd[n->n] = n->memfd;
        } else if (!map_peer(n, &all[r], n->n)) {
            continue; /* reached over the network */
        }
        n->rank[n->n] = r;
        n->pid[n->n] = all[r].pid;
        n->index[r] = n->n++;
    }
    n->size = &n->own[0]->size; /* the node's first process keeps the node's size */
}

static void detach_node(struct edonio_node *n)
{
    for (int i = 0; n->map != NULL && i < n->n; i++) {
        if (n->map[i] != NULL)
            munmap(n->map[i], n->bytes[i]);
        if (i != n->me && n->fd[i] >= 0)
            close(n->fd[i]);
    }
    if (n->n == 0 && n->map != NULL && n->map[0] != NULL) /* prepared, never attached */
        munmap(n->map[0], n->bytes[0]);
    if (n->memfd >= 0)
        close(n->memfd);
    n->memfd = -1;
    free(n->rank);
    free(n->index);
    free(n->own);
    free(n->remote);
    free(n->map);
    free(n->bytes);
    free(n->fd);
    free(n->pid);
    memset(n, 0, sizeof(*n));
    n->memfd = -1;
}

void ADIOI_EDONIO_Node_detach(struct edonio_cache *c)
{
    detach_node(&c->node);
}

/* ---------------------------------------------------------------- memory kept after a close */

/*
 * The memory of the last cache this process closed (ADIOI_EDONIO_Node_keep): its segments empty,
 * their slots' pages still allocated and mapped by every process of the node, for the next cache
 * the same processes make in the same shape (ADIOI_EDONIO_Node_kept, _adopt). What a file costs to
 * cache the first time (allocating pages, faulting them into every process, mapping the node's
 * memfds) is then paid once per run, not once per open. No block is kept, only memory: a file
 * opened again is read afresh, as MPI requires after a close and an open (MPI-3.1 13.6.1), and
 * what another program wrote meanwhile is seen. Released when an open cannot use it, and at
 * MPI_Finalize.
 */
static struct {
    struct edonio_node node;   /* node.n == 0: nothing kept */
    struct edonio_hints asked; /* rank 0's hints when it was made: the shape it has */
    struct edonio_hints given; /* what they became on this process (lay_out) */
    MPI_Group group;           /* its processes */
    uint64_t id;               /* the same on each of them: rank 0's cookie at its open */
    int nodes_apart, nodes_shared;
} kept = {.node.memfd = -1, .group = MPI_GROUP_NULL};

static int kept_keyval = MPI_KEYVAL_INVALID;

static void forget_kept(void)
{
    detach_node(&kept.node);
    if (kept.group != MPI_GROUP_NULL)
        MPI_Group_free(&kept.group);
    kept.id = 0;
}

/* MPI_Finalize deletes MPI_COMM_SELF's attributes first: the kept memory goes then. */
static int release_at_finalize(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm, (void)keyval, (void)value, (void)extra;
    forget_kept();
    return MPI_SUCCESS;
}

/* Is every slot of seg clean? (A close that wrote everything back leaves no dirty block.) */
static int all_clean(struct edonio_segment *seg)
{
    for (int32_t i = 0; i < seg->nhigh; i++)
        if (edonio_slot_at(seg, i)->block >= 0 && edonio_slot_at(seg, i)->ndirty > 0)
            return 0;
    return 1;
}

void ADIOI_EDONIO_Node_keep(struct edonio_cache *c)
{
    struct edonio_node *n = &c->node;

    if (n->n == 0 || !all_clean(n->own[n->me]) || !all_clean(n->remote[n->me])) {
        ADIOI_EDONIO_Node_detach(c);
        return;
    }
    if (kept_keyval == MPI_KEYVAL_INVALID &&
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, release_at_finalize, &kept_keyval,
                               NULL) == MPI_SUCCESS)
        MPI_Comm_set_attr(MPI_COMM_SELF, kept_keyval, NULL);
    forget_kept(); /* one kept at most: the last */
    edonio_clear(n->own[n->me]);
    edonio_clear(n->remote[n->me]);
    kept.node = *n;
    kept.asked = c->asked;
    kept.given = c->hints;
    kept.nodes_apart = c->nodes_apart;
    kept.nodes_shared = c->nodes_shared;
    kept.id = c->id;
    MPI_Group_excl(c->group, 0, NULL, &kept.group); /* a copy */
    memset(n, 0, sizeof(*n));
    n->memfd = -1;
}

uint64_t ADIOI_EDONIO_Node_kept(struct edonio_cache *c)
{
    int same = MPI_UNEQUAL;
    struct stat st;

    if (kept.node.n == 0)
        return 0;
    MPI_Group_compare(kept.group, c->group, &same);
    if (same != MPI_IDENT)
        return 0; /* kept for the next open of its own processes */
    /* Nobody uses it before the open's exchange is over: it starts as lay_out starts a segment. */
    struct edonio_segment *own = kept.node.own[kept.node.me];
    atomic_store(&own->size, fstat(c->fd_sys, &st) == 0 ? (int64_t)st.st_size : 0);
    atomic_store(&own->syncs, 0);
    return kept.id;
}

int ADIOI_EDONIO_Node_kept_shape(const struct edonio_hints *h)
{
    return kept.node.n > 0 && ADIOI_EDONIO_Hints_same_shape(h, &kept.asked);
}

int ADIOI_EDONIO_Node_adopt(struct edonio_cache *c, int offered, int offered_by_all)
{
    struct edonio_node *n = &kept.node;

    if (!offered)
        return 0;
    if (!offered_by_all || !ADIOI_EDONIO_Hints_same_shape(&c->asked, &kept.asked)) {
        forget_kept(); /* these processes make new memory: this one would never serve again */
        return 0;
    }
    ADIOI_EDONIO_Node_detach(c); /* the memory prepared in case */
    c->node = *n;
    /* as lay_out gave them, or lower where a segment has learnt the node's memory limit since */
    long long own = ceiling(n->own[n->me]), remote = ceiling(n->remote[n->me]);
    c->hints.cache_size = own < kept.given.cache_size ? own : kept.given.cache_size;
    c->hints.remote_cache_size = kept.given.remote_cache_size;
    if (remote > 0 && remote < c->hints.remote_cache_size)
        c->hints.remote_cache_size = remote;
    c->nodes_apart = kept.nodes_apart;
    c->nodes_shared = kept.nodes_shared;
    c->reused = ((long long)n->own[n->me]->nbacked + n->remote[n->me]->nbacked) *
                c->hints.block_size;
    memset(n, 0, sizeof(*n));
    n->memfd = -1;
    forget_kept();
    return 1;
}

/* ---------------------------------------------------------------- reaching a segment */

void ADIOI_EDONIO_Node_lock(struct edonio_segment *seg)
{
    edonio_seglock_take(seg);
}

void ADIOI_EDONIO_Node_release(struct edonio_segment *seg)
{
    edonio_seglock_give(seg);
}

void ADIOI_EDONIO_Node_all_in_flush(struct edonio_node *n)
{
    /* seq_cst: each process counts itself before it looks at the others' counts */
    uint64_t mine = atomic_fetch_add(&n->own[n->me]->syncs, 1) + 1;

    for (int i = 0; i < n->n; i++)
        for (int spins = 0; atomic_load(&n->own[i]->syncs) < mine; spins++)
            if (spins > 64)
                sched_yield(); /* on its way (a collective call): polled as MPI's own would */
}

/*
 * Which of the node's remote segments keeps a block owned elsewhere: spread by the block. From the
 * hash's high bits: its low ones are the block's own (mix multiplies), so with a power-of-two node
 * size that divides P every block of one owner would go to one segment.
 */
static int remote_holder(const struct edonio_node *n, int64_t block)
{
    return (int)((mix(0, (uint64_t)block) >> 32) % (uint64_t)n->n);
}

struct edonio_segment *ADIOI_EDONIO_Node_segment(struct edonio_cache *c, int64_t block)
{
    struct edonio_node *n = &c->node;
    int i = n->index[edonio_owner(block, c->nprocs)];

    return i >= 0 ? n->own[i] : n->remote[remote_holder(n, block)];
}

struct edonio_segment *ADIOI_EDONIO_Node_hold(struct edonio_cache *c, int64_t block)
{
    struct edonio_segment *seg = ADIOI_EDONIO_Node_segment(c, block);

    ADIOI_EDONIO_Node_lock(seg);
    return seg;
}

struct edonio_segment *ADIOI_EDONIO_Node_own(struct edonio_cache *c)
{
    return c->node.own[c->node.me];
}

struct edonio_segment *ADIOI_EDONIO_Node_remote(struct edonio_cache *c)
{
    return c->node.remote[c->node.me];
}

int ADIOI_EDONIO_Node_reaches(const struct edonio_cache *c, int rank)
{
    return c->node.index[rank] >= 0;
}

/* ---------------------------------------------------------------- the blocks' bytes */

/* Allocated ahead of need, at most: a segment grows by this much at once (fewer calls). */
enum { BACK_STEP = 256 << 10 };

/* The memfd holding seg, and where seg starts in it. */
static int memfd_of(const struct edonio_node *n, const struct edonio_segment *seg, off_t *base)
{
    for (int i = 0; i < n->n; i++)
        if (n->own[i] == seg || n->remote[i] == seg) {
            *base = (off_t)((const char *)seg - (const char *)n->map[i]);
            return n->fd[i];
        }
    return -1;
}

int ADIOI_EDONIO_Node_back(struct edonio_cache *c, struct edonio_segment *seg, int32_t slot)
{
    int32_t step = (int32_t)(BACK_STEP / seg->block_size), upto = slot + 1;
    off_t base;
    int fd;

    if (slot < seg->nbacked)
        return 0;
    if (upto < seg->nbacked + step)
        upto = seg->nbacked + step;
    if (upto > seg->nslots)
        upto = seg->nslots;
    if ((fd = memfd_of(&c->node, seg, &base)) < 0)
        return EINVAL;
    off_t from = base + (off_t)seg->data_offset + (off_t)seg->nbacked * seg->block_size;
    while (fallocate(fd, 0, from, (off_t)(upto - seg->nbacked) * seg->block_size) != 0)
        if (errno != EINTR)
            return errno;
    seg->nbacked = upto;
    return 0;
}

int ADIOI_EDONIO_Node_back_map(struct edonio_cache *c, struct edonio_segment *seg, int32_t slot)
{
    off_t base;
    int fd = memfd_of(&c->node, seg, &base);

    if (fd < 0)
        return EINVAL;
    base += (off_t)edonio_slot_map_offset(seg, slot);
    while (fallocate(fd, 0, base, seg->block_size / 8) != 0) /* pages it has stay as they are */
        if (errno != EINTR)
            return errno;
    return 0;
}

/* ---------------------------------------------------------------- the file's size */

/*
 * What this node knows: the end of every byte written through it, and what the file system said at
 * open, at sync and when a read looked past it. Other nodes' writes count from the next sync.
 */
ADIO_Offset ADIOI_EDONIO_Size_get(struct edonio_cache *c)
{
    return atomic_load(c->node.size);
}

void ADIOI_EDONIO_Size_max(struct edonio_cache *c, ADIO_Offset end)
{
    int64_t cur = atomic_load(c->node.size);

    while (cur < end && !atomic_compare_exchange_weak(c->node.size, &cur, end))
        ;
}

ADIO_Offset ADIOI_EDONIO_Size_reaching(struct edonio_cache *c, ADIO_Offset end)
{
    ADIO_Offset size = ADIOI_EDONIO_Size_get(c);
    struct stat sb;

    if (end > size && fstat(c->fd_sys, &sb) == 0 && sb.st_size > size) {
        ADIOI_EDONIO_Size_max(c, sb.st_size);
        size = ADIOI_EDONIO_Size_get(c);
    }
    return size;
}

void ADIOI_EDONIO_Size_set(struct edonio_cache *c, ADIO_Offset size)
{
    atomic_store(c->node.size, size);
}

/* ---------------------------------------------------------------- memory */

void ADIOI_EDONIO_Node_memory(struct edonio_cache *c, long long *mapped, long long *touched)
{
    struct edonio_node *n = &c->node;
    struct stat st;

    *mapped = n->n > 0 ? (long long)n->bytes[n->me] : 0;
    *touched = n->memfd >= 0 && fstat(n->memfd, &st) == 0 ? (long long)st.st_blocks * 512 : 0;
}
