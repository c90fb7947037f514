"""aiter Gluon sparse-MLA paged decode for DeepSeek-V4 (CDNA4), through aiter's pa_decode_sparse
on its gfx950 route: a uniform page pool, bf16 and FP8 (uint8 + fp32 per-64 scales), 16 heads of
512, 256 selected slots per query, split-K with the reduce kernel."""
from _aiter import PROJECT, KIND, launched  # noqa: F401

NAME = "aiter_pa_decode_sparse"
MODULE = "aiter.ops.triton.attention.pa_decode_sparse"
TARGET = "gfx950"


def launches(mod):
    import torch
    mod.DEVICE_ARCH = TARGET   # read from the device at import
    mod.get_num_sms = lambda: 256
    T, H, D, pages, per_q = 64, 16, 512, 8192, 256
    q = torch.zeros(T, H, D, device="cuda", dtype=torch.bfloat16)
    idx = torch.zeros(T * per_q, device="cuda", dtype=torch.int32)
    indptr = torch.arange(0, T * per_q + 1, per_q, device="cuda", dtype=torch.int32)
    sink = torch.zeros(H, device="cuda")
    out = []
    kv_bf16 = torch.zeros(pages, D, device="cuda", dtype=torch.bfloat16)
    kv_fp8 = torch.zeros(pages, D, device="cuda", dtype=torch.float8_e4m3fn)
    scales = torch.ones(pages, D // 64, device="cuda")
    for label, kv, sc in (("bf16", kv_bf16, None), ("fp8", kv_fp8, scales)):
        k = launched(mod, "_pa_decode_sparse_gfx950", lambda: mod.pa_decode_sparse(
            q, kv, idx, indptr, sink, D ** -0.5, kv_scales=sc, kv_splits=4))
        out.append((label, *k))
    return out
