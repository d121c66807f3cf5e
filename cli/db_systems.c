/* `fiacheck db systems [--json]`: the systems under test side by side as
 * text or JSON lines -- the same model (cli/systems.h) and numbers as the
 * section "Systems side by side" of `fiacheck report`. */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "systems.h"

/* "%.3g" of v, "inf" / "nan" spelled out (as the report's rh_num). */
static const char *num(char *buf, size_t n, double v)
{
    if (v != v)
        snprintf(buf, n, "nan");
    else if (v - v != 0)
        snprintf(buf, n, v > 0 ? "inf" : "-inf");
    else
        snprintf(buf, n, "%.3g", v);
    return buf;
}

static void stats_json(const sy_stats *x)
{
    printf(",\"cases\":%lld", (long long)x->cases);
    if (x->cases == 0)
        return;
    cli_json_num("p50", x->p50);
    cli_json_num("p90", x->p90);
    cli_json_num("p99", x->p99);
    cli_json_num("max", x->max);
    cli_json_num("above_one", x->above_one);
}

static void system_json(const sy_system *y)
{
    printf("{\"type\":\"system\"");
    cli_json_kv("sut", y->name);
    cli_json_kv("revision", y->revision);
    printf(",\"campaigns\":%lld,\"revisions\":%lld,\"execs\":%lld",
           (long long)y->campaigns, (long long)y->revisions,
           (long long)y->execs);
    stats_json(&y->all);
    printf(",\"findings\":%zu,\"kinds\":{", y->nfindings);
    for (size_t k = 0; k < y->nkinds; k++) {
        if (k)
            putchar(',');
        cli_json_string(stdout, y->kinds[k].kind);
        printf(":%lld", (long long)y->kinds[k].n);
    }
    printf("},\"finding_ids\":[");
    for (size_t k = 0; k < y->nfindings; k++)
        printf("%s%lld", k ? "," : "", (long long)y->findings[k].id);
    printf("],\"speed\":[");
    for (size_t k = 0; k < y->nspeed; k++) {
        const sy_speed *s = &y->speed[k];
        printf("%s{\"call\":", k ? "," : "");
        cli_json_string(stdout, s->call);
        cli_json_kv("machine", s->machine);
        cli_json_kv("revision", s->revision);
        printf(",\"runs\":%lld", (long long)s->runs);
        cli_json_num("ratio", s->ratio);
        putchar('}');
    }
    puts("]}");
}

static void bucket_json(const char *bucket, const char *sut,
                        const sy_stats *x)
{
    printf("{\"type\":\"system_bucket\"");
    cli_json_kv("bucket", bucket);
    cli_json_kv("sut", sut);
    stats_json(x);
    puts("}");
}

static void stats_text(const sy_stats *x)
{
    char a[32], b[32], c[32], d[32];
    if (x->cases == 0)
        printf(" %8s %8s %8s %8s %8s", "-", "-", "-", "-", "-");
    else
        printf(" %8lld %8s %8s %8s %8s", (long long)x->cases,
               num(a, sizeof a, x->p50), num(b, sizeof b, x->p90),
               num(c, sizeof c, x->p99), num(d, sizeof d, x->max));
}

static void system_text(const sy_model *m, const sy_system *y)
{
    char rev[160], kinds[512];
    sy_kinds_text(y, kinds, sizeof kinds);
    printf("%-16s %-12s %9lld", y->name,
           y->revision[0] ? cli_revision_short(y->revision, rev, sizeof rev)
                          : "-",
           (long long)y->campaigns);
    stats_text(&y->all);
    if (y->all.cases > 0)
        printf(" %6.1f%%", 100.0 * y->all.above_one);
    else
        printf(" %7s", "-");
    printf("  %-24s ", kinds);
    int baseline = 0;
    for (size_t i = 0; i < m->nsys; i++)
        baseline |= m->sys[i].nspeed > 0;
    if (y->nspeed == 0)
        printf("%s", baseline && strcmp(y->name, "fast") == 0
                         ? "1 (the baseline)" : "-");
    for (size_t k = 0; k < y->nspeed; k++) {
        char r[32];
        printf("%s%s %sx", k ? "; " : "", y->speed[k].call,
               num(r, sizeof r, y->speed[k].ratio));
    }
    putchar('\n');
}

