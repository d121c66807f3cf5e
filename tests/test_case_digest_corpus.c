/* A case's digest is its identity across revisions (`db regressions` pairs
 * samples by it): every corpus case whose file is unchanged keeps the
 * digest it had when tests/case_digests.expected was written, by the
 * revision before the case printer stopped calling printf for each value.
 * Each line: path, FNV-1a of the file's bytes, digest; a case whose file
 * changed since (or is gone) is not compared.  A change of the canonical
 * text moves digests and fails here; when deliberate, the digest's
 * identity moves with it (say so in core/case_digest.c), and
 *   FIA_UPDATE_EXPECTED=1 build/gcc/test_case_digest_corpus
 * rewrites the file from corpus/cases. */
#include <glob.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "test_file.h"
#include "fia/case.h"

#define EXPECTED "tests/case_digests.expected"

/* FNV-1a 64 of the file's bytes; 0 when it cannot be read. */
static uint64_t file_hash(const char *path)
{
    uint64_t h;
    return test_file_fnv1a64(path, &h) == 0 ? h : 0;
}

static int digest_of(const char *path, char out[FIA_CASE_DIGEST_LEN])
{
    fia_case c;
    fia_error e;
    if (fia_case_parse_file(path, &c, &e) != FIA_OK)
        return -1;
    int rc = fia_case_digest(&c, out) == FIA_OK ? 0 : -1;
    fia_case_free(&c);
    return rc;
}

static int update(void)
{
    glob_t g;
    if (glob("corpus/cases/*/*.case", 0, NULL, &g) != 0) {
        fprintf(stderr, "no corpus/cases (run from the source tree)\n");
        return 1;
    }
    FILE *w = fopen(EXPECTED, "w");
    if (w == NULL)
        return 1;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        char d[FIA_CASE_DIGEST_LEN];
        if (digest_of(g.gl_pathv[i], d) == 0)
            fprintf(w, "%s %016llx %s\n", g.gl_pathv[i],
                    (unsigned long long)file_hash(g.gl_pathv[i]), d);
    }
    fclose(w);
    globfree(&g);
    return 0;
}

int main(void)
{
    if (getenv("FIA_UPDATE_EXPECTED") != NULL)
        return update();
    FILE *f = fopen(EXPECTED, "r");
    if (f == NULL) {
        fprintf(stderr, "cannot read %s (run from the source tree)\n", EXPECTED);
        return 1;
    }
    char line[1200], path[1100], want[64], got[FIA_CASE_DIGEST_LEN];
    unsigned long long fh;
    int compared = 0, changed = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        if (sscanf(line, "%1099s %llx %63s", path, &fh, want) != 3)
            continue;
        if (file_hash(path) != (uint64_t)fh) {
            changed++; /* another case now (or none): nothing to compare */
            continue;
        }
        compared++;
        CHECK_MSG(digest_of(path, got) == 0 && strcmp(got, want) == 0,
                  "%s: digest %s, was %s", path, got, want);
    }
    fclose(f);
    printf("%d corpus cases compared, %d changed since the file was "
           "written\n", compared, changed);
    CHECK(compared > 400); /* most of the corpus is still the same */
    return check_summary();
}
