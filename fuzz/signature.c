/* Signatures: one name per bug, not per bucket.
 *
 * A finding's signature says what went wrong in terms of the problem,
 * independent of the kernel's data types and memory layouts, so that one
 * bug found in fp16/BSH and in bf16/BNSD is one finding and two bugs are
 * two.  (The bucket, feature set | dtype | layout, stays in the finding's
 * metrics as "bucket".)
 *
 *   status-mismatch | rule ids | expected>fast
 *       the rules of the lowest layer that fired (what decides the expected
 *       status; "accept" when none), and the two statuses;
 *   accuracy | path | where        (also nan-leak)
 *   metamorphic | path | where
 *       (the transform that showed the disagreement is not part of the
 *       name: a bug that depends on the shape, the splits or the layout
 *       shows under every transform that changes them -- one planted
 *       merge bug gave six names, one per transform; the transform stays
 *       in the finding's text and message)
 *       path    decode (Q_S = 1) or prefill: the two code paths;
 *               which tensor fails (attention_out or softmax_lse), by how
 *               much, and whether the worst element is finite are not
 *               part of the name: planted bugs showed one bug failing
 *               either tensor, by little or by much, finite or NaN (it
 *               read poison or a stale value), from case to case (a name
 *               per combination gave 2-8 names per bug);
 *       where   the failing elements' place in the problem: the region
 *               they are confined to with the strongest evidence (the
 *               smallest p^k below), "spread" when none ("none" when no
 *               unit below failed: only rows without a specified value):
 *                 kv64    rows whose batch has at least 64 keys
 *                 head>g0 heads outside the first KV group (GQA/MHA)
 *                 batch>0 batches after the first
 *                 dtail   D positions past the largest multiple of 16
 *               A region is named only when it is evidence, not chance:
 *               every failing unit lies in it AND p^k < 1e-2, where k is
 *               the number of failing units and p the share of the valid
 *               units inside the region (the chance that k failures
 *               spread like the valid units would all land there).  The
 *               units are rows (b, n, s) with s < q_len(b) and a key
 *               (P + kv_len(b) > 0, P a shared prefix's length: a row
 *               without keys has nothing to get wrong but its documented
 *               value) for the row, head and
 *               batch regions, elements of such rows for dtail.
 *               A bug confined to a region the case does not contrast
 *               (say every batch has 64 keys or more) is then named
 *               "spread" in that case.  "spread" says no region was shown,
 *               not that there is none.
 *   Two such names are compatible (fuzz_signature_compatible) when their
 *   paths agree and their wheres agree or one is "spread", whatever their
 *   kinds: a wrong output against the reference (accuracy), a NaN where it
 *   is finite (nan-leak) and two forms disagreeing (metamorphic) on one
 *   path were one bug as often as not -- planted bugs showed each of them
 *   from case to case.  A campaign records a finding under a compatible
 *   name it already has, minimize keeps a step whose name is compatible:
 *   one bug gives one finding per path it shows in, more only when cases
 *   show it confined to different regions.
 *   harness-error | feature set | dtype | layout   (the old form)
 * Crashes and timeouts are named by fuzz_finding_of_artifact: by the
 * sanitizer's site when its SUMMARY is known (fuzz_crash_site; cli's
 * worker reader puts an AddressSanitizer report's access and first frame
 * outside the micro-kernels in front of it), else by the bucket. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz/fuzz_internal.h"
#include "fuzz/signature.h"
#include "fia/sut_host.h"

static void sb_add(char *buf, size_t len, const char *s)
{
    size_t n = strlen(buf);
    if (n + 1 < len)
        snprintf(buf + n, len - n, "%s", s);
}

/* ---- buckets ------------------------------------------------------------- */

