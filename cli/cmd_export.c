/* `fiacheck export CASE... --dir D [--api NAME]`
 *
 * Writes each case as the files a user of the real operator loads on the
 * device's host, the call its interface makes (call.json), and the scripts
 * that make those calls and save what comes back (docs/export.md).  Every
 * case is read and checked before anything is written; a case that cannot
 * be exported is refused with its reason and the others are written (the
 * exit status says some were refused); each case directory is built under
 * a temporary name and renamed into place when whole, so a directory named
 * like a case is always complete. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "export.h"
#include "export_files.h"

/* Bytes of input data one case may write: a case of many GiB (`data =
 * live_rows` maps them) would be gigabytes of files of zeros. */
#define EXPORT_MAX_BYTES ((int64_t)1 << 30)

static const char export_usage[] =
    "usage: fiacheck export CASE... --dir D [--api NAME]\n"
    "  --dir D      the directory to write (created when missing): the "
    "device scripts,\n"
    "               cases.tsv, and one directory per case (case.fia, "
    "call.json, the\n"
    "               input tensors as .npy); docs/export.md\n"
    "  --api NAME   write every case through that interface (torch_npu_v2, "
    "mindspore,\n"
    "               incre_flash_attention, torchair_v2, aclnn_v2); default: "
    "each\n"
    "               case's own `api =` line\n"
    "then on the device's host: python3 D/run_torch_npu_v2.py D (and the "
    "other run_*.py)\n";

typedef struct export_item {
    const char *path;
    fia_case c;
    char dir[200];               /* the case directory's name in D */
    char digest[FIA_CASE_DIGEST_LEN];
    int refused;                 /* prepare said why it is left out */
} export_item;

static int usage(void)
{
    fputs(export_usage, stderr);
    return CLI_EXIT_USAGE;
}

/* The file name without its directory and .case / .fia, in characters a
 * shell and every file system take. */
static void dir_name(const char *path, char *out, size_t n)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t len = strlen(base);
    if (len > 5 && strcmp(base + len - 5, ".case") == 0)
        len -= 5;
    else if (len > 4 && strcmp(base + len - 4, ".fia") == 0)
        len -= 4;
    if (len > n - 8)
        len = n - 8;   /* room for a _N suffix */
    size_t k = 0;
    for (size_t i = 0; i < len; i++) {
        char ch = base[i];
        int keep = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                   (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' ||
                   (ch == '.' && k > 0);
        out[k++] = keep ? ch : '_';
    }
    if (k == 0)
        out[k++] = 'c';
    out[k] = '\0';
}

/* 1 when name is one of the directory's own files (cases.tsv, a script,
 * a folder of them). */
static int taken_by_scripts(const char *name)
{
    size_t n = strlen(name);
    if (strcmp(name, "cases.tsv") == 0)
        return 1;
    for (const export_file *e = export_files; e->path; e++)
        if (strncmp(e->path, name, n) == 0 &&
            (e->path[n] == '\0' || e->path[n] == '/'))
            return 1;
    return 0;
}

/* Unique among the cases of this export: name, name_2, name_3, ... */
static void unique_name(export_item *items, int i)
{
    char base[200];
    snprintf(base, sizeof base, "%s", items[i].dir);
    for (int n = 2;; n++) {
        int clash = taken_by_scripts(items[i].dir);
        for (int j = 0; j < i && !clash; j++)
            clash = strcmp(items[j].dir, items[i].dir) == 0;
        if (!clash)
            return;
        snprintf(items[i].dir, sizeof items[i].dir, "%.180s_%d", base, n);
    }
}

/* The input bytes the case passes (descriptors only, no data). */
static fia_status input_bytes(const fia_case *c, int64_t *bytes,
                              fia_error *err)
{
    fia_case_data d;
    fia_status st = fia_case_materialize(c, 0, &d, err);
    if (st != FIA_OK)
        return st;
    *bytes = 0;
    for (int s = 0; s < FIA_SLOT_COUNT; s++)
        for (int i = 0; d.t[s] && i < d.n[s]; i++)
            if (!fia_slot_is_output((fia_slot)s))
                *bytes += (int64_t)fia_dtype_storage(
                    d.t[s][i].dtype, fia_tensor_numel(&d.t[s][i]));
    fia_case_data_free(&d);
    return FIA_OK;
}

