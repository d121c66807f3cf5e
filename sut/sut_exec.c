/* A system under test that is another process (docs/sut/exec.md): the
 * table fia_sut_load returns for "exec:COMMAND".  The worker is started
 * with `sh -c COMMAND` in a process group of its own, so that a worker
 * that hangs or lies can be stopped whole (a shell, an interpreter and
 * what they started), and is started again on the next call after it has
 * been stopped.  One worker per process: the tool asks one call at a
 * time. */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "exec.h"
#include "fia/sut_host.h"

#define DEFAULT_TIMEOUT 60.0
#define DEFAULT_MAX_BYTES (1024.0 * 1024.0 * 1024.0)

typedef struct worker {
    char command[4096];
    pid_t pid;       /* 0: none runs */
    pid_t owner;     /* the process that started it: a forked child of
                        fiacheck never stops its parent's worker */
    exec_conn conn;
    double timeout;
    double max_bytes;
    /* the first hello's, which every later worker must repeat */
    char name[65], version[129];
    uint32_t validates;
    int said_hello;
} worker;

static worker w = {.timeout = DEFAULT_TIMEOUT};
/* who a message about the worker names: a plug-in's worker says so
 * (fia_sut_exec_name_worker) */
static char who[96] = "exec: the worker";
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local int compute_follows;
static _Thread_local char last_msg[1024];
static _Thread_local int refused;

int fia_sut_exec_refused(void)
{
    return refused;
}

/* Which phase one the harness announced: the whole call now. */
void fia_sut_announce_compute(int compute)
{
    compute_follows = compute != 0;
}

int fia_sut_exec_parse_timeout(const char *s, double *out)
{
    char *end;
    if (s == NULL || *s == '\0')
        return -1;
    errno = 0;
    double v = strtod(s, &end);
    if (*end != '\0' || errno != 0 || !isfinite(v) || v <= 0 || v > 86400)
        return -1;
    *out = v;
    return 0;
}

int fia_sut_exec_set_timeout(double seconds)
{
    if (!isfinite(seconds) || seconds <= 0 || seconds > 86400)
        return -1;
    w.timeout = seconds;
    return 0;
}

double fia_sut_exec_timeout(void)
{
    return w.timeout;
}

const char *fia_sut_exec_command(void)
{
    return w.command[0] ? w.command : NULL;
}

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGINT: return "SIGINT";
    case SIGPIPE: return "SIGPIPE";
    default: return "a signal";
    }
}

/* Waits for the worker to end for at most `wait` seconds, then kills its
 * process group and reaps it; how it ended into how[n]. */
static void stop(double wait, char *how, size_t n)
{
    int status = 0;
    pid_t r = 0;
    if (w.pid <= 0)
        return;
    close(w.conn.to_fd); /* a worker reading its next request sees EOF */
    double until = exec_now() + wait;
    while ((r = waitpid(w.pid, &status, WNOHANG)) == 0 && exec_now() < until) {
        struct timespec ms = {0, 2000000};
        nanosleep(&ms, NULL);
    }
    /* the group too: what the shell started outlives the shell */
    kill(-w.pid, SIGKILL);
    if (r == 0)
        while ((r = waitpid(w.pid, &status, 0)) < 0 && errno == EINTR)
            ;
    close(w.conn.from_fd);
    if (how != NULL) {
        if (r > 0 && WIFEXITED(status) && WEXITSTATUS(status) > 128 &&
            WEXITSTATUS(status) < 128 + 32)
            /* the supervisor's and the shell's report of a signal */
            snprintf(how, n, "exited with status %d (signal %d, %s)",
                     WEXITSTATUS(status),
                     WEXITSTATUS(status) - 128,
                     signal_name(WEXITSTATUS(status) - 128));
        else if (r > 0 && WIFEXITED(status))
            snprintf(how, n, "exited with status %d", WEXITSTATUS(status));
        else if (r > 0 && WIFSIGNALED(status))
            snprintf(how, n, "was killed by signal %d (%s)", WTERMSIG(status),
                     signal_name(WTERMSIG(status)));
        else
            snprintf(how, n, "ended");
    }
    w.pid = 0;
}

