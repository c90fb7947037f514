"""lmdeploy blocked-FP8 GEMM, the persistent two-wave schedule (large grids): fp8_gemm_nt at M=4096, N=4096, K=4096."""
from _fp8_gemm import PROJECT, MODULE, TARGET, KIND, make_setup  # noqa: F401

NAME = "lmdeploy_fp8_gemm_persistent"
setup = make_setup(4096, 4096, 4096)
