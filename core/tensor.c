/* Tensor helpers that are plain data: element count and a printable form. */
#include <stdio.h>
#include "fia/tensor.h"

int64_t fia_tensor_numel(const fia_tensor *t)
{
    if (t == NULL || t->ndim < 0 || t->ndim > FIA_MAX_RANK)
        return -1;
    int64_t n = 1;
    for (int i = 0; i < t->ndim; i++) {
        int64_t d = t->shape[i];
        if (d < 0)
            return -1;
        if (d != 0 && n > INT64_MAX / d)
            return -1;
        n *= d;
    }
    return n;
}

char *fia_tensor_describe(const fia_tensor *t, char *buf, size_t len)
{
    if (len == 0)
        return buf;
    if (t == NULL) {
        snprintf(buf, len, "null");
        return buf;
    }
    size_t off = (size_t)snprintf(buf, len, "%s [", fia_dtype_name(t->dtype));
    for (int i = 0; i < t->ndim && i < FIA_MAX_RANK && off < len; i++)
        off += (size_t)snprintf(buf + off, len - off, "%s%lld", i ? "," : "",
                                (long long)t->shape[i]);
    if (off < len)
        snprintf(buf + off, len - off, "]");
    return buf;
}
