"""f32 division on the GPU against torch (IEEE, correctly rounded) on fresh random inputs:
`x / y` within 2 ulp (NVIDIA's div.full.f32, as Triton's `/`), div_rn bit-exact, including
quotients near the ends of the float range."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

import kiln  # noqa: E402
import kiln.language as kl  # noqa: E402


@kiln.jit
def divide(x, y, fast, exact, n, BLOCK: kl.constexpr):
    offs = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK, kl.BlockedLayout([4], [32], [4], [0]))
    m = offs < n
    a = kl.load(x + offs, mask=m, other=1.0)
    b = kl.load(y + offs, mask=m, other=1.0)
    kl.store(fast + offs, a / b, mask=m)
    kl.store(exact + offs, kl.div_rn(a, b), mask=m)


def _ulps(a, b):
    ia = a.view(torch.int32).to(torch.int64)
    ib = b.view(torch.int32).to(torch.int64)
    ia = torch.where(ia < 0, -(2**31) - ia, ia)  # sign-magnitude to a monotone integer line
    ib = torch.where(ib < 0, -(2**31) - ib, ib)
    return (ia - ib).abs()


def test_division_accuracy(nvidia):
    torch.manual_seed(1234)
    n = 1 << 20
    x = torch.randn(n, device="cuda") * torch.exp2(torch.randint(-60, 60, (n,), device="cuda"))
    y = torch.randn(n, device="cuda") * torch.exp2(torch.randint(-60, 60, (n,), device="cuda"))
    fast, exact = torch.empty_like(x), torch.empty_like(x)
    divide[(kiln.cdiv(n, 1024),)](x, y, fast, exact, n, BLOCK=1024)
    ref = x / y  # torch: IEEE division
    assert torch.equal(exact, ref)
    finite = torch.isfinite(ref) & (ref.abs() > 1e-37)
    assert int(_ulps(fast[finite], ref[finite]).max()) <= 2