static void close_at_exit(void)
{
    if (w.pid > 0 && w.owner == getpid())
        fia_sut_exec_close();
}

void fia_sut_exec_close(void)
{
    pthread_mutex_lock(&lock);
    if (w.pid > 0 && w.owner == getpid()) {
        w.conn.deadline = exec_now() + 1.0;
        exec_write(&w.conn, "quit\n", 5);
        stop(w.timeout, NULL, 0);
    }
    pthread_mutex_unlock(&lock);
}

static void kill_group(int sig)
{
    (void)sig;
    kill(0, SIGKILL); /* the whole group, this process included */
}

/* The first process of the worker's group, between fiacheck and the
 * shell: it runs `sh -c COMMAND` and ends as the shell ends (a signal as
 * 128 + its number, as a shell reports one).  When fiacheck dies without
 * stopping the worker (killed outright, a fuzz target's own timeout) it
 * is told so (PR_SET_PDEATHSIG) and kills its group: the shell, the
 * command, and whatever they started, which a signal to the shell alone
 * would leave behind (sh -c does not always exec the command). */
static void supervise(pid_t parent)
{
    setpgid(0, 0);
    signal(SIGTERM, kill_group);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent)
        kill_group(0);
    pid_t sh = fork();
    if (sh == 0) {
        signal(SIGTERM, SIG_DFL);
        signal(SIGPIPE, SIG_DFL);
        execl("/bin/sh", "sh", "-c", w.command, (char *)NULL);
        _exit(127);
    }
    close(0), close(1); /* the worker's alone: EOF reaches fiacheck when it
                           ends */
    int status = 0;
    while (sh > 0 && waitpid(sh, &status, 0) < 0 && errno == EINTR)
        ;
    _exit(sh < 0 ? 127
          : WIFSIGNALED(status) ? 128 + WTERMSIG(status)
                                : WEXITSTATUS(status));
}

/* Starts the worker: its stdin and stdout are our pipes, its stderr ours. */
static fia_status spawn(fia_error *err)
{
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0)
        return fia_fail(err, FIA_ERR_IO, "exec: pipe: %s", strerror(errno));
    if (pipe2(out, O_CLOEXEC) != 0) {
        close(in[0]), close(in[1]);
        return fia_fail(err, FIA_ERR_IO, "exec: pipe: %s", strerror(errno));
    }
    fflush(NULL); /* nothing buffered written twice by the child */
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        close(in[0]), close(in[1]), close(out[0]), close(out[1]);
        return fia_fail(err, FIA_ERR_IO, "exec: fork: %s", strerror(errno));
    }
    if (pid == 0) {
        if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0)
            _exit(127);
        supervise(parent);
    }
    setpgid(pid, pid); /* as the child does: whichever runs first */
    close(in[0]), close(out[1]);
    /* large tensors cross in 1 MiB steps, not the default 64 KiB: each
     * step is a round of the scheduler between the two processes */
    fcntl(in[1], F_SETPIPE_SZ, 1 << 20);
    fcntl(out[0], F_SETPIPE_SZ, 1 << 20);
    fcntl(in[1], F_SETFL, fcntl(in[1], F_GETFL) | O_NONBLOCK);
    fcntl(out[0], F_SETFL, fcntl(out[0], F_GETFL) | O_NONBLOCK);
    w.pid = pid;
    w.owner = getpid();
    w.conn.to_fd = in[1];
    w.conn.from_fd = out[0];
    w.conn.beg = w.conn.end = 0;
    return FIA_OK;
}

static int name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 64)
        return 0;
    return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                     "0123456789_.-") == n;
}

