/*
 * edonio cache tests: what every test program of test/cache/ shares (header only).
 *
 * ROMIO's conventions: the file name is the first argument, errors are counted on each process
 * and summed with MPI_Allreduce, rank 0 prints " No Errors" or " Found N errors", and the exit
 * status is non-zero on error. Further arguments KEY=VALUE are hints added to every open (they
 * override the test's own), so that a run can switch a behaviour off and show that the test fails.
 */
#ifndef CACHE_TEST_H_INCLUDED
#define CACHE_TEST_H_INCLUDED

/* Include this first: POSIX calls (pread, sleep, ...) next to C11. */
#define _POSIX_C_SOURCE 200809L

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int ct_rank, ct_nprocs, ct_errors;
static int ct_argc;
static char **ct_argv;

/* Say what an error is, as every program of the group says it. */
static inline void ct_say(const char *fmt, va_list ap)
{
    fprintf(stderr, "rank %d: ", ct_rank);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    fflush(stderr);
}

/* Count an error on this process and say what it is (the first few only). */
static inline void ct_error(const char *fmt, ...)
{
    va_list ap;

    if (ct_errors++ >= 10)
        return;
    va_start(ap, fmt);
    ct_say(fmt, ap);
    va_end(ap);
}

#define CT_CHECK(cond, ...)                                                                        \
    do {                                                                                           \
        if (!(cond))                                                                               \
            ct_error(__VA_ARGS__);                                                                 \
    } while (0)

/* An MPI call that must succeed: on failure, count an error with the call and its message. */
#define CT_MPI(call)                                                                               \
    do {                                                                                           \
        int ct_rc_ = (call);                                                                       \
        if (ct_rc_ != MPI_SUCCESS) {                                                               \
            char ct_msg_[MPI_MAX_ERROR_STRING];                                                    \
            int ct_len_ = 0;                                                                       \
            MPI_Error_string(ct_rc_, ct_msg_, &ct_len_);                                           \
            ct_error("line %d: %s failed: %s", __LINE__, #call, ct_msg_);                          \
        }                                                                                          \
    } while (0)

static inline void ct_init(int *argc, char ***argv, const char *usage)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &ct_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ct_nprocs);
    if (*argc < 2) {
        if (ct_rank == 0)
            fprintf(stderr, "usage: %s %s\n", (*argv)[0], usage);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    ct_argc = *argc;
    ct_argv = *argv;
}

/* Sum the errors, report on rank 0, finalize; the exit status. */
static inline int ct_finish(void)
{
    int total = 0;

    MPI_Allreduce(&ct_errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (ct_rank == 0) {
        if (total == 0)
            printf(" No Errors\n");
        else
            printf(" Found %d errors\n", total);
        fflush(stdout);
    }
    MPI_Finalize();
    return total != 0;
}

/* The value of program option test_NAME, or def when it is not given. */
static inline const char *ct_opt(const char *name, const char *def)
{
    size_t n = strlen(name);

    for (int i = 2; i < ct_argc; i++)
        if (strncmp(ct_argv[i], "test_", 5) == 0 && strncmp(ct_argv[i] + 5, name, n) == 0 &&
            ct_argv[i][5 + n] == '=')
            return ct_argv[i] + 6 + n;
    return def;
}

static inline long long ct_opt_ll(const char *name, long long def)
{
    const char *v = ct_opt(name, NULL);
    return v == NULL ? def : strtoll(v, NULL, 10);
}

/* The extra KEY=VALUE hints of the command line (arguments from 'first' on), added to info. */
static inline void ct_extra_hints(MPI_Info info, int first)
{
    for (int i = first; i < ct_argc; i++) {
        char key[MPI_MAX_INFO_KEY + 1];
        const char *eq = strchr(ct_argv[i], '=');
        if (eq == NULL || eq == ct_argv[i] || (size_t)(eq - ct_argv[i]) > MPI_MAX_INFO_KEY ||
            strncmp(ct_argv[i], "test_", 5) == 0 || strncmp(ct_argv[i], "expect:", 7) == 0)
            continue; /* test_NAME=VALUE and expect:KEY=VALUE are the programs' own options */
        memcpy(key, ct_argv[i], (size_t)(eq - ct_argv[i]));
        key[eq - ct_argv[i]] = '\0';
        MPI_Info_set(info, key, eq + 1);
    }
}

/* An info with key/value pairs (NULL-terminated list), then the command line's extra hints. */
static inline MPI_Info ct_info(const char *key, ...)
{
    MPI_Info info;
    va_list ap;

    MPI_Info_create(&info);
    va_start(ap, key);
    for (const char *k = key; k != NULL; k = va_arg(ap, const char *))
        MPI_Info_set(info, k, va_arg(ap, const char *));
    va_end(ap);
    ct_extra_hints(info, 2);
    return info;
}

/* MPI_File_set_info with one hint. */
static inline void ct_set_hint(MPI_File fh, const char *key, const char *value)
{
    MPI_Info info;

    MPI_Info_create(&info);
    MPI_Info_set(info, key, value);
    CT_MPI(MPI_File_set_info(fh, info));
    MPI_Info_free(&info);
}

/* The value of key in the file's info (from MPI_File_get_info), or "" when absent. */
static inline const char *ct_get(MPI_File fh, const char *key, char *value)
{
    MPI_Info info;
    int flag = 0;

    value[0] = '\0';
    if (MPI_File_get_info(fh, &info) != MPI_SUCCESS)
        return value;
    MPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag);
    if (!flag)
        value[0] = '\0';
    MPI_Info_free(&info);
    return value;
}

