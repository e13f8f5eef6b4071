/*
 * perf case: 2-D variables through PnetCDF's nonblocking API, as the first measured row of issue
 * 41 wrote them. Four variables of M x N doubles in one netCDF file, one per partitioning of the
 * array over the P ranks: bb (block-block over MPI_Dims_create's 2-D grid), sc (*-cyclic: column
 * j to rank j mod P, every element a piece of its own), bs (block-*: blocks of rows) and sb
 * (*-block: blocks of columns), as iobench's part-* cases cut the same array through a darray
 * view. Each rank posts its part of each variable with ncmpi_iput_vara_double (sc:
 * ncmpi_iput_vars_double, a stride of P columns), then one ncmpi_wait_all writes them in one
 * collective call; close. Then the file is opened again, the parts are posted with
 * ncmpi_iget_vara_double / ncmpi_iget_vars_double, one ncmpi_wait_all reads them, close, and
 * every value is checked (untimed).
 *
 *   pnc_part -f ufs|edonio -d DIR [-M ROWS] [-N COLS] [-H key=value]...
 *
 * The file is DRIVER:DIR/pnc_part.DRIVER.nc (the prefix chooses ROMIO's driver), removed at the
 * end. -H hints go to ncmpi_create and ncmpi_open (PnetCDF hands them to MPI_File_open).
 *
 * RESULT t_write (create + definitions + enddef + the puts and their wait_all + close) and t_read
 * (open + the gets and their wait_all + close), seconds, the slowest rank; bytes_written,
 * bytes_read (the variables' bytes, not the header); errors (values read wrong, failed requests);
 * the parts of the phases, each the slowest rank's (t_wopen: create to enddef, t_wclose, t_ropen,
 * t_rclose); edonio_fs_writes, edonio_fs_reads: edonio's own file-system operations up to each
 * close, summed over the ranks (0 under ufs).
 *
 * Those counts: PnetCDF gives no handle on its MPI_File, so this program defines MPI_File_close
 * (MPI's profiling interface): it reads edonio's romio_edonio_stats_* keys with
 * MPI_File_get_info, a local call, and closes with PMPI_File_close, as iobench does before each
 * close (EDONIO_STATS would add a reduction to every timed close that ufs does not pay).
 *
 * A value read wrong, a failed request or a failed call is printed on stderr with its rank and
 * makes the program exit non-zero (a failed call at once, with MPI_Abort).
 */
#define _POSIX_C_SOURCE 200809L /* getopt */

#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { NVARS = 4, MAX_REPORTED = 5 };

static const char *const part_names[NVARS] = {"bb", "sc", "bs", "sb"};

/* One rank's part of one variable: element (a, b) of its buffer is element
 * (start[0] + a * stride[0], start[1] + b * stride[1]) of the variable. */
struct part {
    MPI_Offset start[2], count[2], stride[2];
    double *buf;
};

static int rank, nprocs;
static long long edo_fs_writes, edo_fs_reads;

