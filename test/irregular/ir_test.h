/*
 * edonio irregular tests: what the programs of test/irregular/ share (header only).
 *
 * On top of test/coll/coll_test.h (the file name first, errors counted on each process and
 * summed, rank 0 prints " No Errors" or " Found N errors"; KEY=VALUE arguments are hints, given
 * to every open and to every schedule, where the library takes its edonio_ir_* keys and ignores
 * the others; test_NAME=VALUE options of the program; test_fs=edonio|ufs checks the driver).
 * Adds a seeded random generator, the element values, POSIX access to the files, the checks of
 * an error code (its class on every process, its message), and the sums of the schedules'
 * statistics.
 */
#ifndef IR_TEST_H_INCLUDED
#define IR_TEST_H_INCLUDED

#include "../coll/coll_test.h"
#include "edonio_irregular.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <strings.h> /* strcasecmp */

/* ---- a seeded generator (splitmix64): the same sequence on every process ---- */

static inline uint64_t ir_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* A seed made of several numbers (test seed, what the stream is for, a rank ...). */
static inline uint64_t ir_seed(uint64_t a, uint64_t b, uint64_t c)
{
    return ir_mix(ir_mix(ir_mix(a) ^ b) ^ c);
}

static inline uint64_t ir_next(uint64_t *s)
{
    *s += 0x9e3779b97f4a7c15ull;
    uint64_t x = *s;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Uniform in [0, n), n > 0. */
static inline long long ir_below(uint64_t *s, long long n)
{
    return (long long)(ir_next(s) % (uint64_t)n);
}

static inline void ir_shuffle(uint64_t *s, MPI_Offset *a, long long n)
{
    for (long long i = n - 1; i > 0; i--) {
        long long j = ir_below(s, i + 1);
        MPI_Offset t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

/* A growing list of global indices. */
typedef struct ir_list {
    long long n, cap;
    MPI_Offset *idx;
} ir_list;

static inline void ir_push(ir_list *l, MPI_Offset g)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->idx = realloc(l->idx, sizeof(*l->idx) * (size_t)l->cap);
        if (l->idx == NULL) {
            fprintf(stderr, "rank %d: out of memory\n", ct_rank);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    l->idx[l->n++] = g;
}

static inline void ir_list_free(ir_list *l)
{
    free(l->idx);
    l->idx = NULL;
    l->n = l->cap = 0;
}

/* ---- the data ---- */

/* Byte j of an element that (a, b, c) names: any byte value, different names different bytes. */
static inline unsigned char ir_byte(uint64_t a, uint64_t b, uint64_t c, long long j)
{
    return (unsigned char)(ir_mix(ir_seed(a, b, c) + (uint64_t)j) >> 24);
}

/* ---- POSIX access to a test file (the name without a ROMIO prefix) ---- */

static inline const char *ir_path(const char *name)
{
    const char *colon = strchr(name, ':');

    if (colon != NULL && colon - name > 1 && strchr(name, '/') > colon)
        return colon + 1;
    return name;
}

/* Write len bytes at off with POSIX (creating the file); 0 on success. */
static inline int ir_pwrite(const char *name, long long off, const void *buf, long long len)
{
    int fd = open(ir_path(name), O_WRONLY | O_CREAT, 0644);
    long long done = 0;

    if (fd < 0)
        return -1;
    while (done < len) {
        ssize_t n = pwrite(fd, (const char *)buf + done, (size_t)(len - done), (off_t)(off + done));
        if (n <= 0)
            break;
        done += n;
    }
    close(fd);
    return done == len ? 0 : -1;
}

/* The whole file in a new buffer (*len its size); NULL when it cannot be read. */
static inline unsigned char *ir_slurp(const char *name, long long *len)
{
    long long size = co_file_size(name);
    unsigned char *buf;

    *len = size;
    if (size < 0)
        return NULL;
    buf = malloc((size_t)size + 1);
    if (co_pread(name, 0, buf, size) != size) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* Replace the file by len bytes of buf (POSIX). */
static inline int ir_replace(const char *name, const unsigned char *buf, long long len)
{
    if (unlink(ir_path(name)) != 0 && errno != ENOENT)
        return -1;
    return ir_pwrite(name, 0, buf, len);
}

/* ---- errors ---- */

/* A call that must succeed. */
#define IR_OK(call) CT_MPI(call)

/* ir_expect's want for "an error of any class (the same on every process)". */
#define IR_ANY_ERROR (-1)

static inline const char *ir_class_name(int cls)
{
    switch (cls) {
        case MPI_SUCCESS:
            return "MPI_SUCCESS";
        case MPI_ERR_ARG:
            return "MPI_ERR_ARG";
        case MPI_ERR_IO:
            return "MPI_ERR_IO";
        case MPI_ERR_UNSUPPORTED_DATAREP:
            return "MPI_ERR_UNSUPPORTED_DATAREP";
        case MPI_ERR_FILE:
            return "MPI_ERR_FILE";
        case MPI_ERR_BUFFER:
            return "MPI_ERR_BUFFER";
        case MPI_ERR_READ_ONLY:
            return "MPI_ERR_READ_ONLY";
        case MPI_ERR_ACCESS:
            return "MPI_ERR_ACCESS";
        case MPI_ERR_OTHER:
            return "MPI_ERR_OTHER";
        case MPI_ERR_INTERN:
            return "MPI_ERR_INTERN";
        case MPI_ERR_NO_MEM:
            return "MPI_ERR_NO_MEM";
        case MPI_ERR_COMM:
            return "MPI_ERR_COMM";
        case MPI_ERR_COUNT:
            return "MPI_ERR_COUNT";
        default:
            return "another class";
    }
}

/* Does msg hold one of the '|'-separated words of any (case-insensitive)? */
static inline int ir_mentions(const char *msg, const char *any)
{
    char low[MPI_MAX_ERROR_STRING + 1];
    size_t i;

    for (i = 0; msg[i] != '\0' && i < MPI_MAX_ERROR_STRING; i++)
        low[i] = (char)tolower((unsigned char)msg[i]);
    low[i] = '\0';
    while (*any != '\0') {
        char word[128];
        size_t n = strcspn(any, "|");
        if (n >= sizeof(word))
            n = sizeof(word) - 1;
        for (i = 0; i < n; i++)
            word[i] = (char)tolower((unsigned char)any[i]);
        word[n] = '\0';
        if (n > 0 && strstr(low, word) != NULL)
            return 1;
        any += n;
        if (*any == '|')
            any++;
    }
    return 0;
}

/*
 * rc, the code a library call returned on this process (collective over MPI_COMM_WORLD when
 * collective is set), must be of class want on every process (MPI_SUCCESS: no error;
 * IR_ANY_ERROR: any error class, the same on every process); an error's
 * message must be non-empty, name the call and mention the cause (one of the '|'-separated words
 * of cause, case-insensitive; NULL: any), and be edonio_ir_error_string's too (libedonio is
 * loaded in every run). Rank 0 logs the message. Returns the class here.
 */
static inline int ir_expect(int rc, int want, const char *call, const char *cause, int collective,
                            const char *what)
{
    int cls = MPI_SUCCESS, lo = 0, hi = 0, len = 0;
    char msg[MPI_MAX_ERROR_STRING + 1] = "";

    if (rc != MPI_SUCCESS) {
        MPI_Error_class(rc, &cls);
        MPI_Error_string(rc, msg, &len);
        msg[len < 0 ? 0 : len] = '\0';
    }
    CT_CHECK(want == IR_ANY_ERROR ? cls != MPI_SUCCESS : cls == want,
             "%s: %s returned %s (%d), expected %s%s%s", what, call, ir_class_name(cls), cls,
             want == IR_ANY_ERROR ? "an error" : ir_class_name(want), msg[0] ? ": " : "", msg);
    if (collective) {
        MPI_Allreduce(&cls, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(&cls, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        CT_CHECK(lo == hi, "%s: %s returned different classes on the processes (%d to %d)", what,
                 call, lo, hi);
    }
    if (rc != MPI_SUCCESS) {
        char own[MPI_MAX_ERROR_STRING + 1] = "";
        int olen = 0;
        IR_OK(edonio_ir_error_string(rc, own, &olen));
        own[olen < 0 ? 0 : olen] = '\0';
        CT_CHECK(strcmp(own, msg) == 0,
                 "%s: %s: MPI_Error_string says '%s', edonio_ir_error_string '%s'", what, call, msg,
                 own);
        CT_CHECK(msg[0] != '\0', "%s: %s: MPI_Error_string gives an empty message", what, call);
        CT_CHECK(strstr(msg, call) != NULL, "%s: the message does not name %s: '%s'", what, call,
                 msg);
        if (cause != NULL)
            CT_CHECK(ir_mentions(msg, cause), "%s: the message mentions none of '%s': '%s'", what,
                     cause, msg);
        if (ct_rank == 0 && (cls == want || want == IR_ANY_ERROR))
            fprintf(stderr, "rank 0: %s: %s: %s\n", what, ir_class_name(cls), msg);
    }
    return cls;
}

/* ---- schedules ---- */

/* The info of every schedule: the command line's hints (the library ignores keys not its own). */
static inline MPI_Info ir_info(void)
{
    return ct_info(NULL);
}

/* A numeric info value of a schedule (from edonio_ir_schedule_get_info), -1 when missing;
 * "true" and "false" are 1 and 0. */
static inline long long ir_sched_info(edonio_ir_schedule s, const char *key)
{
    MPI_Info info = MPI_INFO_NULL;
    char value[MPI_MAX_INFO_VAL + 1] = "", *end = NULL;
    int flag = 0;
    long long v = -1;

    IR_OK(edonio_ir_schedule_get_info(s, &info));
    if (info == MPI_INFO_NULL) {
        ct_error("edonio_ir_schedule_get_info gave no info");
        return -1;
    }
    MPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag);
    MPI_Info_free(&info);
    if (flag && (strcmp(value, "true") == 0 || strcmp(value, "false") == 0))
        return value[0] == 't';
    if (flag)
        v = strtoll(value, &end, 10);
    CT_CHECK(flag && *end == '\0', "edonio_ir_schedule_get_info: %s is '%s'%s", key, value,
             flag ? ", not a number" : " (missing)");
    return v;
}

/* The chunk size the contract says a schedule of element size e takes from the command line's
 * edonio_ir_chunk_size: a value in [1, 268435456] (else the default, 1048576) rounded down to
 * whole elements, at least one. */
static inline long long ir_want_chunk(long long e)
{
    const char *v = co_hint("edonio_ir_chunk_size", NULL);
    char *end = NULL;
    long long cs = 1048576;

    if (v != NULL) {
        long long x = strtoll(v, &end, 10);
        if (end != v && *end == '\0' && x >= 1 && x <= 268435456)
            cs = x;
    }
    return cs / e > 0 ? cs / e * e : e;
}

/* Whether the command line's edonio_ir_shuffle asks compressed chunks shuffled: false, disable
 * (any case) and 0 do not, anything else (true, invalid, none) does. */
static inline int ir_want_shuffle(void)
{
    const char *v = co_hint("edonio_ir_shuffle", "true");
    return strcasecmp(v, "false") != 0 && strcasecmp(v, "disable") != 0 && strcmp(v, "0") != 0;
}

/* The effective chunk size and the other values get_info must report. */
static inline long long ir_check_info(edonio_ir_schedule s, long long e, const char *what)
{
    long long cs = ir_sched_info(s, "edonio_ir_chunk_size");
    long long want = ir_want_chunk(e);
    const char *align = co_hint("edonio_ir_align", "4096");
    const char *level = co_hint("edonio_ir_zstd_level", "3");

    CT_CHECK(cs == want, "%s: edonio_ir_chunk_size is %lld, expected %lld (element size %lld)",
             what, cs, want, e);
    long long a = ir_sched_info(s, "edonio_ir_align");
    CT_CHECK(a == strtoll(align, NULL, 10), "%s: edonio_ir_align is %lld, expected %s", what, a,
             align);
    long long l = ir_sched_info(s, "edonio_ir_zstd_level");
    CT_CHECK(l == strtoll(level, NULL, 10), "%s: edonio_ir_zstd_level is %lld, expected %s", what,
             l, level);
    long long sh = ir_sched_info(s, "edonio_ir_shuffle");
    CT_CHECK(sh == ir_want_shuffle(), "%s: edonio_ir_shuffle is %lld, expected %d", what, sh,
             ir_want_shuffle());
    return cs > 0 ? cs : want;
}

/* A schedule's statistics on this process. */
static inline edonio_ir_stats ir_stats(edonio_ir_schedule s)
{
    edonio_ir_stats st;

    memset(&st, 0, sizeof(st));
    IR_OK(edonio_ir_schedule_stats(s, &st));
    return st;
}

/* The element-wise sum of the statistics over all processes. */
static inline edonio_ir_stats ir_stats_sum(edonio_ir_stats st)
{
    edonio_ir_stats sum;
    long long in[6] = {st.calls,         st.file_writes, st.file_reads,
                       st.bytes_written, st.bytes_read,  st.bytes_sent},
              out[6];

    MPI_Allreduce(in, out, 6, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    sum.calls = out[0];
    sum.file_writes = out[1];
    sum.file_reads = out[2];
    sum.bytes_written = out[3];
    sum.bytes_read = out[4];
    sum.bytes_sent = out[5];
    return sum;
}

/* A comma-separated list of numbers (at most max). */
static inline int ir_numbers(const char *s, long long *out, int max)
{
    int n = 0;

    while (*s != '\0' && n < max) {
        char *end;
        long long v = strtoll(s, &end, 10);
        if (end == s)
            break;
        out[n++] = v;
        s = *end == ',' ? end + 1 : end;
    }
    return n;
}

/* Compare n elements of e bytes with what they must be; report the first few (positions and
 * global indices). Returns the number of wrong elements. */
static inline long long ir_compare_elems(const char *what, const unsigned char *got,
                                         const unsigned char *want, const MPI_Offset *idx,
                                         long long n, long long e)
{
    long long bad = 0;

    for (long long k = 0; k < n; k++) {
        if (memcmp(got + k * e, want + k * e, (size_t)e) != 0) {
            if (bad < 3) {
                long long j = 0;
                while (got[k * e + j] == want[k * e + j])
                    j++;
                fprintf(stderr,
                        "rank %d: %s: element %lld (global %lld) byte %lld is %d, expected %d\n",
                        ct_rank, what, k, idx ? (long long)idx[k] : k, j, got[k * e + j],
                        want[k * e + j]);
            }
            bad++;
        }
    }
    if (bad)
        ct_error("%s: %lld of %lld elements wrong", what, bad, n);
    return bad;
}

#endif /* IR_TEST_H_INCLUDED */
