/* oracle/: the interception rule catalogue, as data.
 *
 * One row per documented rule: id, the feature it belongs to, the citation
 * (document file and section heading), a paraphrase, the layer that raises it
 * and the status it gives in each profile, and a condition on the case.
 * Rows of kind NORMALIZE are documented silent normalizations: they never
 * reject, they record what the operator does instead.  The oracle shares no
 * code with fast/. */
#ifndef FIA_ORACLE_H
#define FIA_ORACLE_H

#include <stddef.h>
#include <stdio.h>
#include "fia/case.h"
#include "fia/error.h"
#include "fia/status.h"

typedef enum fia_rule_kind {
    FIA_RULE_REJECT = 0,    /* a violated condition rejects the call */
    FIA_RULE_NORMALIZE,     /* accepted; the operator rewrites silently */
    FIA_RULE_NOT_MODELED    /* a documented feature fiacheck refuses for now */
} fia_rule_kind;

/* Which check raises a rejection; the lowest layer that fires decides the
 * status (aclnn checks nullptr, then dtype/format, then tiling). */
typedef enum fia_rule_layer {
    FIA_LAYER_NULLPTR = 1,
    FIA_LAYER_DTYPE = 2,
    /* a combination the documents refuse that needs no feature's
     * arithmetic (page attention with left padding, ...): a semantic
     * rejection, decided before "not modeled", which must never hide it */
    FIA_LAYER_EXCLUSION = 3,
    FIA_LAYER_SEMANTIC = 4,
    /* NOT_MODELED rows only: a call every rule can judge whose arithmetic
     * fiacheck lacks (value's head dim unlike the query's): refused only
     * when no rule of the layers above rejects it */
    FIA_LAYER_ARITHMETIC = 5
} fia_rule_layer;

typedef struct fia_oracle_facts fia_oracle_facts; /* oracle/ private */

typedef struct fia_rule {
    const char *id;          /* "MASK-003" */
    const char *feature;     /* "mask", "layout", "gqa", ... */
    fia_rule_kind kind;
    fia_rule_layer layer;
    fia_status doc_status;   /* profile doc */
    fia_status cann_status;  /* profile cann */
    const char *citation;    /* "002 §约束说明 > 当Q_S大于1时" */
    const char *summary;     /* paraphrase of the rule */
    const char *disagreement;/* NULL, or where documents / released code differ */
    /* 1 when the case breaks the rule (REJECT / NOT_MODELED) or the rule
     * applies (NORMALIZE); 0 when obeyed or not applicable. */
    int (*fires)(const fia_oracle_facts *f);
    /* 1 when the rule is applicable and obeyed (for coverage); may be NULL,
     * then "applicable" means "not fired". */
    int (*applies)(const fia_oracle_facts *f);
    /* 1 for a row of profile cann only (its doc status FIA_OK), added
     * beside a documented row the released code reads otherwise
     * (LAYOUT-014 beside LAYOUT-006): not evaluated in profile doc, so
     * the documented profile's verdicts stay the documents' alone. */
    int cann_only;
} fia_rule;

size_t fia_rule_count(void);
const fia_rule *fia_rule_at(size_t i);
const fia_rule *fia_rule_find(const char *id);
/* The catalogue index i of a row (fia_rule_at(i) == r), found from the
 * row's address without comparing ids; (size_t)-1 when r is not a row of
 * the catalogue. */
size_t fia_rule_index(const fia_rule *r);

/* The most rules the catalogue may hold.  A verdict lists each rule at most
 * once, in one of fired / normalized / obeyed, so none of them overflows
 * while fia_rule_count() <= FIA_ORACLE_MAX_RULES; fia_oracle_evaluate()
 * refuses to run otherwise (and tests/test_oracle_catalogue.c checks it),
 * never truncating a list. */
#define FIA_ORACLE_MAX_RULES 512

typedef struct fia_oracle_verdict {
    int accept;                  /* 1: the call is expected to succeed */
    int not_modeled;             /* 1: a NOT_MODELED rule fired */
    fia_status expected;         /* FIA_OK, a reject code, or NOT_MODELED */
    int n_fired;                 /* REJECT / NOT_MODELED rules that fired */
    const fia_rule *fired[FIA_ORACLE_MAX_RULES];
    int n_normalized;            /* NORMALIZE rules that apply */
    const fia_rule *normalized[FIA_ORACLE_MAX_RULES];
    int n_obeyed;                /* applicable REJECT rules not fired */
    const fia_rule *obeyed[FIA_ORACLE_MAX_RULES];
} fia_oracle_verdict;

/* Evaluates every rule on the case (in catalogue order: the order of the
 * lists).  FIA_OK, or FIA_ERR_BAD_INPUT when there is no case or verdict or
 * the catalogue has outgrown FIA_ORACLE_MAX_RULES (message in err). */
fia_status fia_oracle_evaluate(const fia_case *c, fia_profile p,
                               fia_oracle_verdict *v, fia_error *err);

/* The rule a verdict of profile p was decided by alone: the one fired rule
 * whose status in p is not FIA_OK (a REJECT or NOT_MODELED row), when no
 * other fired rule has such a status; NULL when none or several do.  Such
 * a call is accepted by every other rule, so it tests that one check of a
 * system under test by itself. */
const fia_rule *fia_oracle_sole_rule(const fia_oracle_verdict *v,
                                     fia_profile p);

/* 1 when the rule's two profiles give a call it fires on different
 * outcomes: accepted in one and rejected or not modeled in the other, or
 * rejected in one and not modeled in the other (161002 beside 561002 is
 * the same rejection, raised by another layer).  A reading the profiles
 * disagree on is a pair of such rows: one of profile doc only, one of
 * profile cann only (LAYOUT-006 and LAYOUT-014). */
int fia_rule_profiles_differ(const fia_rule *r);

/* Print the catalogue as a table (or JSON lines when json != 0). */
void fia_rules_print(FILE *f, int json);
/* The same, only the rules whose profiles differ (fia_rule_profiles_differ)
 * when differ_only != 0. */
void fia_rules_print_some(FILE *f, int json, int differ_only);

#endif
