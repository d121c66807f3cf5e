/* ref/ reading, feature "gqa": num_heads N and num_key_value_heads KV_N
 * (0 means KV_N = N).  N must be a multiple of KV_N; the query heads form
 * KV_N groups of group = N / KV_N consecutive heads, group kn reading KV
 * head kn: query head n reads KV head floor(n / group). */
#include "ref_internal.h"

fia_status ref_read_gqa(ref_problem *p, const fia_case *c,
                        const fia_case_data *d, fia_error *err)
{
    (void)d;
    p->N = c->attrs.num_heads;
    p->KV_N = c->attrs.num_key_value_heads == 0 ? p->N
                                                 : c->attrs.num_key_value_heads;
    if (p->N <= 0 || p->KV_N <= 0 || p->N % p->KV_N != 0)
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "num_heads %lld / num_key_value_heads %lld: need N > "
                        "0 and N a multiple of KV_N",
                        (long long)c->attrs.num_heads,
                        (long long)c->attrs.num_key_value_heads);
    p->group = p->N / p->KV_N;
    return FIA_OK;
}

int64_t ref_kv_head(const ref_problem *p, int64_t n)
{
    return n / p->group;
}
