/* `run --junit FILE`: the cases of a run as a JUnit XML report, the format
 * CI systems (GitLab, Jenkins, GitHub's test reporters) read: one
 * <testsuite> "fiacheck run", one <testcase> per case file (classname its
 * folder, name its file name), a finding or an unmet intent as <failure>
 * (type the verdict, message its reason, the case text as the body, so the
 * CI page shows what to reproduce), a bad input as <error>, a case the
 * model does not cover as <skipped>.  The suite's counts come first in the
 * XML, so the test cases are gathered in memory and written at the end;
 * the file is written to FILE.tmp and renamed, so a reader never sees half
 * a report. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "cli_junit.h"
#include "fia/text.h"

struct cli_junit {
    char *path;
    char *body;       /* the <testcase> elements so far */
    size_t body_len;
    FILE *mem;
    int tests, failures, errors, skipped;
    double seconds;
};

cli_junit *cli_junit_open(const char *path)
{
    cli_junit *j = calloc(1, sizeof *j);
    if (j == NULL)
        return NULL;
    j->path = strdup(path);
    j->mem = open_memstream(&j->body, &j->body_len);
    if (j->path == NULL || j->mem == NULL) {
        if (j->mem != NULL)
            fclose(j->mem);
        free(j->body);
        free(j->path);
        free(j);
        return NULL;
    }
    return j;
}

/* The whole file at path, or NULL. */
static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    char buf[4096];
    size_t n;
    while (m != NULL && (n = fread(buf, 1, sizeof buf, f)) > 0)
        fwrite(buf, 1, n, m);
    fclose(f);
    if (m != NULL)
        fclose(m);
    return text;
}

void cli_junit_case(cli_junit *j, const char *path, fia_verdict v,
                    const char *reason, double seconds)
{
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    j->tests++;
    j->seconds += seconds;
    fputs("  <testcase classname=\"", j->mem);
    if (slash != NULL) {
        char *dir = strndup(path, (size_t)(slash - path));
        fia_xml_text(j->mem, dir ? dir : "");
        free(dir);
    } else {
        fputs(".", j->mem);
    }
    fputs("\" name=\"", j->mem);
    fia_xml_text(j->mem, name);
    fprintf(j->mem, "\" time=\"%.3f\"", seconds);
    const char *tag = v == FIA_V_BAD_INPUT ? "error"
                      : fia_verdict_is_finding(v) || v == FIA_V_INTENT_UNMET
                          ? "failure"
                      : v == FIA_V_NOT_MODELED ? "skipped"
                                               : NULL;
    if (tag == NULL) {
        fputs("/>\n", j->mem);
        return;
    }
    j->errors += v == FIA_V_BAD_INPUT;
    j->failures += tag[0] == 'f';
    j->skipped += tag[0] == 's';
    fprintf(j->mem, ">\n    <%s type=\"%s\" message=\"", tag,
            fia_verdict_name(v));
    fia_xml_text(j->mem, reason);
    fputs("\"", j->mem);
    char *text = tag[0] == 'f' ? read_text(path) : NULL;
    if (text != NULL) {
        fputs(">", j->mem);
        fia_xml_text(j->mem, text);
        fprintf(j->mem, "</%s>\n", tag);
        free(text);
    } else {
        fputs("/>\n", j->mem);
    }
    fputs("  </testcase>\n", j->mem);
}

fia_status cli_junit_close(cli_junit *j)
{
    /* the memory stream's last flush allocates */
    fia_status rc = fclose(j->mem) == 0 ? FIA_OK : FIA_ERR_NOMEM;
    char *tmp = NULL;
    if (rc == FIA_OK && (tmp = malloc(strlen(j->path) + 5)) != NULL) {
        sprintf(tmp, "%s.tmp", j->path);
        FILE *f = fopen(tmp, "w");
        if (f == NULL) {
            rc = FIA_ERR_IO;
        } else {
            fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                       "<testsuites>\n<testsuite name=\"fiacheck run\" "
                       "tests=\"%d\" failures=\"%d\" errors=\"%d\" "
                       "skipped=\"%d\" time=\"%.3f\">\n",
                    j->tests, j->failures, j->errors, j->skipped, j->seconds);
            fwrite(j->body, 1, j->body_len, f);
            fputs("</testsuite>\n</testsuites>\n", f);
            rc = ferror(f) ? FIA_ERR_IO : FIA_OK;
            if (fclose(f) != 0)
                rc = FIA_ERR_IO;
            if (rc == FIA_OK && rename(tmp, j->path) != 0)
                rc = FIA_ERR_IO;
            if (rc != FIA_OK)
                remove(tmp);
        }
    } else if (rc == FIA_OK) {
        rc = FIA_ERR_NOMEM;
    }
    if (rc != FIA_OK)
        fprintf(stderr, "fiacheck run: cannot write the JUnit report %s\n",
                j->path);
    free(tmp);
    free(j->body);
    free(j->path);
    free(j);
    return rc;
}
