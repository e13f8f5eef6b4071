/*
 * edonio's test programs (test/edonio/): CHECK counts a failed condition and says which rank saw
 * it; check_verdict() sums the failures over MPI_COMM_WORLD and prints the line ROMIO's tests end
 * with, " No Errors" or " Found N errors", which test/lib.sh's run_mpi looks for. The including
 * program sets rank.
 */
#ifndef EDONIO_CHECK_H
#define EDONIO_CHECK_H

#include <mpi.h>
#include <stdio.h>

static int rank, errors;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "rank %d: ", rank);                                                    \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

/* Collective: 0 when no process failed a check, else 1 (the exit status). */
static int check_verdict(void)
{
    int total;

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(total == 0 ? " No Errors\n" : " Found %d errors\n", total);
    return total != 0;
}

#endif
