/*
 * edonio: this process's keeper (ad_edonio_keeper.h says what it is for): started once, at the
 * first writable cache, and told of every writable cache's memory and file.
 *
 * posix_spawn (a vfork and an exec: nothing of the MPI process is copied, its registered memory
 * included), in a session of its own so that a launcher's signal to the job's process group
 * leaves it to finish; its standard input and output are /dev/null, its standard error the
 * process's, where it says what it could not write. The keeper's program is EDONIO_KEEPER
 * (a path; "none": no keeper), else edonio-keeper beside the library (the build tree's, or
 * ../libexec/ from an installed lib/), else the one configure installs (EDONIO_KEEPER_PATH).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ad_edonio_cache.h"
#include "ad_edonio_keeper.h"

extern char **environ;

static int keeper_fd = -1; /* this process's end of the socket; -1: no keeper */
static int keeper_tried;   /* a process tries to start one once */
static pid_t keeper_for;   /* the process that started it (a forked child has none) */
static pid_t spawned;      /* the keeper's first process, which forks the keeper and exits at once
                            * (a program's wait() never waits for the keeper): reaped later */

/* A child forked without exec must not hold the socket: the keeper sees its process's death by
 * the socket's end. */
static void forked_child(void)
{
    if (keeper_fd >= 0)
        close(keeper_fd);
    keeper_fd = -1;
    spawned = 0;
}

static void reap(void)
{
    if (spawned > 0 && waitpid(spawned, NULL, WNOHANG) != 0)
        spawned = 0;
}

static void warn(const char *what, int err)
{
    fprintf(stderr,
            "edonio: %s%s%s: dirty cached data is lost if this process dies before it closes "
            "its files\n",
            what, err ? ": " : "", err ? strerror(err) : "");
}

/* Where the keeper's program is: 1 and its path, or 0 (none wanted, or none found). */
static int keeper_path(char *path, size_t size)
{
    static const char *const beside[] = {"%s/../libexec/edonio-keeper", "%s/../edonio-keeper",
                                         "%s/edonio-keeper"};
    const char *env = getenv("EDONIO_KEEPER");
    Dl_info info;

    if (env != NULL && env[0] != '\0') {
        snprintf(path, size, "%s", env);
        return strcmp(env, "none") != 0;
    }
    if (dladdr((void *)ADIOI_EDONIO_Keeper_attach, &info) && info.dli_fname != NULL &&
        strrchr(info.dli_fname, '/') != NULL) {
        char dir[PATH_MAX];
        snprintf(dir, sizeof(dir), "%s", info.dli_fname);
        *strrchr(dir, '/') = '\0';
        for (size_t i = 0; i < sizeof(beside) / sizeof(beside[0]); i++) {
            snprintf(path, size, beside[i], dir);
            if (access(path, X_OK) == 0)
                return 1;
        }
    }
    snprintf(path, size, "%s", EDONIO_KEEPER_PATH);
    return access(path, X_OK) == 0;
}

/* The process's environment without LD_PRELOAD: the keeper needs neither MPI nor edonio. */
static char **keeper_environ(void)
{
    size_t n = 0, k = 0;
    char **env;

    while (environ[n] != NULL)
        n++;
    if ((env = malloc((n + 1) * sizeof(*env))) == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0)
            env[k++] = environ[i];
    env[k] = NULL;
    return env;
}

static void start(void)
{
    char path[PATH_MAX], pid_arg[24], *argv[3] = {path, pid_arg, NULL};
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    int sv[2], err;
    pid_t pid;

    keeper_tried = 1;
    keeper_for = getpid();
    snprintf(pid_arg, sizeof(pid_arg), "%d", (int)keeper_for);
    if (!keeper_path(path, sizeof(path))) {
        if (strcmp(path, "none") != 0)
            warn("no edonio-keeper program found", 0);
        return;
    }
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
        warn("cannot start edonio-keeper", errno);
        return;
    }
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, sv[1], EDONIO_KEEPER_FD);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
    char **env = keeper_environ();
    err = posix_spawn(&pid, path, &actions, &attr, argv, env != NULL ? env : environ);
    free(env);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&actions);
    close(sv[1]);
    if (err != 0) {
        close(sv[0]);
        warn("cannot start edonio-keeper", err);
        return;
    }
    keeper_fd = sv[0];
    spawned = pid;
    pthread_atfork(NULL, NULL, forked_child);
}

