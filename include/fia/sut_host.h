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

/* A system run as a worker process (docs/sut/exec.md): fia_sut_load
 * given "exec:COMMAND" starts `sh -c COMMAND` and returns a table that
 * talks to it.  A worker that dies or breaks the protocol makes the call
 * fail with FIA_ERR_SUT_CRASH, one that does not answer within the
 * timeout with FIA_ERR_SUT_TIMEOUT; the next call starts a new one. */
#define FIA_SUT_EXEC_PREFIX "exec:"
/* Seconds a worker may take for its hello or one answer (> 0; default
 * FIACHECK_SUT_TIMEOUT, else 60).  0, or -1 for a value out of range. */
int fia_sut_exec_set_timeout(double seconds);
/* Parses a timeout as --timeout and FIACHECK_SUT_TIMEOUT take it: a
 * finite number of seconds > 0 (at most a day).  0, or -1. */
int fia_sut_exec_parse_timeout(const char *s, double *out);
/* The seconds a worker may take for one answer now. */
double fia_sut_exec_timeout(void);
/* The worker's command and its process id (0 when none runs now), for
 * describing the system; NULL when the current system is not a worker. */
const char *fia_sut_exec_command(void);
/* Sends quit to the worker, waits for it (at most the timeout) and kills
 * its process group; the next call would start a new one.  Also run at
 * exit. */
void fia_sut_exec_close(void);
/* The harness says before phase one whether phase two will follow on this
 * thread (the table cannot know): a worker then gets the whole call in
 * one exchange instead of `check` and then `compute`.  No effect on other
 * systems. */
void fia_sut_announce_compute(int compute);
/* 1 when this thread's last call was refused by the worker's adapter
 * itself, never sent (FIA_ERR_NOT_MODELED: its tensors are over
 * FIACHECK_EXEC_MAX_BYTES, or a word cannot be said on the wire): not the
 * system's answer, nothing to judge. */
int fia_sut_exec_refused(void);

/* A system called out of process (sut/sut_isolate.c): each call served by
 * fiacheck-plugin-worker, the program beside this one, over the worker
 * protocol, so that a crash, a hang or an exit inside a call is a
 * FIA_ERR_SUT_CRASH / FIA_ERR_SUT_TIMEOUT of that call and the next call
 * starts a new worker.  plugin is the plug-in's path (checked: its table
 * as fia_sut_load checked it in-process), or NULL for fast/ (its plug-in
 * build, plugins/libfiacheck_sut_fast.so beside the program).  *out is the
 * worker's table (fia_sut_load's for "exec:...").  FIA_OK, or
 * FIA_ERR_BAD_INPUT when no worker program or plug-in is there or the
 * worker does not start. */
fia_status fia_sut_isolate(const char *plugin, const fia_sut *checked,
                           const fia_sut **out, fia_error *err);
/* fiacheck-plugin-worker beside the running program, NULL when none. */
const char *fia_sut_worker_program(void);

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
 * when it is unset or empty, or when fia_sut_use already chose a system
 * (a command's --sut, which the fuzz code it runs must not replace). */
fia_status fia_sut_use_env(fia_error *err);

#endif
