/* store/: "what got worse from base to head" — new and reopened findings,
 * and accuracy buckets whose error-to-bound ratios grew beyond noise.
 *
 * Why a test and not a comparison of maxima: a campaign's maximum only
 * grows with the number of cases, so two campaigns of the same binary
 * differ by chance, and more so in small buckets.  The ratio
 * |got - exact| / (bound + ulp/2) (docs/tolerance.md) puts every element
 * on the same scale (1 = at the bound), so near-zero outputs with large
 * ULP counts but tiny bounds do not dominate.
 *
 * Paired, by default.  Two fuzz campaigns do not draw their cases from one
 * distribution: each is steered by its own coverage feedback, so the cases
 * of one bucket differ between two runs of the same binary, and a test of
 * two samples (below) reported 4 of 33 buckets "worse" on such a pair.
 * What is comparable is the same case at both revisions: samples carry the
 * case's digest (fia_case_digest), cases run at both revisions are paired
 * (`fiacheck survey` runs one fixed stream of cases; a fuzz campaign's seed
 * corpus is run by every campaign), and per bucket an exact one-sided sign
 * test asks whether head is worse on more of the pairs that changed than
 * chance allows:
 *
 *   w = pairs where head's ratio > base's, b = pairs where it is smaller,
 *   p = P(X >= w) for X ~ Binomial(w + b, 1/2)    (p = 1 when w + b = 0)
 *
 * The same binary twice gives identical ratios (fast/ is deterministic for
 * a given kernel level and thread count, which the case records), w = b =
 * 0, nothing to report.  The effect A = (w + ties/2) / pairs must also
 * reach min_effect.
 *
 * Unpaired, on request (--unpaired): per bucket the two samples of per-case
 * ratios are compared with a one-sided Mann-Whitney U test:
 *
 *   U = R_head - n_h (n_h + 1) / 2     (R_head: rank sum of head, ties
 *                                       given their mean rank)
 *   E[U] = n_b n_h / 2,  Var[U] = n_b n_h / 12 · (N + 1 - Σ(t³ - t) /
 *                                 (N (N - 1)))   (t: tie group sizes)
 *   z = (U - E[U] - 1/2) / sqrt(Var[U]),   p = P(Z >= z)
 *
 * with A = U / (n_b n_h) = P(head > base) + P(tie)/2.  It assumes
 * independent samples of one distribution, which fuzz campaigns are not.
 *
 * Either test is rejected at alpha / m over the m buckets compared
 * (Bonferroni: the chance of any false alarm in the run stays <= alpha),
 * and a significant but tiny shift (a huge sample makes everything
 * significant) is not a regression: A must reach min_effect. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "store_int.h"

void fia_store_regress_options_default(fia_store_regress_options *o)
{
    o->alpha = 0.01;
    o->min_cases = 30;
    o->min_effect = 0.56;
    o->unpaired = 0;
}

/* ---- findings ---------------------------------------------------------- */

typedef struct reg_ctx {
    int kind;
    int (*cb)(const fia_store_regression *r, void *ctx);
    void *ctx;
    int64_t n;
    int stop;
} reg_ctx;

static int revision_known(fia_store *s, const char *rev)
{
    sqlite3_stmt *st = store_prepare(
        s, "SELECT EXISTS (SELECT 1 FROM campaigns WHERE revision = ?1)"
           " OR EXISTS (SELECT 1 FROM sightings WHERE revision = ?1)"
           " OR EXISTS (SELECT 1 FROM bench_figures WHERE revision = ?1)");
    if (st == NULL)
        return FIA_ERR_IO;
    store_bind_text(st, 1, rev);
    int rc = store_step(s, st);
    if (rc == SQLITE_ROW)
        rc = sqlite3_column_int(st, 0)
                 ? FIA_OK
                 : store_fail(s, FIA_ERR_NOT_FOUND,
                              "no campaign, finding or benchmark run recorded at revision "
                              "'%s'", rev);
    else
        rc = store_sqlfail(s, rc, "looking up a revision");
    sqlite3_finalize(st);
    return rc;
}

/* The systems under test whose campaigns ran at rev, sorted, joined by
 * ", " into buf ("" when none ran: sightings or bench figures only). */
