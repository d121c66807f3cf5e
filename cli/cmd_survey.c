/* `fiacheck survey`: the accuracy of one fixed stream of cases, stored so
 * that two revisions can be compared case by case.
 *
 * A fuzz campaign is steered by coverage: two campaigns of one binary run
 * different cases, and their accuracy samples are not two draws from one
 * distribution (db regressions on such a pair reported false alarms).  A
 * survey runs fuzz_numeric on inputs that depend on --seed and the case's
 * index only (SplitMix64 bytes), so every revision surveyed with the same
 * seed and count runs the same cases, as long as the numeric decoder is
 * the same; each sample carries its case's digest and `db regressions`
 * pairs them.  It goes through the fuzz target's own path (fuzz_run_one):
 * the same verdicts, findings, rule coverage and samples as a campaign
 * records.  Cost: the cases' checks, about 1-10 ms each. */
#define _XOPEN_SOURCE 700 /* realpath, setenv */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "fia/sut_host.h"
#include "fia/store.h"

#define SURVEY_INPUT_BYTES 256
#define SURVEY_MAX_CASES 10000000L

static const char survey_usage[] =
    "usage: fiacheck survey [--cases N] [--seed S] [--db PATH] "
    "[--profile doc|cann]\n"
    "                       [--revision NAME] [--only TAG] [--quiet]\n"
    "  Runs N cases (default 500) of fuzz_numeric decoded from a fixed\n"
    "  stream of inputs (seed S, default 1), records them as a campaign of\n"
    "  target 'survey' (samples, findings, rule coverage), and prints a\n"
    "  summary.  The same seed and N at two revisions run the same cases:\n"
    "  `fiacheck db regressions` compares them case by case.\n"
    "  --db PATH        the store (default results/findings.db; created)\n"
    "  --revision NAME  the revision to store (default: the build's, or the\n"
    "                   --sut plug-in's version)\n"
    "  --sut PATH       survey the plug-in at PATH instead of fast/\n"
    "  --no-isolate     call the plug-in in-process (default: each call in a\n"
    "                   child process, a crash or hang a finding; --isolate\n"
    "                   does so for fast/ too)\n"
    "  --timeout S      seconds a call out of process may take (default 60)\n"
    "  --only TAG       run only the cases of the stream whose feature set\n"
    "                   has TAG (a bucket's word, e.g. int8kv, int4kv,\n"
    "                   int8out, int8q, pse): N counts those; the others\n"
    "                   are decoded and skipped, so the cases stay the\n"
    "                   same at every revision.  The quantization words\n"
    "                   also make the decoder quantize wherever that mode\n"
    "                   applies (a stream of its own)\n"
    "  --quiet          no progress line and no line per finding on stderr\n"
    "exit status: 0 no finding, 1 findings, 2 bad usage or input\n";

typedef struct survey_opts {
    long cases;
    long seed;
    const char *db, *revision, *profile, *only;
    int quiet;
} survey_opts;

static int usage(void)
{
    fputs(survey_usage, stderr);
    return CLI_EXIT_USAGE;
}

/* FIA_OK (*help set when -h or --help came first: the help printed), or
 * FIA_ERR_BAD_INPUT after saying why. */
