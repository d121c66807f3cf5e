/* Reading a .npy file strictly (NumPy's format 1.0, 2.0 and 3.0: the magic
 * string, a version, a header length, a header that is a Python dict
 * literal with exactly the keys descr, fortran_order and shape, then the
 * raw data in C order).  A file the script wrote wrongly must be an error
 * naming the file, never outputs read from the wrong bytes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli_judge.h"

/* Outputs are small next to this; a larger file is not one of ours. */
#define NPY_MAX_BYTES ((long long)8 << 30)

const char *cli_npy_descr_of(fia_dtype dt)
{
    switch (dt) {
    case FIA_DT_FP16: return "<f2";
    case FIA_DT_BF16: return "<u2";
    case FIA_DT_FP32: return "<f4";
    case FIA_DT_INT8: return "|i1";
    default: return NULL;
    }
}

typedef struct header {
    const char *p, *end;
} header;

static void skip_spaces(header *h)
{
    while (h->p < h->end && (*h->p == ' ' || *h->p == '\t' || *h->p == '\n'))
        h->p++;
}

static int take(header *h, char c)
{
    skip_spaces(h);
    if (h->p < h->end && *h->p == c) {
        h->p++;
        return 1;
    }
    return 0;
}

/* A quoted Python string without escapes into buf.  Like the other parts
 * of the header: FIA_OK, or FIA_ERR_BAD_INPUT when it is not one. */
static fia_status quoted(header *h, char *buf, size_t n)
{
    skip_spaces(h);
    if (h->p >= h->end || (*h->p != '\'' && *h->p != '"'))
        return FIA_ERR_BAD_INPUT;
    char q = *h->p++;
    size_t k = 0;
    while (h->p < h->end && *h->p != q) {
        if (*h->p == '\\' || k + 1 >= n)
            return FIA_ERR_BAD_INPUT;
        buf[k++] = *h->p++;
    }
    if (h->p >= h->end)
        return FIA_ERR_BAD_INPUT;
    h->p++;
    buf[k] = '\0';
    return FIA_OK;
}

/* (d0, d1, ...), () or (d0,) into n->shape. */
static fia_status shape_tuple(header *h, cli_npy *n)
{
    if (!take(h, '('))
        return FIA_ERR_BAD_INPUT;
    n->ndim = 0;
    if (take(h, ')'))
        return FIA_OK;
    while (1) {
        skip_spaces(h);
        long long v = 0;
        const char *s = h->p;
        while (h->p < h->end && *h->p >= '0' && *h->p <= '9') {
            if (v > (1LL << 40))
                return FIA_ERR_BAD_INPUT;
            v = v * 10 + (*h->p++ - '0');
        }
        if (h->p == s || n->ndim == FIA_MAX_RANK)
            return FIA_ERR_BAD_INPUT;
        n->shape[n->ndim++] = v;
        int comma = take(h, ',');
        if (take(h, ')'))
            /* (3) is no tuple */
            return n->ndim == 1 && !comma ? FIA_ERR_BAD_INPUT : FIA_OK;
        if (!comma)
            return FIA_ERR_BAD_INPUT;
    }
}

/* The dict: each of the three keys exactly once, nothing else. */
static fia_status parse_header(header *h, cli_npy *n, const char **why)
{
    int seen[3] = {0};
    char key[32], fortran[8];
    *why = "its header is not a dict of descr, fortran_order and shape";
    if (!take(h, '{'))
        return FIA_ERR_BAD_INPUT;
    while (!take(h, '}')) {
        if (quoted(h, key, sizeof key) != FIA_OK || !take(h, ':'))
            return FIA_ERR_BAD_INPUT;
        if (strcmp(key, "descr") == 0 && !seen[0]++) {
            if (quoted(h, n->descr, sizeof n->descr) != FIA_OK) {
                *why = "its descr is not a simple type string";
                return FIA_ERR_BAD_INPUT;
            }
        } else if (strcmp(key, "fortran_order") == 0 && !seen[1]++) {
            skip_spaces(h);
            size_t k = 0;
            while (h->p < h->end && k + 1 < sizeof fortran &&
                   ((*h->p >= 'A' && *h->p <= 'Z') ||
                    (*h->p >= 'a' && *h->p <= 'z')))
                fortran[k++] = *h->p++;
            fortran[k] = '\0';
            if (strcmp(fortran, "False") != 0) {
                *why = strcmp(fortran, "True") == 0
                           ? "it is in Fortran order (column-major); the "
                             "outputs are row-major"
                           : "its fortran_order is not False or True";
                return FIA_ERR_BAD_INPUT;
            }
        } else if (strcmp(key, "shape") == 0 && !seen[2]++) {
            if (shape_tuple(h, n) != FIA_OK) {
                *why = "its shape is not a tuple of up to 8 sizes";
                return FIA_ERR_BAD_INPUT;
            }
        } else {
            return FIA_ERR_BAD_INPUT;
        }
        if (!take(h, ',') && !(skip_spaces(h), h->p < h->end && *h->p == '}'))
            return FIA_ERR_BAD_INPUT;
    }
    skip_spaces(h);
    if (h->p != h->end || !seen[0] || !seen[1] || !seen[2])
        return FIA_ERR_BAD_INPUT;
    return FIA_OK;
}

