/* store/: the accuracy part of the regression query.  Samples are drawn the
 * way a survey produces them: case i of a bucket (key "bucket:i") has a
 * bound of B ulps and an error of e whole ulps fixed by the case, ratio =
 * e / (B + 1/2) (docs/tolerance.md).  "The same build" gives every case
 * the same ratio; "a rebuild" moves some errors by one ulp either way
 * (symmetric noise, e.g. other compiler flags); "a planted loss" adds a
 * few ulps. */
#include <math.h>
#include "check.h"
#include "test_store_util.h"
#include "test_rng.h"

/* splitmix64: a deterministic generator, one stream per seed */
static uint64_t next(uint64_t *x) { return test_splitmix64(x); }

static double uniform(uint64_t *x) { return (next(x) >> 11) * 0x1p-53; }

/* Case i's ratio: bound 1..16 ulps and error |N(0, 1)| * 0.3 B ulps rounded
 * to whole ulps, both drawn from the case's own stream (key); then, from
 * the build's stream, one ulp more or less on 30 % of the cases with an
 * error >= 1 when noise is set, and extra_ulp on a share `hit`. */
static double case_ratio(uint64_t key, uint64_t *build, double extra_ulp,
                         double hit, int noise)
{
    double b = 1 + floor(uniform(&key) * 16);
    double u1 = uniform(&key), u2 = uniform(&key);
    double g = sqrt(-2 * log(u1 > 0 ? u1 : 1e-300)) * cos(6.283185307 * u2);
    double e = round(fabs(g) * 0.3 * b);
    double u = uniform(build), side = uniform(build);
    if (noise && e >= 1 && u < 0.3)
        e += side < 0.5 ? -1 : 1;
    if (uniform(build) < hit)
        e += extra_ulp;
    return e / (b + 0.5);
}

static int64_t campaign(fia_store *s, const char *rev)
{
    fia_campaign_info info = {rev, "fuzz_numeric", "doc", "bound", 1, "", "", NULL, NULL};
    int64_t id = 0;
    CHECK_EQ_INT(fia_store_campaign_begin(s, &info, &id), FIA_OK);
    return id;
}

/* Cases 0..n-1 of bucket built by build `seed`; the worst keeps
 * "case <bucket> <ratio>" */
static void fill(fia_store *s, int64_t cid, const char *bucket, int n,
                 uint64_t seed, double extra_ulp, double hit, int noise)
{
    double worst = -1;
    uint64_t bucket_key = 0;
    for (const char *p = bucket; *p; p++)
        bucket_key = bucket_key * 131 + (unsigned char)*p;
    CHECK_EQ_INT(fia_store_batch_begin(s), FIA_OK);
    for (int i = 0; i < n; i++) {
        double r = case_ratio(bucket_key * 1000003u + (uint64_t)i, &seed,
                              extra_ulp, hit, noise);
        char text[128], key[96];
        snprintf(text, sizeof text, "# case %s %.17g\n", bucket, r);
        snprintf(key, sizeof key, "%s:%d", bucket, i);
        int rc = fia_store_add_accuracy_sample(s, cid, bucket, r * 8, 1e-3, r, key,
                                               r > worst ? text : NULL);
        if (rc != FIA_OK) {
            CHECK_EQ_INT(rc, FIA_OK);
            break;
        }
        if (r > worst)
            worst = r;
    }
    CHECK_EQ_INT(fia_store_batch_end(s, 1), FIA_OK);
}

typedef struct seen {
    char text[2048];
    fia_store_bucket_cmp last; /* of `watch` */
    const char *watch;
} seen;

static int cb(const fia_store_regression *r, void *ctx)
{
    seen *v = ctx;
    char item[160];
    if (r->finding)
        snprintf(item, sizeof item, "%d:%s;", r->kind, r->finding->signature);
    else
        snprintf(item, sizeof item, "%d:%s;", r->kind, r->bucket->bucket);
    strncat(v->text, item, sizeof v->text - 1 - strlen(v->text));
    if (r->bucket && v->watch && strcmp(r->bucket->bucket, v->watch) == 0)
        v->last = *r->bucket;
    return 0;
}

static int64_t query(fia_store *s, const char *base, const char *head,
                     const fia_store_regress_options *o, seen *v)
{
    memset(v->text, 0, sizeof v->text);
    int64_t n = -1;
    CHECK_EQ_INT(fia_store_regressions(s, base, head, o, cb, v, &n),
                 FIA_OK);
    return n;
}

