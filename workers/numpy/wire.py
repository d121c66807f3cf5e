"""The exec: protocol's framing (docs/sut/exec.md): reading one request
from fiacheck, writing one answer.  Nothing here knows what the operator
computes."""

from dtypes import storage_bytes


class ProtocolError(Exception):
    """fiacheck sent something the protocol does not allow."""


class Tensor:
    def __init__(self, name, dtype, shape, raw):
        self.name, self.dtype, self.shape, self.raw = name, dtype, shape, raw


class Request:
    def __init__(self, phase):
        self.phase = phase          # "check" or "compute"
        self.attrs = {}             # name -> the value's text
        self.arrays = {}            # name -> list of ints
        self.tensors = {}           # name -> Tensor (key.0, key.1, ... for lists)
        self.outputs = []           # [(name, dtype, shape)] in the request's order


def _line(stream):
    raw = stream.readline()
    if not raw:
        return None
    if not raw.endswith(b"\n"):
        raise ProtocolError("a line without its end")
    return raw[:-1].decode("utf-8")


def _dims(words, at):
    ndim = int(words[at])
    if ndim < 0 or len(words) < at + 1 + ndim:
        raise ProtocolError("a shape of rank %d with %d dims" % (ndim, len(words) - at - 1))
    return [int(w) for w in words[at + 1:at + 1 + ndim]], at + 1 + ndim


def read_request(stream):
    """The next request, or None at `quit` or end of input."""
    first = _line(stream)
    if first is None or first == "quit":
        return None
    words = first.split(" ")
    if len(words) != 2 or words[0] != "call" or words[1] not in ("check", "compute"):
        raise ProtocolError("expected 'call PHASE', got %r" % first)
    req = Request(words[1])
    while True:
        line = _line(stream)
        if line is None:
            raise ProtocolError("end of input inside a call")
        if line == "end":
            return req
        words = line.split(" ")
        kind = words[0]
        if kind == "attr" and len(words) >= 3:
            req.attrs[words[1]] = " ".join(words[2:])
        elif kind == "array" and len(words) >= 3:
            n = int(words[2])
            if len(words) != 3 + n:
                raise ProtocolError("array %s: %d values announced, %d given"
                                    % (words[1], n, len(words) - 3))
            req.arrays[words[1]] = [int(w) for w in words[3:]]
        elif kind == "tensor" and len(words) >= 4:
            shape, at = _dims(words, 3)
            if len(words) != at + 1:
                raise ProtocolError("tensor line %r" % line)
            nbytes = int(words[at])
            raw = stream.read(nbytes) if nbytes else b""
            if len(raw) != nbytes:
                raise ProtocolError("tensor %s: %d bytes announced, %d read"
                                    % (words[1], nbytes, len(raw)))
            if nbytes and nbytes != storage_bytes(words[2], shape):
                raise ProtocolError("tensor %s: %d bytes for %s %s"
                                    % (words[1], nbytes, words[2], shape))
            req.tensors[words[1]] = Tensor(words[1], words[2], shape, raw)
        elif kind == "output" and len(words) >= 4:
            shape, at = _dims(words, 3)
            req.outputs.append((words[1], words[2], shape))
        else:
            raise ProtocolError("unexpected line %r" % line)


def _message(text):
    return " ".join(str(text).split())     # one line, single spaces


def write_status(stream, code, message=""):
    text = _message(message)
    line = "status %d %s\n" % (code, text) if text else "status %d\n" % code
    stream.write(line.encode("utf-8"))
    stream.write(b"end\n")
    stream.flush()


def write_outputs(stream, blobs):
    """An accepted compute: blobs is [(name, bytes)] in the request's order."""
    stream.write(b"status 0\n")
    for name, data in blobs:
        stream.write(("tensor %s %d\n" % (name, len(data))).encode("utf-8"))
        stream.write(data)
    stream.write(b"end\n")
    stream.flush()


def write_hello(stream, validates, name, version):
    stream.write(("fiacheck-worker 1 %s %s %s\n" % (validates, name, version)).encode("utf-8"))
    stream.flush()
