/* `fiacheck fuzz`: the artifacts libFuzzer leaves (crash-, leak-, oom-,
 * timeout- files) become findings in the store, once per signature; a
 * finding the store refuses (locked) is spooled to a case file at once and
 * retried, never dropped. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fuzz_runner.h"

#ifdef FIA_HAVE_STORE
/* The kind of finding a libFuzzer artifact file is, NULL for other files. */
static const char *artifact_kind(const char *name)
{
    if (strncmp(name, "crash-", 6) == 0 || strncmp(name, "leak-", 5) == 0 ||
        strncmp(name, "oom-", 4) == 0)
        return "crash";
    return strncmp(name, "timeout-", 8) == 0 ? "timeout" : NULL;
}

/* Spools fd's text under dir and keeps fd (taking what it holds) in u.
 * FIA_OK, or FIA_ERR_IO / FIA_ERR_NOMEM when not even that worked. */
static fia_status spool_finding(unstored_list *u, fuzz_finding *fd,
                                int64_t campaign, const char *dir,
                                fia_error *err)
{
    if (u->n == u->cap) {
        size_t cap = u->cap ? 2 * u->cap : 8;
        unstored_finding *ni = realloc(u->items, cap * sizeof *ni);
        if (ni == NULL)
            return fia_fail(err, FIA_ERR_NOMEM, "out of memory keeping a finding");
        u->items = ni, u->cap = cap;
    }
    unstored_finding *x = &u->items[u->n];
    snprintf(x->path, sizeof x->path, "%s/parent.%ld.%zu.case", dir,
             (long)getpid(), u->n);
    FILE *f = fopen(x->path, "w");
    if (f == NULL || fputs(fd->text, f) < 0 || fclose(f) != 0)
        return fia_fail(err, FIA_ERR_IO, "cannot write %s: %s", x->path,
                        strerror(errno));
    x->fd = *fd;
    x->campaign = campaign;
    fd->text = NULL;   /* now u's */
    u->n++;
    return FIA_OK;
}

/* Tries the spooled findings again; those stored leave u, their files
 * removed.  Stops at the first refusal (the store is still locked: each
 * try waits its busy timeout). */
void fuzz_retry_unstored(fia_store *st, unstored_list *u, const char *revision)
{
    size_t k = 0;
    for (size_t i = 0; i < u->n; i++) {
        unstored_finding *x = &u->items[i];
        fia_finding_record r;
        fuzz_finding_record(&x->fd, x->campaign, revision, &r);
        if (k == i && fia_store_add_finding(st, &r, NULL) == FIA_OK) {
            unlink(x->path);
            fuzz_finding_free(&x->fd);
            k++;
            continue;
        }
        u->items[i - k] = *x;
    }
    u->n -= k;
}

/* Records one artifact as a finding, once per signature (seen); what the
 * store refuses goes to u. */
static void record_artifact(fia_store *st, const char *path, const char *name,
                            const char *kind, const target_run *tr,
                            const char *profile, const char *revision,
                            fuzz_strset *seen, unstored_list *u)
{
    uint8_t buf[4096];
    size_t n = 0;
    FILE *f = fopen(path, "rb");
    if (f != NULL) {
        n = fread(buf, 1, sizeof buf, f);
        fclose(f);
    }
    /* an incomplete case (out of memory) still names the crash */
    fia_case c;
    char transform[64] = "";
    if (tr->id == FUZZ_PARAMS)
        (void)fuzz_decode_params(buf, n, &c);
    else if (tr->id == FUZZ_NUMERIC)
        (void)fuzz_decode_numeric(buf, n, &c);
    else
        (void)fuzz_decode_metamorphic(buf, n, &c, transform, sizeof transform);
    fuzz_finding fd;
    const char *summary = fuzz_artifact_summary(tr, name);
    fuzz_finding_of_artifact(&fd, &c, kind, tr->id, profile, transform, path,
                             summary ? summary
                             : tr->last_summary[0] ? tr->last_summary : name);
    int added = 1;
    if (fuzz_strset_add(seen, fd.signature, NULL, &added) != FIA_OK)
        added = 1;   /* out of memory: recorded again, the store counts it */
    if (added && fuzz_finding_attach_text(&fd, &c) != FIA_OK) {
        fprintf(stderr, "fiacheck fuzz: out of memory for the finding of %s; "
                "the artifact stays\n", path);
    } else if (added) {
        fia_finding_record r;
        fuzz_finding_record(&fd, tr->campaign, revision, &r);
        fia_status src = u->store_busy ? FIA_ERR_BUSY
                                       : fia_store_add_finding(st, &r, NULL);
        if (src != FIA_OK) {
            fia_error err = {0};
            if (!u->store_busy)
                fprintf(stderr, "fiacheck fuzz: cannot record %s: %s; kept to "
                        "retry\n", path, fia_store_errmsg(st));
            u->store_busy |= src == FIA_ERR_BUSY;
            if (spool_finding(u, &fd, tr->campaign, tr->unstored_dir, &err) != FIA_OK)
                fprintf(stderr, "fiacheck fuzz: %s; the artifact %s stays\n",
                        err.msg, path);
        }
    }
    fuzz_finding_free(&fd);
    fia_case_free(&c);
}

/* Crash/timeout/oom artifacts of this campaign become findings. */
void fuzz_collect_artifacts(fia_store *st, target_run *tr, const char *profile,
                            const char *revision, unstored_list *u)
{
    DIR *d = opendir(tr->arts);
    if (d == NULL)
        return;
    fuzz_strset seen;
    fuzz_strset_init(&seen);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *kind = artifact_kind(e->d_name);
        char path[PATH_MAX + 300];
        if (kind == NULL)
            continue;
        snprintf(path, sizeof path, "%s/%s", tr->arts, e->d_name);
        tr->artifacts++;
        record_artifact(st, path, e->d_name, kind, tr, profile, revision, &seen, u);
    }
    closedir(d);
    tr->nsigs += (int)seen.n;
    fuzz_strset_free(&seen);
}

static int count_new(const fia_store_finding *f, void *ctx)
{
    target_run *tr = ctx;
    if (f->campaign_id == tr->campaign)
        tr->new_findings++;
    return 0;
}

void fuzz_count_new(fia_store *st, target_run *tr)
{
    fia_store_list_findings(st, NULL, count_new, tr);
}

/* The number of spooled case files in dir (the workers' and ours). */
int fuzz_count_case_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        n += l > 5 && strcmp(e->d_name + l - 5, ".case") == 0;
    }
    closedir(d);
    return n;
}


void fuzz_unstored_free(unstored_list *u)
{
    for (size_t i = 0; i < u->n; i++)
        fuzz_finding_free(&u->items[i].fd);   /* their files stay */
    free(u->items);
    memset(u, 0, sizeof *u);
}
#endif
