"""aiter Gluon MoE grouped INT8 GEMM with SmoothQuant (CDNA3, small K): the launch aiter's
moe_gemm_int8_smoothquant makes on gfx942 for K <= 192, N >= 1024 (BLOCK_N 1024, BLOCK_K 64,
4 warps), built here from that launcher's argument list (its routing structures are aiter's
own)."""
from _aiter import PROJECT, KIND  # noqa: F401

NAME = "aiter_moe_int8_smoothquant"
MODULE = "aiter.ops.triton._gluon_kernels.gfx942.moe.moe_op_gemm_int8_smoothquant"
TARGET = "gfx942"


def launches(mod):
    import torch
    E, M, N, K, block_m = 8, 8192, 4096, 128, 64
    dev = "cuda"
    y = torch.empty(1, M, N, device=dev, dtype=torch.bfloat16)
    x = torch.zeros(M, K, device=dev, dtype=torch.int8)
    xs = torch.ones(M, device=dev)
    w = torch.zeros(E, K, N, device=dev, dtype=torch.int8)
    ws = torch.ones(E, N, device=dev)
    hist = torch.zeros(E, device=dev, dtype=torch.int32)
    offs = torch.zeros(E + 1, device=dev, dtype=torch.int32)
    offs_sum = torch.zeros(1, device=dev, dtype=torch.int32)
    pid_map = torch.zeros(M // block_m + E, device=dev, dtype=torch.int32)
    grid_m, grid_n = M // block_m + E, N // 1024
    args = (y, y.stride(0), y.stride(1), y.stride(2), x, x.stride(0), x.stride(1), xs, xs.stride(0),
            w, w.stride(0), w.stride(1), w.stride(2), ws, ws.stride(0), ws.stride(1),
            None, None, None, N, K, None, hist, offs, offs_sum, pid_map, grid_m, grid_n,
            0.0, 1.0, 1, False, False, 2, block_m, 1024, 64, 1)
    kwargs = dict(EVEN_K=True, MASK_K_LIMIT=0, num_warps=4)
    return [("int8", mod._gluon_moe_gemm_int8_smoothquant, args, kwargs)]
