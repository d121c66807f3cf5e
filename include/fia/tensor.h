/* Tensors as the operator sees them: dtype, shape, contiguous row-major data.
 * The API mirrors aclTensor / aclTensorList / aclIntArray with plain structs;
 * a NULL pointer in an API call is a nullptr in aclnn. */
#ifndef FIA_TENSOR_H
#define FIA_TENSOR_H

#include <stdint.h>
#include "fia/dtype.h"

#define FIA_MAX_RANK 8
#define FIA_MAX_TENSOR_LIST 512

typedef struct fia_tensor {
    fia_dtype dtype;
    int32_t ndim;                 /* 0..FIA_MAX_RANK */
    int64_t shape[FIA_MAX_RANK];
    void *data;                   /* row-major, contiguous; NULL only if the
                                     tensor is empty or data was not generated
                                     (status-only runs) */
} fia_tensor;

typedef struct fia_tensor_list {
    int32_t count;
    const fia_tensor *const *tensors;
} fia_tensor_list;

typedef struct fia_int_array {
    int64_t count;
    const int64_t *values;
} fia_int_array;

/* Product of the dims, or -1 when it overflows int64 or a dim is negative. */
int64_t fia_tensor_numel(const fia_tensor *t);
/* "fp16 [2,8,16,64]" into buf; returns buf. */
char *fia_tensor_describe(const fia_tensor *t, char *buf, size_t len);

#endif
