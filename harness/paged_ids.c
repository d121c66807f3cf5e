/* Page attention's block ids: device data the operator does not validate
 * (002 page attention场景: "当前不会对blockid的合法性进行校验，需用户自行
 * 保证").  A call whose table sends a key outside the cache has no
 * specified result: any status and any output but a crash (an
 * implementation that reads outside the cache is caught by the sanitizers
 * and the fuzzers' crash findings, not here).  The check reads the table
 * the way the documents define it, needing no feature arithmetic: batch b
 * reads entries m < ceil(kv_len_b / block_size) of its row. */
#include <stdio.h>
#include "fia/check.h"

int fia_check_paged_ids_unspecified(const fia_case *c, const fia_case_data *d,
                                    char *why, size_t n)
{
    const fia_tensor *bt = fia_case_data_tensor(d, FIA_SLOT_BLOCK_TABLE);
    const fia_tensor *k = fia_case_data_tensor(d, FIA_SLOT_KEY);
    const fia_int_array_spec *len = &c->arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS_KV];
    const int64_t bs = c->attrs.block_size;
    if (bt == NULL || k == NULL || bt->data == NULL || bt->ndim != 2 ||
        bt->dtype != FIA_DT_INT32 || k->ndim < 1 || bs <= 0 ||
        len->presence != FIA_PRESENT || len->count < 1 || len->values == NULL)
        return 0; /* not a paged call the rules accept */
    const int32_t *ids = bt->data;
    const int64_t rows = bt->shape[0], cols = bt->shape[1];
    for (int64_t b = 0; b < rows; b++) {
        int64_t l = len->values[len->count == 1 ? 0 : b < len->count ? b : 0];
        int64_t nb = l > 0 ? l / bs + (l % bs != 0) : 0;
        for (int64_t m = 0; m < nb && m < cols; m++) {
            int32_t id = ids[b * cols + m];
            if (id < 0 || id >= k->shape[0]) {
                snprintf(why, n, "block_table[%lld][%lld] = %d lies outside "
                         "the cache's %lld blocks: the operator does not "
                         "validate block ids (002), the result is "
                         "unspecified", (long long)b, (long long)m, (int)id,
                         (long long)k->shape[0]);
                return 1;
            }
        }
    }
    return 0;
}
