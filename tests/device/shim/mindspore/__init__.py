"""A test stand-in of MindSpore: a numpy-backed Tensor (bfloat16 held as
tagged uint16 bit patterns), its dtypes, set_context / set_device, and
ops.fused_infer_attention_score with 000's signature checked, computed by
the aclnn stand-in (fia_shim_common).  Tests only."""
import numpy as np

__version__ = "0.0+fiacheck.shim"


class _DType:
    def __init__(self, name, np_type):
        self.name, self.np_type = name, np_type

    def __repr__(self):
        return self.name


float16 = _DType("float16", np.float16)
bfloat16 = _DType("bfloat16", np.uint16)
float32 = _DType("float32", np.float32)
int8 = _DType("int8", np.int8)
uint8 = _DType("uint8", np.uint8)
int32 = _DType("int32", np.int32)
int64 = _DType("int64", np.int64)
uint64 = _DType("uint64", np.uint64)
bool_ = _DType("bool", np.bool_)
_BY_NP = {d.np_type: d for d in (float16, float32, int8, uint8, int32,
                                 int64, uint64, bool_)}


def _to_bf16_bits(values):
    f = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32)
    # round to nearest even, as a float32 -> bfloat16 cast does
    return ((f + 0x7FFF + ((f >> 16) & 1)) >> 16).astype(np.uint16)


class Tensor:
    def __init__(self, input_data, dtype=None):
        arr = np.asarray(input_data)
        if dtype is bfloat16:
            self._bits, self.dtype = _to_bf16_bits(arr), bfloat16
        elif dtype is None:
            self._bits, self.dtype = arr, _BY_NP[arr.dtype.type]
        elif isinstance(dtype, _DType):
            self._bits, self.dtype = arr.astype(dtype.np_type), dtype
        else:
            raise TypeError("Tensor: dtype must be a mindspore dtype")

    @property
    def shape(self):
        return tuple(self._bits.shape)

    def astype(self, dtype):
        if self.dtype is bfloat16:
            values = (self._bits.astype(np.uint32) << 16).view(np.float32)
        else:
            values = self._bits
        return Tensor(values, dtype)

    def asnumpy(self):
        if self.dtype is bfloat16:
            raise TypeError("asnumpy: NumPy has no bfloat16")
        return self._bits.copy()

    @classmethod
    def _from_standin(cls, arr, dtype_name):
        t = cls.__new__(cls)
        t._bits = arr
        t.dtype = bfloat16 if dtype_name == "bfloat16" else _BY_NP[arr.dtype.type]
        return t

    def _standin(self):
        return self._bits, self.dtype.name


_context = {}


def set_context(**kwargs):
    _context.update(kwargs)


def set_device(device_target, device_id=None):
    _context["device_target"] = device_target


from . import ops  # noqa: E402,F401
