"""TMA through shared-memory subslices against torch, fresh random inputs; the kernels are
third_party/nvidia/test/python/test_tma_slice_dsl.py's."""

from __future__ import annotations

import os
import sys

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..",
                                "test", "Python"))
import test_tma_slice_dsl as k  # noqa: E402

import kiln.language as kl  # noqa: E402
from kiln.nvidia.hopper import TensorDescriptor  # noqa: E402


def _hopper(target):
    if not target.startswith("cuda:sm_9"):
        pytest.skip("TMA needs sm_90")


@pytest.mark.parametrize("rows", [8, 64, 128])
def test_second_half(target, rows):
    _hopper(target)
    x = torch.rand(rows, 128, device="cuda")
    out = torch.empty_like(x)
    layout = kl.NVMMASharedLayout.get_default_for([rows, 128], kl.float32)
    k.copy_through_second_half[(1,)](TensorDescriptor.from_tensor(x, [rows, 128], layout),
                                     TensorDescriptor.from_tensor(out, [rows, 128], layout),
                                     rows, 128)
    assert torch.equal(out, x)


def test_column_chunk(target):
    _hopper(target)
    x = torch.rand(8, 32, device="cuda")
    out = torch.empty_like(x)
    layout = kl.NVMMASharedLayout(128, 32)
    k.copy_columns[(1,)](TensorDescriptor.from_tensor(x, [8, 32], layout),
                         TensorDescriptor.from_tensor(out, [8, 32], layout), 8, 32, 64)
    assert torch.equal(out, x)