/* One message to the keeper, with descriptors; on failure the keeper is given up. */
static void tell(const struct edonio_keeper_msg *m, const int32_t *pids, const char *name,
                 const int *fds, int nfds)
{
    size_t namelen = strlen(name) + 1;
    struct iovec iov[3] = {{(void *)m, sizeof(*m)},
                           {(void *)pids, (size_t)m->npids * sizeof(*pids)},
                           {(void *)name, namelen < EDONIO_KEEPER_NAME ? namelen : 1}};
    union {
        char buf[CMSG_SPACE(2 * sizeof(int))];
        struct cmsghdr align;
    } control;
    struct msghdr msg = {.msg_iov = iov, .msg_iovlen = 3};

    if (nfds > 0) {
        memset(&control, 0, sizeof(control));
        msg.msg_control = control.buf;
        msg.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
        struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
        memcpy(CMSG_DATA(cm), fds, (size_t)nfds * sizeof(int));
    }
    if (sendmsg(keeper_fd, &msg, MSG_NOSIGNAL) < 0) {
        warn("edonio-keeper is gone", errno);
        close(keeper_fd);
        keeper_fd = -1;
        keeper_tried = 0; /* killed alone: the next writable open starts another */
    }
}

void ADIOI_EDONIO_Keeper_attach(struct edonio_cache *c)
{
    struct edonio_node *n = &c->node;
    struct edonio_segment *segs[2];
    int32_t pids[EDONIO_KEEPER_PIDS];
    int npids = 0;

    if (n->n == 0 || !c->writable)
        return;
    segs[0] = n->own[n->me];
    segs[1] = n->remote[n->me];
    for (int k = 0; k < 2; k++) {
        atomic_store(&segs[k]->dirty_expire, (int32_t)c->hints.dirty_expire);
        atomic_store(&segs[k]->locked_writes, c->hints.write_back == EDONIO_WRITE_BACK_SPAN);
        atomic_store(&segs[k]->cache_id, c->id);
    }
    if (keeper_tried && keeper_for != getpid() && keeper_fd >= 0) {
        close(keeper_fd); /* a forked child's copy: its parent's keeper must see its death */
        keeper_fd = -1;
    }
    if (!keeper_tried || keeper_for != getpid())
        start();
    reap();
    if (keeper_fd < 0)
        return;
    for (int i = 0; i < n->n && npids < EDONIO_KEEPER_PIDS; i++)
        if (i != n->me)
            pids[npids++] = n->pid[i];
    struct edonio_keeper_msg m = {EDONIO_KEEPER_MAGIC,  c->id,
                                  n->bytes[n->me],      EDONIO_KEEPER_LAYOUT,
                                  EDONIO_KEEPER_ATTACH, npids};
    int fds[2] = {c->fd_sys, n->memfd};
    tell(&m, pids, c->filename, fds, 2);
}

void ADIOI_EDONIO_Keeper_detach(struct edonio_cache *c)
{
    struct edonio_node *n = &c->node;

    if (n->n == 0 || !c->writable)
        return;
    atomic_store(&n->own[n->me]->cache_id, 0);
    atomic_store(&n->remote[n->me]->cache_id, 0);
    reap();
    if (keeper_fd < 0 || keeper_for != getpid())
        return;
    struct edonio_keeper_msg m = {EDONIO_KEEPER_MAGIC,  c->id, 0, EDONIO_KEEPER_LAYOUT,
                                  EDONIO_KEEPER_DETACH, 0};
    tell(&m, NULL, "", NULL, 0);
}

void ADIOI_EDONIO_Keeper_hold(struct edonio_cache *c, int hold)
{
    struct edonio_node *n = &c->node;

    if (n->n == 0 || !c->writable)
        return;
    struct edonio_segment *segs[2] = {n->own[n->me], n->remote[n->me]};
    for (int k = 0; k < 2; k++) {
        ADIOI_EDONIO_Node_lock(segs[k]); /* the keeper writes back under it, and checks the id */
        atomic_store(&segs[k]->cache_id, hold ? 0 : c->id);
        ADIOI_EDONIO_Node_release(segs[k]);
    }
}

void ADIOI_EDONIO_Keeper_expire(struct edonio_cache *c)
{
    struct edonio_node *n = &c->node;

    if (n->n == 0)
        return;
    atomic_store(&n->own[n->me]->dirty_expire, (int32_t)c->hints.dirty_expire);
    atomic_store(&n->remote[n->me]->dirty_expire, (int32_t)c->hints.dirty_expire);
}