/* Reads and checks the hello; the first one fills the table. */
static fia_status hello(fia_error *err)
{
    char line[512], how[96], name[65], validates[16];
    int used = 0, proto = 0;
    w.conn.deadline = exec_now() + w.timeout;
    exec_io r = exec_read_line(&w.conn, line, sizeof line);
    if (r != EXEC_IO_OK) {
        int timed = r == EXEC_IO_TIMEOUT;
        stop(0, how, sizeof how);
        if (r == EXEC_IO_LIE)
            return fia_fail(err, FIA_ERR_BAD_INPUT, "exec: the worker's hello "
                            "is too long: \"%.160s...\"", line);
        return fia_fail(err, timed ? FIA_ERR_SUT_TIMEOUT : FIA_ERR_SUT_CRASH,
                        "exec: the worker %s before its hello%s", timed
                        ? "said nothing" : how, timed ? " within the timeout"
                        : "");
    }
    if (sscanf(line, "fiacheck-worker %d %15s %64s %n", &proto, validates,
               name, &used) != 3 || used == 0 || proto != 1 ||
        (strcmp(validates, "statuses") != 0 &&
         strcmp(validates, "numbers") != 0) ||
        !name_ok(name) || line[used] == '\0' || strlen(line + used) > 128 ||
        strchr(name, ' ') != NULL) {
        stop(0, NULL, 0);
        return fia_fail(err, FIA_ERR_BAD_INPUT, "exec: not a fiacheck worker "
                        "hello (\"fiacheck-worker 1 statuses|numbers NAME "
                        "VERSION\", docs/sut/exec.md): \"%.200s\"", line);
    }
    uint32_t v = strcmp(validates, "statuses") == 0 ? FIA_SUT_CHECKS_STATUS
                                                    : 0;
    if (!w.said_hello) {
        snprintf(w.name, sizeof w.name, "%s", name);
        snprintf(w.version, sizeof w.version, "%s", line + used);
        w.validates = v;
        w.said_hello = 1;
    } else if (strcmp(w.name, name) != 0 || strcmp(w.version, line + used) ||
               w.validates != v) {
        stop(0, NULL, 0);
        return fia_fail(err, FIA_ERR_SUT_CRASH, "exec: the restarted worker "
                        "is another system: \"%.200s\" (it was %s %s)", line,
                        w.name, w.version);
    }
    return FIA_OK;
}

static fia_status ensure_worker(fia_error *err)
{
    if (w.pid > 0)
        return FIA_OK;
    fia_status st = spawn(err);
    return st == FIA_OK ? hello(err) : st;
}

/* One exchange: the request, the answer; a worker that fails it is
 * stopped and the call gets a crash or a timeout. */
static fia_status exchange(const fia_sut_args *a, int compute)
{
    fia_error err;
    char why[512];
    if (exec_call_unsayable(a, why, sizeof why)) {
        snprintf(last_msg, sizeof last_msg, "exec: not sent to the worker: "
                 "%s", why);
        refused = 1;
        return FIA_ERR_NOT_MODELED;
    }
    double bytes = compute ? exec_call_bytes(a) : 0;
    if (bytes > w.max_bytes) {
        snprintf(last_msg, sizeof last_msg, "exec: not sent to the worker: "
                 "the call's tensors are %.0f bytes, over the limit of %.0f "
                 "(FIACHECK_EXEC_MAX_BYTES)", bytes, w.max_bytes);
        refused = 1;
        return FIA_ERR_NOT_MODELED;
    }
    fia_status st = ensure_worker(&err);
    if (st != FIA_OK) {
        snprintf(last_msg, sizeof last_msg, "%s", err.msg);
        return st == FIA_ERR_BAD_INPUT ? FIA_ERR_SUT_CRASH : st;
    }
    w.conn.deadline = exec_now() + w.timeout;
    fia_status code = FIA_OK;
    exec_io r = exec_send_call(&w.conn, a, compute);
    if (r == EXEC_IO_OK)
        r = exec_read_answer(&w.conn, a, compute, &code, why, sizeof why);
    if (r == EXEC_IO_OK) {
        snprintf(last_msg, sizeof last_msg, "%s", code != FIA_OK ? why : "");
        return code;
    }
    char how[96];
    if (r == EXEC_IO_TIMEOUT) {
        kill(-w.pid, SIGKILL);
        stop(0, NULL, 0);
        snprintf(last_msg, sizeof last_msg, "%s did not answer `call %s` "
                 "within %g s; its process group was killed", who,
                 compute ? "compute" : "check", w.timeout);
        return FIA_ERR_SUT_TIMEOUT;
    }
    if (r == EXEC_IO_LIE) {
        kill(-w.pid, SIGKILL);
        stop(0, how, sizeof how);
        snprintf(last_msg, sizeof last_msg, "%s broke the protocol "
                 "(%.400s); it was stopped", who, why);
        return FIA_ERR_SUT_CRASH;
    }
    /* it closed a pipe: give it a moment to finish dying for its status */
    stop(1.0, how, sizeof how);
    snprintf(last_msg, sizeof last_msg, "%s %s during `call %s`", who, how,
             compute ? "compute" : "check");
    return FIA_ERR_SUT_CRASH;
}

