/* `fiacheck report`: the tables read straight from the store -- the
 * summary, the campaigns, the findings with their case texts, and the rule
 * coverage against the whole catalogue.  Every row is one line of HTML with
 * an id (campaign-ID, finding-ID, rule-ID), so a reader can link to it and
 * a test can find it. */
#include <stdlib.h>
#include <string.h>
#include "fia/oracle.h"
#include "report.h"

/* A case text longer than this is cut in the page (db show has it all):
 * a live_rows case is short, but an imported one may carry its data. */
#define CASE_TEXT_MAX (64 * 1024)

static void cell_int(FILE *f, const char *cls, int64_t v)
{
    fprintf(f, "<td class=\"n %s\">%lld</td>", cls, (long long)v);
}

static void cell_text(FILE *f, const char *cls, const char *v)
{
    fprintf(f, "<td class=\"%s\">", cls);
    rh_text(f, v, SIZE_MAX);
    fputs("</td>", f);
}

static void cell_time(FILE *f, const char *cls, int64_t t)
{
    char buf[32];
    rh_iso(buf, sizeof buf, t);
    fprintf(f, "<td class=\"%s\">%s</td>", cls, buf);
}

fia_status rt_summary(FILE *f, fia_store *s)
{
    fia_store_summary m;
    fia_status rc = fia_store_get_summary(s, &m);
    if (rc != FIA_OK)
        return rc;
    fputs("<div class=\"summary\">", f);
    fprintf(f, "<div id=\"sum-campaigns\"><b>%lld</b>campaigns</div>",
            (long long)m.campaigns);
    fprintf(f, "<div id=\"sum-execs\"><b>%lld</b>executions, %.0f s</div>",
            (long long)m.execs, m.seconds);
    fprintf(f, "<div id=\"sum-findings\"><b>%lld</b>findings: %lld open, "
            "%lld fixed, <span class=\"%s\">%lld regressed</span></div>",
            (long long)m.findings, (long long)m.open, (long long)m.fixed,
            m.regressed ? "bad" : "", (long long)m.regressed);
    fprintf(f, "<div id=\"sum-sightings\"><b>%lld</b>sightings</div>",
            (long long)m.sightings);
    fprintf(f, "<div id=\"sum-accuracy\"><b>%lld</b>cases in accuracy "
            "statistics</div>", (long long)m.accuracy_cases);
    fputs("</div>\n", f);
    return FIA_OK;
}

static int campaign_row(const fia_store_campaign *c, void *ctx)
{
    FILE *f = ctx;
    fprintf(f, "<tr id=\"campaign-%lld\">", (long long)c->id);
    cell_int(f, "id", c->id);
    fputs("<td class=\"revision\">", f);
    rh_revision(f, c->revision);
    fputs("</td>", f);
    cell_text(f, "target", c->target);
    cell_text(f, "profile", c->profile);
    cell_text(f, "tolerance", c->tolerance);
    cell_time(f, "started", c->started);
    fprintf(f, "<td class=\"n seconds\">%.1f</td>", c->seconds);
    cell_int(f, "execs", c->execs);
    fprintf(f, "<td class=\"n rate\">%.0f</td>",
            c->seconds > 0 ? (double)c->execs / c->seconds : 0.0);
    cell_int(f, "coverage", c->coverage);
    cell_int(f, "findings", c->findings);
    if (c->ttff >= 0)
        fprintf(f, "<td class=\"n ttff\">%.1f s</td>", c->ttff);
    else
        fputs("<td class=\"n ttff dim\">-</td>", f);
    fprintf(f, "<td class=\"state\">%s</td></tr>\n",
            c->finished ? "finished" : "<span class=\"warn\">unfinished"
                                        "</span>");
    return 0;
}

fia_status rt_campaigns(FILE *f, fia_store *s)
{
    fputs("<h2 id=\"campaigns\">Campaigns</h2>\n<table class=\"campaigns\">"
          "<thead><tr><th class=\"n\">id</th><th>revision</th><th>target</th>"
          "<th>profile</th><th>tolerance</th><th>started (UTC)</th>"
          "<th class=\"n\">seconds</th><th class=\"n\">execs</th>"
          "<th class=\"n\">execs/s</th><th class=\"n\">coverage</th>"
          "<th class=\"n\">findings</th><th class=\"n\">first finding</th>"
          "<th>state</th></tr></thead>\n<tbody>\n", f);
    fia_status rc = fia_store_list_campaigns(s, campaign_row, f);
    fputs("</tbody></table>\n", f);
    return rc;
}

typedef struct finding_out {
    FILE *f, *cases;
    int n;
} finding_out;