/* The first of 003/004's additions an aclnn_v2 case passes (not nullptr,
 * not its default), NULL when none: 002 documents no aclnn entry point that
 * takes them (later CANN releases have ones our documents do not cover),
 * so such a call cannot be written as 002's. */
static const char *beyond_002(const fia_case *c)
{
    static const fia_slot later[] = {FIA_SLOT_QUERY_ROPE, FIA_SLOT_KEY_ROPE,
                                     FIA_SLOT_DEQUANT_SCALE_QUERY,
                                     FIA_SLOT_LEARNABLE_SINK};
    for (size_t i = 0; i < sizeof later / sizeof later[0]; i++)
        if (c->tensors[later[i]].presence == FIA_PRESENT)
            return fia_slot_name(later[i]);
    if (c->attrs.query_quant_mode != 0)
        return "query_quant_mode";
    if (c->attrs.out_dtype != -1)
        return "out_dtype";
    return NULL;
}

/* An aclnn_v2 case beyond 002 is refused, naming the parameter and an
 * interface that documents it (FIA_ERR_BAD_INPUT).  FIA_OK when the case
 * can be written. */
static fia_status refuse_beyond_002(const export_item *it)
{
    const char *p = it->c.api == FIA_API_ACLNN_V2 ? beyond_002(&it->c) : NULL;
    if (p == NULL)
        return FIA_OK;
    const char *via = NULL;
    for (int a = 0; a < FIA_API_COUNT && via == NULL; a++)
        if (a != FIA_API_ACLNN_V2 && fia_case_expressible(&it->c, (fia_api)a,
                                                          NULL, 0))
            via = fia_api_name((fia_api)a);
    fprintf(stderr, "fiacheck export: %s: %s is not a parameter of 002's "
            "aclnnFusedInferAttentionScoreV2, the aclnn call our documents "
            "give; %s%s%s\n", it->path, p,
            via ? "export it with --api " : "no other interface takes this "
                                            "case",
            via ? via : "", via ? " (an interface that documents it)" : "");
    return FIA_ERR_BAD_INPUT;
}

/* Reads and checks case i: parsed, through the interface asked, not too
 * large, its directory not taken.  FIA_OK, or after saying why the status
 * of what refused it (the case's parser, fia_case_set_api, input_bytes,
 * fia_case_digest), FIA_ERR_BAD_INPUT (beyond 002, too large, its
 * directory exists). */
static fia_status prepare(export_item *items, int i, const char *dir,
                          int api)
{
    export_item *it = &items[i];
    fia_error err;
    char why[256];
    fia_case_init(&it->c);
    fia_status st = fia_case_parse_file(it->path, &it->c, &err);
    if (st != FIA_OK) {
        char buf[1024];
        fprintf(stderr, "fiacheck export: %s\n",
                fia_error_text(&err, buf, sizeof buf));
        return st;
    }
    if (api >= 0 && (st = fia_case_set_api(&it->c, (fia_api)api, why,
                                           sizeof why)) != FIA_OK) {
        fprintf(stderr, "fiacheck export: %s: cannot be written through "
                "%s: %s\n", it->path, fia_api_name((fia_api)api), why);
        return st;
    }
    if ((st = refuse_beyond_002(it)) != FIA_OK)
        return st;
    int64_t bytes = 0;
    if ((st = input_bytes(&it->c, &bytes, &err)) != FIA_OK) {
        fprintf(stderr, "fiacheck export: %s: %s\n", it->path, err.msg);
        return st;
    }
    if (bytes > EXPORT_MAX_BYTES) {
        fprintf(stderr, "fiacheck export: %s: its input tensors are %.3g "
                "GiB%s; export writes at most 1 GiB of data a case\n",
                it->path, (double)bytes / (double)((int64_t)1 << 30),
                it->c.live_rows ? " (data = live_rows: mostly zeros, mapped "
                                  "here, but files there)" : "");
        return FIA_ERR_BAD_INPUT;
    }
    if ((st = fia_case_digest(&it->c, it->digest)) != FIA_OK) {
        fprintf(stderr, "fiacheck export: out of memory\n");
        return st;
    }
    dir_name(it->path, it->dir, sizeof it->dir);
    unique_name(items, i);
    char path[4096];
    struct stat sb;
    snprintf(path, sizeof path, "%s/%s", dir, it->dir);
    if (lstat(path, &sb) == 0) {
        fprintf(stderr, "fiacheck export: %s exists: export into a new "
                "directory, or remove it first\n", path);
        return FIA_ERR_BAD_INPUT;
    }
    return FIA_OK;
}

