/*
 * edonio-keeper: keeps one MPI process's cache memory and writes its dirty bytes to their files,
 * after the process dies, and while it lives once they are older than romio_edonio_dirty_expire
 * (ad_edonio/ad_edonio_keeper.h says why; doc/design.md, "What survives a process").
 *
 * Started by the process (posix_spawn, a session of its own), it makes no MPI call and takes no
 * part in the job. Descriptor 3 is a socket to the process: each message attaches a cache (its
 * file's and its memfd's descriptors, the pids of the node's other processes that map the memfd)
 * or detaches one. The socket's end of file is the process's death, however it died (its exit
 * too). Then the keeper waits until the node's other processes of its caches have died as well
 * (they may still write into its segments), writes every dirty extent of its segments to the file
 * as the process would have (exactly the bytes written, no lock: nobody is left to race with),
 * says on standard error and in the system log what it could not write, and exits.
 *
 * While the process lives, the keeper wakes every half of the shortest expiry of its caches and,
 * under each segment's lock (taken as the processes take it; given up for this round after a
 * short wait, as is a slot still being copied into), writes back the blocks dirty for longer,
 * exactly their extents, as an eviction would; the slot is then clean. A segment now serving
 * another cache (its cache_id) is left alone.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "ad_edonio_keeper.h"
#include "ad_edonio_seglock.h"
#include "ad_edonio_segment.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif

/* How long a round waits for a segment's lock or a slot's copy before it tries again later. */
enum { LOCK_WAIT_MS = 20, PEER_POLL_MS = 50 };

struct kcache {
    uint64_t id;
    int file, memfd;
    void *map;
    size_t bytes;
    int npeers;
    int *peer;  /* pidfd of each other process of the node that maps the memory, or -1: gone */
    pid_t *pid; /* their pids (kill(pid, 0) where pidfd_open is not available) */
    char *name;
    struct kcache *next;
};

static struct kcache *caches;
static pid_t parent;

