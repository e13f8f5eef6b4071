/*
 * h5_metadata: HDF5's metadata and small datasets handed over between processes by a write and an
 * MPI_Barrier (issue 39), the way parallel HDF5 itself works: its metadata cache has metadata
 * written by one process (or spread over a few: the default "distributed" strategy) at a sync
 * point that ends with MPI_Barrier on the file's communicator (a dup of the one given), and the
 * other processes read those entries from the file when they need them again. No H5Fflush (it
 * would call MPI_File_sync).
 *
 * Usage: mpiexec -n N h5_metadata FILE
 *
 * 1. metadata: a metadata cache of 16 KiB with a sync point every 4 KiB of dirty metadata, so that
 *    entries are written while the file is open and evicted, then read back from the file. All
 *    ranks create NGROUPS groups (every fourth with a subgroup) with an attribute of NATTR ints
 *    each (collectively, as parallel HDF5 wants); MPI_Barrier; every rank opens every group,
 *    starting at a group of its own, and checks its attribute and its number of links.
 * 2. one writer: a dataset of 3,000 ints created by all, written by the last rank alone (independent
 *    H5Dwrite), MPI_Barrier, read and checked by all; then overwritten by rank 0 the same way.
 * 3. hyperslabs: a 2-D dataset whose columns go to the ranks in groups of 4 (rank r: columns 4r to
 *    4r + 3 of every 4N), each rank writing its strided hyperslab with an independent H5Dwrite,
 *    MPI_Barrier, every rank reads the whole dataset and checks it.
 * Then the file is closed and reopened read-only on another communicator (MPI_Comm_split, ranks
 * reversed), and everything is checked once more.
 * The writes of parts 2 and 3 are each less than 16 KiB, as is most of the metadata: they take
 * edonio's cache (romio_edonio_write_through=auto sends larger ones straight to a local file).
 */
#include "h5_test.h"

enum {
    NGROUPS = 48,
    NATTR = 64,
    NONE = 3000,
    GRID_ROWS = 64,
    CACHE = 16384,
    DIRTY = 4096,
};

static int attr_value(int g, int i)
{
    return g * 1000 + i + 7;
}

static int one_value(int i, int writer)
{
    return writer * 100000 + i * 3 + 1;
}

static int grid_value(long long row, long long col)
{
    return (int)(row * 100003 + col + 11);
}

static long long grid_cols(void)
{
    return 64LL * h5t_nprocs; /* 16 groups of 4 columns for each rank */
}

/* A small metadata cache that writes and evicts entries while the file is open. */
static void small_cache(hid_t fapl)
{
    H5AC_cache_config_t cfg;

    cfg.version = H5AC__CURR_CACHE_CONFIG_VERSION;
    CHECK(H5Pget_mdc_config(fapl, &cfg));
    cfg.set_initial_size = 1;
    cfg.initial_size = cfg.min_size = cfg.max_size = CACHE;
    cfg.incr_mode = H5C_incr__off;
    cfg.flash_incr_mode = H5C_flash_incr__off;
    cfg.decr_mode = H5C_decr__off;
    cfg.dirty_bytes_threshold = DIRTY;
    CHECK(H5Pset_mdc_config(fapl, &cfg));
}

