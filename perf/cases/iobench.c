/*
 * iobench: the access patterns of edonio's benchmark suite (perf/run), in C11 over MPI-IO only,
 * so that the same binary measures edonio and ROMIO's ufs driver (chosen by the file-name prefix
 * "edonio:" or "ufs:").
 *
 *   mpiexec -n P ./iobench -c CASE -f DRIVER -d DIR [-s BYTES] [-t BYTES] [-r BYTES]
 *                          [-M ROWS] [-N COLS] [-R OVERLAP] [-k REPS] [-H key=value]...
 *
 * Cases (each writes, closes, reopens, reads and verifies unless said otherwise):
 *   contig    each rank writes its own -s bytes, contiguous, in -t byte transfers with
 *             MPI_File_write_at (IOR-like, independent)
 *   contig-coll   the same with MPI_File_write_at_all / read_at_all
 *   strided   each rank writes -s bytes as records of -r bytes interleaved with the other ranks
 *             (record i of rank p at (i*P + p) * r), independent, one call per record
 *   reread    the file (-s bytes per rank) is written, then, still open, every rank reads the part
 *             of its right neighbour -k times (the data is cached by the other ranks)
 *   atomic    the column-wise overlap of Liao et al. (ICPP 2003, fig. 4): an M x N byte array,
 *             each rank a block of columns overlapping R columns with each neighbour, subarray
 *             view, MPI_File_set_atomicity(fh, 1), MPI_File_write_all; then checks that each
 *             overlap holds one rank's bytes only
 *   subarray  an M x N array of 8-byte values distributed by column blocks (subarray view),
 *             MPI_File_write_all and read_all
 *   shuffled  8-byte elements, -s bytes per rank, every element to a rank in a shuffled order (the
 *             same permutation on every rank), an indexed file view; -k MPI_File_write_at_all of it
 *             (t_write: open, the k calls, close), then one read_at_all
 *   plans     issue 43's repeated irregular pattern: the shuffled view, -k MPI_File_write_at_all of
 *             it, then -k read_at_all, each call timed alone (the host's PMPI_Barrier before it,
 *             not timed); t_write (t_read): the median of the calls after the first, a line
 *             "PLANS first_write= rest_write= first_read= rest_read=" (max over ranks)
 *   part-bb, part-sc, part-bs, part-sb   an M x N array of 8-byte elements partitioned over the
 *             ranks block-block (MPI_Dims_create's grid), *-cyclic (each column to rank column mod
 *             P: every element a piece of its own), block-* (rows) or *-block (columns), through a
 *             darray view: one MPI_File_write_all, then one read_all (as PnetCDF's put_all/get_all)
 *   records   one open, -s/-r records of -r bytes (record i by rank i mod P, MPI_File_write_at),
 *             each rank reads its neighbour's records, close: -k passes in the same process,
 *             pass 1 the cold first pass, the later ones warm (the same processes open the same
 *             file again); t_write is pass 1's open+write+read+close, t_read the last pass's
 *             (t_wopen/t_wclose: pass 1's open and close, t_ropen/t_rclose the last pass's); a
 *             line "PASS n open= write= read= close=" per pass
 *
 * Making the data written (fill) and checking what is read (verify) are not timed, in every case:
 * they are the benchmark's own work, a byte at a time, as costly as the I/O of small records on a
 * local disk, and the same for both drivers, so timing them would press every ratio towards 1.
 * contig and strided make all of a rank's data before the phase and check it after (a rank holds
 * its -s bytes in memory): there the phase ends in a collective close, where a rank would wait for
 * the others' making and checking.
 *
 * Output: one line "RESULT key=value ..." on rank 0 with the phase times (max over ranks):
 * t_write (open + write + close), t_read (open + read + close), the bytes moved and errors, and
 * edonio's file-system operations (edonio_fs_writes, edonio_fs_reads; 0 under ufs).
 */
#include <mpi.h>

#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_HINTS = 16 };

struct opts {
    const char *cas, *driver, *dir;
    long long size, xfer, rec;
    long long rows, cols, overlap;
    int reps;
    const char *hints[MAX_HINTS];
    int nhints;
};

static int rank, nprocs;

