/*
 * perf case: libedonio_irregular (issue 43 B, seed 002), through any MPI-IO driver.
 *
 *   irbench -f ufs|edonio|ompio -d DIR -c cache|zarray [-s BYTES] [-k REPS] [-z LEVEL] [-l LABEL]
 *
 * The array: 8-byte doubles, BYTES per rank (default 1 MiB), dealt to the ranks in a random
 * global order (a random permutation cut in equal blocks), each value an integer-valued smooth
 * field with a little noise (about 8:1 under zstd), a function of its global index alone, so
 * that every element read is checked.
 *
 * -c cache: seed 002's figure 4, two irregular loops with 7/8 overlap. Loop 2 is loop 1 with one
 * window of an eighth of the array dealt again at random (a repartition: each rank lets go of
 * its elements in the window and takes others there). Each repetition times loop 2's I/O done
 * plainly, a full write of loop 1's elements and a full read of loop 2's (edonio_ir_write,
 * edonio_ir_read), and done by software caching (edonio_ir_switch, from the schedule
 * edonio_ir_schedule_update made once, timed apart). RESULT t_write = the full write + read,
 * t_read = the switch (medians).
 *
 * -c zarray: the array written plainly (edonio_ir_write) and compressed (edonio_ir_zwrite, zstd
 * level LEVEL, default 1), then read each way (edonio_ir_read, edonio_ir_zread). RESULT t_write =
 * zwrite, t_read = zread (medians).
 *
 * Both print a line "IRREGULAR case=... fs=LABEL key=value ..." with every median, the ratios the issue
 * names and the bytes each way moved (the library's statistics, summed over the ranks); perf/run
 * collects them in irregular.txt. Times are the slowest rank's, each call alone between barriers.
 */
#define _POSIX_C_SOURCE 200809L /* getopt */

#include <math.h>
#include <mpi.h>
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

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

/* Element g's value: an integer-valued smooth field plus noise in [0, 4). */
static double value(MPI_Offset g)
{
    return (double)(int)(50.0 * sin((double)g * 0.01)) + (double)(mix((uint64_t)g) % 4);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *t, int k)
{
    qsort(t, (size_t)k, sizeof *t, cmp_double);
    return t[k / 2];
}

/* One call timed alone: barrier, call, the slowest rank's time. */
#define TIMED(out, call)                                                                           \
    do {                                                                                           \
        MPI_Barrier(MPI_COMM_WORLD);                                                               \
        double t0_ = MPI_Wtime();                                                                  \
        call;                                                                                      \
        double t_ = MPI_Wtime() - t0_;                                                             \
        MPI_Allreduce(&t_, &(out), 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);                        \
    } while (0)

static void verify(const double *buf, const MPI_Offset *idx, MPI_Offset n)
{
    for (MPI_Offset k = 0; k < n; k++)
        errors += buf[k] != value(idx[k]);
}

