/* `fiacheck judge`: what a device's script wrote back for each exported
 * case (docs/export.md "out/"), read strictly, and the system under test
 * that replays it to the harness (fia_check_case judges it as `run`
 * judges a live system). */
#ifndef FIA_CLI_JUDGE_H
#define FIA_CLI_JUDGE_H

#include <stddef.h>
#include <stdint.h>
#include "fia/error.h"
#include "fia/sut.h"

/* One .npy file (NumPy format 1.0-3.0), read whole (npy_read.c). */
typedef struct cli_npy {
    char descr[16];             /* as written: "<f2", "|i1", ... */
    int itemsize;
    int ndim;
    int64_t shape[FIA_MAX_RANK];
    void *data;                 /* row-major, nbytes */
    size_t nbytes;
} cli_npy;

/* Reads path: FIA_OK, or FIA_ERR_BAD_INPUT / FIA_ERR_IO / FIA_ERR_NOMEM
 * naming the file and what is wrong (not an npy, a header it cannot
 * read, Fortran order, big-endian, data shorter or longer than the
 * shape says). */
fia_status cli_npy_read(const char *path, cli_npy *out, fia_error *err);
void cli_npy_free(cli_npy *n);
/* The descr an output of dtype dt is written with (docs/export.md:
 * bfloat16's bit patterns as "<u2"), NULL for a dtype no output has. */
const char *cli_npy_descr_of(fia_dtype dt);

/* A rejection whose status the device's words do not carry.  No status
 * any system returns (those are positive): it equals no expected status,
 * so such a rejection is never judged as agreeing with any rule. */
#define CLI_JUDGE_UNKNOWN_CODE (-1)

/* What the device answered for one case (judge_answer.c). */
typedef struct cli_device_answer {
    int accepted;               /* status "ok" */
    fia_status code;            /* rejected: the status, or
                                   CLI_JUDGE_UNKNOWN_CODE */
    int code_from_message;      /* the code was read from the message */
    char message[400];
    char system[65], version[129]; /* "" when status.json names none */
    int has_out, has_lse;
    cli_npy out, lse;           /* accepted: attention_out, softmax_lse */
    char dir[1024];             /* the case directory, for messages */
} cli_device_answer;

/* Reads CASE_DIR/out/ (status.json; when accepted attention_out.npy and,
 * if written, softmax_lse.npy).  FIA_OK, or FIA_ERR_BAD_INPUT (a missing
 * or malformed file, named, with what is wrong), FIA_ERR_IO, NOMEM. */
fia_status cli_device_answer_read(const char *case_dir, cli_device_answer *a,
                                  fia_error *err);
void cli_device_answer_free(cli_device_answer *a);

/* The replaying system under test (replay_sut.c): phase one returns the
 * recorded status, phase two checks the recorded outputs' dtype and shape
 * against the call's and copies them into its output buffers.  It
 * validates (FIA_SUT_CHECKS_STATUS): the device's operator does. */
const fia_sut *cli_replay_sut(const char *name, const char *version);
/* The answer the next call replays (not copied; NULL: none). */
void cli_replay_set(const cli_device_answer *a);
/* Why phase two refused the recorded outputs since the last
 * cli_replay_set ("" when it did not): the case's error, not the
 * device's. */
const char *cli_replay_output_error(void);

#endif
