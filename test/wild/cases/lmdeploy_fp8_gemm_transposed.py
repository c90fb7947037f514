"""lmdeploy blocked-FP8 GEMM, the transposed small-M schedule (C^T = B A^T, M <= 32, K >= 4096): fp8_gemm_nt at M=16, N=4096, K=4096."""
from _fp8_gemm import PROJECT, MODULE, TARGET, KIND, make_setup  # noqa: F401

NAME = "lmdeploy_fp8_gemm_transposed"
setup = make_setup(16, 4096, 4096)
