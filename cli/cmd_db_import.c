/* `fiacheck db import [--db PATH] [--target T] [--revision R]
 *                     [--timeout S] PATH...`
 *
 * What a fuzzing engine elsewhere (ClusterFuzzLite, OSS-Fuzz, a libFuzzer
 * run on another machine) returns is not a store but its crash inputs: the
 * bytes a target crashed on.  Each file (a directory: every file in it,
 * recursively) is replayed through the target's own path (fuzz_run_one,
 * with the environment's FIACHECK_PROFILE, FIACHECK_TOLERANCE and
 * FIACHECK_FAST_PROFILE as the target reads them), judged, and its finding
 * stored with its signature, target and revision: deduplicated against
 * the store by signature as any finding, as a finding of the system
 * FIACHECK_SUT names when it is set.  A replay that crashes or hangs
 * (a sanitizer's finding, which this build may not see the same way) is
 * stored as kind crash or timeout.  The replay runs in a child process, so
 * an input that crashes it never crashes the import.
 *
 * Each input that gives a finding becomes a campaign of one execution
 * whose UUID is derived from the target and the input's bytes: importing
 * the same file again finds that campaign and changes nothing, and `db
 * merge` carries the identity to other stores (it matches campaigns by
 * UUID).  An input that gives no finding leaves nothing.
 *
 * The target: --target, else the first of fuzz_params, fuzz_numeric,
 * fuzz_metamorphic named in the file's path read from its end (OSS-Fuzz
 * names testcases clusterfuzz-testcase-minimized-<target>-<id>; a
 * ClusterFuzzLite or libFuzzer run keeps them in a folder per target).
 * Exit 0 when every input was imported or gave nothing, 2 when one could
 * not be read or judged (the others are still imported). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli.h"
#include "fia/store.h"
#include "fia/sut_host.h"

/* Engines keep inputs small (libFuzzer's default -max_len is 4096); a file
 * past this is not one. */
#define IMPORT_MAX_BYTES (1 << 20)

static const char import_usage[] =
    "usage: fiacheck db import [--db PATH] [--target T] [--revision R]\n"
    "                          [--timeout S] PATH...\n"
    "  crash inputs of a fuzzing engine (files or directories) replayed,\n"
    "  judged and stored as findings (importing again changes nothing)\n"
    "  --target T     params, numeric or metamorphic (default: the target\n"
    "                 named in each file's path)\n"
    "  --revision R   the revision the engine fuzzed (default: this\n"
    "                 fiacheck's, or FIACHECK_SUT's plug-in's version)\n"
    "  --timeout S    seconds one replay may take before it is a timeout\n"
    "                 finding (default 60)\n"
    "exit status: 0 ok, 2 bad usage or an input that could not be imported\n";

typedef struct import_opts {
    const char *db, *revision;
    int target;                  /* -1: from each path */
    long timeout;
    const char *paths[256];
    int npaths;
} import_opts;

typedef struct import_counts {
    int inputs, fresh, known, regressed, again, nothing, errors;
} import_counts;

/* What a replay gave. */
typedef struct replay_result {
    int finding;        /* 1 the child sent one (f), 0 none */
    int signal;         /* the child died of this signal (0 none) */
    int timed_out;
    fuzz_finding f;     /* f.text owned when finding */
} replay_result;

static int pipe_fd = -1;

/* The child's sink: the first finding through the pipe, then exit 3. */
static void send_finding(const fuzz_finding *f)
{
    size_t n = f->text ? strlen(f->text) : 0;
    fuzz_finding copy = *f;
    copy.text = NULL;
    const char *parts[3] = {(const char *)&copy, (const char *)&n, f->text};
    size_t lens[3] = {sizeof copy, sizeof n, n};
    for (int i = 0; i < 3; i++)
        for (size_t off = 0; off < lens[i];) {
            ssize_t w = write(pipe_fd, parts[i] + off, lens[i] - off);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                _exit(4);
            off += (size_t)w;
        }
    _exit(3);
}