/* A numeric key of the file's info; -1 (and an error) when absent or not a number. */
static inline long long ct_get_ll(MPI_File fh, const char *key)
{
    char value[MPI_MAX_INFO_VAL + 1], *end;
    long long v;

    ct_get(fh, key, value);
    v = strtoll(value, &end, 10);
    if (value[0] == '\0' || *end != '\0') {
        ct_error("MPI_File_get_info: %s is '%s', not a number", key, value);
        return -1;
    }
    return v;
}

/* The statistics this process reports; one of them, or their sum over all processes. */
static inline long long ct_stat(MPI_File fh, const char *name)
{
    char key[64];

    snprintf(key, sizeof(key), "romio_edonio_stats_%s", name);
    return ct_get_ll(fh, key);
}

static inline long long ct_sum(long long mine)
{
    long long total = 0;

    MPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    return total;
}

static inline long long ct_stat_sum(MPI_File fh, const char *name)
{
    return ct_sum(ct_stat(fh, name));
}

/* The data every test writes: a byte that depends on its offset (and a seed), never constant. */
static inline unsigned char ct_pattern(long long off, int seed)
{
    unsigned long long x = (unsigned long long)off * 2654435761u + (unsigned long long)seed * 97;
    return (unsigned char)(x ^ (x >> 13) ^ (x >> 27) ^ 0x5a);
}

/* Compare buf (len bytes at file offset off) with want; report the first few differences. */
static inline void ct_compare(const char *what, const unsigned char *buf, const unsigned char *want,
                              long long off, long long len)
{
    int shown = 0;
    long long bad = 0;

    for (long long i = 0; i < len; i++) {
        if (buf[i] != want[i]) {
            if (shown++ < 3)
                fprintf(stderr, "rank %d: %s: byte %lld is %d, expected %d\n", ct_rank, what,
                        off + i, buf[i], want[i]);
            bad++;
        }
    }
    if (bad)
        ct_error("%s: %lld wrong bytes in [%lld, %lld)", what, bad, off, off + len);
}

/* The file's bytes [off, off + len), read with POSIX from fd into buf, must be want's. */
static inline void ct_disk_check(int fd, unsigned char *buf, const unsigned char *want,
                                 long long off, long long len, const char *what)
{
    ssize_t got = fd >= 0 ? pread(fd, buf, (size_t)len, (off_t)off) : -1;

    CT_CHECK(got == len, "%s: read %zd of %lld bytes at %lld", what, got, len, off);
    if (got == len)
        ct_compare(what, buf, want, off, len);
}

/* A read at off of len bytes that must return 'expect' bytes (the rest of buf is left alone). */
static inline void ct_read_at(MPI_File fh, long long off, void *buf, long long len,
                              long long expect, const char *what)
{
    MPI_Status status;
    int count = -1;

    CT_MPI(MPI_File_read_at(fh, (MPI_Offset)off, buf, (int)len, MPI_BYTE, &status));
    MPI_Get_count(&status, MPI_BYTE, &count);
    CT_CHECK(count == expect, "%s: read of %lld bytes at %lld returned %d bytes, expected %lld",
             what, len, off, count, expect);
}

/* The file's first size bytes, read in one call, must be want's. */
static inline void ct_read_check(MPI_File fh, const unsigned char *want, long long size,
                                 const char *what)
{
    unsigned char *buf = malloc((size_t)size + 1);

    memset(buf, 0xee, (size_t)size);
    ct_read_at(fh, 0, buf, size, size, what);
    ct_compare(what, buf, want, 0, size);
    free(buf);
}