void fuzz_feature_set(const fia_case *c, char *buf, size_t len)
{
    fz_geom g;
    buf[0] = '\0';
    int geom = fz_geom_of_call(c, &g) == 0;
    int decode = geom && g.Q_S == 1;
    sb_add(buf, len, !geom ? "irregular" : decode ? "decode" : "prefill");
    if (geom && !decode) {
        char s[32];
        snprintf(s, sizeof s, "+sparse%lld", (long long)c->attrs.sparse_mode);
        sb_add(buf, len, s);
    }
    if (c->tensors[FIA_SLOT_ATTEN_MASK].presence == FIA_PRESENT)
        sb_add(buf, len, "+mask");
    if (geom && g.paged)
        sb_add(buf, len, "+paged");
    if (geom && g.list)
        sb_add(buf, len, "+list");
    if (geom && g.KV_N != g.N)
        sb_add(buf, len, "+gqa");
    if (c->attrs.softmax_lse_flag)
        sb_add(buf, len, "+lse");
    if (c->arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS].presence == FIA_PRESENT && !decode)
        sb_add(buf, len, "+seqlen");
    if (c->arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS_KV].presence == FIA_PRESENT)
        sb_add(buf, len, "+seqlenkv");
    if (c->attrs.inner_precise & 2)
        sb_add(buf, len, "+rowinv");
    if (geom && g.KV_S == 0)
        sb_add(buf, len, "+emptykv");
    if (geom && g.qpad)
        sb_add(buf, len, "+padq");
    if (geom && g.kvpad)
        sb_add(buf, len, "+padkv");
    if (geom && g.P > 0)
        sb_add(buf, len, "+prefix");
    const fia_tensor_spec *pse = &c->tensors[FIA_SLOT_PSE_SHIFT];
    if (pse->presence == FIA_PRESENT && pse->count >= 1 &&
        fia_tensor_numel(&pse->t[0]) > 0)
        sb_add(buf, len, "+pse");
    /* MLA (003's rope inputs) and 004's learnable_sink: their own paths */
    if (c->tensors[FIA_SLOT_QUERY_ROPE].presence == FIA_PRESENT)
        sb_add(buf, len, "+rope");
    if (c->tensors[FIA_SLOT_LEARNABLE_SINK].presence == FIA_PRESENT)
        sb_add(buf, len, "+sink");
    /* quantization: int8 / int4 key/value with a float query (antiquant),
     * query, key and value int8 (full quantization: its own bucket, its
     * own kernels), an int8 output */
    const fia_tensor_spec *k = &c->tensors[FIA_SLOT_KEY];
    const fia_tensor_spec *q = &c->tensors[FIA_SLOT_QUERY];
    if (k->presence == FIA_PRESENT && k->count >= 1) {
        const fia_dtype kd = k->t[0].dtype;
        if (kd == FIA_DT_INT8 && q->presence == FIA_PRESENT &&
            q->count >= 1 && q->t[0].dtype == FIA_DT_INT8)
            sb_add(buf, len, "+int8q");
        else if (kd == FIA_DT_INT8)
            sb_add(buf, len, "+int8kv");
        else if (kd == FIA_DT_INT4 || kd == FIA_DT_INT32)
            sb_add(buf, len, "+int4kv");
    }
    const fia_tensor_spec *o = &c->tensors[FIA_SLOT_ATTENTION_OUT];
    const fia_tensor_spec *qs2 = &c->tensors[FIA_SLOT_QUANT_SCALE2];
    if ((o->presence == FIA_PRESENT && o->count >= 1 &&
         o->t[0].dtype == FIA_DT_INT8) ||
        (o->presence != FIA_PRESENT && qs2->presence == FIA_PRESENT))
        sb_add(buf, len, "+int8out");
}

static const char *qdtype(const fia_case *c)
{
    const fia_tensor_spec *q = &c->tensors[FIA_SLOT_QUERY];
    return q->presence == FIA_PRESENT ? fia_dtype_name(q->t[0].dtype) : "none";
}

static void layout_word(const fia_case *c, char *buf, size_t len)
{
    size_t k = 0;
    for (const char *p = c->attrs.input_layout; *p && k + 1 < len && k < 12; p++)
        buf[k++] = (*p >= 'A' && *p <= 'Z') || *p == '_' ? *p : '?';
    buf[k] = '\0';
    if (k == 0)
        snprintf(buf, len, "-");
}

