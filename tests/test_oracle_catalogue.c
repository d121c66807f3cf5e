/* The interception rule catalogue (oracle/) itself: every row well formed
 * (id, feature, citation, summary, layer, statuses), one rules file per
 * feature, a break/obey row for every rule in the tables of
 * tests/test_oracle_<feature>.c, and the catalogue as printed. */
#include "oracle_testlib.h"
#include "oracle_cases_tensors.h"
#include "oracle_cases_layout.h"
#include "oracle_cases_mask.h"
#include "oracle_cases_mla.h"
#include "oracle_cases_quant.h"
#include "oracle_cases_kv.h"

/* The break/obey tables of test_oracle_<feature>.c. */
static const struct {
    const rule_case *rows;
    size_t n;
} tables[] = {
    {oracle_cases_tensors, OTL_ROWS(oracle_cases_tensors)},
    {oracle_cases_layout, OTL_ROWS(oracle_cases_layout)},
    {oracle_cases_mask, OTL_ROWS(oracle_cases_mask)},
    {oracle_cases_mla, OTL_ROWS(oracle_cases_mla)},
    {oracle_cases_quant, OTL_ROWS(oracle_cases_quant)},
    {oracle_cases_kv, OTL_ROWS(oracle_cases_kv)},
};

static void test_catalogue(void)
{
    size_t n = fia_rule_count();
    CHECK(n > 50);
    /* a verdict lists each rule at most once in one of its lists */
    CHECK_MSG(n <= FIA_ORACLE_MAX_RULES, "the catalogue has %zu rules, more "
              "than FIA_ORACLE_MAX_RULES (%d): raise it in "
              "include/fia/oracle.h", n, FIA_ORACLE_MAX_RULES);
    CHECK(fia_rule_at(n) == NULL);
    CHECK(fia_rule_find("NO-SUCH-RULE") == NULL);
    CHECK(fia_rule_find(NULL) == NULL);
    for (size_t i = 0; i < n; i++) {
        const fia_rule *r = fia_rule_at(i);
        CHECK(r != NULL);
        if (!r)
            continue;
        CHECK_MSG(r->id && *r->id, "row %zu: no id", i);
        CHECK_MSG(r->feature && *r->feature, "%s: no feature", r->id);
        /* one list of feature names: include/fia/feature.h */
        CHECK_MSG(r->feature && fia_feature_from_name(r->feature) >= 0,
                  "%s: feature '%s' is not a name of include/fia/feature.h",
                  r->id, r->feature ? r->feature : "(null)");
        CHECK_MSG(r->citation && strlen(r->citation) > 4, "%s: no citation",
                  r->id);
        CHECK_MSG(r->summary && strlen(r->summary) > 10, "%s: no summary",
                  r->id);
        CHECK_MSG(r->fires != NULL, "%s: no predicate", r->id);
        CHECK_MSG(fia_rule_find(r->id) == r, "%s: id not unique", r->id);
        CHECK_MSG(r->layer >= FIA_LAYER_NULLPTR &&
                      (r->layer <= FIA_LAYER_SEMANTIC ||
                       (r->layer == FIA_LAYER_ARITHMETIC &&
                        r->kind == FIA_RULE_NOT_MODELED)),
                  "%s: layer", r->id);
        /* citation starts with a document prefix or RELEASED */
        CHECK_MSG(strncmp(r->citation, "00", 2) == 0 ||
                      strncmp(r->citation, "RELEASED", 8) == 0,
                  "%s: citation '%s'", r->id, r->citation);
        switch (r->kind) {
        case FIA_RULE_REJECT:
            /* a rule of one profile only accepts in the other, with its
             * disagreement note */
            CHECK_MSG(r->doc_status != FIA_OK || r->cann_status != FIA_OK,
                      "%s: no status", r->id);
            CHECK_MSG(r->doc_status == FIA_ERR_PARAM_NULLPTR ||
                          r->doc_status == FIA_ERR_PARAM_INVALID ||
                          (r->doc_status == FIA_OK && r->disagreement),
                      "%s: doc status %d", r->id, (int)r->doc_status);
            CHECK_MSG(r->cann_status == FIA_ERR_PARAM_NULLPTR ||
                          r->cann_status == FIA_ERR_PARAM_INVALID ||
                          r->cann_status == FIA_ERR_INNER_TILING_ERROR ||
                          (r->cann_status == FIA_OK && r->disagreement),
                      "%s: cann status %d", r->id, (int)r->cann_status);
            if (r->layer == FIA_LAYER_NULLPTR)
                CHECK_MSG(r->doc_status == FIA_ERR_PARAM_NULLPTR, "%s",
                          r->id);
            if (r->layer == FIA_LAYER_DTYPE)
                CHECK_MSG(r->doc_status == FIA_ERR_PARAM_INVALID &&
                              r->cann_status == FIA_ERR_PARAM_INVALID,
                          "%s", r->id);
            if (r->layer == FIA_LAYER_SEMANTIC && r->cann_status != FIA_OK &&
                r->doc_status != FIA_OK)
                CHECK_MSG(r->doc_status == FIA_ERR_PARAM_INVALID &&
                              r->cann_status == FIA_ERR_INNER_TILING_ERROR,
                          "%s", r->id);
            break;
        case FIA_RULE_NOT_MODELED:
            /* both profiles, or one of them (FIA_OK in the other, with
             * the reason) */
            CHECK_MSG((r->doc_status == FIA_ERR_NOT_MODELED ||
                       (r->doc_status == FIA_OK && r->disagreement)) &&
                          (r->cann_status == FIA_ERR_NOT_MODELED ||
                           (r->cann_status == FIA_OK && r->disagreement)),
                      "%s", r->id);
            break;
        case FIA_RULE_NORMALIZE:
            CHECK_MSG(r->doc_status == FIA_OK && r->cann_status == FIA_OK,
                      "%s", r->id);
            break;
        }
    }
}