static void test_same_build_twice(void)
{
    fia_store *s = open_ok(scratch("same.db"), 1);
    if (s == NULL)
        return;
    /* ten surveys: five of one binary, five rebuilds that move errors by
     * an ulp either way; no pair may report anything, whatever the sizes
     * (a maximum over more cases only grows) */
    static const char *revs[] = {"r0", "r1", "r2", "r3", "r4",
                                 "r5", "r6", "r7", "r8", "r9"};
    for (int k = 0; k < 10; k++) {
        int64_t c = campaign(s, revs[k]);
        fill(s, c, "fp16/BNSD", 200 + 150 * k, 11 + (uint64_t)k, 0, 0, k >= 5);
        fill(s, c, "bf16/BSH", 300, 101 + (uint64_t)k, 0, 0, k >= 5);
        fill(s, c, "tiny", 3 + k, 201 + (uint64_t)k, 0, 0, k >= 5);
    }
    seen v = {.watch = "fp16/BNSD"};
    for (int a = 0; a < 10; a++)
        for (int b = 0; b < 10; b++) {
            if (a == b)
                continue;
            CHECK_MSG(query(s, revs[a], revs[b], NULL, &v) == 0, "%s -> %s: %s",
                      revs[a], revs[b], v.text);
        }
    CHECK_EQ_INT(query(s, "r0", "r9", NULL, &v), 0);
    CHECK_MSG(strcmp(v.text, "4:*;4:bf16/BSH;4:fp16/BNSD;5:tiny;") == 0, "%s",
              v.text);
    CHECK(v.last.compared && v.last.paired && v.last.buckets_compared == 3);
    CHECK(v.last.alpha == 0.01 / 3);
    CHECK(v.last.pairs == 200 && v.last.worse > 10 && v.last.better > 10);
    /* the same binary: every pair tied */
    CHECK_EQ_INT(query(s, "r1", "r3", NULL, &v), 0);
    CHECK(v.last.pairs == 350 && v.last.worse == 0 && v.last.better == 0 &&
          v.last.p_value == 1);
    CHECK_EQ_INT(query(s, "r0", "r9", NULL, &v), 0);
    /* the old rule would have fired: the max grew with the sample size */
    CHECK_MSG(v.last.head.max > v.last.base.max, "%g %g", v.last.head.max,
              v.last.base.max);
    CHECK(v.last.base.cases == 200 && v.last.head.cases == 1550);
    CHECK(v.last.base.p50 <= v.last.base.p90 &&
          v.last.base.p90 <= v.last.base.p99 &&
          v.last.base.p99 <= v.last.base.max);
    fia_store_close(s);
}

static void test_planted_loss(void)
{
    fia_store *s = open_ok(scratch("loss.db"), 1);
    if (s == NULL)
        return;
    int64_t b = campaign(s, "base"), h = campaign(s, "lossy");
    fill(s, b, "fp16/BNSD", 400, 1, 0, 0, 0);
    fill(s, h, "fp16/BNSD", 400, 2, 2, 1, 1);   /* 2 ulps more everywhere */
    fill(s, b, "bf16/BSH", 400, 3, 0, 0, 0);
    fill(s, h, "bf16/BSH", 400, 4, 0, 0, 1);    /* rebuilt, untouched */
    fill(s, b, "few", 29, 5, 0, 0, 0);
    fill(s, h, "few", 29, 6, 8, 1, 0);          /* far worse, but 29 cases */
    fill(s, b, "gone", 50, 7, 0, 0, 0);
    fill(s, h, "added", 50, 8, 0, 0, 0);
    seen v = {.watch = "fp16/BNSD"};
    CHECK_EQ_INT(query(s, "base", "lossy", NULL, &v), 2);
    CHECK_MSG(strcmp(v.text, "3:*;7:added;4:bf16/BSH;5:few;3:fp16/BNSD;"
                             "6:gone;") == 0, "%s", v.text);
    CHECK(v.last.effect > 0.7 && v.last.p_value < 1e-10);
    CHECK(v.last.head.p50 > v.last.base.p50);
    /* and not the other way round */
    CHECK_EQ_INT(query(s, "lossy", "base", NULL, &v), 0);
    /* min_cases 29 compares the small bucket too: 4 groups, alpha / 4 */
    fia_store_regress_options o;
    fia_store_regress_options_default(&o);
    o.min_cases = 29;
    v.watch = "few";
    CHECK_EQ_INT(query(s, "base", "lossy", &o, &v), 3);
    CHECK(v.last.buckets_compared == 4 && fabs(v.last.alpha - 0.01 / 4) < 1e-15);
    /* the worst case of the lossy bucket comes back as its text */
    char *text = NULL;
    double ratio = 0;
    int64_t cid = 0;
    CHECK_EQ_INT(fia_store_worst_case(s, "lossy", "fp16/BNSD", &text, &ratio,
                                      &cid), FIA_OK);
    seen w = {.watch = "fp16/BNSD"};
    query(s, "base", "lossy", NULL, &w);
    char want[128];
    snprintf(want, sizeof want, "# case fp16/BNSD %.17g\n", w.last.head.max);
    CHECK_MSG(text && strcmp(text, want) == 0, "%s", text ? text : "(null)");
    CHECK(ratio == w.last.head.max && cid == h);
    free(text);
    CHECK_EQ_INT(fia_store_worst_case(s, "base", "nope", &text, NULL, NULL),
                 FIA_ERR_NOT_FOUND);
    /* bad options */
    o.min_cases = 1;
    CHECK_EQ_INT(fia_store_regressions(s, "base", "lossy", &o, NULL, NULL,
                                       NULL), FIA_ERR_BAD_INPUT);
    fia_store_regress_options_default(&o);
    o.min_effect = 0.4;
    CHECK_EQ_INT(fia_store_regressions(s, "base", "lossy", &o, NULL, NULL,
                                       NULL), FIA_ERR_BAD_INPUT);
    CHECK_EQ_INT(fia_store_add_accuracy_sample(s, b, "x", 1, 0, NAN, NULL, NULL),
                 FIA_ERR_BAD_INPUT);
    fia_store_close(s);
}

