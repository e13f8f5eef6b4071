/*
 * h5_chunked: a chunked, deflate-compressed dataset written collectively (HDF5 1.10 writes filtered
 * datasets in parallel only so), read by every rank after an MPI_Barrier, overwritten, and read
 * again after close and reopen (issue 39). No H5Fflush (it would call MPI_File_sync).
 *
 * Usage: mpiexec -n N h5_chunked FILE
 *
 * A 2-D int dataset of NROWS x NCOLS in chunks of CROWS x CCOLS, deflate level 6. Rank r writes rows
 * r, r + N, r + 2N, ... with the H5FD_MPIO_COLLECTIVE transfer property, so that every chunk holds
 * every rank's rows: HDF5 sends each chunk's pieces to one rank, which compresses and writes it,
 * and all ranks update the chunk index. Then MPI_Barrier and every rank reads the whole dataset
 * with independent reads and checks it; a second round writes other values (other compressed
 * sizes: chunks move in the file); then the file is closed, reopened read-only and read
 * collectively by all. Prints " SKIP ..." when this HDF5 has no deflate filter that encodes.
 */
#include "h5_test.h"

enum { NROWS = 64, NCOLS = 1024, CROWS = 16, CCOLS = 256, ROUNDS = 2 };

#define DSET_NAME "compressed"

/* Values that compress, differently in each round. */
static int value(long long row, long long col, int round)
{
    return round == 1 ? (int)(row * NCOLS + col) : (int)((row * 7 + col * col) % 1000 + round);
}

static hid_t collective_dxpl(void)
{
    hid_t dxpl;

    CHECK(dxpl = H5Pcreate(H5P_DATASET_XFER));
    CHECK(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE));
    return dxpl;
}

/* This rank's rows, every N-th from row rank, with round's values: one collective H5Dwrite. */
static void write_rows(hid_t dset, int round)
{
    hsize_t mine = (NROWS - (hsize_t)h5t_rank + (hsize_t)h5t_nprocs - 1) / (hsize_t)h5t_nprocs;
    hsize_t start[2] = {(hsize_t)h5t_rank, 0}, stride[2] = {(hsize_t)h5t_nprocs, 1};
    hsize_t count[2] = {mine, 1}, block[2] = {1, NCOLS}, mdims[2] = {mine, NCOLS};
    int *buf = malloc((mine > 0 ? mine : 1) * NCOLS * sizeof(int));
    hid_t filespace, memspace, dxpl = collective_dxpl();
    H5D_mpio_actual_io_mode_t mode;

    for (hsize_t i = 0; i < mine * NCOLS; i++)
        buf[i] =
            value((long long)(h5t_rank + i / NCOLS * h5t_nprocs), (long long)(i % NCOLS), round);
    CHECK(filespace = H5Dget_space(dset));
    CHECK(memspace = H5Screate_simple(2, mdims, NULL));
    if (mine > 0) {
        CHECK(H5Sselect_hyperslab(filespace, H5S_SELECT_SET, start, stride, count, block));
    } else { /* more ranks than rows: this one still joins the collective write */
        CHECK(H5Sselect_none(filespace));
        CHECK(H5Sselect_none(memspace));
    }
    CHECK(H5Dwrite(dset, H5T_NATIVE_INT, memspace, filespace, dxpl, buf));
    CHECK(H5Pget_mpio_actual_io_mode(dxpl, &mode));
    if (mode == H5D_MPIO_NO_COLLECTIVE)
        h5t_error("round %d: the write was not collective", round);
    CHECK(H5Pclose(dxpl));
    CHECK(H5Sclose(memspace));
    CHECK(H5Sclose(filespace));
    free(buf);
}

/* Every rank reads the whole dataset (with dxpl): it must be round's values. */
static void check_all(hid_t dset, hid_t dxpl, int round, const char *when)
{
    long long n = (long long)NROWS * NCOLS;
    int *got = malloc((size_t)n * sizeof(int)), *want = malloc((size_t)n * sizeof(int));
    char what[96];

    for (long long i = 0; i < n; i++) {
        got[i] = -1;
        want[i] = value(i / NCOLS, i % NCOLS, round);
    }
    CHECK(H5Dread(dset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, dxpl, got));
    snprintf(what, sizeof(what), "round %d, %s", round, when);
    h5t_compare(what, got, want, n);
    free(got);
    free(want);
}

/* Why deflate cannot be tested here, or NULL. */
static const char *no_deflate(void)
{
    unsigned int config = 0;

    if (H5Zfilter_avail(H5Z_FILTER_DEFLATE) <= 0)
        return "h5_chunked: this HDF5 has no deflate filter (H5Zfilter_avail)";
    CHECK(H5Zget_filter_info(H5Z_FILTER_DEFLATE, &config));
    if (!(config & H5Z_FILTER_CONFIG_ENCODE_ENABLED) ||
        !(config & H5Z_FILTER_CONFIG_DECODE_ENABLED))
        return "h5_chunked: this HDF5's deflate filter cannot both encode and decode";
    return NULL;
}

int main(int argc, char **argv)
{
    const char *path = h5t_init(&argc, &argv), *skip = no_deflate();
    hsize_t dims[2] = {NROWS, NCOLS}, chunk[2] = {CROWS, CCOLS};
    hid_t fapl, dcpl, dapl, space, file, dset, dxpl;

    if (skip != NULL)
        return h5t_finish(skip);
    fapl = h5t_fapl(MPI_COMM_WORLD);
    CHECK(file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
    CHECK(dcpl = H5Pcreate(H5P_DATASET_CREATE));
    CHECK(H5Pset_chunk(dcpl, 2, chunk));
    CHECK(H5Pset_deflate(dcpl, 6));
    CHECK(space = H5Screate_simple(2, dims, NULL));
    /* No chunk cache: each process's own would serve round 1's chunks in round 2 (on stock MPICH
     * too); the reads must go to the file. */
    CHECK(dapl = H5Pcreate(H5P_DATASET_ACCESS));
    CHECK(H5Pset_chunk_cache(dapl, 0, 0, H5D_CHUNK_CACHE_W0_DEFAULT));
    CHECK(dset = H5Dcreate2(file, DSET_NAME, H5T_STD_I32LE, space, H5P_DEFAULT, dcpl, dapl));
    for (int round = 1; round <= ROUNDS; round++) {
        write_rows(dset, round);
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        check_all(dset, H5P_DEFAULT, round, "independent reads after the barrier");
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* every read done before the next round */
    }
    CHECK(H5Dclose(dset));
    CHECK(H5Sclose(space));
    CHECK(H5Pclose(dcpl));
    CHECK(H5Fclose(file));

    CHECK(file = H5Fopen(path, H5F_ACC_RDONLY, fapl));
    CHECK(dset = H5Dopen2(file, DSET_NAME, dapl));
    dxpl = collective_dxpl();
    check_all(dset, dxpl, ROUNDS, "collective read after close and reopen");
    CHECK(H5Pclose(dxpl));
    CHECK(H5Dclose(dset));
    CHECK(H5Fclose(file));
    CHECK(H5Pclose(dapl));
    CHECK(H5Pclose(fapl));
    return h5t_finish(NULL);
}