/* The case text of a finding under its anchor. */
static void case_block(FILE *c, const fia_store_finding *x)
{
    const char *text = x->minimized_text ? x->minimized_text : x->case_text;
    const size_t len = strlen(text ? text : "");
    fprintf(c, "<div class=\"case\" id=\"case-%lld\"><h3>finding %lld "
            "(<a href=\"#finding-%lld\">back</a>): %s case</h3>\n"
            "<p class=\"sig\">", (long long)x->id, (long long)x->id,
            (long long)x->id, x->minimized_text ? "minimized" : "smallest");
    rh_text(c, x->signature, SIZE_MAX);
    fputs("</p>\n", c);
    if (x->message) {
        fputs("<p>", c);
        rh_text(c, x->message, SIZE_MAX);
        fputs("</p>\n", c);
    }
    fputs("<pre>", c);
    rh_text(c, text, CASE_TEXT_MAX);
    fputs("</pre>\n", c);
    if (len > CASE_TEXT_MAX)
        fprintf(c, "<p class=\"warn\">%zu more bytes: <code>fiacheck db show "
                "%lld</code> has it all.</p>\n", len - CASE_TEXT_MAX,
                (long long)x->id);
    fputs("</div>\n", c);
}

static int finding_row(const fia_store_finding *x, void *ctx)
{
    finding_out *o = ctx;
    FILE *f = o->f;
    o->n++;
    fprintf(f, "<tr id=\"finding-%lld\">", (long long)x->id);
    cell_int(f, "id", x->id);
    fprintf(f, "<td class=\"state%s\">", strcmp(x->state, "regressed") == 0
                                            ? " bad" : "");
    rh_text(f, x->state, SIZE_MAX);
    fputs("</td><td><span class=\"kind\">", f);
    rh_text(f, x->kind, SIZE_MAX);
    fputs("</span></td>", f);
    cell_text(f, "sig", x->signature);
    cell_time(f, "first", x->first_seen);
    fputs("<td class=\"revision\">", f);
    rh_revision(f, x->revision);
    fputs("</td>", f);
    cell_time(f, "last", x->last_seen);
    fputs("<td class=\"revision\">", f);
    rh_revision(f, x->last_revision);
    fputs("</td>", f);
    cell_int(f, "count", x->count);
    cell_text(f, "target", x->target);
    cell_text(f, "sut", x->sut);
    fprintf(f, "<td class=\"case\"><a href=\"#case-%lld\">%s</a></td></tr>\n",
            (long long)x->id, x->minimized_text ? "minimized" : "case");
    case_block(o->cases, x);
    return 0;
}

fia_status rt_findings(FILE *f, fia_store *s, FILE *cases)
{
    fputs("<h2 id=\"findings\">Findings</h2>\n"
          "<p>One row per signature (one name per bug: docs/cli.md "
          "\"Finding signatures\"); the case is the minimized one when "
          "<code>fiacheck minimize</code> made one, else the smallest seen."
          "</p>\n<table class=\"findings\"><thead><tr><th class=\"n\">id"
          "</th><th>state</th><th>kind</th><th>signature</th>"
          "<th>first seen (UTC)</th><th>at</th><th>last seen (UTC)</th>"
          "<th>at</th><th class=\"n\">count</th><th>target</th><th>system</th>"
          "<th>case</th>"
          "</tr></thead>\n<tbody>\n", f);
    finding_out o = {f, cases, 0};
    fia_status rc = fia_store_list_findings(s, NULL, finding_row, &o);
    fputs("</tbody></table>\n", f);
    if (rc == FIA_OK && o.n == 0)
        fputs("<p class=\"good\">No findings.</p>\n", f);
    return rc;
}

/* ---- rule coverage ------------------------------------------------------ */

typedef struct rule_cov {
    int64_t broken, obeyed;
} rule_cov;

typedef struct extra_rule { /* a rule the store counts, not the catalogue */
    char *id;
    int64_t broken, obeyed;
} extra_rule;

typedef struct cov_ctx {
    rule_cov *cnt;
    extra_rule *extra;
    size_t nextra, cap;
    int nomem;
} cov_ctx;

static int cov_row(const char *rule_id, int64_t broken, int64_t obeyed,
                   void *ctx)
{
    cov_ctx *c = ctx;
    const fia_rule *r = fia_rule_find(rule_id);
    for (size_t i = 0; r && i < fia_rule_count(); i++)
        if (fia_rule_at(i) == r) {
            c->cnt[i].broken += broken;
            c->cnt[i].obeyed += obeyed;
            return 0;
        }
    if (c->nextra == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 16;
        extra_rule *e = realloc(c->extra, cap * sizeof *e);
        if (e == NULL) {
            c->nomem = 1;
            return 1;
        }
        c->extra = e;
        c->cap = cap;
    }
    extra_rule *e = &c->extra[c->nextra];
    if ((e->id = strdup(rule_id)) == NULL) {
        c->nomem = 1;
        return 1;
    }
    e->broken = broken;
    e->obeyed = obeyed;
    c->nextra++;
    return 0;
}

