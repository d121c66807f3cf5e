/* Revisions: the one fiacheck was built from (embedded at build time by
 * scripts/build_revision.cmake; the source tree's HEAD when it runs may be
 * another), and the revision a user names on the command line resolved
 * against the ones the store knows: a full name, a unique prefix of at
 * least 4 characters (listings show 12), or a git name (HEAD, a branch, a
 * tag) when git can resolve it in the working directory. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli.h"
#include "fia_build_revision.h"
#ifdef FIA_HAVE_STORE
#include "fia/store.h"
#endif

const char *cli_build_revision(void)
{
    return FIA_BUILD_REVISION;
}

const char *cli_revision_short(const char *rev, char *buf, size_t n)
{
    size_t len = rev ? strlen(rev) : 0, hex = rev ? strspn(rev, "0123456789abcdef") : 0;
    if (len == 40 && hex == 40) /* a git commit: its first 12 digits */
        snprintf(buf, n, "%.12s", rev);
    else /* another name (a plug-in's version): whole */
        snprintf(buf, n, "%s", rev ? rev : "");
    return buf;
}

int cli_build_dirty(void)
{
    return FIA_BUILD_DIRTY;
}

#ifdef FIA_HAVE_STORE
/* The shortest prefix a user may give: shorter ones match too much. */
#define MIN_PREFIX 4

/* The revisions of the store, newest first. */
typedef struct rev_list {
    char **v;
    size_t n, cap;
    int nomem;
} rev_list;

static int collect(const char *rev, int64_t last_seen, void *ctx)
{
    (void)last_seen;
    rev_list *l = ctx;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        char **v = realloc(l->v, cap * sizeof *v);
        if (v == NULL)
            return l->nomem = 1;
        l->v = v, l->cap = cap;
    }
    if ((l->v[l->n] = strdup(rev)) == NULL)
        return l->nomem = 1;
    l->n++;
    return 0;
}

static void rev_list_free(rev_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
}

/* The commit git resolves name to in the working directory (into out, 41
 * bytes): FIA_OK, FIA_ERR_NOT_FOUND when there is no git, no repository or
 * no such name, FIA_ERR_BAD_INPUT for a name git must not be given,
 * FIA_ERR_IO when git cannot be started (nothing said: the caller says
 * the name is unknown either way).  No shell: name goes to git as one
 * argument. */
static fia_status git_commit_of(const char *name, char out[41])
{
    if (name[0] == '-')
        return FIA_ERR_BAD_INPUT; /* an option to git, not a name */
    char spec[300];
    if (snprintf(spec, sizeof spec, "%s^{commit}", name) >= (int)sizeof spec)
        return FIA_ERR_BAD_INPUT;
    int fds[2];
    if (pipe(fds) != 0)
        return FIA_ERR_IO;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return FIA_ERR_IO;
    }
    if (pid == 0) {
        /* descriptors only: stdout and stderr are fiacheck's filtered
         * streams (text_out.c), not files to reopen */
        int null = open("/dev/null", O_WRONLY);
        dup2(fds[1], 1);
        if (null >= 0)
            dup2(null, 2);
        if (null > 2)
            close(null);
        close(fds[0]);
        close(fds[1]);
        execlp("git", "git", "rev-parse", "--verify", "--quiet", spec,
               (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    char buf[64];
    size_t n = 0;
    ssize_t r;
    while (n < sizeof buf - 1 && (r = read(fds[0], buf + n, sizeof buf - 1 - n)) > 0)
        n += (size_t)r;
    close(fds[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) /* ECHILD, say: no status to wait for */
            return FIA_ERR_IO;
    buf[n] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || strlen(buf) != 40)
        return FIA_ERR_NOT_FOUND;
    memcpy(out, buf, 41);
    return FIA_OK;
}

/* "a, b, c and N more" of the revisions (12 characters each, as every
 * listing shows them) into msg after k characters. */
static void list_known(const rev_list *l, char *msg, size_t len, size_t k)
{
    if (l->n == 0) {
        snprintf(msg + k, len - k, "(none)");
        return;
    }
    size_t i = 0;
    for (; i < l->n && k + 40 < len; i++) {
        int w = snprintf(msg + k, len - k, "%s%.12s", i ? ", " : "", l->v[i]);
        if (w < 0)
            return;
        k += (size_t)w;
    }
    if (i < l->n)
        snprintf(msg + k, len - k, " and %zu more (fiacheck db stats)",
                 l->n - i);
}

fia_status cli_resolve_revision(struct fia_store *s, const char *name,
                                char **full, fia_error *err)
{
    *full = NULL;
    rev_list l = {0};
    fia_status st = fia_store_list_revisions(s, collect, &l);
    if (st != FIA_OK) { /* the store's code, as it returned it */
        rev_list_free(&l);
        return fia_fail(err, st, "%s", fia_store_errmsg(s));
    }
    if (l.nomem) {
        rev_list_free(&l);
        return fia_fail(err, FIA_ERR_NOMEM, "out of memory");
    }
    const char *hit = NULL;
    size_t nhit = 0, len = strlen(name);
    for (size_t i = 0; i < l.n && hit == NULL; i++)
        if (strcmp(l.v[i], name) == 0)
            hit = l.v[i], nhit = 1;
    for (size_t i = 0; i < l.n && hit == NULL && len >= MIN_PREFIX; i++)
        if (strncmp(l.v[i], name, len) == 0)
            nhit++;
    if (nhit > 1) {
        char msg[sizeof err->msg];
        size_t at = (size_t)snprintf(msg, sizeof msg, "revision '%.60s' is "
                                     "ambiguous, it begins:", name);
        size_t shown = 0;
        for (size_t i = 0; i < l.n && at + 64 < sizeof msg; i++)
            if (strncmp(l.v[i], name, len) == 0)
                at += (size_t)snprintf(msg + at, sizeof msg - at, " %s",
                                       l.v[i]), shown++;
        if (shown < nhit)
            snprintf(msg + at, sizeof msg - at, " and %zu more", nhit - shown);
        rev_list_free(&l);
        return fia_fail(err, FIA_ERR_BAD_INPUT, "%s", msg);
    }
    for (size_t i = 0; i < l.n && hit == NULL && nhit == 1; i++)
        if (strncmp(l.v[i], name, len) == 0)
            hit = l.v[i];
    char commit[41] = "";
    if (hit == NULL && git_commit_of(name, commit) == FIA_OK)
        for (size_t i = 0; i < l.n && hit == NULL; i++)
            if (strcmp(l.v[i], commit) == 0)
                hit = l.v[i];
    fia_status rc = FIA_OK;
    if (hit != NULL) {
        if ((*full = strdup(hit)) == NULL)
            rc = fia_fail(err, FIA_ERR_NOMEM, "out of memory");
    } else {
        char msg[sizeof err->msg];
        size_t at = (size_t)snprintf(msg, sizeof msg, "no campaign, finding "
                                     "or benchmark run recorded at revision "
                                     "'%.60s'%s%s%s; the store knows ", name,
                                     commit[0] ? " (git: " : "", commit,
                                     commit[0] ? ")" : "");
        list_known(&l, msg, sizeof msg, at);
        rc = fia_fail(err, FIA_ERR_BAD_INPUT, "%s", msg);
    }
    rev_list_free(&l);
    return rc;
}
#endif
