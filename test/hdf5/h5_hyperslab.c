/*
 * h5_hyperslab: parallel HDF5 through MPI-IO, with strided collective writes.
 *
 * Usage: mpiexec -n N h5_hyperslab FILE
 *
 * Creates FILE with H5Pset_fapl_mpio, one 2-D int64 dataset of NROWS x NCOLS, and has every rank
 * write its part collectively. The ranks form a 2-D grid (MPI_Dims_create): rows go to process
 * rows block-cyclically in blocks of ROW_BLOCK rows, columns go to process columns in one
 * (uneven) block each, so each rank's selection is strided in both dimensions and the file
 * view MPI-IO sees is non-contiguous. The file is then closed, reopened read-only, and every
 * rank reads the whole dataset collectively and checks every element against
 * value(row, col) = row * NCOLS + col + 1 (rank-independent, never 0, so unwritten parts
 * show up as errors).
 *
 * Rank 0 prints " No Errors" or "Found N errors" (N summed over all ranks); the exit status is
 * non-zero on any error. HDF5 call failures abort the job: a collective call failing on one
 * rank would otherwise leave the others hanging.
 */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum {
    NROWS = 1000,     /* a multiple of ROW_BLOCK, so blocks cycle evenly over process rows */
    NCOLS = 601,      /* odd: column blocks are uneven */
    ROW_BLOCK = 8,
    MAX_REPORTED = 10 /* mismatches printed per rank */
};

#define DSET_NAME "values"

/* Abort on failure of an HDF5 or MPI call (negative hid_t/herr_t, or non-success MPI code). */
#define CHECK(expr)                                                                          \
    do {                                                                                     \
        if ((expr) < 0) {                                                                    \
            fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #expr);               \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                    \
        }                                                                                    \
    } while (0)
#define CHECK_MPI(expr) CHECK((expr) == MPI_SUCCESS ? 0 : -1)

static long long expected(hsize_t row, hsize_t col)
{
    return (long long)(row * NCOLS + col + 1);
}

/* This rank's part of the dataset, as an HDF5 hyperslab. */
struct part {
    hsize_t start[2], stride[2], count[2], block[2];
    hsize_t nrows, ncols; /* shape of the part in memory */
    int prow, nprow;      /* this rank's process row, number of process rows */
};

static struct part decompose(int rank, int nprocs)
{
    int dims[2] = {0, 0};
    struct part p;
    CHECK_MPI(MPI_Dims_create(nprocs, 2, dims));
    int prow = rank / dims[1], pcol = rank % dims[1];

    /* Rows: blocks prow, prow + dims[0], prow + 2 * dims[0], ... of ROW_BLOCK rows each. */
    hsize_t nblocks = NROWS / ROW_BLOCK;
    hsize_t myblocks = nblocks / (hsize_t)dims[0] + ((hsize_t)prow < nblocks % (hsize_t)dims[0]);
    p.start[0] = (hsize_t)prow * ROW_BLOCK;
    p.stride[0] = (hsize_t)dims[0] * ROW_BLOCK;
    p.count[0] = myblocks;
    p.block[0] = ROW_BLOCK;

    /* Columns: one block per process column, the first NCOLS % dims[1] one column wider. */
    hsize_t base = NCOLS / (hsize_t)dims[1], extra = NCOLS % (hsize_t)dims[1];
    hsize_t c0 = (hsize_t)pcol * base + ((hsize_t)pcol < extra ? (hsize_t)pcol : extra);
    p.start[1] = c0;
    p.stride[1] = 1;
    p.count[1] = 1;
    p.block[1] = base + ((hsize_t)pcol < extra);

    p.nrows = myblocks * ROW_BLOCK;
    p.ncols = p.block[1];
    p.prow = prow;
    p.nprow = dims[0];
    return p;
}

/* Global row of row i of this rank's part in memory. */
static hsize_t global_row(const struct part *p, hsize_t i)
{
    return ((hsize_t)p->prow + (i / ROW_BLOCK) * (hsize_t)p->nprow) * ROW_BLOCK + i % ROW_BLOCK;
}

static hid_t mpio_fapl(void)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    CHECK(fapl);
    CHECK(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    /* Collective metadata reads and writes: more of HDF5's MPI-IO paths, fewer small writes. */
    CHECK(H5Pset_all_coll_metadata_ops(fapl, 1));
    CHECK(H5Pset_coll_metadata_write(fapl, 1));
    return fapl;
}

static hid_t collective_dxpl(void)
{
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    CHECK(dxpl);
    CHECK(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE));
    return dxpl;
}

/* HDF5 may quietly fall back to independent I/O; that would not test what we mean to. */
static long long check_collective(hid_t dxpl, int rank, const char *what)
{
    H5D_mpio_actual_io_mode_t mode;
    CHECK(H5Pget_mpio_actual_io_mode(dxpl, &mode));
    if (mode == H5D_MPIO_NO_COLLECTIVE) {
        fprintf(stderr, "rank %d: %s was not done collectively\n", rank, what);
        return 1;
    }
    return 0;
}

