/* A fuzz worker's finding the store refuses is not lost: its case text is
 * spooled at once to a file in FIACHECK_UNSTORED (here the store cannot
 * even be opened: its folder is a regular file). */
#define _XOPEN_SOURCE 700 /* mkdtemp */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"
#include "fuzz/fuzz.h"

static const char *small_case =
    "input_layout = BNSD\nnum_heads = 2\nscale = 0.5\n"
    "query = fp16 [1,2,4,16]\nkey = fp16 [1,2,8,16]\nvalue = fp16 [1,2,8,16]\n";

int main(void)
{
    char dir[] = "/tmp/fia_report_XXXXXX", file[64], spool[64], db[96];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(file, sizeof file, "%s/file", dir);
    snprintf(spool, sizeof spool, "%s/spool", dir);
    snprintf(db, sizeof db, "%s/x.db", file);
    FILE *f = fopen(file, "w");
    CHECK(f != NULL);
    if (f)
        fclose(f);
    CHECK(mkdir(spool, 0777) == 0);
    setenv("FIACHECK_DB", db, 1);
    setenv("FIACHECK_CAMPAIGN", "1", 1);
    setenv("FIACHECK_UNSTORED", spool, 1);
    unsetenv("FIACHECK_STATS");
    fuzz_report_init(FUZZ_PARAMS);
    fuzz_report_quiet(1);

    fia_case c;
    fia_error err;
    CHECK(fia_case_parse_string(small_case, "small", &c, &err) == FIA_OK);
    fuzz_finding fd;
    fuzz_finding_of_artifact(&fd, &c, "crash", FUZZ_PARAMS, "doc", "", "art",
                             "a crash");
    fuzz_report_finding(&c, &fd);
    fia_case_free(&c);

    int n = 0, has_text = 0;
    DIR *d = opendir(spool);
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL) {
        if (strstr(e->d_name, ".case") == NULL)
            continue;
        n++;
        char path[400], line[300];
        snprintf(path, sizeof path, "%s/%s", spool, e->d_name);
        FILE *g = fopen(path, "r");
        while (g != NULL && fgets(line, sizeof line, g) != NULL)
            has_text |= strcmp(line, "# fiacheck-kind: crash\n") == 0;
        if (g)
            fclose(g);
        unlink(path);
    }
    if (d)
        closedir(d);
    CHECK_EQ_INT(n, 1);
    CHECK(has_text);
    rmdir(spool);
    unlink(file);
    rmdir(dir);
    return check_summary();
}
