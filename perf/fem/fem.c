/*
 * fem: the finite-element I/O benchmark of the EDONIO report (ORNL/TM, 1995, section 5 and its
 * appendix), in C11 over MPI-IO only.
 *
 * The program models a finite-element code that keeps its element-to-vertex list in a shared file:
 * an nex x ney x nez grid of hexahedral bricks, 8 vertex ids (32-bit, 1-based) per element, the
 * elements numbered with z fastest, then x, then y, so that the file holds the grid column by
 * column (one column = the nez elements above one (x, y) cell). The columns are dealt round-robin
 * to the ranks, each rank writes its columns with an explicit seek and one small write per column
 * (independent I/O), closes, reopens the file read-only, optionally preloads it, reads every
 * column back the same way and checks every value. The file is the same whatever the number of
 * ranks and whichever driver writes it.
 *
 * Each phase (wopen, write, wclose, ropen, preload, read, rclose) starts after a barrier and is
 * timed with MPI_Wtime; the time reported is the maximum over the ranks, averaged over the
 * repetitions. One run measures any of the drivers edonio and ufs, on the same directory.
 *
 *   mpiexec -n 4 ./fem [-x NEX] [-y NEY] [-z NEZ] [-d DIR] [-f edonio,ufs] [-p | -P]
 *                      [-c BYTES] [-b BYTES] [-r REPS] [--csv FILE]
 */
#include <mpi.h>

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NVERTEX = 8, MAX_DRIVERS = 2, MAX_SHOWN_ERRORS = 5 };

enum phase { WOPEN, WRITE, WCLOSE, ROPEN, PRELOAD, READ, RCLOSE, NPHASES };
static const char *const phase_names[NPHASES] = {
    "wopen", "write", "wclose", "ropen", "preload", "read", "rclose",
};

/* The file-system counters edonio may report through MPI_File_get_info, per process. */
enum { NSTATS = 4 };
static const char *const stat_keys[NSTATS] = {
    "romio_edonio_stats_fs_writes", "romio_edonio_stats_fs_reads",
    "romio_edonio_stats_fs_write_bytes", "romio_edonio_stats_fs_read_bytes",
};

/* When the preload hint reaches the driver: in the MPI_Info of the read-only open (as asked of
 * the driver), or set on the open file with MPI_File_set_info, which makes the preload a phase of
 * its own like do_preload() in the report. */
enum preload_mode { PRELOAD_OFF, PRELOAD_AT_OPEN, PRELOAD_SET_INFO };

struct options {
    int nex, ney, nez;
    const char *dir;
    const char *drivers[MAX_DRIVERS];
    int ndrivers;
    enum preload_mode preload;
    long long cache_size; /* 0: the driver's default */
    long long block_size; /* 0: the driver's default */
    int reps;
    const char *csv;
};

struct grid {
    int nex, ney, nez;
    long long ncolumns;     /* nex * ney */
    MPI_Offset column_bytes; /* nez elements of NVERTEX 32-bit ids */
};

/* One driver's measurements: phase times (max over ranks, summed over reps) and the counters
 * of the write and the read open, summed over the ranks (valid only if present). */
struct result {
    double time[NPHASES];
    bool preload_measured; /* else the preload, if any, is part of ropen */
    long long stats[2][NSTATS];
    bool stats_present[2];
    long long errors;
};

static int rank, nprocs;

/* ---- small helpers ---- */

#if defined(__GNUC__)
#define PRINTF_LIKE(fmt, first) __attribute__((format(printf, fmt, first)))
#else
#define PRINTF_LIKE(fmt, first)
#endif

/* A usage error: every rank parses the same arguments, so every rank gets here and exits. */
PRINTF_LIKE(1, 2) static _Noreturn void die(const char *fmt, ...)
{
    if (rank == 0) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "fem: ");
        vfprintf(stderr, fmt, ap);
        fprintf(stderr, "\n");
        va_end(ap);
    }
    MPI_Finalize();
    exit(2);
}