/* The group a rule's counts put it in, in the order the table lists them:
 * 0 never hit, 1 never broken (applied), 2 never obeyed, 3 covered.  The
 * words are those of `fiacheck rules --coverage`. */
static int cov_group(const fia_rule *r, const rule_cov *k)
{
    const int reject = r->kind == FIA_RULE_REJECT;
    if (k->broken == 0 && (k->obeyed == 0 || !reject))
        return 0;
    if (k->broken == 0)
        return 1;
    if (reject && k->obeyed == 0)
        return 2;
    return 3;
}

static const char *const group_names[] = {
    "<span class=\"bad\">never hit</span>",
    "<span class=\"warn\">never broken</span>",
    "<span class=\"warn\">never obeyed</span>",
    "<span class=\"good\">both</span>"};

static const char *kind_name(const fia_rule *r)
{
    return r->kind == FIA_RULE_REJECT      ? "reject"
         : r->kind == FIA_RULE_NORMALIZE ? "normalize"
                                         : "not-modeled";
}

static void rule_row(FILE *f, const fia_rule *r, const rule_cov *k, int g)
{
    fputs("<tr id=\"rule-", f);
    rh_text(f, r->id, SIZE_MAX);
    fputs("\">", f);
    cell_text(f, "rule", r->id);
    cell_text(f, "feature", r->feature);
    fprintf(f, "<td class=\"rkind\">%s</td>", kind_name(r));
    cell_int(f, "broken", k->broken);
    if (r->kind == FIA_RULE_REJECT)
        cell_int(f, "obeyed", k->obeyed);
    else
        fputs("<td class=\"n obeyed dim\">-</td>", f);
    /* a long summary cut at a word, whole in the cell's title */
    fprintf(f, "<td class=\"missing\">%s</td><td class=\"summary-text\" "
            "title=\"", group_names[g]);
    rh_text(f, r->summary, SIZE_MAX);
    fputs("\">", f);
    rh_text_cut(f, r->summary, 200);
    fputs("</td></tr>\n", f);
}

fia_status rt_coverage(FILE *f, fia_store *s)
{
    const size_t n = fia_rule_count();
    cov_ctx c = {calloc(n ? n : 1, sizeof *c.cnt), NULL, 0, 0, 0};
    if (c.cnt == NULL)
        return FIA_ERR_NOMEM;
    fia_status rc = fia_store_list_rule_coverage(s, NULL, cov_row, &c);
    if (rc == FIA_OK && c.nomem)
        rc = FIA_ERR_NOMEM;
    if (rc == FIA_OK) {
        int count[4] = {0, 0, 0, 0};
        for (size_t i = 0; i < n; i++)
            count[cov_group(fia_rule_at(i), &c.cnt[i])]++;
        fprintf(f, "<h2 id=\"coverage\">Rule coverage</h2>\n<p>Every rule "
                "of the catalogue (%zu), with how many cases broke it "
                "(normalizations: were rewritten by it) and obeyed it, "
                "summed over the store's campaigns; the rules never hit "
                "come first. <span id=\"cov-counts\">%d never hit, %d never "
                "broken, %d never obeyed, %d both.</span></p>\n"
                "<table class=\"coverage\"><thead><tr><th>rule</th>"
                "<th>feature</th><th>kind</th><th class=\"n\">broken</th>"
                "<th class=\"n\">obeyed</th><th>missing</th><th>rule says"
                "</th></tr></thead>\n<tbody>\n", n, count[0], count[1],
                count[2], count[3]);
        for (int g = 0; g < 4; g++)
            for (size_t i = 0; i < n; i++)
                if (cov_group(fia_rule_at(i), &c.cnt[i]) == g)
                    rule_row(f, fia_rule_at(i), &c.cnt[i], g);
        fputs("</tbody></table>\n", f);
    }
    if (rc == FIA_OK && c.nextra > 0) {
        fputs("<p class=\"warn\">The store counts rules the catalogue of "
              "this fiacheck does not have (renamed or removed):</p>\n"
              "<table><thead><tr><th>rule</th><th class=\"n\">broken</th>"
              "<th class=\"n\">obeyed</th></tr></thead><tbody>\n", f);
        for (size_t i = 0; i < c.nextra; i++) {
            fputs("<tr>", f);
            cell_text(f, "rule", c.extra[i].id);
            cell_int(f, "broken", c.extra[i].broken);
            cell_int(f, "obeyed", c.extra[i].obeyed);
            fputs("</tr>\n", f);
        }
        fputs("</tbody></table>\n", f);
    }
    for (size_t i = 0; i < c.nextra; i++)
        free(c.extra[i].id);
    free(c.extra);
    free(c.cnt);
    return rc;
}
