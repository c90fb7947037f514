"""aiter Gluon causal_conv1d_update_split_qkv (wave64 layouts, CDNA3): one decode token of a
width-4 causal conv over q/k/v channels, through aiter's causal_conv1d_update_split_qkv, both
Gluon forms (tuple state and no-tuple)."""
from _aiter import PROJECT, KIND, launched  # noqa: F401

NAME = "aiter_causal_conv1d_update"
MODULE = "aiter.ops.triton.gated_delta_net.causal_conv1d_decode"
TARGET = "gfx942"


def launches(mod):
    import torch
    batch, key_dim, value_dim, width = 16, 2048, 4096, 4
    dim = 2 * key_dim + value_dim
    x = torch.zeros(batch, dim, 1, device="cuda", dtype=torch.bfloat16)
    state = torch.zeros(batch, dim, width - 1, device="cuda", dtype=torch.bfloat16)
    weight = torch.zeros(dim, width, device="cuda", dtype=torch.bfloat16)
    idx = torch.arange(batch, device="cuda", dtype=torch.int32)
    out = []
    for label, name, notuple in (("tuple", "gluon_causal_conv1d_update_split_qkv_kernel", False),
                                 ("notuple", "gluon_causal_conv1d_update_split_qkv_kernel_notuple",
                                  True)):
        k = launched(mod, name, lambda: mod.causal_conv1d_update_split_qkv(
            x, state, weight, key_dim, value_dim, None, "silu", idx, use_gluon=True,
            use_gluon_notuple=notuple))
        out.append((label, *k))
    return out
