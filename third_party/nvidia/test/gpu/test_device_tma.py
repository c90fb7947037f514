"""Device-side TMA descriptors against torch on fresh random inputs: several programs each
making their own descriptors (a program-dependent base), ragged edges read as zeros or NaN
and stored clipped, and the scratch allocator (kiln.set_allocator) called with the size the
launch needs; the kernel is third_party/nvidia/test/python/test_device_tma_dsl.py's."""

from __future__ import annotations

import os
import sys

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..",
                                "test", "Python"))
import test_device_tma_dsl as k  # noqa: E402

import kiln  # noqa: E402


def _hopper(target):
    if not target.startswith("cuda:sm_9"):
        pytest.skip("TMA needs sm_90")


@pytest.mark.parametrize("M,N", [(64, 16), (50, 16), (37, 12)])
@pytest.mark.parametrize("pad", ["zero", "nan"])
def test_copy_rows(target, M, N, pad):
    _hopper(target)
    stride = 24  # rows padded in memory: the descriptor's stride is not N
    src = torch.randn(M, stride, dtype=torch.float16, device="cuda")
    dst = torch.full((M, 16), -7.0, dtype=torch.float16, device="cuda")
    grid = ((M + 15) // 16,)
    k.copy_rows[grid](src, dst, M, N, stride, 16, 16, 16, k.SMEM, pad)
    torch.testing.assert_close(dst[:, :N], src[:, :N] + 1.0)
    if N * 2 % 16 == 0:
        # Columns past N are outside the destination tensor: never written. (With rows of
        # 24 bytes the H100 writes the whole 16-byte unit past the edge, with a
        # host-encoded descriptor as with this one: measured, so not asserted.)
        assert torch.all(dst[:, N:] == -7.0)


def test_allocator_is_asked_for_the_scratch(target):
    _hopper(target)
    calls = []

    def alloc(size, alignment, stream):
        calls.append((size, alignment))
        return torch.empty(size, dtype=torch.int8, device="cuda")

    kiln.set_allocator(alloc)
    try:
        src = torch.randn(64, 16, dtype=torch.float16, device="cuda")
        dst = torch.empty_like(src)
        k.copy_rows[(4,)](src, dst, 64, 16, 16, 16, 16, 16, k.SMEM, "zero")
    finally:
        kiln.set_allocator(None)
    # Two 128-byte descriptors for each of the 4 CTAs.
    assert calls == [(4 * 256, 128)]
    torch.testing.assert_close(dst, src + 1.0)


@pytest.mark.parametrize("M,N", [(64, 16), (37, 12)])
def test_copy_rows_by_a_worker(target, M, N):
    # the descriptor made by the kernel's warps, used by a loader partition
    _hopper(target)
    stride = 24
    src = torch.randn(M, stride, dtype=torch.float16, device="cuda")
    dst = torch.full(((M + 15) // 16 * 16, 16), -7.0, dtype=torch.float16, device="cuda")
    k.copy_rows_by_a_worker[((M + 15) // 16,)](src, dst, M, N, stride, 16, 16, 16, k.SMEM)
    torch.testing.assert_close(dst[:M, :N], src[:, :N] + 1.0)


@pytest.mark.parametrize("M,N", [(64, 16), (37, 12)])
def test_copy_rows_made_by_a_worker(target, M, N):
    # the loader partition makes the descriptor itself
    _hopper(target)
    stride = 24
    src = torch.randn(M, stride, dtype=torch.float16, device="cuda")
    dst = torch.full(((M + 15) // 16 * 16, 16), -7.0, dtype=torch.float16, device="cuda")
    k.copy_rows_made_by_a_worker[((M + 15) // 16,)](src, dst, M, N, stride, 16, 16, 16, k.SMEM)
    torch.testing.assert_close(dst[:M, :N], src[:, :N] + 1.0)
