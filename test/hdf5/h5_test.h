/*
 * What the HDF5 test programs of test/hdf5/ share (header only), apart from h5_hyperslab, which
 * came first.
 *
 * The file name is the only argument. Errors in the data are counted on each process and summed;
 * rank 0 prints " No Errors" or " Found N errors", or " SKIP reason" when the program cannot test
 * what it means to here; the exit status is non-zero on error. A failing HDF5 or MPI call aborts
 * the job: a collective call failing on one rank would otherwise leave the others waiting.
 */
#ifndef H5_TEST_H_INCLUDED
#define H5_TEST_H_INCLUDED

#include <hdf5.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(expr)                                                                                \
    do {                                                                                           \
        if ((expr) < 0) {                                                                          \
            fprintf(stderr, "rank %d: %s:%d: %s failed\n", h5t_rank, __FILE__, __LINE__, #expr);   \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                          \
        }                                                                                          \
    } while (0)
#define CHECK_MPI(expr) CHECK((expr) == MPI_SUCCESS ? 0 : -1)

static int h5t_rank, h5t_nprocs, h5t_shown;
static long long h5t_errors;

/* Count an error on this process and say what it is (the first few only). */
static inline void h5t_error(const char *fmt, ...)
{
    va_list ap;

    h5t_errors++;
    if (h5t_shown++ >= 10)
        return;
    fprintf(stderr, "rank %d: ", h5t_rank);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    fflush(stderr);
}

/* MPI_Init, the rank and size; the file name, or an exit with usage. */
static inline const char *h5t_init(int *argc, char ***argv)
{
    CHECK_MPI(MPI_Init(argc, argv));
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &h5t_rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &h5t_nprocs));
    if (*argc != 2) {
        if (h5t_rank == 0)
            fprintf(stderr, "usage: %s FILE\n", (*argv)[0]);
        MPI_Finalize();
        exit(2);
    }
    return (*argv)[1];
}

/* A file access list for MPI-IO on comm, with HDF5's defaults otherwise (independent metadata). */
static inline hid_t h5t_fapl(MPI_Comm comm)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);

    CHECK(fapl);
    CHECK(H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL));
    return fapl;
}

/* Check ints got[0..n) against want[0..n); count and report the first mismatch. */
static inline void h5t_compare(const char *what, const int *got, const int *want, long long n)
{
    long long bad = 0, first = -1;

    for (long long i = 0; i < n; i++)
        if (got[i] != want[i]) {
            if (first < 0)
                first = i;
            bad++;
        }
    if (bad) {
        h5t_error("%s: %lld of %lld values wrong; the first, [%lld], is %d, expected %d", what, bad,
                  n, first, got[first], want[first]);
        h5t_errors += bad - 1;
    }
}

/* Sum the errors, report on rank 0 (a SKIP when skip is not NULL), finalize; the exit status. */
static inline int h5t_finish(const char *skip)
{
    long long total = 0;

    CHECK_MPI(MPI_Allreduce(&h5t_errors, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
    if (h5t_rank == 0) {
        if (total != 0)
            printf(" Found %lld errors\n", total);
        else if (skip != NULL)
            printf(" SKIP %s\n", skip);
        else
            printf(" No Errors\n");
        fflush(stdout);
    }
    CHECK_MPI(MPI_Finalize());
    return total != 0;
}

#endif /* H5_TEST_H_INCLUDED */
