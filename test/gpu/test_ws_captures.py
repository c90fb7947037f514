"""Scalars that worker partitions cannot recompute, passed through shared memory
(test/Python/ws_capture_kernels.py): a length loaded from memory per program, a float scale,
a loop's sum and a branch's result, against the same arithmetic in torch on fresh values."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

import ws_capture_kernels as K  # noqa: E402


@pytest.mark.parametrize("m", [0, 1, 5])
def test_scalar_captures(target, m):
    if not target.startswith("cuda:"):
        pytest.skip("warp_specialize needs NVIDIA's named barriers")
    if torch.cuda.get_device_capability() < (9, 0):
        pytest.skip("the worker asks for registers (setmaxnreg, sm_90)")
    block, programs = 32, 3
    lens = torch.randint(1, block + 1, (programs,), dtype=torch.int32, device="cuda")
    lens[0] = 2  # the branch's other side
    scales = torch.randn(1 + m, device="cuda")
    for p in range(programs):
        out = torch.full((2 * block,), float("nan"), device="cuda")
        K.ws_scalar_captures[(1,)](out, lens[p:], scales, m, BLOCK=block)
        n = int(lens[p])
        scale = scales[0]
        total = scales[1:1 + m].sum() if m else torch.zeros((), device="cuda")
        pick = n * 2 if n > 3 else n - 1
        offs = torch.arange(block, device="cuda")
        torch.testing.assert_close(out[:block], (offs + n).float() * scale + total,
                                   rtol=1e-5, atol=1e-5)
        want = (offs * n).float() * scale - total + pick
        got = out[block:]
        torch.testing.assert_close(got[:n], want[:n], rtol=1e-5, atol=1e-5)  # fma or not
        assert torch.isnan(got[n:]).all()
