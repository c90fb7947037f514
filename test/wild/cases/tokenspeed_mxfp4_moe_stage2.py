"""tokenspeed Gluon MXFP4 MoE prefill stage 2 (CDNA4): the down GEMM weighted by the routing
weights, through tokenspeed's invoke_gluon_mxfp4_moe_stage2_1x2 on both of its epilogues: 256
tokens add into the output with atomics (the MFMA-layout store), 1024 tokens write per-slot
partials for the separate reduce (BLOCK 128 x 256 x 128, 4 warps, scaled MFMA)."""
from _tokenspeed import PROJECT, KIND, TARGET, PACKAGE, HIDDEN, INTER, EXPERTS, TOPK  # noqa: F401
from _tokenspeed import routing

NAME = "tokenspeed_mxfp4_moe_stage2"
MODULE = PACKAGE + ".prefill_stage2"


def launches(mod):
    import torch
    from _aiter import launched
    dev, u8 = "cuda", torch.uint8
    w2 = torch.zeros(EXPERTS, HIDDEN, INTER // 2, device=dev, dtype=u8)
    w2_scale = torch.zeros(EXPERTS, HIDDEN, INTER // 32, device=dev, dtype=u8)
    out = []
    for label, tokens in (("atomic", 256), ("reduce", 1024)):
        ids, experts, valid, weights = routing(tokens)
        inter = torch.zeros(tokens, TOPK, INTER // 2, device=dev, dtype=u8)
        inter_scale = torch.zeros(tokens * TOPK, INTER // 32, device=dev, dtype=u8)
        y = torch.empty(tokens, HIDDEN, device=dev, dtype=torch.bfloat16)
        k = launched(mod, "gluon_mxfp4_moe_stage2_1x2_kernel",
                     lambda: mod.invoke_gluon_mxfp4_moe_stage2_1x2(
                         inter, None, w2, ids, experts, valid, y, TOPK, w2_scale=w2_scale,
                         a2_scale=inter_scale, sorted_weights=weights, b_preshuffled=True))
        out.append((label, *k))
    return out
