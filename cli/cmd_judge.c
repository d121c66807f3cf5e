/* `fiacheck judge DIR [--sut-name NAME --sut-version V] [--db PATH] [--json]
 *                     [--profile doc|cann] [--tolerance T]`
 *
 * What a device's script wrote back into an export directory (docs/export.md)
 * judged as `run` judges a live system: per case of DIR/cases.tsv, its
 * case.fia is parsed and its data regenerated, its out/ read, and the
 * harness (fia_check_case) calls the replay system (replay_sut.c), which
 * answers with the recorded status and outputs.  The statuses are judged
 * (the device's operator validates).  A missing or malformed out/ is that
 * case's bad-input verdict, never a pass.
 *
 * A rejection is compared by its code: status.json's "code", else the one
 * aclnn code its message carries.  A rejection with neither is judged
 * with a code no rule expects (CLI_JUDGE_UNKNOWN_CODE): a status-mismatch
 * naming it, whatever the rules expect, since agreeing with a rule means
 * returning its status and that could not be seen.
 *
 * --db stores the run as a campaign of the system NAME at version V
 * (default: what status.json names), so `db regressions --base V1 --head
 * V2` compares two driver versions on the same cases. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "cli_judge.h"
#include "cli_judge_store.h"
#include "fia/sut_host.h"

static const char judge_usage[] =
    "usage: fiacheck judge DIR [--sut-name NAME --sut-version V] [--db PATH]\n"
    "                      [--json] [--profile doc|cann] [--tolerance T]\n"
    "  judges what a device's script wrote into each case's out/ of an\n"
    "  export directory (fiacheck export; docs/export.md), as `run` judges\n"
    "  a system: statuses against the rules, outputs against the reference\n"
    "  --sut-name NAME   the system that answered (default: status.json's\n"
    "                    \"system\"; [A-Za-z0-9_.-], 1..64 characters)\n"
    "  --sut-version V   its version (default: status.json's \"version\")\n"
    "  --db PATH         also store the cases as a campaign of NAME at V\n"
    "  --json            one JSON object per case (docs/cli.md)\n"
    "  --profile P       status codes of the documents (doc, default) or of\n"
    "                    the released code (cann)\n"
    "  --tolerance T     the accuracy criterion (docs/tolerance.md)\n"
    "exit status: 0 all passed, 1 a finding, 2 bad usage or a bad input (a\n"
    "missing or malformed out/ among them)\n";

typedef struct judge_opts {
    fia_check_options check;
    const char *dir, *db, *name, *version;
    int json;
} judge_opts;

typedef struct judge_counts {
    int cases, pass, vacuous, find, skip, bad, unmet;
} judge_counts;

static int valid_name(const char *s)
{
    size_t n = strlen(s);
    if (n < 1 || n > 64)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
              (*s >= '0' && *s <= '9') || *s == '_' || *s == '.' ||
              *s == '-'))
            return 0;
    return 1;
}

static int valid_version(const char *s)
{
    size_t n = strlen(s);
    if (n < 1 || n > 128)
        return 0;
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return 0;
    return 1;
}

/* FIA_OK, or FIA_ERR_BAD_INPUT after saying why. */
static fia_status parse_args(int argc, char **argv, judge_opts *o)
{
    int n_prof = 0, n_tol = 0, n_db = 0, n_name = 0, n_ver = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--json") == 0) {
            o->json = 1;
        } else if (strcmp(a, "--db") == 0) {
            if (cli_once("judge", a, &n_db) ||
                cli_value("judge", argc, argv, &i, &o->db))
                return FIA_ERR_BAD_INPUT;
        } else if (strcmp(a, "--sut-name") == 0) {
            if (cli_once("judge", a, &n_name) ||
                cli_value("judge", argc, argv, &i, &o->name))
                return FIA_ERR_BAD_INPUT;
            if (!valid_name(o->name)) {
                fprintf(stderr, "fiacheck judge: --sut-name takes 1..64 "
                        "characters of [A-Za-z0-9_.-], not '%s'\n", o->name);
                return FIA_ERR_BAD_INPUT;
            }
        } else if (strcmp(a, "--sut-version") == 0) {
            if (cli_once("judge", a, &n_ver) ||
                cli_value("judge", argc, argv, &i, &o->version))
                return FIA_ERR_BAD_INPUT;
            if (!valid_version(o->version)) {
                fprintf(stderr, "fiacheck judge: --sut-version takes 1..128 "
                        "printable characters\n");
                return FIA_ERR_BAD_INPUT;
            }
        } else if (strcmp(a, "--profile") == 0) {
            if (cli_profile("judge", argc, argv, &i, &o->check.profile,
                            &n_prof))
                return FIA_ERR_BAD_INPUT;
        } else if (strcmp(a, "--tolerance") == 0) {
            if (cli_tolerance("judge", argc, argv, &i, &o->check, &n_tol))
                return FIA_ERR_BAD_INPUT;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "fiacheck judge: unknown option %s\n", a);
            return FIA_ERR_BAD_INPUT;
        } else if (o->dir != NULL) {
            fprintf(stderr, "fiacheck judge: one directory, not '%s' too\n",
                    a);
            return FIA_ERR_BAD_INPUT;
        } else {
            o->dir = a;
        }
    }
    if (o->dir == NULL) {
        fprintf(stderr, "fiacheck judge: which export directory?\n");
        return FIA_ERR_BAD_INPUT;
    }
    return FIA_OK;
}

