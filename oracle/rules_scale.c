/* Rules: the scale attribute. */
#include <math.h>
#include "oracle_internal.h"

ORC_PRED(scale_any, 1,
         !isfinite(f->c->attrs.scale) || f->c->attrs.scale <= 0)

const fia_rule orc_rules_scale[] = {
    {"SCALE-N01", "scale", FIA_RULE_NORMALIZE, ORC_NORM,
     CREL("Silent normalisations") "; " C002_P("scaleValue"),
     "scale is never validated: 0, negative, infinite or NaN values are "
     "accepted and used as given",
     "the documents describe scale as 1/sqrt(d) and give no range; the "
     "released code checks nothing",
     ORC_FN(scale_any)},
};
const size_t orc_rules_scale_count =
    sizeof orc_rules_scale / sizeof orc_rules_scale[0];