void fuzz_bucket(const fia_case *c, char *buf, size_t len)
{
    char fs[128], lw[16];
    fuzz_feature_set(c, fs, sizeof fs);
    layout_word(c, lw, sizeof lw);
    snprintf(buf, len, "%s|%s|%s", fs, qdtype(c), lw);
}

/* ---- the failing pattern ------------------------------------------------- */

/* Failing and valid units, inside a region and in all. */
typedef struct tally {
    int64_t fail_in, fail, valid_in, valid;
} tally;

static void count(tally *t, int in, int failed)
{
    t->valid++;
    t->valid_in += in;
    t->fail += failed;
    t->fail_in += in && failed;
}

/* log of the chance that the failing units all lie in the region, when
 * every one does and that chance is below 1e-2; 0 otherwise. */
static double confined(const tally *t)
{
    if (t->fail == 0 || t->fail_in < t->fail || t->valid_in >= t->valid)
        return 0;
    double lp = (double)t->fail *
                log((double)t->valid_in / (double)t->valid);
    return lp < log(1e-2) ? lp : 0;
}

enum { R_KV64, R_HEAD, R_BATCH, R_DTAIL, R_COUNT };
static const char *const region_names[R_COUNT] = {"kv64", "head>g0", "batch>0",
                                                  "dtail"};

void fuzz_fail_pattern(const fuzz_fail_view *v, char *buf, size_t len)
{
    tally rows[R_COUNT]; /* R_DTAIL counts elements */
    memset(rows, 0, sizeof rows);
    int64_t group = v->KV_N > 0 && v->N % v->KV_N == 0 ? v->N / v->KV_N : 0;
    int64_t d16 = v->D & ~(int64_t)15;
    for (int64_t b = 0; b < v->B; b++)
        for (int64_t n = 0; n < v->N; n++)
            for (int64_t s = 0; s < v->q_len[b] && s < v->Q_S &&
                                v->kv_len[b] > 0; s++) {
                int64_t row = (b * v->N + n) * v->Q_S + s;
                int failed = 0;
                for (int64_t d = 0; v->out && d < v->D; d++) {
                    int f = v->out[row * v->D + d];
                    count(&rows[R_DTAIL], d >= d16, f != FIA_FAIL_NONE);
                    failed |= f != FIA_FAIL_NONE;
                }
                if (v->lse && v->lse[row] != FIA_FAIL_NONE)
                    failed = 1;
                count(&rows[R_KV64], v->kv_len[b] >= 64, failed);
                count(&rows[R_HEAD], group > 0 && n >= group, failed);
                count(&rows[R_BATCH], b >= 1, failed);
            }
    snprintf(buf, len, "%s|", v->Q_S == 1 ? "decode" : "prefill");
    /* the strongest evidence only: a bug confined to one region may look
     * confined to another too by chance, not the other way round */
    int best = -1;
    double best_lp = 0;
    for (int i = 0; i < R_COUNT; i++) {
        double lp = confined(&rows[i]);
        if (lp < best_lp)
            best = i, best_lp = lp;
    }
    sb_add(buf, len, best >= 0                 ? region_names[best]
                     : rows[R_KV64].fail == 0 ? "none" /* no unit failed */
                                              : "spread");
}

/* The pattern of a case's masks, out_fail in the output layout of c (or
 * BNSD when canonical), lse_fail (b, n, s) (a token layout's own (T, N),
 * a query-padded call's physical rows, unless canonical); "irregular" when
 * c has no regular geometry, "?" out of memory. */
