/* cli/: the systems under test side by side, read from the store into one
 * model (systems.h): each system's revision and campaigns, its error-to-
 * bound ratios per bucket at that revision, its findings, and its speed
 * against fast/ where `bench --sut` stored figures. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fia/store_report.h"
#include "systems.h"

/* The figures of `bench --sut`: suite "sut-NAME", name "CALL vs fast". */
#define SUITE_PREFIX "sut-"
#define VS_FAST " vs fast"

/* v, or a copy with room for one more than n elements of sz bytes
 * (*cap grown), or NULL (v untouched). */
static void *grow(void *v, size_t n, size_t *cap, size_t sz)
{
    if (n < *cap)
        return v;
    size_t c = *cap ? 2 * *cap : 8;
    void *w = realloc(v, c * sz);
    if (w != NULL)
        *cap = c;
    return w;
}

/* out = a new zeroed last element of arr (n of them, capacity cap), or
 * NULL when out of memory (arr untouched). */
#define PUSH(arr, n, cap, out)                                              \
    do {                                                                    \
        void *w_ = grow((arr), (n), &(cap), sizeof *(arr));                 \
        (out) = NULL;                                                       \
        if (w_ == NULL)                                                     \
            break;                                                          \
        (arr) = w_;                                                         \
        (out) = &(arr)[(n)++];                                              \
        memset((out), 0, sizeof *(out));                                    \
    } while (0)

typedef struct loader {
    sy_model *m;
    size_t cap_sys, cap_b;
    size_t *cap_f, *cap_k, *cap_s;  /* per system */
    int nomem;
} loader;

/* The index of system name in m, -1 when it has none (a value, not an
 * error). */
