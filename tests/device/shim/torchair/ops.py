"""torchair.ops of the stand-in (see torchair/__init__.py)."""


def npu_fused_infer_attention_score_v2(*args, **kwargs):
    from torchair import fused_v2
    return fused_v2(*args, **kwargs)
