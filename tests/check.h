/* Minimal assertion helpers for fiacheck's C tests.
 * Each test binary ends with check_summary(), which prints the plain closing
 * line "N passed, N failed" and returns the exit code. */
#ifndef FIA_TESTS_CHECK_H
#define FIA_TESTS_CHECK_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int check_passed_, check_failed_;

#define CHECK(cond)                                                          \
    do {                                                                     \
        if (cond) {                                                          \
            check_passed_++;                                                 \
        } else {                                                             \
            check_failed_++;                                                 \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, \
                    #cond);                                                  \
        }                                                                    \
    } while (0)

#define CHECK_MSG(cond, ...)                                                 \
    do {                                                                     \
        if (cond) {                                                          \
            check_passed_++;                                                 \
        } else {                                                             \
            check_failed_++;                                                 \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, \
                    #cond);                                                  \
            fprintf(stderr, __VA_ARGS__);                                    \
            fputc('\n', stderr);                                             \
        }                                                                    \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                   \
    CHECK_MSG((long long)(a) == (long long)(b), "%lld != %lld",              \
              (long long)(a), (long long)(b))

#define CHECK_NEAR(a, b, eps)                                                \
    CHECK_MSG(fabs((double)(a) - (double)(b)) <= (eps), "%.17g vs %.17g",    \
              (double)(a), (double)(b))

static inline int check_summary(void)
{
    printf("%d passed, %d failed\n", check_passed_, check_failed_);
    return check_failed_ ? 1 : 0;
}

#endif
