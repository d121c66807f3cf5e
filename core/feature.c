/* Names of the features (include/fia/feature.h). */
#include <string.h>
#include "fia/feature.h"

static const char *const names[] = {
#define NAME(id, name, what) name,
    FIA_FEATURE_LIST(NAME)
#undef NAME
};

static const char *const summaries[] = {
#define WHAT(id, name, what) what,
    FIA_FEATURE_LIST(WHAT)
#undef WHAT
};

const char *fia_feature_name(fia_feature f)
{
    return (unsigned)f < FIA_FEATURE_COUNT ? names[f] : NULL;
}

const char *fia_feature_summary(fia_feature f)
{
    return (unsigned)f < FIA_FEATURE_COUNT ? summaries[f] : NULL;
}

int fia_feature_from_name(const char *name)
{
    if (name == NULL)
        return -1;
    for (int i = 0; i < FIA_FEATURE_COUNT; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}
