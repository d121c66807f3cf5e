"""A worker that misbehaves once, as told, and is honest otherwise.

    misbehave.py MODE STATE NAME -- WORKER...

It serves the exec: protocol (docs/sut/exec.md) by passing every call to
a real worker (WORKER..., typically fiacheck-plugin-worker over fast/) and
its answer back, hello included but under the name NAME.  At the first
compute call of the whole test (STATE is a file that records it was done,
so that the workers fiacheck starts afterwards are honest), it does MODE
instead: hang, segv, exit0, badbytes (an answer with a wrong byte count),
garbage (a line that is no answer).  MODE `always-segv` crashes at every
compute call, for campaigns and minimizing; `badhello` says something else first;
`refuse` is a numbers worker that covers nothing.
Standard library only: run it with /usr/bin/python3.
"""
import os
import signal
import subprocess
import sys
import time


def read_line(f):
    line = f.readline()
    if not line:
        sys.exit(0)  # fiacheck closed our stdin: stop
    return line


def pass_message(src, dst, first, until):
    """Copies one message from src to dst: lines up to `until`, with the
    raw bytes a tensor line announces."""
    line = first
    while True:
        dst.write(line)
        words = line.split()
        if words and words[0] == b"tensor":
            n = int(words[-1])
            dst.write(src.read(n))
        if line.rstrip(b"\n") == until:
            break
        line = read_line(src)
    dst.flush()


def misbehave(mode, out):
    if mode == "hang":
        time.sleep(3600)
    elif mode in ("segv", "always-segv"):
        os.kill(os.getpid(), signal.SIGSEGV)
    elif mode == "exit0":
        sys.exit(0)
    elif mode == "badbytes":
        out.write(b"status 0\ntensor attention_out 12\n" + bytes(12) + b"end\n")
    elif mode == "garbage":
        out.write(b"hello from the worker\n")
    out.flush()


def main():
    mode, state, name = sys.argv[1], sys.argv[2], sys.argv[3]
    worker = sys.argv[sys.argv.index("--") + 1:]
    out, inp = sys.stdout.buffer, sys.stdin.buffer
    if mode == "badhello":
        out.write(b"hi, I am a worker\n")
        out.flush()
        time.sleep(5)
        return
    if mode == "refuse":
        out.write(b"fiacheck-worker 1 numbers " + name.encode() + b" 1.0\n")
        out.flush()
        while True:
            line = read_line(inp)
            if line.strip() == b"quit":
                return
            while line.strip() != b"end":
                words = line.split()
                if words and words[0] == b"tensor":
                    inp.read(int(words[-1]))
                line = read_line(inp)
            out.write(b"status 990001 this worker covers nothing\nend\n")
            out.flush()
    child = subprocess.Popen(worker, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE)
    hello = child.stdout.readline().split(b" ", 4)
    out.write(b" ".join(hello[:3] + [name.encode(), b"1.0\n"]))
    out.flush()
    computes = 0
    while True:
        line = read_line(inp)
        if line.strip() == b"quit":
            child.stdin.write(line)
            child.stdin.flush()
            child.wait()
            return
        compute = line.strip() == b"call compute"
        computes += compute
        if compute and (mode == "always-segv" or
                        (mode != "always-segv" and not os.path.exists(state))):
            open(state, "w").close()
            misbehave(mode, out)
        pass_message(inp, child.stdin, line, b"end")
        pass_message(child.stdout, out, read_line(child.stdout), b"end")


main()
