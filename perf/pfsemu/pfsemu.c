/*
 * pfsemu: a parallel-file-system emulator for edonio's benchmarks.
 *
 * A FUSE file system that passes every operation to a backing directory on a local file system
 * and charges each one what a request to a parallel file system (Lustre, GPFS) costs: a fixed
 * latency per data operation (a network round trip to an I/O server), another per metadata
 * operation (a round trip to the metadata server), the transfer time of the bytes through an
 * aggregate bandwidth limit, and optionally a penalty for requests that are unaligned or small
 * (the server's read-modify-write of a partial block). Latencies are slept (nanosleep), not spun,
 * and the daemon is multithreaded, so that requests from several processes overlap their latency
 * as they would on a file system with many servers; only the transfers share the bandwidth.
 *
 * Every file is opened with direct I/O (no kernel page cache), so that each read and write the
 * program issues reaches the emulator (split by the kernel into pieces of at most max_write).
 * The emulator counts operations and bytes by kind and size class; the counters are read from the
 * virtual file <mount>/.pfsemu_stats (write "reset" to it to zero them) and written at unmount to
 * the file named by -o stats=FILE.
 *
 *   pfsemu BACKING_DIR MOUNTPOINT [-f] [-o latency_us=N,meta_us=N,bw_mbs=N,align=N,
 *          unaligned_us=N,small=N,small_us=N,stats=FILE] [other FUSE options]
 *
 * See perf/pfsemu/README.md for the model and where its default figures come from.
 */
#define FUSE_USE_VERSION 31
#define _GNU_SOURCE

#include <fuse.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <linux/fuse.h>

#define STATS_NAME ".pfsemu_stats"

/* ---- the model ---- */

struct model {
    char *backing;      /* the backing directory (absolute) */
    long latency_us;    /* per read or write */
    long meta_us;       /* per metadata operation (open, create, getattr, truncate, fsync, ...) */
    long bw_mbs;        /* aggregate transfer bandwidth, MB/s (10^6 bytes); 0: unlimited */
    long align;         /* a read or write whose offset or length is not a multiple is unaligned */
    long unaligned_us;  /* extra latency for an unaligned write (the server's read-modify-write) */
    long small;         /* a request below this many bytes is small */
    long small_us;      /* extra latency for a small request */
    char *stats_file;   /* counters written here at unmount */
};

static struct model m = {
    .latency_us = 200,
    .meta_us = 300,
    .bw_mbs = 1000,
    .align = 4096,
    .unaligned_us = 200,
    .small = 0,
    .small_us = 0,
};

#define OPT(t, p) {t, offsetof(struct model, p), 1}
static const struct fuse_opt model_opts[] = {
    OPT("latency_us=%ld", latency_us), OPT("meta_us=%ld", meta_us),
    OPT("bw_mbs=%ld", bw_mbs),         OPT("align=%ld", align),
    OPT("unaligned_us=%ld", unaligned_us), OPT("small=%ld", small),
    OPT("small_us=%ld", small_us),     OPT("stats=%s", stats_file),
    FUSE_OPT_END,
};

/* ---- counters ---- */

enum op { OP_READ, OP_WRITE, OP_OPEN, OP_CREATE, OP_GETATTR, OP_TRUNCATE, OP_FSYNC, OP_FLUSH,
          OP_RELEASE, OP_UNLINK, OP_OTHER, NOPS };
static const char *const op_names[NOPS] = {
    "read", "write", "open", "create", "getattr", "truncate", "fsync", "flush", "release",
    "unlink", "other",
};

/* Size classes of reads and writes. */
enum { NCLASSES = 5 };
static const char *const class_names[NCLASSES] = {"lt4k", "4k_64k", "64k_1m", "1m_4m", "ge4m"};
static int size_class(size_t n)
{
    return n < 4096 ? 0 : n < 65536 ? 1 : n < (1u << 20) ? 2 : n < (4u << 20) ? 3 : 4;
}

struct counters {
    uint64_t ops[NOPS];
    uint64_t rw_class[2][NCLASSES]; /* [0] reads, [1] writes */
    uint64_t bytes[2];
    uint64_t unaligned[2];
    uint64_t small[2];
    double busy_s; /* summed modelled delay */
};

