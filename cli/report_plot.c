/* `fiacheck report`: plots drawn by gnuplot (Debian: gnuplot-nox), run as a
 * child process on data files in a private temporary directory, its SVG
 * read back and inlined.  gnuplot is a program of its own, not a library:
 * a missing one costs the page its plots, never the page.
 *
 * The program is FIACHECK_GNUPLOT when set (a test names a missing one),
 * else `gnuplot` on PATH.  The terminal is SVG at a fixed size, without the
 * mouse option, so the SVG has no script. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "report.h"

fia_status rp_init(rp_plotter *p)
{
    memset(p, 0, sizeof *p);
    const char *t = getenv("TMPDIR");
    if (t == NULL || *t == '\0')
        t = "/tmp";
    snprintf(p->dir, sizeof p->dir, "%s/fiacheck-report-XXXXXX", t);
    if (mkdtemp(p->dir) == NULL) {
        snprintf(p->why, sizeof p->why, "cannot make a temporary directory "
                 "in %s: %s", t, strerror(errno));
        p->dir[0] = '\0';
        p->failed = 1;
        return FIA_ERR_IO;
    }
    return FIA_OK;
}

static void path_of(const rp_plotter *p, const char *name, char *buf,
                    size_t n)
{
    snprintf(buf, n, "%s/%s", p->dir, name);
}

/* Remembers name for removal after the plot: FIA_OK, or FIA_ERR_BAD_INPUT
 * when the plot has too many files or name is too long. */
static fia_status track(rp_plotter *p, const char *name)
{
    for (int i = 0; i < p->nfiles; i++)
        if (strcmp(p->files[i], name) == 0)
            return FIA_OK;
    if (p->nfiles == (int)(sizeof p->files / sizeof p->files[0]) ||
        strlen(name) >= sizeof p->files[0])
        return FIA_ERR_BAD_INPUT;
    strcpy(p->files[p->nfiles++], name);
    return FIA_OK;
}

FILE *rp_data(rp_plotter *p, const char *name)
{
    char path[600];
    if (p->failed)
        return NULL;
    if (track(p, name) != FIA_OK) {
        snprintf(p->why, sizeof p->why, "too many data files for one plot");
        return NULL;
    }
    path_of(p, name, path, sizeof path);
    FILE *f = fopen(path, "w");
    if (f == NULL)
        snprintf(p->why, sizeof p->why, "%.400s: %s", path, strerror(errno));
    return f;
}

static void remove_files(rp_plotter *p)
{
    char path[600];
    for (int i = 0; i < p->nfiles; i++) {
        path_of(p, p->files[i], path, sizeof path);
        unlink(path);
    }
    p->nfiles = 0;
}

void rp_done(rp_plotter *p)
{
    remove_files(p);
    if (p->dir[0])
        rmdir(p->dir);
}

/* dir "/" name into buf (n bytes) with nothing a signal handler may not
 * call; FIA_OK, or FIA_ERR_BAD_INPUT when it does not fit. */
static fia_status join_safe(char *buf, size_t n, const char *dir, const char *name)
{
    size_t k = 0;
    for (const char *s = dir; *s; s++)
        if (k + 1 < n)
            buf[k++] = *s;
    if (k + 1 < n)
        buf[k++] = '/';
    for (const char *s = name; *s; s++)
        if (k + 1 < n)
            buf[k++] = *s;
        else
            return FIA_ERR_BAD_INPUT;
    buf[k] = '\0';
    return FIA_OK;
}

void rp_abandon(rp_plotter *p)
{
    char path[600];
    int child = p->child;
    if (child > 0) {
        kill(child, SIGKILL);
        while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    for (int i = 0; i < p->nfiles; i++)
        if (join_safe(path, sizeof path, p->dir, p->files[i]) == FIA_OK)
            unlink(path);
    if (p->dir[0])
        rmdir(p->dir);
}

void rp_quote(char *buf, size_t n, const char *s)
{
    size_t k = 0;
    if (n < 3) {
        if (n)
            buf[0] = '\0';
        return;
    }
    buf[k++] = '\'';
    for (; s && *s && k + 2 < n; s++) {
        const unsigned char c = (unsigned char)*s;
        /* '' is a quote inside a single-quoted gnuplot string */
        if (c == '\'' && k + 3 < n) {
            buf[k++] = '\'';
            buf[k++] = '\'';
        } else {
            buf[k++] = c >= 0x20 && c < 0x7F && c != '\'' ? (char)c : '?';
        }
    }
    buf[k++] = '\'';
    buf[k] = '\0';
}

/* Runs the program on plot.gp in the directory: its exit status, 127 when
 * it could not be started, -1 when it could not be forked or waited for
 * (a child's exit status, not an fia_status: rp_render says which it
 * was); gnuplot's messages in gnuplot.err. */
static int run_gnuplot(rp_plotter *p)
{
    const char *prog = getenv("FIACHECK_GNUPLOT");
    if (prog == NULL || *prog == '\0')
        prog = "gnuplot";
    fflush(NULL);
    /* no signal between the fork and p->child: an interrupted report
     * (cmd_report.c) kills the gnuplot it knows of */
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old);
    pid_t pid = fork();
    if (pid < 0) {
        sigprocmask(SIG_SETMASK, &old, NULL);
        return -1;
    }
    if (pid == 0) {
        sigprocmask(SIG_SETMASK, &old, NULL);
        int in = open("/dev/null", O_RDONLY);
        if (chdir(p->dir) != 0 || in < 0)
            _exit(126);
        int err = open("gnuplot.err", O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (err < 0)
            _exit(126);
        dup2(in, 0);
        dup2(err, 1);
        dup2(err, 2);
        execlp(prog, prog, "plot.gp", (char *)NULL);
        _exit(127);
    }
    p->child = pid;
    sigprocmask(SIG_SETMASK, &old, NULL);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) {
            p->child = 0;
            return -1;
        }
    p->child = 0;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The whole of a file (malloc'ed, NUL-terminated) or NULL. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n - 1, f);
        if (n < cap - 1)
            break;
        char *b = realloc(buf, cap * 2);
        if (b == NULL) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = b;
        cap *= 2;
    }
    if (buf)
        buf[n] = '\0';
    fclose(f);
    return buf;
}

