/* `fiacheck rules --api NAME [--present] [--json]`: the rule catalogue as
 * one interface sees it (docs/cli.md).  The rules are written once, in
 * 002's parameter names; here each summary speaks the interface's names
 * (core/case_api.c), and a rule that concerns something the interface
 * does not have (a parameter it lacks, a feature it does not document, a
 * Q_S > 1 rule for the decode-only 001) is marked, or left out with
 * --present.  A view only: the rules, and how they judge a case written
 * through the interface, are the same. */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "fia/case.h"
#include "fia/oracle.h"

/* Features an interface does not document at all, whatever their rules
 * name: 003 and 004 send left padding (and 003 the system prefix) to the
 * old interface (003 §功能说明); 000 and 001 document only the four 002
 * layouts and none of 003's extras; 001 takes one key tensor, no sparse
 * mode and returns no softmax_lse; 001 alone lists a second product, the
 * inference card (the product rows are its own); 003 and 004 alone have
 * the reserved *_dtype parameters. */
static const char *const absent_features[FIA_API_COUNT][10] = {
    [FIA_API_ACLNN_V2] = {"product", "reserved"},
    [FIA_API_TORCH_NPU_V2] = {"padding", "prefix", "product"},
    [FIA_API_TORCHAIR_V2] = {"padding", "product"},
    [FIA_API_MINDSPORE] = {"tnd", "mla", "query_quant", "product",
                           "reserved"},
    [FIA_API_INCRE_FLASH_ATTENTION] = {"tnd", "mla", "query_quant", "sparse",
                                       "lse", "prefix", "tensor_list",
                                       "reserved"},
};

typedef struct view {
    char summary[2048];
    char absent[512];      /* ", "-separated: what the interface lacks */
    int concerns;          /* 0: the rule concerns what it does not have */
} view;

static void add(char *buf, size_t cap, const char *s, size_t n)
{
    size_t len = strlen(buf);
    if (len + n >= cap)
        n = len + 1 < cap ? cap - len - 1 : 0;
    memcpy(buf + len, s, n);
    buf[len + n] = '\0';
}

static void note_absent(view *v, const char *what)
{
    v->concerns = 0;
    if (strstr(v->absent, what) == NULL) {   /* once each */
        if (v->absent[0])
            add(v->absent, sizeof v->absent, ", ", 2);
        add(v->absent, sizeof v->absent, what, strlen(what));
    }
}

static int is_word(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
           (ch >= '0' && ch <= '9') || ch == '_';
}

/* A parameter name of 002's vocabulary: words with '_' (the summaries'
 * prose has none), and "scale" only opening a summary (elsewhere it is
 * the prose word: "an offset comes with its scale"). */
static int is_param(const char *w, size_t n, int first)
{
    char word[64];
    if (n >= sizeof word)
        return 0;
    memcpy(word, w, n);
    word[n] = '\0';
    if (fia_api_param(FIA_API_ACLNN_V2, word) == NULL)
        return 0;
    return memchr(word, '_', n) != NULL || (first && strcmp(word, "scale") == 0);
}

static void make_view(const fia_rule *r, fia_api api, view *v)
{
    memset(v, 0, sizeof *v);
    v->concerns = 1;
    for (int i = 0; i < 10 && absent_features[api][i]; i++)
        if (strcmp(r->feature, absent_features[api][i]) == 0) {
            char what[64];
            snprintf(what, sizeof what, "feature %s", r->feature);
            note_absent(v, what);
        }
    const char *s = r->summary ? r->summary : "";
    if (api == FIA_API_INCRE_FLASH_ATTENTION && strstr(s, "Q_S > 1") &&
        !strstr(s, "Q_S = 1"))
        note_absent(v, "Q_S > 1 (decode only)");
    for (const char *p = s; *p;) {
        if (!is_word(*p)) {
            add(v->summary, sizeof v->summary, p, 1);
            p++;
            continue;
        }
        const char *e = p;
        while (is_word(*e))
            e++;
        size_t n = (size_t)(e - p);
        if (is_param(p, n, p == s)) {
            char word[64];
            memcpy(word, p, n);
            word[n] = '\0';
            const char *here = fia_api_param(api, word);
            if (here) {
                add(v->summary, sizeof v->summary, here, strlen(here));
            } else {
                add(v->summary, sizeof v->summary, word, n);
                add(v->summary, sizeof v->summary, "(n/a)", 5);
                note_absent(v, word);
            }
        } else {
            add(v->summary, sizeof v->summary, p, n);
        }
        p = e;
    }
}

