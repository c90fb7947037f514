"""aiter Gluon gemm_a8w8_blockscale (CDNA4): FP8 GEMM with per-row x 128-K activation scales and
128x128 weight block scales, aiter's gfx950 M<=128 config (64x128x128, 4 warps)."""
from _aiter import PROJECT, KIND, pretend_arch, launched  # noqa: F401

NAME = "aiter_gemm_a8w8_blockscale"
MODULE = "aiter.ops.triton.gluon.gemm_a8w8_blockscale"
TARGET = "gfx950"
CONFIG = {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 128, "GROUP_SIZE_M": 1,
          "num_warps": 4, "num_stages": 2, "waves_per_eu": 2, "matrix_instr_nonkdim": 16,
          "cache_modifier": ".ca", "NUM_KSPLIT": 1, "SPLITK_BLOCK_SIZE": 4096}


def launches(mod):
    import torch
    pretend_arch(mod, TARGET)
    M, N, K = 128, 2048, 4096
    x = torch.zeros(M, K, device="cuda", dtype=torch.float8_e4m3fn)
    w = torch.zeros(N, K, device="cuda", dtype=torch.float8_e4m3fn)
    xs = torch.ones(M, K // 128, device="cuda")
    ws = torch.ones(N // 128, K // 128, device="cuda")
    k = launched(mod, "_gemm_a8w8_blockscale_kernel",
                 lambda: mod.gemm_a8w8_blockscale(x, w, xs, ws, torch.bfloat16, None, dict(CONFIG)))
    return [("fp8", *k)]