static struct counters cnt;
static pthread_mutex_t cnt_lock = PTHREAD_MUTEX_INITIALIZER;
static double channel_free_at; /* when the shared transfer channel is next free */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_until(double t)
{
    struct timespec ts;
    ts.tv_sec = (time_t)t;
    ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

/* A metadata operation: count it and sleep its latency. */
static void charge_meta(enum op op)
{
    pthread_mutex_lock(&cnt_lock);
    cnt.ops[op]++;
    cnt.busy_s += (double)m.meta_us * 1e-6;
    pthread_mutex_unlock(&cnt_lock);
    if (m.meta_us > 0)
        sleep_until(now_s() + (double)m.meta_us * 1e-6);
}

/* A read or write of n bytes at off: its latency (plus penalties) overlaps with other requests;
 * its transfer is serialized through the one channel of bw_mbs. Called after the backing I/O, so
 * the time of the local I/O counts in, rather than on top of, the modelled time when it is
 * smaller. */
static void charge_rw(int is_write, size_t n, off_t off, double started)
{
    double delay = (double)m.latency_us * 1e-6;
    bool unaligned = m.align > 1 && ((off % m.align) != 0 || (n % (size_t)m.align) != 0);
    bool is_small = m.small > 0 && n < (size_t)m.small;
    if (unaligned && is_write)
        delay += (double)m.unaligned_us * 1e-6;
    if (is_small)
        delay += (double)m.small_us * 1e-6;
    double xfer = m.bw_mbs > 0 ? (double)n / ((double)m.bw_mbs * 1e6) : 0.0;

    pthread_mutex_lock(&cnt_lock);
    cnt.ops[is_write ? OP_WRITE : OP_READ]++;
    cnt.rw_class[is_write][size_class(n)]++;
    cnt.bytes[is_write] += n;
    cnt.unaligned[is_write] += unaligned;
    cnt.small[is_write] += is_small;
    double start = started > channel_free_at ? started : channel_free_at;
    channel_free_at = start + xfer;
    double done = channel_free_at + delay;
    cnt.busy_s += delay + xfer;
    pthread_mutex_unlock(&cnt_lock);
    sleep_until(done);
}

static int format_stats(char *buf, size_t len)
{
    struct counters c;
    pthread_mutex_lock(&cnt_lock);
    c = cnt;
    pthread_mutex_unlock(&cnt_lock);
    size_t k = 0;
#define PUT(...) k += (size_t)snprintf(buf + k, k < len ? len - k : 0, __VA_ARGS__)
    for (int i = 0; i < NOPS; i++)
        PUT("%s=%" PRIu64 "\n", op_names[i], c.ops[i]);
    for (int w = 0; w < 2; w++) {
        const char *d = w ? "write" : "read";
        PUT("%s_bytes=%" PRIu64 "\n", d, c.bytes[w]);
        PUT("%s_unaligned=%" PRIu64 "\n", d, c.unaligned[w]);
        PUT("%s_small=%" PRIu64 "\n", d, c.small[w]);
        for (int s = 0; s < NCLASSES; s++)
            PUT("%s_%s=%" PRIu64 "\n", d, class_names[s], c.rw_class[w][s]);
    }
    PUT("modelled_s=%.6f\n", c.busy_s);
    PUT("model=latency_us:%ld,meta_us:%ld,bw_mbs:%ld,align:%ld,unaligned_us:%ld,small:%ld,"
        "small_us:%ld\n", m.latency_us, m.meta_us, m.bw_mbs, m.align, m.unaligned_us, m.small,
        m.small_us);
#undef PUT
    return (int)(k < len ? k : len - 1);
}

/* ---- FOPEN_PARALLEL_DIRECT_WRITES ----
 * Without this open flag the kernel serializes all direct writes to one file on the inode lock,
 * so the ranks' write latencies could not overlap. libfuse 3.14 has no field for it, so the
 * daemon sets it in the open and create replies on their way to the kernel: libfuse sends every
 * reply with writev(), which this executable interposes. File handles of the emulator carry a
 * tag in their upper bits, which identifies a reply's fuse_open_out. */
#define FH_TAG 0x7e5f000000000000ULL
#define FH_TAG_MASK 0xffff000000000000ULL
#ifndef FOPEN_PARALLEL_DIRECT_WRITES
#define FOPEN_PARALLEL_DIRECT_WRITES (1 << 6)
#endif

static void tag_open_out(struct fuse_open_out *o)
{
    if ((o->fh & FH_TAG_MASK) == FH_TAG)
        o->open_flags |= FOPEN_PARALLEL_DIRECT_WRITES;
}

ssize_t writev(int fd, const struct iovec *iov, int iovcnt);
ssize_t writev(int fd, const struct iovec *iov, int iovcnt)
{
    /* A reply is a fuse_out_header in iov[0] and its payload after it. */
    if (iovcnt == 2 && iov[0].iov_len == sizeof(struct fuse_out_header)) {
        const struct fuse_out_header *h = iov[0].iov_base;
        if (h->error == 0 && iov[1].iov_len == sizeof(struct fuse_open_out))
            tag_open_out(iov[1].iov_base);
        else if (h->error == 0 &&
                 iov[1].iov_len == sizeof(struct fuse_entry_out) + sizeof(struct fuse_open_out))
            tag_open_out((struct fuse_open_out *)((char *)iov[1].iov_base +
                                                  sizeof(struct fuse_entry_out)));
    }
    return syscall(SYS_writev, fd, iov, iovcnt);
}

static uint64_t fh_of(int fd) { return FH_TAG | (uint64_t)(unsigned)fd; }
static int fd_of(const struct fuse_file_info *fi) { return (int)(fi->fh & 0xffffffffu); }
#define STATS_FH (FH_TAG | 0xffffffffULL)

/* ---- paths ---- */

static bool is_stats(const char *path) { return strcmp(path, "/" STATS_NAME) == 0; }

static int real_path(const char *path, char *out)
{
    int n = snprintf(out, PATH_MAX, "%s%s", m.backing, path);
    return n < 0 || n >= PATH_MAX ? -ENAMETOOLONG : 0;
}

#define REAL(path, var)                                                                    \
    char var[PATH_MAX];                                                                    \
    do {                                                                                   \
        int rp_ = real_path(path, var);                                                    \
        if (rp_)                                                                           \
            return rp_;                                                                    \
    } while (0)

static int neg_errno(int rc) { return rc < 0 ? -errno : rc; }

/* ---- operations ---- */

static void *emu_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
    cfg->direct_io = 1;    /* every read and write reaches the emulator */
    cfg->kernel_cache = 0;
    cfg->use_ino = 1;
    cfg->attr_timeout = 1.0;
    cfg->entry_timeout = 1.0;
    cfg->negative_timeout = 0.0;
    /* Requests of up to 1 MiB (Lustre's default RPC size), as a PFS client would send. */
    conn->max_write = 1u << 20;
    conn->max_readahead = 0;
    return NULL;
}

