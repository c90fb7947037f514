"""Shared by the flash-linear-attention AttnRes cases: L residual sources [N, D] (bf16), a
pseudo-query and an RMSNorm weight [D]; the fp32 reference follows fla's naive_attnres
(RMSNorm each source, score it against the query, softmax over the L sources, mix)."""

PROJECT = "fla"
MODULE = "fla.ops.attnres.backends.gluon"
TARGET = "sm_90a"
KIND = "run"

L, N, D = 8, 8192, 2048
EPS = 1e-6


def inputs():
    import torch
    torch.manual_seed(0)
    dt = torch.bfloat16
    q = torch.randn(D, device="cuda", dtype=dt)
    w = (torch.rand(D, device="cuda") + 0.5).to(dt)
    res = [torch.randn(N, D, device="cuda", dtype=dt) for _ in range(L)]
    return q, w, res, D ** -0.5


def reference(q, w, res, scale):
    import torch
    v = torch.stack([r.float() for r in res])                      # [L, N, D]
    k = v * torch.rsqrt(v.pow(2).mean(-1, keepdim=True) + EPS) * w.float()
    p = (k * (q.float() * scale)).sum(-1).softmax(dim=0)           # [L, N]
    return (p[..., None] * v).sum(0)                               # [N, D]
