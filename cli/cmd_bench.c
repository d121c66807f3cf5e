/* `fiacheck bench --ref | --fast | --kernels | --fuzz | --tolerance [ARGS...]`: runs the benchmark
 * binary fiacheck-bench-<name> that sits beside this executable, so the
 * benchmarks' optional baselines (OpenBLAS, oneDNN) are linked into them and
 * not into fiacheck itself. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"

static const char bench_usage[] =
    "usage: fiacheck bench --ref|--fast|--kernels|--fuzz|--tolerance "
    "[ARGS...]\n"
    "  --fast          fast/ against the FMA peak, OpenBLAS sgemm, oneDNN "
    "and\n"
    "                  the memory bandwidth\n"
    "  --kernels       each micro-kernel against the FMA peak, per ISA\n"
    "  --ref           the escalating reference against pure MPFR\n"
    "  --fuzz          executions per second of each fuzz target\n"
    "  --tolerance     the tolerance profiles side by side\n"
    "ARGS go to the benchmark binary fiacheck-bench-NAME beside fiacheck\n"
    "(`fiacheck bench --NAME --help` for its own).\n";

int cmd_bench(int argc, char **argv)
{
    if (argc >= 1 && cli_is_help(argv[0])) {
        fputs(bench_usage, stdout);
        return CLI_EXIT_OK;
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
    execv(path, argv);
    fprintf(stderr, "fiacheck bench: cannot run %s: %s\n", path,
            strerror(errno));
    return CLI_EXIT_USAGE;
}