/* A shift on 3 % of a huge sample is significant and tiny: not reported
 * with the default effect size, reported without one. */
static void test_tiny_shift(void)
{
    fia_store *s = open_ok(scratch("tiny.db"), 1);
    if (s == NULL)
        return;
    int64_t b = campaign(s, "base"), h = campaign(s, "head");
    fill(s, b, "fp16/BNSD", 20000, 1, 0, 0, 0);
    fill(s, h, "fp16/BNSD", 20000, 2, 1, 0.06, 0);
    seen v = {.watch = "fp16/BNSD"};
    CHECK_EQ_INT(query(s, "base", "head", NULL, &v), 0);
    CHECK_MSG(v.last.p_value < 1e-6 && v.last.effect < 0.56, "p %g A %g",
              v.last.p_value, v.last.effect);
    fia_store_regress_options o;
    fia_store_regress_options_default(&o);
    o.min_effect = 0.5;
    CHECK_EQ_INT(query(s, "base", "head", &o, &v), 2);   /* "*" and the bucket */
    fia_store_close(s);
}

static void test_merge_keeps_samples(void)
{
    const char *pa = scratch("ma.db"), *pb = scratch("mb.db");
    fia_store *a = open_ok(pa, 1), *b = open_ok(pb, 1);
    if (a == NULL || b == NULL)
        return;
    fill(a, campaign(a, "base"), "fp16/BNSD", 100, 1, 0, 0, 0);
    fill(b, campaign(b, "head"), "fp16/BNSD", 100, 2, 3, 1, 0);
    fia_store_close(b);
    CHECK_EQ_INT(fia_store_merge(a, pb), FIA_OK);
    seen v = {.watch = "fp16/BNSD"};
    CHECK_EQ_INT(query(a, "base", "head", NULL, &v), 2);
    CHECK(v.last.base.cases == 100 && v.last.head.cases == 100);
    CHECK(v.last.pairs == 100 && v.last.worse == 100); /* keys merged */
    /* merging what is already there adds no sample twice */
    CHECK_EQ_INT(fia_store_merge(a, pb), FIA_OK);
    seen v2 = {.watch = "fp16/BNSD"};
    CHECK_EQ_INT(query(a, "base", "head", NULL, &v2), 2);
    CHECK(v2.last.base.cases == 100 && v2.last.head.cases == 100);
    char *text = NULL;
    CHECK_EQ_INT(fia_store_worst_case(a, "head", "fp16/BNSD", &text, NULL,
                                      NULL), FIA_OK);
    free(text);
    fia_store_close(a);
}

int main(void)
{
    (void)record; /* test_store_util.h: not needed here */
    test_same_build_twice();
    test_planted_loss();
    test_tiny_shift();
    test_merge_keeps_samples();
    scratch_cleanup();
    return check_summary();
}
