/* A plug-in that misbehaves on purpose, for the tests of a system under
 * test that cannot take the harness down (tests/cli/sut_isolate.sh).
 *
 * It passes every call to the plug-in MISBEHAVE_INNER names (fast/'s, so
 * the calls it does not spoil are judged as fast/'s) and spoils phase
 * two of the calls whose scale is one of the values below: it hangs,
 * dies of SIGSEGV in one of two functions (two bugs, two crash sites),
 * calls exit(0) (a plug-in that ends the process "successfully") or
 * abort(), or refuses it saying the run settings it was given (which
 * reach fast/ through its set_option).  MISBEHAVE_ALWAYS=MODE spoils every computed call so, for a
 * campaign; MISBEHAVE_STATUS=CODE makes phase one refuse every call with
 * that status.  It links nothing of fiacheck's. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fia/sut.h"

typedef enum mode { M_NONE, M_HANG, M_SEGV_GATHER, M_SEGV_REDUCE, M_EXIT0,
                    M_ABORT, M_SAY_SETTINGS } mode;

static const struct { double scale; const char *name; mode m; } modes[] = {
    {0.0101, "hang", M_HANG},     {0.0202, "segv-gather", M_SEGV_GATHER},
    {0.0303, "exit0", M_EXIT0},   {0.0404, "abort", M_ABORT},
    {0.0505, "segv-reduce", M_SEGV_REDUCE},
    {0.0606, "say-settings", M_SAY_SETTINGS}};

static const fia_sut *inner;
static char inner_error[256];
static int said; /* the last call's error is inner_error */

typedef struct call {
    void *inner_executor;
    mode m;
} call;

static mode mode_of(double scale)
{
    const char *always = getenv("MISBEHAVE_ALWAYS");
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if ((always != NULL && strcmp(always, modes[i].name) == 0) ||
            fabs(scale - modes[i].scale) < 1e-9)
            return modes[i].m;
    return M_NONE;
}

/* Two functions that crash, each its own frame (noinline), so that the
 * crash site names which one did. */
volatile int *volatile misbehave_null;

__attribute__((noinline)) void misbehave_crash_in_gather(int k)
{
    misbehave_null[k] = 1;
    __asm__ volatile("" ::: "memory"); /* not a tail call */
}

__attribute__((noinline)) void misbehave_crash_in_reduce(int k)
{
    misbehave_null[k + 1] = 2;
    __asm__ volatile("" ::: "memory");
}

static void misbehave(mode m)
{
    switch (m) {
    case M_HANG:
        for (;;)
            pause();
    case M_SEGV_GATHER:
        misbehave_crash_in_gather(3);
        break;
    case M_SEGV_REDUCE:
        misbehave_crash_in_reduce(5);
        break;
    case M_EXIT0:
        exit(0);
    case M_ABORT:
        abort();
    case M_SAY_SETTINGS: /* run answers it */
    case M_NONE:
        break;
    }
}

static fia_status gws(const fia_sut_args *a, uint64_t *ws, void **executor)
{
    const char *refuse = getenv("MISBEHAVE_STATUS");
    *executor = NULL;
    if (refuse != NULL && *refuse) {
        said = 1;
        snprintf(inner_error, sizeof inner_error, "refused as told");
        return (fia_status)atoi(refuse);
    }
    call *c = malloc(sizeof *c);
    if (c == NULL)
        return FIA_ERR_NOMEM;
    fia_status st = inner->get_workspace_size(a, ws, &c->inner_executor);
    if (st != FIA_OK) {
        free(c);
        return st;
    }
    c->m = mode_of(a->scale);
    *executor = c;
    return FIA_OK;
}

static fia_status run(void *ws, uint64_t ws_size, void *executor)
{
    call *c = executor;
    if (c->m == M_SAY_SETTINGS) {
        const char *lv = inner->get_option ? inner->get_option("kernel_level")
                                           : NULL;
        const char *th = inner->get_option ? inner->get_option("threads")
                                           : NULL;
        snprintf(inner_error, sizeof inner_error, "settings: kernel_level %s "
                 "threads %s", lv ? lv : "-", th ? th : "-");
        said = 1;
        inner->destroy(c->inner_executor);
        free(c);
        return FIA_ERR_INNER_TILING_ERROR;
    }
    said = 0;
    misbehave(c->m);
    fia_status st = inner->run(ws, ws_size, c->inner_executor);
    free(c);
    return st;
}

static void destroy(void *executor)
{
    call *c = executor;
    inner->destroy(c->inner_executor);
    free(c);
}

static const char *last_error(void)
{
    const char *refuse = getenv("MISBEHAVE_STATUS");
    return inner != NULL && !said && !(refuse != NULL && *refuse)
               ? inner->last_error() : inner_error;
}

static int set_option(const char *name, const char *value)
{
    return inner->set_option(name, value);
}

static const char *get_option(const char *name)
{
    return inner->get_option(name);
}

static fia_sut table = {
    .abi_version = FIA_SUT_ABI_VERSION,
    .name = "misbehave",
    .version = "1.0",
    .get_workspace_size = gws,
    .run = run,
    .destroy = destroy,
    .last_error = last_error,
};

__attribute__((visibility("default"))) const fia_sut *fiacheck_sut_v1(void);

const fia_sut *fiacheck_sut_v1(void)
{
    if (inner != NULL)
        return &table;
    const char *path = getenv("MISBEHAVE_INNER");
    void *h = path != NULL ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
    void *sym = h != NULL ? dlsym(h, FIA_SUT_ENTRY_NAME) : NULL;
    if (sym == NULL) {
        fprintf(stderr, "misbehave: MISBEHAVE_INNER=%s: %s\n",
                path ? path : "(unset)", h ? "no entry point" : path ? dlerror() : "unset");
        return NULL;
    }
    fia_sut_entry_fn entry;
    memcpy(&entry, &sym, sizeof entry);
    inner = entry();
    if (inner == NULL)
        return NULL;
    table.validates = inner->validates;
    if (inner->set_option != NULL) { /* fast/'s run settings, passed on */
        table.set_option = set_option;
        table.get_option = get_option;
    }
    return &table;
}
