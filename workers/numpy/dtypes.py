"""Element types of the wire (docs/sut/exec.md "Framing"): decoding input
bytes to float64 / int64 arrays, and rounding exact float64 results once to
the output's dtype.

The rounding is done here from the float64 bits rather than through a
float32 intermediate, because rounding twice (float64 -> float32 -> bf16)
can land on the wrong neighbour at a near-tie."""

import numpy as np

# bytes per element; int4 is handled apart (two per byte)
ELEMENT_BYTES = {
    "fp16": 2, "bf16": 2, "fp32": 4, "int8": 1, "uint8": 1, "bool": 1,
    "int32": 4, "int64": 8, "uint64": 8,
}

_NUMPY_TYPE = {
    "fp16": "<f2", "fp32": "<f4", "int8": "i1", "uint8": "u1", "bool": "u1",
    "int32": "<i4", "int64": "<i8", "uint64": "<u8",
}


def element_count(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def storage_bytes(dtype, shape):
    n = element_count(shape)
    if dtype == "int4":
        return (n + 1) // 2
    if dtype not in ELEMENT_BYTES:
        raise ValueError("unknown dtype %r" % dtype)
    return n * ELEMENT_BYTES[dtype]


def decode(dtype, shape, raw):
    """The tensor's elements as a numpy array of `shape`: float64 for the
    float dtypes, int64 for the integer ones (int4 sign-extended)."""
    n = element_count(shape)
    if dtype == "int4":
        b = np.frombuffer(raw, dtype=np.uint8)
        nib = np.empty(b.size * 2, dtype=np.int64)
        nib[0::2] = b & 0x0F
        nib[1::2] = b >> 4
        nib = nib[:n]
        nib = np.where(nib >= 8, nib - 16, nib)
        return nib.reshape(shape)
    if dtype == "bf16":
        bits = np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16
        return bits.view(np.float32).astype(np.float64).reshape(shape)
    a = np.frombuffer(raw, dtype=_NUMPY_TYPE[dtype])
    if dtype in ("fp16", "fp32"):
        return a.astype(np.float64).reshape(shape)
    return a.astype(np.int64).reshape(shape)


def round_binary(x, significand_bits, emin, emax):
    """x (float64) rounded to nearest, ties to even, to a binary format of
    `significand_bits` bits (the hidden one included), normal exponents
    emin..emax, gradual underflow below 2**emin and overflow to +-inf.
    The result is float64 holding exactly the format's value."""
    x = np.asarray(x, dtype=np.float64)
    out = x.copy()
    finite = np.isfinite(x) & (x != 0)
    xf = x[finite]
    _, e = np.frexp(xf)              # xf = m * 2**e, 0.5 <= |m| < 1
    e = np.maximum(e - 1, emin)      # the binade's exponent, floored at the subnormals'
    quantum = np.ldexp(1.0, e - (significand_bits - 1))
    r = np.rint(xf / quantum) * quantum     # exact scaling; rint is ties-to-even
    largest = (2.0 - 2.0 ** (1 - significand_bits)) * 2.0 ** emax
    r = np.where(np.abs(r) > largest, np.copysign(np.inf, xf), r)
    out[finite] = r
    return out


def encode(dtype, values):
    """Bytes of `values` (float64, exact results) in `dtype`, rounded once."""
    v = np.asarray(values, dtype=np.float64).ravel()
    if dtype == "fp16":
        r = round_binary(v, 11, -14, 15)
        return r.astype("<f2").tobytes()      # exact: r is an fp16 value
    if dtype == "bf16":
        r = round_binary(v, 8, -126, 127)
        bits = (r.astype(np.float32).view(np.uint32) >> 16).astype("<u2")
        bits = np.where(np.isnan(v), np.uint16(0x7FC0), bits).astype("<u2")
        return bits.tobytes()
    if dtype == "fp32":
        return v.astype("<f4").tobytes()      # IEEE conversion: nearest-even
    if dtype == "int8":
        r = np.rint(np.where(np.isnan(v), 0.0, v))
        return np.clip(r, -128, 127).astype("i1").tobytes()
    raise ValueError("output dtype %s is not one this worker writes" % dtype)
