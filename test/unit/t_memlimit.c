/*
 * edonio unit test: the memory limit of this process's cgroup (ad_edonio/ad_edonio_memlimit.c),
 * on trees made here as /proc/self/cgroup and /sys/fs/cgroup show them: cgroup v2 without and with
 * a cgroup namespace, a batch system's job limit above its steps and tasks, v1's memory
 * controller (a job's cgroup, a container whose own cgroup is mounted at the root), both at once,
 * and lines that are not the format.
 *
 * Prints "PASS memlimit/<case>" or "FAIL memlimit/<case> (...)" per case and "N passed, N failed".
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ad_edonio_memlimit.h"

#define UNIT_GROUP "memlimit"
#include "unit_test.h"

static char top[4096]; /* this run's directory */

#define EXPECT_EQ(got, want)                                                                       \
    do {                                                                                           \
        long long g_ = (got), w_ = (want);                                                         \
        if (g_ != w_) {                                                                            \
            fprintf(stderr, "  %s:%d: %s is %lld, want %lld\n", __FILE__, __LINE__, #got, g_, w_); \
            case_errors++;                                                                         \
        }                                                                                          \
    } while (0)

/* top/<case>/<rel>, its directories made; returns the path (static buffer). */
static const char *at(const char *fmt, ...)
{
    static char path[8192];
    char rel[4096];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(rel, sizeof(rel), fmt, ap);
    va_end(ap);
    snprintf(path, sizeof(path), "%s/%s", top, rel);
    for (char *p = path + strlen(top) + 1; (p = strchr(p, '/')) != NULL; p++) {
        *p = '\0';
        mkdir(path, 0755);
        *p = '/';
    }
    return path;
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    if (f == NULL || fputs(text, f) < 0) {
        fprintf(stderr, "  cannot write %s\n", path);
        case_errors++;
    }
    if (f != NULL)
        fclose(f);
}

/* edonio_cgroup_limit on case c's tree: c/self (the process's cgroups), c/v2 and c/v1. */
static long long limit_of(const char *c)
{
    char self[8192], v2[8192], v1[8192];

    snprintf(self, sizeof(self), "%s/%s/self", top, c);
    snprintf(v2, sizeof(v2), "%s/%s/v2", top, c);
    snprintf(v1, sizeof(v1), "%s/%s/v1", top, c);
    return edonio_cgroup_limit(self, v2, v1);
}

/* cgroup v2, no namespace (Slurm, systemd): the job's limit, two levels above the task. */
static void test_v2_job(void)
{
    put(at("v2job/self"), "0::/system.slice/slurmstepd.scope/job_7/step_0/user/task_1\n");
    put(at("v2job/v2/system.slice/slurmstepd.scope/job_7/memory.max"), "1073741824\n");
    put(at("v2job/v2/system.slice/slurmstepd.scope/job_7/step_0/memory.max"), "max\n");
    put(at("v2job/v2/system.slice/slurmstepd.scope/job_7/step_0/user/task_1/memory.max"), "max\n");
    EXPECT_EQ(limit_of("v2job"), 1073741824LL);
}

/* The lowest of several limits on the way up wins, wherever it is. */
static void test_v2_lowest(void)
{
    put(at("v2low/self"), "0::/a/b/c\n");
    put(at("v2low/v2/a/memory.max"), "4000000000\n");
    put(at("v2low/v2/a/b/memory.max"), "3000000000\n");
    put(at("v2low/v2/a/b/c/memory.max"), "5000000000\n");
    EXPECT_EQ(limit_of("v2low"), 3000000000LL);
}

/* A container with its own cgroup namespace: "0::/", its limit at the mount's root. */
static void test_v2_namespace(void)
{
    put(at("v2ns/self"), "0::/\n");
    put(at("v2ns/v2/memory.max"), "2147483648\n");
    EXPECT_EQ(limit_of("v2ns"), 2147483648LL);
}

/* No limit anywhere ("max", or no file): 0. */
static void test_v2_none(void)
{
    put(at("v2none/self"), "0::/user.slice/session-1.scope\n");
    put(at("v2none/v2/user.slice/memory.max"), "max\n");
    EXPECT_EQ(limit_of("v2none"), 0);
}

/* cgroup v1: the memory controller's line, a job's limit; v1's "unlimited" above it is none. */
static void test_v1_job(void)
{
    put(at("v1job/self"), "9:name=systemd:/\n5:cpu,cpuacct:/slurm/uid_1/job_3\n"
                          "4:memory:/slurm/uid_1/job_3/step_0\n0::/\n");
    put(at("v1job/v1/memory.limit_in_bytes"), "9223372036854771712\n");
    put(at("v1job/v1/slurm/uid_1/job_3/memory.limit_in_bytes"), "536870912\n");
    put(at("v1job/v1/slurm/uid_1/job_3/step_0/memory.limit_in_bytes"), "9223372036854771712\n");
    EXPECT_EQ(limit_of("v1job"), 536870912LL);
}

/* A v1 container whose own cgroup is mounted at the root: its path is not under the mount, and
 * the walk up finds the root's file. The memory controller may share a line with others. */
static void test_v1_container(void)
{
    put(at("v1ct/self"), "4:blkio,memory:/docker/0123abcd\n");
    put(at("v1ct/v1/memory.limit_in_bytes"), "268435456\n");
    EXPECT_EQ(limit_of("v1ct"), 268435456LL);
}

/* Both hierarchies at once (hybrid): the lower limit. */
static void test_hybrid(void)
{
    put(at("hyb/self"), "0::/a\n4:memory:/b\n");
    put(at("hyb/v2/a/memory.max"), "900000000\n");
    put(at("hyb/v1/b/memory.limit_in_bytes"), "800000000\n");
    EXPECT_EQ(limit_of("hyb"), 800000000LL);
}

/* Lines not of the format, controllers that only contain "memory" in their names, no file. */
static void test_malformed(void)
{
    put(at("bad/self"), "garbage\n3:memory_pressure:/x\n4:memory\n5::relative\n\n");
    put(at("bad/v1/x/memory.limit_in_bytes"), "1000\n");
    put(at("bad/v2/memory.max"), "-5\n");
    EXPECT_EQ(limit_of("bad"), 0);
    EXPECT_EQ(limit_of("none"), 0); /* no /proc/self/cgroup at all */
}

int main(void)
{
    snprintf(top, sizeof(top), "%s/edonio-memlimit.XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (mkdtemp(top) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    run("v2-job", test_v2_job);
    run("v2-lowest", test_v2_lowest);
    run("v2-namespace", test_v2_namespace);
    run("v2-none", test_v2_none);
    run("v1-job", test_v1_job);
    run("v1-container", test_v1_container);
    run("hybrid", test_hybrid);
    run("malformed", test_malformed);
    char cmd[8192];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
    if (system(cmd) != 0)
        fprintf(stderr, "t_memlimit: could not remove %s\n", top);
    return finish();
}
