"""TorchAir's npu_fused_infer_attention_score_v2 (004) for every case of
torchair_v2 that `fiacheck export` wrote: python3 run_torchair_v2.py DIR (or
--case DIR).  Each case's out/ holds what came back (docs/export.md).

004 supports graph mode only ("不支持Eager模式"), in max-autotune mode: the
call is the forward of a module compiled by torch.compile with TorchAir's
NPU backend, as 004's example does; its sequence lengths
(actual_seq_lengths, actual_seq_lengths_kv, actual_shared_prefix_len) are
int64 device tensors, which call.json names as tensors."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402
import torch_npu  # noqa: F401,E402  (registers the NPU device)
import torchair  # noqa: E402
from torchair.configs.compiler_config import CompilerConfig  # noqa: E402
import fiacheck_cases as fc  # noqa: E402
from run_torch_npu_v2 import make_tensor, to_numpy  # noqa: E402


def backend():
    config = CompilerConfig()
    config.mode = "max-autotune"
    return torchair.get_npu_backend(compiler_config=config)


class Call(torch.nn.Module):
    """One case's call as a graph: the arguments are fixed, as in 004's
    example, so the graph is compiled for this case's shapes."""

    def __init__(self, args, kwargs):
        super().__init__()
        self.args, self.kwargs = args, kwargs

    def forward(self):
        return torchair.ops.npu_fused_infer_attention_score_v2(
            *self.args, **self.kwargs)


def call(args, kwargs):
    if hasattr(torch, "_dynamo"):
        torch._dynamo.reset()   # a graph per case: no recompile limit
    model = torch.compile(Call(args, kwargs), backend=backend(),
                          dynamic=False, fullgraph=True)
    with torch.no_grad():
        out = model()
    torch.npu.synchronize()
    return out


if __name__ == "__main__":
    sys.exit(fc.run_cases("torchair_v2", call, to_numpy, make_tensor,
                          {"system": "torchair",
                           "version": getattr(torchair, "__version__", None)}))