/* Removes a temporary case directory (files only, one level). */
static void remove_flat(const char *path)
{
    DIR *dp = opendir(path);
    if (dp) {
        struct dirent *e;
        char f[4400];
        while ((e = readdir(dp)) != NULL)
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                snprintf(f, sizeof f, "%s/%s", path, e->d_name);
                unlink(f);
            }
        closedir(dp);
    }
    rmdir(path);
}

static fia_status write_case_fia(const char *tmp, const fia_case *c,
                                 fia_error *err)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/case.fia", tmp);
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return fia_fail(err, FIA_ERR_IO, "%s: %s", path, strerror(errno));
    fia_status st = fia_case_print(c, f);
    if (fclose(f) != 0 || st != FIA_OK)
        return fia_fail(err, st == FIA_ERR_NOMEM ? st : FIA_ERR_IO,
                        "%s: cannot write", path);
    return FIA_OK;
}

/* One case directory, built as D/.NAME.tmp and renamed D/NAME when whole;
 * then its line in cases.tsv.  FIA_OK, or after saying why FIA_ERR_IO or
 * the status of what failed (materializing, writing the files). */
static fia_status write_item(const export_item *it, const char *dir, FILE *tsv)
{
    char tmp[4096], final[4096];
    snprintf(tmp, sizeof tmp, "%s/.%s.tmp%ld", dir, it->dir, (long)getpid());
    snprintf(final, sizeof final, "%s/%s", dir, it->dir);
    fia_error err;
    fia_case_data d;
    if (mkdir(tmp, 0777) != 0) {
        fprintf(stderr, "fiacheck export: %s: %s\n", tmp, strerror(errno));
        return FIA_ERR_IO;
    }
    fia_status st = fia_case_materialize(&it->c, 1, &d, &err);
    if (st == FIA_OK) {
        st = write_case_fia(tmp, &it->c, &err);
        if (st == FIA_OK)
            st = export_call(tmp, &it->c, &d, it->digest, &err);
        fia_case_data_free(&d);
    }
    if (st == FIA_OK && rename(tmp, final) != 0)
        st = fia_fail(&err, FIA_ERR_IO, "%s: %s", final, strerror(errno));
    if (st != FIA_OK) {
        fprintf(stderr, "fiacheck export: %s: %s\n", it->path, err.msg);
        remove_flat(tmp);
        return st;
    }
    /* a tab or newline in a path would split the line */
    char name[sizeof it->c.name];
    snprintf(name, sizeof name, "%s", it->path);
    for (char *p = name; *p; p++)
        if (*p == '\t' || *p == '\n' || *p == '\r')
            *p = ' ';
    fprintf(tsv, "%s\t%s\t%s\t%s\n", it->dir, fia_api_name(it->c.api),
            it->digest, name);
    return fflush(tsv) == 0 ? FIA_OK : FIA_ERR_IO;
}

/* D exists (or is made) and takes files.  FIA_OK, or after saying why
 * FIA_ERR_IO, FIA_ERR_BAD_INPUT (D is not a directory). */
static fia_status open_dir(const char *dir)
{
    struct stat sb;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "fiacheck export: %s: %s\n", dir, strerror(errno));
        return FIA_ERR_IO;
    }
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "fiacheck export: %s is not a directory\n", dir);
        return FIA_ERR_BAD_INPUT;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        fprintf(stderr, "fiacheck export: %s: %s\n", dir, strerror(errno));
        return FIA_ERR_IO;
    }
    return FIA_OK;
}

