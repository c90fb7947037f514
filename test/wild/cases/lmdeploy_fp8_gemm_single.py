"""lmdeploy blocked-FP8 GEMM, the single-partition multistage schedule (M <= 128): fp8_gemm_nt at M=96, N=4096, K=4096."""
from _fp8_gemm import PROJECT, MODULE, TARGET, KIND, make_setup  # noqa: F401

NAME = "lmdeploy_fp8_gemm_single"
setup = make_setup(96, 4096, 4096)
