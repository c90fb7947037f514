"""FlagGems FP8 block-scaled BMM through fp8_einsum("bhr,hdr->bhd") at prefill size (1024
tokens, 128 heads, r=512, d=128): BLOCK_M 64 without the swap, config TILE_ORDER 1, 4 warps,
6 stages."""
from _flaggems import PROJECT, MODULE, TARGET, KIND, einsum_setup  # noqa: F401

NAME = "flaggems_fp8_einsum_prefill"
setup = einsum_setup(1024, 128, 512, 128, {"TILE_ORDER": 1, "num_warps": 4, "num_stages": 6})