static void check(int err, const char *what)
{
    if (err == MPI_SUCCESS)
        return;
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(err, msg, &len);
    fprintf(stderr, "iobench: rank %d: %s: %s\n", rank, what, msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static long long parse_bytes(const char *s)
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
    if (errno || end == s || *end || v <= 0) {
        if (rank == 0)
            fprintf(stderr, "iobench: bad number '%s'\n", s);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return v * unit;
}

static MPI_Info make_info(const struct opts *o)
{
    MPI_Info info;
    MPI_Info_create(&info);
    for (int i = 0; i < o->nhints; i++) {
        char kv[512];
        snprintf(kv, sizeof kv, "%s", o->hints[i]);
        char *eq = strchr(kv, '=');
        if (!eq)
            continue;
        *eq = '\0';
        MPI_Info_set(info, kv, eq + 1);
    }
    return info;
}

static MPI_File open_file(const struct opts *o, const char *name, int amode)
{
    MPI_File fh;
    MPI_Info info = make_info(o);
    check(MPI_File_open(MPI_COMM_WORLD, name, amode, info, &fh), "open");
    MPI_Info_free(&info);
    return fh;
}

/*
 * edonio's own file-system operations through this process's handles (its romio_edonio_stats_*
 * info keys, read before each close: a local call, where EDONIO_STATS would add a reduction to
 * every timed close); summed over the processes at the end, untimed. 0 under ufs.
 */
static long long edo_fs_writes, edo_fs_reads;

static long long info_ll(MPI_Info info, const char *key)
{
    char v[MPI_MAX_INFO_VAL + 1];
    int flag = 0;

    MPI_Info_get(info, key, MPI_MAX_INFO_VAL, v, &flag);
    return flag ? atoll(v) : 0;
}

static int close_file(MPI_File *fh)
{
    MPI_Info info;

    if (MPI_File_get_info(*fh, &info) == MPI_SUCCESS) {
        edo_fs_writes += info_ll(info, "romio_edonio_stats_fs_writes");
        edo_fs_reads += info_ll(info, "romio_edonio_stats_fs_reads");
        MPI_Info_free(&info);
    }
    return MPI_File_close(fh);
}

/* The byte written at file offset off: a function of the offset, so any misplaced byte shows. */
static unsigned char pattern(long long off) { return (unsigned char)((off * 2654435761ULL) >> 13); }

/* Making the data written and checking what is read are not I/O: each returns the seconds it
 * took, which the caller leaves out of the phase it times. */
static double fill(unsigned char *buf, long long off, long long n)
{
    double t0 = MPI_Wtime();
    for (long long i = 0; i < n; i++)
        buf[i] = pattern(off + i);
    return MPI_Wtime() - t0;
}

/* Adds the bytes that differ from the pattern to *bad. */
static double verify(const unsigned char *buf, long long off, long long n, long long *bad)
{
    double t0 = MPI_Wtime();
    for (long long i = 0; i < n; i++)
        *bad += buf[i] != pattern(off + i);
    return MPI_Wtime() - t0;
}

static double tmax(double t)
{
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return t;
}

static double start(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    return MPI_Wtime();
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "iobench: rank %d: out of memory (%zu bytes)\n", rank, n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

struct result {
    double t_write, t_read;
    double t_wopen, t_wclose, t_ropen, t_rclose; /* parts of t_write and t_read, where timed */
    long long bytes_written, bytes_read, errors;
};

/*
 * contig and strided hold a rank's whole data in memory (its -s bytes): made before the timed phase
 * and checked after it, so that the phase holds no computation at all. Subtracting a rank's own
 * making or checking from its time is not enough where a collective call (the close) ends the
 * phase: a rank that finished first waits there for the others' making and checking.
 */

/* contig and contig-coll: rank p owns [p*size, (p+1)*size), moved in xfer-byte transfers. */
static void case_contig(const struct opts *o, const char *name, int coll, struct result *r)
{
    long long xfer = o->xfer < o->size ? o->xfer : o->size;
    unsigned char *data = xmalloc((size_t)o->size);
    MPI_Offset base = (MPI_Offset)rank * o->size;
    long long ntx = (o->size + xfer - 1) / xfer, bad = 0;

    fill(data, base, o->size);
    double t0 = start();
    MPI_File fh = open_file(o, name, MPI_MODE_WRONLY | MPI_MODE_CREATE);
    r->t_wopen = tmax(MPI_Wtime() - t0);
    for (long long i = 0; i < ntx; i++) {
        long long off = i * xfer, n = o->size - off < xfer ? o->size - off : xfer;
        if (coll)
            check(MPI_File_write_at_all(fh, base + off, data + off, (int)n, MPI_BYTE,
                                        MPI_STATUS_IGNORE),
                  "write_at_all");
        else
            check(MPI_File_write_at(fh, base + off, data + off, (int)n, MPI_BYTE,
                                    MPI_STATUS_IGNORE),
                  "write_at");
    }
    double c0 = start();
    check(close_file(&fh), "close");
    r->t_wclose = tmax(MPI_Wtime() - c0);
    r->t_write = tmax(MPI_Wtime() - t0);

    memset(data, 0, (size_t)o->size);
    t0 = start();
    fh = open_file(o, name, MPI_MODE_RDONLY);
    r->t_ropen = tmax(MPI_Wtime() - t0);
    for (long long i = 0; i < ntx; i++) {
        long long off = i * xfer, n = o->size - off < xfer ? o->size - off : xfer;
        if (coll)
            check(MPI_File_read_at_all(fh, base + off, data + off, (int)n, MPI_BYTE,
                                       MPI_STATUS_IGNORE),
                  "read_at_all");
        else
            check(MPI_File_read_at(fh, base + off, data + off, (int)n, MPI_BYTE,
                                   MPI_STATUS_IGNORE),
                  "read_at");
    }
    double c1 = MPI_Wtime();
    check(close_file(&fh), "close");
    r->t_rclose = tmax(MPI_Wtime() - c1);
    r->t_read = tmax(MPI_Wtime() - t0);
    verify(data, base, o->size, &bad);
    r->errors = bad;
    r->bytes_written = r->bytes_read = o->size * nprocs;
    free(data);
}

/* strided: record i of rank p at (i*P + p) * rec, at data + i * rec in the rank's memory. */
static void case_strided(const struct opts *o, const char *name, struct result *r)
{
    long long nrec = o->size / o->rec, bad = 0;
    unsigned char *data = xmalloc((size_t)(nrec * o->rec));

    for (long long i = 0; i < nrec; i++)
        fill(data + i * o->rec, (i * nprocs + rank) * o->rec, o->rec);
    double t0 = start();
    MPI_File fh = open_file(o, name, MPI_MODE_WRONLY | MPI_MODE_CREATE);
    for (long long i = 0; i < nrec; i++)
        check(MPI_File_write_at(fh, (i * nprocs + rank) * o->rec, data + i * o->rec, (int)o->rec,
                                MPI_BYTE, MPI_STATUS_IGNORE),
              "write_at");
    check(close_file(&fh), "close");
    r->t_write = tmax(MPI_Wtime() - t0);

    memset(data, 0, (size_t)(nrec * o->rec));
    t0 = start();
    fh = open_file(o, name, MPI_MODE_RDONLY);
    for (long long i = 0; i < nrec; i++)
        check(MPI_File_read_at(fh, (i * nprocs + rank) * o->rec, data + i * o->rec, (int)o->rec,
                               MPI_BYTE, MPI_STATUS_IGNORE),
              "read_at");
    check(close_file(&fh), "close");
    r->t_read = tmax(MPI_Wtime() - t0);
    for (long long i = 0; i < nrec; i++)
        verify(data + i * o->rec, (i * nprocs + rank) * o->rec, o->rec, &bad);
    r->errors = bad;
    r->bytes_written = r->bytes_read = nrec * o->rec * nprocs;
    free(data);
}

/* reread: write, then read the right neighbour's part reps times from the open file. t_write is
 * the write phase alone (the file stays open), t_read the re-reads alone. */
static void case_reread(const struct opts *o, const char *name, struct result *r)
{
    long long xfer = o->xfer < o->size ? o->xfer : o->size;
    unsigned char *buf = xmalloc((size_t)xfer);
    long long ntx = (o->size + xfer - 1) / xfer;
    MPI_File fh = open_file(o, name, MPI_MODE_RDWR | MPI_MODE_CREATE);

    double t0 = start(), tfill = 0;
    MPI_Offset base = (MPI_Offset)rank * o->size;
    for (long long i = 0; i < ntx; i++) {
        long long off = i * xfer, n = o->size - off < xfer ? o->size - off : xfer;
        tfill += fill(buf, base + off, n);
        check(MPI_File_write_at(fh, base + off, buf, (int)n, MPI_BYTE, MPI_STATUS_IGNORE),
              "write_at");
    }
    r->t_write = tmax(MPI_Wtime() - t0 - tfill);

    base = (MPI_Offset)((rank + 1) % nprocs) * o->size;
    long long bad = 0;
    /* One verified pass outside the timing, then reps timed passes. */
    for (long long i = 0; i < ntx; i++) {
        long long off = i * xfer, n = o->size - off < xfer ? o->size - off : xfer;
        check(MPI_File_read_at(fh, base + off, buf, (int)n, MPI_BYTE, MPI_STATUS_IGNORE),
              "read_at");
        verify(buf, base + off, n, &bad);
    }
    t0 = start();
    for (int k = 0; k < o->reps; k++)
        for (long long i = 0; i < ntx; i++) {
            long long off = i * xfer, n = o->size - off < xfer ? o->size - off : xfer;
            check(MPI_File_read_at(fh, base + off, buf, (int)n, MPI_BYTE, MPI_STATUS_IGNORE),
                  "read_at");
        }
    r->t_read = tmax(MPI_Wtime() - t0);
    check(close_file(&fh), "close");
    r->errors = bad;
    r->bytes_written = o->size * nprocs;
    r->bytes_read = o->size * nprocs * o->reps;
    free(buf);
}

/* The columns [first, first + width) of rank p in the column-wise overlap pattern: N/P columns
 * each, extended by R/2 on each side that has a neighbour (so neighbours overlap R columns). */
static void overlap_columns(const struct opts *o, int p, long long *first, long long *width)
{
    long long per = o->cols / nprocs, half = o->overlap / 2;
    long long lo = p * per, hi = (p == nprocs - 1) ? o->cols : (p + 1) * per;
    if (p > 0)
        lo -= half;
    if (p < nprocs - 1)
        hi += half;
    *first = lo;
    *width = hi - lo;
}

static MPI_Datatype column_block(long long rows, long long cols, long long first, long long width,
                                 MPI_Datatype elem)
{
    int sizes[2] = {(int)rows, (int)cols}, sub[2] = {(int)rows, (int)width},
        starts[2] = {0, (int)first};
    MPI_Datatype t;
    MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, elem, &t);
    MPI_Type_commit(&t);
    return t;
}

static void case_atomic(const struct opts *o, const char *name, struct result *r)
{
    long long first, width;
    overlap_columns(o, rank, &first, &width);
    MPI_Datatype ft = column_block(o->rows, o->cols, first, width, MPI_BYTE);
    size_t n = (size_t)(o->rows * width);
    unsigned char *buf = xmalloc(n);
    memset(buf, 'A' + rank % 26, n);

    double t0 = start();
    MPI_File fh = open_file(o, name, MPI_MODE_WRONLY | MPI_MODE_CREATE);
    check(MPI_File_set_atomicity(fh, 1), "set_atomicity");
    check(MPI_File_set_view(fh, 0, MPI_BYTE, ft, "native", MPI_INFO_NULL), "set_view");
    check(MPI_File_write_all(fh, buf, (int)n, MPI_BYTE, MPI_STATUS_IGNORE), "write_all");
    check(close_file(&fh), "close");
    r->t_write = tmax(MPI_Wtime() - t0);
    MPI_Type_free(&ft);
    free(buf);

    /* The check (untimed): rank p reads the overlap with rank p+1; MPI atomicity means every
     * row of it shows the same single writer. */
    long long bad = 0;
    r->t_read = 0;
    if (rank < nprocs - 1 && o->overlap > 0) {
        long long lo = (rank + 1) * (o->cols / nprocs) - o->overlap / 2;
        long long w = o->overlap / 2 * 2;
        unsigned char *row = xmalloc((size_t)w);
        fh = MPI_FILE_NULL;
        check(MPI_File_open(MPI_COMM_SELF, name, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), "open");
        unsigned char who = 0;
        for (long long i = 0; i < o->rows; i++) {
            check(MPI_File_read_at(fh, i * o->cols + lo, row, (int)w, MPI_BYTE,
                                   MPI_STATUS_IGNORE), "read_at");
            if (i == 0)
                who = row[0];
            for (long long j = 0; j < w; j++)
                bad += row[j] != who;
        }
        check(close_file(&fh), "close");
        free(row);
    }
    r->errors = bad;
    r->bytes_written = o->rows * o->cols;
    r->bytes_read = 0;
}

static void case_subarray(const struct opts *o, const char *name, struct result *r)
{
    long long per = o->cols / nprocs;
    long long first = rank * per, width = rank == nprocs - 1 ? o->cols - first : per;
    MPI_Datatype ft = column_block(o->rows, o->cols, first, width, MPI_DOUBLE);
    size_t n = (size_t)(o->rows * width);
    double *buf = xmalloc(n * sizeof *buf);
    for (long long i = 0; i < o->rows; i++)
        for (long long j = 0; j < width; j++)
            buf[i * width + j] = (double)(i * o->cols + first + j);

    double t0 = start();
    MPI_File fh = open_file(o, name, MPI_MODE_WRONLY | MPI_MODE_CREATE);
    check(MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL), "set_view");
    check(MPI_File_write_all(fh, buf, (int)n, MPI_DOUBLE, MPI_STATUS_IGNORE), "write_all");
    check(close_file(&fh), "close");
    r->t_write = tmax(MPI_Wtime() - t0);

    memset(buf, 0, n * sizeof *buf);
    t0 = start();
    fh = open_file(o, name, MPI_MODE_RDONLY);
    check(MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL), "set_view");
    check(MPI_File_read_all(fh, buf, (int)n, MPI_DOUBLE, MPI_STATUS_IGNORE), "read_all");
    check(close_file(&fh), "close");
    r->t_read = tmax(MPI_Wtime() - t0);

    long long bad = 0;
    for (long long i = 0; i < o->rows; i++)
        for (long long j = 0; j < width; j++)
            bad += buf[i * width + j] != (double)(i * o->cols + first + j);
    r->errors = bad;
    r->bytes_written = r->bytes_read = o->rows * o->cols * 8;
    MPI_Type_free(&ft);
    free(buf);
}