static double now_ms(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static struct edonio_segment *segment(const struct kcache *k, int which)
{
    struct edonio_segment *own = k->map;

    if (which == 0)
        return own;
    return (struct edonio_segment *)((char *)k->map +
                                     edonio_segment_size(own->nslots, own->block_size));
}

/* ---------------------------------------------------------------- messages */

static void drop(struct kcache *k)
{
    for (struct kcache **p = &caches; *p != NULL; p = &(*p)->next)
        if (*p == k) {
            *p = k->next;
            break;
        }
    if (k->map != NULL && k->map != MAP_FAILED)
        munmap(k->map, k->bytes);
    for (int i = 0; i < k->npeers; i++)
        if (k->peer[i] >= 0)
            close(k->peer[i]);
    close(k->file);
    close(k->memfd);
    free(k->peer);
    free(k->pid);
    free(k->name);
    free(k);
}

static void attach(const struct edonio_keeper_msg *m, const int32_t *pids, const char *name,
                   const int *fds)
{
    struct kcache *k = calloc(1, sizeof(*k));

    if (k == NULL || m->bytes < sizeof(struct edonio_segment) ||
        m->layout != EDONIO_KEEPER_LAYOUT) { /* another edonio's keeper would misread them */
        if (k != NULL)
            fprintf(stderr,
                    "edonio-keeper: %s: the library's segments are not this keeper's (layout "
                    "%llx, mine %llx): not kept\n",
                    name, (unsigned long long)m->layout, (unsigned long long)EDONIO_KEEPER_LAYOUT);
        free(k);
        close(fds[0]);
        close(fds[1]);
        return;
    }
    k->id = m->id;
    k->file = fds[0];
    k->memfd = fds[1];
    k->bytes = m->bytes;
    k->name = strdup(name);
    k->peer = calloc((size_t)m->npids + 1, sizeof(*k->peer));
    k->pid = calloc((size_t)m->npids + 1, sizeof(*k->pid));
    k->map = mmap(NULL, k->bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, k->memfd, 0);
    k->next = caches;
    caches = k;
    if (k->map == MAP_FAILED || k->peer == NULL || k->pid == NULL || k->name == NULL) {
        fprintf(stderr, "edonio-keeper: cannot keep the cache of %s: %s\n", name, strerror(errno));
        drop(k); /* npeers still 0: no pidfd to close */
        return;
    }
    k->npeers = m->npids;
    for (int i = 0; i < k->npeers; i++) {
        k->pid[i] = pids[i];
        k->peer[i] = (int)syscall(SYS_pidfd_open, (pid_t)pids[i], 0);
    }
}

/* The messages waiting on the socket; 0 once the process is gone. */
static int receive(int flags)
{
    static char buf[sizeof(struct edonio_keeper_msg) + EDONIO_KEEPER_PIDS * sizeof(int32_t) +
                    EDONIO_KEEPER_NAME];
    union {
        char buf[CMSG_SPACE(2 * sizeof(int))];
        struct cmsghdr align;
    } control;

    for (;;) {
        struct iovec iov = {buf, sizeof(buf)};
        struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
        msg.msg_control = control.buf;
        msg.msg_controllen = sizeof(control.buf);
        ssize_t got = recvmsg(EDONIO_KEEPER_FD, &msg, flags | MSG_CMSG_CLOEXEC);
        if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 1;
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return 0;
        int fds[2] = {-1, -1}, nfds = 0;
        for (struct cmsghdr *cm = CMSG_FIRSTHDR(&msg); cm != NULL; cm = CMSG_NXTHDR(&msg, cm))
            if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
                nfds = (int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
                memcpy(fds, CMSG_DATA(cm), (size_t)(nfds < 2 ? nfds : 2) * sizeof(int));
            }
        struct edonio_keeper_msg m;
        memcpy(&m, buf, sizeof(m));
        size_t pids_end = sizeof(m) + (size_t)(m.npids > 0 ? m.npids : 0) * sizeof(int32_t);
        if (m.magic != EDONIO_KEEPER_MAGIC || m.npids < 0 || m.npids > EDONIO_KEEPER_PIDS ||
            (size_t)got <= pids_end) {
            for (int i = 0; i < nfds && i < 2; i++)
                close(fds[i]);
            continue;
        }
        buf[got - 1] = '\0';
        if (m.op == EDONIO_KEEPER_ATTACH && nfds == 2) {
            attach(&m, (const int32_t *)(buf + sizeof(m)), buf + pids_end, fds);
        } else {
            for (int i = 0; i < nfds && i < 2; i++)
                close(fds[i]);
            for (struct kcache *k = caches; k != NULL; k = k->next)
                if (m.op == EDONIO_KEEPER_DETACH && k->id == m.id) {
                    drop(k);
                    break;
                }
        }
        flags |= MSG_DONTWAIT;
    }
}

/* ---------------------------------------------------------------- writing back */

static int write_range(const struct kcache *k, const unsigned char *data, uint32_t lo, uint32_t hi,
                       off_t start, long long *lost)
{
    size_t len = hi - lo, done = 0;
    int err = 0;

    while (err == 0 && done < len) {
        ssize_t w = pwrite(k->file, data + lo + done, len - done, start + lo + (off_t)done);
        if (w > 0)
            done += (size_t)w;
        else if (w < 0 && errno != EINTR)
            err = errno;
        else if (w == 0)
            err = EIO;
    }
    if (err)
        *lost += (long long)(len - done);
    return err;
}

/*
 * A byte-range lock (type F_WRLCK, or F_UNLCK) over [start, start + len) where the library's
 * write-backs take one (romio_edonio_write_back=span: another cache's span, a read-modify-write,
 * must not land around this write and undo it), else nothing.
 */
static void range_lock(const struct kcache *k, struct edonio_segment *seg, int type, off_t start,
                       off_t len)
{
    struct flock fl = {.l_type = (short)type, .l_whence = SEEK_SET, .l_start = start, .l_len = len};

    if (atomic_load(&seg->locked_writes))
        while (fcntl(k->file, F_SETLKW, &fl) != 0 && errno == EINTR)
            ;
}

/*
 * A slot's dirty extents to the file: 0, or errno with *lost the bytes not written. After the
 * process died ('dead'), a copy into the slot may have been under way (busy): the new bytes it was
 * copying ([copy_lo, copy_hi)) are left out, as part of them may be old memory, not written bytes.
 */
static int write_slot(const struct kcache *k, struct edonio_segment *seg, int32_t i, int dead,
                      long long *lost)
{
    struct edonio_slot *s = edonio_slot_at(seg, i);
    const unsigned char *data = edonio_slot_data(seg, i);
    off_t start = (off_t)s->block * seg->block_size;
    struct edonio_extent all, run;
    uint32_t skip_lo = 0, skip_hi = 0;
    int err = 0;

    if (s->ndirty == 0)
        return 0;
    all = edonio_dirty_span(s);
    if (edonio_dirty_mapped(s) &&
        (const char *)s + s->map != (const char *)edonio_slot_map(seg, i)) {
        *lost += all.hi - all.lo; /* its map is not where it lies: changed as the process died */
        return EINVAL;
    }
    if (dead && atomic_load(&s->busy) != 0) {
        skip_lo = s->copy_lo;
        skip_hi = s->copy_hi;
    }
    off_t span_lo = start + all.lo, span = all.hi - all.lo;
    range_lock(k, seg, F_WRLCK, span_lo, span);
    for (uint32_t at = 0; err == 0 && edonio_dirty_run(s, at, &run); at = run.hi) {
        uint32_t lo = run.lo, hi = run.hi;
        if (skip_hi > skip_lo && lo < skip_hi && skip_lo < hi) { /* around the copy's bytes */
            if (lo < skip_lo)
                err = write_range(k, data, lo, skip_lo, start, lost);
            if (err == 0 && skip_hi < hi)
                err = write_range(k, data, skip_hi, hi, start, lost);
        } else {
            err = write_range(k, data, lo, hi, start, lost);
        }
    }
    range_lock(k, seg, F_UNLCK, span_lo, span);
    return err;
}

static int idle(struct edonio_slot *s)
{
    double until = now_ms() + LOCK_WAIT_MS;

    while (atomic_load_explicit(&s->busy, memory_order_acquire) != 0)
        if (now_ms() > until)
            return 0;
        else
            sched_yield();
    return 1;
}

static void report(const struct kcache *k, long long lost, int err, const char *when)
{
    if (lost == 0)
        return;
    fprintf(stderr, "edonio-keeper: %s: %lld bytes of cached data not written %s: %s\n", k->name,
            lost, when, strerror(err));
    syslog(LOG_ERR, "edonio-keeper: %s: %lld bytes of cached data not written %s: %s", k->name,
           lost, when, strerror(err));
}

/* While the process lives: blocks dirty for longer than their segment's expiry, to the file. */
static void expire(struct kcache *k, uint32_t now)
{
    long long lost = 0; /* what fails stays dirty: the process's next write-back tries again and
                         * reports it */

    for (int which = 0; which < 2; which++) {
        struct edonio_segment *seg = segment(k, which);
        int32_t limit = atomic_load(&seg->dirty_expire), old = 0;
        if (limit <= 0 || atomic_load(&seg->cache_id) != k->id)
            continue;
        for (int32_t i = 0; i < seg->nhigh && !old; i++) { /* a look without the lock */
            struct edonio_slot *s = edonio_slot_at(seg, i);
            old = s->block >= 0 && s->ndirty > 0 && (int32_t)(now - s->dirty_since) >= limit;
        }
        if (!old || !edonio_seglock_try(seg, LOCK_WAIT_MS))
            continue;
        for (int32_t i = 0; i < seg->nhigh && atomic_load(&seg->cache_id) == k->id; i++) {
            struct edonio_slot *s = edonio_slot_at(seg, i);
            /* signed: a slot made dirty after 'now' was read is young, not 4e9 s old */
            if (s->block < 0 || s->ndirty == 0 || (int32_t)(now - s->dirty_since) < limit ||
                !idle(s))
                continue;
            if (write_slot(k, seg, i, 0, &lost) != 0)
                continue;
            if (s->ndirty == 1 && s->dirty[0].lo == 0 && s->dirty[0].hi == seg->block_size)
                edonio_mark_valid(s);
            edonio_dirty_clear(s);
        }
        edonio_seglock_give(seg);
    }
}

/* Every process that could write into the memory has died: everything dirty, to the file. */
static void last_write_back(struct kcache *k)
{
    long long lost = 0;
    int err = 0;

    for (int which = 0; which < 2; which++) {
        struct edonio_segment *seg = segment(k, which);
        uint64_t id = atomic_load(&seg->cache_id);
        if (id != k->id && id != 0) /* 0: held (MPI_File_set_size), still this cache's */
            continue;
        for (int32_t i = 0; i < seg->nhigh; i++) {
            struct edonio_slot *s = edonio_slot_at(seg, i);
            if (s->block >= 0 && s->ndirty > 0) {
                int e = write_slot(k, seg, i, 1, &lost);
                err = e ? e : err;
            }
        }
    }
    char when[64];
    snprintf(when, sizeof(when), "after process %d died", (int)parent);
    report(k, lost, err, when);
}

/* ---------------------------------------------------------------- waiting */

static int peers_gone(void)
{
    for (struct kcache *k = caches; k != NULL; k = k->next)
        for (int i = 0; i < k->npeers; i++) {
            if (k->peer[i] >= 0) {
                struct pollfd p = {k->peer[i], POLLIN, 0};
                if (poll(&p, 1, 0) == 0)
                    return 0; /* alive */
                close(k->peer[i]);
                k->peer[i] = -1;
                k->pid[i] = 0;
            } else if (k->pid[i] > 0 && (kill(k->pid[i], 0) == 0 || errno == EPERM)) {
                return 0; /* no pidfd: alive as far as kill tells */
            }
        }
    return 1;
}

/* Milliseconds until the next round of expiries, or -1 when no cache asks for one. */
static int next_round(void)
{
    int32_t shortest = 0;

    for (struct kcache *k = caches; k != NULL; k = k->next)
        for (int which = 0; which < 2; which++) {
            int32_t e = atomic_load(&segment(k, which)->dirty_expire);
            if (e > 0 && (shortest == 0 || e < shortest))
                shortest = e;
        }
    if (shortest <= 0)
        return -1;
    return (shortest < 3600 ? shortest : 3600) * 500; /* within poll's int of milliseconds */
}

int main(int argc, char **argv)
{
    int alive = 1;
    pid_t child = fork(); /* the process's child exits now: its wait() never waits for a keeper */

    if (child > 0)
        _exit(0);

    signal(SIGTERM, SIG_IGN); /* the job's end: the process's death tells the keeper */
    signal(SIGINT, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    if (syscall(SYS_close_range, EDONIO_KEEPER_FD + 1, ~0U, 0) != 0) /* nothing of the MPI */
        for (int fd = EDONIO_KEEPER_FD + 1; fd < 1024; fd++)         /* process's */
            close(fd);
    parent = argc > 1 ? (pid_t)atoi(argv[1]) : getppid();
    openlog("edonio-keeper", LOG_PID, LOG_USER);
    while (alive || !peers_gone()) {
        struct pollfd p = {EDONIO_KEEPER_FD, POLLIN, 0};
        int wait = next_round();
        if (!alive)
            wait = wait < 0 || wait > PEER_POLL_MS ? PEER_POLL_MS : wait;
        poll(&p, alive ? 1 : 0, wait);
        if (alive && (p.revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL))) /* NVAL: no socket */
            alive = receive(MSG_DONTWAIT);
        uint32_t now = edonio_now();
        for (struct kcache *k = caches; k != NULL; k = k->next)
            expire(k, now);
        if (!alive && caches == NULL)
            break;
    }
    while (caches != NULL) {
        last_write_back(caches);
        drop(caches);
    }
    return 0;
}
