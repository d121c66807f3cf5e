/* `fiacheck bench --ref | --fast | --kernels | --fuzz | --tolerance [ARGS...]`: runs the benchmark
 * binary fiacheck-bench-<name> that sits beside this executable, so the
 * benchmarks' optional baselines (OpenBLAS, oneDNN) are linked into them and
 * not into fiacheck itself.
 *
 * --fuzz also runs a short real campaign per target (`fiacheck fuzz`, with
 * libFuzzer, sanitizers, the store) when the libFuzzer binaries sit beside
 * fiacheck, and prints its execs/s per core beside the in-process figure:
 * the first says what the target costs, the second what a campaign gets. */
#define _XOPEN_SOURCE 700 /* popen, mkdtemp */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli.h"
#include "cli_bench.h"
#include "fia/sut_host.h"
#include "fuzz_runner.h"

static const char bench_usage[] =
    "usage: fiacheck bench --ref|--fast|--kernels|--fuzz|--tolerance "
    "[ARGS...]\n"
    "  --fast          fast/ against the FMA peak, OpenBLAS sgemm, oneDNN "
    "and\n"
    "                  the memory bandwidth\n"
    "  --kernels       each micro-kernel against the FMA peak, per ISA\n"
    "  --ref           the escalating reference against pure MPFR\n"
    "  --fuzz [--campaign SECONDS]  executions per second of each fuzz\n"
    "                  target in-process, then in a real campaign of SECONDS\n"
    "                  (default 15, 0: none) per target when the libFuzzer\n"
    "                  binaries sit beside fiacheck\n"
    "  --tolerance     the tolerance profiles side by side\n"
    "  --fast|--kernels --db PATH [--revision R]  also store the figures\n"
    "                  (with their ratios to the baselines measured in the\n"
    "                  same run) as one run at the build's revision (or R)\n"
    "                  and this machine, for `db regressions` and `db bench`\n"
    "  --sut PATH [--db PATH [--revision R]]  a plug-in (include/fia/sut.h)\n"
    "                  against fast/, the FMA peak and the memory bandwidth\n"
    "                  on the same calls; stored as suite sut-NAME at the\n"
    "                  plug-in's version\n"
    "ARGS go to the benchmark binary fiacheck-bench-NAME beside fiacheck\n"
    "(`fiacheck bench --NAME --help` for its own).\n";

/* One short campaign of target t into a scratch store under dir: its
 * summary row parsed.  FIA_OK, or FIA_ERR_IO when it did not run (could
 * not be started, exited above 1, or printed no summary row). */
static fia_status campaign_figures(const char *self, const char *dir, int t,
                            long seconds, int jobs, double *rate,
                            double *per_core, char *sanitizers, size_t slen,
                            char *split, size_t splen)
{
    char cmd[3 * PATH_MAX];
    snprintf(cmd, sizeof cmd, "'%s/fiacheck' fuzz --target %s --time %ld "
             "--jobs %d --seed 1 --db '%s/bench.db' --workdir '%s' 2>/dev/null",
             self, fuzz_target_name(t) + 5, seconds, jobs, dir, dir);
    FILE *f = popen(cmd, "r");
    if (f == NULL)
        return FIA_ERR_IO;
    char line[512];
    int got = 0;
    sanitizers[0] = '\0';
    split[0] = '\0';
    while (fgets(line, sizeof line, f) != NULL) {
        const char *cpu = strstr(line, "CPU time: ");
        if (cpu != NULL) /* where the campaign's time went */
            snprintf(split, splen, "%.*s", (int)strcspn(cpu, "\n"), cpu);
        char name[64];
        long long execs, cov, findings, nw, distinct, arts;
        double r, pc;
        if (sscanf(line, "%63s %lld %lf %lld %lld %lld %lld %lld %lf", name,
                   &execs, &r, &cov, &findings, &nw, &distinct, &arts, &pc) == 9 &&
            strcmp(name, fuzz_target_name(t)) == 0)
            *rate = r, *per_core = pc, got = 1;
        const char *p = strstr(line, "sanitizers: ");
        if (p != NULL) {
            int n = (int)strcspn(p + 12, "(\n");
            while (n > 0 && p[12 + n - 1] == ' ')
                n--;
            snprintf(sanitizers, slen, "%.*s", n, p + 12);
        }
    }
    int st = pclose(f);
    return got && WIFEXITED(st) && WEXITSTATUS(st) <= 1 ? FIA_OK : FIA_ERR_IO;
}

/* The campaign part of --fuzz: one campaign per target, 2 jobs when the
 * no-sanitizer twins are built (one sanitized worker, one not), else 1. */
static void bench_campaigns(const char *self, long seconds)
{
    char bin[PATH_MAX + 64], dir[] = "/tmp/fiacheck-bench-XXXXXX";
    snprintf(bin, sizeof bin, "%s/fuzz_params", self);
    if (access(bin, X_OK) != 0) {
        printf("\nreal campaigns: skipped (no libFuzzer binaries beside "
               "fiacheck; build them with fuzz/build.sh)\n");
        return;
    }
    snprintf(bin, sizeof bin, "%s/fuzz_params_nosan", self);
    int jobs = access(bin, X_OK) == 0 ? 2 : 1;
    if (mkdtemp(dir) == NULL) {
        fprintf(stderr, "fiacheck bench: cannot make %s: %s\n", dir,
                strerror(errno));
        return;
    }
    printf("\nreal campaigns: fiacheck fuzz --target T --time %ld --jobs %d "
           "(libFuzzer, store; %s)\n", seconds, jobs,
           jobs == 2 ? "one ASan+UBSan worker, one without"
                     : "sanitizers as built");
    printf("%-17s %10s %12s  %s\n", "target", "execs/s", "execs/s/core",
           "sanitized runs");
    fflush(stdout);
    for (int t = 0; t < FUZZ_TARGET_COUNT; t++) {
        double rate = 0, per_core = 0;
        char san[128], split[512] = "";
        if (campaign_figures(self, dir, t, seconds, jobs, &rate, &per_core, san,
                             sizeof san, split, sizeof split) != FIA_OK)
            printf("%-17s %10s %12s\n", fuzz_target_name(t), "failed", "-");
        else
            printf("%-17s %10.0f %12.0f  %s\n", fuzz_target_name(t), rate,
                   per_core, san[0] ? san : "all");
        if (split[0])
            printf("  %s\n", split);
        fflush(stdout);
    }
    fuzz_remove_tree(dir);
}