static void model_text(const sy_model *m)
{
    printf("%zu system%s under test, each at its latest revision with "
           "accuracy samples and on the calls it covers (a plug-in's "
           "refusals are not-modeled, not samples):\n", m->nsys,
           m->nsys == 1 ? "" : "s");
    printf("%-16s %-12s %9s %8s %8s %8s %8s %8s %7s  %-24s %s\n", "system",
           "revision", "campaigns", "cases", "p50", "p90", "p99", "max",
           ">bound", "findings", "speed vs fast/");
    for (size_t i = 0; i < m->nsys; i++)
        system_text(m, &m->sys[i]);
    if (m->nsys == 1)
        printf("(one system: nothing to compare side by side; a campaign "
               "with --sut PATH adds another)\n");
    printf("\nerror / bound per bucket and system (- : no case of it):\n"
           "%-40s %-16s %8s %8s %8s %8s %8s\n", "bucket", "system", "cases",
           "p50", "p90", "p99", "max");
    for (size_t i = 0; i < m->nsys; i++) {
        printf("%-40s %-16s", i == 0 ? "* (all)" : "", m->sys[i].name);
        stats_text(&m->sys[i].all);
        putchar('\n');
    }
    int common = 0;
    for (size_t i = 0; i < m->nsys; i++)
        common |= m->sys[i].common.cases > 0;
    for (size_t i = 0; common && i < m->nsys; i++) {
        printf("%-40s %-16s", i == 0 ? "* (common calls)" : "",
               m->sys[i].name);
        stats_text(&m->sys[i].common);
        putchar('\n');
    }
    for (size_t b = 0; b < m->nb; b++)
        for (size_t i = 0; i < m->nsys; i++) {
            printf("%-40s %-16s", i == 0 ? m->b[b].name : "",
                   m->sys[i].name);
            stats_text(&m->b[b].by[i]);
            putchar('\n');
        }
    for (size_t i = 0; i < m->nsys; i++) {
        const sy_system *y = &m->sys[i];
        if (y->nfindings == 0)
            continue;
        printf("\nfindings of %s (%zu; fiacheck db show ID):\n", y->name,
               y->nfindings);
        for (size_t k = 0; k < y->nfindings; k++)
            printf("%5lld %-9s %-15s %s\n", (long long)y->findings[k].id,
                   y->findings[k].state, y->findings[k].kind,
                   y->findings[k].signature);
    }
}

fia_status cli_db_systems(fia_store *s, int json)
{
    sy_model m;
    fia_status rc = sy_load(s, &m);
    if (rc == FIA_ERR_NOMEM)
        fprintf(stderr, "fiacheck db: out of memory\n");
    else if (rc != FIA_OK)
        fprintf(stderr, "fiacheck db: %s\n", fia_store_errmsg(s));
    if (rc == FIA_OK && json) {
        for (size_t i = 0; i < m.nsys; i++)
            system_json(&m.sys[i]);
        for (size_t i = 0; i < m.nsys; i++)
            if (m.sys[i].all.cases > 0)
                bucket_json("*", m.sys[i].name, &m.sys[i].all);
        for (size_t i = 0; i < m.nsys; i++)
            if (m.sys[i].common.cases > 0)
                bucket_json("(common)", m.sys[i].name, &m.sys[i].common);
        for (size_t b = 0; b < m.nb; b++)
            for (size_t i = 0; i < m.nsys; i++)
                if (m.b[b].by[i].cases > 0)
                    bucket_json(m.b[b].name, m.sys[i].name, &m.b[b].by[i]);
    } else if (rc == FIA_OK && m.nsys == 0) {
        printf("no systems under test in the store (no campaign)\n");
    } else if (rc == FIA_OK) {
        model_text(&m);
    }
    sy_free(&m);
    return rc;
}
