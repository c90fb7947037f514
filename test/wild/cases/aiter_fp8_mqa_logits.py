"""aiter Gluon FP8 MQA logits (the DSA indexer's prefill scores, CDNA4), through aiter's
fp8_mqa_logits on its gfx950 Gluon route: 32 FP8 query heads of 128 against an FP8 key
sequence with per-token scales, weighted over heads, causal ranges."""
from _aiter import PROJECT, KIND, launched  # noqa: F401

NAME = "aiter_fp8_mqa_logits"
# The launcher picks the Gluon kernel at import from the device's arch: import the kernel
# module first, name the target, then import the launcher (in launches).
MODULE = "aiter.ops.triton._gluon_kernels.gfx950.attention.fp8_mqa_logits"
TARGET = "gfx950"


def launches(mod):
    import importlib
    import torch
    info = importlib.import_module("aiter.ops.triton.utils._triton.arch_info")
    info.get_arch = lambda: TARGET
    launcher = importlib.import_module("aiter.ops.triton.attention.fp8_mqa_logits")
    if launcher._gluon_fp8_mqa_logits_kernel is None:
        raise RuntimeError("aiter's launcher did not take its Gluon kernel "
                           "(its import of the gfx950 module failed)")
    S, SK, H, D = 1024, 4096, 32, 128
    q = torch.zeros(S, H, D, device="cuda", dtype=torch.float8_e4m3fn)
    kv = torch.zeros(SK, D, device="cuda", dtype=torch.float8_e4m3fn)
    kv_scales = torch.ones(SK, device="cuda")
    weights = torch.ones(S, H, device="cuda")
    starts = torch.zeros(S, device="cuda", dtype=torch.int32)
    ends = torch.arange(SK - S + 1, SK + 1, device="cuda", dtype=torch.int32)
    k = launched(launcher, "_gluon_fp8_mqa_logits_kernel", lambda: launcher.fp8_mqa_logits(
        q, kv, kv_scales, weights, starts, ends))
    return [("fp8", *k)]
