"""FlagGems w8a8_block_fp8_bmm on contiguous operands (x [8, 1000, 2048] with per-token
scales, y [8, 4096, 2048] with 128x128 block scales, bf16 out): M=1000 is not a multiple of
BLOCK_M 64 (the launcher pads M_aligned; the scale loads are masked, the TMA store clips),
config TILE_ORDER 0, 8 warps (two consumer warpgroups), 4 stages."""
from _flaggems import PROJECT, MODULE, TARGET, KIND, CONFIG, quantized  # noqa: F401

NAME = "flaggems_fp8_bmm"
B, M, N, K = 8, 1000, 4096, 2048


def setup(mod):
    import torch
    from harness import rel_error
    CONFIG.clear()
    CONFIG.update({"TILE_ORDER": 0, "num_warps": 8, "num_stages": 4})
    gen = torch.Generator(device="cuda").manual_seed(0)
    x, xs, xd = quantized((B, M, K), 1, gen)
    y, ys, yd = quantized((B, N, K), 128, gen)
    ref = torch.bmm(xd, yd.transpose(1, 2))
    out = {}

    def launch():
        out["z"] = mod.w8a8_block_fp8_bmm(x, y, xs, ys)

    def check():
        err = rel_error(out["z"], ref)
        return err < 2e-2, err, f"B={B} M={M} N={N} K={K} {CONFIG}, bf16 out, max|z-ref|/max|ref|"
    return launch, check