static const char *kind_name(const fia_rule *r)
{
    return r->kind == FIA_RULE_REJECT      ? "reject"
         : r->kind == FIA_RULE_NORMALIZE ? "normalize"
                                         : "not_modeled";
}

static void status_cell(char *buf, size_t len, const fia_rule *r,
                        fia_status st)
{
    if (r->kind == FIA_RULE_NORMALIZE)
        snprintf(buf, len, "-");
    else if (st == FIA_OK)
        snprintf(buf, len, "accept");
    else
        snprintf(buf, len, "%ld", (long)st);
}

int cli_rules_api(fia_api api, int present_only, int json)
{
    size_t n = fia_rule_count();
    int absent = 0;
    const char *nm = fia_api_name(api);
    if (!json)
        printf("# the catalogue as %s (%s, %s) sees it: parameter names in "
               "its words, NAME(n/a) a parameter it does not have\n"
               "%-11s %-12s %-11s %-7s %-7s %-4s %s\n", nm, fia_api_doc(api),
               fia_api_function(api), "id", "feature", "kind", "doc", "cann",
               "has", "summary [what it lacks]");
    for (size_t i = 0; i < n; i++) {
        const fia_rule *r = fia_rule_at(i);
        view v;
        make_view(r, api, &v);
        absent += !v.concerns;
        if (present_only && !v.concerns)
            continue;
        if (json) {
            printf("{\"id\":");
            cli_json_string(stdout, r->id);
            printf(",\"feature\":");
            cli_json_string(stdout, r->feature);
            printf(",\"kind\":\"%s\",\"doc_status\":%ld,\"cann_status\":%ld,"
                   "\"api\":\"%s\",\"concerns\":%s,\"absent\":[",
                   kind_name(r), (long)r->doc_status, (long)r->cann_status,
                   nm, v.concerns ? "true" : "false");
            /* the list, one JSON string per ", "-separated item */
            for (char *p = v.absent, *q; *p; p = q) {
                q = strstr(p, ", ");
                char item[256];
                size_t len = q ? (size_t)(q - p) : strlen(p);
                if (len >= sizeof item)
                    len = sizeof item - 1;
                memcpy(item, p, len);
                item[len] = '\0';
                if (p != v.absent)
                    putchar(',');
                cli_json_string(stdout, item);
                q = q ? q + 2 : p + strlen(p);
            }
            printf("],\"citation\":");
            cli_json_string(stdout, r->citation);
            printf(",\"summary\":");
            cli_json_string(stdout, v.summary);
            printf("}\n");
            continue;
        }
        char doc[16], cann[16];
        status_cell(doc, sizeof doc, r, r->doc_status);
        status_cell(cann, sizeof cann, r, r->cann_status);
        printf("%-11s %-12s %-11s %-7s %-7s %-4s %s", r->id, r->feature,
               kind_name(r), doc, cann, v.concerns ? "yes" : "no", v.summary);
        if (!v.concerns)
            printf(" [%s]", v.absent);
        printf("\n");
    }
    if (!json)
        printf("%zu rules: %zu concern what %s has, %d what it lacks%s\n", n,
               n - (size_t)absent, nm, absent,
               present_only ? " (not shown)" : "");
    return CLI_EXIT_OK;
}