static void emu_destroy(void *data)
{
    (void)data;
    if (!m.stats_file)
        return;
    FILE *f = fopen(m.stats_file, "w");
    if (f) {
        char buf[4096];
        format_stats(buf, sizeof buf);
        fputs(buf, f);
        fclose(f);
    }
}

static int emu_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
    if (is_stats(path)) {
        memset(st, 0, sizeof *st);
        st->st_mode = S_IFREG | 0666;
        st->st_nlink = 1;
        st->st_size = 4096;
        return 0;
    }
    charge_meta(OP_GETATTR);
    if (fi && fi->fh != STATS_FH)
        return neg_errno(fstat(fd_of(fi), st));
    REAL(path, rp);
    return neg_errno(lstat(rp, st));
}

static int emu_access(const char *path, int mask)
{
    if (is_stats(path))
        return 0;
    REAL(path, rp);
    return neg_errno(access(rp, mask));
}

static int emu_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
                       struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
    (void)off, (void)fi, (void)flags;
    REAL(path, rp);
    DIR *d = opendir(rp);
    if (!d)
        return -errno;
    charge_meta(OP_OTHER);
    for (struct dirent *e; (e = readdir(d));) {
        struct stat st = {.st_ino = e->d_ino, .st_mode = (mode_t)(e->d_type << 12)};
        if (fill(buf, e->d_name, &st, 0, 0))
            break;
    }
    closedir(d);
    return 0;
}

