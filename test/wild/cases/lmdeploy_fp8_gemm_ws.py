"""lmdeploy blocked-FP8 GEMM, the warp-specialized TMA-producer / WGMMA-consumer schedule (128 < M <= 256): fp8_gemm_nt at M=200, N=4096, K=4096."""
from _fp8_gemm import PROJECT, MODULE, TARGET, KIND, make_setup  # noqa: F401

NAME = "lmdeploy_fp8_gemm_ws"
setup = make_setup(200, 4096, 4096)
