"""aiter Gluon MLA decode (DeepSeek's multi-head latent attention) on CDNA4, through aiter's
mla_gluon: 16 heads, latent 512 + rope 64 in one shared KV cache (bf16), one query token, a
block table of 1,024 tokens per sequence (the bh16bn64 regime: 16 heads a program, 64 keys a
step, split-K with the reduce kernel)."""
from _aiter import PROJECT, KIND, launched, pretend_arch  # noqa: F401

NAME = "aiter_mla_gluon"
MODULE = "aiter.ops.triton.gluon.mla_gluon"
TARGET = "gfx950"


def launches(mod):
    import torch
    pretend_arch(mod, TARGET)
    batch, heads, ckv, kpe, ctx = 4, 16, 512, 64, 1024
    dev, bf16 = "cuda", torch.bfloat16
    q_nope = torch.zeros(batch, heads, ckv, device=dev, dtype=bf16)
    q_pe = torch.zeros(batch, heads, kpe, device=dev, dtype=bf16)
    kv = torch.zeros(batch * ctx, ckv + kpe, device=dev, dtype=bf16)
    o = torch.empty(batch, heads, ckv, device=dev, dtype=bf16)
    table = torch.arange(batch * ctx, device=dev, dtype=torch.int32).reshape(batch, ctx)
    lens = torch.full((batch,), ctx, device=dev, dtype=torch.int32)
    kern = launched(mod, "_mla_gluon", lambda: mod.mla_gluon(
        q_nope, q_pe, kv, o, table, lens, (ckv + kpe) ** -0.5, kv_pe_offset=ckv,
        use_2d_view=True, min_kv_seq_len=ctx))
    return [("bf16", *kern)]
