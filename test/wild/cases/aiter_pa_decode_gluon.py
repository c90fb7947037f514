"""aiter Gluon paged-attention decode (ROCm's paged attention), through aiter's pa_decode_gluon on
CDNA4: bf16 query and KV cache (key [blocks, kv_heads, D / 8, 16, 8], value [blocks, kv_heads,
D, 16]), 16 query heads over 2 KV heads, head dim 128, contexts up to 1,024 tokens in
partitions of 256; the partition kernel without (``ps=False``: the dot kernel) and with
(``ps=True``: the sliding-window form) persistent splitting."""
import types

from _aiter import PROJECT, KIND, launched, pretend_arch  # noqa: F401

NAME = "aiter_pa_decode_gluon"
MODULE = "aiter.ops.triton.gluon.pa_decode_gluon"
TARGET = "gfx950"


def launches(mod):
    import torch
    import aiter
    pretend_arch(mod, TARGET)
    # aiter's package __init__ (its C++ extension) is not pinned: the dtype table its launcher
    # reads, as aiter defines it for CDNA4
    aiter.dtypes = types.SimpleNamespace(fp8=torch.float8_e4m3fn, bf16=torch.bfloat16,
                                         fp16=torch.float16, fp32=torch.float32)
    seqs, heads, kv_heads, D, block, blocks_per_seq = 4, 16, 2, 128, 16, 64
    dev, bf16 = "cuda", torch.bfloat16
    q = torch.zeros(seqs, heads, D, device=dev, dtype=bf16)
    out = torch.empty_like(q)
    blocks = seqs * blocks_per_seq
    k = torch.zeros(blocks, kv_heads, D // 8, block, 8, device=dev, dtype=bf16)
    v = torch.zeros(blocks, kv_heads, D, block, device=dev, dtype=bf16)
    ctx = torch.full((seqs,), blocks_per_seq * block, device=dev, dtype=torch.int32)
    table = torch.arange(blocks, device=dev, dtype=torch.int32).reshape(seqs, blocks_per_seq)
    parts = blocks_per_seq * block // 256
    found = []
    for label, ps, name in (("bf16", False, "paged_attention_decode_v2_gluon_dot_kernel"),
                            ("bf16_ps", True, "paged_attention_decode_sliding_window")):
        kern = launched(mod, name, lambda: mod.pa_decode_gluon(
            out, q, k, v, ctx, table, D ** -0.5, 1, parts, 256, compute_type=bf16, ps=ps))
        found.append((label, *kern))
    return found