static fia_status parse(int argc, char **argv, survey_opts *o, int *help)
{
    int seen[6] = {0};
    *help = 0;
    o->cases = 500;
    o->seed = 1;
    o->db = "results/findings.db";
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (cli_is_help(a)) {
            fputs(survey_usage, stdout);
            *help = 1;
            return FIA_OK;
        }
        if (strcmp(a, "--quiet") == 0) {
            o->quiet = 1;
        } else if (strcmp(a, "--cases") == 0) {
            if (cli_once("survey", a, &seen[0]) ||
                cli_value("survey", argc, argv, &i, &v) ||
                cli_long("survey", a, v, 1, SURVEY_MAX_CASES, &o->cases))
                return FIA_ERR_BAD_INPUT;
        } else if (strcmp(a, "--seed") == 0) {
            if (cli_once("survey", a, &seen[1]) ||
                cli_value("survey", argc, argv, &i, &v) ||
                cli_long("survey", a, v, 0, LONG_MAX, &o->seed))
                return FIA_ERR_BAD_INPUT;
        } else if (strcmp(a, "--db") == 0) {
            if (cli_once("survey", a, &seen[2]) ||
                cli_value("survey", argc, argv, &i, &o->db))
                return FIA_ERR_BAD_INPUT;
        } else if (strcmp(a, "--only") == 0) {
            if (cli_once("survey", a, &seen[5]) ||
                cli_value("survey", argc, argv, &i, &o->only))
                return FIA_ERR_BAD_INPUT;
            if (o->only[0] == '\0' || strchr(o->only, '+') != NULL) {
                fprintf(stderr, "fiacheck survey: --only takes one feature "
                        "word without '+', e.g. int8kv\n");
                return FIA_ERR_BAD_INPUT;
            }
        } else if (strcmp(a, "--revision") == 0) {
            if (cli_once("survey", a, &seen[3]) ||
                cli_value("survey", argc, argv, &i, &o->revision))
                return FIA_ERR_BAD_INPUT;
        } else if (strcmp(a, "--profile") == 0) {
            fia_profile p;
            if (cli_profile("survey", argc, argv, &i, &p, &seen[4]))
                return FIA_ERR_BAD_INPUT;
            o->profile = fia_profile_name(p);
        } else {
            fprintf(stderr, "fiacheck survey: unknown option '%s'\n", a);
            return FIA_ERR_BAD_INPUT;
        }
    }
    return FIA_OK;
}

/* SplitMix64: the k-th input depends on (seed, k) only. */
static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static void survey_input(long seed, long k, uint8_t *buf, size_t n)
{
    uint64_t x = (uint64_t)seed * 0x100000001b3u ^ (uint64_t)k;
    for (size_t i = 0; i < n; i += 8) {
        uint64_t r = splitmix64(&x);
        for (size_t j = 0; j < 8 && i + j < n; j++)
            buf[i + j] = (uint8_t)(r >> (8 * j));
    }
}

/* Whether input buf decodes to a case whose feature set has "+tag" (a
 * whole word: "+int8" is not "+int8kv").  A case the decoder refuses has
 * no feature. */
static int has_tag(const uint8_t *buf, size_t n, const char *tag)
{
    fia_case c;
    fia_case_init(&c);
    int in = 0;
    if (fuzz_decode_numeric(buf, n, &c) == FIA_OK) {
        char fs[FUZZ_SIGNATURE_LEN];
        fuzz_feature_set(&c, fs, sizeof fs);
        const size_t tl = strlen(tag);
        for (const char *p = strchr(fs, '+'); p && !in; p = strchr(p + 1, '+'))
            in = strncmp(p + 1, tag, tl) == 0 &&
                 (p[1 + tl] == '\0' || p[1 + tl] == '+');
    }
    fia_case_free(&c);
    return in;
}

/* The draws --only looks at before it gives up on a tag (below one case
 * in SURVEY_ONLY_RATIO draws after SURVEY_ONLY_FIRST). */
#define SURVEY_ONLY_FIRST 1000
#define SURVEY_ONLY_RATIO 100000

/* Adds the words of feature set fs (after its phase: "decode+gqa+lse")
 * that words[n] does not hold yet, blank-separated. */
static void add_words(char *words, size_t n, const char *fs)
{
    for (const char *w = strchr(fs, '+'); w != NULL; w = strchr(w + 1, '+')) {
        int wl = (int)strcspn(w + 1, "+");
        int seen = 0;
        for (const char *p = words; *p && !seen; p += strcspn(p, " "),
                        p += *p == ' ')
            seen = (int)strcspn(p, " ") == wl && strncmp(p, w + 1, (size_t)wl) == 0;
        size_t used = strlen(words);
        if (!seen && used + (size_t)wl + 2 < n)
            snprintf(words + used, n - used, "%s%.*s", used ? " " : "", wl,
                     w + 1);
    }
}

/* FIA_OK when one of the stream's first SURVEY_ONLY_FIRST cases has the
 * tag; else FIA_ERR_BAD_INPUT, said with the words those cases have (a tag no case has is a
 * typo or a feature the decoder does not make: an empty campaign stored
 * under it would read as a survey that found nothing). */