/*
 * Collective I/O of this rank's n elements of 8 bytes, idx[k] the file index of the k-th of them
 * in the view ft (file order): 'calls' write_at_all of all of them (t_write: open, calls, close),
 * then one read_at_all (t_read), checked against the pattern.
 */
static void elems_io(const struct opts *o, const char *name, MPI_Datatype ft, const long long *idx,
                     long long n, int calls, struct result *r)
{
    unsigned char *buf = xmalloc((size_t)n * 8 + 1);
    long long bad = 0;

    for (long long k = 0; k < n; k++)
        fill(buf + 8 * k, idx[k] * 8, 8);
    double t0 = start();
    MPI_File fh = open_file(o, name, MPI_MODE_WRONLY | MPI_MODE_CREATE);
    check(MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL), "set_view");
    for (int c = 0; c < calls; c++)
        check(MPI_File_write_at_all(fh, 0, buf, (int)n, MPI_DOUBLE, MPI_STATUS_IGNORE),
              "write_at_all");
    check(close_file(&fh), "close");
    r->t_write = tmax(MPI_Wtime() - t0);

    memset(buf, 0, (size_t)n * 8);
    t0 = start();
    fh = open_file(o, name, MPI_MODE_RDONLY);
    check(MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL), "set_view");
    check(MPI_File_read_at_all(fh, 0, buf, (int)n, MPI_DOUBLE, MPI_STATUS_IGNORE), "read_at_all");
    check(close_file(&fh), "close");
    r->t_read = tmax(MPI_Wtime() - t0);
    for (long long k = 0; k < n; k++)
        verify(buf + 8 * k, idx[k] * 8, 8, &bad);
    r->errors = bad;
    r->bytes_written = (long long)calls * n * 8 * nprocs;
    r->bytes_read = n * 8 * nprocs;
    free(buf);
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Each of calls calls timed alone: the slowest rank's time per call; first, and the median of the
 * others. The host's PMPI_Barrier lines the ranks up (edonio's MPI_Barrier would hand over what
 * they wrote: a cost of its own, not the call's). */