/* The first line of gnuplot's messages that says something, for why. */
static void first_message(const rp_plotter *p, char *buf, size_t n)
{
    char path[600];
    path_of(p, "gnuplot.err", path, sizeof path);
    char *text = slurp(path);
    buf[0] = '\0';
    if (text == NULL)
        return;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        while (*line == ' ' || *line == '^')
            line++;
        if (*line && strstr(line, "warning") == NULL) {
            snprintf(buf, n, "%s", line);
            break;
        }
    }
    free(text);
}

/* Is c part of an XML name? */
static int name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
}

/* The ids the SVG defines (id='x' or id="x"), as offsets into svg. */
typedef struct svg_ids {
    const char *name[64];
    size_t len[64];
    int n;
} svg_ids;

static void find_ids(const char *svg, svg_ids *ids)
{
    ids->n = 0;
    for (const char *q = strstr(svg, " id="); q && ids->n < 64;
         q = strstr(q + 4, " id=")) {
        const char *v = q + 4;
        if (*v != '\'' && *v != '"')
            continue;
        size_t k = 0;
        while (name_char(v[1 + k]))
            k++;
        if (k > 0 && v[1 + k] == *v) {
            ids->name[ids->n] = v + 1;
            ids->len[ids->n++] = k;
        }
    }
}

/* The id at s (as a whole name) when it is one of ids: its length. */
static size_t id_at(const char *s, const svg_ids *ids)
{
    for (int i = 0; i < ids->n; i++)
        if (strncmp(s, ids->name[i], ids->len[i]) == 0 &&
            !name_char(s[ids->len[i]]))
            return ids->len[i];
    return 0;
}

/* svg from "<svg" on, its ids and the references to them ("#id")
 * prefixed by "pN-": gnuplot names its markers alike in every plot, and
 * ids must be unique in a page.  Its <title> becomes ours. */
static char *inline_svg(const char *svg, int n, const char *title)
{
    const char *start = strstr(svg, "<svg");
    if (start == NULL || strstr(start, "</svg>") == NULL ||
        strstr(start, "<script") != NULL)
        return NULL;
    svg_ids ids;
    find_ids(start, &ids);
    char *out = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&out, &len);
    if (m == NULL)
        return NULL;
    for (const char *s = start; *s;) {
        size_t k;
        if (strncmp(s, "<title>Gnuplot</title>", 22) == 0) {
            fputs("<title>", m);
            rh_text(m, title, SIZE_MAX);
            fputs("</title>", m);
            s += 22;
        } else if ((strncmp(s, " id=", 4) == 0 && (s[4] == '\'' ||
                    s[4] == '"') && (k = id_at(s + 5, &ids)) > 0)) {
            fprintf(m, " id=%cp%d-", s[4], n);
            s += 5;
        } else if (*s == '#' && (k = id_at(s + 1, &ids)) > 0 &&
                   (s[-1] == '\'' || s[-1] == '"' || s[-1] == '(')) {
            fprintf(m, "#p%d-", n);
            s++;
        } else {
            fputc(*s++, m);
        }
    }
    fclose(m);
    return out;
}

char *rp_render(rp_plotter *p, const char *script, int width, int height,
                const char *title)
{
    if (p->failed) {
        p->skipped++;
        return NULL;
    }
    char path[600];
    FILE *f = rp_data(p, "plot.gp");
    if (f == NULL || track(p, "out.svg") != 0 ||
        track(p, "gnuplot.err") != 0) {
        if (f)
            fclose(f);
        remove_files(p);
        p->skipped++;
        return NULL;
    }
    fprintf(f, "set terminal svg enhanced size %d,%d fixed "
               "font 'Helvetica,11' background rgb 'white'\n"
               "set encoding utf8\nset output 'out.svg'\n%s\nunset output\n",
            width, height, script);
    int bad = ferror(f);
    bad |= fclose(f) != 0;
    int rc = bad ? -1 : run_gnuplot(p);
    char *svg = NULL;
    if (rc == 127 || rc == 126) {
        const char *prog = getenv("FIACHECK_GNUPLOT");
        snprintf(p->why, sizeof p->why, "%s could not be run (install the "
                 "Debian package gnuplot-nox)",
                 prog && *prog ? prog : "gnuplot");
        p->failed = 1;
    } else if (rc != 0) {
        char msg[300];
        first_message(p, msg, sizeof msg);
        snprintf(p->why, sizeof p->why, "gnuplot failed (exit %d)%s%s", rc,
                 msg[0] ? ": " : "", msg);
    } else {
        path_of(p, "out.svg", path, sizeof path);
        char *raw = slurp(path);
        svg = raw ? inline_svg(raw, p->plots, title) : NULL;
        free(raw);
        if (svg == NULL)
            snprintf(p->why, sizeof p->why, "gnuplot wrote no usable SVG");
        else
            p->plots++;
    }
    remove_files(p);
    p->skipped += svg == NULL;
    return svg;
}
