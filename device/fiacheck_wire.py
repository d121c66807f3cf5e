"""fiacheck's worker protocol (docs/sut/exec.md) from the worker's side:
the hello, one request read into NumPy arrays, one answer written.  It knows
the framing and the element layouts, nothing of the operator.

A request's tensors become arrays in the form `fiacheck export` writes its
.npy files in (docs/export.md): bfloat16 as its bit patterns (uint16), int4
two to a byte (uint8, the last dimension halved), so that the device scripts'
make_tensor functions take them as they take an exported case's.
"""
import numpy as np

# the protocol's dtype -> (export's dtype name, the array's NumPy type, bits)
DTYPES = {
    "fp16": ("float16", np.float16, 16), "bf16": ("bfloat16", np.uint16, 16),
    "fp32": ("float32", np.float32, 32), "int8": ("int8", np.int8, 8),
    "uint8": ("uint8", np.uint8, 8), "bool": ("bool", np.bool_, 8),
    "int4": ("int4", np.uint8, 4), "int32": ("int32", np.int32, 32),
    "int64": ("int64", np.int64, 64), "uint64": ("uint64", np.uint64, 64),
}


class ProtocolError(Exception):
    """fiacheck sent what the protocol does not allow."""


class Request:
    """One call: phase "check" or "compute"; attrs name -> text; arrays
    name -> [int]; tensors name -> (dtype, shape, bytes or None when the
    request carried no data); outputs [(name, dtype, shape)] in order."""

    def __init__(self, phase):
        self.phase = phase
        self.attrs, self.arrays, self.tensors = {}, {}, {}
        self.outputs = []


def storage(dtype, shape):
    """Bytes of a tensor of dtype and shape."""
    n = 1
    for d in shape:
        n *= d
    return (n * DTYPES[dtype][2] + 7) // 8


def to_array(dtype, shape, raw):
    """The tensor as an array in export's .npy form; zeros when raw is None
    (a check carries no data: the status does not depend on it)."""
    _, np_type, bits = DTYPES[dtype]
    npshape = list(shape)
    if bits == 4 and npshape:
        npshape[-1] = (npshape[-1] + 1) // 2
    if bits == 4 and int(np.prod(npshape)) != storage(dtype, shape):
        npshape = [storage(dtype, shape)]  # odd rows share bytes: flat
    if raw is None or len(raw) == 0:
        return np.zeros(npshape, dtype=np_type)
    return np.frombuffer(raw, dtype=np_type).reshape(npshape).copy()


def _line(stream):
    raw = stream.readline()
    if not raw:
        return None
    if not raw.endswith(b"\n"):
        raise ProtocolError("a line cut short by the end of input")
    return raw[:-1].decode("utf-8")


def _shape(words, at, line):
    try:
        ndim = int(words[at])
        dims = [int(w) for w in words[at + 1:at + 1 + ndim]]
    except (ValueError, IndexError):
        raise ProtocolError("a malformed shape in %r" % line)
    if ndim < 0 or len(dims) != ndim or any(d < 0 for d in dims):
        raise ProtocolError("a malformed shape in %r" % line)
    return dims, at + 1 + ndim


def _tensor(req, words, line, stream):
    if len(words) < 4 or words[2] not in DTYPES:
        raise ProtocolError("a malformed tensor line %r" % line)
    shape, at = _shape(words, 3, line)
    if len(words) != at + 1 or not words[at].isdigit():
        raise ProtocolError("a malformed tensor line %r" % line)
    nbytes = int(words[at])
    if nbytes not in (0, storage(words[2], shape)):
        raise ProtocolError("tensor %s: %d bytes for %s %s"
                            % (words[1], nbytes, words[2], shape))
    raw = stream.read(nbytes) if nbytes else None
    if nbytes and (raw is None or len(raw) != nbytes):
        raise ProtocolError("tensor %s: the end of input inside its bytes"
                            % words[1])
    req.tensors[words[1]] = (words[2], shape, raw)


def read_request(stream):
    """The next request, or None at `quit` or the end of input (both mean
    stop)."""
    first = _line(stream)
    if first is None or first == "quit":
        return None
    words = first.split(" ")
    if len(words) != 2 or words[0] != "call" or \
            words[1] not in ("check", "compute"):
        raise ProtocolError("expected 'call check|compute', got %r" % first)
    req = Request(words[1])
    while True:
        line = _line(stream)
        if line is None:
            raise ProtocolError("the end of input inside a call")
        if line == "end":
            return req
        words = line.split(" ")
        if words[0] == "attr" and len(words) >= 3:
            req.attrs[words[1]] = " ".join(words[2:])
        elif words[0] == "array" and len(words) >= 3:
            try:
                values = [int(w) for w in words[3:]]
                ok = int(words[2]) == len(values)
            except ValueError:
                ok = False
            if not ok:
                raise ProtocolError("a malformed array line %r" % line)
            req.arrays[words[1]] = values
        elif words[0] == "tensor":
            _tensor(req, words, line, stream)
        elif words[0] == "output" and len(words) >= 4 and \
                words[2] in DTYPES:
            shape, at = _shape(words, 3, line)
            req.outputs.append((words[1], words[2], shape))
        else:
            raise ProtocolError("an unexpected line %r" % line)


def write_hello(stream, validates, name, version):
    stream.write(("fiacheck-worker 1 %s %s %s\n"
                  % (validates, name, version)).encode("utf-8"))
    stream.flush()


def write_status(stream, code, message=""):
    """A refusal (or a check's answer): the message on one line, cut to
    what an answer's line may hold."""
    text = " ".join(str(message).split())
    line = ("status %d %s" % (code, text)).rstrip().encode("utf-8")[:4000]
    stream.write(line.decode("utf-8", "ignore").encode("utf-8") + b"\nend\n")
    stream.flush()


def write_outputs(stream, blobs):
    """An accepted compute: blobs [(name, bytes)] in the request's order."""
    stream.write(b"status 0\n")
    for name, data in blobs:
        stream.write(("tensor %s %d\n" % (name, len(data))).encode("utf-8"))
        stream.write(data)
    stream.write(b"end\n")
    stream.flush()
