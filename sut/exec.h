/* The parts of the worker adapter (sut_exec.c): the pipes to a worker
 * with a deadline (exec_pipe.c) and the protocol's messages
 * (exec_wire.c), docs/sut/exec.md. */
#ifndef FIA_SUT_EXEC_H
#define FIA_SUT_EXEC_H

#include <stddef.h>
#include "fia/error.h"
#include "fia/sut.h"

/* How an exchange with the worker ended. */
typedef enum exec_io {
    EXEC_IO_OK = 0,
    EXEC_IO_EOF,     /* its stdout closed, or its stdin (a broken pipe) */
    EXEC_IO_TIMEOUT, /* the deadline passed */
    EXEC_IO_LIE      /* it answered what the protocol does not allow */
} exec_io;

typedef struct exec_conn {
    int to_fd;       /* the worker's standard input, non-blocking */
    int from_fd;     /* its standard output, non-blocking */
    double deadline; /* exec_now() seconds; every read and write stops then */
    char buf[1 << 16];
    size_t beg, end; /* unread bytes of buf */
} exec_conn;

double exec_now(void);
exec_io exec_write(exec_conn *c, const void *p, size_t n);
/* One line without its '\n' into line[cap] (NUL-terminated); a line that
 * does not fit is a lie (its start kept in line). */
exec_io exec_read_line(exec_conn *c, char *line, size_t cap);
exec_io exec_read_bytes(exec_conn *c, void *p, size_t n);

/* The bytes of every tensor a compute request sends and its outputs
 * receive; -1 when a size cannot be said (a negative or overflowing
 * count). */
double exec_call_bytes(const fia_sut_args *a);
/* Why the call cannot be written on the wire (a layout word with spaces,
 * an unknown dtype), into why[n]; 0 when it can. */
int exec_call_unsayable(const fia_sut_args *a, char *why, size_t n);
/* Sends the request: `call check` (shapes only) or `call compute`. */
exec_io exec_send_call(exec_conn *c, const fia_sut_args *a, int compute);
/* Reads the answer.  *code is the worker's status and msg[n] its message;
 * after a compute with code 0 the outputs' data hold what it returned.
 * On EXEC_IO_LIE, msg says what was wrong, quoting the line. */
exec_io exec_read_answer(exec_conn *c, const fia_sut_args *a, int compute,
                         fia_status *code, char *msg, size_t n);

/* The ABI version the worker's table says it has (default this header's):
 * fia_sut_isolate's worker serves a plug-in of that version, and the
 * harness asks it only what that version can say. */
void fia_sut_exec_set_abi(uint32_t abi_version);
/* How messages name the worker ("exec: the worker" unless told). */
void fia_sut_exec_name_worker(const char *name);
/* The worker takes the run settings between calls (fiacheck-plugin-worker
 * --options): the table gets set_option and get_option, which ask it. */
void fia_sut_exec_take_options(void);

/* fia_sut_load for "exec:COMMAND" (sut_exec.c). */
fia_status fia_sut_exec_load(const char *spec, const fia_sut **out,
                             fia_error *err);

#endif