static void case_pattern(const fia_case *c, const uint8_t *out_fail,
                         const uint8_t *lse_fail, int canonical, char *buf,
                         size_t len)
{
    fz_geom g;
    if (fz_geom_of_call(c, &g) != 0) {
        snprintf(buf, len, "irregular");
        return;
    }
    int64_t nout = g.B * g.N * g.Q_S * g.D;
    fuzz_fail_view v = {g.B, g.N, g.KV_N, g.Q_S, g.D, NULL, NULL, NULL,
                        lse_fail};
    int64_t *lens = malloc((size_t)(2 * g.B + 1) * sizeof *lens);
    uint8_t *out = out_fail && !canonical ? malloc((size_t)nout + 1) : NULL;
    const int lse_map = lse_fail && !canonical && (g.tnd || g.qpad);
    uint8_t *lse = lse_map ? calloc((size_t)(g.B * g.N * g.Q_S + 1), 1) : NULL;
    if (lens == NULL || (out_fail && !canonical && out == NULL) ||
        (lse_map && lse == NULL)) {
        free(lens);
        free(out);
        free(lse);
        snprintf(buf, len, "?");
        return;
    }
    for (int64_t b = 0; b < g.B; b++) {
        lens[b] = fz_q_len(c, &g, b);
        /* the keys a row reads: a shared prefix's P first */
        lens[g.B + b] = g.P + fz_kv_len(c, &g, b);
        /* a query-padded batch that starts below 0: no row specified */
        if (!canonical && g.qpad && fz_out_index(c, &g, b, 0, 0, 0) < 0)
            lens[b] = 0;
    }
    v.q_len = lens, v.kv_len = lens + g.B;
    if (out != NULL) {
        int64_t i = 0;
        for (int64_t b = 0; b < g.B; b++)
            for (int64_t n = 0; n < g.N; n++)
                for (int64_t s = 0; s < g.Q_S; s++)
                    for (int64_t d = 0; d < g.D; d++) {
                        int64_t at = fz_out_index(c, &g, b, n, s, d);
                        out[i++] = at < 0 ? 0 : out_fail[at];
                    }
    }
    if (lse != NULL) { /* a token layout's (T, N, 1), padded rows */
        for (int64_t b = 0; b < g.B; b++)
            for (int64_t n = 0; n < g.N; n++)
                for (int64_t s = 0; s < g.Q_S; s++) {
                    int64_t at = fz_lse_index(c, &g, b, n, s);
                    lse[(b * g.N + n) * g.Q_S + s] = at < 0 ? 0 : lse_fail[at];
                }
        v.lse = lse;
    }
    v.out = canonical ? out_fail : out;
    fuzz_fail_pattern(&v, buf, len);
    free(lens);
    free(out);
    free(lse);
}

/* ---- signatures ---------------------------------------------------------- */

static void status_signature(const fia_check_result *r, char *buf, size_t len)
{
    /* the rules of the layer that decides the expected status */
    int layer = 99;
    for (int i = 0; i < r->ov.n_fired; i++)
        if ((int)r->ov.fired[i]->layer < layer)
            layer = (int)r->ov.fired[i]->layer;
    char rules[160] = "";
    for (int i = 0; i < r->ov.n_fired; i++)
        if ((int)r->ov.fired[i]->layer == layer) {
            if (rules[0])
                sb_add(rules, sizeof rules, "+");
            sb_add(rules, sizeof rules, r->ov.fired[i]->id);
        }
    snprintf(buf, len, "status-mismatch|%s|%s>%s", rules[0] ? rules : "accept",
             fia_status_name(r->ov.expected), fia_status_name(r->fast_status));
}

/* A plug-in's findings are its own: "NAME:" before the signature when
 * the system under test is not fast/ (a plug-in build of fast/ keeps
 * fast/'s signatures: the same kernel).  Returns the prefix's length
 * (0 for fast/); buf gets the prefix. */
size_t fuzz_sut_prefix(char *buf, size_t len)
{
    const char *name = fia_sut_current()->name;
    if (len == 0)
        return 0;
    buf[0] = '\0';
    if (strcmp(name, "fast") == 0)
        return 0;
    int k = snprintf(buf, len, "%s:", name);
    return k < 0 ? 0 : (size_t)k < len ? (size_t)k : len - 1;
}

const char *fuzz_signature_body(const char *sig)
{
    size_t bar = strcspn(sig, "|"), colon = strcspn(sig, ":");
    return colon < bar ? sig + colon + 1 : sig;
}

