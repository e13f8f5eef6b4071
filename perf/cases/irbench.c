/*
 * perf case: libedonio_irregular (issue 43 B, seed 002), through any MPI-IO driver.
 *
 *   irbench -f ufs|edonio|ompio -d DIR -c cache|zarray [-s BYTES] [-k REPS] [-z LEVEL]
 *           [-m window|scattered] [-b CHUNK] [-S SEED] [-l LABEL]
 *
 * The array: 8-byte doubles, BYTES per rank (default 1 MiB), N = P x BYTES / 8 elements dealt
 * to the P ranks by a random permutation of 0..N-1 (seeded by SEED, the same on every rank): rank
 * r's indirection array is the permutation's r-th block, in the permutation's order. Element g's
 * value is a smooth field quantized to integers with a little noise (about 8:1 under zstd level
 * 3 as raw bytes, 13.9:1 byte-shuffled as edonio_ir_zwrite stores it), a function of g, so that
 * every element read is checked.
 *
 * -c cache: seed 002's figure 4, two irregular loops with 7/8 overlap. Loop 2 is loop 1 after a
 * mesh repartition: each rank hands the elements of one region to its neighbour rank r + 1 (mod
 * P) and takes over the ones its other neighbour r - 1 hands over, so that every element still
 * has one holder, every rank keeps 7/8 of its elements and 1/8 of the array changes holder.
 * With -m window (the default) the region is one window of N/8 consecutive global indices (a
 * part of the mesh, whose numbering keeps neighbours close: the file changes in one place); with
 * -m scattered it is a random eighth of the elements (a numbering with no locality: the changes
 * are spread over the whole file). Loop 1 changes its elements before each handover (every
 * element read must then hold the value its holder last had). Times:
 *   full    loop 2's I/O done plainly: edonio_ir_write of loop 1's elements with loop 1's
 *           schedule, then edonio_ir_read with loop 2's (made by edonio_ir_schedule_create)
 *   switch  by software caching: edonio_ir_switch with the schedule edonio_ir_schedule_update
 *           made beforehand (released elements written, kept ones copied, new ones read)
 *   update  edonio_ir_schedule_update alone; create: edonio_ir_schedule_create of loop 2's
 * RESULT t_write = full, t_read = switch.
 *
 * -c zarray: the array written plainly (edonio_ir_write) and compressed (edonio_ir_zwrite, zstd
 * level LEVEL, default 3) with the same schedule, then read each way (edonio_ir_read,
 * edonio_ir_zread); the plain and the compressed call alternate in order from one repetition to
 * the next. RESULT t_write = zwrite, t_read = zread; the ratio is the array's bytes over the
 * bytes zwrite wrote (chunks, index and header).
 *
 * Every call is timed alone: a barrier, the call, the slowest rank's time (a reduction that yields
 * the processor while it waits: slowest()); one round untimed first (a schedule's route is built
 * at its first call), then REPS rounds (default 5), and the median. RESULT carries the figures perf/run puts in results.csv (with edonio's own file
 * operations, its romio_edonio_stats_fs_* info keys read before the close, summed over the
 * ranks); a line "IRREGULAR case=... fs=LABEL key=value ..." every median, the ratios the issue
 * names, and the bytes and file operations of each path per call from edonio_ir_schedule_stats,
 * summed over the ranks (perf/run collects them in irregular.txt, report.py prints them).
 */
#define _POSIX_C_SOURCE 200809L /* getopt */

#include <math.h>
#include <mpi.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "edonio_irregular.h"

enum { MAX_REPS = 64 };

static int rank, nprocs;
static long long errors;