/* The executor: the call's args (valid until run returns), and whether
 * phase one already had the whole call answered. */
typedef struct exec_call {
    const fia_sut_args *args;
    int done;
} exec_call;

static fia_status get_workspace_size(const fia_sut_args *a, uint64_t *ws,
                                     void **executor)
{
    int whole = compute_follows;
    compute_follows = 0;
    *ws = 0;
    *executor = NULL;
    last_msg[0] = '\0';
    refused = 0;
    exec_call *x = malloc(sizeof *x);
    if (x == NULL) {
        snprintf(last_msg, sizeof last_msg, "exec: out of memory");
        return FIA_ERR_NOMEM;
    }
    pthread_mutex_lock(&lock);
    fia_status st = exchange(a, whole);
    pthread_mutex_unlock(&lock);
    if (st != FIA_OK) {
        free(x);
        return st;
    }
    *x = (exec_call){a, whole};
    *executor = x;
    return FIA_OK;
}

static fia_status run(void *ws, uint64_t ws_size, void *executor)
{
    (void)ws, (void)ws_size;
    exec_call *x = executor;
    fia_status st = FIA_OK;
    last_msg[0] = '\0';
    refused = 0;
    if (!x->done) {
        pthread_mutex_lock(&lock);
        st = exchange(x->args, 1);
        pthread_mutex_unlock(&lock);
    }
    free(x);
    return st;
}

static void destroy(void *executor)
{
    free(executor);
}

static const char *last_error(void)
{
    return last_msg;
}

/* The run settings, for a worker started to take them (fiacheck-plugin-
 * worker --options: "get NAME" / "set NAME VALUE" between calls).  A
 * worker that fails the exchange is stopped; the setting is then unknown
 * (NULL) or not made (-1), and the next call starts a new worker. */
static int option_exchange(const char *req, char *line, size_t cap)
{
    fia_error err;
    if (ensure_worker(&err) != FIA_OK)
        return -1;
    w.conn.deadline = exec_now() + w.timeout;
    if (exec_write(&w.conn, req, strlen(req)) != EXEC_IO_OK ||
        exec_read_line(&w.conn, line, cap) != EXEC_IO_OK) {
        kill(-w.pid, SIGKILL);
        stop(0, NULL, 0);
        return -1;
    }
    return 0;
}

/* one word of a line, at most n - 1 bytes */
static int word_ok(const char *s, size_t n)
{
    return s != NULL && s[0] && strlen(s) < n && strcspn(s, " \n\r") == strlen(s);
}

static const char *get_option(const char *name)
{
    /* a value per name, valid until that name is asked again */
    static struct { char name[32], value[64]; } seen[8];
    char req[64], line[128];
    if (!word_ok(name, sizeof seen[0].name))
        return NULL;
    size_t k = 0;
    while (k < 8 && seen[k].name[0] && strcmp(seen[k].name, name) != 0)
        k++;
    if (k == 8)
        return NULL;
    snprintf(req, sizeof req, "get %s\n", name);
    pthread_mutex_lock(&lock);
    int r = option_exchange(req, line, sizeof line);
    pthread_mutex_unlock(&lock);
    if (r != 0 || strncmp(line, "value ", 6) != 0 ||
        !word_ok(line + 6, sizeof seen[k].value))
        return NULL;
    snprintf(seen[k].name, sizeof seen[k].name, "%s", name);
    snprintf(seen[k].value, sizeof seen[k].value, "%s", line + 6);
    return seen[k].value;
}

