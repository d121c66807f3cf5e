/* `fiacheck report`: the systems under test side by side (cli/systems.h
 * gathers them).  Per system its revision, cases, error-to-bound ratio
 * quantiles, findings by kind and speed against fast/; then the ratios
 * per bucket, a column group per system; then each system's findings,
 * linked to their rows in the Findings table.  With fewer than two
 * systems the section says so in one line. */
#include <string.h>
#include "report.h"
#include "systems.h"

/* Buckets listed besides "* (all)", and findings per system. */
#define SYS_BUCKETS 40
#define SYS_FINDINGS 25

static void stats_cells(FILE *f, const sy_stats *x)
{
    if (x->cases == 0) {
        fputs("<td class=\"n cases dim\">-</td><td class=\"n p50 dim\">-</td>"
              "<td class=\"n p90 dim\">-</td><td class=\"n p99 dim\">-</td>"
              "<td class=\"n max dim\">-</td>", f);
        return;
    }
    char p50[32], p90[32], p99[32], mx[32];
    rh_num(p50, sizeof p50, x->p50, 3);
    rh_num(p90, sizeof p90, x->p90, 3);
    rh_num(p99, sizeof p99, x->p99, 3);
    rh_num(mx, sizeof mx, x->max, 3);
    fprintf(f, "<td class=\"n cases\">%lld</td><td class=\"n p50\">%s</td>"
            "<td class=\"n p90\">%s</td><td class=\"n p99\">%s</td>"
            "<td class=\"n max%s\">%s</td>", (long long)x->cases, p50, p90,
            p99, x->max > 1 ? " bad" : "", mx);
}

static int any_speed(const sy_model *m)
{
    for (size_t i = 0; i < m->nsys; i++)
        if (m->sys[i].nspeed > 0)
            return 1;
    return 0;
}

static void speed_cell(FILE *f, const sy_model *m, const sy_system *y)
{
    if (y->nspeed == 0) {
        if (strcmp(y->name, "fast") == 0 && any_speed(m))
            fputs("<td class=\"speed\">1 (the baseline)</td>", f);
        else
            fputs("<td class=\"speed dim\">-</td>", f);
        return;
    }
    fputs("<td class=\"speed\">", f);
    for (size_t k = 0; k < y->nspeed; k++) {
        const sy_speed *s = &y->speed[k];
        char r[32];
        rh_num(r, sizeof r, s->ratio, 3);
        fputs(k ? "; <span title=\"" : "<span title=\"", f);
        rh_textf(f, "machine %s, revision %s, median of %lld run%s",
                 s->machine, s->revision, (long long)s->runs,
                 s->runs == 1 ? "" : "s");
        fputs("\">", f);
        rh_text(f, s->call, SIZE_MAX);
        fprintf(f, " <b class=\"ratio\">%s</b>&#215;</span>", r);
    }
    fputs("</td>", f);
}

static void summary_row(FILE *f, const sy_model *m, const sy_system *y)
{
    fputs("<tr id=\"system-", f);
    rh_text(f, y->name, SIZE_MAX);
    fputs("\"><td class=\"sut\">", f);
    rh_text(f, y->name, SIZE_MAX);
    fputs("</td><td class=\"revision\">", f);
    rh_revision(f, y->revision);
    fprintf(f, "</td><td class=\"n campaigns\">%lld</td>",
            (long long)y->campaigns);
    stats_cells(f, &y->all);
    if (y->all.cases > 0)
        fprintf(f, "<td class=\"n over\">%.1f%%</td>",
                100.0 * y->all.above_one);
    else
        fputs("<td class=\"n over dim\">-</td>", f);
    char kinds[512];
    sy_kinds_text(y, kinds, sizeof kinds);
    if (y->nfindings > 0) {
        fputs("<td class=\"findings\"><a href=\"#system-findings-", f);
        rh_text(f, y->name, SIZE_MAX);
        fputs("\">", f);
        rh_text(f, kinds, SIZE_MAX);
        fputs("</a></td>", f);
    } else {
        fputs("<td class=\"findings good\">none</td>", f);
    }
    speed_cell(f, m, y);
    fputs("</tr>\n", f);
}

static void summary_table(FILE *f, const sy_model *m)
{
    fputs("<table class=\"systems\"><thead><tr><th>system</th>"
          "<th>revision</th><th class=\"n\">campaigns</th>"
          "<th class=\"n\">cases</th><th class=\"n\">p50</th>"
          "<th class=\"n\">p90</th><th class=\"n\">p99</th>"
          "<th class=\"n\">max</th><th class=\"n\">&gt; bound</th>"
          "<th>findings</th><th>speed vs fast/</th></tr></thead>\n<tbody>\n",
          f);
    for (size_t i = 0; i < m->nsys; i++)
        summary_row(f, m, &m->sys[i]);
    fputs("</tbody></table>\n", f);
}

static int has_common(const sy_model *m)
{
    for (size_t i = 0; i < m->nsys; i++)
        if (m->sys[i].common.cases > 0)
            return 1;
    return 0;
}

