/* `fiacheck report [--db PATH] [--out FILE]`: the store as one HTML page
 * that needs nothing else to be read (no network, no script): campaigns,
 * findings with their case texts, rule coverage against the catalogue,
 * the systems under test side by side, accuracy and benchmark figures
 * across revisions, plotted by gnuplot.
 *
 * The store is opened read-only (a campaign may be writing to it).  The
 * page is written beside FILE under a temporary name and renamed over it
 * at the end, so a failed report never leaves half a page where a reader
 * expects a whole one. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "report.h"

#define REPORT_DB "results/findings.db"
#define REPORT_OUT "report.html"

static const char report_usage[] =
    "usage: fiacheck report [--db PATH] [--out FILE]\n"
    "  the findings store as one self-contained HTML page: campaigns,\n"
    "  findings (each linked to its minimized case text), rule coverage\n"
    "  (every rule, the never-hit ones first), the systems under test side\n"
    "  by side (error / bound per bucket, findings, speed vs fast/),\n"
    "  accuracy per bucket and benchmark figures across revisions as plots\n"
    "  (drawn by gnuplot, Debian package gnuplot-nox; without it the page\n"
    "  has the tables and says so)\n"
    "  --db PATH     the store, read only (default " REPORT_DB ")\n"
    "  --out FILE    the page (default " REPORT_OUT "), replaced whole\n"
    "environment: FIACHECK_GNUPLOT  the gnuplot program (default gnuplot)\n"
    "exit status: 0 written, 2 bad usage, a missing or damaged store, or a\n"
    "page that cannot be written\n";

typedef struct report_opts {
    const char *db, *out;
} report_opts;

/* FIA_OK, or FIA_ERR_BAD_INPUT after saying why. */
static fia_status parse(int argc, char **argv, report_opts *o)
{
    int seen_db = 0, seen_out = 0;
    o->db = REPORT_DB;
    o->out = REPORT_OUT;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--db") == 0) {
            if (cli_once("report", "--db", &seen_db) ||
                cli_value("report", argc, argv, &i, &o->db))
                return FIA_ERR_BAD_INPUT;
        } else if (strcmp(argv[i], "--out") == 0) {
            if (cli_once("report", "--out", &seen_out) ||
                cli_value("report", argc, argv, &i, &o->out))
                return FIA_ERR_BAD_INPUT;
        } else {
            fprintf(stderr, "fiacheck report: unexpected argument '%s'\n",
                    argv[i]);
            return FIA_ERR_BAD_INPUT;
        }
    }
    if (o->out[0] == '\0' || o->db[0] == '\0') {
        fprintf(stderr, "fiacheck report: --db and --out want a path\n");
        return FIA_ERR_BAD_INPUT;
    }
    return FIA_OK;
}

/* A temporary file beside out (same filesystem: rename replaces out in one
 * step), readable as a page should be: FILE, *tmp to free.  NULL said. */
static FILE *open_beside(const char *out, char **tmp)
{
    struct stat st;
    if (stat(out, &st) == 0 && S_ISDIR(st.st_mode)) {
        fprintf(stderr, "fiacheck report: cannot write %s: it is a "
                "directory\n", out);
        return NULL;
    }
    size_t n = strlen(out) + 16;
    *tmp = malloc(n);
    if (*tmp == NULL)
        return NULL;
    snprintf(*tmp, n, "%s.tmp-XXXXXX", out);
    int fd = mkstemp(*tmp);
    if (fd < 0) {
        fprintf(stderr, "fiacheck report: cannot write %s: %s\n", out,
                strerror(errno));
        free(*tmp);
        *tmp = NULL;
        return NULL;
    }
    /* mkstemp made it 0600; a page is for others to read (as umask
     * allows).  A failure is not fatal: the page is still whole. */
    mode_t mask = umask(0);
    umask(mask);
    (void)fchmod(fd, 0666 & ~mask);
    FILE *f = fdopen(fd, "w");
    if (f == NULL) {
        close(fd);
        unlink(*tmp);
        free(*tmp);
        *tmp = NULL;
    }
    return f;
}

/* A memory stream for a part of the page. */
typedef struct part {
    char *buf;
    size_t len;
    FILE *f;
} part;

/* Says why a section failed: its status rc, said when not FIA_OK. */
static fia_status section(fia_store *s, fia_status rc)
{
    if (rc == FIA_OK)
        return FIA_OK;
    if (rc == FIA_ERR_NOMEM)
        fprintf(stderr, "fiacheck report: out of memory\n");
    else
        fprintf(stderr, "fiacheck report: %s\n", fia_store_errmsg(s));
    return rc;
}

/* The sections into body and cases: FIA_OK, or the failed section's status
 * said. */
static fia_status sections(fia_store *s, rp_plotter *p, FILE *body,
                           FILE *cases)
{
    /* the long catalogue last, the plots before it */
    fia_status rc;
    if ((rc = section(s, rt_findings(body, s, cases))) != FIA_OK ||
        (rc = section(s, rt_campaigns(body, s))) != FIA_OK ||
        (rc = section(s, rs_systems(body, s))) != FIA_OK ||
        (rc = section(s, rr_accuracy(body, s, p))) != FIA_OK ||
        (rc = section(s, rr_bench(body, s, p))) != FIA_OK ||
        (rc = section(s, rt_coverage(body, s))) != FIA_OK)
        return rc;
    return FIA_OK;
}

