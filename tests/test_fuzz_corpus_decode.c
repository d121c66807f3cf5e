/* The seed corpora keep their meaning: every seed of corpus/fuzz_<target>/
 * decodes to the case it decoded to when tests/fuzz_corpus_decode.expected
 * was written (a hash of the printed case and, for fuzz_metamorphic, the
 * transform).  The decoders' fragments (fuzz/gen.h) consume the bytes in
 * list order; a change of that order re-maps the corpus and fails here.
 *
 * The seeds decode as on a CPU with every kernel level fiacheck names
 * (fuzz_decode_as_every_level), so the file holds on any machine.
 *
 * After a deliberate change of the decoders (or of the case printer):
 *   FIA_UPDATE_EXPECTED=1 build/gcc/test_fuzz_corpus_decode
 * rewrites the file; review and commit it with the change. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "test_file.h"
#include "fuzz/fuzz.h"

#define EXPECTED "tests/fuzz_corpus_decode.expected"

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The seed files of a corpus folder, sorted; *n their count. */
static char **seed_names(const char *dir, int *n)
{
    char **names = NULL;
    int cap = 0;
    *n = 0;
    DIR *d = opendir(dir);
    if (d == NULL)
        return NULL;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || strstr(e->d_name, ".dict") != NULL)
            continue;
        if (*n == cap) {
            char **nn = realloc(names, (size_t)(cap = cap ? cap * 2 : 64) * sizeof *nn);
            if (nn == NULL)
                break;
            names = nn;
        }
        if ((names[*n] = strdup(e->d_name)) != NULL)
            (*n)++;
    }
    closedir(d);
    if (*n > 0)
        qsort(names, (size_t)*n, sizeof *names, cmp_str);
    return names;
}

static uint64_t fnv1a(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ull;
    return h;
}

/* The hash of what one seed decodes to; 0 when it cannot be read. */
static uint64_t decode_hash(fuzz_target_id t, const char *path)
{
    size_t n = 0;
    char *bytes = test_read_file(path, &n);
    if (bytes == NULL)
        return 0;
    /* the decoders are given at most the first 64 KiB, as ever */
    if (n > (size_t)1 << 16)
        n = (size_t)1 << 16;
    const uint8_t *buf = (const uint8_t *)bytes;
    fia_case c;
    char transform[64] = "";
    if (t == FUZZ_PARAMS)
        fuzz_decode_params(buf, n, &c);
    else if (t == FUZZ_NUMERIC)
        fuzz_decode_numeric(buf, n, &c);
    else
        fuzz_decode_metamorphic(buf, n, &c, transform, sizeof transform);
    char *text = fia_case_to_string(&c);
    uint64_t h = fnv1a(fnv1a(1469598103934665603ull, transform), text ? text : "");
    free(text);
    free(bytes);
    fia_case_free(&c);
    return h;
}

/* "target file hash" lines of every seed, in order. */
static char *current_text(void)
{
    size_t cap = 1 << 14, len = 0;
    char *out = malloc(cap);
    if (out == NULL)
        return NULL;
    out[0] = '\0';
    for (int t = 0; t < FUZZ_TARGET_COUNT; t++) {
        char dir[256];
        snprintf(dir, sizeof dir, "corpus/%s", fuzz_target_name((fuzz_target_id)t));
        int n;
        char **names = seed_names(dir, &n);
        CHECK_MSG(n > 0, "no seeds in %s", dir);
        for (int i = 0; i < n; i++) {
            char path[600], line[700];
            snprintf(path, sizeof path, "%s/%s", dir, names[i]);
            int k = snprintf(line, sizeof line, "%s %s %016llx\n",
                             fuzz_target_name((fuzz_target_id)t), names[i],
                             (unsigned long long)decode_hash((fuzz_target_id)t, path));
            while (len + (size_t)k + 1 > cap) {
                char *no = realloc(out, cap *= 2);
                if (no == NULL) {
                    free(out);
                    return NULL;
                }
                out = no;
            }
            memcpy(out + len, line, (size_t)k + 1);
            len += (size_t)k;
            free(names[i]);
        }
        free(names);
    }
    return out;
}

int main(void)
{
    /* as on the machine that wrote the expected file (every level) */
    fuzz_decode_as_every_level(1);
    char *now = current_text();
    CHECK(now != NULL);
    if (now == NULL)
        return check_summary();
    const char *upd = getenv("FIA_UPDATE_EXPECTED");
    if (upd != NULL && upd[0] == '1') {
        FILE *f = fopen(EXPECTED, "w");
        CHECK(f != NULL && fputs(now, f) >= 0);
        if (f)
            fclose(f);
        printf("wrote %s\n", EXPECTED);
        free(now);
        return check_summary();
    }
    FILE *f = fopen(EXPECTED, "r");
    CHECK_MSG(f != NULL, "cannot read %s", EXPECTED);
    char want[700];
    const char *p = now;
    int lines = 0;
    while (f != NULL && fgets(want, sizeof want, f) != NULL) {
        size_t l = strcspn(p, "\n");
        CHECK_MSG(strlen(want) == l + 1 && strncmp(p, want, l) == 0,
                  "seed decodes differently: expected %.*s, now %.*s",
                  (int)strcspn(want, "\n"), want, (int)l, p);
        p += l + (p[l] == '\n');
        lines++;
    }
    CHECK_MSG(*p == '\0', "seeds not in %s: %.60s...", EXPECTED, p);
    if (f)
        fclose(f);
    printf("%d seeds decode as recorded\n", lines);
    free(now);
    return check_summary();
}
