/*
 * edonio test helper: a file system that fails on demand. Preloaded before libedonio.so, it
 * interposes open, pwrite, pread (and pwritev and preadv, as those), ftruncate, fsync and fallocate
 * (and memfd_create, so that a memfd is known as "memfd:<its name>", also when another process
 * opens it through /proc: edonio's cache memory is "memfd:edonio-cache"); a test program arms it
 * at run time:
 *
 *   void edonio_fault_arm(const char *call, const char *path_part, int err, long long count);
 *
 * makes the next `count` calls of `call` ("open", "pwrite", "pread", "ftruncate", "fsync",
 * "fallocate") on a
 * file whose name contains path_part fail with errno err (count < 0: until disarmed; err 0:
 * disarm). Each call is armed on its own, so write-backs and reads can fail at once. The test
 * finds the function with dlsym, so it runs without this library too (and then says so).
 *
 *   long long edonio_fault_fired(const char *call);
 *
 * says how many calls of `call` it has made fail so far.
 *
 *   void edonio_fault_pause(const char *path_part, void (*fn)(void));
 *
 * calls fn once, just before the next pwrite on a file whose name contains path_part is made
 * (fn NULL: disarm): a test stops a write there while another process acts.
 *
 * Descriptors are mapped to names when they are opened through this library. edonio takes its
 * node peers' memory with pidfd_open and pidfd_getfd where it may (through syscall(), also
 * interposed): pidfd_open of a process counts as an open of "/proc/<pid>", so that a test that arms
 * "open" on "/proc/" refuses both ways, and the descriptor pidfd_getfd gives is named by what it
 * is, as one opened through /proc ("/memfd:edonio-cache (deleted)").
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <limits.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

enum { MAX_FD = 4096 };

enum { NCALLS = 6 };

/* What each descriptor was opened as, whole: a checkout at a long path makes long names, and a
 * name cut short would no longer contain the part a fault is armed for (PATH_MAX each: untouched
 * pages cost nothing). */
static char names[MAX_FD][PATH_MAX];
static const char *const calls[NCALLS] = {"open",      "pwrite", "pread",
                                           "ftruncate", "fsync",  "fallocate"};
static struct {
    char part[PATH_MAX];
    int err;
    long long count;
} armed[NCALLS]; /* by the call's index in calls */

static struct {
    char part[PATH_MAX];
    void (*fn)(void);
} paused;

void edonio_fault_arm(const char *call, const char *path_part, int err, long long count);
void edonio_fault_pause(const char *path_part, void (*fn)(void));

void edonio_fault_pause(const char *path_part, void (*fn)(void))
{
    snprintf(paused.part, sizeof(paused.part), "%s", path_part);
    paused.fn = fn;
}

static int call_index(const char *call)
{
    for (int i = 0; i < NCALLS; i++)
        if (strcmp(call, calls[i]) == 0)
            return i;
    return -1;
}

void edonio_fault_arm(const char *call, const char *path_part, int err, long long count)
{
    int i = call_index(call);

    if (i < 0)
        return;
    snprintf(armed[i].part, sizeof(armed[i].part), "%s", path_part);
    armed[i].err = err;
    armed[i].count = count;
}

/* Should this call on this name fail now? Sets errno when so. */
static long long fired[NCALLS]; /* failures made, by the call's index in calls */

static int fails(const char *call, const char *name)
{
    int i = call_index(call);

    if (i < 0 || armed[i].err == 0 || armed[i].count == 0 || name == NULL ||
        strstr(name, armed[i].part) == NULL)
        return 0;
    if (armed[i].count > 0)
        armed[i].count--;
    fired[i]++;
    errno = armed[i].err;
    return 1;
}

/* How many calls of `call` this library has made fail so far: a test checks that its fault was
 * met, not only that the program survived it. */
long long edonio_fault_fired(const char *call);
long long edonio_fault_fired(const char *call)
{
    int i = call_index(call);

    return i < 0 ? 0 : fired[i];
}

static const char *name_of(int fd)
{
    return fd >= 0 && fd < MAX_FD && names[fd][0] ? names[fd] : NULL;
}

static void *next(const char *sym)
{
    return dlsym(RTLD_NEXT, sym);
}

/* A descriptor named by what it is, as the kernel says (/proc/self/fd), where it says: a peer's
 * cache memory is "/memfd:edonio-cache (deleted)". */
static void name_by_link(int fd)
{
    char link[64], target[PATH_MAX];
    ssize_t n;

    if (fd < 0 || fd >= MAX_FD)
        return;
    snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
    if ((n = readlink(link, target, sizeof(target) - 1)) > 0) {
        target[n] = '\0';
        snprintf(names[fd], sizeof(names[fd]), "%s", target);
    }
}

int open(const char *path, int flags, ...)
{
    static int (*real)(const char *, int, ...);
    mode_t mode = 0;
    va_list ap;
    int fd;

    if (real == NULL)
        real = (int (*)(const char *, int, ...))next("open");
    va_start(ap, flags);
    if (flags & (O_CREAT | O_TMPFILE))
        mode = (mode_t)va_arg(ap, int);
    va_end(ap);
    if (fails("open", path))
        return -1;
    fd = real(path, flags, mode);
    if (fd >= 0 && fd < MAX_FD)
        snprintf(names[fd], sizeof(names[fd]), "%s", path);
    if (strncmp(path, "/proc/", 6) == 0) /* another process's descriptor: by what it is */
        name_by_link(fd);
    return fd;
}

