/*
 * A netCDF file written by P ranks through PnetCDF, for comparing the files different MPI-IO
 * drivers make of the same calls (test/pnetcdf/debian.sh): a 2-D variable of M x N doubles
 * written *-cyclic (column j by rank j mod P: every element a piece of its own) with nonblocking
 * puts and one ncmpi_wait_all, a second one block-block with a collective put, and a record
 * variable each rank appends to, independently. Closed, opened again, and every value read back
 * collectively and checked. The file is kept.
 *
 *   pnc_files FILE [M N]
 *
 * Prints " No Errors" (rank 0) when every call succeeded and every value read back is right.
 */
#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, nprocs, errors;

#define CHECK_NC(call)                                                                             \
    do {                                                                                           \
        int err_ = (call);                                                                         \
        if (err_ != NC_NOERR) {                                                                    \
            fprintf(stderr, "rank %d: %s: %s\n", rank, #call, ncmpi_strerror(err_));               \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                          \
        }                                                                                          \
    } while (0)

static double value(int var, MPI_Offset i, MPI_Offset j)
{
    return var * 1e6 + (double)i * 1000 + (double)j;
}

/* This rank's rows of the block-block variable: [*r0, *r0 + *nr) x all columns. */
static void my_rows(MPI_Offset m, MPI_Offset *r0, MPI_Offset *nr)
{
    MPI_Offset per = (m + nprocs - 1) / nprocs;
    *r0 = per * rank < m ? per * rank : m;
    *nr = *r0 + per < m ? per : m - *r0;
}

static void write_file(const char *path, MPI_Offset m, MPI_Offset n)
{
    int ncid, dims[3], cyc, blk, rec;
    MPI_Offset ncols = 0, r0, nr, start[2], count[2], stride[2];
    double *a, *b, r[4];
    int req;

    MPI_Info info;

    /* The layout PnetCDF chooses may follow the driver's striping_unit: fixed here, so that every
     * driver's file has the same one. */
    MPI_Info_create(&info);
    MPI_Info_set(info, "nc_header_align_size", "512");
    MPI_Info_set(info, "nc_var_align_size", "512");
    CHECK_NC(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, info, &ncid));
    MPI_Info_free(&info);
    CHECK_NC(ncmpi_def_dim(ncid, "rows", m, &dims[0]));
    CHECK_NC(ncmpi_def_dim(ncid, "cols", n, &dims[1]));
    CHECK_NC(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &dims[2]));
    CHECK_NC(ncmpi_def_var(ncid, "cyclic", NC_DOUBLE, 2, dims, &cyc));
    CHECK_NC(ncmpi_def_var(ncid, "blocks", NC_DOUBLE, 2, dims, &blk));
    int rdims[2] = {dims[2], dims[1]};
    CHECK_NC(ncmpi_def_var(ncid, "records", NC_DOUBLE, 2, rdims, &rec));
    CHECK_NC(ncmpi_put_att_text(ncid, NC_GLOBAL, "title", 9, "edonio IO"));
    CHECK_NC(ncmpi_enddef(ncid));

    /* *-cyclic: columns rank, rank + P, ... of every row. */
    for (MPI_Offset j = rank; j < n; j += nprocs)
        ncols++;
    a = malloc((size_t)(m * (ncols ? ncols : 1)) * sizeof(double));
    for (MPI_Offset i = 0; i < m; i++)
        for (MPI_Offset k = 0; k < ncols; k++)
            a[i * ncols + k] = value(1, i, rank + k * nprocs);
    start[0] = 0, start[1] = rank, count[0] = m, count[1] = ncols, stride[0] = 1;
    stride[1] = nprocs;
    CHECK_NC(ncmpi_iput_vars_double(ncid, cyc, start, count, stride, a, &req));
    int status;
    CHECK_NC(ncmpi_wait_all(ncid, 1, &req, &status));
    CHECK_NC(status);

    my_rows(m, &r0, &nr);
    b = malloc((size_t)((nr ? nr : 1) * n) * sizeof(double));
    for (MPI_Offset i = 0; i < nr; i++)
        for (MPI_Offset j = 0; j < n; j++)
            b[i * n + j] = value(2, r0 + i, j);
    start[0] = r0, start[1] = 0, count[0] = nr, count[1] = n;
    CHECK_NC(ncmpi_put_vara_double_all(ncid, blk, start, count, b));

    CHECK_NC(ncmpi_begin_indep_data(ncid));
    for (int k = 0; k < 4; k++)
        r[k] = value(3, rank, k);
    start[0] = rank, start[1] = 0, count[0] = 1, count[1] = n < 4 ? n : 4;
    CHECK_NC(ncmpi_put_vara_double(ncid, rec, start, count, r));
    CHECK_NC(ncmpi_end_indep_data(ncid));
    CHECK_NC(ncmpi_close(ncid));
    free(a), free(b);
}

static void check_file(const char *path, MPI_Offset m, MPI_Offset n)
{
    int ncid, cyc, blk, rec;
    MPI_Offset start[2] = {0, 0}, count[2] = {m, n};
    double *all = malloc((size_t)(m * n) * sizeof(double)), r[4];

    CHECK_NC(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
    CHECK_NC(ncmpi_inq_varid(ncid, "cyclic", &cyc));
    CHECK_NC(ncmpi_inq_varid(ncid, "blocks", &blk));
    CHECK_NC(ncmpi_inq_varid(ncid, "records", &rec));
    for (int var = 1; var <= 2; var++) {
        CHECK_NC(ncmpi_get_vara_double_all(ncid, var == 1 ? cyc : blk, start, count, all));
        for (MPI_Offset i = 0; i < m; i++)
            for (MPI_Offset j = 0; j < n; j++)
                if (all[i * n + j] != value(var, i, j) && errors++ < 5)
                    fprintf(stderr, "rank %d: variable %d [%lld][%lld] is %g\n", rank, var,
                            (long long)i, (long long)j, all[i * n + j]);
    }
    for (int p = 0; p < nprocs; p++) {
        MPI_Offset s[2] = {p, 0}, c[2] = {1, n < 4 ? n : 4};
        CHECK_NC(ncmpi_get_vara_double_all(ncid, rec, s, c, r));
        for (int k = 0; k < c[1]; k++)
            if (r[k] != value(3, p, k) && errors++ < 5)
                fprintf(stderr, "rank %d: record %d [%d] is %g\n", rank, p, k, r[k]);
    }
    CHECK_NC(ncmpi_close(ncid));
    free(all);
}

int main(int argc, char **argv)
{
    MPI_Offset m = argc > 3 ? atoll(argv[2]) : 64, n = argc > 3 ? atoll(argv[3]) : 64;
    int total;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc != 2 && argc != 4) {
        if (rank == 0)
            fprintf(stderr, "usage: pnc_files FILE [M N]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    write_file(argv[1], m, n);
    check_file(argv[1], m, n);
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(total == 0 ? " No Errors\n" : " Found %d errors\n", total);
    MPI_Finalize();
    return total != 0;
}