static fia_status only_tag_exists(const survey_opts *o)
{
    uint8_t buf[SURVEY_INPUT_BYTES];
    char words[1024] = "";
    for (long k = 0; k < SURVEY_ONLY_FIRST; k++) {
        survey_input(o->seed, k, buf, sizeof buf);
        if (has_tag(buf, sizeof buf, o->only))
            return FIA_OK;
        fia_case c;
        fia_case_init(&c);
        char fs[FUZZ_SIGNATURE_LEN];
        if (fuzz_decode_numeric(buf, sizeof buf, &c) == FIA_OK) {
            fuzz_feature_set(&c, fs, sizeof fs);
            add_words(words, sizeof words, fs);
        }
        fia_case_free(&c);
    }
    fprintf(stderr, "fiacheck survey: --only %s: none of the first %d cases "
            "of the stream (seed %ld) has it; their feature words: %s\n",
            o->only, SURVEY_ONLY_FIRST, o->seed, words);
    return FIA_ERR_BAD_INPUT;
}

/* The live line (cli_live_print): every second on a terminal, every ten
 * seconds elsewhere (as fuzz's), none with --quiet. */
static void survey_progress(const survey_opts *o, long run, double t0,
                            double *last)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double now = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    if (o->quiet || now - *last < (cli_live_tty() ? 1.0 : 10.0))
        return;
    *last = now;
    double secs = now - t0;
    const fuzz_counters *n = fuzz_report_counters();
    char line[256], left[48] = "";
    if (run > 0 && secs >= 1)
        snprintf(left, sizeof left, ", about %.0f s left",
                 secs / (double)run * (double)(o->cases - run));
    snprintf(line, sizeof line, "survey: %ld of %ld cases (%.0f%%), %lld "
             "findings, %.0f s%s", run, o->cases,
             100.0 * (double)run / (double)o->cases, (long long)n->findings,
             secs, left);
    cli_live_print(line);
}

/* The command line as one string, for the campaign's record. */
static void command_line(int argc, char **argv, char *out, size_t len)
{
    size_t k = (size_t)snprintf(out, len, "fiacheck survey");
    for (int i = 0; i < argc && k < len; i++)
        k += (size_t)snprintf(out + k, len - k, " %s", argv[i]);
}