static int revision_systems(fia_store *s, const char *rev, char *buf,
                            size_t len)
{
    sqlite3_stmt *st = store_prepare(
        s, "SELECT sut FROM campaigns WHERE revision = ?1 GROUP BY sut"
           " ORDER BY sut");
    if (st == NULL)
        return FIA_ERR_IO;
    store_bind_text(st, 1, rev);
    buf[0] = '\0';
    int rc;
    while ((rc = store_step(s, st)) == SQLITE_ROW) {
        size_t n = strlen(buf);
        snprintf(buf + n, len - n, "%s%s", n ? ", " : "",
                 store_col_text(st, 0) ? store_col_text(st, 0) : "");
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? FIA_OK
                             : store_sqlfail(s, rc, "reading campaigns");
}

/* Like with like: the two revisions' campaigns ran the same systems under
 * test (a plug-in's findings say nothing of fast/'s revisions). */
static int same_systems(fia_store *s, const char *base, const char *head)
{
    char a[512], b[512];
    int rc = revision_systems(s, base, a, sizeof a);
    if (rc == FIA_OK)
        rc = revision_systems(s, head, b, sizeof b);
    if (rc == FIA_OK && a[0] && b[0] && strcmp(a, b) != 0)
        rc = store_fail(s, FIA_ERR_BAD_INPUT,
                        "the base ran the system(s) under test %s, the head "
                        "%s: regressions compare revisions of one system",
                        a, b);
    return rc;
}

static int findings_query(fia_store *s, const char *sql, const char *base,
                          const char *head, reg_ctx *c)
{
    sqlite3_stmt *st = store_prepare(s, sql);
    if (st == NULL)
        return FIA_ERR_IO;
    store_bind_text(st, 1, base);
    store_bind_text(st, 2, head);
    int rc = SQLITE_DONE;
    while (!c->stop && (rc = store_step(s, st)) == SQLITE_ROW) {
        fia_store_finding f;
        store_row_finding(st, &f, 0);
        fia_store_regression r = {.kind = c->kind, .finding = &f};
        c->n++;
        c->stop = c->cb ? c->cb(&r, c->ctx) : 0;
    }
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        rc = store_sqlfail(s, rc, "querying regressions");
    else
        rc = FIA_OK;
    sqlite3_finalize(st);
    return rc;
}

#define SEEN_AT(n)                                                          \
    "EXISTS (SELECT 1 FROM sightings g WHERE g.finding_id = f.id"           \
    " AND g.revision = ?" #n ")"

static int finding_regressions(fia_store *s, const char *base,
                               const char *head, reg_ctx *c)
{
    c->kind = FIA_STORE_REG_REGRESSED;
    int rc = findings_query(
        s, "SELECT " STORE_FINDING_COLS " FROM findings f"
           " WHERE f.state = 'regressed' AND ?1 = ?1 AND " SEEN_AT(2)
           " ORDER BY f.id", base, head, c);
    c->kind = FIA_STORE_REG_NEW;
    if (rc == FIA_OK)
        rc = findings_query(
            s, "SELECT " STORE_FINDING_COLS " FROM findings f"
               " WHERE f.state <> 'regressed' AND " SEEN_AT(2)
               " AND NOT " SEEN_AT(1) " ORDER BY f.id", base, head, c);
    return rc;
}

/* ---- accuracy ---------------------------------------------------------- */

typedef struct ratios {
    double *v; /* ascending */
    size_t n, cap;
} ratios;

typedef struct bucket_data {
    char *name;
    ratios side[2]; /* base, head */
    int64_t pairs, worse, better; /* cases run at both revisions */
    const char *worst;  /* facets: the member bucket with the largest
                           ratio at head (points into the bucket list) */
    double worst_ratio;
} bucket_data;

typedef struct bucket_list {
    bucket_data *b;
    size_t n, cap;
} bucket_list;

static void buckets_free(bucket_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->b[i].name);
        free(l->b[i].side[0].v);
        free(l->b[i].side[1].v);
    }
    free(l->b);
}

static int push_ratio(ratios *r, double v)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 64;
        double *nv = realloc(r->v, cap * sizeof *nv);
        if (nv == NULL)
            return -1;
        r->v = nv;
        r->cap = cap;
    }
    r->v[r->n++] = v;
    return 0;
}