/* Reads exactly len bytes: FIA_OK, or FIA_ERR_IO at a short read. */
static fia_status read_all(int fd, void *buf, size_t len)
{
    for (size_t off = 0; off < len;) {
        ssize_t r = read(fd, (char *)buf + off, len - off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return FIA_ERR_IO;
        off += (size_t)r;
    }
    return FIA_OK;
}

/* Runs target t on buf in a child process: the target's own path, no
 * store, its first finding sent back.  FIA_OK (r filled) or FIA_ERR_IO /
 * FIA_ERR_NOMEM said in err. */
static fia_status replay(fuzz_target_id t, const uint8_t *buf, size_t n,
                         long timeout, replay_result *r, fia_error *err)
{
    memset(r, 0, sizeof *r);
    int fds[2];
    if (pipe(fds) != 0)
        return fia_fail(err, FIA_ERR_IO, "pipe: %s", strerror(errno));
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return fia_fail(err, FIA_ERR_IO, "fork: %s", strerror(errno));
    }
    if (pid == 0) {
        close(fds[0]);
        pipe_fd = fds[1];
        /* judged here, stored by the parent: no store, no stats files */
        unsetenv("FIACHECK_DB");
        unsetenv("FIACHECK_STATS");
        unsetenv("FIACHECK_UNSTORED");
        unsetenv("FIACHECK_CAMPAIGN");
        fuzz_report_quiet(1);
        fuzz_report_set_sink(send_finding);
        alarm((unsigned)timeout);
        fuzz_run_one(t, buf, n);
        _exit(0);
    }
    close(fds[1]);
    size_t len = 0;
    int got = read_all(fds[0], &r->f, sizeof r->f) == FIA_OK &&
              read_all(fds[0], &len, sizeof len) == FIA_OK;
    r->f.text = NULL;
    if (got && len > 0) {
        r->f.text = malloc(len + 1);
        if (r->f.text == NULL || read_all(fds[0], r->f.text, len) != FIA_OK)
            got = 0;
        else
            r->f.text[len] = '\0';
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 3 && got) {
        r->finding = 1;
        return FIA_OK;
    }
    fuzz_finding_free(&r->f);
    if (WIFSIGNALED(status)) {
        r->signal = WTERMSIG(status);
        r->timed_out = r->signal == SIGALRM;
        return FIA_OK;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return FIA_OK;
    return fia_fail(err, FIA_ERR_IO, "the replay failed (exit %d)",
                    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* A crash or timeout of the replay as a finding of c (decoded here). */
static fia_status crash_finding(fuzz_target_id t, const uint8_t *buf,
                                size_t n, const char *path,
                                replay_result *r)
{
    fia_case c;
    char transform[64] = "", msg[160];
    if (t == FUZZ_PARAMS)
        (void)fuzz_decode_params(buf, n, &c);
    else if (t == FUZZ_NUMERIC)
        (void)fuzz_decode_numeric(buf, n, &c);
    else
        (void)fuzz_decode_metamorphic(buf, n, &c, transform, sizeof transform);
    snprintf(msg, sizeof msg, r->timed_out ? "replay timed out"
                                           : "replay died of signal %d",
             r->signal);
    const char *prof = getenv("FIACHECK_PROFILE");
    fuzz_finding_of_artifact(&r->f, &c, r->timed_out ? "timeout" : "crash", t,
                             prof && *prof ? prof : "doc+cann", transform,
                             path, msg);
    fia_status st = fuzz_finding_attach_text(&r->f, &c);
    fia_case_free(&c);
    r->finding = st == FIA_OK;
    return st;
}

/* The campaign UUID of an imported input: 128 bits of two FNV-1a hashes
 * of the target's name and the bytes, as a version-8 (custom) UUID. */
static void input_uuid(fuzz_target_id t, const uint8_t *buf, size_t n,
                       char out[40])
{
    uint64_t h[2] = {0xcbf29ce484222325u, 0x84222325cbf29ce4u};
    const char *name = fuzz_target_name(t);
    for (int k = 0; k < 2; k++) {
        for (const char *p = name; *p; p++)
            h[k] = (h[k] ^ (unsigned char)*p) * 0x100000001b3u;
        h[k] = (h[k] ^ 0xff) * 0x100000001b3u; /* name | bytes separator */
        for (size_t i = 0; i < n; i++)
            h[k] = (h[k] ^ buf[k ? n - 1 - i : i]) * 0x100000001b3u;
    }
    snprintf(out, 40, "%08llx-%04llx-8%03llx-%04llx-%012llx",
             (unsigned long long)(h[0] >> 32),
             (unsigned long long)((h[0] >> 16) & 0xffff),
             (unsigned long long)(h[0] & 0xfff),
             (unsigned long long)(0x8000 | ((h[1] >> 48) & 0x3fff)),
             (unsigned long long)(h[1] & 0xffffffffffffull));
}

/* The target named in path, read from its end; -1 when none is. */
static int target_of_path(const char *path)
{
    int best = -1;
    const char *best_at = NULL;
    for (int t = 0; t < FUZZ_TARGET_COUNT; t++) {
        const char *name = fuzz_target_name((fuzz_target_id)t);
        for (const char *p = strstr(path, name); p; p = strstr(p + 1, name))
            if (best_at == NULL || p > best_at)
                best = t, best_at = p;
    }
    return best;
}

/* Reads the file into *buf (the caller frees it); FIA_OK or the error
 * said in err (unreadable, empty, too large). */
static fia_status read_input(const char *path, uint8_t **buf, size_t *n,
                             fia_error *err)
{
    *buf = NULL;
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return fia_fail(err, FIA_ERR_IO, "cannot read: %s", strerror(errno));
    uint8_t *b = malloc(IMPORT_MAX_BYTES + 1);
    if (b == NULL) {
        fclose(f);
        return fia_fail(err, FIA_ERR_NOMEM, "out of memory");
    }
    size_t got = fread(b, 1, IMPORT_MAX_BYTES + 1, f);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(b);
        return fia_fail(err, FIA_ERR_IO, "cannot read: %s", strerror(errno));
    }
    if (got == 0 || got > IMPORT_MAX_BYTES) {
        free(b);
        return fia_fail(err, FIA_ERR_BAD_INPUT, got ? "over 1 MiB: not an "
                        "engine's input" : "empty: not an engine's input");
    }
    *buf = b, *n = got;
    return FIA_OK;
}

/* Stores finding f of the input as the campaign uuid, in one batch (a
 * campaign without its finding would hide the input from a later import). */
static int store_import(fia_store *s, const import_opts *o, const char *path,
                        const char *uuid, const fuzz_finding *f, int64_t *id,
                        int *outcome)
{
    char command[PATH_MAX + 64];
    snprintf(command, sizeof command, "fiacheck db import %s", path);
    const char *tol = getenv("FIACHECK_TOLERANCE");
    fia_campaign_info info = {o->revision, fuzz_target_name(f->target),
                              f->profile, tol && *tol ? tol : "bound",
                              f->seed, command, "", fia_sut_current()->name,
                              cli_build_revision()};
    snprintf(info.uuid, sizeof info.uuid, "%s", uuid);
    int64_t camp = 0;
    int rc = fia_store_batch_begin(s);
    if (rc == FIA_OK)
        rc = fia_store_campaign_begin(s, &info, &camp);
    fia_finding_record rec;
    fuzz_finding_record(f, camp, o->revision, &rec);
    if (rc == FIA_OK)
        rc = fia_store_add_finding_ex(s, &rec, id, outcome);
    if (rc == FIA_OK)
        rc = fia_store_campaign_update(s, camp, 1, 0, 0, 1);
    int end = fia_store_batch_end(s, rc == FIA_OK);
    return rc != FIA_OK ? rc : end;
}

/* Imports one file; counts what it gave. */
static void import_file(fia_store *s, const import_opts *o, const char *path,
                        import_counts *k)
{
    k->inputs++;
    uint8_t *buf;
    size_t n = 0;
    fia_error err = {0};
    if (read_input(path, &buf, &n, &err) != FIA_OK) {
        fprintf(stderr, "fiacheck db import: %s: %s\n", path, err.msg);
        k->errors++;
        return;
    }
    int t = o->target >= 0 ? o->target : target_of_path(path);
    if (t < 0) {
        fprintf(stderr, "fiacheck db import: %s: no target named in its path;"
                " give --target params|numeric|metamorphic\n", path);
        k->errors++;
        free(buf);
        return;
    }
    char uuid[40];
    input_uuid((fuzz_target_id)t, buf, n, uuid);
    fia_status rc = fia_store_campaign_by_uuid(s, uuid, NULL);
    if (rc == FIA_OK) {
        printf("%s: imported before (campaign %s)\n", path, uuid);
        k->again++;
        free(buf);
        return;
    }
    replay_result r;
    fia_status st = rc != FIA_ERR_NOT_FOUND
                        ? fia_fail(&err, rc, "%s", fia_store_errmsg(s))
                        : replay((fuzz_target_id)t, buf, n, o->timeout, &r, &err);
    if (st == FIA_OK && !r.finding && r.signal)
        st = crash_finding((fuzz_target_id)t, buf, n, path, &r);
    free(buf);
    if (st != FIA_OK) {
        fprintf(stderr, "fiacheck db import: %s: %s\n", path,
                err.msg[0] ? err.msg : "out of memory");
        k->errors++;
        return;
    }
    if (!r.finding) {
        printf("%s: %s, no finding\n", path, fuzz_target_name(t));
        k->nothing++;
        return;
    }
    int64_t id = 0;
    int outcome = 0;
    if (store_import(s, o, path, uuid, &r.f, &id, &outcome) != FIA_OK) {
        fprintf(stderr, "fiacheck db import: %s: %s\n", path,
                fia_store_errmsg(s));
        k->errors++;
    } else {
        printf("%s: %s finding %lld %s\n", path,
               outcome == FIA_STORE_SEEN_NEW ? "new"
               : outcome == FIA_STORE_SEEN_REGRESSED ? "regressed"
                                                      : "known",
               (long long)id, r.f.signature);
        k->fresh += outcome == FIA_STORE_SEEN_NEW;
        k->regressed += outcome == FIA_STORE_SEEN_REGRESSED;
        k->known += outcome == FIA_STORE_SEEN_AGAIN;
    }
    fuzz_finding_free(&r.f);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Imports a file, or every file under a directory in name order (dot
 * files and libFuzzer's .dict / .options skipped). */
static void import_path(fia_store *s, const import_opts *o, const char *path,
                        int depth, import_counts *k)
{
    struct stat sb;
    if (stat(path, &sb) != 0) {
        fprintf(stderr, "fiacheck db import: %s: %s\n", path, strerror(errno));
        k->inputs++, k->errors++;
        return;
    }
    if (!S_ISDIR(sb.st_mode)) {
        import_file(s, o, path, k);
        return;
    }
    DIR *d = depth < 16 ? opendir(path) : NULL;
    if (d == NULL) {
        fprintf(stderr, "fiacheck db import: %s: %s\n", path,
                depth < 16 ? strerror(errno) : "folders nested too deep");
        k->inputs++, k->errors++;
        return;
    }
    char **names = NULL;
    size_t nn = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *dot = strrchr(e->d_name, '.');
        if (e->d_name[0] == '.' ||
            (dot && (strcmp(dot, ".dict") == 0 || strcmp(dot, ".options") == 0)))
            continue;
        if (nn == cap) {
            char **nw = realloc(names, (cap = cap ? 2 * cap : 32) * sizeof *nw);
            if (nw == NULL)
                break;
            names = nw;
        }
        size_t len = strlen(path) + strlen(e->d_name) + 2;
        if ((names[nn] = malloc(len)) == NULL)
            break;
        snprintf(names[nn++], len, "%s/%s", path, e->d_name);
    }
    int short_of_memory = e != NULL;
    closedir(d);
    if (short_of_memory) {
        fprintf(stderr, "fiacheck db import: %s: out of memory listing it\n",
                path);
        k->errors++;
    }
    int before = k->inputs;
    if (nn > 0)
        qsort(names, nn, sizeof *names, cmp_str);
    for (size_t i = 0; i < nn; i++) {
        import_path(s, o, names[i], depth + 1, k);
        free(names[i]);
    }
    free(names);
    if (k->inputs == before && depth == 0) {
        fprintf(stderr, "fiacheck db import: %s: no input files in it\n", path);
        k->errors++;
    }
}

/* FIA_OK, or FIA_ERR_BAD_INPUT after saying why. */
static fia_status parse(int argc, char **argv, import_opts *o)
{
    memset(o, 0, sizeof *o);
    o->db = "results/findings.db";
    o->target = -1;
    o->timeout = 60;
    int seen[4] = {0};
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v;
        if (strcmp(a, "--db") == 0) {
            if (cli_once("db import", a, &seen[0]) ||
                cli_value("db import", argc, argv, &i, &o->db))
                return FIA_ERR_BAD_INPUT;
        } else if (strcmp(a, "--revision") == 0) {
            if (cli_once("db import", a, &seen[1]) ||
                cli_value("db import", argc, argv, &i, &o->revision))
                return FIA_ERR_BAD_INPUT;
        } else if (strcmp(a, "--target") == 0) {
            if (cli_once("db import", a, &seen[2]) ||
                cli_value("db import", argc, argv, &i, &v))
                return FIA_ERR_BAD_INPUT;
            if ((o->target = fuzz_target_from_name(v)) < 0) {
                fprintf(stderr, "fiacheck db import: --target takes params, "
                        "numeric or metamorphic, not '%s'\n", v);
                return FIA_ERR_BAD_INPUT;
            }
        } else if (strcmp(a, "--timeout") == 0) {
            if (cli_once("db import", a, &seen[3]) ||
                cli_value("db import", argc, argv, &i, &v) ||
                cli_long("db import", a, v, 1, 86400, &o->timeout))
                return FIA_ERR_BAD_INPUT;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "fiacheck db import: unknown option %s\n", a);
            return FIA_ERR_BAD_INPUT;
        } else if (o->npaths == (int)(sizeof o->paths / sizeof *o->paths)) {
            fprintf(stderr, "fiacheck db import: too many paths (give a "
                    "directory)\n");
            return FIA_ERR_BAD_INPUT;
        } else {
            o->paths[o->npaths++] = a;
        }
    }
    if (o->npaths == 0) {
        fprintf(stderr, "fiacheck db import: no input given\n");
        return FIA_ERR_BAD_INPUT;
    }
    if (o->revision == NULL)
        o->revision = cli_sut_revision();
    return FIA_OK;
}

int cmd_db_import(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (cli_is_help(argv[i])) {
            fputs(import_usage, stdout);
            return CLI_EXIT_OK;
        }
    /* The replays run the system FIACHECK_SUT names (fuzz_report_init in
     * the replay's child): loaded here too, so that the findings and
     * their campaigns carry its name, and its version as the default
     * revision, not fast/'s. */
    fia_error serr;
    if (fia_sut_use_env(&serr) != FIA_OK) {
        fprintf(stderr, "fiacheck db import: FIACHECK_SUT: %s\n", serr.msg);
        return CLI_EXIT_USAGE;
    }
    import_opts o;
    if (parse(argc, argv, &o) != FIA_OK) {
        fputs(import_usage, stderr);
        return CLI_EXIT_USAGE;
    }
    fia_store *s = NULL;
    char msg[600];
    if (fia_store_open(o.db, FIA_STORE_OPEN_CREATE, &s, msg, sizeof msg) !=
        FIA_OK) {
        fprintf(stderr, "fiacheck db import: %s\n", msg);
        return CLI_EXIT_USAGE;
    }
    import_counts k = {0};
    for (int i = 0; i < o.npaths; i++)
        import_path(s, &o, o.paths[i], 0, &k);
    fia_store_close(s);
    printf("%d input(s): %d new finding(s), %d known, %d regressed, %d "
           "imported before, %d without a finding, %d error(s)\n", k.inputs,
           k.fresh, k.known, k.regressed, k.again, k.nothing, k.errors);
    return k.errors ? CLI_EXIT_USAGE : CLI_EXIT_OK;
}
