"""aiter Gluon gemm_afp4wfp4 (CDNA4): MXFP4 x MXFP4 GEMM (packed e2m1 pairs, e8m0 scales per 32
K), bf16 out, one K split; the kernel's hard-coded linear layouts fix its tile at
256x256x256 with 8 warps."""
from _aiter import PROJECT, KIND, pretend_arch, launched  # noqa: F401

NAME = "aiter_gemm_afp4wfp4"
MODULE = "aiter.ops.triton.gluon.gemm_afp4wfp4"
TARGET = "gfx950"
CONFIG = {"BLOCK_SIZE_M": 256, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 256, "GROUP_SIZE_M": 4,
          "NUM_KSPLIT": 1, "num_warps": 8, "num_stages": 2, "waves_per_eu": 2,
          "matrix_instr_nonkdim": 16, "cache_modifier": None}


def launches(mod):
    import torch
    pretend_arch(mod, TARGET)
    M, N, K = 256, 2048, 4096
    x = torch.zeros(M, K // 2, device="cuda", dtype=torch.uint8)
    w = torch.zeros(N, K // 2, device="cuda", dtype=torch.uint8)
    xs = torch.full((M, K // 32), 127, device="cuda", dtype=torch.uint8)
    ws = torch.full((N, K // 32), 127, device="cuda", dtype=torch.uint8)
    k = launched(mod, "_gemm_afp4wfp4_kernel",
                 lambda: mod.gemm_afp4wfp4(x, w, xs, ws, torch.bfloat16, None, dict(CONFIG)))
    return [("mxfp4", *k)]