static bucket_data *new_bucket(bucket_list *l, const char *name)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        bucket_data *nb = realloc(l->b, cap * sizeof *nb);
        if (nb == NULL)
            return NULL;
        l->b = nb;
        l->cap = cap;
    }
    bucket_data *b = &l->b[l->n];
    memset(b, 0, sizeof *b);
    if ((b->name = strdup(name)) == NULL)
        return NULL;
    l->n++;
    return b;
}

/* Every ratio of base and head, per bucket, each side ascending.  With
 * base = head both sides get the same samples (and nothing is worse). */
static int load_ratios(fia_store *s, const char *base, const char *head,
                       bucket_list *l)
{
    sqlite3_stmt *st = store_prepare(
        s, "SELECT a.bucket, c.revision = ?2, a.ratio FROM accuracy_samples a"
           " JOIN campaigns c ON c.id = a.campaign_id"
           " WHERE c.revision IN (?1, ?2) ORDER BY a.bucket, a.ratio");
    if (st == NULL)
        return FIA_ERR_IO;
    store_bind_text(st, 1, base);
    store_bind_text(st, 2, head);
    int same = strcmp(base, head) == 0, rc;
    bucket_data *cur = NULL;
    while ((rc = store_step(s, st)) == SQLITE_ROW) {
        const char *name = store_col_text(st, 0);
        int is_head = sqlite3_column_int(st, 1);
        double v = sqlite3_column_double(st, 2);
        if ((cur == NULL || strcmp(cur->name, name) != 0) &&
            (cur = new_bucket(l, name)) == NULL)
            break;
        if (push_ratio(&cur->side[is_head], v) != 0 ||
            (same && push_ratio(&cur->side[0], v) != 0))
            break;
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_ROW)
        return store_fail(s, FIA_ERR_NOMEM,
                          "out of memory reading accuracy samples");
    if (rc != SQLITE_DONE)
        return store_sqlfail(s, rc, "reading accuracy samples");
    return FIA_OK;
}

static bucket_data *find_bucket(bucket_list *l, const char *name)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->b[i].name, name) == 0)
            return &l->b[i];
    return NULL;
}

/* The cases run at both revisions, per bucket: how many, and on how many
 * head's ratio is larger / smaller than base's.  A case run several times
 * at one revision counts once, with its largest ratio (max, not a mean:
 * copies of one ratio give that ratio exactly). */
