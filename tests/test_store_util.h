/* Shared helpers of the store tests: a scratch directory and file paths. */
#ifndef FIA_TEST_STORE_UTIL_H
#define FIA_TEST_STORE_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fia/store.h"

static char scratch_dir[64];

static const char *scratch(const char *name)
{
    static char buf[8][256];
    static int k;
    if (scratch_dir[0] == '\0') {
        snprintf(scratch_dir, sizeof scratch_dir, "/tmp/fia_store_XXXXXX");
        if (mkdtemp(scratch_dir) == NULL) {
            perror("mkdtemp");
            exit(2);
        }
    }
    char *b = buf[k++ % 8];
    snprintf(b, 256, "%s/%s", scratch_dir, name);
    return b;
}

static void scratch_cleanup(void)
{
    if (scratch_dir[0]) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", scratch_dir);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", scratch_dir);
    }
}

static fia_store *open_ok(const char *path, int create)
{
    fia_store *s = NULL;
    char err[512];
    int rc = fia_store_open(path, create, &s, err, sizeof err);
    if (rc != FIA_OK)
        fprintf(stderr, "open %s: %d %s\n", path, rc, err);
    return s;
}

static fia_finding_record record(int64_t campaign, const char *sig,
                                 const char *kind, const char *rev,
                                 const char *text)
{
    fia_finding_record f = {
        .campaign_id = campaign, .signature = sig, .kind = kind,
        .target = "fuzz_params", .profile = "doc", .revision = rev,
        .case_text = text, .seed = 7, .metrics_json = NULL,
        .message = "status mismatch"};
    return f;
}

#endif
