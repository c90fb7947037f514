"""FlagGems FP8 block-scaled BMM through fp8_einsum("bhr,hdr->bhd") at decode size (DeepSeek
MLA's value up-projection: 16 tokens, 128 heads, r=512, d=128): M=16 takes the swap-AB path
(C^T = W X^T, BLOCK_M 16), config TILE_ORDER 0, 4 warps, 4 stages."""
from _flaggems import PROJECT, MODULE, TARGET, KIND, einsum_setup  # noqa: F401

NAME = "flaggems_fp8_einsum_decode"
setup = einsum_setup(16, 128, 512, 128, {"TILE_ORDER": 0, "num_warps": 4, "num_stages": 4})
