/* aclTensor, aclTensorList and aclIntArray as fiacheck's plain types.
 * The data stays where the caller's device (here: host) memory is; a
 * tensor keeps its view shape.  fast/ takes row-major contiguous tensors,
 * so a tensor whose strides are not the contiguous ones is refused here
 * (NULL, with the reason in aclGetRecentErrMsg) instead of being read
 * wrongly. */
#include <stdlib.h>
#include <string.h>
#include "standin_internal.h"

static fia_dtype dtype_from_acl(aclDataType dt)
{
    switch (dt) {
    case ACL_FLOAT16: return FIA_DT_FP16;
    case ACL_BF16: return FIA_DT_BF16;
    case ACL_FLOAT: return FIA_DT_FP32;
    case ACL_INT8: return FIA_DT_INT8;
    case ACL_UINT8: return FIA_DT_UINT8;
    case ACL_INT4: return FIA_DT_INT4;
    case ACL_INT32: return FIA_DT_INT32;
    case ACL_INT64: return FIA_DT_INT64;
    case ACL_UINT64: return FIA_DT_UINT64;
    case ACL_BOOL: return FIA_DT_BOOL;
    default: return FIA_DT_INVALID; /* fast/ refuses it as the operator would */
    }
}

static int strides_contiguous(const int64_t *dims, uint64_t n,
                              const int64_t *stride)
{
    int64_t want = 1;
    for (uint64_t i = n; i-- > 0;) {
        if (dims[i] == 0)
            return 1; /* an empty tensor has no element to misplace */
        if (dims[i] != 1 && stride[i] != want)
            return 0;
        want *= dims[i];
    }
    return 1;
}

STANDIN_API aclTensor *aclCreateTensor(const int64_t *viewDims,
                                       uint64_t viewDimsNum,
                                       aclDataType dataType,
                                       const int64_t *stride, int64_t offset,
                                       aclFormat format,
                                       const int64_t *storageDims,
                                       uint64_t storageDimsNum,
                                       void *tensorData)
{
    (void)format;
    (void)storageDims;
    (void)storageDimsNum;
    if (viewDimsNum > FIA_MAX_RANK || (viewDimsNum > 0 && !viewDims)) {
        standin_set_error("aclCreateTensor: rank %llu (the stand-in holds "
                          "up to %d dimensions)",
                          (unsigned long long)viewDimsNum, FIA_MAX_RANK);
        return NULL;
    }
    if (stride && !strides_contiguous(viewDims, viewDimsNum, stride)) {
        standin_set_error("aclCreateTensor: strides that are not "
                          "row-major contiguous (the stand-in computes with "
                          "fast/, which takes contiguous tensors only)");
        return NULL;
    }
    fia_dtype dt = dtype_from_acl(dataType);
    int bits = dt == FIA_DT_INVALID ? 8 : fia_dtype_bits(dt);
    if (offset < 0 || (bits == 4 && offset % 2)) {
        standin_set_error("aclCreateTensor: offset %lld", (long long)offset);
        return NULL;
    }
    aclTensor *t = calloc(1, sizeof *t);
    if (!t) {
        standin_set_error("aclCreateTensor: out of memory");
        return NULL;
    }
    t->magic = STANDIN_TENSOR_MAGIC;
    t->acl_dtype = dataType;
    t->t.dtype = dt;
    t->t.ndim = (int32_t)viewDimsNum;
    for (uint64_t i = 0; i < viewDimsNum; i++)
        t->t.shape[i] = viewDims[i];
    t->t.data = tensorData ? (char *)tensorData + offset * bits / 8 : NULL;
    return t;
}

STANDIN_API aclnnStatus aclDestroyTensor(const aclTensor *tensor)
{
    if (tensor) {
        ((aclTensor *)tensor)->magic = 0;
        free((void *)tensor);
    }
    return 0;
}

STANDIN_API aclTensorList *aclCreateTensorList(const aclTensor *const *value,
                                               uint64_t size)
{
    if (size > FIA_MAX_TENSOR_LIST || (size > 0 && !value)) {
        standin_set_error("aclCreateTensorList: %llu tensors (the stand-in "
                          "holds up to %d)", (unsigned long long)size,
                          FIA_MAX_TENSOR_LIST);
        return NULL;
    }
    for (uint64_t i = 0; i < size; i++) {
        if (!value[i] || value[i]->magic != STANDIN_TENSOR_MAGIC) {
            standin_set_error("aclCreateTensorList: entry %llu is not a "
                              "tensor", (unsigned long long)i);
            return NULL;
        }
    }
    aclTensorList *l = calloc(1, sizeof *l);
    if (l) {
        l->members = calloc(size ? size : 1, sizeof *l->members);
        l->views = calloc(size ? size : 1, sizeof *l->views);
    }
    if (!l || !l->members || !l->views) {
        if (l) {
            free(l->members);
            free(l->views);
        }
        free(l);
        standin_set_error("aclCreateTensorList: out of memory");
        return NULL;
    }
    l->magic = STANDIN_LIST_MAGIC;
    for (uint64_t i = 0; i < size; i++) {
        l->members[i] = (aclTensor *)value[i];
        l->views[i] = &value[i]->t;
    }
    l->list.count = (int32_t)size;
    l->list.tensors = l->views;
    return l;
}

STANDIN_API aclnnStatus aclDestroyTensorList(const aclTensorList *array)
{
    if (!array)
        return 0;
    aclTensorList *l = (aclTensorList *)array;
    for (int32_t i = 0; i < l->list.count; i++)
        aclDestroyTensor(l->members[i]);
    free(l->members);
    free(l->views);
    l->magic = 0;
    free(l);
    return 0;
}

STANDIN_API aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size)
{
    if (size > 0 && !value) {
        standin_set_error("aclCreateIntArray: values are nullptr");
        return NULL;
    }
    if (size > ((uint64_t)1 << 40)) {
        standin_set_error("aclCreateIntArray: %llu values",
                          (unsigned long long)size);
        return NULL;
    }
    aclIntArray *a = calloc(1, sizeof *a);
    if (a)
        a->values = malloc((size ? size : 1) * sizeof *a->values);
    if (!a || !a->values) {
        free(a);
        standin_set_error("aclCreateIntArray: out of memory");
        return NULL;
    }
    a->magic = STANDIN_ARRAY_MAGIC;
    if (size)
        memcpy(a->values, value, size * sizeof *value);
    a->arr.count = (int64_t)size;
    a->arr.values = a->values;
    return a;
}

STANDIN_API aclnnStatus aclDestroyIntArray(const aclIntArray *array)
{
    if (array) {
        aclIntArray *a = (aclIntArray *)array;
        free(a->values);
        a->magic = 0;
        free(a);
    }
    return 0;
}
