/* fast/ as a plug-in (libfiacheck_sut_fast.so): the table the harness
 * uses for its built-in system, exported through the plug-in ABI, so that
 * `--sut` and the loader are tested on the real kernel. */
#include "fia/sut_host.h"
#include "fia_build_revision.h"

__attribute__((visibility("default"))) const fia_sut *fiacheck_sut_v1(void);

const fia_sut *fiacheck_sut_v1(void)
{
    fia_sut_builtin_set_version(FIA_BUILD_REVISION);
    return fia_sut_builtin();
}
