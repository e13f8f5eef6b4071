/*
 * peer_fds: what it costs a process to take a descriptor of the memfd of each of N other
 * processes, through /proc/<pid>/fd/<fd> and through pidfd_open + pidfd_getfd, alternately first,
 * as an edonio process does for each process of its node at its first open (map_peer in
 * ad_edonio_node.c; doc/design.md, "Ownership and the two ways of reaching an owner": 6.4 against
 * 10.6 us per peer at 63 peers). No MPI: the peers are forked children. Prints the microseconds
 * per peer of each way, median over ROUNDS (where pidfd_getfd is refused, says so and gives the
 * /proc way only).
 *
 *   ./peer_fds [N [ROUNDS]]      (defaults: 63 peers, 11 rounds)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}
static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
static double by_proc(pid_t *pid, int n, int m)
{
    double t0 = now();
    for (int i = 0; i < n; i++) {
        char path[64];
        snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid[i], m);
        int fd = open(path, O_RDWR | O_CLOEXEC);
        if (fd < 0) {
            perror("open");
            exit(1);
        }
        close(fd);
    }
    return (now() - t0) / n;
}
static double by_pidfd(pid_t *pid, int n, int m)
{
    double t0 = now();
    for (int i = 0; i < n; i++) {
        int pfd = (int)syscall(SYS_pidfd_open, pid[i], 0);
        int fd = pfd < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, pfd, m, 0);
        if (fd < 0) {
            if (pfd >= 0)
                close(pfd);
            return -1;
        }
        close(pfd);
        close(fd);
    }
    return (now() - t0) / n;
}
int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 63, rounds = argc > 2 ? atoi(argv[2]) : 11;
    pid_t *pid = calloc((size_t)n, sizeof(*pid));
    double *a = calloc((size_t)rounds, sizeof(double)), *b = calloc((size_t)rounds, sizeof(double));
    for (int r = 0; r < rounds; r++) {
        int m = memfd_create("peer", MFD_CLOEXEC); /* inherited: the same number in each child */
        for (int i = 0; i < n; i++)
            if ((pid[i] = fork()) == 0) {
                pause();
                _exit(0);
            }
        usleep(50000);
        if (r % 2) {
            a[r] = by_proc(pid, n, m);
            b[r] = by_pidfd(pid, n, m);
        } else {
            b[r] = by_pidfd(pid, n, m);
            a[r] = by_proc(pid, n, m);
        }
        for (int i = 0; i < n; i++)
            kill(pid[i], SIGKILL);
        while (wait(NULL) > 0)
            ;
        close(m);
    }
    qsort(a, (size_t)rounds, sizeof(double), cmp);
    qsort(b, (size_t)rounds, sizeof(double), cmp);
    if (b[0] < 0)
        printf("peers=%d rounds=%d us_per_peer proc=%.1f pidfd=refused\n", n, rounds,
               a[rounds / 2]);
    else
        printf("peers=%d rounds=%d us_per_peer proc=%.1f pidfd=%.1f\n", n, rounds, a[rounds / 2],
               b[rounds / 2]);
    return 0;
}