static void timed_calls(MPI_File fh, unsigned char *buf, long long n, int calls, int writing,
                        double *first, double *rest)
{
    double *dt = xmalloc((size_t)calls * sizeof(*dt));

    for (int c = 0; c < calls; c++) {
        PMPI_Barrier(MPI_COMM_WORLD);
        double t = MPI_Wtime();
        if (writing)
            check(MPI_File_write_at_all(fh, 0, buf, (int)n, MPI_DOUBLE, MPI_STATUS_IGNORE),
                  "write_at_all");
        else
            check(MPI_File_read_at_all(fh, 0, buf, (int)n, MPI_DOUBLE, MPI_STATUS_IGNORE),
                  "read_at_all");
        dt[c] = MPI_Wtime() - t;
    }
    MPI_Allreduce(MPI_IN_PLACE, dt, calls, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    *first = dt[0];
    qsort(dt + 1, (size_t)calls - 1, sizeof(*dt), by_double);
    *rest = calls > 1 ? dt[1 + (calls - 1) / 2] : dt[0];
    free(dt);
}

/* plans: the calls of elems_io, each timed alone (see the top). */
static void plans_io(const struct opts *o, const char *name, MPI_Datatype ft, const long long *idx,
                     long long n, int calls, struct result *r)
{
    unsigned char *buf = xmalloc((size_t)n * 8 + 1);
    double fw, rw, fr, rr;
    long long bad = 0;

    for (long long k = 0; k < n; k++)
        fill(buf + 8 * k, idx[k] * 8, 8);
    MPI_File fh = open_file(o, name, MPI_MODE_RDWR | MPI_MODE_CREATE);
    check(MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL), "set_view");
    timed_calls(fh, buf, n, calls, 1, &fw, &rw);
    memset(buf, 0, (size_t)n * 8);
    timed_calls(fh, buf, n, calls, 0, &fr, &rr);
    check(close_file(&fh), "close");
    for (long long k = 0; k < n; k++)
        verify(buf + 8 * k, idx[k] * 8, 8, &bad);
    r->t_write = rw;
    r->t_read = rr;
    r->errors = bad;
    r->bytes_written = (long long)calls * n * 8 * nprocs;
    r->bytes_read = (long long)calls * n * 8 * nprocs;
    if (rank == 0)
        printf("PLANS first_write=%.6f rest_write=%.6f first_read=%.6f rest_read=%.6f\n", fw, rw,
               fr, rr);
    free(buf);
}

