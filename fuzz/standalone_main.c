/* A driver without libFuzzer: replays files and directories (a corpus)
 * through one target, for gcc builds and the test suite.
 *
 *   fuzz_params_replay [--fail-on-finding] [--random N [--seed S]
 *                      [--time SECONDS] [--artifact-prefix P]] PATH...
 *
 * --random N also runs N inputs of random bytes (a fixed stream from the
 * seed), for at most --time seconds: a campaign's non-coverage-guided
 * worker (`fiacheck fuzz`), which reaches what coverage does not tell
 * apart (how many KV splits a decode takes).  A crash there writes the
 * input it crashed on to P + "crash-random-<seed>-<index>" (under a
 * sanitizer, whose death callback this driver sets), as libFuzzer writes
 * its artifacts.  Exit 0, or 1 with --fail-on-finding when a finding was
 * reported, 2 on bad usage. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "fuzz/bytes.h"
#include "fuzz/fuzz.h"

#ifndef FUZZ_TARGET_ID
#error "FUZZ_TARGET_ID must be defined"
#endif

static long n_inputs;

/* The random input running now, for the death callback. */
static const char *art_prefix;
static unsigned long long cur_seed;
static long cur_index = -1;
static const uint8_t *cur_buf;
static size_t cur_len;

/* Set by the sanitizer runtimes; absent (NULL) in a plain build. */
void __sanitizer_set_death_callback(void (*)(void)) __attribute__((weak));

static void write_crash_input(void)
{
    if (art_prefix == NULL || cur_index < 0)
        return;
    char path[4096];
    snprintf(path, sizeof path, "%scrash-random-%llu-%ld", art_prefix,
             cur_seed, cur_index);
    FILE *f = fopen(path, "wb");
    if (f != NULL) {
        fwrite(cur_buf, 1, cur_len, f);
        fclose(f);
        fprintf(stderr, "random input %ld of seed %llu written to %s\n",
                cur_index, cur_seed, path);
    }
}

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Runs one input file; FIA_ERR_IO (said) or NOMEM. */
static fia_status run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "cannot open %s\n", path);
        return FIA_ERR_IO;
    }
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    size_t got;
    while (buf != NULL && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            uint8_t *nb = realloc(buf, cap *= 2);
            if (nb == NULL) {
                free(buf);
                buf = NULL;
            } else {
                buf = nb;
            }
        }
    }
    fclose(f);
    if (buf == NULL) {
        fprintf(stderr, "no memory to read %s\n", path);
        return FIA_ERR_NOMEM;
    }
    fuzz_run_one((fuzz_target_id)FUZZ_TARGET_ID, buf, n);
    n_inputs++;
    free(buf);
    return FIA_OK;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs a file, or every file of a directory (recursively, in name
 * order); the first failure (said), the others still run. */
static fia_status run_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "no such file or directory: %s\n", path);
        return FIA_ERR_IO;
    }
    if (!S_ISDIR(st.st_mode))
        return run_file(path);
    DIR *d = opendir(path);
    if (d == NULL) {
        fprintf(stderr, "cannot open the directory %s\n", path);
        return FIA_ERR_IO;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    fia_status rc = FIA_OK;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || strstr(e->d_name, ".dict") != NULL)
            continue;
        if (n == cap) {
            char **nn = realloc(names, (cap = cap ? cap * 2 : 64) * sizeof *names);
            if (nn == NULL) {
                rc = FIA_ERR_NOMEM;
                fprintf(stderr, "no memory to list %s\n", path);
                break;
            }
            names = nn;
        }
        size_t len = strlen(path) + strlen(e->d_name) + 2;
        if ((names[n] = malloc(len)) != NULL) {
            snprintf(names[n++], len, "%s/%s", path, e->d_name);
        } else if (rc == FIA_OK) {
            rc = FIA_ERR_NOMEM;
            fprintf(stderr, "no memory to list %s\n", path);
        }
    }
    closedir(d);
    if (n > 0)
        qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n; i++) {
        fia_status st1 = run_path(names[i]);
        if (rc == FIA_OK)
            rc = st1;
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    int fail_on_finding = 0, rc = 0;
    long random_n = 0;
    unsigned long long seed = 1;
    double seconds = 0; /* 0: no limit */
    fuzz_report_init((fuzz_target_id)FUZZ_TARGET_ID);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--fail-on-finding") == 0) {
            fail_on_finding = 1;
        } else if (strcmp(argv[i], "--random") == 0 && i + 1 < argc) {
            random_n = atol(argv[++i]);
        } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            seed = strtoull(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--time") == 0 && i + 1 < argc) {
            seconds = atof(argv[++i]);
        } else if (strcmp(argv[i], "--artifact-prefix") == 0 && i + 1 < argc) {
            art_prefix = argv[++i];
        } else if (argv[i][0] == '-') {
            /* libFuzzer-style flags (-runs=..., -dict=...) are ignored */
            if (argv[i][1] != '-' && strchr(argv[i], '=') != NULL)
                continue;
            fprintf(stderr, "usage: %s [--fail-on-finding] [--random N "
                    "[--seed S] [--time SECONDS] [--artifact-prefix P]] "
                    "PATH...\n", argv[0]);
            return 2;
        } else if (run_path(argv[i]) != FIA_OK) {
            rc = 2;
        }
    }
    fuzz_rng r = {seed};
    uint8_t buf[512];
    if (random_n > 0 && __sanitizer_set_death_callback != NULL)
        __sanitizer_set_death_callback(write_crash_input);
    cur_seed = seed, cur_buf = buf;
    const double end = seconds > 0 ? now_seconds() + seconds : 0;
    for (long k = 0; k < random_n && (end == 0 || now_seconds() < end); k++) {
        size_t n = (size_t)(fuzz_rng_next(&r) % sizeof buf);
        for (size_t j = 0; j < n; j++)
            buf[j] = (uint8_t)fuzz_rng_next(&r);
        cur_index = k, cur_len = n;
        fuzz_run_one((fuzz_target_id)FUZZ_TARGET_ID, buf, n);
        n_inputs++;
    }
    cur_index = -1;
    const fuzz_counters *c = fuzz_report_counters();
    printf("%s: %ld inputs, %lld judged, %lld accepted by the rules, "
           "%lld skipped, %lld findings\n", fuzz_target_name(FUZZ_TARGET_ID),
           n_inputs, (long long)c->evaluated, (long long)c->accepted,
           (long long)c->skipped, (long long)c->findings);
    fuzz_report_flush();
    if (rc)
        return rc;
    return fail_on_finding && c->findings > 0 ? 1 : 0;
}
