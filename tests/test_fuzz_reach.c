/* A fuzz worker's stats file says when it first reached each path and
 * broke each rule alone (fuzz/report.c; `fiacheck fuzz` sums them into
 * its summary, cli/fuzz_reach.c): "reach WORD SECONDS" once per word of
 * a computed case's bucket, at its first time; "alone RULE SECONDS" for
 * the rule that decided a judged call by itself, and none for a call
 * several rules reject. */
#define _XOPEN_SOURCE 700 /* mkdtemp */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "check.h"
#include "fia/check.h"
#include "fuzz/fuzz.h"

#define BASE "input_layout = BNSD\nnum_heads = 2\nscale = 0.5\n" \
             "key = fp16 [1,2,32,32]\nvalue = fp16 [1,2,32,32]\n"
static const char *decode = BASE "query = fp16 [1,2,1,32]\n";
static const char *prefill = BASE "query = fp16 [1,2,16,32]\n";
/* MASK-003 alone: a mask of rank 5 */
static const char *mask3 = BASE "query = fp16 [1,2,16,32]\n"
                                "atten_mask = bool [1,1,1,16,32]\n";
/* two rules: a rank-5 mask and num_heads not the query's N */
static const char *two = BASE "query = fp16 [1,3,16,32]\n"
                              "atten_mask = bool [1,1,1,16,32]\n";

static void with_case(const char *text, void (*fn)(const fia_case *))
{
    fia_case c;
    fia_error err;
    CHECK(fia_case_parse_string(text, "<test>", &c, &err) == FIA_OK);
    fn(&c);
    fia_case_free(&c);
}

static void judge(const fia_case *c)
{
    static fia_check_result r;
    fia_check_options o;
    fia_check_options_default(&o);
    o.status_only = 1;
    fia_check_case(c, &o, &r);
    CHECK(r.evaluated);
    fuzz_report_verdict(c, &r, FIA_PROFILE_DOC);
}

/* The stats file's lines that start with `key`, with their seconds. */
static int lines_of(const char *path, const char *key, const char *word,
                    double *t)
{
    FILE *f = fopen(path, "r");
    char line[300], w[100];
    int n = 0;
    double x;
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
        char fmt[32];
        snprintf(fmt, sizeof fmt, "%s %%99s %%lf", key);
        if (sscanf(line, fmt, w, &x) == 2 && strcmp(w, word) == 0)
            n++, *t = x;
    }
    if (f)
        fclose(f);
    return n;
}

int main(void)
{
    char dir[] = "/tmp/fia_reach_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    setenv("FIACHECK_STATS", dir, 1);
    unsetenv("FIACHECK_DB");
    unsetenv("FIACHECK_CAMPAIGN");
    const double before = (double)time(NULL);
    fuzz_report_init(FUZZ_NUMERIC);
    fuzz_report_quiet(1);
    with_case(decode, fuzz_report_computed);
    with_case(decode, fuzz_report_computed);
    with_case(prefill, fuzz_report_computed);
    with_case(mask3, judge);
    with_case(two, judge);
    fuzz_report_flush();

    char path[200];
    snprintf(path, sizeof path, "%s/fuzz_numeric.%ld", dir, (long)getpid());
    double t = 0;
    CHECK_EQ_INT(lines_of(path, "reach", "decode", &t), 1);
    CHECK(t >= before && t < before + 60);
    CHECK_EQ_INT(lines_of(path, "reach", "prefill", &t), 1);
    CHECK_EQ_INT(lines_of(path, "reach", "fp16", &t), 1);
    CHECK_EQ_INT(lines_of(path, "reach", "BNSD", &t), 1);
    /* judged status-only: nothing computed, no path of its own */
    CHECK_EQ_INT(lines_of(path, "reach", "mask", &t), 0);
    CHECK_EQ_INT(lines_of(path, "alone", "MASK-003", &t), 1);
    CHECK(t >= before && t < before + 60);
    CHECK_EQ_INT(lines_of(path, "alone", "LAYOUT-008", &t), 0);
    unlink(path);
    rmdir(dir);
    return check_summary();
}
