"""Primus-Turbo Gluon flash-attention forward for CDNA4 (the rotated 4-cluster schedule it
vendors from AMD's gluon-kernels), through its flash_attn_gluon_raw launcher on bf16 BSHD
inputs: non-causal 2 x 4096 x 16 heads x 128 (gluon_attn_fwd with one of its own autotune
configs: BLOCK_M 256, BLOCK_N 64, 4 stages, 8 warps, waves_per_eu 2) and causal 4 x 512 (its
short-causal kernel). Written for Gluon after 3.6 (warp_pipeline_stage, warp_predicate,
gl.barrier, llvm_fn_attrs), so Triton 3.6 is expected not to import it."""
from _aiter import launched

PROJECT = "primus_turbo"
KIND = "compile"
NAME = "primus_turbo_fa_fwd"
MODULE = "primus_turbo.gluon.attention.f16_fa_gfx950_rotated_4cluster"
TARGET = "gfx950"
CONFIG = {"BLOCK_M": 256, "BLOCK_N": 64, "PRE_LOAD_V": False, "NUM_STAGES": 4,
          "waves_per_eu": 2, "num_warps": 8}


def launches(mod):
    import torch
    mod.get_mma_type_for_arch = lambda arch: "mfma_cdna4"  # the launcher asks the device
    out = []
    for label, (b, s, h, d, causal), name in (
            ("noncausal", (2, 4096, 16, 128, False), "gluon_attn_fwd"),
            ("causal_short", (4, 512, 16, 128, True), "gluon_attn_fwd_short_causal_classes")):
        q, k, v = (torch.zeros(b, s, h, d, device="cuda", dtype=torch.bfloat16) for _ in "qkv")
        kernel, args, kwargs = launched(mod, name, lambda: mod.flash_attn_gluon_raw(
            q, k, v, softmax_scale=d ** -0.5, causal=causal, qkv_format="bshd"))
        if name == "gluon_attn_fwd":  # under triton.autotune: one of its configs
            kwargs = dict(kwargs, **CONFIG)
        out.append((label, kernel, args, kwargs))
    return out
