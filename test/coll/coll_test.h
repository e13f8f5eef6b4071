/*
 * edonio collective and atomic-mode tests: what the programs of test/coll/ share (header only).
 *
 * On top of test/cache/cache_test.h (ROMIO's conventions: the file name first, errors counted on
 * each process and summed, rank 0 prints " No Errors" or " Found N errors"). The arguments after
 * the file name are of three kinds:
 *   KEY=VALUE          a hint, added to every open (overrides the test's own)
 *   test_NAME=VALUE    an option of the program itself (never put in an info)
 *   expect:KEY=VALUE   MPI_File_get_info must report KEY with VALUE after every open
 * and test_fs=edonio|ufs: every open checks that edonio serves the file (romio_edonio_version in
 * MPI_File_get_info), or that it does not.
 */
#ifndef COLL_TEST_H_INCLUDED
#define COLL_TEST_H_INCLUDED

#include "../cache/cache_test.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* The hint KEY as given on the command line (last one wins), or def. */
static inline const char *co_hint(const char *key, const char *def)
{
    size_t n = strlen(key);
    const char *v = def;

    for (int i = 2; i < ct_argc; i++)
        if (strncmp(ct_argv[i], key, n) == 0 && ct_argv[i][n] == '=')
            v = ct_argv[i] + n + 1;
    return v;
}

/* The expect:KEY=VALUE checks of the command line, on an open file. */
static inline void co_check_expect(MPI_File fh, const char *what)
{
    for (int i = 2; i < ct_argc; i++) {
        char key[MPI_MAX_INFO_KEY + 1], value[MPI_MAX_INFO_VAL + 1];
        const char *a = ct_argv[i], *eq;
        if (strncmp(a, "expect:", 7) != 0)
            continue;
        a += 7;
        eq = strchr(a, '=');
        if (eq == NULL || (size_t)(eq - a) > MPI_MAX_INFO_KEY)
            continue;
        memcpy(key, a, (size_t)(eq - a));
        key[eq - a] = '\0';
        ct_get(fh, key, value);
        CT_CHECK(strcmp(value, eq + 1) == 0,
                 "%s: MPI_File_get_info reports %s='%s', expected '%s'%s", what, key, value,
                 eq + 1, value[0] ? "" : " (key missing)");
    }
}

static inline MPI_File co_open(const char *name, int amode, MPI_Info info, const char *what)
{
    MPI_File fh = MPI_FILE_NULL;

    CT_MPI(MPI_File_open(MPI_COMM_WORLD, name, amode, info, &fh));
    if (fh == MPI_FILE_NULL) {
        ct_error("%s: cannot open %s", what, name);
        return fh;
    }
    co_check_expect(fh, what);
    {
        const char *fs = ct_opt("fs", "");
        char value[MPI_MAX_INFO_VAL + 1];
        ct_get(fh, "romio_edonio_version", value);
        if (strcmp(fs, "edonio") == 0)
            CT_CHECK(value[0] != '\0', "%s: edonio does not serve %s (no romio_edonio_version)",
                     what, name);
        else if (strcmp(fs, "ufs") == 0)
            CT_CHECK(value[0] == '\0', "%s: edonio serves %s, expected ufs", what, name);
    }
    return fh;
}

/* Read a file with POSIX calls (independently of MPI-IO): len bytes at off into buf (bytes past
 * the end of the file are zeros); -1 when the file cannot be opened. */
static inline long long co_pread(const char *name, long long off, unsigned char *buf, long long len)
{
    /* ROMIO prefixes: "edonio:" or "ufs:" */
    const char *colon = strchr(name, ':');
    int fd;
    long long got = 0;

    if (colon != NULL && colon - name > 1 && strchr(name, '/') > colon)
        name = colon + 1;
    fd = open(name, O_RDONLY);
    if (fd < 0)
        return -1;
    memset(buf, 0, (size_t)len);
    while (got < len) {
        ssize_t n = pread(fd, buf + got, (size_t)(len - got), (off_t)(off + got));
        if (n <= 0)
            break;
        got += n;
    }
    close(fd);
    return got;
}

static inline long long co_file_size(const char *name)
{
    const char *colon = strchr(name, ':');
    struct stat st;

    if (colon != NULL && colon - name > 1 && strchr(name, '/') > colon)
        name = colon + 1;
    return stat(name, &st) == 0 ? (long long)st.st_size : -1;
}

static inline void *co_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL) {
        fprintf(stderr, "rank %d: out of memory (%zu bytes)\n", ct_rank, n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

#endif /* COLL_TEST_H_INCLUDED */
