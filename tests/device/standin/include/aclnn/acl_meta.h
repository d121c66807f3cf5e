/* Stand-in for CANN's aclnn/acl_meta.h: the opaque objects an aclnn call
 * takes (aclTensor, aclTensorList, aclIntArray, aclOpExecutor) and their
 * constructors and destructors, with CANN's names. */
#ifndef FIA_STANDIN_ACL_META_H
#define FIA_STANDIN_ACL_META_H

#include <stdbool.h>
#include <stdint.h>
#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t aclnnStatus;
typedef struct aclTensor aclTensor;
typedef struct aclTensorList aclTensorList;
typedef struct aclIntArray aclIntArray;
typedef struct aclOpExecutor aclOpExecutor;

aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum,
                           aclDataType dataType, const int64_t *stride,
                           int64_t offset, aclFormat format,
                           const int64_t *storageDims, uint64_t storageDimsNum,
                           void *tensorData);
aclTensorList *aclCreateTensorList(const aclTensor *const *value,
                                   uint64_t size);
aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size);
aclnnStatus aclDestroyTensor(const aclTensor *tensor);
/* Destroys the list and the tensors in it. */
aclnnStatus aclDestroyTensorList(const aclTensorList *array);
aclnnStatus aclDestroyIntArray(const aclIntArray *array);

#ifdef __cplusplus
}
#endif
#endif
