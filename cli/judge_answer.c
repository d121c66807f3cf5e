/* A case's out/ as the device's script wrote it (docs/export.md "out/"):
 * status.json read strictly, and when the call was accepted its outputs.
 * Anything missing or malformed is the case's error, said with the file
 * and what is wrong: judge must never take a broken answer for one. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cli_judge.h"
#include "json_read.h"

/* status.json is a few hundred bytes; a larger one is not ours. */
#define STATUS_MAX_BYTES (1 << 20)

static fia_status read_text(const char *path, char **text, size_t *len,
                            fia_error *err)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return fia_fail(err, errno == ENOENT ? FIA_ERR_BAD_INPUT : FIA_ERR_IO,
                        "%s: %s", path, errno == ENOENT ? "missing (the "
                        "script did not answer this case)" : strerror(errno));
    *text = malloc(STATUS_MAX_BYTES + 1);
    if (*text == NULL) {
        fclose(f);
        return fia_fail(err, FIA_ERR_NOMEM, "%s", path);
    }
    *len = fread(*text, 1, STATUS_MAX_BYTES + 1, f);
    int bad = ferror(f);
    fclose(f);
    if (bad || *len > STATUS_MAX_BYTES) {
        free(*text);
        return fia_fail(err, bad ? FIA_ERR_IO : FIA_ERR_BAD_INPUT, "%s: %s",
                        path, bad ? "cannot read it" : "larger than 1 MiB");
    }
    return FIA_OK;
}

/* An optional string member into buf ("" when absent or null);
 * FIA_ERR_BAD_INPUT when it is of another type or too long. */
static fia_status opt_string(const cli_json *o, const char *key, char *buf,
                             size_t n)
{
    const cli_json *v = cli_json_get(o, key);
    buf[0] = '\0';
    if (v == NULL || v->type == CLI_JSON_NULL)
        return FIA_OK;
    if (v->type != CLI_JSON_STRING || strlen(v->string) >= n)
        return FIA_ERR_BAD_INPUT;
    snprintf(buf, n, "%s", v->string);
    return FIA_OK;
}

/* The aclnn status a message carries: a word of six digits that is an
 * aclnn code (1xxxxx parameter, 3xxxxx runtime, 5xxxxx inner errors, the
 * second and third digits 61), the only such one; else 0. */
static fia_status code_in_message(const char *m)
{
    fia_status found = 0;
    for (const char *p = m; *p; p++) {
        if (!isdigit((unsigned char)*p) ||
            (p > m && isalnum((unsigned char)p[-1])))
            continue;
        size_t k = 0;
        while (isdigit((unsigned char)p[k]))
            k++;
        if (k == 6 && !isalnum((unsigned char)p[k]) &&
            strchr("135", p[0]) && p[1] == '6' && p[2] == '1') {
            fia_status c = (fia_status)atol(p);
            if (found != 0 && found != c)
                return 0; /* two codes: which one is unknowable */
            found = c;
        }
        p += k - 1;
    }
    return found;
}

static fia_status parse_status(const char *path, const cli_json *j,
                               cli_device_answer *a, fia_error *err)
{
    if (j->type != CLI_JSON_OBJECT)
        return fia_fail(err, FIA_ERR_BAD_INPUT, "%s: not a JSON object but "
                        "%s", path, cli_json_type_name(j->type));
    const cli_json *s = cli_json_get(j, "status");
    if (s == NULL || s->type != CLI_JSON_STRING ||
        (strcmp(s->string, "ok") != 0 && strcmp(s->string, "error") != 0))
        return fia_fail(err, FIA_ERR_BAD_INPUT, "%s: \"status\" must be "
                        "\"ok\" or \"error\"", path);
    if (opt_string(j, "message", a->message, sizeof a->message) != FIA_OK ||
        opt_string(j, "system", a->system, sizeof a->system) != FIA_OK ||
        opt_string(j, "version", a->version, sizeof a->version) != FIA_OK)
        return fia_fail(err, FIA_ERR_BAD_INPUT, "%s: \"message\", \"system\" "
                        "and \"version\" must be strings (of at most %zu, 64 "
                        "and 128 bytes) or null", path, sizeof a->message - 1);
    a->accepted = strcmp(s->string, "ok") == 0;
    const cli_json *c = cli_json_get(j, "code");
    if (c != NULL && c->type != CLI_JSON_NULL &&
        (c->type != CLI_JSON_NUMBER || !c->integral || !(c->number >= 1) ||
         !(c->number <= 2147483647.0)))
        return fia_fail(err, FIA_ERR_BAD_INPUT, "%s: \"code\" must be a "
                        "positive whole number (the aclnn status) or null",
                        path);
    if (a->accepted) {
        if (c != NULL && c->type == CLI_JSON_NUMBER)
            return fia_fail(err, FIA_ERR_BAD_INPUT, "%s: \"status\" is \"ok\" "
                            "but \"code\" is %.0f", path, c->number);
        return FIA_OK;
    }
    if (c != NULL && c->type == CLI_JSON_NUMBER) {
        a->code = (fia_status)c->number;
    } else if ((a->code = code_in_message(a->message)) != 0) {
        a->code_from_message = 1;
    } else {
        a->code = CLI_JUDGE_UNKNOWN_CODE;
    }
    return FIA_OK;
}

static int exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

fia_status cli_device_answer_read(const char *case_dir, cli_device_answer *a,
                                  fia_error *err)
{
    memset(a, 0, sizeof *a);
    snprintf(a->dir, sizeof a->dir, "%s", case_dir);
    char path[1200], why[256];
    snprintf(path, sizeof path, "%s/out/status.json", case_dir);
    char *text = NULL;
    size_t len = 0;
    fia_status st = read_text(path, &text, &len, err);
    if (st != FIA_OK)
        return st;
    cli_json j;
    if ((st = cli_json_parse(text, len, &j, why, sizeof why)) != FIA_OK) {
        free(text);
        return fia_fail(err, st, "%s: not JSON: %s", path, why);
    }
    free(text);
    st = parse_status(path, &j, a, err);
    cli_json_free(&j);
    if (st != FIA_OK || !a->accepted)
        return st;
    snprintf(path, sizeof path, "%s/out/attention_out.npy", case_dir);
    if ((st = cli_npy_read(path, &a->out, err)) != FIA_OK) {
        if (!exists(path))
            fia_fail(err, FIA_ERR_BAD_INPUT, "%s: missing, but status.json "
                     "says the call was accepted", path);
        return st;
    }
    a->has_out = 1;
    snprintf(path, sizeof path, "%s/out/softmax_lse.npy", case_dir);
    if (exists(path)) {
        if ((st = cli_npy_read(path, &a->lse, err)) != FIA_OK) {
            cli_device_answer_free(a);
            return st;
        }
        a->has_lse = 1;
    }
    return FIA_OK;
}

void cli_device_answer_free(cli_device_answer *a)
{
    cli_npy_free(&a->out);
    cli_npy_free(&a->lse);
    a->has_out = a->has_lse = 0;
}