static int load_pairs(fia_store *s, const char *base, const char *head,
                      bucket_list *l)
{
    sqlite3_stmt *st = store_prepare(
        s, "SELECT a.bucket,"
           " max(CASE WHEN c.revision = ?1 THEN a.ratio END) AS rb,"
           " max(CASE WHEN c.revision = ?2 THEN a.ratio END) AS rh"
           " FROM accuracy_samples a JOIN campaigns c ON c.id = a.campaign_id"
           " WHERE c.revision IN (?1, ?2) AND a.case_key IS NOT NULL"
           " GROUP BY a.bucket, a.case_key"
           " HAVING rb IS NOT NULL AND rh IS NOT NULL");
    if (st == NULL)
        return FIA_ERR_IO;
    store_bind_text(st, 1, base);
    store_bind_text(st, 2, head);
    int rc;
    while ((rc = store_step(s, st)) == SQLITE_ROW) {
        bucket_data *b = find_bucket(l, store_col_text(st, 0));
        if (b == NULL)
            continue; /* cannot happen: load_ratios saw every bucket */
        double rb = sqlite3_column_double(st, 1);
        double rh = sqlite3_column_double(st, 2);
        b->pairs++;
        b->worse += rh > rb;
        b->better += rh < rb;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return store_sqlfail(s, rc, "reading paired accuracy samples");
    return FIA_OK;
}

/* Nearest rank: the smallest x with at least a share q of the cases <= x. */
static double quantile(const ratios *r, double q)
{
    if (r->n == 0)
        return 0;
    size_t k = (size_t)ceil(q * (double)r->n);
    return r->v[k > 0 ? k - 1 : 0];
}

static void describe(const ratios *r, const char *rev, fia_store_ratio_stats *o)
{
    memset(o, 0, sizeof *o);
    o->revision = rev;
    o->cases = (int64_t)r->n;
    if (r->n == 0)
        return;
    o->p50 = quantile(r, 0.5);
    o->p90 = quantile(r, 0.9);
    o->p99 = quantile(r, 0.99);
    o->max = r->v[r->n - 1];
    size_t half = 0, one = 0;
    for (size_t i = 0; i < r->n; i++) {
        half += r->v[i] > 0.5;
        one += r->v[i] > 1;
    }
    o->above_half = (double)half / (double)r->n;
    o->above_one = (double)one / (double)r->n;
}

/* One-sided Mann-Whitney U of "head larger" on two ascending samples (the
 * formulas at the top): *effect = A, returns the p-value. */
static double mann_whitney(const ratios *b, const ratios *h, double *effect)
{
    double nb = (double)b->n, nh = (double)h->n, N = nb + nh;
    double rank_head = 0, ties = 0, rank = 0; /* ranks given so far */
    size_t i = 0, j = 0;
    while (i < b->n || j < h->n) {
        double x = i < b->n && (j == h->n || b->v[i] <= h->v[j]) ? b->v[i]
                                                                  : h->v[j];
        double tb = 0, th = 0;
        while (i < b->n && b->v[i] == x)
            i++, tb++;
        while (j < h->n && h->v[j] == x)
            j++, th++;
        double t = tb + th;
        rank_head += th * (rank + (t + 1) / 2);
        ties += t * t * t - t;
        rank += t;
    }
    double u = rank_head - nh * (nh + 1) / 2;
    *effect = u / (nb * nh);
    double var = nb * nh / 12 * ((N + 1) - ties / (N * (N - 1)));
    if (!(var > 0))
        return 1; /* every ratio equal: nothing to tell */
    double z = (u - nb * nh / 2 - 0.5) / sqrt(var);
    return 0.5 * erfc(z / sqrt(2.0));
}

/* Exact one-sided sign test: P(X >= w), X ~ Binomial(w + b, 1/2), summed
 * in log space (lgamma) so that large counts neither overflow nor lose
 * the tail; O(b) terms. */
static double sign_test(int64_t w, int64_t b)
{
    int64_t n = w + b;
    if (n == 0 || w == 0)
        return 1;
    double p = 0, ln_half_n = (double)n * log(0.5);
    for (int64_t i = w; i <= n; i++)
        p += exp(lgamma((double)n + 1) - lgamma((double)i + 1) -
                 lgamma((double)(n - i) + 1) + ln_half_n);
    return p > 1 ? 1 : p;
}

/* How a bucket is compared: paired when enough cases ran at both
 * revisions, else unpaired when asked for and both sides have enough. */
static int bucket_method(const bucket_data *d,
                         const fia_store_regress_options *o)
{
    if (d->side[0].n == 0 || d->side[1].n == 0)
        return 0;
    if (d->pairs >= o->min_cases)
        return 1;
    if (o->unpaired && (int64_t)d->side[0].n >= o->min_cases &&
        (int64_t)d->side[1].n >= o->min_cases)
        return 2;
    return 0;
}

static int bucket_kind(const bucket_data *d, const fia_store_regress_options *o,
                       int64_t m, fia_store_bucket_cmp *c)
{
    const ratios *b = &d->side[0], *h = &d->side[1];
    c->bucket = d->name;
    c->buckets_compared = m;
    c->alpha = m > 0 ? o->alpha / (double)m : o->alpha;
    c->p_value = 1;
    c->effect = 0.5;
    c->pairs = d->pairs;
    c->worse = d->worse;
    c->better = d->better;
    if (b->n == 0)
        return FIA_STORE_REG_ONLY_HEAD;
    if (h->n == 0)
        return FIA_STORE_REG_ONLY_BASE;
    int method = bucket_method(d, o);
    if (method == 0)
        return (int64_t)b->n >= o->min_cases && (int64_t)h->n >= o->min_cases
                   ? FIA_STORE_REG_UNPAIRED
                   : FIA_STORE_REG_TOO_FEW;
    c->compared = 1;
    c->paired = method == 1;
    if (c->paired) {
        c->p_value = sign_test(d->worse, d->better);
        c->effect = ((double)d->worse +
                     0.5 * (double)(d->pairs - d->worse - d->better)) /
                    (double)d->pairs;
    } else {
        c->p_value = mann_whitney(b, h, &c->effect);
    }
    return c->p_value < c->alpha && c->effect >= o->min_effect
               ? FIA_STORE_REG_ACCURACY
               : FIA_STORE_REG_SAME;
}

/* ---- facets: the buckets grouped ------------------------------------------
 * A bucket is fuzz_bucket's "feature+feature+...|dtype|layout" (the first
 * feature is the path, prefill or decode): a few hundred of them, most
 * with a handful of cases.  Its facets are the groups it belongs to: every
 * case ("*"), its path, each other feature, its dtype and its layout, so a
 * loss confined to one dtype or one feature reaches min_cases there even
 * when no single bucket does.  A name not in that form has facet "*"
 * only. */

static int facet_add(bucket_list *f, const char *name, const bucket_data *b)
{
    bucket_data *g = find_bucket(f, name);
    if (g == NULL && (g = new_bucket(f, name)) == NULL)
        return -1;
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < b->side[k].n; i++)
            if (push_ratio(&g->side[k], b->side[k].v[i]) != 0)
                return -1;
    g->pairs += b->pairs;
    g->worse += b->worse;
    g->better += b->better;
    /* the member with the largest ratio at head: where its worst case is */
    if (b->side[1].n > 0 &&
        (g->worst == NULL ||
         b->side[1].v[b->side[1].n - 1] > g->worst_ratio)) {
        g->worst = b->name;
        g->worst_ratio = b->side[1].v[b->side[1].n - 1];
    }
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int build_facets(const bucket_list *l, bucket_list *f)
{
    char name[320];
    for (size_t i = 0; i < l->n; i++) {
        const bucket_data *b = &l->b[i];
        if (facet_add(f, "*", b) != 0)
            return -1;
        const char *bar = strchr(b->name, '|');
        const char *bar2 = bar ? strchr(bar + 1, '|') : NULL;
        if (bar2 == NULL || strchr(bar2 + 1, '|') != NULL)
            continue;
        const char *p = b->name;
        for (int first = 1; p < bar; first = 0) {
            const char *e = p;
            while (e < bar && *e != '+')
                e++;
            snprintf(name, sizeof name, "%s=%.*s", first ? "path" : "feature",
                     (int)(e - p), p);
            if (facet_add(f, name, b) != 0)
                return -1;
            p = e < bar ? e + 1 : e;
        }
        snprintf(name, sizeof name, "dtype=%.*s", (int)(bar2 - bar - 1), bar + 1);
        if (facet_add(f, name, b) != 0)
            return -1;
        snprintf(name, sizeof name, "layout=%s", bar2 + 1);
        if (facet_add(f, name, b) != 0)
            return -1;
    }
    for (size_t i = 0; i < f->n; i++)
        for (int k = 0; k < 2; k++)
            if (f->b[i].side[k].n > 1) /* a side without cases has no array */
                qsort(f->b[i].side[k].v, f->b[i].side[k].n, sizeof(double),
                      cmp_double);
    return 0;
}

/* Reports the groups of list (buckets, or facets) to the callback. */
static void report_groups(const bucket_list *l, int facet, const char *base,
                          const char *head, const fia_store_regress_options *o,
                          int64_t m, reg_ctx *c)
{
    for (size_t i = 0; !c->stop && i < l->n; i++) {
        const bucket_data *d = &l->b[i];
        fia_store_bucket_cmp cmp;
        memset(&cmp, 0, sizeof cmp);
        describe(&d->side[0], base, &cmp.base);
        describe(&d->side[1], head, &cmp.head);
        fia_store_regression r = {.kind = bucket_kind(d, o, m, &cmp),
                                  .bucket = &cmp};
        cmp.facet = facet;
        cmp.worst_bucket = facet ? d->worst : d->name;
        c->n += r.kind == FIA_STORE_REG_ACCURACY;
        c->stop = c->cb ? c->cb(&r, c->ctx) : 0;
    }
}

static int accuracy_regressions(fia_store *s, const char *base,
                                const char *head,
                                const fia_store_regress_options *o,
                                reg_ctx *c)
{
    bucket_list l = {0}, f = {0};
    int rc = load_ratios(s, base, head, &l);
    if (rc == FIA_OK)
        rc = load_pairs(s, base, head, &l);
    if (rc == FIA_OK && build_facets(&l, &f) != 0)
        rc = store_fail(s, FIA_ERR_NOMEM,
                        "out of memory grouping accuracy samples");
    int64_t m = 0;
    for (size_t i = 0; i < l.n; i++)
        m += bucket_method(&l.b[i], o) != 0;
    for (size_t i = 0; i < f.n; i++)
        m += bucket_method(&f.b[i], o) != 0;
    if (rc == FIA_OK) {
        report_groups(&f, 1, base, head, o, m, c);
        report_groups(&l, 0, base, head, o, m, c);
    }
    buckets_free(&f);
    buckets_free(&l);
    return rc;
}

fia_status fia_store_regressions(fia_store *s, const char *base, const char *head,
                                 const fia_store_regress_options *opt,
                                 int (*cb)(const fia_store_regression *r, void *ctx),
                                 void *ctx, int64_t *count)
{
    if (s == NULL)
        return FIA_ERR_BAD_INPUT;
    fia_store_regress_options o;
    fia_store_regress_options_default(&o);
    if (opt != NULL)
        o = *opt;
    if (base == NULL || head == NULL || !(o.alpha > 0 && o.alpha < 1) ||
        o.min_cases < 2 || !(o.min_effect >= 0.5 && o.min_effect <= 1))
        return store_fail(s, FIA_ERR_BAD_INPUT,
                          "regressions need a base, a head, 0 < alpha < 1, "
                          "min_cases >= 2 and 0.5 <= min_effect <= 1");
    int rc = revision_known(s, base);
    if (rc == FIA_OK)
        rc = revision_known(s, head);
    if (rc == FIA_OK)
        rc = same_systems(s, base, head);
    if (rc != FIA_OK)
        return rc;
    /* one read transaction: every part sees the same snapshot */
    rc = store_read_begin(s);
    if (rc != FIA_OK)
        return rc;
    reg_ctx c = {.cb = cb, .ctx = ctx};
    rc = finding_regressions(s, base, head, &c);
    if (rc == FIA_OK && !c.stop)
        rc = accuracy_regressions(s, base, head, &o, &c);
    store_read_end(s);
    if (rc == FIA_OK && count)
        *count = c.n;
    return rc;
}

fia_status fia_store_worst_case(fia_store *s, const char *revision,
                                const char *bucket, char **case_text, double *ratio,
                                int64_t *campaign_id)
{
    if (s == NULL || revision == NULL || bucket == NULL || case_text == NULL)
        return FIA_ERR_BAD_INPUT;
    *case_text = NULL;
    sqlite3_stmt *st = store_prepare(
        s, "SELECT w.case_text, w.ratio, w.campaign_id FROM accuracy_worst w"
           " JOIN campaigns c ON c.id = w.campaign_id"
           " WHERE c.revision = ?1 AND w.bucket = ?2"
           " ORDER BY w.ratio DESC, w.campaign_id LIMIT 1");
    if (st == NULL)
        return FIA_ERR_IO;
    store_bind_text(st, 1, revision);
    store_bind_text(st, 2, bucket);
    int rc = store_step(s, st);
    if (rc == SQLITE_ROW) {
        *case_text = store_col_dup(st, 0, 1);
        if (ratio)
            *ratio = sqlite3_column_double(st, 1);
        if (campaign_id)
            *campaign_id = sqlite3_column_int64(st, 2);
        rc = *case_text ? FIA_OK
                        : store_fail(s, FIA_ERR_NOMEM, "out of memory");
    } else if (rc == SQLITE_DONE) {
        rc = store_fail(s, FIA_ERR_NOT_FOUND,
                        "no worst case kept for bucket '%s' at revision '%s'"
                        " (a campaign keeps those of its %d worst buckets)",
                        bucket, revision, FIA_STORE_WORST_PER_CAMPAIGN);
    } else {
        rc = store_sqlfail(s, rc, "reading the worst case");
    }
    sqlite3_finalize(st);
    return rc;
}