/* MPI-IO calls return their errors (files default to MPI_ERRORS_RETURN); any failure ends the
 * whole job, because the other ranks may be waiting in a collective call. */
static void check(int err, const char *what)
{
    if (err == MPI_SUCCESS)
        return;
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(err, msg, &len);
    fprintf(stderr, "fem: rank %d: %s: %s\n", rank, what, msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* A byte count with an optional k, m or g suffix (powers of 1024). */
static bool parse_bytes(const char *s, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    long long unit = 1;
    switch (*end) {
    case 'k': case 'K': unit = 1LL << 10; end++; break;
    case 'm': case 'M': unit = 1LL << 20; end++; break;
    case 'g': case 'G': unit = 1LL << 30; end++; break;
    default: break;
    }
    if (errno || end == s || *end != '\0' || v <= 0 || v > INT64_MAX / unit)
        return false;
    *out = v * unit;
    return true;
}

static int parse_positive(const char *s, const char *what)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end != '\0' || v <= 0 || v > INT32_MAX)
        die("%s must be a positive integer", what);
    return (int)v;
}

/* "-f edonio,ufs": the drivers to run, in that order. The list is split in place. */
static void parse_drivers(char *list, struct options *o)
{
    o->ndrivers = 0;
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        if (strcmp(tok, "edonio") != 0 && strcmp(tok, "ufs") != 0 && strcmp(tok, "ompio") != 0)
            die("unknown driver '%s' (edonio, ufs, or ompio: Open MPI's own MPI-IO)", tok);
        for (int d = 0; d < o->ndrivers; d++)
            if (strcmp(o->drivers[d], tok) == 0)
                die("-f: driver '%s' named twice", tok);
        if (o->ndrivers == MAX_DRIVERS)
            die("-f: at most two drivers");
        o->drivers[o->ndrivers++] = tok;
    }
    if (o->ndrivers == 0)
        die("-f: no driver named");
}

static void usage(void)
{
    if (rank == 0)
        fprintf(stderr,
                "usage: fem [-x NEX] [-y NEY] [-z NEZ] [-d DIR] [-f edonio,ufs] [-p | -P]\n"
                "           [-c BYTES] [-b BYTES] [-r REPS] [--csv FILE]\n"
                "  -x -y -z  elements along x, y, z (default 64 x 64 x 64)\n"
                "  -d DIR    directory of the files DIR/fem.<driver>.dat (default .)\n"
                "  -f LIST   drivers to run, comma-separated (default edonio,ufs)\n"
                "  -p        preload: romio_edonio_preload=true in the read-only open's info\n"
                "  -P        preload as a phase: hint set with MPI_File_set_info after the open\n"
                "  -c BYTES  romio_edonio_cache_size (k, m, g suffixes)\n"
                "  -b BYTES  romio_edonio_block_size (k, m, g suffixes)\n"
                "  -r REPS   repetitions, averaged (default 1)\n"
                "  --csv F   append one row per driver and repetition to F\n");
}

