/* ref/ reading, feature "scale": the factor of q.k in every score,
 * s_j = scale * sum_d q[d] k[j][d], taken as the binary64 value given. */
#include "ref_internal.h"

fia_status ref_read_scale(ref_problem *p, const fia_case *c,
                          const fia_case_data *d, fia_error *err)
{
    (void)d, (void)err;
    p->scale = c->attrs.scale;
    return FIA_OK;
}