/* Part 1: the groups, attributes and subgroups, created and written by all ranks. */
static void create_groups(hid_t file)
{
    hsize_t n = NATTR;
    int values[NATTR];
    hid_t space, group, attr, sub;
    char name[32];

    CHECK(space = H5Screate_simple(1, &n, NULL));
    for (int g = 0; g < NGROUPS; g++) {
        snprintf(name, sizeof(name), "g%02d", g);
        CHECK(group = H5Gcreate2(file, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        for (int i = 0; i < NATTR; i++)
            values[i] = attr_value(g, i);
        CHECK(attr = H5Acreate2(group, "values", H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT));
        CHECK(H5Awrite(attr, H5T_NATIVE_INT, values));
        CHECK(H5Aclose(attr));
        if (g % 4 == 0) {
            CHECK(sub = H5Gcreate2(group, "sub", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
            CHECK(H5Gclose(sub));
        }
        CHECK(H5Gclose(group));
    }
    CHECK(H5Sclose(space));
}

/* Part 1: every group's attribute and links, from a group of this rank's own on. */
static void check_groups(hid_t file, const char *when)
{
    int got[NATTR], want[NATTR];
    H5G_info_t info;
    hid_t group, attr;
    char name[32], what[96];

    for (int k = 0; k < NGROUPS; k++) {
        int g = (k + h5t_rank * NGROUPS / h5t_nprocs) % NGROUPS;
        snprintf(name, sizeof(name), "g%02d", g);
        snprintf(what, sizeof(what), "group %s, %s", name, when);
        CHECK(group = H5Gopen2(file, name, H5P_DEFAULT));
        CHECK(attr = H5Aopen(group, "values", H5P_DEFAULT));
        for (int i = 0; i < NATTR; i++) {
            got[i] = -1;
            want[i] = attr_value(g, i);
        }
        CHECK(H5Aread(attr, H5T_NATIVE_INT, got));
        h5t_compare(what, got, want, NATTR);
        CHECK(H5Gget_info(group, &info));
        if (info.nlinks != (g % 4 == 0 ? 1u : 0u))
            h5t_error("%s: %llu links, expected %d", what, (unsigned long long)info.nlinks,
                      g % 4 == 0);
        CHECK(H5Aclose(attr));
        CHECK(H5Gclose(group));
    }
}

/* Part 2: dataset "one", written by writer alone. */
static void write_one(hid_t dset, int writer)
{
    int *buf = malloc(NONE * sizeof(int));

    for (int i = 0; i < NONE; i++)
        buf[i] = one_value(i, writer);
    if (h5t_rank == writer)
        CHECK(H5Dwrite(dset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
    free(buf);
}

static void check_one(hid_t file, int writer, const char *when)
{
    int *got = malloc(NONE * sizeof(int)), *want = malloc(NONE * sizeof(int));
    char what[96];
    hid_t dset;

    for (int i = 0; i < NONE; i++) {
        got[i] = -1;
        want[i] = one_value(i, writer);
    }
    CHECK(dset = H5Dopen2(file, "one", H5P_DEFAULT));
    CHECK(H5Dread(dset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, got));
    CHECK(H5Dclose(dset));
    snprintf(what, sizeof(what), "dataset one (rank %d's), %s", writer, when);
    h5t_compare(what, got, want, NONE);
    free(got);
    free(want);
}

/* Part 3: this rank's columns of "grid", a strided hyperslab, one independent H5Dwrite. */
static void write_grid(hid_t dset)
{
    long long ncols = grid_cols(), mine = ncols / h5t_nprocs;
    hsize_t start[2] = {0, 4 * (hsize_t)h5t_rank}, stride[2] = {1, 4 * (hsize_t)h5t_nprocs};
    hsize_t count[2] = {GRID_ROWS, (hsize_t)mine / 4}, block[2] = {1, 4};
    hsize_t mdims[2] = {GRID_ROWS, (hsize_t)mine};
    int *buf = malloc((size_t)(GRID_ROWS * mine) * sizeof(int));
    hid_t filespace, memspace;

    for (long long r = 0; r < GRID_ROWS; r++)
        for (long long j = 0; j < mine; j++)
            buf[r * mine + j] = grid_value(r, j / 4 * 4 * h5t_nprocs + 4 * h5t_rank + j % 4);
    CHECK(filespace = H5Dget_space(dset));
    CHECK(H5Sselect_hyperslab(filespace, H5S_SELECT_SET, start, stride, count, block));
    CHECK(memspace = H5Screate_simple(2, mdims, NULL));
    CHECK(H5Dwrite(dset, H5T_NATIVE_INT, memspace, filespace, H5P_DEFAULT, buf));
    CHECK(H5Sclose(memspace));
    CHECK(H5Sclose(filespace));
    free(buf);
}

static void check_grid(hid_t file, const char *when)
{
    long long n = GRID_ROWS * grid_cols();
    int *got = malloc((size_t)n * sizeof(int)), *want = malloc((size_t)n * sizeof(int));
    char what[96];
    hid_t dset;

    for (long long i = 0; i < n; i++) {
        got[i] = -1;
        want[i] = grid_value(i / grid_cols(), i % grid_cols());
    }
    CHECK(dset = H5Dopen2(file, "grid", H5P_DEFAULT));
    CHECK(H5Dread(dset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, got));
    CHECK(H5Dclose(dset));
    snprintf(what, sizeof(what), "dataset grid, %s", when);
    h5t_compare(what, got, want, n);
    free(got);
    free(want);
}

static hid_t create_dataset(hid_t file, const char *name, int rank, const hsize_t *dims)
{
    hid_t space, dset;

    CHECK(space = H5Screate_simple(rank, dims, NULL));
    CHECK(dset =
              H5Dcreate2(file, name, H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    CHECK(H5Sclose(space));
    return dset;
}

int main(int argc, char **argv)
{
    const char *path = h5t_init(&argc, &argv);
    hsize_t one_dims[1] = {NONE}, grid_dims[2] = {GRID_ROWS, (hsize_t)grid_cols()};
    hid_t fapl = h5t_fapl(MPI_COMM_WORLD), file, one, grid;
    MPI_Comm reversed;

    small_cache(fapl);
    CHECK(file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl));

    create_groups(file); /* 1 */
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    check_groups(file, "after the barrier");

    one = create_dataset(file, "one", 1, one_dims); /* 2 */
    grid = create_dataset(file, "grid", 2, grid_dims);
    write_one(one, h5t_nprocs - 1);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    check_one(file, h5t_nprocs - 1, "after the barrier");
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* every read done before the overwrite */
    write_one(one, 0);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    check_one(file, 0, "overwritten, after the barrier");

    write_grid(grid); /* 3 */
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    check_grid(file, "after the barrier");
    CHECK(H5Dclose(one));
    CHECK(H5Dclose(grid));
    CHECK(H5Fclose(file));
    CHECK(H5Pclose(fapl));

    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, h5t_nprocs - 1 - h5t_rank, &reversed));
    fapl = h5t_fapl(reversed);
    CHECK(file = H5Fopen(path, H5F_ACC_RDONLY, fapl));
    check_groups(file, "after reopening on another communicator");
    check_one(file, 0, "after reopening on another communicator");
    check_grid(file, "after reopening on another communicator");
    CHECK(H5Fclose(file));
    CHECK(H5Pclose(fapl));
    CHECK_MPI(MPI_Comm_free(&reversed));
    return h5t_finish(NULL);
}
