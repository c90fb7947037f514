"""A DistributedLinearLayout sliced and expanded back (Gluon's idiom, used by Triton's
test_reduce_layouts): ``arange(0, M, SliceLayout(1, L))[:, None]`` has L on an [M, 1] tensor,
smaller than L's shape along dimension 1. The moves past the tensor drop out (lanes and warps
broadcast, registers that would move only past it are removed), as for blocked layouts."""

import re

import kiln
import kiln.language as kl

import compiled

pytestmark = compiled.needs_compiler

# 64 x 64 over 4 warps, with moves along both dimensions in the registers, lanes and warps.
L = kl.DistributedLinearLayout(
    reg_bases=[[0, 16], [1, 0], [2, 0], [4, 0], [8, 0], [16, 0]],
    lane_bases=[[0, 1], [0, 2], [0, 4], [0, 8], [32, 0]],
    warp_bases=[[0, 32], [0, 0]], block_bases=[], shape=[64, 64])


@kiln.jit
def row_sums(x, out, L: kl.constexpr):
    rows = kl.arange(0, 64, kl.SliceLayout(1, L))[:, None]
    cols = kl.arange(0, 64, kl.SliceLayout(0, L))[None, :]
    v = kl.load(x + rows * 64 + cols)
    kl.store(out + kl.arange(0, 64, kl.SliceLayout(1, L)), kl.sum(v, 1))


def test_sliced_linear_layout_expands_back():
    k = kiln.compile(row_sums, {"x": "*fp32", "out": "*fp32"}, {"L": L},
                     target="cuda:sm_90a", num_warps=4, cache=False)
    assert "tensor<64x1xi32, #linear>" in k.asm["tile"]
    assert re.search(r"ld\.global", k.asm["ptx"])