/* The element size a descr names: 1, 2, 4, 8, or 0 when it is not a
 * plain little-endian (or byte-sized) number type. */
static int descr_size(const char *d)
{
    if (strlen(d) != 3 || strchr("biuf", d[1]) == NULL)
        return 0;
    int size = d[2] - '0';
    if (size != 1 && size != 2 && size != 4 && size != 8)
        return 0;
    if (size == 1 ? strchr("|<>=", d[0]) == NULL : d[0] != '<')
        return 0; /* '>' is big-endian, '=' the writer's own order */
    return size;
}

static fia_status read_whole(const char *path, unsigned char **buf,
                             size_t *len, fia_error *err)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return fia_fail(err, errno == ENOENT ? FIA_ERR_BAD_INPUT : FIA_ERR_IO,
                        "%s: %s", path, strerror(errno));
    long long size = -1;
    if (fseek(f, 0, SEEK_END) == 0)
        size = ftell(f);
    if (size < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return fia_fail(err, FIA_ERR_IO, "%s: cannot read it", path);
    }
    if (size > NPY_MAX_BYTES) {
        fclose(f);
        return fia_fail(err, FIA_ERR_BAD_INPUT, "%s: %lld bytes, more than "
                        "any output", path, size);
    }
    *buf = malloc((size_t)size + 1);
    if (*buf == NULL) {
        fclose(f);
        return fia_fail(err, FIA_ERR_NOMEM, "%s: %lld bytes", path, size);
    }
    *len = fread(*buf, 1, (size_t)size, f);
    int bad = ferror(f) || *len != (size_t)size;
    fclose(f);
    if (bad) {
        free(*buf);
        return fia_fail(err, FIA_ERR_IO, "%s: cannot read it", path);
    }
    return FIA_OK;
}

fia_status cli_npy_read(const char *path, cli_npy *n, fia_error *err)
{
    unsigned char *buf = NULL;
    size_t len = 0;
    memset(n, 0, sizeof *n);
    fia_status st = read_whole(path, &buf, &len, err);
    if (st != FIA_OK)
        return st;
    const char *why = NULL;
    size_t hlen = 0, off = 0;
    if (len < 10 || memcmp(buf, "\x93NUMPY", 6) != 0) {
        why = "not an .npy file (no \\x93NUMPY magic)";
    } else if (buf[6] < 1 || buf[6] > 3 || buf[7] != 0) {
        why = "an .npy format version other than 1.0, 2.0 or 3.0";
    } else {
        off = buf[6] == 1 ? 10 : 12;
        if (len < off)
            why = "cut short inside its header";
        else
            hlen = buf[6] == 1 ? (size_t)(buf[8] | buf[9] << 8)
                               : (size_t)buf[8] | (size_t)buf[9] << 8 |
                                     (size_t)buf[10] << 16 |
                                     (size_t)buf[11] << 24;
        if (why == NULL && hlen > len - off)
            why = "cut short inside its header";
    }
    if (why == NULL) {
        header h = {(const char *)buf + off, (const char *)buf + off + hlen};
        if (parse_header(&h, n, &why) == FIA_OK)
            why = NULL;
    }
    int64_t numel = 1;
    if (why == NULL && (n->itemsize = descr_size(n->descr)) == 0)
        why = "its descr is not a little-endian number type";
    for (int i = 0; why == NULL && i < n->ndim; i++)
        if (n->shape[i] != 0 && numel > INT64_MAX / n->shape[i])
            why = "its shape has more elements than memory";
        else
            numel *= n->shape[i];
    if (why == NULL) {
        size_t want = (size_t)numel * (size_t)n->itemsize;
        size_t have = len - off - hlen;
        if (have != want) {
            fia_fail(err, FIA_ERR_BAD_INPUT, "%s: shape and descr %s say "
                     "%zu bytes of data, the file has %zu (%s)", path,
                     n->descr, want, have,
                     have < want ? "truncated" : "bytes after the data");
            free(buf);
            return FIA_ERR_BAD_INPUT;
        }
        n->nbytes = want;
        n->data = malloc(want ? want : 1);
        if (n->data == NULL) {
            free(buf);
            return fia_fail(err, FIA_ERR_NOMEM, "%s: %zu bytes", path, want);
        }
        memcpy(n->data, buf + off + hlen, want);
        free(buf);
        return FIA_OK;
    }
    free(buf);
    memset(n, 0, sizeof *n);
    return fia_fail(err, FIA_ERR_BAD_INPUT, "%s: %s", path, why);
}

void cli_npy_free(cli_npy *n)
{
    free(n->data);
    memset(n, 0, sizeof *n);
}