static int emu_mkdir(const char *path, mode_t mode)
{
    REAL(path, rp);
    charge_meta(OP_OTHER);
    return neg_errno(mkdir(rp, mode));
}

static int emu_rmdir(const char *path)
{
    REAL(path, rp);
    charge_meta(OP_OTHER);
    return neg_errno(rmdir(rp));
}

static int emu_unlink(const char *path)
{
    if (is_stats(path))
        return -EPERM;
    REAL(path, rp);
    charge_meta(OP_UNLINK);
    return neg_errno(unlink(rp));
}

static int emu_rename(const char *from, const char *to, unsigned int flags)
{
    if (flags)
        return -EINVAL;
    REAL(from, rf);
    REAL(to, rt);
    charge_meta(OP_OTHER);
    return neg_errno(rename(rf, rt));
}

static int emu_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
    (void)fi;
    REAL(path, rp);
    charge_meta(OP_OTHER);
    return neg_errno(chmod(rp, mode));
}

static int emu_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
    (void)fi;
    REAL(path, rp);
    charge_meta(OP_OTHER);
    return neg_errno(lchown(rp, uid, gid));
}

static int emu_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
    if (is_stats(path))
        return 0;
    charge_meta(OP_TRUNCATE);
    if (fi)
        return neg_errno(ftruncate(fd_of(fi), size));
    REAL(path, rp);
    return neg_errno(truncate(rp, size));
}

static int emu_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
    (void)fi;
    if (is_stats(path))
        return 0;
    REAL(path, rp);
    return neg_errno(utimensat(AT_FDCWD, rp, tv, AT_SYMLINK_NOFOLLOW));
}

static int emu_open(const char *path, struct fuse_file_info *fi)
{
    fi->direct_io = 1;
    if (is_stats(path)) {
        fi->fh = STATS_FH;
        return 0;
    }
    REAL(path, rp);
    charge_meta(OP_OPEN);
    int fd = open(rp, fi->flags & ~O_DIRECT);
    if (fd < 0)
        return -errno;
    fi->fh = fh_of(fd);
    return 0;
}

static int emu_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
    if (is_stats(path))
        return -EEXIST;
    REAL(path, rp);
    charge_meta(OP_CREATE);
    int fd = open(rp, (fi->flags & ~O_DIRECT) | O_CREAT, mode);
    if (fd < 0)
        return -errno;
    fi->direct_io = 1;
    fi->fh = fh_of(fd);
    return 0;
}

static int emu_read(const char *path, char *buf, size_t size, off_t off,
                    struct fuse_file_info *fi)
{
    (void)path;
    if (fi->fh == STATS_FH) {
        char text[4096];
        int n = format_stats(text, sizeof text);
        if (off >= n)
            return 0;
        size_t k = (size_t)(n - off) < size ? (size_t)(n - off) : size;
        memcpy(buf, text + off, k);
        return (int)k;
    }
    double t0 = now_s();
    ssize_t r = pread(fd_of(fi), buf, size, off);
    if (r < 0)
        return -errno;
    charge_rw(0, size, off, t0);
    return (int)r;
}

static int emu_write(const char *path, const char *buf, size_t size, off_t off,
                     struct fuse_file_info *fi)
{
    (void)path;
    if (fi->fh == STATS_FH) {
        if (size >= 5 && strncmp(buf, "reset", 5) == 0) {
            pthread_mutex_lock(&cnt_lock);
            memset(&cnt, 0, sizeof cnt);
            pthread_mutex_unlock(&cnt_lock);
        }
        return (int)size;
    }
    double t0 = now_s();
    ssize_t w = pwrite(fd_of(fi), buf, size, off);
    if (w < 0)
        return -errno;
    charge_rw(1, size, off, t0);
    return (int)w;
}

