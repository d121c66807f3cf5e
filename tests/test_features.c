/* The one list of features (include/fia/feature.h) and what hangs off it:
 * a page docs/features/<name>.md per feature that names every file carrying
 * the feature (and only files that exist), a corpus folder per feature, and
 * names chosen so that `git ls-files '*<name>*'` finds one feature only.
 * Runs from the source root (ctest's working directory). */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "check.h"
#include "test_file.h"
#include "fia/feature.h"

/* The folders whose files a page must list when their name has the word. */
static const char *const part_dirs[] = {"core", "ref", "oracle", "compare",
                                        "fast", "harness", "fuzz", "cli",
                                        "bench", "tests", "include"};

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* ---- every `path` a page names exists --------------------------------- */
static int check_paths(const char *page, const char *text)
{
    int named = 0;
    for (const char *p = strchr(text, '`'); p != NULL;) {
        const char *e = strchr(p + 1, '`');
        if (e == NULL)
            break;
        size_t n = (size_t)(e - p - 1);
        char tok[512];
        if (n > 0 && n < sizeof tok) {
            memcpy(tok, p + 1, n);
            tok[n] = '\0';
            /* a path: no spaces, a slash, not a glob or a command */
            if (strchr(tok, '/') && !strpbrk(tok, " *<>$") &&
                strncmp(tok, "../", 3) != 0) {
                named++;
                CHECK_MSG(exists(tok), "%s names `%s`, which does not exist",
                          page, tok);
            }
        }
        p = strchr(e + 1, '`');
    }
    return named;
}

/* ---- every file with the feature's word is on its page ----------------- */
static const char *walk_word;
static const char *walk_text;
static const char *walk_page;
static int walk_found;

static int visit(const char *path, const struct stat *st, int type,
                 struct FTW *ftw)
{
    (void)st;
    if (type != FTW_F)
        return 0;
    const char *base = path + ftw->base;
    if (strstr(base, walk_word) == NULL)
        return 0;
    const char *rel = strncmp(path, "./", 2) == 0 ? path + 2 : path;
    char quoted[600];
    snprintf(quoted, sizeof quoted, "`%s`", rel);
    walk_found++;
    CHECK_MSG(strstr(walk_text, quoted) != NULL,
              "%s does not name %s (a file carrying the feature)", walk_page,
              rel);
    return 0;
}

/* The *.case files directly in dir. */
static int count_cases(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;) {
        const size_t len = strlen(e->d_name);
        n += len > 5 && strcmp(e->d_name + len - 5, ".case") == 0;
    }
    if (d != NULL)
        closedir(d);
    return n;
}

static void check_page(fia_feature f)
{
    const char *name = fia_feature_name(f);
    char page[256];
    snprintf(page, sizeof page, "docs/features/%s.md", name);
    char *text = test_read_file(page, NULL);
    CHECK_MSG(text != NULL, "no page %s", page);
    if (text == NULL)
        return;
    char title[128];
    snprintf(title, sizeof title, "# %s ", name);
    CHECK_MSG(strncmp(text, title, strlen(title)) == 0,
              "%s does not start with '%s'", page, title);
    CHECK_MSG(strstr(text, "## Where it lives") != NULL,
              "%s has no 'Where it lives' section", page);
    int named = check_paths(page, text);
    CHECK_MSG(named > 0, "%s names no file", page);

    walk_word = name;
    walk_text = text;
    walk_page = page;
    walk_found = 0;
    for (size_t i = 0; i < sizeof part_dirs / sizeof part_dirs[0]; i++) {
        char dir[64];
        snprintf(dir, sizeof dir, "./%s", part_dirs[i]);
        if (exists(dir))
            nftw(dir, visit, 16, FTW_PHYS);
    }

    char corpus[256];
    snprintf(corpus, sizeof corpus, "corpus/cases/%s", name);
    CHECK_MSG(exists(corpus), "no corpus folder %s", corpus);
    char quoted[300];
    snprintf(quoted, sizeof quoted, "`%s/`", corpus);
    CHECK_MSG(strstr(text, quoted) != NULL, "%s does not name %s", page,
              quoted);
    /* and says how many cases the folder holds */
    char counted[400];
    snprintf(counted, sizeof counted, "%s (%d cases)", quoted,
             count_cases(corpus));
    CHECK_MSG(strstr(text, counted) != NULL, "%s does not say %s", page,
              counted);
    free(text);
}

