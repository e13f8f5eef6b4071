/*
 * edonio unit tests: what every program of test/unit/ shares (header only). Define UNIT_GROUP
 * (the name its lines start with) before including it. Each case is a function run by run(): it
 * prints "PASS <group>/<case>" or "FAIL <group>/<case> (N checks failed)"; finish() prints
 * "N passed, N failed" and returns the exit status.
 */
#ifndef UNIT_TEST_H_INCLUDED
#define UNIT_TEST_H_INCLUDED

#include <stdio.h>

static int passed, failed, case_errors;

#define EXPECT(cond)                                                                               \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "  %s:%d: %s\n", __FILE__, __LINE__, #cond);                           \
            case_errors++;                                                                         \
        }                                                                                          \
    } while (0)

static inline void run(const char *name, void (*fn)(void))
{
    case_errors = 0;
    fn();
    if (case_errors == 0) {
        passed++;
        printf("PASS %s/%s\n", UNIT_GROUP, name);
    } else {
        failed++;
        printf("FAIL %s/%s (%d checks failed)\n", UNIT_GROUP, name, case_errors);
    }
}

static inline int finish(void)
{
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}

#endif /* UNIT_TEST_H_INCLUDED */
