/* fiacheck's side of the system-under-test ABI (fia/sut.h): the built-in
 * system (fast/), loading a plug-in, and which system the harness calls.
 * The harness calls the current system (fia_sut_current); `--sut PATH`
 * and the fuzz targets' FIACHECK_SUT make a plug-in current. */
#ifndef FIA_SUT_HOST_H
#define FIA_SUT_HOST_H

#include "fia/error.h"
#include "fia/sut.h"

/* fast/, compiled in (sut/sut_fast.c).  Its version is the build's
 * revision once the program has said it (fia_sut_builtin_set_version). */
const fia_sut *fia_sut_builtin(void);
void fia_sut_builtin_set_version(const char *version);

/* Loads the plug-in at path (a path with a '/', or a name the dynamic
 * loader searches for) and checks its table: the entry point, the ABI's
 * major version, every required function, a name and a version.  The
 * library stays loaded for the life of the process.  FIA_OK, or
 * FIA_ERR_BAD_INPUT with what is wrong (naming the file). */
fia_status fia_sut_load(const char *path, const fia_sut **out,
                        fia_error *err);

/* The system the harness calls: fast/ until fia_sut_use names another. */
const fia_sut *fia_sut_current(void);
/* Makes s current (NULL: the built-in again); path is where it was loaded
 * from ("" or NULL for the built-in), kept for fia_sut_current_path. */
void fia_sut_use(const fia_sut *s, const char *path);
/* The current system's plug-in path, "" for the built-in. */
const char *fia_sut_current_path(void);
/* 1 when the current system is fast/ compiled in. */
int fia_sut_current_is_builtin(void);

/* Loads and uses the plug-in FIACHECK_SUT names; FIA_OK (nothing done)
 * when it is unset or empty. */
fia_status fia_sut_use_env(fia_error *err);

#endif