/* The page into f: FIA_OK, or after saying why FIA_ERR_NOMEM or a
 * section's status. */
static fia_status write_page(FILE *f, fia_store *s, const report_opts *o,
                             rp_plotter *p)
{
    part body = {0}, cases = {0};
    body.f = open_memstream(&body.buf, &body.len);
    cases.f = open_memstream(&cases.buf, &cases.len);
    fia_status rc = body.f && cases.f ? FIA_OK : FIA_ERR_NOMEM;
    if (rc != FIA_OK)
        fprintf(stderr, "fiacheck report: out of memory\n");
    if (rc == FIA_OK)
        rc = sections(s, p, body.f, cases.f);
    if (body.f)
        fclose(body.f);
    if (cases.f)
        fclose(cases.f);
    if (rc == FIA_OK) {
        rh_page_begin(f, o->db, (int64_t)time(NULL));
        rc = section(s, rt_summary(f, s));
    }
    if (rc == FIA_OK) {
        /* said first: a reader of the page should not hunt for why */
        rr_plot_note(f, p);
        fwrite(body.buf, 1, body.len, f);
        fputs("<h2 id=\"cases\">Case texts</h2>\n", f);
        if (cases.len == 0)
            fputs("<p class=\"dim\">No findings, no cases.</p>\n", f);
        fwrite(cases.buf, 1, cases.len, f);
        rh_page_end(f);
    }
    free(body.buf);
    free(cases.buf);
    return rc;
}

/* What an interrupted report leaves: the page's temporary file and the
 * plots' directory, removed by the handler of SIGINT, SIGTERM and SIGHUP,
 * which then dies of the signal as it would have (exit 128 + N). */
static struct {
    const char *volatile tmp;
    rp_plotter *volatile plots;
} pending;

static void on_signal(int sig)
{
    if (pending.tmp != NULL)
        unlink(pending.tmp);
    if (pending.plots != NULL)
        rp_abandon(pending.plots);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* The handler for the signals that end a command (one ignored when
 * fiacheck started, as under nohup, stays ignored); 1 to install, 0 to
 * restore the defaults. */
static void cleanup_on_signals(int on)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    static int installed[3];
    for (int i = 0; i < 3; i++) {
        struct sigaction sa, old;
        memset(&sa, 0, sizeof sa);
        sigemptyset(&sa.sa_mask);
        if (on) {
            sigaction(sigs[i], NULL, &old);
            installed[i] = old.sa_handler != SIG_IGN;
            if (!installed[i])
                continue;
            sa.sa_handler = on_signal;
            for (int k = 0; k < 3; k++)
                sigaddset(&sa.sa_mask, sigs[k]); /* one handler at a time */
        } else if (installed[i]) {
            sa.sa_handler = SIG_DFL;
        } else {
            continue;
        }
        sigaction(sigs[i], &sa, NULL);
    }
}

int cmd_report(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (cli_is_help(argv[i])) {
            fputs(report_usage, stdout);
            return CLI_EXIT_OK;
        }
    report_opts o;
    if (parse(argc, argv, &o) != FIA_OK) {
        fputs(report_usage, stderr);
        return CLI_EXIT_USAGE;
    }
    fia_store *s = NULL;
    char err[600];
    if (fia_store_open(o.db, FIA_STORE_OPEN_READONLY, &s, err, sizeof err) !=
        FIA_OK) {
        fprintf(stderr, "fiacheck report: %s\n", err);
        return CLI_EXIT_USAGE;
    }
    char *tmp = NULL;
    static rp_plotter p; /* the signal handler reads it */
    cleanup_on_signals(1);
    FILE *f = open_beside(o.out, &tmp);
    if (f == NULL) {
        cleanup_on_signals(0);
        fia_store_close(s);
        return CLI_EXIT_USAGE;
    }
    pending.tmp = tmp;
    rp_init(&p);
    pending.plots = &p;
    fia_status rc = write_page(f, s, &o, &p);
    pending.plots = NULL;
    rp_done(&p);
    fia_store_close(s);
    if (ferror(f) && rc == FIA_OK) {
        fprintf(stderr, "fiacheck report: cannot write %s: %s\n", tmp,
                strerror(errno));
        rc = FIA_ERR_IO;
    }
    if (fclose(f) != 0 && rc == FIA_OK) {
        fprintf(stderr, "fiacheck report: cannot write %s: %s\n", tmp,
                strerror(errno));
        rc = FIA_ERR_IO;
    }
    if (rc == FIA_OK && rename(tmp, o.out) != 0) {
        fprintf(stderr, "fiacheck report: cannot write %s: %s\n", o.out,
                strerror(errno));
        rc = FIA_ERR_IO;
    }
    if (rc != FIA_OK)
        unlink(tmp);
    pending.tmp = NULL;
    cleanup_on_signals(0);
    free(tmp);
    if (rc != FIA_OK)
        return CLI_EXIT_USAGE;
    if (p.skipped > 0)
        fprintf(stderr, "fiacheck report: %d plot%s not drawn: %s (plots "
                "need gnuplot: Debian package gnuplot-nox)\n", p.skipped,
                p.skipped == 1 ? "" : "s", p.why);
    printf("fiacheck report: wrote %s (%d plot%s)\n", o.out, p.plots,
           p.plots == 1 ? "" : "s");
    return CLI_EXIT_OK;
}
