/* Run-time choice of the micro-kernel table: the best level the CPU
 * supports (cpuid through __builtin_cpu_supports), or a level forced by
 * FIA_FAST_ISA=scalar|avx2|avx512 (settings.c) or by fast_force_isa()
 * (tests). */
#include <stdatomic.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif
#include <stdlib.h>
#include <string.h>
#include "../fast_internal.h"

/* A table is its name and one pointer per operation of FAST_KERNEL_LIST:
 * a field added to fast_kernels without its line in the list (which the
 * tables, their test and the kernel bench are made from) stops the build
 * here. */
_Static_assert(sizeof(fast_kernels) ==
                   sizeof(const char *) +
                       FAST_KERNEL_COUNT * sizeof(fast_qk_t_fn *),
               "fast_kernels has a field FAST_KERNEL_LIST does not name");

static const char *const isa_names[FAST_ISA_COUNT] = {"scalar", "avx2",
                                                      "avx512"};

const char *fast_isa_name(fast_isa isa)
{
    return isa >= 0 && isa < FAST_ISA_COUNT ? isa_names[isa] : "auto";
}

#if defined(__x86_64__) && defined(__GNUC__)
/* F16C (not every compiler's __builtin_cpu_supports knows it): cpuid 1,
 * ecx bit 29; the OS saving AVX state is part of the avx2 check. */
static bool has_f16c(void)
{
    unsigned a, b, c, d;
    return __get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 29)) != 0;
}
#endif

static bool supported(fast_isa isa)
{
    switch (isa) {
    case FAST_ISA_SCALAR:
        return true;
#if defined(__x86_64__) && defined(__GNUC__)
    case FAST_ISA_AVX2:
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") &&
               __builtin_cpu_supports("fma") &&
               has_f16c();
    case FAST_ISA_AVX512:
        __builtin_cpu_init();
        return supported(FAST_ISA_AVX2) &&
               __builtin_cpu_supports("avx512f") &&
               __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512vl") &&
               __builtin_cpu_supports("avx512dq");
#endif
    default:
        return false;
    }
}

const fast_kernels *fast_kernels_for(fast_isa isa)
{
    if (!supported(isa))
        return NULL;
    switch (isa) {
    case FAST_ISA_SCALAR: return &fast_kernels_scalar;
#if defined(__x86_64__)
    case FAST_ISA_AVX2: return &fast_kernels_avx2;
    case FAST_ISA_AVX512: return &fast_kernels_avx512;
#endif
    default: return NULL;
    }
}

/* The chosen table; NULL until the first select or force. */
static _Atomic(const fast_kernels *) chosen;

static const fast_kernels *best_up_to(int isa)
{
    for (; isa > 0; isa--)
        if (fast_kernels_for((fast_isa)isa) != NULL)
            return fast_kernels_for((fast_isa)isa);
    return &fast_kernels_scalar;
}

const fast_kernels *fast_kernels_select(void)
{
    const fast_kernels *k = atomic_load(&chosen);
    if (k != NULL)
        return k;
    /* FIA_FAST_ISA caps the level (invalid: automatic, and
     * fastConfigError says so) */
    int top = fast_isa_setting();
    k = best_up_to(top >= 0 && top < FAST_ISA_COUNT ? top : FAST_ISA_COUNT - 1);
    const fast_kernels *expected = NULL;
    if (!atomic_compare_exchange_strong(&chosen, &expected, k))
        k = expected; /* another thread chose first: same answer */
    return k;
}

bool fast_force_isa(fast_isa isa)
{
    if (isa == FAST_ISA_COUNT) { /* back to automatic (environment) */
        atomic_store(&chosen, NULL);
        return true;
    }
    const fast_kernels *k = fast_kernels_for(isa);
    if (k == NULL)
        return false;
    atomic_store(&chosen, k);
    return true;
}

/* ---- the public face (fia/fast.h) -------------------------------------- */
const char *fastKernelLevel(void)
{
    return fast_kernels_select()->name;
}

int fastKernelLevelAvailable(const char *name)
{
    for (int i = 0; name != NULL && i < FAST_ISA_COUNT; i++)
        if (strcmp(name, isa_names[i]) == 0)
            return fast_kernels_for((fast_isa)i) != NULL;
    return 0;
}

int fastForceKernelLevel(const char *name)
{
    if (name == NULL)
        return -1;
    if (strcmp(name, "auto") == 0)
        return fast_force_isa(FAST_ISA_COUNT) ? 0 : -1;
    for (int i = 0; i < FAST_ISA_COUNT; i++)
        if (strcmp(name, isa_names[i]) == 0)
            return fast_force_isa((fast_isa)i) ? 0 : -1;
    return -1;
}
