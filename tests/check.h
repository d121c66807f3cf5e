/* Minimal assertion helpers for fiacheck's C tests.
 * Each test binary ends with check_summary(), which prints the plain closing
 * line "N passed, N failed" and returns the exit code. */
#ifndef FIA_TESTS_CHECK_H
#define FIA_TESTS_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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

/* Sampled runs.  A test over many random draws (the fuzz generators'
 * tests) makes check_draws(n) of them: n, or one in k of them where the
 * environment has FIA_TEST_DRAWS_DIVISOR=k (the sanitizer build sets 4:
 * it is there for the memory handling of the code the draws run, and
 * these tests' draws are a third of its time; CMakeLists.txt).  A check
 * of how often the draws gave something is a CHECK_COUNT: asserted over
 * the full draws only.  The draws, and so the counts, are the same in
 * every build, and the gcc build makes them all. */
static int check_counts_sampled_;

static inline int check_draw_divisor(void)
{
    const char *e = getenv("FIA_TEST_DRAWS_DIVISOR");
    const int k = e != NULL ? atoi(e) : 1;
    return k > 1 ? k : 1;
}

static inline int check_draws(int n) { return n / check_draw_divisor(); }

#define CHECK_COUNT(cond) CHECK_COUNT_MSG(cond, "%s", "")

#define CHECK_COUNT_MSG(cond, ...)                                           \
    do {                                                                     \
        if (check_draw_divisor() == 1)                                       \
            CHECK_MSG(cond, __VA_ARGS__);                                    \
        else                                                                 \
            check_counts_sampled_++;                                         \
    } while (0)

static inline int check_summary(void)
{
    if (check_counts_sampled_ > 0)
        printf("(a sampled run, one draw in %d: %d checks of counts left "
               "to the full run)\n", check_draw_divisor(),
               check_counts_sampled_);
    printf("%d passed, %d failed\n", check_passed_, check_failed_);
    return check_failed_ ? 1 : 0;
}

#endif