/* The bytes a schedule's calls moved since the last look, summed over the ranks. */
static void moved(edonio_ir_schedule s, edonio_ir_stats *last, long long *w, long long *r)
{
    edonio_ir_stats now;
    check(edonio_ir_schedule_stats(s, &now), "stats");
    long long mine[2] = {now.bytes_written - last->bytes_written,
                         now.bytes_read - last->bytes_read},
              all[2];
    *last = now;
    MPI_Allreduce(mine, all, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    *w += all[0];
    *r += all[1];
}

int main(int argc, char **argv)
{
    const char *driver = "edonio", *dir = ".", *cas = "cache", *label = "-";
    long long bytes = 1 << 20;
    int reps = 5, level = 1, opt;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    while ((opt = getopt(argc, argv, "f:d:c:s:k:z:l:")) != -1) {
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
            case 'l':
                label = optarg;
                break;
            default:
                if (rank == 0)
                    fprintf(stderr, "usage: irbench -f DRIVER -d DIR -c cache|zarray [-s BYTES] "
                                    "[-k REPS] [-z LEVEL] [-l LABEL]\n");
                MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (reps < 1 || reps > MAX_REPS)
        reps = 5;
    /* ompio: the program alone under Open MPI, the file named plainly */
    char path[4096];
    if (strcmp(driver, "ompio") == 0)
        snprintf(path, sizeof path, "%s/irbench.%s", dir, driver);
    else
        snprintf(path, sizeof path, "%s:%s/irbench.%s", driver, dir, driver);

    MPI_Offset n1 = bytes / 8 > 0 ? bytes / 8 : 1, N = n1 * nprocs;
    MPI_Offset *perm = malloc((size_t)N * sizeof *perm);
    int *owner = malloc((size_t)N * sizeof *owner);
    for (MPI_Offset g = 0; g < N; g++)
        perm[g] = g;
    for (MPI_Offset g = N - 1; g > 0; g--) { /* the same permutation on every rank */
        MPI_Offset j = (MPI_Offset)(mix((uint64_t)g + 12345) % (uint64_t)(g + 1)), t = perm[g];
        perm[g] = perm[j];
        perm[j] = t;
    }
    for (MPI_Offset i = 0; i < N; i++)
        owner[perm[i]] = (int)(i / n1);
    MPI_Offset *i1 = malloc((size_t)n1 * sizeof *i1), *i2 = malloc((size_t)N * sizeof *i2);
    MPI_Offset k1 = 0, n2 = 0;
    for (MPI_Offset g = 0; g < N; g++)
        if (owner[g] == rank)
            i1[k1++] = g;
    /* Loop 2: the window [N/3, N/3 + N/8) dealt again at random. */
    MPI_Offset w0 = N / 3, w1 = w0 + N / 8;
    for (MPI_Offset k = 0; k < n1; k++)
        if (i1[k] < w0 || i1[k] >= w1)
            i2[n2++] = i1[k];
    for (MPI_Offset g = w0; g < w1; g++)
        if ((int)(mix((uint64_t)g + 777) % (uint64_t)nprocs) == rank)
            i2[n2++] = g;
    double *b1 = malloc((size_t)n1 * 8), *b2 = malloc((size_t)(n2 + 1) * 8);
    for (MPI_Offset k = 0; k < n1; k++)
        b1[k] = value(i1[k]);

    MPI_Info info;
    char lv[16];
    snprintf(lv, sizeof lv, "%d", level);
    MPI_Info_create(&info);
    MPI_Info_set(info, "edonio_ir_zstd_level", lv);
    edonio_ir_schedule s1, s2;
    edonio_ir_stats st1 = {0}, st2 = {0};
    check(edonio_ir_schedule_create(MPI_COMM_WORLD, N, 8, n1, i1, info, &s1), "create");
    MPI_Info_free(&info);
    MPI_File fh;
    check(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
          path);
    check(edonio_ir_write(fh, 0, s1, b1), "write");
    check(edonio_ir_schedule_stats(s1, &st1), "stats");

    double ta[MAX_REPS], tb[MAX_REPS], tc[MAX_REPS], td[MAX_REPS], tu = 0;
    long long wa = 0, ra = 0, wb = 0, rb = 0;
    if (strcmp(cas, "cache") == 0) {
        TIMED(tu, check(edonio_ir_schedule_update(s1, n2, i2, &s2), "update"));
        for (int r = 0; r < reps; r++) {
            memset(b2, 0, (size_t)n2 * 8);
            TIMED(ta[r], check(edonio_ir_write(fh, 0, s1, b1), "write");
                  check(edonio_ir_read(fh, 0, s2, b2), "read"));
            verify(b2, i2, n2);
            moved(s1, &st1, &wa, &ra);
            moved(s2, &st2, &wa, &ra);
            memset(b2, 0, (size_t)n2 * 8);
            TIMED(tb[r], check(edonio_ir_switch(fh, 0, s2, b1, b2), "switch"));
            verify(b2, i2, n2);
            moved(s2, &st2, &wb, &rb);
        }
        double full = median(ta, reps), sw = median(tb, reps);
        if (rank == 0) {
            printf("RESULT t_write=%.6f t_read=%.6f bytes_written=%lld bytes_read=%lld "
                   "errors=%lld\n",
                   full, sw, wa / reps, ra / reps, errors);
            printf("IRREGULAR case=cache fs=%s driver=%s np=%d elements=%lld update=%.6f "
                   "full=%.6f switch=%.6f switch/full=%.3f full_bytes=%lld switch_bytes=%lld\n",
                   label, driver, nprocs, (long long)N, tu, full, sw, sw / full, (wa + ra) / reps,
                   (wb + rb) / reps);
        }
        check(edonio_ir_schedule_free(&s2), "free");
    } else {
        MPI_Offset z0 = 8 * N; /* the compressed array after the plain one */
        for (int r = 0; r < reps; r++) {
            TIMED(ta[r], check(edonio_ir_write(fh, 0, s1, b1), "write"));
            TIMED(tb[r], check(edonio_ir_zwrite(fh, z0, s1, b1), "zwrite"));
            memset(b1, 0, (size_t)n1 * 8);
            TIMED(tc[r], check(edonio_ir_read(fh, 0, s1, b1), "read"));
            verify(b1, i1, n1);
            memset(b1, 0, (size_t)n1 * 8);
            TIMED(td[r], check(edonio_ir_zread(fh, z0, s1, b1), "zread"));
            verify(b1, i1, n1);
        }
        MPI_Offset size = 0;
        MPI_File_get_size(fh, &size);
        double w = median(ta, reps), zw = median(tb, reps), rd = median(tc, reps);
        double zr = median(td, reps), ratio = (double)z0 / (double)(size - z0);
        if (rank == 0) {
            printf("RESULT t_write=%.6f t_read=%.6f bytes_written=%lld bytes_read=%lld "
                   "errors=%lld\n",
                   zw, zr, (long long)(size - z0), (long long)(size - z0), errors);
            printf("IRREGULAR case=zarray fs=%s driver=%s np=%d elements=%lld level=%d "
                   "ratio=%.2f write=%.6f zwrite=%.6f write/zwrite=%.2f read=%.6f zread=%.6f "
                   "read/zread=%.2f\n",
                   label, driver, nprocs, (long long)N, level, ratio, w, zw, w / zw, rd, zr,
                   rd / zr);
        }
    }
    check(MPI_File_close(&fh), "close");
    check(edonio_ir_schedule_free(&s1), "free");
    if (rank == 0)
        MPI_File_delete(path, MPI_INFO_NULL);
    free(perm);
    free(owner);
    free(i1);
    free(i2);
    free(b1);
    free(b2);
    MPI_Finalize();
    return errors != 0;
}
