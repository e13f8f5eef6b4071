/*
 * edonio: the memory limit of this process's cgroup (see ad_edonio_memlimit.h). Read once per
 * process, at its first open (ad_edonio_node.c): with open and read, no stdio, since each of these
 * files costs a path lookup in /proc or /sys.
 */
#define _POSIX_C_SOURCE 200809L

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ad_edonio_memlimit.h"

enum { PATH_BYTES = 4096 };

/* Up to size - 1 bytes of a file, NUL-terminated; the bytes read, or -1. */
static ssize_t read_small(const char *path, char *buf, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n;

    if (fd < 0)
        return -1;
    n = read(fd, buf, size - 1);
    close(fd);
    buf[n > 0 ? n : 0] = '\0';
    return n;
}

/* A limit file's value: bytes, or 0 for none ("max", v1's page-rounded LLONG_MAX, absent). */
static long long limit_in(const char *path)
{
    char buf[64], *end;
    long long v;

    if (read_small(path, buf, sizeof(buf)) <= 0)
        return 0;
    v = strtoll(buf, &end, 10);
    return end != buf && v > 0 && v < (1LL << 62) ? v : 0;
}

/* The lower of two limits, 0 being none. */
static long long lower(long long a, long long b)
{
    return a == 0 || (b > 0 && b < a) ? b : a;
}

/* The lowest limit in 'file' of cgroup 'path' (under 'root') and of its ancestors; 0 for none. */
static long long walk_up(const char *root, const char *path, const char *file)
{
    char dir[PATH_BYTES], name[PATH_BYTES + 64];
    long long lowest = 0;
    int n = snprintf(dir, sizeof(dir), "%s", path);

    if (n < 0 || (size_t)n >= sizeof(dir))
        return 0;
    for (;;) {
        size_t len = strlen(dir);
        while (len > 0 && dir[len - 1] == '/') /* "/a/b/" and "/" alike */
            dir[--len] = '\0';
        n = snprintf(name, sizeof(name), "%s%s/%s", root, dir, file);
        if (n > 0 && (size_t)n < sizeof(name))
            lowest = lower(lowest, limit_in(name));
        char *slash = strrchr(dir, '/');
        if (slash == NULL)
            return lowest; /* the root done */
        *slash = '\0';
    }
}

/* Is 'name' one of the comma-separated controllers in [list, list + len)? */
static int lists(const char *list, size_t len, const char *name)
{
    size_t n = strlen(name);

    for (const char *p = list, *end = list + len; p < end;) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        size_t item = (size_t)((comma ? comma : end) - p);
        if (item == n && strncmp(p, name, n) == 0)
            return 1;
        p += item + 1;
    }
    return 0;
}

long long edonio_cgroup_limit(const char *self_cgroup, const char *v2_root, const char *v1_root)
{
    char text[PATH_BYTES];
    long long lowest = 0;

    if (read_small(self_cgroup, text, sizeof(text)) <= 0)
        return 0;
    /* Lines "ID:CONTROLLERS:PATH": "0::PATH" is cgroup v2, a list holding "memory" is v1's. */
    for (char *line = text, *next; line != NULL && *line != '\0'; line = next) {
        next = strchr(line, '\n');
        if (next != NULL)
            *next++ = '\0';
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (c2 == NULL || c2[1] != '/')
            continue; /* not a line of this format */
        if (c2 == c1 + 1 && strncmp(line, "0:", 2) == 0)
            lowest = lower(lowest, walk_up(v2_root, c2 + 1, "memory.max"));
        else if (lists(c1 + 1, (size_t)(c2 - c1 - 1), "memory"))
            lowest = lower(lowest, walk_up(v1_root, c2 + 1, "memory.limit_in_bytes"));
    }
    return lowest;
}