static int set_option(const char *name, const char *value)
{
    char req[160], line[128];
    if (!word_ok(name, 32) || !word_ok(value, 64))
        return -1;
    snprintf(req, sizeof req, "set %s %s\n", name, value);
    pthread_mutex_lock(&lock);
    int r = option_exchange(req, line, sizeof line);
    pthread_mutex_unlock(&lock);
    return r == 0 && strcmp(line, "ok") == 0 ? 0 : -1;
}

static fia_sut table = {
    .abi_version = FIA_SUT_ABI_VERSION,
    .get_workspace_size = get_workspace_size,
    .run = run,
    .destroy = destroy,
    .last_error = last_error,
};

void fia_sut_exec_set_abi(uint32_t abi_version)
{
    table.abi_version = abi_version;
}

void fia_sut_exec_name_worker(const char *name)
{
    snprintf(who, sizeof who, "%s", name);
}

void fia_sut_exec_take_options(void)
{
    table.set_option = set_option;
    table.get_option = get_option;
}

static fia_status read_env(fia_error *err)
{
    const char *t = getenv("FIACHECK_SUT_TIMEOUT");
    double v;
    if (t != NULL && *t != '\0') {
        if (fia_sut_exec_parse_timeout(t, &v) != 0)
            return fia_fail(err, FIA_ERR_BAD_INPUT, "FIACHECK_SUT_TIMEOUT=%s: "
                            "wants seconds > 0", t);
        w.timeout = v;
    }
    const char *m = getenv("FIACHECK_EXEC_MAX_BYTES");
    w.max_bytes = DEFAULT_MAX_BYTES;
    if (m != NULL && *m != '\0') {
        char *end;
        errno = 0;
        double b = strtod(m, &end);
        if (*end != '\0' || errno != 0 || !(b >= 0) || !isfinite(b))
            return fia_fail(err, FIA_ERR_BAD_INPUT, "FIACHECK_EXEC_MAX_BYTES="
                            "%s: wants a number of bytes", m);
        w.max_bytes = b;
    }
    return FIA_OK;
}

/* fia_sut_load's branch for "exec:COMMAND": starts the worker now, so
 * that a command that is not a worker is refused before any case. */
fia_status fia_sut_exec_load(const char *spec, const fia_sut **out,
                             fia_error *err)
{
    const char *cmd = spec + strlen(FIA_SUT_EXEC_PREFIX);
    *out = NULL;
    if (*cmd == '\0' || strlen(cmd) >= sizeof w.command)
        return fia_fail(err, FIA_ERR_BAD_INPUT, "--sut exec: wants a command "
                        "(exec:COMMAND, at most %zu characters)",
                        sizeof w.command - 1);
    if (w.command[0] != '\0' && strcmp(w.command, cmd) != 0)
        return fia_fail(err, FIA_ERR_BAD_INPUT, "exec: one worker per "
                        "process (already %s)", w.command);
    fia_status st = read_env(err);
    if (st != FIA_OK)
        return st;
    pthread_mutex_lock(&lock);
    snprintf(w.command, sizeof w.command, "%s", cmd);
    st = ensure_worker(err);
    pthread_mutex_unlock(&lock);
    if (st != FIA_OK) {
        w.command[0] = '\0';
        err->code = FIA_ERR_BAD_INPUT; /* a command that is no worker */
        return FIA_ERR_BAD_INPUT;
    }
    static int registered;
    if (!registered++)
        atexit(close_at_exit);
    table.name = w.name;
    table.version = w.version;
    table.validates = w.validates;
    *out = &table;
    return FIA_OK;
}
