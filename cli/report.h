/* `fiacheck report`: one self-contained HTML page from the findings store.
 * cmd_report.c reads the options and puts the page together from:
 *   report_html.c    escaping and the page's frame (head, CSS, foot);
 *   report_tables.c  campaigns, findings with their case texts, rule
 *                    coverage;
 *   report_trends.c  accuracy and benchmark figures across revisions:
 *                    tables and the plots;
 *   report_systems.c the systems under test side by side (systems.c
 *                    reads them);
 *   report_plot.c    gnuplot as a child process, its SVG made fit to be
 *                    inlined. */
#ifndef FIA_CLI_REPORT_H
#define FIA_CLI_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "fia/store.h"

/* ---- report_html.c ------------------------------------------------------ */
/* s as HTML text or attribute value: & < > " ' escaped, control characters
 * other than tab and newline and bytes that are not UTF-8 written as
 * U+FFFD, so a page stays well formed whatever a case text holds.  At most
 * max bytes of s are read (SIZE_MAX: all). */
void rh_text(FILE *f, const char *s, size_t max);
/* s as rh_text writes it, but at most about max bytes of it: a longer s is
 * cut at the last blank within max bytes (within a word only when it has
 * no blank there, then between UTF-8 sequences) and ends with an ellipsis
 * (U+2026), never in the middle of a word. */
void rh_text_cut(FILE *f, const char *s, size_t max);
/* rh_text of a printf-formatted string (at most 1023 bytes). */
void rh_textf(FILE *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A revision as listings show it: its first 12 characters, the full name
 * in a title attribute. */
void rh_revision(FILE *f, const char *rev);
/* Unix seconds as ISO-8601 UTC into buf. */
void rh_iso(char *buf, size_t n, int64_t t);
/* %.*g of v, "inf" / "nan" spelled out, into buf. */
void rh_num(char *buf, size_t n, double v, int digits);
void rh_page_begin(FILE *f, const char *db, int64_t now);
void rh_page_end(FILE *f);

/* ---- report_plot.c ------------------------------------------------------ */
/* A place for gnuplot's inputs (a private temporary directory) and what
 * happened so far: once gnuplot is missing or failed, no more plots are
 * tried and why says so. */
typedef struct rp_plotter {
    char dir[512];
    char files[16][32];  /* the files written for the current plot */
    int nfiles;
    int plots;           /* SVGs made */
    int failed;          /* 1: gnuplot missing or broken */
    int skipped;         /* plots not drawn */
    char why[512];
    volatile int child;  /* gnuplot's pid while it runs, else 0 */
} rp_plotter;
/* FIA_OK, or FIA_ERR_IO with why set (no temporary directory: no plots). */
fia_status rp_init(rp_plotter *p);
/* A data file named name (letters, digits, '.', no path) in the plot's
 * directory, for writing; NULL with why set. */
FILE *rp_data(rp_plotter *p, const char *name);
/* Runs gnuplot on script (after a terminal set-up of width x height
 * pixels).  The SVG (malloc'ed, its ids prefixed by "pN-" so several can
 * share a page, no XML prolog), or NULL with p->why set.  The plot's files
 * are removed either way. */
char *rp_render(rp_plotter *p, const char *script, int width, int height,
                const char *title);
/* Removes the directory. */
void rp_done(rp_plotter *p);
/* rp_done from a signal handler (async-signal-safe): kills a running
 * gnuplot, removes the plot's files and the directory. */
void rp_abandon(rp_plotter *p);
/* s as a gnuplot string literal: single quotes, only printable ASCII kept
 * (others become '?'), so a name from the store cannot end the string or
 * reach gnuplot's command line.  Into buf (truncated to n). */
void rp_quote(char *buf, size_t n, const char *s);

/* ---- report_tables.c ---------------------------------------------------- */
/* Each section returns FIA_OK, the store's code (its message in the
 * store) or FIA_ERR_NOMEM (out of memory: no message). */
fia_status rt_summary(FILE *f, fia_store *s);
fia_status rt_campaigns(FILE *f, fia_store *s);
/* The findings table into f and, for each finding, its case text (the
 * minimized one when there is one) into cases, under the anchor the
 * table's row links to: case-ID. */
fia_status rt_findings(FILE *f, fia_store *s, FILE *cases);
fia_status rt_coverage(FILE *f, fia_store *s);

/* ---- report_trends.c ---------------------------------------------------- */
/* Plots through p when it has not failed; tables either way. */
fia_status rr_accuracy(FILE *f, fia_store *s, rp_plotter *p);
fia_status rr_bench(FILE *f, fia_store *s, rp_plotter *p);
/* A paragraph saying why plots are missing, when some are. */
void rr_plot_note(FILE *f, const rp_plotter *p);

/* ---- report_systems.c --------------------------------------------------- */
/* Each system under test's cases, error-to-bound ratios per bucket,
 * findings and speed against fast/, side by side (with fewer than two
 * systems, a line saying so).  Codes as report_tables.c's. */
fia_status rs_systems(FILE *f, fia_store *s);

#endif
