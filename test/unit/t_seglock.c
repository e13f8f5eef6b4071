/*
 * edonio unit test: a segment's lock (ad_edonio/ad_edonio_seglock.c). It holds its holder's pid;
 * a waiter takes it over from a holder that died (reaped, or a zombie, as a keeper killed in the
 * middle of a write-back leaves it), never from a live one; a forked child takes it as itself.
 * A case that would wait for ever is ended by alarm() and the test fails.
 *
 * Prints "PASS seglock/<case>" or "FAIL seglock/<case> (...)" per case and "N passed, N failed".
 */
#define _GNU_SOURCE

#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ad_edonio_seglock.h"

#define UNIT_GROUP "seglock"
#include "unit_test.h"

static struct edonio_segment *seg;

/* A child that exits at once, reaped (reap) or left a zombie; its pid. */
static pid_t dead_child(int reap)
{
    pid_t pid = fork();

    if (pid == 0)
        _exit(0);
    if (reap)
        waitpid(pid, NULL, 0);
    else
        while (!edonio_seglock_gone(pid)) /* until it is a zombie */
            usleep(1000);
    return pid;
}

static void test_basic(void)
{
    edonio_seglock_take(seg);
    EXPECT(atomic_load(&seg->lock) == getpid());
    EXPECT(edonio_seglock_try(seg, 20) == 0); /* held, by a live process: us */
    edonio_seglock_give(seg);
    EXPECT(atomic_load(&seg->lock) == 0);
    EXPECT(edonio_seglock_try(seg, 0) == 1);
    edonio_seglock_give(seg);
}

static void test_dead_holder(void)
{
    atomic_store(&seg->lock, dead_child(1));
    alarm(10);
    edonio_seglock_take(seg);
    alarm(0);
    EXPECT(atomic_load(&seg->lock) == getpid());
    edonio_seglock_give(seg);
}

static void test_zombie_holder(void)
{
    pid_t z = dead_child(0);

    atomic_store(&seg->lock, z);
    EXPECT(edonio_seglock_try(seg, 5000) == 1);
    EXPECT(atomic_load(&seg->lock) == getpid());
    edonio_seglock_give(seg);
    waitpid(z, NULL, 0);
}

static void test_live_holder(void)
{
    pid_t pid = fork();

    if (pid == 0) {
        pause();
        _exit(0);
    }
    atomic_store(&seg->lock, pid);
    EXPECT(edonio_seglock_try(seg, 100) == 0); /* alive: never taken over */
    EXPECT(atomic_load(&seg->lock) == pid);
    kill(pid, SIGKILL);
    EXPECT(edonio_seglock_try(seg, 5000) == 1); /* killed: a zombie, then gone */
    waitpid(pid, NULL, 0);
    edonio_seglock_give(seg);
}

static void test_forked(void)
{
    int status = 0;

    edonio_seglock_take(seg); /* the parent's pid is learnt */
    edonio_seglock_give(seg);
    pid_t pid = fork();
    if (pid == 0) {
        edonio_seglock_take(seg);
        _exit(atomic_load(&seg->lock) == getpid() ? 0 : 1);
    }
    waitpid(pid, &status, 0);
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    EXPECT(atomic_load(&seg->lock) == pid); /* it exited holding it */
    edonio_seglock_take(seg);               /* and a dead holder's lock is taken over */
    edonio_seglock_give(seg);
}

int main(void)
{
    size_t bytes = edonio_segment_size(1, 4096);
    void *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

    if (mem == MAP_FAILED)
        return 1;
    seg = edonio_segment_init(mem, 1, 4096, 42); /* shared with forked children, as a memfd */
    run("basic", test_basic);
    run("dead-holder", test_dead_holder);
    run("zombie-holder", test_zombie_holder);
    run("live-holder", test_live_holder);
    run("forked", test_forked);
    munmap(mem, bytes);
    return finish();
}