static int find_system(const sy_model *m, const char *name)
{
    for (size_t i = 0; i < m->nsys; i++)
        if (strcmp(m->sys[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* The index of system name into *at, added (with nothing) when new:
 * FIA_OK or FIA_ERR_NOMEM. */
static fia_status system_at(loader *l, const char *name,
                            const char *revision, int *at)
{
    if ((*at = find_system(l->m, name)) >= 0)
        return FIA_OK;
    const size_t before = l->cap_sys;
    sy_system *y;
    PUSH(l->m->sys, l->m->nsys, l->cap_sys, y);
    if (y == NULL)
        return FIA_ERR_NOMEM;
    if (l->cap_sys != before) {
        size_t **caps[3] = {&l->cap_f, &l->cap_k, &l->cap_s};
        for (int k = 0; k < 3; k++) {
            size_t *c = realloc(*caps[k], l->cap_sys * sizeof *c);
            if (c == NULL) {
                l->m->nsys--;
                return FIA_ERR_NOMEM;
            }
            *caps[k] = c;
        }
    }
    const size_t k = l->m->nsys - 1;
    l->cap_f[k] = l->cap_k[k] = l->cap_s[k] = 0;
    y->name = strdup(name);
    y->revision = strdup(revision);
    if (y->name == NULL || y->revision == NULL)
        return FIA_ERR_NOMEM;
    *at = (int)k;
    return FIA_OK;
}

static int system_cb(const fia_store_system *x, void *ctx)
{
    loader *l = ctx;
    int i;
    if (system_at(l, x->sut, x->revision, &i) != FIA_OK) {
        l->nomem = 1;
        return 1;
    }
    sy_system *y = &l->m->sys[i];
    y->campaigns = x->campaigns;
    y->revisions = x->revisions;
    y->execs = x->execs;
    return 0;
}

static sy_stats stats_of(const fia_store_system_ratio *r)
{
    return (sy_stats){r->cases, r->p50, r->p90, r->p99, r->max,
                      r->above_one};
}

/* The bucket named name, added when new (its stats empty); NULL nomem. */
static sy_bucket *bucket_at(loader *l, const char *name)
{
    sy_model *m = l->m;
    for (size_t i = 0; i < m->nb; i++)
        if (strcmp(m->b[i].name, name) == 0)
            return &m->b[i];
    sy_bucket *b;
    PUSH(m->b, m->nb, l->cap_b, b);
    if (b == NULL)
        return NULL;
    b->name = strdup(name);
    b->by = calloc(m->nsys ? m->nsys : 1, sizeof *b->by);
    return b->name && b->by ? b : NULL;
}

static int ratio_cb(const fia_store_system_ratio *r, void *ctx)
{
    loader *l = ctx;
    const int i = find_system(l->m, r->sut);
    if (i < 0) /* listed by the systems query a moment ago: cannot be */
        return 0;
    if (strcmp(r->bucket, "*") == 0) {
        l->m->sys[i].all = stats_of(r);
        return 0;
    }
    sy_bucket *b = bucket_at(l, r->bucket);
    if (b == NULL) {
        l->nomem = 1;
        return 1;
    }
    b->by[i] = stats_of(r);
    if (b->systems++ == 0 || r->max > b->worst)
        b->worst = r->max;
    return 0;
}

static int common_cb(const fia_store_system_ratio *r, void *ctx)
{
    loader *l = ctx;
    const int i = find_system(l->m, r->sut);
    if (i >= 0 && strcmp(r->bucket, "*") == 0)
        l->m->sys[i].common = stats_of(r);
    return 0;
}

static int finding_cb(const fia_store_finding *x, void *ctx)
{
    loader *l = ctx;
    int i;
    if (system_at(l, x->sut, "", &i) != FIA_OK) {
        l->nomem = 1;
        return 1;
    }
    sy_system *y = &l->m->sys[i];
    sy_finding *f;
    PUSH(y->findings, y->nfindings, l->cap_f[i], f);
    if (f == NULL) {
        l->nomem = 1;
        return 1;
    }
    f->id = x->id;
    f->kind = strdup(x->kind);
    f->state = strdup(x->state);
    f->signature = strdup(x->signature);
    size_t k = 0;
    while (k < y->nkinds && strcmp(y->kinds[k].kind, x->kind) != 0)
        k++;
    if (k == y->nkinds) {
        sy_kind *n;
        PUSH(y->kinds, y->nkinds, l->cap_k[i], n);
        if (n == NULL || (n->kind = strdup(x->kind)) == NULL) {
            l->nomem = 1;
            return 1;
        }
    }
    y->kinds[k].n++;
    if (f->kind == NULL || f->state == NULL || f->signature == NULL) {
        l->nomem = 1;
        return 1;
    }
    return 0;
}

static int bench_cb(const fia_store_bench_point *p, void *ctx)
{
    loader *l = ctx;
    const size_t pre = strlen(SUITE_PREFIX), vs = strlen(VS_FAST);
    const size_t len = strlen(p->name);
    if (strncmp(p->suite, SUITE_PREFIX, pre) != 0 || p->suite[pre] == '\0' ||
        len <= vs || strcmp(p->name + len - vs, VS_FAST) != 0)
        return 0;
    int i;
    if (system_at(l, p->suite + pre, "", &i) != FIA_OK) {
        l->nomem = 1;
        return 1;
    }
    sy_system *y = &l->m->sys[i];
    /* the points of one figure come in revision order: the last wins */
    sy_speed *s = NULL;
    for (size_t k = 0; k < y->nspeed && s == NULL; k++)
        if (strcmp(y->speed[k].machine, p->machine) == 0 &&
            strncmp(y->speed[k].call, p->name, len - vs) == 0 &&
            y->speed[k].call[len - vs] == '\0')
            s = &y->speed[k];
    if (s == NULL) {
        PUSH(y->speed, y->nspeed, l->cap_s[i], s);
        if (s == NULL || (s->call = strndup(p->name, len - vs)) == NULL ||
            (s->machine = strdup(p->machine)) == NULL) {
            l->nomem = 1;
            return 1;
        }
    }
    free(s->revision);
    if ((s->revision = strdup(p->revision)) == NULL) {
        l->nomem = 1;
        return 1;
    }
    s->runs = p->runs;
    s->ratio = p->median;
    return 0;
}

static int by_coverage(const void *a, const void *b)
{
    const sy_bucket *x = a, *y = b;
    if (x->systems != y->systems)
        return x->systems < y->systems ? 1 : -1;
    if (x->worst != y->worst)
        return x->worst < y->worst ? 1 : -1;
    return strcmp(x->name, y->name);
}

static int by_kind(const void *a, const void *b)
{
    return strcmp(((const sy_kind *)a)->kind, ((const sy_kind *)b)->kind);
}

/* Systems added after the ratios (known from findings or benchmarks only)
 * get empty stats in every bucket: FIA_OK or FIA_ERR_NOMEM. */
static fia_status widen_buckets(sy_model *m, size_t had)
{
    for (size_t i = 0; had < m->nsys && i < m->nb; i++) {
        sy_stats *by = realloc(m->b[i].by, m->nsys * sizeof *by);
        if (by == NULL)
            return FIA_ERR_NOMEM;
        memset(by + had, 0, (m->nsys - had) * sizeof *by);
        m->b[i].by = by;
    }
    return FIA_OK;
}

fia_status sy_load(fia_store *s, sy_model *m)
{
    memset(m, 0, sizeof *m);
    loader l = {m, 0, 0, NULL, NULL, NULL, 0};
    fia_status rc = fia_store_report_systems(s, system_cb, &l);
    /* the buckets' arrays are sized by the systems listed so far */
    const size_t listed = m->nsys;
    if (rc == FIA_OK && !l.nomem)
        rc = fia_store_report_system_ratios(s, ratio_cb, &l);
    if (rc == FIA_OK && !l.nomem)
        rc = fia_store_report_system_common(s, common_cb, &l);
    if (rc == FIA_OK && !l.nomem)
        rc = fia_store_list_findings(s, NULL, finding_cb, &l);
    if (rc == FIA_OK && !l.nomem)
        rc = fia_store_report_bench(s, bench_cb, &l);
    free(l.cap_f), free(l.cap_k), free(l.cap_s);
    if (rc == FIA_OK && l.nomem)
        rc = FIA_ERR_NOMEM;
    if (rc == FIA_OK)
        rc = widen_buckets(m, listed);
    if (rc == FIA_OK && m->nb > 1)
        qsort(m->b, m->nb, sizeof *m->b, by_coverage);
    for (size_t i = 0; rc == FIA_OK && i < m->nsys; i++)
        if (m->sys[i].nkinds > 1)
            qsort(m->sys[i].kinds, m->sys[i].nkinds, sizeof *m->sys[i].kinds,
                  by_kind);
    return rc;
}

void sy_free(sy_model *m)
{
    for (size_t i = 0; i < m->nsys; i++) {
        sy_system *y = &m->sys[i];
        for (size_t k = 0; k < y->nfindings; k++) {
            free(y->findings[k].kind), free(y->findings[k].state);
            free(y->findings[k].signature);
        }
        for (size_t k = 0; k < y->nkinds; k++)
            free(y->kinds[k].kind);
        for (size_t k = 0; k < y->nspeed; k++) {
            free(y->speed[k].call), free(y->speed[k].machine);
            free(y->speed[k].revision);
        }
        free(y->findings), free(y->kinds), free(y->speed);
        free(y->name), free(y->revision);
    }
    for (size_t i = 0; i < m->nb; i++)
        free(m->b[i].name), free(m->b[i].by);
    free(m->sys), free(m->b);
    memset(m, 0, sizeof *m);
}

void sy_kinds_text(const sy_system *y, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < y->nkinds && len < n; k++) {
        int w = snprintf(buf + len, n - len, "%s%lld %s", k ? ", " : "",
                         (long long)y->kinds[k].n, y->kinds[k].kind);
        if (w < 0)
            break;
        len += (size_t)w;
    }
    if (y->nkinds == 0)
        snprintf(buf, n, "none");
}

size_t sy_sampled(const sy_model *m)
{
    size_t n = 0;
    for (size_t i = 0; i < m->nsys; i++)
        n += m->sys[i].all.cases > 0;
    return n;
}