int open64(const char *path, int flags, ...) __attribute__((alias("open")));

long syscall(long number, ...)
{
    static long (*real)(long, ...);
    long a[6];
    va_list ap;

    if (real == NULL)
        real = (long (*)(long, ...))next("syscall");
    va_start(ap, number); /* as glibc's own: six arguments, whatever the call takes */
    for (int i = 0; i < 6; i++)
        a[i] = va_arg(ap, long);
    va_end(ap);
#ifdef SYS_pidfd_open
    if (number == SYS_pidfd_open) {
        char path[64];
        snprintf(path, sizeof(path), "/proc/%d", (int)a[0]);
        if (fails("open", path))
            return -1;
    }
#endif
    long r = real(number, a[0], a[1], a[2], a[3], a[4], a[5]);
#ifdef SYS_pidfd_getfd
    if (number == SYS_pidfd_getfd && r >= 0)
        name_by_link((int)r);
#endif
    return r;
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
    static ssize_t (*real)(int, const void *, size_t, off_t);

    if (real == NULL)
        real = (ssize_t(*)(int, const void *, size_t, off_t))next("pwrite");
    if (paused.fn != NULL && name_of(fd) != NULL && strstr(name_of(fd), paused.part) != NULL) {
        void (*fn)(void) = paused.fn;
        paused.fn = NULL;
        fn();
    }
    return fails("pwrite", name_of(fd)) ? -1 : real(fd, buf, len, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t len, off_t off) __attribute__((alias("pwrite")));

/* A write from several buffers (edonio's runs of whole blocks) fails and pauses as "pwrite". */
ssize_t pwritev(int fd, const struct iovec *iov, int n, off_t off)
{
    static ssize_t (*real)(int, const struct iovec *, int, off_t);

    if (real == NULL)
        real = (ssize_t(*)(int, const struct iovec *, int, off_t))next("pwritev");
    if (paused.fn != NULL && name_of(fd) != NULL && strstr(name_of(fd), paused.part) != NULL) {
        void (*fn)(void) = paused.fn;
        paused.fn = NULL;
        fn();
    }
    return fails("pwrite", name_of(fd)) ? -1 : real(fd, iov, n, off);
}

ssize_t pwritev64(int fd, const struct iovec *iov, int n, off_t off)
    __attribute__((alias("pwritev")));

ssize_t pread(int fd, void *buf, size_t len, off_t off)
{
    static ssize_t (*real)(int, void *, size_t, off_t);

    if (real == NULL)
        real = (ssize_t(*)(int, void *, size_t, off_t))next("pread");
    return fails("pread", name_of(fd)) ? -1 : real(fd, buf, len, off);
}

ssize_t pread64(int fd, void *buf, size_t len, off_t off) __attribute__((alias("pread")));

/* A read into several buffers (edonio's fills of a read-only cache) fails as "pread" does. */
ssize_t preadv(int fd, const struct iovec *iov, int n, off_t off)
{
    static ssize_t (*real)(int, const struct iovec *, int, off_t);

    if (real == NULL)
        real = (ssize_t(*)(int, const struct iovec *, int, off_t))next("preadv");
    return fails("pread", name_of(fd)) ? -1 : real(fd, iov, n, off);
}

ssize_t preadv64(int fd, const struct iovec *iov, int n, off_t off)
    __attribute__((alias("preadv")));

int ftruncate(int fd, off_t len)
{
    static int (*real)(int, off_t);

    if (real == NULL)
        real = (int (*)(int, off_t))next("ftruncate");
    return fails("ftruncate", name_of(fd)) ? -1 : real(fd, len);
}

int ftruncate64(int fd, off_t len) __attribute__((alias("ftruncate")));

int fsync(int fd)
{
    static int (*real)(int);

    if (real == NULL)
        real = (int (*)(int))next("fsync");
    return fails("fsync", name_of(fd)) ? -1 : real(fd);
}

int fallocate(int fd, int mode, off_t off, off_t len)
{
    static int (*real)(int, int, off_t, off_t);

    if (real == NULL)
        real = (int (*)(int, int, off_t, off_t))next("fallocate");
    return fails("fallocate", name_of(fd)) ? -1 : real(fd, mode, off, len);
}

int fallocate64(int fd, int mode, off_t off, off_t len) __attribute__((alias("fallocate")));

int memfd_create(const char *name, unsigned int flags)
{
    static int (*real)(const char *, unsigned int);
    int fd;

    if (real == NULL)
        real = (int (*)(const char *, unsigned int))next("memfd_create");
    fd = real(name, flags);
    if (fd >= 0 && fd < MAX_FD)
        snprintf(names[fd], sizeof(names[fd]), "memfd:%s", name);
    return fd;
}

int close(int fd)
{
    static int (*real)(int);

    if (real == NULL)
        real = (int (*)(int))next("close");
    if (fd >= 0 && fd < MAX_FD)
        names[fd][0] = '\0';
    return real(fd);
}
