/* The stand-in's objects: what an aclTensor, aclTensorList, aclIntArray and
 * aclOpExecutor are here (fiacheck's plain tensor types around host memory)
 * and the thread's error message that aclGetRecentErrMsg returns. */
#ifndef FIA_STANDIN_INTERNAL_H
#define FIA_STANDIN_INTERNAL_H

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "fia/fast.h"
#include "fia/tensor.h"

#define STANDIN_API __attribute__((visibility("default")))

struct aclTensor {
    uint32_t magic;
    aclDataType acl_dtype;
    fia_tensor t;
};

struct aclTensorList {
    uint32_t magic;
    fia_tensor_list list;
    aclTensor **members;           /* owned, with the tensors */
    const fia_tensor **views;      /* what list.tensors points at */
};

struct aclIntArray {
    uint32_t magic;
    fia_int_array arr;
    int64_t *values;               /* owned copy */
};

struct aclOpExecutor {
    uint32_t magic;
    fast_executor *fast;
};

#define STANDIN_TENSOR_MAGIC 0x54454e53u
#define STANDIN_LIST_MAGIC 0x4c495354u
#define STANDIN_ARRAY_MAGIC 0x41525259u
#define STANDIN_EXECUTOR_MAGIC 0x45584543u

/* Sets this thread's message (printf-style); NULL fmt clears it. */
void standin_set_error(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
/* Why the environment makes the stand-in refuse to run (an unknown
 * FIA_ACLNN_STANDIN_PROFILE, FIA_FAST_ISA or FIA_FAST_THREADS), NULL when
 * it is fine; applies the profile to this thread as a side effect. */
const char *standin_config_error(void);
/* 1 when p is a live stream token (or NULL, the default stream). */
int standin_stream_valid(aclrtStream p);

#endif