/* shuffled: element e of P * (s / 8) goes to the rank its place in a shuffle says (xorshift,
 * Fisher-Yates, the same on every rank); this rank's, sorted, make an indexed view. plans: the
 * same view, each call timed. */
static void case_shuffled(const struct opts *o, const char *name, int plans, struct result *r)
{
    long long per = o->size / 8, total = per * nprocs, n = 0;
    long long *perm = xmalloc((size_t)total * sizeof(*perm)), *idx = xmalloc((size_t)per * 8);
    unsigned char *mine = xmalloc((size_t)total);
    unsigned long long x = 88172645463325252ull;
    int *disp = xmalloc((size_t)per * sizeof(int));
    MPI_Datatype ft;

    if (total > INT32_MAX) {
        if (rank == 0)
            fprintf(stderr, "iobench: shuffled: too many elements\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (long long i = 0; i < total; i++)
        perm[i] = i;
    for (long long i = total - 1; i > 0; i--) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        long long j = (long long)(x % (unsigned long long)(i + 1)), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    memset(mine, 0, (size_t)total);
    for (long long i = rank * per; i < (rank + 1) * per; i++)
        mine[perm[i]] = 1;
    for (long long e = 0; e < total; e++)
        if (mine[e]) {
            disp[n] = (int)e;
            idx[n++] = e;
        }
    MPI_Type_create_indexed_block((int)n, 1, disp, MPI_DOUBLE, &ft);
    MPI_Type_commit(&ft);
    if (plans)
        plans_io(o, name, ft, idx, n, o->reps, r);
    else
        elems_io(o, name, ft, idx, n, o->reps, r);
    MPI_Type_free(&ft);
    free(perm);
    free(idx);
    free(mine);
    free(disp);
}

/* part-XY: the rank that holds element (i, j) of the M x N array, and its darray view. */
struct part {
    int distrib[2], dims[2];
};

static struct part part_of(const char *how)
{
    struct part p = {{MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK}, {0, 0}};
    for (int d = 0; d < 2; d++) {
        if (how[d] == 's') { /* "*": not distributed */
            p.distrib[d] = MPI_DISTRIBUTE_NONE;
            p.dims[d] = 1;
        } else if (how[d] == 'c') {
            p.distrib[d] = MPI_DISTRIBUTE_CYCLIC;
        }
    }
    MPI_Dims_create(nprocs, 2, p.dims);
    return p;
}

static int part_owner(const struct part *p, const long long gs[2], long long i, long long j)
{
    long long at[2] = {i, j}, c[2] = {0, 0};
    for (int d = 0; d < 2; d++) {
        long long b = (gs[d] + p->dims[d] - 1) / p->dims[d]; /* darray's default block */
        if (p->distrib[d] == MPI_DISTRIBUTE_CYCLIC)
            c[d] = at[d] % p->dims[d];
        else if (p->distrib[d] == MPI_DISTRIBUTE_BLOCK)
            c[d] = at[d] / b;
    }
    return (int)(c[0] * p->dims[1] + c[1]); /* MPI_ORDER_C: the grid is row-major */
}

static void case_part(const struct opts *o, const char *name, const char *how, struct result *r)
{
    struct part p = part_of(how);
    long long gs[2] = {o->rows, o->cols}, n = 0;
    long long *idx = xmalloc((size_t)(gs[0] * gs[1] / nprocs + gs[0] + gs[1] + 1) * sizeof(*idx));
    int sizes[2] = {(int)gs[0], (int)gs[1]},
        dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
    MPI_Datatype ft;

    for (long long i = 0; i < gs[0]; i++)
        for (long long j = 0; j < gs[1]; j++)
            if (part_owner(&p, gs, i, j) == rank)
                idx[n++] = i * gs[1] + j;
    if (p.distrib[1] == MPI_DISTRIBUTE_CYCLIC || p.distrib[0] == MPI_DISTRIBUTE_CYCLIC)
        dargs[p.distrib[1] == MPI_DISTRIBUTE_CYCLIC ? 1 : 0] = 1;
    check(MPI_Type_create_darray(nprocs, rank, 2, sizes, p.distrib, dargs, p.dims, MPI_ORDER_C,
                                 MPI_DOUBLE, &ft),
          "darray");
    MPI_Type_commit(&ft);
    elems_io(o, name, ft, idx, n, 1, r);
    MPI_Type_free(&ft);
    free(idx);
}

/* records: one pass (open, write, read the neighbour's, close), its phases timed (max over ranks). */
static void records_pass(const struct opts *o, const char *name, int pass, double ph[4],
                         long long *bad)
{
    long long nrec = o->size / o->rec;
    unsigned char *buf = xmalloc((size_t)o->rec);
    double t0 = start(), t;

    double tfill = 0, tcheck = 0; /* making and checking the data is not I/O (as in contig) */

    MPI_File fh = open_file(o, name, MPI_MODE_RDWR | MPI_MODE_CREATE);
    ph[0] = tmax(MPI_Wtime() - t0);
    t = start();
    for (long long i = rank; i < nrec; i += nprocs) {
        tfill += fill(buf, i * o->rec, o->rec);
        check(MPI_File_write_at(fh, i * o->rec, buf, (int)o->rec, MPI_BYTE, MPI_STATUS_IGNORE),
              "write_at");
    }
    ph[1] = tmax(MPI_Wtime() - t - tfill);
    t = start(); /* the neighbour's records: written by another process (visible after sync) */
    check(MPI_File_sync(fh), "sync");
    MPI_Barrier(MPI_COMM_WORLD);
    check(MPI_File_sync(fh), "sync");
    for (long long i = (rank + 1) % nprocs; i < nrec; i += nprocs) {
        check(MPI_File_read_at(fh, i * o->rec, buf, (int)o->rec, MPI_BYTE, MPI_STATUS_IGNORE),
              "read_at");
        tcheck += verify(buf, i * o->rec, o->rec, bad);
    }
    ph[2] = tmax(MPI_Wtime() - t - tcheck);
    t = start();
    check(close_file(&fh), "close");
    ph[3] = tmax(MPI_Wtime() - t);
    if (rank == 0)
        printf("PASS %d open=%.6f write=%.6f read=%.6f close=%.6f\n", pass, ph[0], ph[1], ph[2],
               ph[3]);
    free(buf);
}

static void case_records(const struct opts *o, const char *name, struct result *r)
{
    long long bad = 0;
    double ph[4];

    for (int pass = 1; pass <= o->reps; pass++) {
        records_pass(o, name, pass, ph, &bad);
        if (pass == 1) {
            r->t_write = ph[0] + ph[1] + ph[2] + ph[3];
            r->t_wopen = ph[0];
            r->t_wclose = ph[3];
        }
        r->t_read = ph[0] + ph[1] + ph[2] + ph[3];
        r->t_ropen = ph[0];
        r->t_rclose = ph[3];
    }
    r->errors = bad;
    r->bytes_written = (o->size / o->rec) * o->rec * o->reps;
    r->bytes_read = r->bytes_written;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

    struct opts o = {.cas = "contig", .driver = "edonio", .dir = ".", .size = 16LL << 20,
                     .xfer = 1LL << 20, .rec = 512, .rows = 4096, .cols = 8192, .overlap = 16,
                     .reps = 5};
    int c;
    while ((c = getopt(argc, argv, "c:f:d:s:t:r:M:N:R:k:H:")) != -1) {
        switch (c) {
        case 'c': o.cas = optarg; break;
        case 'f': o.driver = optarg; break;
        case 'd': o.dir = optarg; break;
        case 's': o.size = parse_bytes(optarg); break;
        case 't': o.xfer = parse_bytes(optarg); break;
        case 'r': o.rec = parse_bytes(optarg); break;
        case 'M': o.rows = parse_bytes(optarg); break;
        case 'N': o.cols = parse_bytes(optarg); break;
        case 'R': o.overlap = parse_bytes(optarg); break;
        case 'k': o.reps = (int)parse_bytes(optarg); break;
        case 'H':
            if (o.nhints < MAX_HINTS)
                o.hints[o.nhints++] = optarg;
            break;
        default:
            if (rank == 0)
                fprintf(stderr, "usage: iobench -c CASE -f DRIVER -d DIR [-s -t -r -M -N -R -k "
                                "-H key=value]\n");
            MPI_Finalize();
            return 2;
        }
    }
    if (o.xfer > INT32_MAX || o.rec > INT32_MAX) {
        if (rank == 0)
            fprintf(stderr, "iobench: transfers must be below 2 GiB\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    char name[4096];
    /* The driver "ompio" (Open MPI's own MPI-IO, run without edonio's library): no prefix. */
    int plain = strcmp(o.driver, "ompio") == 0;
    int n = snprintf(name, sizeof name, "%s%s%s/iobench.%s.%s.dat", plain ? "" : o.driver,
                     plain ? "" : ":", o.dir, o.cas, o.driver);
    if (n < 0 || (size_t)n >= sizeof name) {
        if (rank == 0)
            fprintf(stderr, "iobench: %s: path too long\n", o.dir);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (rank == 0)
        MPI_File_delete(name, MPI_INFO_NULL);
    MPI_Barrier(MPI_COMM_WORLD);

    struct result r = {0};
    if (strcmp(o.cas, "contig") == 0)
        case_contig(&o, name, 0, &r);
    else if (strcmp(o.cas, "contig-coll") == 0)
        case_contig(&o, name, 1, &r);
    else if (strcmp(o.cas, "strided") == 0)
        case_strided(&o, name, &r);
    else if (strcmp(o.cas, "reread") == 0)
        case_reread(&o, name, &r);
    else if (strcmp(o.cas, "atomic") == 0)
        case_atomic(&o, name, &r);
    else if (strcmp(o.cas, "subarray") == 0)
        case_subarray(&o, name, &r);
    else if (strcmp(o.cas, "records") == 0)
        case_records(&o, name, &r);
    else if (strcmp(o.cas, "shuffled") == 0)
        case_shuffled(&o, name, 0, &r);
    else if (strcmp(o.cas, "plans") == 0)
        case_shuffled(&o, name, 1, &r);
    else if (strncmp(o.cas, "part-", 5) == 0 && strlen(o.cas) == 7 && strchr("bsc", o.cas[5]) &&
             strchr("bsc", o.cas[6]))
        case_part(&o, name, o.cas + 5, &r);
    else {
        if (rank == 0)
            fprintf(stderr, "iobench: unknown case '%s'\n", o.cas);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Allreduce(MPI_IN_PLACE, &r.errors, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &edo_fs_writes, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &edo_fs_reads, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("RESULT case=%s driver=%s nprocs=%d t_write=%.6f t_read=%.6f bytes_written=%lld "
               "bytes_read=%lld errors=%lld t_wopen=%.6f t_wclose=%.6f t_ropen=%.6f "
               "t_rclose=%.6f edonio_fs_writes=%lld edonio_fs_reads=%lld\n", o.cas, o.driver,
               nprocs, r.t_write, r.t_read, r.bytes_written, r.bytes_read, r.errors, r.t_wopen,
               r.t_wclose, r.t_ropen, r.t_rclose, edo_fs_writes, edo_fs_reads);
        fflush(stdout);
    }
    MPI_Finalize();
    return r.errors == 0 ? 0 : 1;
}
