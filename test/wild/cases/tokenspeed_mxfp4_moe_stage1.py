"""tokenspeed Gluon MXFP4 MoE prefill stage 1 (CDNA4): the gate/up GEMM with the SwiGLU fused in
its epilogue, through tokenspeed's invoke_gluon_mxfp4_moe_stage1 for 1024 tokens (BLOCK 128 x
128 x 256, 4 warps, scaled MFMA, A staged in LDS by direct-to-LDS buffer loads)."""
from _tokenspeed import PROJECT, KIND, TARGET, PACKAGE, HIDDEN, INTER, EXPERTS, TOPK  # noqa: F401
from _tokenspeed import routing

NAME = "tokenspeed_mxfp4_moe_stage1"
MODULE = PACKAGE + ".prefill_stage1"


def launches(mod):
    import torch
    from _aiter import launched
    tokens = 1024
    ids, experts, valid, _ = routing(tokens)
    dev, u8 = "cuda", torch.uint8
    x = torch.zeros(tokens, HIDDEN // 2, device=dev, dtype=u8)
    x_scale = torch.zeros(tokens, HIDDEN // 32, device=dev, dtype=u8)
    w1 = torch.zeros(EXPERTS, 2 * INTER, HIDDEN // 2, device=dev, dtype=u8)
    w1_scale = torch.zeros(EXPERTS, 2 * INTER, HIDDEN // 32, device=dev, dtype=u8)
    out = torch.empty(tokens, TOPK, INTER, device=dev, dtype=torch.bfloat16)
    k = launched(mod, "gluon_mxfp4_moe_stage1_kernel", lambda: mod.invoke_gluon_mxfp4_moe_stage1(
        x, w1, None, ids, experts, valid, out, TOPK, w1_scale=w1_scale, a1_scale=x_scale,
        b_preshuffled=True))
    return [("swiglu", *k)]