static void check(int err, const char *what)
{
    if (err == MPI_SUCCESS)
        return;
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    edonio_ir_error_string(err, msg, &len);
    fprintf(stderr, "irbench: rank %d: %s: %s\n", rank, what, msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL) {
        fprintf(stderr, "irbench: rank %d: out of memory (%zu bytes)\n", rank, n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

/* Element g's value: an integer-valued smooth field plus noise in [0, 4): 7.8:1 under zstd
 * level 3 in chunks of 1 MiB (8.8:1 at level 1); byte-shuffled 13.9:1 (12.4:1). */
static double value(MPI_Offset g)
{
    return (double)(int)(50.0 * sin((double)g * 0.01)) + (double)(mix((uint64_t)g) % 4);
}

/* Whether element g changes holder between the loops: in the window [w0, w1), or (scattered) an
 * eighth of the array picked at random. */
static int moves(MPI_Offset g, int scattered, MPI_Offset w0, MPI_Offset w1, uint64_t salt)
{
    return scattered ? (mix((uint64_t)g ^ salt) & 7) == 0 : g >= w0 && g < w1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *t, int k)
{
    qsort(t, (size_t)k, sizeof *t, cmp_double);
    return k % 2 ? t[k / 2] : (t[k / 2 - 1] + t[k / 2]) / 2;
}

/*
 * The slowest rank's time, a reduction that gives the processor away while it waits, as the
 * library's own waits do. With more ranks than processors (4 on this project's 2 cores) MPICH's
 * blocking MPI_Allreduce busy-polls: the ranks that leave a timed call first took the processors
 * from the ones still finishing it, whose time then grew by a scheduler tick (about 4 ms, most of
 * a 4-rank switch's 8-10 ms), an effect of the timing itself.
 */
static double slowest(double t)
{
    double max = t;
    MPI_Request req;
    int done = 0;
    MPI_Iallreduce(&t, &max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD, &req);
    for (int polls = 1; !done; polls++) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (!done && polls % 8 == 0)
            sched_yield();
    }
    return max;
}

/* One call timed alone: barrier, call, the slowest rank's time. */
#define TIMED(out, call)                                                                           \
    do {                                                                                           \
        MPI_Barrier(MPI_COMM_WORLD);                                                               \
        double t0_ = MPI_Wtime();                                                                  \
        call;                                                                                      \
        (out) = slowest(MPI_Wtime() - t0_);                                                        \
    } while (0)

static void fill(double *buf, const MPI_Offset *idx, MPI_Offset n, double tag)
{
    for (MPI_Offset k = 0; k < n; k++)
        buf[k] = value(idx[k]) + tag;
}

static void verify(const double *buf, const MPI_Offset *idx, MPI_Offset n, double tag)
{
    for (MPI_Offset k = 0; k < n; k++)
        errors += buf[k] != value(idx[k]) + tag;
}

/* What a path moved: bytes written and read, file writes and reads (the library's statistics),
 * accumulated over the rounds; delta() adds a schedule's change since its last snapshot. */
typedef struct {
    long long v[4];
} moved;

static void delta(edonio_ir_schedule s, edonio_ir_stats *last, moved *m)
{
    edonio_ir_stats now;
    check(edonio_ir_schedule_stats(s, &now), "stats");
    m->v[0] += now.bytes_written - last->bytes_written;
    m->v[1] += now.bytes_read - last->bytes_read;
    m->v[2] += now.file_writes - last->file_writes;
    m->v[3] += now.file_reads - last->file_reads;
    *last = now;
}

/* Per call, summed over the ranks. */
static void per_call(moved *m, int reps)
{
    MPI_Allreduce(MPI_IN_PLACE, m->v, 4, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < 4; i++)
        m->v[i] /= reps;
}

static long long info_ll(MPI_Info info, const char *key)
{
    char v[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    MPI_Info_get(info, key, MPI_MAX_INFO_VAL, v, &flag);
    return flag ? atoll(v) : 0;
}

static void usage(void)
{
    if (rank == 0)
        fprintf(stderr, "usage: irbench -f DRIVER -d DIR -c cache|zarray [-s BYTES] [-k REPS] "
                        "[-z LEVEL] [-m window|scattered] [-b CHUNK] [-S SEED] [-l LABEL]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
}

int main(int argc, char **argv)
{
    const char *driver = "edonio", *dir = ".", *cas = "cache", *label = "-", *mode = "window";
    long long bytes = 1 << 20, chunk = 0;
    unsigned long long seed = 1;
    int reps = 5, level = 3, opt;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    while ((opt = getopt(argc, argv, "f:d:c:s:k:z:m:b:S:l:")) != -1) {
        switch (opt) {
            case 'f':
                driver = optarg;
                break;
            case 'd':
                dir = optarg;
                break;
            case 'c':
                cas = optarg;
                break;
            case 's':
                bytes = strtoll(optarg, NULL, 10);
                break;
            case 'k':
                reps = atoi(optarg);
                break;
            case 'z':
                level = atoi(optarg);
                break;
            case 'm':
                mode = optarg;
                break;
            case 'b':
                chunk = strtoll(optarg, NULL, 10);
                break;
            case 'S':
                seed = strtoull(optarg, NULL, 10);
                break;
            case 'l':
                label = optarg;
                break;
            default:
                usage();
        }
    }
    int scattered = strcmp(mode, "scattered") == 0;
    if ((strcmp(cas, "cache") != 0 && strcmp(cas, "zarray") != 0) ||
        (!scattered && strcmp(mode, "window") != 0) || reps < 1 || reps > MAX_REPS)
        usage();
    /* ompio: the program alone under Open MPI, the file named plainly */
    char path[4096];
    if (strcmp(driver, "ompio") == 0)
        snprintf(path, sizeof path, "%s/irbench.%s", dir, driver);
    else
        snprintf(path, sizeof path, "%s:%s/irbench.%s", driver, dir, driver);

    /* Loop 1: a random permutation of the global array, dealt in blocks of n1. */
    MPI_Offset n1 = bytes / 8 > 0 ? bytes / 8 : 1, N = n1 * nprocs;
    MPI_Offset *perm = xmalloc((size_t)N * sizeof *perm);
    for (MPI_Offset g = 0; g < N; g++)
        perm[g] = g;
    uint64_t st = mix(seed + 0x9e3779b97f4a7c15ULL);
    for (MPI_Offset g = N - 1; g > 0; g--) { /* Fisher-Yates, the same on every rank */
        st = mix(st + 0x9e3779b97f4a7c15ULL);
        MPI_Offset j = (MPI_Offset)(st % (uint64_t)(g + 1)), t = perm[g];
        perm[g] = perm[j];
        perm[j] = t;
    }
    MPI_Offset *i1 = perm + (MPI_Offset)rank * n1;
    /* Loop 2: the region's elements go from each rank to the next; the others stay. */
    MPI_Offset w0 = N / 3, w1 = w0 + N / 8;
    uint64_t salt = mix(seed ^ 0x5bd1e995ULL);
#define MOVES(g) moves(g, scattered, w0, w1, salt)
    const MPI_Offset *left = perm + (MPI_Offset)((rank + nprocs - 1) % nprocs) * n1;
    MPI_Offset n2 = 0, kept = 0;
    for (MPI_Offset k = 0; k < n1; k++)
        n2 += !MOVES(i1[k]) + MOVES(left[k]);
    MPI_Offset *i2 = xmalloc((size_t)n2 * sizeof *i2);
    n2 = 0;
    for (MPI_Offset k = 0; k < n1; k++)
        if (!MOVES(i1[k]))
            i2[n2++] = i1[k];
    kept = n2;
    for (MPI_Offset k = 0; k < n1; k++)
        if (MOVES(left[k]))
            i2[n2++] = left[k];
    long long kn[2] = {(long long)kept, (long long)n2};
    MPI_Allreduce(MPI_IN_PLACE, kn, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    double *b1 = xmalloc((size_t)n1 * 8), *b2 = xmalloc((size_t)n2 * 8);

    MPI_Info info;
    char v[32];
    MPI_Info_create(&info);
    snprintf(v, sizeof v, "%d", level);
    MPI_Info_set(info, "edonio_ir_zstd_level", v);
    if (chunk > 0) {
        snprintf(v, sizeof v, "%lld", chunk);
        MPI_Info_set(info, "edonio_ir_chunk_size", v);
    }
    edonio_ir_schedule s1, s2 = EDONIO_IR_SCHEDULE_NULL, s2c = EDONIO_IR_SCHEDULE_NULL;
    edonio_ir_stats st1, st2, st2c;
    check(edonio_ir_schedule_create(MPI_COMM_WORLD, N, 8, n1, i1, info, &s1), "create");
    MPI_File fh;
    check(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
          path);

    double ta[MAX_REPS], tb[MAX_REPS], tc[MAX_REPS], td[MAX_REPS];
    moved ma = {{0}}, mb = {{0}}, mc = {{0}}, md = {{0}};
    char line[1024];
    line[0] = 0;
    long long res_w = 8LL * N, res_r = 8LL * N;
    double res_tw = 0, res_tr = 0;
    if (strcmp(cas, "cache") == 0) {
        fill(b1, i1, n1, 0);
        check(edonio_ir_write(fh, 0, s1, b1), "write");
        /* the schedules of loop 2, each made REPS times (the last one kept) */
        for (int r = 0; r < reps; r++) {
            if (s2 != EDONIO_IR_SCHEDULE_NULL)
                check(edonio_ir_schedule_free(&s2), "free");
            TIMED(tc[r], check(edonio_ir_schedule_update(s1, n2, i2, &s2), "update"));
        }
        for (int r = 0; r < reps; r++) {
            if (s2c != EDONIO_IR_SCHEDULE_NULL)
                check(edonio_ir_schedule_free(&s2c), "free");
            TIMED(td[r], check(edonio_ir_schedule_create(MPI_COMM_WORLD, N, 8, n2, i2, info, &s2c),
                               "create"));
        }
        double tu = median(tc, reps), tcr = median(td, reps);
        /* round -1 untimed; the tag is loop 1's change of every element before a handover */
        for (int r = -1; r < reps; r++) {
            double tag = 2.0 * (r + 1) + 1, t;
            check(edonio_ir_schedule_stats(s1, &st1), "stats");
            check(edonio_ir_schedule_stats(s2c, &st2c), "stats");
            fill(b1, i1, n1, tag);
            memset(b2, 0, (size_t)n2 * 8);
            TIMED(t, check(edonio_ir_write(fh, 0, s1, b1), "write");
                  check(edonio_ir_read(fh, 0, s2c, b2), "read"));
            verify(b2, i2, n2, tag);
            if (r >= 0) {
                ta[r] = t;
                delta(s1, &st1, &ma);
                delta(s2c, &st2c, &ma);
            }
            tag += 1;
            check(edonio_ir_schedule_stats(s2, &st2), "stats");
            fill(b1, i1, n1, tag);
            memset(b2, 0, (size_t)n2 * 8);
            TIMED(t, check(edonio_ir_switch(fh, 0, s2, b1, b2), "switch"));
            verify(b2, i2, n2, tag);
            if (r >= 0) {
                tb[r] = t;
                delta(s2, &st2, &mb);
            }
        }
        per_call(&ma, reps);
        per_call(&mb, reps);
        double full = median(ta, reps), sw = median(tb, reps);
        long long fb = ma.v[0] + ma.v[1], sb = mb.v[0] + mb.v[1];
        res_tw = full;
        res_tr = sw;
        res_w = ma.v[0];
        res_r = ma.v[1];
        snprintf(line, sizeof line,
                 "IRREGULAR case=cache fs=%s driver=%s np=%d elements=%lld mode=%s kept=%.4f "
                 "update=%.6f create=%.6f full=%.6f switch=%.6f switch/full=%.3f "
                 "full_written=%lld full_read=%lld switch_written=%lld switch_read=%lld "
                 "switch/full_bytes=%.3f full_ops=%lld/%lld switch_ops=%lld/%lld\n",
                 label, driver, nprocs, (long long)N, mode, (double)kn[0] / (double)kn[1], tu,
                 tcr, full, sw, sw / full, ma.v[0], ma.v[1], mb.v[0], mb.v[1],
                 fb ? (double)sb / (double)fb : 0.0, ma.v[2], ma.v[3], mb.v[2], mb.v[3]);
    } else {
        MPI_Offset z0 = (8 * N + 4095) / 4096 * 4096; /* the compressed array after the plain */
        fill(b1, i1, n1, 0);
        for (int r = -1; r < reps; r++) {
            double t[4] = {0, 0, 0, 0};
            edonio_ir_stats a;
            int zfirst = r % 2 != 0; /* the plain call first in even rounds */
            for (int i = 0; i < 2; i++) {
                check(edonio_ir_schedule_stats(s1, &a), "stats");
                if ((i == 0) != zfirst) {
                    TIMED(t[0], check(edonio_ir_write(fh, 0, s1, b1), "write"));
                    if (r >= 0)
                        delta(s1, &a, &ma);
                } else {
                    TIMED(t[1], check(edonio_ir_zwrite(fh, z0, s1, b1), "zwrite"));
                    if (r >= 0)
                        delta(s1, &a, &mb);
                }
            }
            for (int i = 0; i < 2; i++) {
                check(edonio_ir_schedule_stats(s1, &a), "stats");
                memset(b1, 0, (size_t)n1 * 8);
                if ((i == 0) != zfirst) {
                    TIMED(t[2], check(edonio_ir_read(fh, 0, s1, b1), "read"));
                    if (r >= 0)
                        delta(s1, &a, &mc);
                } else {
                    TIMED(t[3], check(edonio_ir_zread(fh, z0, s1, b1), "zread"));
                    if (r >= 0)
                        delta(s1, &a, &md);
                }
                verify(b1, i1, n1, 0);
            }
            if (r >= 0) {
                ta[r] = t[0];
                tb[r] = t[1];
                tc[r] = t[2];
                td[r] = t[3];
            }
        }
        per_call(&ma, reps);
        per_call(&mb, reps);
        per_call(&mc, reps);
        per_call(&md, reps);
        double w = median(ta, reps), zw = median(tb, reps), rd = median(tc, reps);
        double zr = median(td, reps), raw = 8.0 * (double)N;
        res_tw = zw;
        res_tr = zr;
        snprintf(line, sizeof line,
                 "IRREGULAR case=zarray fs=%s driver=%s np=%d elements=%lld level=%d ratio=%.2f "
                 "zbytes=%lld write=%.6f zwrite=%.6f read=%.6f zread=%.6f write_MBps=%.0f "
                 "zwrite_MBps=%.0f zw/w_bw=%.2f read_MBps=%.0f zread_MBps=%.0f zr/r_bw=%.2f "
                 "write_ops=%lld zwrite_ops=%lld read_ops=%lld zread_ops=%lld zread_bytes=%lld\n",
                 label, driver, nprocs, (long long)N, level,
                 mb.v[0] ? raw / (double)mb.v[0] : 0.0, mb.v[0], w, zw, rd, zr, raw / w / 1e6,
                 raw / zw / 1e6, w / zw, raw / rd / 1e6, raw / zr / 1e6, rd / zr, ma.v[2],
                 mb.v[2], mc.v[3], md.v[3], md.v[1]);
    }
    MPI_Info_free(&info);
    long long fs_ops[2] = {0, 0};
    MPI_Info finfo;
    if (MPI_File_get_info(fh, &finfo) == MPI_SUCCESS) {
        fs_ops[0] = info_ll(finfo, "romio_edonio_stats_fs_writes");
        fs_ops[1] = info_ll(finfo, "romio_edonio_stats_fs_reads");
        MPI_Info_free(&finfo);
    }
    check(MPI_File_close(&fh), "close");
    MPI_Allreduce(MPI_IN_PLACE, fs_ops, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &errors, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("RESULT case=ir-%s driver=%s nprocs=%d t_write=%.6f t_read=%.6f bytes_written=%lld "
               "bytes_read=%lld errors=%lld edonio_fs_writes=%lld edonio_fs_reads=%lld\n",
               cas, driver, nprocs, res_tw, res_tr, res_w, res_r, errors, fs_ops[0], fs_ops[1]);
        fputs(line, stdout);
        fflush(stdout);
        MPI_File_delete(path, MPI_INFO_NULL);
    }
    if (s2 != EDONIO_IR_SCHEDULE_NULL)
        check(edonio_ir_schedule_free(&s2), "free");
    if (s2c != EDONIO_IR_SCHEDULE_NULL)
        check(edonio_ir_schedule_free(&s2c), "free");
    check(edonio_ir_schedule_free(&s1), "free");
    free(perm);
    free(i2);
    free(b1);
    free(b2);
    MPI_Finalize();
    return errors != 0;
}