static void bad_input(fia_check_result *r, const char *fmt, ...)
    FIA_PRINTF(2, 3);
static void bad_input(fia_check_result *r, const char *fmt, ...)
{
    memset(r, 0, sizeof *r);
    r->v = FIA_V_BAD_INPUT;
    r->reason.code = FIA_ERR_BAD_INPUT;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->reason.msg, sizeof r->reason.msg, fmt, ap);
    va_end(ap);
}

/* The system and version a case's answer is stored under: the options',
 * else status.json's; with a store, every case must agree with the first
 * (one campaign, one system at one version).  FIA_OK, or
 * FIA_ERR_BAD_INPUT with r set. */
static fia_status answer_system(const judge_opts *o, const cli_device_answer *a,
                         char *name, char *version, fia_check_result *r)
{
    const char *n = o->name ? o->name : a->system[0] ? a->system : NULL;
    const char *v = o->version ? o->version
                  : a->version[0] ? a->version : NULL;
    if (n != NULL && !valid_name(n)) {
        bad_input(r, "%s/out/status.json: \"system\" '%.64s' is not 1..64 "
                  "characters of [A-Za-z0-9_.-]", a->dir, n);
        return FIA_ERR_BAD_INPUT;
    }
    if (v != NULL && !valid_version(v)) {
        bad_input(r, "%s/out/status.json: \"version\" is not 1..128 "
                  "printable characters", a->dir);
        return FIA_ERR_BAD_INPUT;
    }
    if (o->db == NULL) {
        snprintf(name, 65, "%s", n ? n : "device");
        snprintf(version, 129, "%s", v ? v : "unknown");
        return FIA_OK;
    }
    if (n == NULL || v == NULL) {
        bad_input(r, "%s/out/status.json names no system or version to "
                  "store the campaign under: give --sut-name and "
                  "--sut-version", a->dir);
        return FIA_ERR_BAD_INPUT;
    }
    if (name[0] && (strcmp(name, n) != 0 || strcmp(version, v) != 0)) {
        char other[200];
        snprintf(other, sizeof other, "%.64s %.128s", n, v);
        bad_input(r, "%s: answered by %s, but the campaign's system is "
                  "another (judge such directories apart, or name one "
                  "with --sut-name / --sut-version)", a->dir, other);
        return FIA_ERR_BAD_INPUT;
    }
    snprintf(name, 65, "%s", n);
    snprintf(version, 129, "%s", v);
    return FIA_OK;
}

/* One line of cases.tsv judged into r; path gets the case's file. */
static void judge_line(const judge_opts *o, char *line, const char *where,
                       char *path, size_t plen, char *name, char *version,
                       const char *command, fia_check_result *r)
{
    char *f[4] = {line, NULL, NULL, NULL};
    for (int k = 1; k < 4 && f[k - 1]; k++)
        if ((f[k] = strchr(f[k - 1], '\t')) != NULL)
            *f[k]++ = '\0';
    snprintf(path, plen, "%s", where);
    if (f[3] == NULL || strchr(f[3], '\t') || !f[0][0] ||
        strchr(f[0], '/') || strcmp(f[0], "..") == 0 ||
        strcmp(f[0], ".") == 0) {
        bad_input(r, "%s: not DIR <TAB> API <TAB> DIGEST <TAB> NAME with a "
                  "plain directory name", where);
        return;
    }
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/%s", o->dir, f[0]);
    snprintf(path, plen, "%s/case.fia", dir);
    fia_case c;
    fia_error err;
    char digest[FIA_CASE_DIGEST_LEN];
    if (fia_case_parse_file(path, &c, &err) != FIA_OK) {
        memset(r, 0, sizeof *r);
        r->v = FIA_V_BAD_INPUT;
        fia_fail(&r->reason, err.code, "%.200s:%d: %.255s", err.file,
                 err.line, err.msg);
        return;
    }
    /* the case as export saw it: its name (in its digest, its findings'
     * texts and its samples) is the file it was exported from */
    snprintf(c.name, sizeof c.name, "%s", f[3]);
    if (fia_case_digest(&c, digest) != FIA_OK || strcmp(digest, f[2]) != 0 ||
        strcmp(fia_api_name(c.api), f[1]) != 0) {
        bad_input(r, "%s: not the case cases.tsv lists (edited after "
                  "export?): digest %s api %s, cases.tsv says %.20s %.40s",
                  path, digest, fia_api_name(c.api), f[2], f[1]);
        fia_case_free(&c);
        return;
    }
    cli_device_answer a;
    if (cli_device_answer_read(dir, &a, &err) != FIA_OK) {
        memset(r, 0, sizeof *r);
        r->v = FIA_V_BAD_INPUT;
        fia_fail(&r->reason, FIA_ERR_BAD_INPUT, "%s", err.msg);
        fia_case_free(&c);
        return;
    }
    if (answer_system(o, &a, name, version, r) != FIA_OK) {
        cli_device_answer_free(&a);
        fia_case_free(&c);
        return;
    }
    if (o->db != NULL && !cli_judge_store_active() &&
        cli_judge_store_begin(o->db, name, version, o->check.profile,
                              &o->check, command) != FIA_OK)
        exit(CLI_EXIT_USAGE); /* said; nothing stored, nothing to lose */
    fia_sut_use(cli_replay_sut(name, version), "");
    cli_replay_set(&a);
    fia_check_options co = o->check;
    co.fail_masks = o->db != NULL; /* a finding's signature needs them */
    fia_check_case(&c, &co, r);
    if (cli_replay_output_error()[0] != '\0') {
        /* the answer's files, not the device, are at fault */
        fia_check_result_release(r);
        bad_input(r, "%s", cli_replay_output_error());
    } else {
        cli_judge_store_case(&c, r, o->check.profile);
        fia_check_result_release(r);
    }
    cli_replay_set(NULL);
    cli_device_answer_free(&a);
    fia_case_free(&c);
}