/* FIA_OK, or FIA_ERR_BAD_INPUT after saying why. */
static fia_status parse_args(int argc, char **argv, const char **dir, int *api,
                      export_item *items, int *n)
{
    int n_dir = 0, n_api = 0;
    const char *v;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--dir") == 0) {
            if (cli_once("export", "--dir", &n_dir) ||
                cli_value("export", argc, argv, &i, dir))
                return FIA_ERR_BAD_INPUT;
        } else if (strcmp(argv[i], "--api") == 0) {
            if (cli_once("export", "--api", &n_api) ||
                cli_value("export", argc, argv, &i, &v))
                return FIA_ERR_BAD_INPUT;
            if ((*api = fia_api_from_name(v)) < 0) {
                fprintf(stderr, "fiacheck export: no interface '%s'\n", v);
                return FIA_ERR_BAD_INPUT;
            }
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "fiacheck export: unknown option %s\n", argv[i]);
            return FIA_ERR_BAD_INPUT;
        } else {
            items[(*n)++].path = argv[i];
        }
    }
    if (*dir == NULL || *n == 0) {
        fprintf(stderr, "fiacheck export: %s\n", *dir ? "no CASE"
                                                      : "no --dir D");
        return FIA_ERR_BAD_INPUT;
    }
    return FIA_OK;
}

/* The scripts, and the cases not refused with their cases.tsv lines;
 * *written how many were.  FIA_OK, or after saying why the status of what
 * failed when D could not be set up (open_dir, export_scripts; FIA_ERR_IO
 * for cases.tsv); a case that fails here is said on stderr and leaves the
 * others written. */
static fia_status write_all(const export_item *items, int n, const char *dir,
                            int *written)
{
    fia_error err;
    fia_status st;
    *written = 0;
    if ((st = open_dir(dir)) != FIA_OK)
        return st;
    if ((st = export_scripts(dir, &err)) != FIA_OK) {
        fprintf(stderr, "fiacheck export: %s\n", err.msg);
        return st;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/cases.tsv", dir);
    FILE *tsv = fopen(path, "a");
    if (tsv == NULL) {
        fprintf(stderr, "fiacheck export: %s: %s\n", path, strerror(errno));
        return FIA_ERR_IO;
    }
    for (int i = 0; i < n; i++)
        if (!items[i].refused && write_item(&items[i], dir, tsv) == FIA_OK)
            (*written)++;
    if (fclose(tsv) != 0) {
        fprintf(stderr, "fiacheck export: %s: cannot write\n", path);
        return FIA_ERR_IO;
    }
    return FIA_OK;
}

int cmd_export(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (cli_is_help(argv[i])) {
            fputs(export_usage, stdout);
            return CLI_EXIT_OK;
        }
    export_item *items = calloc((size_t)argc + 1, sizeof *items);
    if (items == NULL) {
        fprintf(stderr, "fiacheck export: out of memory\n");
        return CLI_EXIT_USAGE;
    }
    const char *dir = NULL;
    int api = -1, n = 0;
    if (parse_args(argc, argv, &dir, &api, items, &n) != FIA_OK) {
        free(items);
        return usage();
    }
    /* a case refused here is said why and left out; the others go on */
    int refused = 0;
    for (int i = 0; i < n; i++)
        if (prepare(items, i, dir, api) != FIA_OK) {
            items[i].refused = 1;
            items[i].dir[0] = '\0';  /* its name stays free for the rest */
            refused++;
        }
    int written = 0;
    fia_status wst = refused < n ? write_all(items, n, dir, &written) : FIA_OK;
    if (wst == FIA_OK && refused < n)
        printf("exported %d of %d cases into %s\n", written, n, dir);
    if (refused > 0)
        fprintf(stderr, "fiacheck export: refused %d of %d cases (above)%s\n",
                refused, n, refused == n ? "; nothing written" : "");
    for (int i = 0; i < n; i++)
        fia_case_free(&items[i].c);
    free(items);
    return wst == FIA_OK && written == n ? CLI_EXIT_OK : CLI_EXIT_USAGE;
}
