/* `fiacheck export`: a case directory a device user loads (docs/export.md).
 * The pieces, one file each: the NPY writer (export_npy.c), call.json
 * (export_call.c), the embedded device scripts (export_scripts.c). */
#ifndef FIA_CLI_EXPORT_H
#define FIA_CLI_EXPORT_H

#include <stdio.h>
#include "fia/case.h"
#include "fia/error.h"

/* The interface's name of a dtype ("float16", "bfloat16", ...). */
const char *export_dtype_name(fia_dtype dt);

/* Writes t as an NPY v1.0 file at path: its dtype's NumPy type, bfloat16
 * as the bit patterns (<u2), int4 as the packed bytes (|u1, the last
 * dimension halved; an odd last dimension cannot be, FIA_ERR_BAD_INPUT).
 * FIA_OK, FIA_ERR_IO, FIA_ERR_BAD_INPUT with *err. */
fia_status export_npy_tensor(const char *path, const fia_tensor *t,
                             fia_error *err);
/* An int64 vector as an NPY file (004's device-tensor lengths). */
fia_status export_npy_int64(const char *path, const int64_t *v, int64_t n,
                            fia_error *err);

/* Writes dir/call.json and every input tensor's .npy into dir, for case c
 * (written through c->api) with its materialized data d.  FIA_OK,
 * FIA_ERR_IO, FIA_ERR_BAD_INPUT with *err. */
fia_status export_call(const char *dir, const fia_case *c,
                       const fia_case_data *d, const char *digest,
                       fia_error *err);

/* Writes the device scripts built into fiacheck (device/ at build time)
 * into dir, each through a temporary file renamed into place.  FIA_OK or
 * FIA_ERR_IO with *err. */
fia_status export_scripts(const char *dir, fia_error *err);

#endif