static void bucket_table(FILE *f, const sy_model *m)
{
    const size_t shown = m->nb > SYS_BUCKETS ? SYS_BUCKETS : m->nb;
    fprintf(f, "<details open><summary>Error-to-bound ratios per bucket, a "
            "column group per system: all cases, then the %zu bucket%s "
            "most systems cover (the worst first)%s</summary>\n"
            "<table class=\"systems-buckets\"><thead><tr><th rowspan=\"2\">"
            "bucket</th>", shown, shown == 1 ? "" : "s",
            shown < m->nb ? " (of all)" : "");
    for (size_t i = 0; i < m->nsys; i++) {
        fputs("<th colspan=\"5\" class=\"sut\">", f);
        rh_text(f, m->sys[i].name, SIZE_MAX);
        fputs("</th>", f);
    }
    fputs("</tr><tr>", f);
    for (size_t i = 0; i < m->nsys; i++)
        fputs("<th class=\"n\">cases</th><th class=\"n\">p50</th>"
              "<th class=\"n\">p90</th><th class=\"n\">p99</th>"
              "<th class=\"n\">max</th>", f);
    fputs("</tr></thead>\n<tbody>\n<tr class=\"all\"><td class=\"bucket "
          "sig\">* (all)</td>", f);
    for (size_t i = 0; i < m->nsys; i++)
        stats_cells(f, &m->sys[i].all);
    fputs("</tr>\n", f);
    if (has_common(m)) {
        fputs("<tr class=\"common\"><td class=\"bucket sig\">* (common "
              "calls)</td>", f);
        for (size_t i = 0; i < m->nsys; i++)
            stats_cells(f, &m->sys[i].common);
        fputs("</tr>\n", f);
    }
    for (size_t b = 0; b < shown; b++) {
        fputs("<tr><td class=\"bucket sig\">", f);
        rh_text(f, m->b[b].name, SIZE_MAX);
        fputs("</td>", f);
        for (size_t i = 0; i < m->nsys; i++)
            stats_cells(f, &m->b[b].by[i]);
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table></details>\n", f);
    if (shown < m->nb)
        fprintf(f, "<p class=\"dim\">%zu more buckets not listed "
                "(<code>fiacheck db systems</code> lists them all).</p>\n",
                m->nb - shown);
}

static void findings_of(FILE *f, const sy_system *y)
{
    char kinds[512];
    sy_kinds_text(y, kinds, sizeof kinds);
    fputs("<h3 id=\"system-findings-", f);
    rh_text(f, y->name, SIZE_MAX);
    fputs("\">", f);
    rh_textf(f, "%s: %zu finding%s (%s)", y->name, y->nfindings,
             y->nfindings == 1 ? "" : "s", kinds);
    fputs("</h3>\n<table class=\"system-findings\"><thead><tr>"
          "<th class=\"n\">id</th><th>state</th><th>kind</th>"
          "<th>signature</th></tr></thead>\n<tbody>\n", f);
    const size_t shown =
        y->nfindings > SYS_FINDINGS ? SYS_FINDINGS : y->nfindings;
    for (size_t k = 0; k < shown; k++) {
        const sy_finding *x = &y->findings[k];
        fprintf(f, "<tr><td class=\"n id\"><a href=\"#finding-%lld\">%lld"
                "</a></td><td class=\"state%s\">", (long long)x->id,
                (long long)x->id,
                strcmp(x->state, "regressed") == 0 ? " bad" : "");
        rh_text(f, x->state, SIZE_MAX);
        fputs("</td><td><span class=\"kind\">", f);
        rh_text(f, x->kind, SIZE_MAX);
        fputs("</span></td><td class=\"sig\">", f);
        rh_text(f, x->signature, SIZE_MAX);
        fputs("</td></tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
    if (shown < y->nfindings)
        fprintf(f, "<p class=\"dim\">%zu more: the Findings table has them "
                "all (column system).</p>\n", y->nfindings - shown);
}

static void side_by_side(FILE *f, const sy_model *m)
{
    fputs("<p>Each system under test at one revision, that of its latest "
          "campaign with accuracy samples (all its campaigns of that "
          "revision together; the Accuracy section has every revision). "
          "A case's ratio is its worst element's error against the "
          "correctly rounded MPFR reference over the tolerance bound there "
          "(above 1: outside the tolerance); quantiles by nearest rank, as "
          "<code>db regressions</code>. <b>Only the calls a system covers "
          "are in its samples</b>: a plug-in's refusals are not-modeled "
          "(\"not covered by NAME\"), not samples, so the columns compare "
          "each system on the calls it covers, not on one common set of "
          "calls; a bucket a system has no case in shows -. The row "
          "<i>* (common calls)</i>, when there is one, holds only the "
          "cases every system computed (the same case: a survey of one "
          "seed draws one stream for each), the one like-for-like "
          "comparison. Speed: "
          "<code>fiacheck bench --sut PATH --db</code>, the plug-in's "
          "GFLOP/s over fast/'s on the same calls in one run (median of "
          "the latest revision's runs; fast/ is 1). "
          "<code>fiacheck db systems</code> prints the same as text.</p>\n",
          f);
    summary_table(f, m);
    bucket_table(f, m);
    for (size_t i = 0; i < m->nsys; i++)
        if (m->sys[i].nfindings > 0)
            findings_of(f, &m->sys[i]);
}

fia_status rs_systems(FILE *f, fia_store *s)
{
    sy_model m;
    fia_status rc = sy_load(s, &m);
    if (rc == FIA_OK) {
        fputs("<h2 id=\"systems\">Systems side by side: error / bound "
              "against the correctly rounded reference</h2>\n", f);
        if (m.nsys == 0) {
            fputs("<p class=\"dim\" id=\"systems-none\">No system under "
                  "test in the store yet (no campaign).</p>\n", f);
        } else if (m.nsys == 1) {
            fputs("<p class=\"dim\" id=\"systems-one\">One system under "
                  "test in the store (<code>", f);
            rh_text(f, m.sys[0].name, SIZE_MAX);
            fputs("</code>): nothing to set beside it. A campaign of "
                  "another (<code>fiacheck survey --sut PATH</code>, "
                  "docs/sut.md) adds it here.</p>\n", f);
        } else {
            side_by_side(f, &m);
        }
    }
    sy_free(&m);
    return rc;
}
