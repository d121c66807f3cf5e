"""torch_npu.npu_incre_flash_attention (001) for every case of
incre_flash_attention that `fiacheck export` wrote:
python3 run_incre_flash_attention.py DIR (or --case DIR).  Each case's out/
holds what came back (docs/export.md).  001 returns attention_out alone."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402
import torch_npu  # noqa: E402
import fiacheck_cases as fc  # noqa: E402
# the tensors are torch_npu's as for 003
from run_torch_npu_v2 import make_tensor, to_numpy  # noqa: E402


def call(args, kwargs):
    out = torch_npu.npu_incre_flash_attention(*args, **kwargs)
    torch.npu.synchronize()
    return out


if __name__ == "__main__":
    sys.exit(fc.run_cases("incre_flash_attention", call, to_numpy,
                          make_tensor,
                          {"system": "torch_npu",
                           "version": getattr(torch_npu, "__version__", None)}))
