"""Automatic software pipelining on the GPU (examples/pipelined.py: plain loads in a
``range(..., num_stages=N)`` loop, made into async-copy rings by the tile-pipeline-* passes).

Fresh random inputs, results against torch, and the property that pipelining only moves
copies: the result of every ``num_stages`` from 1 (not pipelined) to 5 is bitwise identical
to the unpipelined one (the accumulation order is the same). Ragged shapes exercise the
predicated prologue and the predicated last iterations (trip counts below num_stages too).
Skips cleanly without torch, a driver or an NVIDIA device."""

from __future__ import annotations

import os
import sys

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from examples import pipelined  # noqa: E402  (the repository's examples folder)


@pytest.fixture
def nvidia(target):
    if not target.startswith("cuda:"):
        pytest.skip(f"these kernels use NVIDIA MMAs; this device's target is {target}")
    return target


def _fresh(shape, dtype, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    return torch.randn(shape, device="cuda", generator=g, dtype=torch.float32).to(dtype)


def _gemm_across_stages(run, ref, shape, dtype):
    """run(stages, out) for num_stages 1..5 into NaN-filled outputs: the unpipelined result
    matches ref, and every pipelined one is bitwise equal to it."""
    outs = {}
    for stages in range(1, 6):
        out = torch.full(shape, float("nan"), device="cuda", dtype=dtype)
        outs[stages] = run(stages, out)
    torch.cuda.synchronize()
    err = ((outs[1].float() - ref).norm() / ref.norm()).item()
    assert err < 1e-2, err
    for stages in range(2, 6):
        assert torch.equal(outs[stages], outs[1]), f"num_stages={stages} differs from 1"


@pytest.mark.parametrize("m,n,k", [(512, 512, 512), (1000, 776, 1000), (130, 136, 40),
                                   (256, 256, 96)])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_mma_v2_gemm_bitwise_across_stages(nvidia, m, n, k, dtype):
    a, b = _fresh((m, k), dtype, m + k), _fresh((k, n), dtype, n + 7 * k)
    _gemm_across_stages(lambda s, out: pipelined.mma_v2_matmul(a, b, STAGES=s, out=out),
                        a.float() @ b.float(), (m, n), dtype)


@pytest.mark.parametrize("m,n,k", [(512, 512, 512), (1000, 776, 1000), (200, 136, 56)])
@pytest.mark.parametrize("warps", [4, 8])
def test_wgmma_gemm_bitwise_across_stages(nvidia, m, n, k, warps):
    if not nvidia.startswith("cuda:sm_90"):
        pytest.skip("wgmma needs sm_90a")
    a, b = _fresh((m, k), torch.bfloat16, 3 * m + k), _fresh((n, k), torch.bfloat16, n + 5 * k)
    _gemm_across_stages(
        lambda s, out: pipelined.wgmma_matmul(a, b, STAGES=s, num_warps=warps, out=out),
        a.float() @ b.float().T, (m, n), torch.bfloat16)


@pytest.mark.parametrize("m,n,k", [(512, 512, 512), (1000, 776, 1000), (200, 136, 56)])
@pytest.mark.parametrize("warps", [4, 8])
@pytest.mark.parametrize("b_kn", [False, True])
def test_tma_gemm_bitwise_across_stages(nvidia, m, n, k, warps, b_kn):
    """The TMA form (one buffer per operand, one mbarrier) made into a TMA ring by
    tile-nv-pipeline-tma; TMA zero-fills past the edges. Both B layouts: [N, K] (read
    K-major) and [K, N] row-major (read N-major by the wgmma)."""
    if not nvidia.startswith("cuda:sm_90"):
        pytest.skip("TMA and wgmma need sm_90a")
    a = _fresh((m, k), torch.bfloat16, 5 * m + k)
    b = _fresh((k, n) if b_kn else (n, k), torch.bfloat16, n + 3 * k)
    ref = a.float() @ (b.float() if b_kn else b.float().T)
    _gemm_across_stages(
        lambda s, out: pipelined.tma_matmul(a, b, STAGES=s, num_warps=warps, out=out,
                                            b_kn=b_kn),
        ref, (m, n), torch.bfloat16)


@pytest.mark.parametrize("r,c", [(1024, 4096), (77, 1000), (33, 260), (16, 4)])
def test_row_sum_bitwise_across_stages(nvidia, r, c):
    x = _fresh((r, c), torch.float32, r * c)
    ref = x.double().sum(1)
    outs = {}
    for stages in range(1, 6):
        out = torch.full((r,), float("nan"), device="cuda")
        outs[stages] = pipelined.row_sum(x, STAGES=stages, out=out)
    torch.cuda.synchronize()
    assert torch.allclose(outs[1].double(), ref, rtol=1e-4, atol=1e-3)
    for stages in range(2, 6):
        assert torch.equal(outs[stages], outs[1]), f"num_stages={stages} differs from 1"


@pytest.mark.parametrize("m,n,k", [(512, 512, 512), (1000, 776, 1000)])
@pytest.mark.parametrize("which", ["wgmma", "mma_v2"])
def test_tuned_gemm(nvidia, m, n, k, which):
    """tuned=True: kiln.autotune picks among the example's configs; whatever it picks, the
    result is every config's (they differ only in tiles: fp32 accumulation in the same K
    order within a tile), and a second call launches the remembered pick."""
    if which == "wgmma" and not nvidia.startswith("cuda:sm_90"):
        pytest.skip("wgmma needs sm_90a")
    if which == "wgmma":
        a, b = _fresh((m, k), torch.bfloat16, m + 3 * k), _fresh((n, k), torch.bfloat16, 2 * n)
        ref, run = a.float() @ b.float().T, pipelined.wgmma_matmul
    else:
        a, b = _fresh((m, k), torch.float16, m + 5 * k), _fresh((k, n), torch.float16, 3 * n)
        ref, run = a.float() @ b.float(), pipelined.mma_v2_matmul
    first = run(a, b, tuned=True)
    again = run(a, b, tuned=True)
    torch.cuda.synchronize()
    err = ((first.float() - ref).norm() / ref.norm()).item()
    assert err < 1e-2, err
    assert torch.equal(first, again)
