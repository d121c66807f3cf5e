/* NPY v1.0 files (NumPy's format: a magic string, a header that is a Python
 * dict literal padded to a multiple of 64 bytes, then the raw data in C
 * order).  Written here rather than through NumPy so that `export` runs
 * where only fiacheck is installed. */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include "export.h"

/* NumPy's type string of each dtype as the file holds it. */
static const char *npy_descr(fia_dtype dt)
{
    switch (dt) {
    case FIA_DT_FP16: return "<f2";
    case FIA_DT_BF16: return "<u2";   /* NumPy has no bfloat16: the bits */
    case FIA_DT_FP32: return "<f4";
    case FIA_DT_INT8: return "|i1";
    case FIA_DT_UINT8: return "|u1";
    case FIA_DT_INT4: return "|u1";   /* packed, two per byte */
    case FIA_DT_INT32: return "<i4";
    case FIA_DT_INT64: return "<i8";
    case FIA_DT_UINT64: return "<u8";
    case FIA_DT_BOOL: return "|b1";
    default: return NULL;
    }
}

const char *export_dtype_name(fia_dtype dt)
{
    switch (dt) {
    case FIA_DT_FP16: return "float16";
    case FIA_DT_BF16: return "bfloat16";
    case FIA_DT_FP32: return "float32";
    case FIA_DT_INT8: return "int8";
    case FIA_DT_UINT8: return "uint8";
    case FIA_DT_INT4: return "int4";
    case FIA_DT_INT32: return "int32";
    case FIA_DT_INT64: return "int64";
    case FIA_DT_UINT64: return "uint64";
    case FIA_DT_BOOL: return "bool";
    default: return "?";
    }
}

static int little_endian(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 1;
}

static fia_status write_npy(const char *path, const char *descr,
                            const int64_t *shape, int ndim, const void *data,
                            size_t bytes, fia_error *err)
{
    if (!little_endian())
        return fia_fail(err, FIA_ERR_IO, "%s: NPY files are written "
                        "little-endian; this machine is not", path);
    char dict[512];
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': "
                     "False, 'shape': (", descr);
    for (int i = 0; i < ndim; i++)
        n += snprintf(dict + n, sizeof dict - (size_t)n, "%lld%s",
                      (long long)shape[i], ndim == 1 || i + 1 < ndim ? ", "
                                                                     : "");
    n += snprintf(dict + n, sizeof dict - (size_t)n, "), }");
    /* magic (6) + version (2) + length (2) + dict + padding + '\n' is a
     * multiple of 64 */
    size_t total = 10 + (size_t)n + 1;
    size_t pad = (64 - total % 64) % 64;
    uint16_t hlen = (uint16_t)((size_t)n + pad + 1);
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return fia_fail(err, FIA_ERR_IO, "%s: %s", path, strerror(errno));
    unsigned char head[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                              (unsigned char)(hlen & 0xFF),
                              (unsigned char)(hlen >> 8)};
    int bad = fwrite(head, 1, sizeof head, f) != sizeof head ||
              fwrite(dict, 1, (size_t)n, f) != (size_t)n;
    for (size_t i = 0; i < pad && !bad; i++)
        bad = fputc(' ', f) == EOF;
    bad = bad || fputc('\n', f) == EOF;
    if (!bad && bytes > 0)
        bad = fwrite(data, 1, bytes, f) != bytes;
    if (fclose(f) != 0)
        bad = 1;
    if (bad)
        return fia_fail(err, FIA_ERR_IO, "%s: cannot write: %s", path,
                        strerror(errno));
    return FIA_OK;
}

fia_status export_npy_tensor(const char *path, const fia_tensor *t,
                             fia_error *err)
{
    const char *descr = npy_descr(t->dtype);
    int64_t numel = fia_tensor_numel(t);
    if (descr == NULL || numel < 0)
        return fia_fail(err, FIA_ERR_BAD_INPUT, "%s: no NPY form for this "
                        "tensor", path);
    int64_t shape[FIA_MAX_RANK];
    int ndim = t->ndim;
    memcpy(shape, t->shape, sizeof shape);
    if (t->dtype == FIA_DT_INT4) {
        /* whole bytes per row only: a row of odd length would share its
         * last byte with the next row */
        if (ndim == 0 || shape[ndim - 1] % 2 != 0)
            return fia_fail(err, FIA_ERR_BAD_INPUT, "%s: an int4 tensor is "
                            "written two to a byte along its last "
                            "dimension, which must be even", path);
        shape[ndim - 1] /= 2;
    }
    size_t bytes = fia_dtype_storage(t->dtype, numel);
    if (bytes > 0 && t->data == NULL)
        return fia_fail(err, FIA_ERR_BAD_INPUT, "%s: the tensor has no data",
                        path);
    return write_npy(path, descr, shape, ndim, t->data, bytes, err);
}

fia_status export_npy_int64(const char *path, const int64_t *v, int64_t n,
                            fia_error *err)
{
    return write_npy(path, "<i8", &n, 1, v, (size_t)n * sizeof *v, err);
}
