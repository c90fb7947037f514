"""aiter Gluon FP8 paged MQA logits (the indexer scores of DeepSeek's sparse attention, decode) on
CDNA4: the launch aiter's deepgemm_fp8_paged_mqa_logits makes (non-preshuffled KV, one token a
block, 64 query heads of 128, chunks of 256 keys, 4 warps, waves_per_eu 2), built here from
that launcher's argument list (its own path compiles the kernel ahead of time through modules
of aiter's that are not pinned)."""
from _aiter import PROJECT, KIND  # noqa: F401

NAME = "aiter_pa_mqa_logits"
MODULE = "aiter.ops.triton.gluon.pa_mqa_logits"
TARGET = "gfx950"


def launches(mod):
    import torch
    batch, next_n, heads, D, max_len, block_len = 4, 1, 64, 128, 8192, 8192
    dev, fp8 = "cuda", torch.float8_e4m3fn
    q = torch.zeros(batch, next_n, heads, D, device=dev, dtype=fp8)
    # the launcher's view of the KV cache: per token D fp8 values then one fp32 scale
    blocks = batch * block_len
    kv = torch.zeros(blocks, D + 4, device=dev, dtype=torch.uint8)
    kv_fp8 = kv[:, :D].view(fp8)
    kv_scale = kv[:, D:].view(torch.float32)
    ctx = torch.full((batch,), max_len, device=dev, dtype=torch.int32)
    idx = torch.zeros(batch, block_len, device=dev, dtype=torch.int32)
    w = torch.zeros(batch * next_n, heads, device=dev, dtype=torch.float32)
    out = torch.zeros(batch * next_n, max_len, device=dev, dtype=torch.float32)
    split_kv = 10
    args = (batch, next_n, heads, q, q.stride(0), q.stride(1), q.stride(2), kv_fp8,
            kv_fp8.stride(0), kv_scale, kv_scale.stride(0), ctx, idx, w, w.stride(0), out,
            out.stride(0), max_len, block_len, blocks, split_kv)
    kwargs = dict(ChunkQ=heads, ChunkK=256, HiddenDim=D, KVBlockSize=1, CDNA_VERSION=4,
                  ARCH=TARGET, num_warps=4, waves_per_eu=2)
    return [("fp8", mod._gluon_deepgemm_fp8_paged_mqa_logits, args, kwargs)]
