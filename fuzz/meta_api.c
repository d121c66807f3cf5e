/* api (metamorphic): the same call written through another interface
 * (transform "api=<name>", docs/case-format.md "Interfaces"): the case is
 * moved to the interface's names and defaults (fia_case_set_api), printed
 * and read back.  The translation must keep the call, so the form read
 * back is fia_case_equal to the first and fast/ gives identical outputs;
 * a table that maps a name to the wrong slot, or a default that does not
 * match, gives another call and shows as differing outputs.  A case the
 * interface cannot express (a parameter it lacks) does not apply. */
#include <stdlib.h>
#include <string.h>
#include "fuzz/fuzz_internal.h"

fia_status fz_meta_api(const fia_case *c, const fz_geom *g, const char *arg,
                       fia_case *out, fia_error *err)
{
    (void)g;
    int a = fia_api_from_name(arg);
    if (a < 0)
        return fia_fail(err, FIA_ERR_BAD_INPUT, "api=%.40s: no such interface",
                        arg);
    fia_case moved;
    fia_case_init(&moved);
    if (fia_case_copy(&moved, c) != FIA_OK)
        return fia_fail(err, FIA_ERR_NOMEM, "no memory to copy the case");
    char why[256];
    if (fia_case_set_api(&moved, (fia_api)a, why, sizeof why) != FIA_OK) {
        fia_case_free(&moved);
        return fia_fail(err, FIA_ERR_BAD_INPUT, "%s", why);
    }
    char *text = fia_case_to_string(&moved);
    fia_case_free(&moved);
    if (text == NULL)
        return fia_fail(err, FIA_ERR_NOMEM, "no memory to print the case");
    fia_case back;
    fia_error perr;
    fia_status st = fia_case_parse_string(text, c->name, &back, &perr);
    free(text);
    if (st != FIA_OK)   /* an expressible case printed so that it does not
                           read back: the tables' bug, told in the message */
        return fia_fail(err, st, "api=%s: the printed case does not read "
                        "back: line %d: %.200s", arg, perr.line, perr.msg);
    fia_case_free(out);
    *out = back;
    return FIA_OK;
}
