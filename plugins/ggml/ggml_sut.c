/* llama.cpp's CPU flash attention, ggml_flash_attn_ext, as a numbers-only
 * fiacheck plug-in (include/fia/sut.h, validates = 0).  ggml_plan.h says
 * how a call maps onto it, ggml_read.c what is covered, docs/sut/ggml.md
 * the table of features.
 *
 * ggml is built from the source that the npm package node-llama-cpp
 * bundles (scripts/thirdparty.sh) and linked in statically: the version
 * names ggml's own version and commit and the package.  Threads: ggml's
 * own pool, FIACHECK_GGML_THREADS (1..16, default 2, this machine's
 * cores); the split of a long decode over threads depends on it, so a
 * finding's case records nothing of it and repro uses the same default.
 * FIACHECK_GGML_WIDEN_KV=1 is a triage variant (ggml_plan.h), another
 * version of the system. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ggml-cpu.h"
#include "ggml.h"
#include "ggml_plan.h"

#ifndef GGML_SUT_VERSION
#define GGML_SUT_VERSION "1.1"
#endif

static _Thread_local char last_error[320];

fia_status ggml_sut_fail(fia_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return st;
}

static int thread_count(void)
{
    const char *e = getenv("FIACHECK_GGML_THREADS");
    if (e == NULL || *e == '\0')
        return 2;
    char *end;
    long n = strtol(e, &end, 10);
    return *end == '\0' && n >= 1 && n <= 16 ? (int)n : -1;
}

static int widen_kv(void)
{
    const char *e = getenv("FIACHECK_GGML_WIDEN_KV");
    return e != NULL && strcmp(e, "1") == 0;
}

static fia_status prepare(const fia_sut_args *a, uint64_t *ws,
                          void **executor)
{
    *executor = NULL;
    *ws = 0;
    last_error[0] = '\0';
    if (a->size < sizeof *a)
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "an older fiacheck");
    ggml_plan *p = calloc(1, sizeof *p);
    if (p == NULL)
        return ggml_sut_fail(FIA_ERR_RUNTIME_ERROR, "out of memory");
    p->threads = thread_count();
    p->widen_kv = widen_kv();
    fia_status st = p->threads > 0
                        ? ggml_read_call(a, p)
                        : ggml_sut_fail(FIA_ERR_RUNTIME_ERROR,
                                        "FIACHECK_GGML_THREADS: 1..16");
    if (st != FIA_OK) {
        ggml_plan_free(p);
        return st;
    }
    *executor = p;
    return FIA_OK;
}

static fia_status run(void *ws, uint64_t ws_size, void *executor)
{
    (void)ws, (void)ws_size;
    ggml_plan *p = executor;
    if (p == NULL)
        return ggml_sut_fail(FIA_ERR_RUNTIME_ERROR, "no executor");
    fia_status st = ggml_execute(p);
    ggml_plan_free(p);
    return st;
}

static void destroy(void *executor)
{
    ggml_plan_free(executor);
}

static const char *error_text(void)
{
    return last_error;
}

static char version[128];

static fia_sut table = {
    .abi_version = FIA_SUT_ABI_VERSION,
    .name = "ggml",
    .version = version,
    .validates = 0, /* numbers only */
    .get_workspace_size = prepare,
    .run = run,
    .destroy = destroy,
    .last_error = error_text,
};

__attribute__((visibility("default"))) const fia_sut *fiacheck_sut_v1(void);

/* The version names the mapping and ggml's version and commit (the npm
 * package is pinned in scripts/thirdparty.sh): a campaign against another ggml is another
 * revision. */
const fia_sut *fiacheck_sut_v1(void)
{
    ggml_cpu_init();
    snprintf(version, sizeof version, "%s+ggml%s-%s%s", GGML_SUT_VERSION,
             ggml_version(), ggml_commit(), widen_kv() ? "+kvf32" : "");
    return &table;
}
