/* Reading and writing a worker's pipes with a deadline: poll() on
 * non-blocking descriptors, so that a worker that stops reading or stops
 * answering costs at most the timeout, and a broken pipe is an error
 * return, never a SIGPIPE that would kill fiacheck. */
#define _GNU_SOURCE /* pipe2, sigtimedwait */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "exec.h"

double exec_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Waits until fd is ready for ev or the deadline: 1 ready, 0 timeout. */
static int wait_fd(int fd, short ev, double deadline)
{
    for (;;) {
        double left = deadline - exec_now();
        if (left <= 0)
            return 0;
        struct pollfd p = {fd, ev, 0};
        int ms = left > 1e6 ? 1000000000 : (int)(left * 1000.0) + 1;
        int r = poll(&p, 1, ms);
        if (r > 0)
            return 1; /* readable, writable, or hung up: the read or write
                         says which */
        if (r < 0 && errno != EINTR)
            return 1;
    }
}

/* write() with SIGPIPE blocked on this thread; a SIGPIPE it raised is
 * taken back before the mask is restored (the signal is per thread for a
 * pipe write, so nothing else sees it). */
static ssize_t write_nosig(int fd, const void *p, size_t n)
{
    sigset_t pipe_set, old;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    sigset_t pending;
    sigpending(&pending);
    int was_pending = sigismember(&pending, SIGPIPE);
    ssize_t w = write(fd, p, n);
    int e = errno;
    if (w < 0 && e == EPIPE && !was_pending) {
        struct timespec zero = {0, 0};
        while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR)
            ;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = e;
    return w;
}

exec_io exec_write(exec_conn *c, const void *p, size_t n)
{
    const char *s = p;
    while (n > 0) {
        ssize_t w = write_nosig(c->to_fd, s, n > (1u << 20) ? 1u << 20 : n);
        if (w > 0) {
            s += w, n -= (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (!wait_fd(c->to_fd, POLLOUT, c->deadline))
                return EXEC_IO_TIMEOUT;
            continue;
        }
        return EXEC_IO_EOF; /* EPIPE: the worker closed its stdin */
    }
    return EXEC_IO_OK;
}

/* More bytes into buf (which must have room): OK, EOF or TIMEOUT. */
static exec_io fill(exec_conn *c)
{
    if (c->beg > 0 && c->beg == c->end)
        c->beg = c->end = 0;
    for (;;) {
        ssize_t r = read(c->from_fd, c->buf + c->end, sizeof c->buf - c->end);
        if (r > 0) {
            c->end += (size_t)r;
            return EXEC_IO_OK;
        }
        if (r == 0)
            return EXEC_IO_EOF;
        if (errno == EINTR)
            continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK)
            return EXEC_IO_EOF;
        if (!wait_fd(c->from_fd, POLLIN, c->deadline))
            return EXEC_IO_TIMEOUT;
    }
}

exec_io exec_read_line(exec_conn *c, char *line, size_t cap)
{
    size_t len = 0;
    for (;;) {
        char *nl = memchr(c->buf + c->beg, '\n', c->end - c->beg);
        size_t take = nl ? (size_t)(nl - (c->buf + c->beg)) : c->end - c->beg;
        size_t room = cap - 1 - len;
        memcpy(line + len, c->buf + c->beg, take < room ? take : room);
        len += take < room ? take : room;
        line[len] = '\0';
        if (take > room)
            return EXEC_IO_LIE; /* longer than any line the protocol has */
        c->beg += take + (nl != NULL);
        if (nl != NULL)
            return EXEC_IO_OK;
        c->beg = c->end = 0;
        exec_io r = fill(c);
        if (r != EXEC_IO_OK)
            return r;
    }
}

exec_io exec_read_bytes(exec_conn *c, void *p, size_t n)
{
    char *d = p;
    while (n > 0) {
        if (c->beg == c->end) {
            /* a large block straight into its buffer */
            if (n >= sizeof c->buf) {
                ssize_t r = read(c->from_fd, d, n);
                if (r > 0) {
                    d += r, n -= (size_t)r;
                    continue;
                }
                if (r == 0)
                    return EXEC_IO_EOF;
                if (errno == EINTR)
                    continue;
                if (errno != EAGAIN && errno != EWOULDBLOCK)
                    return EXEC_IO_EOF;
                if (!wait_fd(c->from_fd, POLLIN, c->deadline))
                    return EXEC_IO_TIMEOUT;
                continue;
            }
            c->beg = c->end = 0;
            exec_io r = fill(c);
            if (r != EXEC_IO_OK)
                return r;
        }
        size_t have = c->end - c->beg, take = have < n ? have : n;
        memcpy(d, c->buf + c->beg, take);
        c->beg += take, d += take, n -= take;
    }
    return EXEC_IO_OK;
}