static long long write_file(const char *path, const struct part *p, int rank)
{
    long long errors = 0;
    long long *buf = malloc((p->nrows * p->ncols > 0 ? p->nrows * p->ncols : 1) * sizeof *buf);
    if (buf == NULL) {
        fprintf(stderr, "rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (hsize_t i = 0; i < p->nrows; i++) {
        for (hsize_t j = 0; j < p->ncols; j++) {
            buf[i * p->ncols + j] = expected(global_row(p, i), p->start[1] + j);
        }
    }

    hid_t fapl = mpio_fapl();
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    CHECK(file);
    hsize_t dims[2] = {NROWS, NCOLS};
    hid_t filespace = H5Screate_simple(2, dims, NULL);
    CHECK(filespace);
    hid_t dset = H5Dcreate2(file, DSET_NAME, H5T_STD_I64LE, filespace, H5P_DEFAULT, H5P_DEFAULT,
                            H5P_DEFAULT);
    CHECK(dset);

    hsize_t mdims[2] = {p->nrows, p->ncols};
    hid_t memspace = H5Screate_simple(2, mdims, NULL);
    CHECK(memspace);
    if (p->nrows * p->ncols == 0) {
        /* More process rows than row blocks: this rank still joins the collective write. */
        CHECK(H5Sselect_none(filespace));
        CHECK(H5Sselect_none(memspace));
    } else {
        CHECK(H5Sselect_hyperslab(filespace, H5S_SELECT_SET, p->start, p->stride, p->count,
                                  p->block));
    }
    hid_t dxpl = collective_dxpl();
    CHECK(H5Dwrite(dset, H5T_NATIVE_LLONG, memspace, filespace, dxpl, buf));
    errors += check_collective(dxpl, rank, "the write");

    CHECK(H5Pclose(dxpl));
    CHECK(H5Sclose(memspace));
    CHECK(H5Sclose(filespace));
    CHECK(H5Dclose(dset));
    CHECK(H5Fclose(file));
    CHECK(H5Pclose(fapl));
    free(buf);
    return errors;
}

static long long read_and_verify(const char *path, int rank)
{
    long long errors = 0;
    long long *buf = malloc((size_t)NROWS * NCOLS * sizeof *buf);
    if (buf == NULL) {
        fprintf(stderr, "rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    hid_t fapl = mpio_fapl();
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    CHECK(file);
    hid_t dset = H5Dopen2(file, DSET_NAME, H5P_DEFAULT);
    CHECK(dset);
    hid_t filespace = H5Dget_space(dset);
    CHECK(filespace);
    hsize_t dims[2] = {0, 0};
    if (H5Sget_simple_extent_ndims(filespace) != 2 ||
        H5Sget_simple_extent_dims(filespace, dims, NULL) != 2 || dims[0] != NROWS ||
        dims[1] != NCOLS) {
        fprintf(stderr, "rank %d: dataset has the wrong shape (%llu x %llu)\n", rank,
                (unsigned long long)dims[0], (unsigned long long)dims[1]);
        errors++;
    }

    /* Every rank reads everything, so each one checks the other ranks' writes too. */
    hid_t dxpl = collective_dxpl();
    CHECK(H5Dread(dset, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, dxpl, buf));
    errors += check_collective(dxpl, rank, "the read");
    for (hsize_t r = 0; r < NROWS; r++) {
        for (hsize_t c = 0; c < NCOLS; c++) {
            long long got = buf[r * NCOLS + c], want = expected(r, c);
            if (got != want) {
                if (errors < MAX_REPORTED) {
                    fprintf(stderr, "rank %d: [%llu][%llu] = %lld, expected %lld\n", rank,
                            (unsigned long long)r, (unsigned long long)c, got, want);
                }
                errors++;
            }
        }
    }

    CHECK(H5Pclose(dxpl));
    CHECK(H5Sclose(filespace));
    CHECK(H5Dclose(dset));
    CHECK(H5Fclose(file));
    CHECK(H5Pclose(fapl));
    free(buf);
    return errors;
}

int main(int argc, char **argv)
{
    int rank, nprocs;
    long long errors = 0, total = 0;

    CHECK_MPI(MPI_Init(&argc, &argv));
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &nprocs));
    if (argc != 2) {
        if (rank == 0) {
            fprintf(stderr, "usage: %s FILE\n", argv[0]);
        }
        MPI_Finalize();
        return 2;
    }

    struct part p = decompose(rank, nprocs);
    errors += write_file(argv[1], &p, rank);
    errors += read_and_verify(argv[1], rank);

    CHECK_MPI(MPI_Allreduce(&errors, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
    if (rank == 0) {
        if (total == 0) {
            printf(" No Errors\n");
        } else {
            printf("Found %lld errors\n", total);
        }
    }
    CHECK_MPI(MPI_Finalize());
    return total == 0 ? 0 : 1;
}