static void parse_options(int argc, char **argv, struct options *o)
{
    static char default_drivers[] = "edonio,ufs";
    static const struct option longopts[] = {
        {"csv", required_argument, NULL, 'C'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    *o = (struct options){.nex = 64, .ney = 64, .nez = 64, .dir = ".", .reps = 1};
    parse_drivers(default_drivers, o);
    int c;
    while ((c = getopt_long(argc, argv, "x:y:z:d:f:pPc:b:r:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'x': o->nex = parse_positive(optarg, "-x"); break;
        case 'y': o->ney = parse_positive(optarg, "-y"); break;
        case 'z': o->nez = parse_positive(optarg, "-z"); break;
        case 'd': o->dir = optarg; break;
        case 'f': parse_drivers(optarg, o); break;
        case 'p': o->preload = PRELOAD_AT_OPEN; break;
        case 'P': o->preload = PRELOAD_SET_INFO; break;
        case 'c':
            if (!parse_bytes(optarg, &o->cache_size))
                die("-c: bad byte count '%s'", optarg);
            break;
        case 'b':
            if (!parse_bytes(optarg, &o->block_size))
                die("-b: bad byte count '%s'", optarg);
            break;
        case 'r': o->reps = parse_positive(optarg, "-r"); break;
        case 'C': o->csv = optarg; break;
        case 'h': usage(); MPI_Finalize(); exit(0);
        default: usage(); MPI_Finalize(); exit(2);
        }
    }
    if (optind < argc)
        die("unexpected argument '%s'", argv[optind]);
    /* Vertex ids are 32-bit in the file, as in the report's Fortran. */
    if ((long long)(o->nex + 1) * (o->ney + 1) * (o->nez + 1) > INT32_MAX)
        die("-x/-y/-z: grid too large for 32-bit vertex ids");
}

/* ---- the grid ---- */

/* Vertex id (1-based) of grid point (jx, jy, jz), 0-based, with z fastest, then x, then y. */
static int32_t vertex_id(const struct grid *g, int jx, int jy, int jz)
{
    long long nnx = g->nex + 1, nnz = g->nez + 1;
    return (int32_t)(1 + jz + jx * nnz + jy * nnz * nnx);
}

/* The NVERTEX ids of every element of column c (cell ix = c mod nex, iy = c / nex), bottom to top.
 * The corner order is the report's: the bottom face counter-clockwise, then the top face. */
static void fill_column(const struct grid *g, long long c, int32_t *ids)
{
    static const int dx[NVERTEX] = {0, 1, 1, 0, 0, 1, 1, 0};
    static const int dy[NVERTEX] = {0, 0, 1, 1, 0, 0, 1, 1};
    static const int dz[NVERTEX] = {0, 0, 0, 0, 1, 1, 1, 1};
    int ix = (int)(c % g->nex), iy = (int)(c / g->nex);

    for (int iz = 0; iz < g->nez; iz++)
        for (int v = 0; v < NVERTEX; v++)
            ids[iz * NVERTEX + v] = vertex_id(g, ix + dx[v], iy + dy[v], iz + dz[v]);
}

/* The report deals column ix + (iy-1)*nex (1-based, i.e. c + 1) to rank (c + 1) mod nprocs; we
 * keep its exact assignment so that the per-rank access pattern is the original one. */
static long long first_column(void)
{
    return (rank + nprocs - 1) % nprocs;
}

/* Seek to column c the way the original does: absolute for the first column, then relative to
 * where the previous write or read left the file pointer. */
static void seek_column(MPI_File fh, const struct grid *g, long long c, MPI_Offset *pos)
{
    MPI_Offset target = c * g->column_bytes;
    if (*pos < 0)
        check(MPI_File_seek(fh, target, MPI_SEEK_SET), "seek");
    else
        check(MPI_File_seek(fh, target - *pos, MPI_SEEK_CUR), "seek");
    *pos = target + g->column_bytes;
}

/* ---- the phases ---- */

static void write_columns(MPI_File fh, const struct grid *g, int32_t *ids)
{
    int count = g->nez * NVERTEX;
    MPI_Offset pos = -1;
    MPI_Status st;

    for (long long c = first_column(); c < g->ncolumns; c += nprocs) {
        fill_column(g, c, ids);
        seek_column(fh, g, c, &pos);
        check(MPI_File_write(fh, ids, count, MPI_INT32_T, &st), "write");
        int done = 0;
        MPI_Get_count(&st, MPI_INT32_T, &done);
        if (done != count) {
            fprintf(stderr, "fem: rank %d: short write at column %lld\n", rank, c);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
}

/* Compares a column read back with what was written; returns the number of wrong values, a short
 * read counting its missing values as wrong. */
static long long check_column(const struct grid *g, long long c, const int32_t *got, int ngot,
                              const int32_t *want, long long *shown)
{
    int count = g->nez * NVERTEX;
    long long errors = count - ngot;

    for (int i = 0; i < ngot; i++) {
        if (got[i] == want[i])
            continue;
        if ((*shown)++ < MAX_SHOWN_ERRORS)
            fprintf(stderr, "fem: rank %d: column %lld element %d vertex %d: read %d, want %d\n",
                    rank, c, i / NVERTEX, i % NVERTEX, got[i], want[i]);
        errors++;
    }
    return errors;
}

/* Reads and checks every column of this rank; like the original, the check is part of the read
 * phase. Returns the number of wrong values. */
static long long read_columns(MPI_File fh, const struct grid *g, int32_t *got, int32_t *want)
{
    int count = g->nez * NVERTEX;
    long long errors = 0, shown = 0;
    MPI_Offset pos = -1;
    MPI_Status st;

    for (long long c = first_column(); c < g->ncolumns; c += nprocs) {
        fill_column(g, c, want);
        seek_column(fh, g, c, &pos);
        check(MPI_File_read(fh, got, count, MPI_INT32_T, &st), "read");
        int done = 0;
        MPI_Get_count(&st, MPI_INT32_T, &done);
        errors += check_column(g, c, got, done, want, &shown);
    }
    return errors;
}

static void set_bytes_hint(MPI_Info info, const char *key, long long bytes)
{
    char value[32];
    if (bytes <= 0)
        return;
    snprintf(value, sizeof value, "%lld", bytes);
    MPI_Info_set(info, key, value);
}

/* The hints of one open. ufs gets none: its driver would ignore edonio's keys anyway, and an
 * empty info keeps its measurement the stock one. */
static MPI_Info make_info(const struct options *o, const char *driver, bool for_read)
{
    MPI_Info info;
    MPI_Info_create(&info);
    if (strcmp(driver, "edonio") != 0)
        return info;
    set_bytes_hint(info, "romio_edonio_cache_size", o->cache_size);
    set_bytes_hint(info, "romio_edonio_block_size", o->block_size);
    /* Say "false" explicitly, so that "no preload" holds whatever the driver's default. */
    bool at_open = for_read && o->preload == PRELOAD_AT_OPEN;
    MPI_Info_set(info, "romio_edonio_preload", at_open ? "true" : "false");
    return info;
}

/* Sums over the ranks the counters the driver reports for this open file; *present is false
 * unless every rank reports all of them. Must be called by all ranks (it reduces). */
static void query_stats(MPI_File fh, long long sums[NSTATS], bool *present)
{
    MPI_Info info;
    long long mine[NSTATS] = {0};
    int have_all = 1;

    check(MPI_File_get_info(fh, &info), "get_info");
    for (int k = 0; k < NSTATS; k++) {
        char value[MPI_MAX_INFO_VAL + 1];
        int flag = 0;
        MPI_Info_get(info, stat_keys[k], MPI_MAX_INFO_VAL, value, &flag);
        if (flag)
            mine[k] = strtoll(value, NULL, 10);
        else
            have_all = 0;
    }
    MPI_Info_free(&info);
    MPI_Allreduce(MPI_IN_PLACE, &have_all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(mine, sums, NSTATS, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    *present = have_all != 0;
}

static double phase_start(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    return MPI_Wtime();
}

/* "<driver>:DIR/fem.<driver>.dat": the prefix picks the driver, whatever ROMIO would guess; the
 * driver "ompio" (Open MPI's own MPI-IO, run without edonio's library) takes no prefix. */
static void file_path(const struct options *o, const char *driver, char *out, size_t len)
{
    int plain = strcmp(driver, "ompio") == 0;
    int n = snprintf(out, len, "%s%s%s/fem.%s.dat", plain ? "" : driver, plain ? "" : ":", o->dir,
                     driver);
    if (n < 0 || (size_t)n >= len)
        die("%s: path too long", o->dir);
}

/* A fresh file, as do_open() truncates an existing write-only file; done before the timed open. */
static void remove_old_file(const char *name)
{
    if (rank == 0)
        MPI_File_delete(name, MPI_INFO_NULL); /* absent is fine */
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Write-open, write, close: the first three phases. */
static void write_phases(const struct options *o, const struct grid *g, const char *driver,
                         const char *name, int32_t *buf, double t[NPHASES], struct result *r)
{
    MPI_File fh;
    MPI_Info info = make_info(o, driver, false);

    remove_old_file(name);
    double t0 = phase_start();
    check(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_WRONLY | MPI_MODE_CREATE, info, &fh),
          "open for writing");
    t[WOPEN] = MPI_Wtime() - t0;
    MPI_Info_free(&info);

    t0 = phase_start();
    write_columns(fh, g, buf);
    t[WRITE] = MPI_Wtime() - t0;

    /* Before the close, outside the timing: the counters exist only while the file is open. */
    query_stats(fh, r->stats[0], &r->stats_present[0]);

    t0 = phase_start();
    check(MPI_File_close(&fh), "close after writing");
    t[WCLOSE] = MPI_Wtime() - t0;
}

/* Read-open, preload, read and check, close: the last four phases. */
static void read_phases(const struct options *o, const struct grid *g, const char *driver,
                        const char *name, int32_t *got, int32_t *want, double t[NPHASES],
                        struct result *r)
{
    MPI_File fh;
    MPI_Info info = make_info(o, driver, true);

    double t0 = phase_start();
    check(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDONLY, info, &fh), "open for reading");
    t[ROPEN] = MPI_Wtime() - t0;
    MPI_Info_free(&info);

    if (o->preload == PRELOAD_SET_INFO && strcmp(driver, "edonio") == 0) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "romio_edonio_preload", "true");
        t0 = phase_start();
        check(MPI_File_set_info(fh, info), "set_info (preload)");
        t[PRELOAD] = MPI_Wtime() - t0;
        MPI_Info_free(&info);
    }

    t0 = phase_start();
    long long errors = read_columns(fh, g, got, want);
    t[READ] = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &errors, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    r->errors += errors;

    query_stats(fh, r->stats[1], &r->stats_present[1]);

    t0 = phase_start();
    check(MPI_File_close(&fh), "close after reading");
    t[RCLOSE] = MPI_Wtime() - t0;
}

/* One repetition of the whole benchmark through one driver; the phase times come back as the
 * maximum over the ranks (on every rank). */
static void run_once(const struct options *o, const struct grid *g, const char *driver,
                     struct result *r, double t[NPHASES])
{
    char name[4096];
    size_t count = (size_t)g->nez * NVERTEX;
    int32_t *got = malloc(count * sizeof *got), *want = malloc(count * sizeof *want);
    if (!got || !want) {
        fprintf(stderr, "fem: rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    file_path(o, driver, name, sizeof name);
    for (int p = 0; p < NPHASES; p++)
        t[p] = 0.0;
    write_phases(o, g, driver, name, want, t, r);
    read_phases(o, g, driver, name, got, want, t, r);
    MPI_Allreduce(MPI_IN_PLACE, t, NPHASES, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

    for (int p = 0; p < NPHASES; p++)
        r->time[p] += t[p];
    r->preload_measured = o->preload == PRELOAD_SET_INFO && strcmp(driver, "edonio") == 0;
    free(got);
    free(want);
}

/* ---- output ---- */

static double total_time(const double t[NPHASES])
{
    double sum = 0.0;
    for (int p = 0; p < NPHASES; p++)
        sum += t[p];
    return sum;
}

static const char *preload_name(enum preload_mode m)
{
    return m == PRELOAD_AT_OPEN ? "at-open" : m == PRELOAD_SET_INFO ? "set-info" : "off";
}

static void print_bytes_hint(const char *key, long long bytes)
{
    if (bytes > 0)
        printf(" %s=%lld", key, bytes);
    else
        printf(" %s=(default)", key);
}

static void print_header(const struct options *o, const struct grid *g)
{
    long long elements = g->ncolumns * g->nez;
    long long per_rank = (g->ncolumns + nprocs - 1) / nprocs;

    printf("fem: %d x %d x %d grid, %lld elements, %d vertex ids each, file %lld bytes, %d ranks\n",
           g->nex, g->ney, g->nez, elements, NVERTEX, (long long)(g->ncolumns * g->column_bytes),
           nprocs);
    printf("  %lld columns round-robin over the ranks: up to %lld seek+write of %lld bytes per "
           "rank\n", g->ncolumns, per_rank, (long long)g->column_bytes);
    printf("  edonio hints:");
    print_bytes_hint("romio_edonio_cache_size", o->cache_size);
    print_bytes_hint("romio_edonio_block_size", o->block_size);
    printf(" preload=%s\n", preload_name(o->preload));
    printf("  files %s/fem.<driver>.dat, %d repetition%s; seconds, max over ranks, mean over "
           "repetitions\n", o->dir, o->reps, o->reps == 1 ? "" : "s");
    printf("%-12s", "driver");
    for (int p = 0; p < NPHASES; p++)
        printf(" %9s", phase_names[p]);
    printf(" %9s\n", "total");
}

static void print_row(const char *driver, const struct result *r, int reps)
{
    double mean[NPHASES];
    for (int p = 0; p < NPHASES; p++)
        mean[p] = r->time[p] / reps;
    printf("%-12s", driver);
    for (int p = 0; p < NPHASES; p++) {
        if (p == PRELOAD && !r->preload_measured)
            printf(" %9s", "-");
        else
            printf(" %9.4f", mean[p]);
    }
    printf(" %9.4f\n", total_time(mean));
}

static void print_ratio_value(double num, double den)
{
    if (num > 0.0 && den > 0.0)
        printf(" %9.2f", num / den);
    else
        printf(" %9s", "-");
}

/* ufs time over edonio time, per phase: above 1, edonio is faster. */
static void print_ratios(const struct result *ufs, const struct result *edo)
{
    printf("%-12s", "ufs/edonio");
    for (int p = 0; p < NPHASES; p++)
        print_ratio_value(ufs->time[p], edo->time[p]); /* "-" for preload: ufs has none */
    print_ratio_value(total_time(ufs->time), total_time(edo->time));
    printf("\n");
}

/* The counters stop before the close: a write-back cache's final flush is not in them. */
static void print_stats_of(const char *driver, const char *open, const long long s[NSTATS],
                           bool present)
{
    printf("fs ops %-6s %-11s", driver, open);
    if (present)
        printf(" %lld writes %lld bytes, %lld reads %lld bytes (summed over ranks, before close)\n",
               s[0], s[2], s[1], s[3]);
    else
        printf(" n/a (the driver reports no romio_edonio_stats_* keys)\n");
}

static void print_stats(const char *driver, const struct result *r)
{
    if (strcmp(driver, "edonio") != 0) {
        printf("fs ops %-6s n/a (ROMIO's ufs driver does not count)\n", driver);
        return;
    }
    print_stats_of(driver, "write-open:", r->stats[0], r->stats_present[0]);
    print_stats_of(driver, "read-open:", r->stats[1], r->stats_present[1]);
}

/* An empty field for "not measured" or "the driver's default", so that a spreadsheet does not
 * take it for zero. */
static void csv_optional(FILE *f, bool present, long long value)
{
    if (present)
        fprintf(f, ",%lld", value);
    else
        fprintf(f, ",");
}

static void csv_stats(FILE *f, const long long s[NSTATS], bool present)
{
    for (int k = 0; k < NSTATS; k++)
        csv_optional(f, present, s[k]);
}

/* One row per driver and repetition; the header goes only into a new (empty) file. */
static void append_csv(const struct options *o, const struct grid *g, const char *driver, int rep,
                       const double t[NPHASES], const struct result *r, long long errors)
{
    FILE *f = fopen(o->csv, "a");
    if (!f) {
        fprintf(stderr, "fem: cannot append to %s: %s\n", o->csv, strerror(errno));
        return;
    }
    if (ftell(f) == 0) {
        fprintf(f, "driver,nex,ney,nez,nprocs,file_bytes,preload_mode,cache_size,block_size,rep");
        for (int p = 0; p < NPHASES; p++)
            fprintf(f, ",%s", phase_names[p]);
        fprintf(f, ",total,w_fs_writes,w_fs_reads,w_fs_write_bytes,w_fs_read_bytes"
                   ",r_fs_writes,r_fs_reads,r_fs_write_bytes,r_fs_read_bytes,errors\n");
    }
    fprintf(f, "%s,%d,%d,%d,%d,%lld,%s", driver, g->nex, g->ney, g->nez, nprocs,
            (long long)(g->ncolumns * g->column_bytes), preload_name(o->preload));
    bool hinted = strcmp(driver, "edonio") == 0; /* ufs gets no hints */
    csv_optional(f, hinted && o->cache_size > 0, o->cache_size);
    csv_optional(f, hinted && o->block_size > 0, o->block_size);
    fprintf(f, ",%d", rep);
    for (int p = 0; p < NPHASES; p++) {
        if (p == PRELOAD && !r->preload_measured)
            fprintf(f, ",");
        else
            fprintf(f, ",%.6f", t[p]);
    }
    fprintf(f, ",%.6f", total_time(t));
    csv_stats(f, r->stats[0], r->stats_present[0]);
    csv_stats(f, r->stats[1], r->stats_present[1]);
    fprintf(f, ",%lld\n", errors);
    fclose(f);
}

int main(int argc, char **argv)
{
    struct options o;
    struct result results[MAX_DRIVERS] = {0};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    parse_options(argc, argv, &o);

    struct grid g = {.nex = o.nex, .ney = o.ney, .nez = o.nez,
                     .ncolumns = (long long)o.nex * o.ney,
                     .column_bytes = (MPI_Offset)o.nez * NVERTEX * (MPI_Offset)sizeof(int32_t)};
    if (rank == 0)
        print_header(&o, &g);

    /* Alternate the drivers within each repetition, so that drift of the machine (page cache,
     * other load) hits both alike. */
    for (int rep = 0; rep < o.reps; rep++) {
        for (int d = 0; d < o.ndrivers; d++) {
            double t[NPHASES];
            long long before = results[d].errors;
            run_once(&o, &g, o.drivers[d], &results[d], t);
            if (rank == 0 && o.csv)
                append_csv(&o, &g, o.drivers[d], rep, t, &results[d], results[d].errors - before);
        }
    }

    long long errors = 0;
    if (rank == 0) {
        for (int d = 0; d < o.ndrivers; d++)
            print_row(o.drivers[d], &results[d], o.reps);
        if (o.ndrivers == 2) {
            bool ufs_first = strcmp(o.drivers[0], "ufs") == 0;
            print_ratios(&results[ufs_first ? 0 : 1], &results[ufs_first ? 1 : 0]);
        }
        for (int d = 0; d < o.ndrivers; d++) {
            print_stats(o.drivers[d], &results[d]);
            errors += results[d].errors;
        }
        if (errors == 0)
            printf("verify: OK\n");
        else
            printf("verify: %lld errors\n", errors);
    }
    MPI_Bcast(&errors, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return errors == 0 ? 0 : 1;
}