void fuzz_signature(const fia_case *c, const fia_check_result *r,
                    fia_profile profile, char *buf, size_t len)
{
    (void)profile; /* the fired rules say which profile decided */
    size_t k = fuzz_sut_prefix(buf, len);
    buf += k;
    len -= k;
    if (r->v == FIA_V_STATUS_MISMATCH) {
        status_signature(r, buf, len);
        return;
    }
    if ((r->v == FIA_V_ACCURACY || r->v == FIA_V_NAN_LEAK) && r->computed) {
        char pat[160];
        case_pattern(c, r->out_fail, r->has_lse ? r->lse_fail : NULL, 0, pat,
                     sizeof pat);
        snprintf(buf, len, "%s|%s", fia_verdict_name(r->v), pat);
        return;
    }
    char bucket[200];
    fuzz_bucket(c, bucket, sizeof bucket);
    snprintf(buf, len, "%s|%s", fia_verdict_name(r->v), bucket);
}

void fuzz_meta_signature(const fia_case *c, const char *transform,
                         const uint8_t *out_fail, const uint8_t *lse_fail,
                         char *buf, size_t len)
{
    (void)transform; /* the relation that showed it: kept in the finding */
    char pat[160];
    size_t k = fuzz_sut_prefix(buf, len);
    buf += k;
    len -= k;
    if (out_fail == NULL && lse_fail == NULL)
        snprintf(pat, sizeof pat, "phase-two");
    else
        case_pattern(c, out_fail, lse_fail, 1, pat, sizeof pat);
    snprintf(buf, len, "metamorphic|%s", pat);
}

const char *fuzz_source_ref(const char *s)
{
    const char *src = strstr(s, ".c:");
    return src != NULL ? src : strstr(s, ".h:");
}

/* The tree's part folders: a source path with one is the tree's code. */
static const char *const parts[] = {"/fast/", "/ref/",   "/oracle/",
                                    "/compare/", "/core/", "/harness/",
                                    "/fuzz/",  "/store/", "/cli/"};

static int in_tree(const char *s, size_t n)
{
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        const char *q = strstr(s, parts[i]);
        if (q != NULL && q < s + n)
            return 1;
    }
    return 0;
}

/* A frame's function: from after " in " to `end`, trimmed, without its
 * parameter list (from the first '(' past its start), into out. */
static void frame_function(const char *in, const char *end, char *out,
                           size_t len)
{
    const char *f = in + 4;
    while (end > f && end[-1] == ' ')
        end--;
    const char *paren = memchr(f + 1, '(', end > f + 1 ? (size_t)(end - f - 1)
                                                       : 0);
    if (paren != NULL && f < end)
        end = paren;
    size_t n = end > f ? (size_t)(end - f) : 0;
    snprintf(out, len, "%.*s", (int)(n < 120 ? n : 120), f);
}

int fuzz_plugin_frame(const char *line, const char *plugin, char *out,
                      size_t len)
{
    const char *p = line + strspn(line, " \t");
    out[0] = '\0';
    if (p[0] != '#' || !(p[1] >= '0' && p[1] <= '9') || plugin == NULL ||
        !plugin[0] || len < 2)
        return 0;
    const char *in = strstr(p, " in ");
    /* the module form: "(PLUGIN+0xOFF)" */
    size_t pl = strlen(plugin);
    for (const char *m = strchr(p, '('); m != NULL; m = strchr(m + 1, '(')) {
        if (strncmp(m + 1, plugin, pl) != 0 || strncmp(m + 1 + pl, "+0x", 3))
            continue;
        if (in != NULL && in < m)
            frame_function(in, m, out, len);
        if (!out[0]) {
            const char *base = strrchr(plugin, '/');
            base = base ? base + 1 : plugin;
            size_t off = strcspn(m + 1 + pl, ") ");
            snprintf(out, len, "%.60s%.*s", base, (int)(off < 40 ? off : 40),
                     m + 1 + pl);
        }
        return 1;
    }
    /* the source form: "in FUNC /abs/path/file.ext:LINE[:COL]", the last
     * absolute path of the line with a line number */
    if (in == NULL)
        return 0;
    const char *src = NULL;
    for (const char *q = strstr(in, " /"); q != NULL; q = strstr(q + 1, " /")) {
        const char *colon = strchr(q + 1, ':');
        size_t word = strcspn(q + 1, " ");
        if (colon != NULL && colon < q + 1 + word && colon[1] >= '0' &&
            colon[1] <= '9')
            src = q + 1;
    }
    if (src == NULL)
        return 0;
    size_t n = strcspn(src, " ");
    if (in_tree(src, n))
        return -1;
    if (strstr(src, "/compiler-rt/") != NULL || strncmp(src, "/usr/", 5) == 0)
        return 0;
    frame_function(in, src - 1, out, len);
    return out[0] ? 1 : 0;
}

