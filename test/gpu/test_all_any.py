"""kl.all / kl.any (Gluon's, after Triton 3.8): truth reductions along an axis or over the
whole tensor, against torch on fresh random inputs. Skips cleanly without torch or a GPU."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

import kiln  # noqa: E402
import kiln.language as kl  # noqa: E402


@kiln.jit
def truth_kernel(x, out_all, out_any, whole, R: kl.constexpr, C: kl.constexpr,
                 AXIS: kl.constexpr):
    layout: kl.constexpr = kl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
    rows = kl.arange(0, R, kl.SliceLayout(1, layout))
    cols = kl.arange(0, C, kl.SliceLayout(0, layout))
    v = kl.load(x + rows[:, None] * C + cols[None, :])
    a = kl.all(v, axis=AXIS)
    b = kl.any(v, axis=AXIS)
    n = R if AXIS == 1 else C
    idx = kl.arange(0, n, a.type.layout)
    kl.store(out_all + idx, a.to(kl.int8))
    kl.store(out_any + idx, b.to(kl.int8))
    kl.store(whole, kl.all(v).to(kl.int8))
    kl.store(whole + 1, kl.any(v).to(kl.int8))


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("density", [0.02, 0.5, 0.98])
def test_all_any(target, axis, density):
    R, C = 32, 64
    x = (torch.rand(R, C, device="cuda") < density).to(torch.int32) * \
        torch.randint(1, 9, (R, C), device="cuda", dtype=torch.int32)
    n = R if axis == 1 else C
    out_all = torch.empty(n, device="cuda", dtype=torch.int8)
    out_any = torch.empty(n, device="cuda", dtype=torch.int8)
    whole = torch.empty(2, device="cuda", dtype=torch.int8)
    truth_kernel[(1,)](x, out_all, out_any, whole, R, C, axis, num_warps=4)
    torch.cuda.synchronize()
    b = x != 0
    assert torch.equal(out_all.bool(), b.all(dim=axis))
    assert torch.equal(out_any.bool(), b.any(dim=axis))
    assert whole.tolist() == [int(b.all()), int(b.any())]