int cmd_survey(int argc, char **argv)
{
    survey_opts o = {0};
    int help = 0;
    if (parse(argc, argv, &o, &help) != FIA_OK)
        return usage();
    if (help)
        return CLI_EXIT_OK;
    fuzz_numeric_focus(o.only); /* a quantization word: its stream */
    if (o.only != NULL && only_tag_exists(&o) != FIA_OK)
        return CLI_EXIT_USAGE; /* before the store: nothing is stored */
    const char *revision = o.revision ? o.revision : cli_sut_revision();
    fia_store *st = NULL;
    char err[512];
    if (fia_store_open(o.db, FIA_STORE_OPEN_CREATE, &st, err, sizeof err) !=
        FIA_OK) {
        fprintf(stderr, "fiacheck survey: %s\n", err);
        return CLI_EXIT_USAGE;
    }
    char command[1024], abs[PATH_MAX];
    command_line(argc, argv, command, sizeof command);
    fia_campaign_info ci = {revision, "survey", o.profile ? o.profile : "doc+cann",
                            "default", (uint64_t)o.seed, command, "",
                            fia_sut_current()->name, cli_build_revision()};
    int64_t campaign = 0;
    if (fia_store_campaign_begin(st, &ci, &campaign) != FIA_OK) {
        fprintf(stderr, "fiacheck survey: %s\n", fia_store_errmsg(st));
        fia_store_close(st);
        return CLI_EXIT_USAGE;
    }
    /* The fuzz target's reporting writes to the store on its own
     * connection, as a campaign's workers do. */
    char id[32];
    snprintf(id, sizeof id, "%lld", (long long)campaign);
    if (o.db[0] == '/' || realpath(o.db, abs) == NULL)
        snprintf(abs, sizeof abs, "%s", o.db);
    setenv("FIACHECK_DB", abs, 1);
    setenv("FIACHECK_CAMPAIGN", id, 1);
    setenv("FIACHECK_REVISION", revision, 1);
    setenv("FIACHECK_ON_FINDING", "record", 1); /* in-process: never abort */
    unsetenv("FIACHECK_STATS");
    /* A finding the store refuses is spooled beside the store. */
    char spool[PATH_MAX + 64];
    snprintf(spool, sizeof spool, "%s", abs);
    char *sl = strrchr(spool, '/');
    snprintf(sl ? sl + 1 : spool, sizeof spool - (size_t)(sl ? sl + 1 - spool : 0),
             "unstored");
    (void)mkdir(spool, 0777);
    size_t sp = strlen(spool);
    snprintf(spool + sp, sizeof spool - sp, "/survey-%lld", (long long)campaign);
    if (mkdir(spool, 0777) == 0)
        setenv("FIACHECK_UNSTORED", spool, 1);
    else
        unsetenv("FIACHECK_UNSTORED");
    if (o.profile)
        setenv("FIACHECK_PROFILE", o.profile, 1);
    else
        unsetenv("FIACHECK_PROFILE");
    fuzz_report_init(FUZZ_NUMERIC);
    fuzz_report_quiet(o.quiet);
    time_t t0 = time(NULL);
    struct timespec ts0;
    clock_gettime(CLOCK_MONOTONIC, &ts0);
    double mono0 = (double)ts0.tv_sec + 1e-9 * (double)ts0.tv_nsec;
    /* on a terminal the first line at once; in a log after ten seconds */
    double last_progress = cli_live_tty() ? mono0 - 100 : mono0;
    uint8_t buf[SURVEY_INPUT_BYTES];
    long drawn = 0;
    for (long k = 0, run = 0; run < o.cases; k++) {
        survey_progress(&o, run, mono0, &last_progress);
        if (k == LONG_MAX || (o.only && k >= SURVEY_ONLY_FIRST &&
                              run * SURVEY_ONLY_RATIO < k)) {
            fprintf(stderr, "fiacheck survey: --only %s: %ld of %ld cases "
                    "drawn have it; stopped\n", o.only, run, k);
            break; /* fewer than 1 in 100000: the tag may not exist */
        }
        survey_input(o.seed, k, buf, sizeof buf);
        drawn = k + 1;
        if (o.only && !has_tag(buf, sizeof buf, o.only))
            continue;
        fuzz_run_one(FUZZ_NUMERIC, buf, sizeof buf);
        run++;
    }
    cli_live_end();
    fuzz_report_close(); /* its connection checkpointed and closed */
    const fuzz_counters *n = fuzz_report_counters();
    size_t unstored = fuzz_report_unstored();
    double secs = difftime(time(NULL), t0);
    int rc = fia_store_campaign_update(st, campaign, n->execs, 0, secs, 1);
    if (rc != FIA_OK)
        fprintf(stderr, "fiacheck survey: %s\n", fia_store_errmsg(st));
    fia_store_close(st);
    if (unstored == 0)
        (void)rmdir(spool); /* only when empty; its parent may be shared */
    if (o.only)
        printf("--only %s: %lld of %ld cases drawn\n", o.only,
               (long long)n->execs, drawn);
    char rev[160];
    printf("survey of %lld cases (seed %ld) at %s: %lld judged, %lld "
           "compared nothing, %lld not modeled, %lld not covered by %s, "
           "%lld findings; campaign %lld in %s\n",
           (long long)n->execs, o.seed,
           cli_revision_short(revision, rev, sizeof rev),
           (long long)n->evaluated, (long long)n->vacuous,
           (long long)n->not_modeled, (long long)n->not_covered,
           fia_sut_current()->name, (long long)n->findings,
           (long long)campaign, o.db);
    if (unstored > 0 || rc != FIA_OK) {
        fprintf(stderr, "fiacheck survey: %zu finding(s) could not be stored "
                "in %s (their case files: %s)\n", unstored, o.db, spool);
        return CLI_EXIT_USAGE;
    }
    return n->findings > 0 ? CLI_EXIT_FINDING : CLI_EXIT_OK;
}
