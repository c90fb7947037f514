"""flash-linear-attention AttnRes backward (attnres_bwd_kernel_dv_gluon, then
attnres_bwd_kernel_dqdw_gluon) through the backend's _fused_attnres_bwd, after its forward;
checked against torch autograd of the fp32 reference (dq, dw and every dv)."""
from _fla import PROJECT, MODULE, TARGET, KIND, inputs, reference, L, N, D, EPS  # noqa: F401

NAME = "fla_attnres_bwd"


def setup(mod):
    import torch
    from harness import rel_error
    q, w, res, scale = inputs()
    do = torch.randn(N, D, device="cuda", dtype=torch.bfloat16)
    leaves = [t.detach().float().requires_grad_() for t in [q, w, *res]]
    o = reference(leaves[0], leaves[1], leaves[2:], scale)
    refs = torch.autograd.grad(o, leaves, do.float())
    srcs = mod._check_sources(res)
    o, o_pre, rstd, logit, lse = mod._fused_attnres_fwd(q, res, srcs, w, None, EPS, scale, 1)
    out = {}

    def launch():
        out["g"] = mod._fused_attnres_bwd(do, q, res, srcs, w, None, o_pre, rstd, logit, lse,
                                          EPS, scale, 1)

    def check():
        dvs, dq, dw, _ = out["g"]
        errs = {"dq": rel_error(dq, refs[0]), "dw": rel_error(dw, refs[1]),
                "dv": max(rel_error(a, b) for a, b in zip(dvs, refs[2:]))}
        worst = max(errs.values())
        return worst < 5e-2, worst, " ".join(f"{k} {v:.2g}" for k, v in errs.items())
    return launch, check
