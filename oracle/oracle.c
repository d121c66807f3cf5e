/* oracle: the rule catalogue and its evaluation.
 *
 * Evaluation of a case (fia_oracle_evaluate):
 *  1. facts are computed once from the case (facts.c);
 *  2. every REJECT / NOT_MODELED rule whose condition holds is listed in
 *     verdict->fired (even when, like GQA-003 in the cann profile, its status
 *     in the chosen profile is FIA_OK: such a row is listed but decides
 *     nothing); NORMALIZE rows that apply go to verdict->normalized;
 *  3. the expected status: the rejecting rule (status != FIA_OK in the
 *     profile) of the lowest layer among NULLPTR, DTYPE and EXCLUSION;
 *     else FIA_ERR_NOT_MODELED when a NOT_MODELED row of the SEMANTIC
 *     layer fired; else the first rejecting SEMANTIC rule; else
 *     FIA_ERR_NOT_MODELED when an ARITHMETIC-layer row fired; else FIA_OK.
 *  4. when the query and attention_out are both empty (OUT-N01) the operator
 *     returns at once: SEMANTIC-layer REJECT rules are not evaluated, nor
 *     ARITHMETIC-layer rows (nothing is computed);
 *  5. profile cann, when no batch reads a key (f->kv_none): the released
 *     code returns zeros after its early checks, so the REJECT rules of
 *     its later stage (order.c) are not evaluated.
 * Catalogue order decides between rules of the same layer (they all give the
 * same status in a profile anyway). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "oracle_internal.h"

/* The catalogue: the rule files in the order of ORC_RULE_FILES. */
static const struct {
    const fia_rule *rows;
    const size_t *count;
} groups[] = {
#define ORC_GROUP(g) {orc_rules_##g, &orc_rules_##g##_count},
    ORC_RULE_FILES(ORC_GROUP)
#undef ORC_GROUP
};
#define N_GROUPS (sizeof groups / sizeof groups[0])

size_t fia_rule_count(void)
{
    size_t n = 0;
    for (size_t g = 0; g < N_GROUPS; g++)
        n += *groups[g].count;
    return n;
}

const fia_rule *fia_rule_at(size_t i)
{
    for (size_t g = 0; g < N_GROUPS; g++) {
        if (i < *groups[g].count)
            return &groups[g].rows[i];
        i -= *groups[g].count;
    }
    return NULL;
}

size_t fia_rule_index(const fia_rule *r)
{
    size_t base = 0;
    for (size_t g = 0; g < N_GROUPS; g++) {
        const size_t n = *groups[g].count;
        /* compared as addresses: r may point anywhere */
        const uintptr_t a = (uintptr_t)r, lo = (uintptr_t)groups[g].rows;
        if (a >= lo && a < lo + n * sizeof *r && (a - lo) % sizeof *r == 0)
            return base + (a - lo) / sizeof *r;
        base += n;
    }
    return (size_t)-1;
}

const fia_rule *fia_rule_find(const char *id)
{
    if (id == NULL)
        return NULL;
    size_t n = fia_rule_count();
    for (size_t i = 0; i < n; i++) {
        const fia_rule *r = fia_rule_at(i);
        if (strcmp(r->id, id) == 0)
            return r;
    }
    return NULL;
}

static fia_status rule_status(const fia_rule *r, fia_profile p)
{
    return p == FIA_PROFILE_CANN ? r->cann_status : r->doc_status;
}

/* after_stage[i]: 1 when the rule of index i is checked after the
 * released code's empty key/value return (orc_after_empty_kv), found once:
 * a fuzz input of profile cann that reads no key asks it of every rule,
 * and comparing ids there took a tenth of the parameter target's time. */
static unsigned char after_stage[FIA_ORACLE_MAX_RULES];
static pthread_once_t after_stage_once = PTHREAD_ONCE_INIT;

static void find_after_stage(void)
{
    const size_t n = fia_rule_count();
    for (size_t i = 0; i < n && i < FIA_ORACLE_MAX_RULES; i++)
        after_stage[i] = (unsigned char)orc_after_empty_kv(fia_rule_at(i));
}

/* Lists rule r (of index i) in the verdict: fired, normalized or obeyed (each rule at
 * most once in one of them, so no list outgrows the catalogue).  Returns 1
 * when r rejects the case (REJECT or NOT_MODELED fired). */