/* ---- folders named by features ---------------------------------------- */
/* Corpus folders that are no feature of the operator: `api` holds calls
 * written through each of the five interfaces (core/case_api.c,
 * docs/case-format.md "Interfaces"), a vocabulary translated at parse time
 * with no rules, checks or reading of its own (and "api" would also name
 * fast/api.c, fast/'s entry point). */
static const char *const not_features[] = {"api"};

static int is_not_feature(const char *dir, const char *name)
{
    if (strcmp(dir, "corpus/cases") != 0)
        return 0;
    for (size_t i = 0; i < sizeof not_features / sizeof not_features[0]; i++)
        if (strcmp(name, not_features[i]) == 0)
            return 1;
    return 0;
}

static void check_folder_names(const char *dir, const char *suffix)
{
    DIR *d = opendir(dir);
    CHECK_MSG(d != NULL, "cannot open %s", dir);
    if (d == NULL)
        return;
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        char name[256];
        snprintf(name, sizeof name, "%s", e->d_name);
        size_t ls = strlen(suffix), ln = strlen(name);
        if (ls > 0) {
            if (ln <= ls || strcmp(name + ln - ls, suffix) != 0)
                continue;
            name[ln - ls] = '\0';
        }
        if (is_not_feature(dir, name))
            continue;
        n++;
        CHECK_MSG(fia_feature_from_name(name) >= 0,
                  "%s/%s is named after no feature of include/fia/feature.h",
                  dir, e->d_name);
    }
    closedir(d);
    CHECK_EQ_INT(n, FIA_FEATURE_COUNT);
}

int main(void)
{
    /* The list itself: names round-trip, none is part of another. */
    for (int i = 0; i < FIA_FEATURE_COUNT; i++) {
        const char *a = fia_feature_name((fia_feature)i);
        CHECK(a != NULL && fia_feature_summary((fia_feature)i) != NULL);
        CHECK_EQ_INT(fia_feature_from_name(a), i);
        CHECK_MSG(strspn(a, "abcdefghijklmnopqrstuvwxyz0123456789_") ==
                      strlen(a),
                  "feature name '%s' is not a lower-case file name", a);
        for (int j = 0; j < FIA_FEATURE_COUNT; j++)
            CHECK_MSG(i == j ||
                          strstr(fia_feature_name((fia_feature)j), a) == NULL,
                      "feature '%s' is part of '%s': '*%s*' would find both",
                      a, fia_feature_name((fia_feature)j), a);
    }
    CHECK(fia_feature_name(FIA_FEATURE_COUNT) == NULL);
    CHECK(fia_feature_from_name("no such feature") == -1);
    CHECK(fia_feature_from_name(NULL) == -1);

    for (int i = 0; i < FIA_FEATURE_COUNT; i++)
        check_page((fia_feature)i);
    check_folder_names("docs/features", ".md");
    check_folder_names("corpus/cases", "");
    for (size_t i = 0; i < sizeof not_features / sizeof not_features[0]; i++) {
        char dir[256];
        snprintf(dir, sizeof dir, "corpus/cases/%s", not_features[i]);
        CHECK_MSG(exists(dir), "no corpus folder %s", dir);
        CHECK_MSG(fia_feature_from_name(not_features[i]) < 0,
                  "%s is a feature now: drop it from not_features",
                  not_features[i]);
    }
    return check_summary();
}