static void count(judge_counts *n, fia_verdict v)
{
    n->cases++;
    if (v == FIA_V_BAD_INPUT)
        n->bad++;
    else if (fia_verdict_is_finding(v))
        n->find++;
    else if (v == FIA_V_NOT_MODELED)
        n->skip++;
    else if (v == FIA_V_VACUOUS)
        n->vacuous++;
    else if (v == FIA_V_INTENT_UNMET)
        n->unmet++;
    else
        n->pass++;
}

static void command_line(int argc, char **argv, char *out, size_t len)
{
    size_t k = (size_t)snprintf(out, len, "fiacheck judge");
    for (int i = 0; i < argc && k < len; i++)
        k += (size_t)snprintf(out + k, len - k, " %s", argv[i]);
}

int cmd_judge(int argc, char **argv)
{
    judge_opts o;
    memset(&o, 0, sizeof o);
    fia_check_options_default(&o.check);
    for (int i = 0; i < argc; i++)
        if (cli_is_help(argv[i])) {
            fputs(judge_usage, stdout);
            return CLI_EXIT_OK;
        }
    if (parse_args(argc, argv, &o) != FIA_OK) {
        fputs(judge_usage, stderr);
        return CLI_EXIT_USAGE;
    }
    char tsv[1100], command[1024];
    snprintf(tsv, sizeof tsv, "%s/cases.tsv", o.dir);
    FILE *f = fopen(tsv, "r");
    if (f == NULL) {
        fprintf(stderr, "fiacheck judge: %s: cannot read it (is %s an "
                "export directory?)\n", tsv, o.dir);
        return CLI_EXIT_USAGE;
    }
    command_line(argc, argv, command, sizeof command);
    judge_counts n = {0};
    /* the system a case's verdict names until its answer is read */
    fia_sut_use(cli_replay_sut(o.name ? o.name : "device",
                               o.version ? o.version : "unknown"), "");
    char line[4096], where[1200], path[1200];
    char name[65] = "", version[129] = "";
    fia_check_result *r = malloc(sizeof *r);
    if (r == NULL) {
        fclose(f);
        return CLI_EXIT_USAGE;
    }
    for (int ln = 1; fgets(line, sizeof line, f) != NULL; ln++) {
        size_t len = strlen(line);
        if (len > 0 && line[len - 1] == '\n')
            line[--len] = '\0';
        if (len == 0)
            continue;
        snprintf(where, sizeof where, "%s:%d", tsv, ln);
        judge_line(&o, line, where, path, sizeof path, name, version,
                   command, r);
        if (o.json)
            cli_print_verdict_json(path, r, o.check.profile);
        else
            cli_print_verdict_text(path, r, o.check.profile);
        fflush(stdout);
        count(&n, r->v);
    }
    fclose(f);
    free(r);
    if (n.cases == 0) {
        fprintf(stderr, "fiacheck judge: %s lists no case\n", tsv);
        return CLI_EXIT_USAGE;
    }
    if (!o.json)
        printf("%d cases: %d passed, %d vacuous, %d findings, %d not "
               "modeled, %d bad input, %d intent unmet; answered by %s %s\n",
               n.cases, n.pass, n.vacuous, n.find, n.skip, n.bad, n.unmet,
               name[0] ? name : "?", version[0] ? version : "?");
    fia_status stored = cli_judge_store_end(o.db ? o.db : "");
    if (n.bad || stored != FIA_OK)
        return CLI_EXIT_USAGE;
    return n.find || n.unmet ? CLI_EXIT_FINDING : CLI_EXIT_OK;
}
