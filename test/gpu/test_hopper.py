"""Hopper TMA + mbarrier + wgmma on the GPU, through kernel[grid] on torch tensors:
examples/hopper.py's TMA copy and its pipelined GEMM (Gluon's kernel with the imports
swapped), checked against torch on fresh random inputs at shapes that are and are not
multiples of the tiles. Skips cleanly without torch, a driver or an sm_90 device."""

from __future__ import annotations

import os
import sys

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from examples import hopper  # noqa: E402  (the repository's examples folder)


@pytest.fixture
def sm90(target):
    if target != "cuda:sm_90a":
        pytest.skip(f"TMA and wgmma need sm_90a; this device's target is {target}")
    return target


@pytest.mark.parametrize("shape,dtype,block", [
    ((1000, 520), torch.bfloat16, (64, 128)),
    ((4096, 4096), torch.bfloat16, (64, 128)),
    ((333, 264), torch.float32, (32, 32)),
    ((128, 64), torch.float16, (64, 64)),
])
def test_tma_copy(sm90, shape, dtype, block):
    for _ in range(2):
        x = torch.randn(shape, device="cuda").to(dtype)
        y = torch.full_like(x, float("nan"))
        hopper.kiln_tma_copy(x, block=block, out=y)
        torch.cuda.synchronize()
        assert torch.equal(y, x)


def _reference(a, b):
    return (a.float() @ b.float().T)


def _check_matmul(matmul, m, n, k, cfg, what=""):
    """Twice, on fresh random inputs into a NaN-filled C: matmul(a, b, out=c, **cfg) against
    the fp32 product."""
    for _ in range(2):
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
        c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
        matmul(a, b, out=c, **cfg)
        torch.cuda.synchronize()
        ref = _reference(a, b)
        assert not torch.isnan(c).any()
        err = (c.float() - ref).norm() / ref.norm()
        assert err < 1e-2, f"relative error {err:.3g}{what}"
        torch.testing.assert_close(c.float(), ref, rtol=1e-2, atol=1e-2 * k ** 0.5)


@pytest.mark.parametrize("m,n,k,cfg", [
    (1000, 1000, 1000, {}),
    (4096, 4096, 4096, {}),
    (8192, 4096, 2048, {}),
    (64, 4096, 1024, {}),          # M smaller than one tile
    (4096, 8, 512, {}),            # N smaller than one tile
    (300, 264, 200, {"STAGES": 2}),
    (1024, 1024, 1024, {"BM": 128, "BN": 128, "BK": 64, "STAGES": 4, "num_warps": 4}),
    (777, 520, 4104, {"BN": 128, "STAGES": 4}),
])
def test_gemm(sm90, m, n, k, cfg):
    _check_matmul(hopper.kiln_matmul, m, n, k, cfg)


def _num_sms():
    return torch.cuda.get_device_properties(torch.cuda.current_device()).multi_processor_count


@pytest.mark.parametrize("m,n,k,cfg", [
    (1000, 1000, 1000, {}),
    (4096, 4096, 4096, {}),        # ~4 tiles a program on 132 SMs; num_k % STAGES != 0
    (777, 520, 4104, {"BN": 128, "STAGES": 4}),
    (256, 512, 4096, {}),          # 4 tiles: fewer tiles than SMs
    (4096, 4096, 64, {}),          # one k-step a tile: fewer k-steps than prologue slots
    (2000, 3000, 200, {"BN": 128, "STAGES": 2}),
    (3072, 2048, 1024, {"BM": 128, "BN": 128, "BK": 64, "STAGES": 4, "num_warps": 4}),
])
def test_persistent_gemm(sm90, m, n, k, cfg):
    tiles = hopper._cdiv(m, cfg.get("BM", 128)) * hopper._cdiv(n, cfg.get("BN", 256))
    if (m, n, k) == (256, 512, 4096):
        assert tiles < _num_sms()
    _check_matmul(hopper.kiln_persistent_matmul, m, n, k, cfg, f" ({tiles} tiles)")


def test_persistent_gemm_launcher_reuses_descriptors(sm90):
    """run() relaunches on the same buffers: new values in a and b give a new c."""
    m, n, k = 2048, 2048, 512
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
    run, c = hopper.kiln_persistent_matmul_launcher(a, b)
    for _ in range(2):
        a.normal_()
        b.normal_()
        c.fill_(float("nan"))
        assert run() is c
        torch.cuda.synchronize()
        torch.testing.assert_close(c.float(), _reference(a, b), rtol=1e-2, atol=1e-2 * k ** 0.5)
