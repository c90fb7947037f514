"""inline_asm_elementwise on the GPU against torch on fresh random inputs (kernels:
test/Python/test_inline_asm_dsl.py)."""

from __future__ import annotations

import os
import sys

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Python"))
import test_inline_asm_dsl as k  # noqa: E402


@pytest.fixture
def nvidia(target):
    if not target.startswith("cuda"):
        pytest.skip(f"the kernels' assembly is PTX; the target is {target}")
    return target


def test_packed_unpack_max(nvidia):
    n = 512
    x = torch.randint(0, 256, (n,), dtype=torch.uint8, device="cuda")
    y = torch.randn(n, device="cuda") * 200
    c = torch.empty(n, dtype=torch.int32, device="cuda")
    d = torch.empty(n, device="cuda")
    k.unpack_max_kernel[(1,)](x, y, c, d, n, num_warps=4)
    assert torch.equal(c, x.to(torch.int32))
    assert torch.equal(d, torch.maximum(x.to(torch.float32), y))


def test_shift(nvidia):
    x = torch.randint(-2**28, 2**28, (128,), dtype=torch.int32, device="cuda")
    out = torch.empty_like(x)
    k.shift_kernel[(1,)](x, out, 128, 32, "shl.b32 $0, $1, 3;", "=r,r", num_warps=4)
    assert torch.equal(out, x << 3)