int fuzz_crash_site(const char *summary, char *out, size_t len)
{
    static const char *const isa[] = {"_avx512", "_avx2", "_scalar"};
    out[0] = '\0';
    if (summary != NULL && strncmp(summary, "plug-in crash: ", 15) == 0) {
        const char *k = summary + 15, *at = strstr(k, " at ");
        if (at == NULL || len < 8)
            return 0;
        const char *site = at + 4;
        size_t sn = strcspn(site, ";");
        snprintf(out, len, "%.*s@%.*s", (int)(at - k < 60 ? at - k : 60), k,
                 (int)(sn < 120 ? sn : 120), site);
        return 1;
    }
    const char *k = summary ? strstr(summary, "Sanitizer: ") : NULL;
    if (k == NULL || len < 8)
        return 0;
    k += 11;
    size_t klen = strcspn(k, " ");
    /* the first source file of the line: the last part folder before
     * ".c:" or ".h:" */
    const char *src = fuzz_source_ref(k);
    if (src == NULL)
        return 0;
    const char *from = NULL;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        for (const char *q = strstr(k, parts[i]); q != NULL && q < src;
             q = strstr(q + 1, parts[i]))
            from = q + 1 > from ? q + 1 : from;
    if (from == NULL)
        return 0;
    size_t flen = (size_t)(src - from);
    for (size_t i = 0; i < sizeof isa / sizeof isa[0]; i++) {
        size_t n = strlen(isa[i]);
        if (flen > n && strncmp(from + flen - n, isa[i], n) == 0) {
            flen -= n;
            break;
        }
    }
    snprintf(out, len, "%.*s@%.*s", (int)(klen < 60 ? klen : 60), k,
             (int)(flen < 120 ? flen : 120), from);
    return 1;
}

/* The PATH|WHERE of a pattern signature (accuracy, nan-leak, metamorphic:
 * KIND|PATH|WHERE), else NULL. */
static const char *pattern_part(const char *sig)
{
    sig = fuzz_signature_body(sig);
    static const char *const kinds[] = {"accuracy|", "nan-leak|",
                                        "metamorphic|"};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (strncmp(sig, kinds[i], strlen(kinds[i])) == 0) {
            const char *pw = sig + strlen(kinds[i]);
            const char *bar = strchr(pw, '|');
            return bar != NULL && strchr(bar + 1, '|') == NULL ? pw : NULL;
        }
    return NULL;
}

int fuzz_signature_compatible(const char *a, const char *b)
{
    if (strcmp(a, b) == 0)
        return 1;
    const char *ba = fuzz_signature_body(a), *bb = fuzz_signature_body(b);
    if (ba - a != bb - b || strncmp(a, b, (size_t)(ba - a)) != 0)
        return 0; /* another system's */
    const char *pa = pattern_part(a), *pb = pattern_part(b);
    if (pa == NULL || pb == NULL)
        return 0; /* status, crash, harness: equal names only */
    const char *ea = strchr(pa, '|'), *eb = strchr(pb, '|');
    if (ea - pa != eb - pb || strncmp(pa, pb, (size_t)(ea - pa)) != 0)
        return 0; /* the other path */
    return strcmp(ea + 1, eb + 1) == 0 || strcmp(ea + 1, "spread") == 0 ||
           strcmp(eb + 1, "spread") == 0;
}
