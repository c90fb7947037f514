"""Shared by the lmdeploy blocked-FP8 GEMM cases: inputs as lmdeploy's fp8_gemm_nt takes them
(FP8 A [M, K] with per-row, per-128-K scales stored M-contiguous; FP8 B [N, K] with 128x128 block
scales) and the dequantized fp32 reference."""

PROJECT = "lmdeploy"
MODULE = "lmdeploy.pytorch.kernels.cuda.blocked_fp8_gemm_gluon"
TARGET = "sm_90a"
KIND = "run"


def make_setup(M, N, K):
    def setup(mod):
        import torch
        from harness import rel_error
        torch.manual_seed(0)
        dev = "cuda"
        fp8 = torch.float8_e4m3fn
        a_q = (torch.randn(M, K, device=dev) * 2).to(fp8)
        a_s = (torch.rand(K // 128, M, device=dev) + 0.5).T  # [M, K/128], stride 1 along M
        b_q = (torch.randn(N, K, device=dev) * 2).to(fp8)
        b_s = torch.rand((N + 127) // 128, K // 128, device=dev) + 0.5
        d = torch.empty(M, N, device=dev, dtype=torch.bfloat16)
        a = a_q.float() * a_s.repeat_interleave(128, dim=1)
        b = b_q.float() * b_s.repeat_interleave(128, dim=0)[:N].repeat_interleave(128, dim=1)
        ref = a @ b.T

        def launch():
            mod.fp8_gemm_nt((a_q, a_s), (b_q, b_s), d, None)

        def check():
            err = rel_error(d, ref)
            return err < 2e-2, err, f"M={M} N={N} K={K}, bf16 out, max|d-ref|/max|ref|"
        return launch, check
    return setup
