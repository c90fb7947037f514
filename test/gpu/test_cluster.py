"""Programs of num_ctas CTAs with layouts split among them (cga_layout), against torch on fresh
random inputs: Triton's multi-CTA copy, a reduction along a dimension the cluster does not
split, and program_id / num_programs counting programs (clusters), as in Gluon."""

from __future__ import annotations

import os
import sys

import pytest

import kiln
import kiln.language as kl

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Python"))
import test_cluster_dsl as k  # noqa: E402


@pytest.mark.parametrize("num_ctas,cga", [(2, [[1]]), (4, [[1], [2]]), (4, [[1], [0]]),
                                          (16, [[1], [2], [4], [8]])])
def test_multi_cta_copy(target, num_ctas, cga):
    layout = kl.BlockedLayout([8], [32], [8], [0], cga_layout=cga)
    inp = torch.randn(2048 * 4 - 7, device="cuda")
    out = torch.full_like(inp, float("nan"))
    k.copy_kernel[(4,)](out, inp, inp.numel(), 2048, layout, num_warps=8, num_ctas=num_ctas)
    torch.testing.assert_close(out, inp)


def test_column_sums_split_by_columns(target):
    x = torch.randn(64, 64, device="cuda")
    out = torch.full((64,), float("nan"), device="cuda")
    k.sum_rows[(1,)](x, out, k.COLS, num_warps=4, num_ctas=2)
    torch.testing.assert_close(out, x.sum(0), atol=1e-4, rtol=1e-4)


@kiln.jit
def ids(out, L: kl.constexpr):
    offs = kl.program_id(0) * 256 + kl.arange(0, 256, L)
    kl.store(out + offs, kl.program_id(0) * 1000 + kl.num_programs(0) + offs * 0)


def test_program_id_counts_clusters(target):
    out = torch.full((3 * 256,), -1, device="cuda", dtype=torch.int32)
    ids[(3,)](out, kl.BlockedLayout([1], [32], [4], [0], cga_layout=[[1], [2]]), num_warps=4,
              num_ctas=4)
    want = torch.arange(3, device="cuda", dtype=torch.int32).repeat_interleave(256) * 1000 + 3
    torch.testing.assert_close(out, want)