static void ok(int err, const char *what)
{
    if (err == NC_NOERR)
        return;
    fprintf(stderr, "pnc_part: rank %d: %s: %s\n", rank, what, ncmpi_strerror(err));
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static long long info_ll(MPI_Info info, const char *key)
{
    char v[MPI_MAX_INFO_VAL + 1];
    int flag = 0;

    MPI_Info_get(info, key, MPI_MAX_INFO_VAL, v, &flag);
    return flag ? atoll(v) : 0;
}

/* Every MPI_File_close of this program, PnetCDF's included: edonio's counters, then the close. */
int MPI_File_close(MPI_File *fh)
{
    MPI_Info info;

    if (MPI_File_get_info(*fh, &info) == MPI_SUCCESS) {
        edo_fs_writes += info_ll(info, "romio_edonio_stats_fs_writes");
        edo_fs_reads += info_ll(info, "romio_edonio_stats_fs_reads");
        MPI_Info_free(&info);
    }
    return PMPI_File_close(fh);
}

/* Block c of n elements cut in `parts` blocks of ceil(n / parts) (MPI_Type_create_darray's
 * default block, as iobench's part-* cases): its start and length (0 past the end). */
static void block(MPI_Offset n, int parts, int c, MPI_Offset *start, MPI_Offset *count)
{
    MPI_Offset b = (n + parts - 1) / parts;

    *start = c * b < n ? c * b : 0;
    *count = c * b < n ? (n - c * b < b ? n - c * b : b) : 0;
}

static struct part part_of(int v, MPI_Offset rows, MPI_Offset cols)
{
    struct part p = {{0, 0}, {rows, cols}, {1, 1}, NULL};
    int dims[2] = {0, 0};

    switch (v) {
        case 0: /* bb: the grid is row-major, as darray's MPI_ORDER_C */
            MPI_Dims_create(nprocs, 2, dims);
            block(rows, dims[0], rank / dims[1], &p.start[0], &p.count[0]);
            block(cols, dims[1], rank % dims[1], &p.start[1], &p.count[1]);
            break;
        case 1: /* sc: columns rank, rank + P, ... */
            p.start[1] = rank < cols ? rank : 0;
            p.count[1] = rank < cols ? (cols - rank + nprocs - 1) / nprocs : 0;
            p.stride[1] = nprocs;
            break;
        case 2: /* bs */
            block(rows, nprocs, rank, &p.start[0], &p.count[0]);
            break;
        default: /* sb */
            block(cols, nprocs, rank, &p.start[1], &p.count[1]);
            break;
    }
    p.buf = malloc((size_t)(p.count[0] * p.count[1]) * sizeof(double) + 1);
    if (p.buf == NULL) {
        fprintf(stderr, "pnc_part: rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    return p;
}

/* The value of element (i, j) of variable v: where it belongs, exactly (below 2^53). */
static double value(int v, MPI_Offset i, MPI_Offset j, MPI_Offset rows, MPI_Offset cols)
{
    return ((double)v * rows + (double)i) * (double)cols + (double)j;
}

/* Fills part p of variable v (check = 0), or counts and reports its values that differ. */
static long long fill(const struct part *p, int v, MPI_Offset rows, MPI_Offset cols, int check)
{
    long long bad = 0, k = 0;

    for (MPI_Offset a = 0; a < p->count[0]; a++)
        for (MPI_Offset b = 0; b < p->count[1]; b++, k++) {
            MPI_Offset i = p->start[0] + a * p->stride[0], j = p->start[1] + b * p->stride[1];
            double want = value(v, i, j, rows, cols);
            if (!check)
                p->buf[k] = want;
            else if (p->buf[k] != want && bad++ < MAX_REPORTED)
                fprintf(stderr, "pnc_part: rank %d: %s[%lld][%lld] read %.17g, wrote %.17g\n", rank,
                        part_names[v], (long long)i, (long long)j, p->buf[k], want);
        }
    return bad;
}

/* Posts part p of variable varid as a nonblocking put (write = 1) or get; its request in *req.
 * An empty part posts nothing (*req = NC_REQ_NULL): the wait_all is collective all the same. */
static void post(int ncid, int varid, struct part *p, int write, int *req)
{
    int strided = p->stride[0] != 1 || p->stride[1] != 1;

    *req = NC_REQ_NULL;
    if (p->count[0] == 0 || p->count[1] == 0)
        return;
    if (write && strided)
        ok(ncmpi_iput_vars_double(ncid, varid, p->start, p->count, p->stride, p->buf, req),
           "ncmpi_iput_vars_double");
    else if (write)
        ok(ncmpi_iput_vara_double(ncid, varid, p->start, p->count, p->buf, req),
           "ncmpi_iput_vara_double");
    else if (strided)
        ok(ncmpi_iget_vars_double(ncid, varid, p->start, p->count, p->stride, p->buf, req),
           "ncmpi_iget_vars_double");
    else
        ok(ncmpi_iget_vara_double(ncid, varid, p->start, p->count, p->buf, req),
           "ncmpi_iget_vara_double");
}

/* Waits for every request in one collective call; a failed request is an error. */
static long long wait_all(int ncid, int reqs[NVARS])
{
    int st[NVARS];
    long long bad = 0;

    ok(ncmpi_wait_all(ncid, NVARS, reqs, st), "ncmpi_wait_all");
    for (int v = 0; v < NVARS; v++)
        if (st[v] != NC_NOERR) {
            fprintf(stderr, "pnc_part: rank %d: request of %s: %s\n", rank, part_names[v],
                    ncmpi_strerror(st[v]));
            bad++;
        }
    return bad;
}

/*
 * Post every variable's part (a put, or a get), wait for all, close: the values wrong, and the
 * phase's times since t0 (total, open part, close part) in t[0..2].
 */
static long long transfer(int ncid, const int varids[NVARS], struct part parts[NVARS], int put,
                          double t0, double t[3])
{
    int reqs[NVARS];
    long long bad;
    double t1;

    t[1] = MPI_Wtime() - t0;
    for (int v = 0; v < NVARS; v++)
        post(ncid, varids[v], &parts[v], put, &reqs[v]);
    bad = wait_all(ncid, reqs);
    t1 = MPI_Wtime();
    ok(ncmpi_close(ncid), "ncmpi_close");
    t[2] = MPI_Wtime() - t1;
    t[0] = MPI_Wtime() - t0;
    return bad;
}

/* The write phase: its times (total, open part, close part) on this rank in t[0..2]. */
static long long write_phase(const char *path, MPI_Info info, MPI_Offset rows, MPI_Offset cols,
                             struct part parts[NVARS], double t[3])
{
    int ncid, dims[2], varids[NVARS];
    double t0;

    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    ok(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, info, &ncid), "ncmpi_create");
    ok(ncmpi_def_dim(ncid, "y", rows, &dims[0]), "ncmpi_def_dim");
    ok(ncmpi_def_dim(ncid, "x", cols, &dims[1]), "ncmpi_def_dim");
    for (int v = 0; v < NVARS; v++)
        ok(ncmpi_def_var(ncid, part_names[v], NC_DOUBLE, 2, dims, &varids[v]), "ncmpi_def_var");
    ok(ncmpi_enddef(ncid), "ncmpi_enddef");
    return transfer(ncid, varids, parts, 1, t0, t);
}

/* The read phase, as write_phase. */
static long long read_phase(const char *path, MPI_Info info, struct part parts[NVARS], double t[3])
{
    int ncid, varids[NVARS];
    double t0;

    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    ok(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, info, &ncid), "ncmpi_open");
    for (int v = 0; v < NVARS; v++)
        ok(ncmpi_inq_varid(ncid, part_names[v], &varids[v]), "ncmpi_inq_varid");
    return transfer(ncid, varids, parts, 0, t0, t);
}

int main(int argc, char **argv)
{
    const char *driver = "edonio", *dir = ".";
    MPI_Offset rows = 512, cols = 512;
    struct part parts[NVARS];
    double tw[3], tr[3];
    long long errors = 0;
    char path[4096];
    MPI_Info info;
    int opt;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Info_create(&info);
    while ((opt = getopt(argc, argv, "f:d:M:N:H:")) != -1) {
        char *eq;
        if (opt == 'f')
            driver = optarg;
        else if (opt == 'd')
            dir = optarg;
        else if (opt == 'M')
            rows = atoll(optarg);
        else if (opt == 'N')
            cols = atoll(optarg);
        else if (opt == 'H' && (eq = strchr(optarg, '=')) != NULL) {
            *eq = '\0';
            MPI_Info_set(info, optarg, eq + 1);
        } else {
            if (rank == 0)
                fprintf(stderr, "usage: pnc_part -f DRIVER -d DIR [-M ROWS] [-N COLS] "
                                "[-H key=value]...\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (rows < 1 || cols < 1)
        MPI_Abort(MPI_COMM_WORLD, 2);
    snprintf(path, sizeof(path), "%s:%s/pnc_part.%s.nc", driver, dir, driver);

    for (int v = 0; v < NVARS; v++) { /* untimed: the data is made before the phase */
        parts[v] = part_of(v, rows, cols);
        fill(&parts[v], v, rows, cols, 0);
    }
    errors += write_phase(path, info, rows, cols, parts, tw);
    for (int v = 0; v < NVARS; v++) /* what the read does not bring shows as wrong */
        memset(parts[v].buf, 0xff,
               (size_t)(parts[v].count[0] * parts[v].count[1]) * sizeof(double));
    errors += read_phase(path, info, parts, tr);
    for (int v = 0; v < NVARS; v++) { /* untimed: the check is the benchmark's own work */
        errors += fill(&parts[v], v, rows, cols, 1);
        free(parts[v].buf);
    }

    double t[6] = {tw[0], tr[0], tw[1], tw[2], tr[1], tr[2]};
    MPI_Allreduce(MPI_IN_PLACE, t, 6, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    long long sums[3] = {errors, edo_fs_writes, edo_fs_reads};
    MPI_Allreduce(MPI_IN_PLACE, sums, 3, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    long long bytes = (long long)NVARS * rows * cols * (long long)sizeof(double);
    if (rank == 0) {
        printf("RESULT t_write=%.6f t_read=%.6f bytes_written=%lld bytes_read=%lld errors=%lld "
               "t_wopen=%.6f t_wclose=%.6f t_ropen=%.6f t_rclose=%.6f edonio_fs_writes=%lld "
               "edonio_fs_reads=%lld\n",
               t[0], t[1], bytes, bytes, sums[0], t[2], t[3], t[4], t[5], sums[1], sums[2]);
        if (sums[0] != 0)
            fprintf(stderr, "pnc_part: %lld errors\n", sums[0]);
        MPI_File_delete(path, MPI_INFO_NULL); /* untimed, after every rank's close */
    }
    MPI_Info_free(&info);
    MPI_Finalize();
    return sums[0] != 0;
}
