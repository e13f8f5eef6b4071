/*
 * h5_rows: rows written by their own rank with independent H5Dwrite, handed over with an
 * MPI_Barrier, read whole by every rank (issue 39). No H5Fflush (it would call MPI_File_sync).
 *
 * Usage: mpiexec -n N h5_rows FILE
 *
 * One 2-D int dataset of 2N rows of 1,000 ints. Rank r writes rows 2r and 2r + 1, 8,000 bytes, with
 * the default (independent) transfer list: less than the 16 KiB from which edonio sends a write
 * straight to a local file system (romio_edonio_write_through=auto), so that it takes the cache as
 * it would on any file system. The dataset's data is aligned at 48 KiB (H5Pset_alignment), so that
 * at 4 ranks the rows lie on both sides of the boundary of edonio's first two 64 KiB blocks, owned
 * by ranks 0 and 1, and one rank's rows across it. After the write, MPI_Barrier(MPI_COMM_WORLD);
 * every rank reads the whole dataset and checks it; a barrier again, then a second round over the
 * same rows with new values (overwrites must be seen too). Then the file is closed, reopened
 * read-only and checked once more.
 */
#include "h5_test.h"

enum { NCOLS = 1000, ROUNDS = 2, ALIGN = 49152 };

#define DSET_NAME "rows"

static int value(long long row, long long col, int round)
{
    return (int)(row * 1000003 + col * 7 + round * 100000 + 1);
}

/* Every rank reads the whole dataset: it must be round's values. */
static void check_all(hid_t dset, int round, const char *when)
{
    long long n = 2LL * h5t_nprocs * NCOLS;
    int *got = malloc((size_t)n * sizeof(int)), *want = malloc((size_t)n * sizeof(int));
    char what[120];

    for (long long i = 0; i < n; i++) {
        got[i] = -1;
        want[i] = value(i / NCOLS, i % NCOLS, round);
    }
    CHECK(H5Dread(dset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, got));
    snprintf(what, sizeof(what), "round %d, %s", round, when);
    h5t_compare(what, got, want, n);
    free(got);
    free(want);
}

/* This rank's two rows with round's values, one independent H5Dwrite. */
static void write_rows(hid_t dset, int round)
{
    hsize_t start[2] = {2 * (hsize_t)h5t_rank, 0}, count[2] = {2, NCOLS};
    int *buf = malloc(2 * NCOLS * sizeof(int));
    hid_t filespace, memspace;

    for (long long i = 0; i < 2 * NCOLS; i++)
        buf[i] = value(2LL * h5t_rank + i / NCOLS, i % NCOLS, round);
    CHECK(filespace = H5Dget_space(dset));
    CHECK(H5Sselect_hyperslab(filespace, H5S_SELECT_SET, start, NULL, count, NULL));
    CHECK(memspace = H5Screate_simple(2, count, NULL));
    CHECK(H5Dwrite(dset, H5T_NATIVE_INT, memspace, filespace, H5P_DEFAULT, buf));
    CHECK(H5Sclose(memspace));
    CHECK(H5Sclose(filespace));
    free(buf);
}

int main(int argc, char **argv)
{
    const char *path = h5t_init(&argc, &argv);
    hsize_t dims[2] = {2 * (hsize_t)h5t_nprocs, NCOLS};
    hid_t fapl = h5t_fapl(MPI_COMM_WORLD), file, space, dset;

    CHECK(H5Pset_alignment(fapl, ALIGN / 2, ALIGN)); /* the data, not the small metadata */
    CHECK(file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
    CHECK(space = H5Screate_simple(2, dims, NULL));
    CHECK(dset = H5Dcreate2(file, DSET_NAME, H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT,
                            H5P_DEFAULT));
    for (int round = 1; round <= ROUNDS; round++) {
        write_rows(dset, round);
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        check_all(dset, round, "after the barrier");
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* every read done before the next round */
    }
    CHECK(H5Dclose(dset));
    CHECK(H5Sclose(space));
    CHECK(H5Fclose(file));

    CHECK(file = H5Fopen(path, H5F_ACC_RDONLY, fapl));
    CHECK(dset = H5Dopen2(file, DSET_NAME, H5P_DEFAULT));
    check_all(dset, ROUNDS, "after close and reopen");
    CHECK(H5Dclose(dset));
    CHECK(H5Fclose(file));
    CHECK(H5Pclose(fapl));
    return h5t_finish(NULL);
}