/* One rules file per feature: every feature of include/fia/feature.h has
 * one (oracle/rules_<name>.c), and its rows carry its name. */
static void test_rule_files(void)
{
    static const char *const files[] = {
#define FILE_NAME(g) #g,
        ORC_RULE_FILES(FILE_NAME)
#undef FILE_NAME
    };
    const size_t nfiles = sizeof files / sizeof files[0];
    for (int f = 0; f < FIA_FEATURE_COUNT; f++) {
        int found = 0;
        for (size_t i = 0; i < nfiles; i++)
            found |= strcmp(files[i], fia_feature_name((fia_feature)f)) == 0;
        CHECK_MSG(found, "feature %s has no oracle/rules_%s.c in "
                  "ORC_RULE_FILES", fia_feature_name((fia_feature)f),
                  fia_feature_name((fia_feature)f));
    }
#define ROWS(g)                                                              \
    for (size_t i = 0; i < orc_rules_##g##_count; i++)                       \
        CHECK_MSG(strcmp(orc_rules_##g[i].feature, #g) == 0,                 \
                  "%s in rules_%s.c has feature %s", orc_rules_##g[i].id, #g, \
                  orc_rules_##g[i].feature);
    ORC_RULE_FILES(ROWS)
#undef ROWS
}

/* Every catalogue row has a break/obey row in one of the tables. */
static void test_coverage(void)
{
    size_t n = fia_rule_count();
    for (size_t i = 0; i < n; i++) {
        const fia_rule *r = fia_rule_at(i);
        int found = 0;
        for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
            for (size_t j = 0; j < tables[t].n; j++)
                if (strcmp(tables[t].rows[j].id, r->id) == 0)
                    found = 1;
        CHECK_MSG(found, "rule %s has no break/obey test", r->id);
    }
}

/* fia_rule_index finds a row's index from its address alone, and only a
 * row's: a copy of a row, an address inside one, NULL are no row. */
static void test_index(void)
{
    size_t n = fia_rule_count();
    for (size_t i = 0; i < n; i++)
        CHECK_MSG(fia_rule_index(fia_rule_at(i)) == i, "row %zu", i);
    CHECK(fia_rule_index(NULL) == (size_t)-1);
    fia_rule copy = *fia_rule_at(0);
    CHECK(fia_rule_index(&copy) == (size_t)-1);
    const char *inside = (const char *)fia_rule_at(1) + 1;
    CHECK(fia_rule_index((const fia_rule *)(const void *)inside) == (size_t)-1);
}

/* The rule deciding a verdict alone: one fired rule whose status in the
 * profile rejects; a fired row whose status there is FIA_OK decides
 * nothing and does not count. */
static void test_sole_rule(void)
{
    static fia_oracle_verdict v;
    const fia_rule *doc_only = fia_rule_find("LAYOUT-006"); /* cann: OK */
    const fia_rule *cann_only = fia_rule_find("LAYOUT-014"); /* doc: OK */
    const fia_rule *both = fia_rule_find("MASK-003");
    CHECK(doc_only && cann_only && both);
    if (!doc_only || !cann_only || !both)
        return;
    CHECK(doc_only->cann_status == FIA_OK && cann_only->doc_status == FIA_OK);
    CHECK(both->doc_status != FIA_OK && both->cann_status != FIA_OK);
    CHECK(fia_oracle_sole_rule(NULL, FIA_PROFILE_DOC) == NULL);
    v.n_fired = 0;
    CHECK(fia_oracle_sole_rule(&v, FIA_PROFILE_DOC) == NULL);
    v.n_fired = 1, v.fired[0] = doc_only;
    CHECK(fia_oracle_sole_rule(&v, FIA_PROFILE_DOC) == doc_only);
    CHECK(fia_oracle_sole_rule(&v, FIA_PROFILE_CANN) == NULL);
    v.n_fired = 2, v.fired[1] = cann_only;
    CHECK(fia_oracle_sole_rule(&v, FIA_PROFILE_DOC) == doc_only);
    CHECK(fia_oracle_sole_rule(&v, FIA_PROFILE_CANN) == cann_only);
    v.n_fired = 3, v.fired[2] = both;
    CHECK(fia_oracle_sole_rule(&v, FIA_PROFILE_DOC) == NULL);
    CHECK(fia_oracle_sole_rule(&v, FIA_PROFILE_CANN) == NULL);

    /* a real verdict: MASK-003's break row decided by it alone, its obey
     * row by nothing */
    const char *brk = NULL;
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
        for (size_t j = 0; j < tables[t].n; j++)
            if (strcmp(tables[t].rows[j].id, "MASK-003") == 0) {
                char *text = mk(tables[t].rows[j].base_break,
                                tables[t].rows[j].over_break);
                CHECK(eval(text, FIA_PROFILE_DOC, &v) == 0);
                CHECK(fia_oracle_sole_rule(&v, FIA_PROFILE_DOC) == both);
                free(text);
                text = mk(tables[t].rows[j].base_obey,
                          tables[t].rows[j].over_obey);
                CHECK(eval(text, FIA_PROFILE_DOC, &v) == 0);
                CHECK(fia_oracle_sole_rule(&v, FIA_PROFILE_DOC) == NULL);
                free(text);
                brk = "found";
            }
    CHECK(brk != NULL);
}

static void test_print(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(f != NULL);
    if (!f)
        return;
    fia_rules_print(f, 1);
    fclose(f);
    /* one JSON object per line, one line per rule */
    size_t lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += buf[i] == '\n';
    CHECK_EQ_INT(lines, fia_rule_count());
    CHECK(strncmp(buf, "{\"id\":\"TENS-001\"", 16) == 0);
    CHECK(strstr(buf, "\"disagreement\":null") != NULL);
    CHECK(strstr(buf, "'\xe5\xbb\xba\xe8\xae\xae") != NULL); /* UTF-8 kept */
    free(buf);

    buf = NULL;
    f = open_memstream(&buf, &len);
    fia_rules_print(f, 0);
    fclose(f);
    CHECK(strstr(buf, "MASK-002") != NULL);
    CHECK(strstr(buf, "disagreement:") != NULL);
    CHECK(strstr(buf, "561002") != NULL);
    free(buf);
}

int main(void)
{
    test_catalogue();
    test_rule_files();
    test_coverage();
    test_index();
    test_sole_rule();
    test_print();
    return check_summary();
}
