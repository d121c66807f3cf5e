/* .npy reading and writing (fia_aclnn_npy.h).  The header is a Python dict
 * literal; only its three keys are read, and a file whose data is not
 * exactly what the header announces is refused. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fia_aclnn_npy.h"

static int npy_fail(char *err, size_t errlen, const char *path,
                    const char *why)
{
    snprintf(err, errlen, "%s: %s", path, why);
    return -1;
}

/* The text after 'key': in the header, NULL when absent. */
static const char *header_value(const char *h, const char *key)
{
    char quoted[32];
    snprintf(quoted, sizeof quoted, "'%s'", key);
    const char *k = strstr(h, quoted);
    if (!k)
        return NULL;
    k += strlen(quoted);
    while (*k == ' ')
        k++;
    if (*k != ':')
        return NULL;
    k++;
    while (*k == ' ')
        k++;
    return k;
}

static int parse_header(const char *h, npy_array *a)
{
    const char *d = header_value(h, "descr");
    if (!d || *d != '\'')
        return -1;
    d++;
    size_t n = strcspn(d, "'");
    if (n == 0 || n >= sizeof a->descr || d[n] != '\'')
        return -1;
    memcpy(a->descr, d, n);
    a->descr[n] = '\0';
    const char *f = header_value(h, "fortran_order");
    if (!f || strncmp(f, "False", 5) != 0)
        return -1;
    const char *s = header_value(h, "shape");
    if (!s || *s != '(')
        return -1;
    s++;
    a->ndim = 0;
    for (;;) {
        while (*s == ' ')
            s++;
        if (*s == ')')
            break;
        if (a->ndim == NPY_MAX_RANK || *s < '0' || *s > '9')
            return -1;
        char *end;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        if (errno || v < 0)
            return -1;
        a->shape[a->ndim++] = v;
        s = end;
        while (*s == ' ')
            s++;
        if (*s == ',')
            s++;
        else if (*s != ')')
            return -1;
    }
    /* the item size is the digits after the type letter */
    const char *digits = a->descr + strspn(a->descr, "<|=>");
    if (a->descr[0] == '>' || !digits[0] || !digits[1])
        return -1;
    a->itemsize = (size_t)strtoul(digits + 1, NULL, 10);
    return a->itemsize ? 0 : -1;
}

int npy_read(const char *path, npy_array *a, char *err, size_t errlen)
{
    memset(a, 0, sizeof *a);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    unsigned char pre[12];
    int rc = -1;
    char *header = NULL;
    if (fread(pre, 1, 8, f) != 8 || memcmp(pre, "\x93NUMPY", 6) != 0) {
        npy_fail(err, errlen, path, "not a .npy file");
        goto out;
    }
    size_t hlen;
    if (pre[6] == 1) {
        if (fread(pre + 8, 1, 2, f) != 2)
            goto truncated;
        hlen = (size_t)pre[8] | (size_t)pre[9] << 8;
    } else if (pre[6] == 2 || pre[6] == 3) {
        if (fread(pre + 8, 1, 4, f) != 4)
            goto truncated;
        hlen = (size_t)pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 |
               (size_t)pre[11] << 24;
    } else {
        npy_fail(err, errlen, path, "unknown .npy version");
        goto out;
    }
    if (hlen > (1u << 20)) {
        npy_fail(err, errlen, path, "header too long");
        goto out;
    }
    header = malloc(hlen + 1);
    if (!header || fread(header, 1, hlen, f) != hlen)
        goto truncated;
    header[hlen] = '\0';
    if (parse_header(header, a) != 0) {
        npy_fail(err, errlen, path, "unreadable header (C order, "
                 "little-endian, a shape of up to 8 dimensions)");
        goto out;
    }
    size_t total = a->itemsize;
    for (int i = 0; i < a->ndim; i++) {
        if (a->shape[i] && total > SIZE_MAX / (size_t)a->shape[i]) {
            npy_fail(err, errlen, path, "shape too large");
            goto out;
        }
        total *= (size_t)a->shape[i];
    }
    a->nbytes = total;
    if (total) {
        a->data = malloc(total);
        if (!a->data) {
            npy_fail(err, errlen, path, "out of memory");
            goto out;
        }
        if (fread(a->data, 1, total, f) != total)
            goto truncated;
    }
    if (fgetc(f) != EOF) {
        npy_fail(err, errlen, path, "data beyond what the shape holds");
        goto out;
    }
    rc = 0;
    goto out;
truncated:
    npy_fail(err, errlen, path, "truncated");
out:
    free(header);
    fclose(f);
    if (rc != 0)
        npy_free(a);
    return rc;
}

int npy_write(const char *path, const char *descr, int ndim,
              const int64_t *shape, const void *data, size_t nbytes,
              char *err, size_t errlen)
{
    char dict[512];
    int n = snprintf(dict, sizeof dict,
                     "{'descr': '%s', 'fortran_order': False, 'shape': (",
                     descr);
    for (int i = 0; i < ndim; i++)
        n += snprintf(dict + n, sizeof dict - (size_t)n, "%lld%s",
                      (long long)shape[i], ndim == 1 ? "," :
                      i + 1 < ndim ? ", " : "");
    n += snprintf(dict + n, sizeof dict - (size_t)n, "), }");
    /* magic, version, length and dict padded with spaces to 64 bytes, '\n' */
    size_t total = 10 + (size_t)n + 1;
    size_t pad = (64 - total % 64) % 64;
    size_t hlen = (size_t)n + pad + 1;
    FILE *f = fopen(path, "wb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                             (unsigned char)(hlen & 0xff),
                             (unsigned char)(hlen >> 8)};
    int ok = fwrite(pre, 1, 10, f) == 10 &&
             fwrite(dict, 1, (size_t)n, f) == (size_t)n;
    for (size_t i = 0; ok && i < pad; i++)
        ok = fputc(' ', f) != EOF;
    ok = ok && fputc('\n', f) != EOF;
    if (ok && nbytes)
        ok = fwrite(data, 1, nbytes, f) == nbytes;
    if (fclose(f) != 0)
        ok = 0;
    if (!ok)
        return npy_fail(err, errlen, path, "write failed");
    return 0;
}

void npy_free(npy_array *a)
{
    free(a->data);
    a->data = NULL;
}
