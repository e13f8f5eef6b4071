/*
 * edonio legacy API tests: what the C test programs share (header only). Errors are counted on
 * each process (errs) with the failing line, the condition and errno.
 */
#ifndef LEGACY_TEST_H_INCLUDED
#define LEGACY_TEST_H_INCLUDED

#include <errno.h>
#include <stdio.h>
#include <string.h>

static int errs, rank, nprocs;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            errs++;                                                                                \
            fprintf(stderr, "[%d] line %d: failed: %s (errno %d %s)\n", rank, __LINE__, #cond,    \
                    errno, strerror(errno));                                                       \
        }                                                                                          \
    } while (0)

/* The call returns -1 with this errno. */
#define FAILS(call, e)                                                                             \
    do {                                                                                           \
        errno = 0;                                                                                 \
        CHECK((call) == -1 && errno == (e));                                                       \
    } while (0)

#endif /* LEGACY_TEST_H_INCLUDED */