static int emu_statfs(const char *path, struct statvfs *st)
{
    REAL(path, rp);
    return neg_errno(statvfs(rp, st));
}

static int emu_flush(const char *path, struct fuse_file_info *fi)
{
    (void)path;
    if (fi->fh == STATS_FH)
        return 0;
    /* close() sends a flush; count it but charge nothing: on a PFS, close of a file with no
     * dirty client cache does not wait on a server. */
    pthread_mutex_lock(&cnt_lock);
    cnt.ops[OP_FLUSH]++;
    pthread_mutex_unlock(&cnt_lock);
    return 0;
}

static int emu_release(const char *path, struct fuse_file_info *fi)
{
    (void)path;
    if (fi->fh == STATS_FH)
        return 0;
    pthread_mutex_lock(&cnt_lock);
    cnt.ops[OP_RELEASE]++;
    pthread_mutex_unlock(&cnt_lock);
    close(fd_of(fi));
    return 0;
}

static int emu_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
    (void)path;
    if (fi->fh == STATS_FH)
        return 0;
    charge_meta(OP_FSYNC);
    /* The backing store's own fsync is skipped: the emulator models the PFS server's cost, and
     * a local disk flush would only add noise. */
    (void)datasync;
    return 0;
}

static int emu_fallocate(const char *path, int mode, off_t off, off_t len,
                         struct fuse_file_info *fi)
{
    (void)path;
    charge_meta(OP_OTHER);
    return neg_errno(fallocate(fd_of(fi), mode, off, len));
}

static const struct fuse_operations emu_ops = {
    .init = emu_init,
    .destroy = emu_destroy,
    .getattr = emu_getattr,
    .access = emu_access,
    .readdir = emu_readdir,
    .mkdir = emu_mkdir,
    .rmdir = emu_rmdir,
    .unlink = emu_unlink,
    .rename = emu_rename,
    .chmod = emu_chmod,
    .chown = emu_chown,
    .truncate = emu_truncate,
    .utimens = emu_utimens,
    .open = emu_open,
    .create = emu_create,
    .read = emu_read,
    .write = emu_write,
    .statfs = emu_statfs,
    .flush = emu_flush,
    .release = emu_release,
    .fsync = emu_fsync,
    .fallocate = emu_fallocate,
    /* No .lock: the kernel then keeps POSIX (fcntl) locks itself, which is correct on one
     * node; lock round trips are not charged (see README). */
};

static int opt_proc(void *data, const char *arg, int key, struct fuse_args *out)
{
    (void)data, (void)out;
    if (key == FUSE_OPT_KEY_NONOPT && !m.backing) {
        m.backing = realpath(arg, NULL);
        if (!m.backing) {
            fprintf(stderr, "pfsemu: %s: %s\n", arg, strerror(errno));
            exit(2);
        }
        return 0; /* consumed */
    }
    return 1;
}

int main(int argc, char **argv)
{
    struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
    if (fuse_opt_parse(&args, &m, model_opts, opt_proc) == -1)
        return 2;
    if (!m.backing) {
        fprintf(stderr, "usage: pfsemu BACKING_DIR MOUNTPOINT [-f] [-o latency_us=N,meta_us=N,"
                        "bw_mbs=N,align=N,unaligned_us=N,small=N,small_us=N,stats=FILE]\n");
        return 2;
    }
    if (m.stats_file && m.stats_file[0] != '/') {
        fprintf(stderr, "pfsemu: stats=FILE must be an absolute path\n");
        return 2;
    }
    if (m.latency_us < 0 || m.meta_us < 0 || m.bw_mbs < 0 || m.align < 0 ||
        m.unaligned_us < 0 || m.small < 0 || m.small_us < 0) {
        fprintf(stderr, "pfsemu: model parameters must not be negative\n");
        return 2;
    }
    umask(0);
    int rc = fuse_main(args.argc, args.argv, &emu_ops, NULL);
    fuse_opt_free_args(&args);
    return rc;
}
