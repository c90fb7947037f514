"""flash-linear-attention AttnRes forward kernel launched with one of fla's own autotune configs
(BT=2, 4 warps) instead of through fla_cache_autotune: the same arguments as fla's
_fused_attnres_fwd, so that the kernel is compiled even where the autotuner cannot wrap it."""
from _fla import PROJECT, MODULE, TARGET, KIND, inputs, reference, L, N, D, EPS  # noqa: F401

NAME = "fla_attnres_fwd_config"


def setup(mod):
    import torch
    import triton
    from harness import rel_error
    q, w, res, scale = inputs()
    ref = reference(q, w, res, scale)
    srcs = mod._check_sources(res)
    o = torch.empty(N, D, device="cuda", dtype=q.dtype)
    lse = torch.empty(N, device="cuda")
    rstd = torch.empty(L, N, device="cuda")
    logit = torch.empty_like(rstd)
    BT, NW = 2, 4
    BD = triton.next_power_of_2(D)
    kernel = mod.attnres_fwd_kernel_gluon.fn  # under fla's autotuner

    def launch():
        kernel[(triton.cdiv(N, BT),)](
            q=q, res=srcs, w=w, ow=None, o=o, o_pre=None, rstd=rstd, logit=logit, lse=lse,
            N=N, L=L, D=D, eps=EPS, scale=scale, BD=BD, R=mod._vec_width(q.dtype, D, BD),
            ES=q.element_size(), HAS_ONORM=False, SAVE_OPRE=False, BT=BT, NW=NW, num_warps=NW)

    def check():
        err = rel_error(o, ref)
        return err < 2e-2, err, f"L={L} N={N} D={D}, bf16 out, BT={BT} NW={NW}"
    return launch, check