static int list_rule(const fia_rule *r, size_t i, const fia_oracle_facts *f,
                     fia_profile p, fia_oracle_verdict *v)
{
    if (r->cann_only && p != FIA_PROFILE_CANN)
        return 0;
    if ((((r->kind == FIA_RULE_REJECT && r->layer == FIA_LAYER_SEMANTIC) ||
          r->layer == FIA_LAYER_ARITHMETIC) &&
         f->short_circuit) ||
        (p == FIA_PROFILE_CANN && f->kv_none && after_stage[i])) {
        /* Not evaluated, so not fired; still obeyed where it applies. */
        if (r->applies != NULL && r->applies(f))
            v->obeyed[v->n_obeyed++] = r;
        return 0;
    }
    int fired = r->fires(f);
    if (r->kind == FIA_RULE_NORMALIZE) {
        if (fired)
            v->normalized[v->n_normalized++] = r;
        return 0;
    }
    if (fired) {
        v->fired[v->n_fired++] = r;
        return 1;
    }
    if (r->kind == FIA_RULE_REJECT && (r->applies ? r->applies(f) : 1))
        v->obeyed[v->n_obeyed++] = r;
    return 0;
}

fia_status fia_oracle_evaluate(const fia_case *c, fia_profile p,
                               fia_oracle_verdict *v, fia_error *err)
{
    if (v == NULL)
        return fia_fail(err, FIA_ERR_BAD_INPUT, "oracle: no verdict to fill");
    /* The lists are valid up to their counts: not cleared (they are sized
     * for the whole catalogue, and this runs once per fuzz input). */
    v->accept = 1;
    v->not_modeled = 0;
    v->expected = FIA_OK;
    v->n_fired = v->n_normalized = v->n_obeyed = 0;
    if (c == NULL)
        return fia_fail(err, FIA_ERR_BAD_INPUT, "oracle: no case");
    size_t n = fia_rule_count();
    if (n > FIA_ORACLE_MAX_RULES)
        return fia_fail(err, FIA_ERR_BAD_INPUT,
                        "oracle: the catalogue has %zu rules, more than a "
                        "verdict lists (FIA_ORACLE_MAX_RULES = %d in "
                        "include/fia/oracle.h): raise it", n,
                        FIA_ORACLE_MAX_RULES);

    pthread_once(&after_stage_once, find_after_stage);
    fia_oracle_facts f;
    orc_facts_compute(c, &f);

    const fia_rule *decider = NULL;  /* lowest-layer rejecting rule */
    int nm_fired = 0, nm_late = 0;
    /* catalogue order, walked group by group (i: the catalogue index) */
    for (size_t g = 0, i = 0; g < N_GROUPS; g++)
    for (size_t k = 0; k < *groups[g].count; k++, i++) {
        const fia_rule *r = &groups[g].rows[k];
        if (!list_rule(r, i, &f, p, v))
            continue;
        /* a row of one profile only (its status FIA_OK in the other):
         * listed, deciding nothing here */
        if (r->kind == FIA_RULE_NOT_MODELED && rule_status(r, p) == FIA_OK)
            continue;
        if (r->kind == FIA_RULE_NOT_MODELED && r->layer == FIA_LAYER_ARITHMETIC)
            nm_late = 1;
        else if (r->kind == FIA_RULE_NOT_MODELED)
            nm_fired = 1;
        else if (rule_status(r, p) != FIA_OK &&
                 (decider == NULL || r->layer < decider->layer))
            decider = r;
    }

    if (decider != NULL && decider->layer < FIA_LAYER_SEMANTIC) {
        v->expected = rule_status(decider, p);
    } else if (nm_fired) {
        v->expected = FIA_ERR_NOT_MODELED;
        v->not_modeled = 1;
    } else if (decider != NULL) {
        v->expected = rule_status(decider, p);
    } else if (nm_late) {
        v->expected = FIA_ERR_NOT_MODELED;
        v->not_modeled = 1;
    }
    v->accept = v->expected == FIA_OK;
    fia_error_clear(err);
    return FIA_OK;
}

const fia_rule *fia_oracle_sole_rule(const fia_oracle_verdict *v,
                                     fia_profile p)
{
    const fia_rule *sole = NULL;
    for (int i = 0; v != NULL && i < v->n_fired; i++) {
        if (rule_status(v->fired[i], p) == FIA_OK)
            continue;
        if (sole != NULL)
            return NULL;
        sole = v->fired[i];
    }
    return sole;
}

/* ---- printing ----------------------------------------------------------- */

