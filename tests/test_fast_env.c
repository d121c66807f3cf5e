/* fast/'s settings from the environment (fast/settings.c): FIA_FAST_ISA and
 * FIA_FAST_THREADS that name nothing are reported by fastConfigError()
 * instead of being dropped in silence; valid ones take effect. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fia/fast.h"

/* fastConfigError() under FIA_FAST_ISA=isa, FIA_FAST_THREADS=threads (NULL:
 * unset); the kernel choice made again under them. */
static const char *config(const char *isa, const char *threads)
{
    if (isa) setenv("FIA_FAST_ISA", isa, 1); else unsetenv("FIA_FAST_ISA");
    if (threads) setenv("FIA_FAST_THREADS", threads, 1);
    else unsetenv("FIA_FAST_THREADS");
    fastForceKernelLevel("auto");
    return fastConfigError();
}

static int mentions(const char *msg, const char *a, const char *b)
{
    return msg != NULL && strstr(msg, a) != NULL && strstr(msg, b) != NULL;
}

int main(void)
{
    /* unset, empty, valid (level names in any case, auto) */
    CHECK(config(NULL, NULL) == NULL);
    CHECK_EQ_INT(fastThreadCount(), 2);
    const char *best = fastKernelLevel();
    CHECK(config("", "") == NULL);
    CHECK_EQ_INT(fastThreadCount(), 2);
    CHECK(config("scalar", "1") == NULL);
    CHECK(strcmp(fastKernelLevel(), "scalar") == 0);
    CHECK_EQ_INT(fastThreadCount(), 1);
    CHECK(config("SCALAR", "16") == NULL);
    CHECK(strcmp(fastKernelLevel(), "scalar") == 0);
    CHECK_EQ_INT(fastThreadCount(), 16);
    CHECK(config("AVX2", "7") == NULL);
    CHECK(strcmp(fastKernelLevel(), "avx512") != 0);
    CHECK_EQ_INT(fastThreadCount(), 7);
    CHECK(config("auto", NULL) == NULL);
    CHECK(strcmp(fastKernelLevel(), best) == 0);

    /* invalid: said, naming the variable, the value and the valid values;
     * fast/ itself runs with the automatic level and 2 threads */
    const char *m = config("bogus", NULL);
    CHECK(mentions(m, "FIA_FAST_ISA", "bogus"));
    CHECK(mentions(m, "scalar, avx2, avx512", "auto"));
    CHECK(strcmp(fastKernelLevel(), best) == 0);
    CHECK(mentions(config("avx", NULL), "FIA_FAST_ISA", "avx"));
    CHECK(mentions(config("scalar ", NULL), "FIA_FAST_ISA", "scalar "));
    static const char *const bad_threads[] = {"abc", "0", "99", "17", "-1",
                                              "4x", " 4", "+4", "1e1"};
    for (size_t i = 0; i < sizeof bad_threads / sizeof bad_threads[0]; i++) {
        m = config(NULL, bad_threads[i]);
        CHECK_MSG(mentions(m, "FIA_FAST_THREADS", "1..16"), "'%s'",
                  bad_threads[i]);
        CHECK_EQ_INT(fastThreadCount(), 2);
    }
    /* both wrong: the level is said first */
    CHECK(mentions(config("x", "0"), "FIA_FAST_ISA", "'x'"));
    config(NULL, NULL);
    return check_summary();
}