static inline void ct_write_at(MPI_File fh, long long off, const void *buf, long long len,
                               const char *what)
{
    MPI_Status status;
    int count = -1;

    CT_MPI(MPI_File_write_at(fh, (MPI_Offset)off, buf, (int)len, MPI_BYTE, &status));
    MPI_Get_count(&status, MPI_BYTE, &count);
    CT_CHECK(count == len, "%s: write of %lld bytes at %lld returned %d bytes", what, len, off,
             count);
}

static inline void ct_expect_size(MPI_File fh, long long want, const char *what)
{
    MPI_Offset size = -1;

    CT_MPI(MPI_File_get_size(fh, &size));
    CT_CHECK(size == want, "%s: MPI_File_get_size is %lld, expected %lld", what, (long long)size,
             want);
}

/* The MPI sync-barrier-sync sequence that makes every process's writes visible to all. */
static inline void ct_sync(MPI_File fh)
{
    CT_MPI(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CT_MPI(MPI_File_sync(fh));
}

/*
 * The processes that share this process's node as edonio sees it: those MPI says share memory
 * (under MPIR_CVAR_NOLOCAL, none do); under EDONIO_TEST_NODE (run.sh's 2x2 runs give each pair
 * of ranks a value of its own, on one machine) those with the same value, whatever MPI's cliques;
 * its value "process" (simulated nodes under Open MPI) makes every process a node of its own.
 * The caller frees it.
 */
static inline MPI_Comm ct_node_comm(void)
{
    const char *tag = getenv("EDONIO_TEST_NODE");
    unsigned color = 0;
    MPI_Comm node;

    if (tag == NULL) {
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
        return node;
    }
    if (strcmp(tag, "process") == 0) {
        MPI_Comm_split(MPI_COMM_WORLD, ct_rank, 0, &node);
        return node;
    }
    for (; *tag != '\0'; tag++)
        color = color * 31u + (unsigned char)*tag;
    MPI_Comm_split(MPI_COMM_WORLD, (int)(color & 0x7fffffff), 0, &node);
    return node;
}

/*
 * Do all processes share one node, so that edonio keeps their caches in one another's memory?
 * (ct_node_comm); the hint romio_edonio_shared_memory=false on the command line makes every
 * process a node of its own.
 */
static inline int ct_one_node(void)
{
    static int known = -1;
    MPI_Comm node;
    int size;

    if (known >= 0)
        return known;
    node = ct_node_comm();
    MPI_Comm_size(node, &size);
    MPI_Comm_free(&node);
    known = size == ct_nprocs;
    for (int i = 2; i < ct_argc; i++)
        if (strcmp(ct_argv[i], "romio_edonio_shared_memory=false") == 0)
            known = 0;
    return known;
}

/*
 * Each rank's node as edonio sees it (the lowest rank of its node), and how many nodes there are.
 * The caller frees the array.
 */
static inline int *ct_nodes(int *nnodes)
{
    int *node = malloc((size_t)ct_nprocs * sizeof(int)), mine = 0;
    MPI_Comm comm;

    if (!ct_one_node()) {
        comm = ct_node_comm();
        MPI_Allreduce(&ct_rank, &mine, 1, MPI_INT, MPI_MIN, comm);
        MPI_Comm_free(&comm);
        for (int i = 2; i < ct_argc; i++)
            if (strcmp(ct_argv[i], "romio_edonio_shared_memory=false") == 0)
                mine = ct_rank;
    }
    MPI_Allgather(&mine, 1, MPI_INT, node, 1, MPI_INT, MPI_COMM_WORLD);
    *nnodes = 0;
    for (int r = 0; r < ct_nprocs; r++)
        *nnodes += node[r] == r;
    return node;
}

/*
 * Make every process's writes visible to every other before reading them. Across nodes that is
 * MPI's rule, sync-barrier-sync (MPI-3.1 13.6.1), and all edonio promises. On one node edonio's
 * caches are shared memory and a barrier is enough, which the tests check there.
 */
static inline void ct_share(MPI_File fh)
{
    if (ct_one_node())
        MPI_Barrier(MPI_COMM_WORLD);
    else
        ct_sync(fh);
}

/* Rank 0 removes a file left by an earlier run or case, once no process uses it; everyone waits. */
static inline void ct_fresh(const char *filename)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (ct_rank == 0)
        MPI_File_delete(filename, MPI_INFO_NULL);
    MPI_Barrier(MPI_COMM_WORLD);
}

#endif /* CACHE_TEST_H_INCLUDED */