static const char *kind_name(fia_rule_kind k)
{
    switch (k) {
    case FIA_RULE_REJECT:
        return "reject";
    case FIA_RULE_NORMALIZE:
        return "normalize";
    case FIA_RULE_NOT_MODELED:
        return "not_modeled";
    }
    return "?";
}

static const char *layer_name(fia_rule_layer l)
{
    switch (l) {
    case FIA_LAYER_NULLPTR:
        return "nullptr";
    case FIA_LAYER_DTYPE:
        return "dtype";
    case FIA_LAYER_EXCLUSION:
        return "exclusion";
    case FIA_LAYER_SEMANTIC:
        return "semantic";
    case FIA_LAYER_ARITHMETIC:
        return "arithmetic";
    }
    return "?";
}

static void json_str(FILE *out, const char *s)
{
    if (s == NULL) {
        fputs("null", out);
        return;
    }
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"':
            fputs("\\\"", out);
            break;
        case '\\':
            fputs("\\\\", out);
            break;
        case '\n':
            fputs("\\n", out);
            break;
        case '\r':
            fputs("\\r", out);
            break;
        case '\t':
            fputs("\\t", out);
            break;
        case '\b':
            fputs("\\b", out);
            break;
        case '\f':
            fputs("\\f", out);
            break;
        default:
            if (*p < 0x20 || *p == 0x7f)
                fprintf(out, "\\u%04x", *p);
            else
                fputc(*p, out); /* UTF-8 passes through */
        }
    }
    fputc('"', out);
}

static void status_cell(char *buf, size_t len, const fia_rule *r, int cann)
{
    fia_status st = cann ? r->cann_status : r->doc_status;
    if (r->kind == FIA_RULE_NORMALIZE)
        snprintf(buf, len, "-");
    else if (st == FIA_OK)
        snprintf(buf, len, "accept");
    else
        snprintf(buf, len, "%ld", (long)st);
}

/* accept 0, reject 1, not modeled 2: what a call the rule fires on gets */
static int outcome(const fia_rule *r, fia_status st)
{
    if (r->kind == FIA_RULE_NORMALIZE || st == FIA_OK)
        return 0;
    return st == FIA_ERR_NOT_MODELED ? 2 : 1;
}

int fia_rule_profiles_differ(const fia_rule *r)
{
    return r != NULL &&
           outcome(r, r->doc_status) != outcome(r, r->cann_status);
}

void fia_rules_print(FILE *f, int json)
{
    fia_rules_print_some(f, json, 0);
}

void fia_rules_print_some(FILE *f, int json, int differ_only)
{
    if (f == NULL)
        return;
    size_t n = fia_rule_count();
    if (!json)
        fprintf(f, "%-11s %-12s %-11s %-8s %-7s %-7s %s\n", "id", "feature",
                "kind", "layer", "doc", "cann", "citation | summary");
    for (size_t i = 0; i < n; i++) {
        const fia_rule *r = fia_rule_at(i);
        if (differ_only && !fia_rule_profiles_differ(r))
            continue;
        if (json) {
            fputs("{\"id\":", f);
            json_str(f, r->id);
            fputs(",\"feature\":", f);
            json_str(f, r->feature);
            fputs(",\"kind\":", f);
            json_str(f, kind_name(r->kind));
            fputs(",\"layer\":", f);
            json_str(f, layer_name(r->layer));
            fprintf(f, ",\"doc_status\":%ld,\"cann_status\":%ld",
                    (long)r->doc_status, (long)r->cann_status);
            fputs(",\"citation\":", f);
            json_str(f, r->citation);
            fputs(",\"summary\":", f);
            json_str(f, r->summary);
            fputs(",\"disagreement\":", f);
            json_str(f, r->disagreement);
            fprintf(f, ",\"cann_after_empty_kv\":%s",
                    orc_after_empty_kv(r) ? "true" : "false");
            fputs("}\n", f);
            continue;
        }
        char doc[16], cann[16];
        status_cell(doc, sizeof doc, r, 0);
        status_cell(cann, sizeof cann, r, 1);
        fprintf(f, "%-11s %-12s %-11s %-9s %-7s %-7s %s | %s\n", r->id,
                r->feature, kind_name(r->kind), layer_name(r->layer), doc,
                cann, r->citation, r->summary);
        if (r->disagreement)
            fprintf(f, "            disagreement: %s\n", r->disagreement);
        if (orc_after_empty_kv(r))
            fprintf(f, "            cann: %s\n", ORC_AFTER_EMPTY_KV_NOTE);
    }
}