int cmd_bench(int argc, char **argv)
{
    if (argc >= 1 && cli_is_help(argv[0])) {
        fputs(bench_usage, stdout);
        return CLI_EXIT_OK;
    }
    /* a plug-in (--sut PATH) is benchmarked by fiacheck-bench-sut: its
     * arguments shift by one (argv[0] becomes the binary's path) */
    char **plug_argv = NULL;
    if (!fia_sut_current_is_builtin()) {
        static const char *const builtin_only[] = {"--fast", "--kernels",
                                                   "--ref", "--fuzz",
                                                   "--tolerance"};
        for (size_t i = 0; argc >= 1 && i < 5; i++)
            if (strcmp(argv[0], builtin_only[i]) == 0) {
                fprintf(stderr, "fiacheck bench: %s measures fast/ itself; "
                        "a plug-in is measured by `bench --sut PATH` "
                        "alone\n", argv[0]);
                return CLI_EXIT_USAGE;
            }
        static char *shifted[128];
        if (argc + 2 > (int)(sizeof shifted / sizeof *shifted)) {
            fputs("fiacheck bench: too many arguments\n", stderr);
            return CLI_EXIT_USAGE;
        }
        plug_argv = shifted;
        plug_argv[0] = (char *)"--sut";
        for (int i = 0; i < argc; i++)
            plug_argv[i + 1] = argv[i];
        argv = plug_argv;
        argc++;
    }
    if (argc < 1 || strncmp(argv[0], "--", 2) != 0 || argv[0][2] == '\0') {
        fputs(bench_usage, stderr);
        return CLI_EXIT_USAGE;
    }
    const char *name = argv[0] + 2;
    for (const char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || *p == '_')) {
            fprintf(stderr, "fiacheck bench: bad benchmark name '%s'\n", name);
            return CLI_EXIT_USAGE;
        }
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        fprintf(stderr, "fiacheck bench: cannot find my own path: %s\n",
                strerror(errno));
        return CLI_EXIT_USAGE;
    }
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (slash != NULL)
        *slash = '\0';
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/fiacheck-bench-%s", self, name);
    if (access(path, X_OK) != 0) {
        fprintf(stderr, "fiacheck bench: no benchmark '%s' (%s not built)\n",
                name, path);
        return CLI_EXIT_USAGE;
    }
    argv[0] = path;
    if (strcmp(name, "fast") == 0 || strcmp(name, "kernels") == 0 ||
        strcmp(name, "sut") == 0) {
        /* --db PATH and --revision R are ours, the rest the benchmark's */
        const char *db = NULL, *revision = NULL;
        int k = 1, seen_db = 0, seen_rev = 0;
        for (int i = 1; i < argc; i++) {
            if (strcmp(argv[i], "--db") == 0 ||
                strcmp(argv[i], "--revision") == 0) {
                const int is_db = argv[i][2] == 'd';
                if (cli_once("bench", argv[i], is_db ? &seen_db : &seen_rev) !=
                        0 ||
                    cli_value("bench", argc, argv, &i,
                              is_db ? &db : &revision) != 0)
                    return CLI_EXIT_USAGE;
                continue;
            }
            argv[k++] = argv[i];
        }
        argv[k] = NULL;
        if (revision != NULL && db == NULL) {
            fprintf(stderr, "fiacheck bench: --revision goes with --db\n");
            return CLI_EXIT_USAGE;
        }
        char suite[96];
        snprintf(suite, sizeof suite, "%s%s", plug_argv ? "sut-" : name,
                 plug_argv ? fia_sut_current()->name : "");
        if (db != NULL)
            return cli_bench_recorded(path, argv, suite, db,
                                      revision ? revision
                                               : cli_sut_revision());
    }
    if (strcmp(name, "fuzz") != 0) {
        execv(path, argv);
        fprintf(stderr, "fiacheck bench: cannot run %s: %s\n", path,
                strerror(errno));
        return CLI_EXIT_USAGE;
    }
    /* --fuzz: --campaign SECONDS is ours, the rest the benchmark's */
    long campaign = 15;
    int k = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--campaign") == 0) {
            if (i + 1 >= argc || cli_long("bench", "--campaign", argv[i + 1], 0,
                                          3600, &campaign) != 0)
                return CLI_EXIT_USAGE;
            i++;
            continue;
        }
        argv[k++] = argv[i];
    }
    argv[k] = NULL;
    printf("in-process: fiacheck-bench-fuzz (fuzz_run_one on random inputs, "
           "no libFuzzer, no store)\n");
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        execv(path, argv);
        fprintf(stderr, "fiacheck bench: cannot run %s: %s\n", path,
                strerror(errno));
        _exit(127);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
        WEXITSTATUS(st) != 0)
        return CLI_EXIT_USAGE;
    if (campaign > 0)
        bench_campaigns(self, campaign);
    return CLI_EXIT_OK;
}
