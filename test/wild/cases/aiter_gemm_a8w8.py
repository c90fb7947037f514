"""aiter Gluon gemm_a8w8 (CDNA4): Y = (X @ W^T) * x_scale * w_scale, FP8 e4m3 and INT8 inputs,
bf16 out, with aiter's tuned gfx950 config (256x256x256, 8 warps)."""
from _aiter import PROJECT, KIND, pretend_arch, launched  # noqa: F401

NAME = "aiter_gemm_a8w8"
MODULE = "aiter.ops.triton.gluon.gemm_a8w8"
TARGET = "gfx950"
CONFIG = {"BLOCK_SIZE_M": 256, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 256, "GROUP_SIZE_M": 4,
          "num_warps": 8, "num_stages": 2, "waves_per_eu": 2, "matrix_instr_nonkdim": 16}


def launches(mod):
    import torch
    pretend_arch(mod, TARGET)
    M, N, K = 1024, 2048, 4096
    out = []
    for label, dt in (("fp8", torch.float8_e4m3fn), ("int8", torch.int8)):
        x = torch.zeros(M, K, device="cuda", dtype=dt)
        w = torch.zeros(N, K, device="cuda", dtype=dt)
        xs = torch.ones(M, 1, device="cuda")
        ws = torch.ones(1, N, device="cuda")
        k = launched(mod, "_gemm_a8w8_kernel",
                     lambda: mod.gemm_a8w8(x, w, xs, ws, None, torch.bfloat16, None, dict(CONFIG)))
        out.append((label, *k))
    return out
