/*
 * edonio: a segment's lock, holding its holder's pid (see ad_edonio_seglock.h). No MPI and no
 * ADIO here: the keeper (keeper/edonio_keeper.c) links this file too.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ad_edonio_seglock.h"

/* Yields between two looks at the holder: about a millisecond or more of waiting, so a lock
 * passed between live processes never costs a look. */
enum { LOOK_EVERY = 1024 };

static pid_t me;

static void forked(void)
{
    me = getpid();
}

static void learn_pid(void)
{
    me = getpid();
    pthread_atfork(NULL, NULL, forked);
}

static int my_pid(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;

    if (me == 0)
        pthread_once(&once, learn_pid);
    return (int)me;
}

int edonio_seglock_gone(int pid)
{
    char path[64], buf[256];
    ssize_t n;
    int fd;

    if (kill(pid, 0) != 0)
        return errno == ESRCH;
    /* kill() reaches a zombie: its state, after the command's closing parenthesis, tells */
    snprintf(path, sizeof(path), "/proc/%d/stat", pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT;
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    buf[n > 0 ? n : 0] = '\0';
    const char *end = strrchr(buf, ')');
    return end != NULL && end[1] == ' ' && (end[2] == 'Z' || end[2] == 'X');
}

/* One attempt; on failure, with every LOOK_EVERY-th 'tries', a dead holder's lock is freed. */
static int attempt(struct edonio_segment *seg, int self, unsigned tries)
{
    int holder = 0;

    if (atomic_compare_exchange_weak_explicit(&seg->lock, &holder, self, memory_order_acquire,
                                              memory_order_relaxed))
        return 1;
    if (holder != 0 && tries % LOOK_EVERY == LOOK_EVERY - 1 && edonio_seglock_gone(holder))
        atomic_compare_exchange_strong(&seg->lock, &holder, 0); /* unless taken meanwhile */
    return 0;
}

void edonio_seglock_take(struct edonio_segment *seg)
{
    int self = my_pid();

    for (unsigned tries = 0; !attempt(seg, self, tries); tries++)
        sched_yield(); /* the holder may share our core */
}

static double now_ms(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int edonio_seglock_try(struct edonio_segment *seg, double wait_ms)
{
    int self = my_pid();
    double until = now_ms() + wait_ms;

    for (unsigned tries = 0; !attempt(seg, self, tries); tries++) {
        if (now_ms() > until)
            return 0;
        sched_yield();
    }
    return 1;
}

void edonio_seglock_give(struct edonio_segment *seg)
{
    atomic_store_explicit(&seg->lock, 0, memory_order_release);
}
