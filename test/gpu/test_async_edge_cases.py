"""Correct async kernels at the edges, on the GPU through kernel[grid], checked against torch on
fresh random inputs (two rounds each) with NaN-poisoned outputs and a poisoned guard past
them that must stay untouched. The kernels are test/gpu/async_edge_kernels.py's (which
test/Python/test_async_misuse_dsl.py compiles without a GPU, with no error and no warning):

* a cp.async ring that wraps every iteration, one slot (NBUF = 1) or two, read back in the
  copy layout or in one where every thread reads other threads' copies;
* a one-element shared buffer, filled by cp.async or by ``.store``;
* ``cp.wait_for`` on a token an ``if`` on a runtime value picks;
* a TMA load, threads' read, fenced TMA store of one-row [1, 64] blocks (the one-row TMA box)
  and of [8, 64] blocks over tensors of 1 to 20 rows (the box past the tensor's edge:
  zero-filled loads, clipped stores);
* wgmma with N = 8 (m64n8k16), and examples/hopper.py's and examples/hopper_ws.py's GEMMs with
  BN = 8 and on a C smaller than one tile.

The cp.async cases need an NVIDIA device (sm_80 and later), the rest sm_90a; all skip cleanly
without torch, a driver or such a device.

Under compute-sanitizer (the racecheck tool checks the CTA barriers Kiln placed, memcheck the
TMA boxes and the masked-off lanes), from the repository root on the GPU machine with the
wheel carried in dist/ (see docs/gpu-testing.md):

    python3 -m pip install -q --no-index --no-deps --force-reinstall dist/kiln-*.whl
    R=$PWD; cd /tmp
    PYTHONPATH= compute-sanitizer --tool racecheck --error-exitcode 3 \\
        python3 -m pytest -q -p no:cacheprovider $R/test/gpu/test_async_edge_cases.py
    PYTHONPATH= compute-sanitizer --tool memcheck --error-exitcode 3 \\
        python3 -m pytest -q -p no:cacheprovider $R/test/gpu/test_async_edge_cases.py
"""

from __future__ import annotations

import os
import sys

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", ".."))
import async_edge_kernels as ek  # noqa: E402  (shared with test/Python/test_async_misuse_dsl.py)
from examples import hopper, hopper_ws  # noqa: E402  (the repository's examples folder)

GUARD = 64  # poisoned elements past each output that no kernel may write
TORCH = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}


@pytest.fixture
def nvidia(target):
    if not target.startswith("cuda:"):
        pytest.skip(f"cp.async (kiln.language.nvidia.ampere.async_copy) is NVIDIA-only; this "
                    f"device's target is {target}")
    return target


@pytest.fixture
def sm90(target):
    if target != "cuda:sm_90a":
        pytest.skip(f"TMA, mbarriers and wgmma need sm_90a; this device's target is {target}")
    return target


def poisoned(n, dtype=torch.float32):
    """(out, whole): ``out`` the first n elements of ``whole``, all NaN, GUARD more after."""
    whole = torch.full((n + GUARD,), float("nan"), device="cuda", dtype=dtype)
    return whole[:n], whole


def assert_guard_untouched(whole, n):
    assert torch.isnan(whole[n:]).all(), "a kernel wrote past its output"


# --- cp.async -----------------------------------------------------------------------------------

@pytest.mark.parametrize("programs,n_tiles", [(1, 1), (1, 5), (7, 3)])
@pytest.mark.parametrize("read", ["same", "reversed"])
@pytest.mark.parametrize("nbuf", [1, 2])
def test_one_slot_ring(nvidia, nbuf, read, programs, n_tiles):
    n = programs * n_tiles * ek.BLOCK
    for _ in range(2):
        x = torch.randn(n, device="cuda")
        y, whole = poisoned(n)
        ek.one_slot_ring[(programs,)](x, y, n_tiles, num_warps=ek.NUM_WARPS,
                                      **ek.ring_constexprs(nbuf, read))
        torch.cuda.synchronize()
        k = torch.arange(n_tiles, device="cuda", dtype=torch.float32).view(1, n_tiles, 1)
        want = (x.view(programs, n_tiles, ek.BLOCK) * 2.0 + k).reshape(-1)
        assert torch.equal(y, want)
        assert_guard_untouched(whole, n)


@pytest.mark.parametrize("via", ["async", "store"])
def test_one_element(nvidia, via):
    for _ in range(2):
        x = torch.randn(4, device="cuda")
        y, whole = poisoned(1)
        ek.one_element[(1,)](x, y, num_warps=ek.NUM_WARPS, **ek.one_element_constexprs(via))
        torch.cuda.synchronize()
        assert torch.equal(y, x[:1] + 1.0)
        assert_guard_untouched(whole, 1)


# flag 1 is specialized to a constexpr (the branch folds); the others stay runtime values.
@pytest.mark.parametrize("flag", [2, 0, -3, 1])
@pytest.mark.parametrize("read", ["same", "reversed"])
def test_token_wait_chosen_by_a_branch(nvidia, read, flag):
    for _ in range(2):
        x = torch.randn(2 * ek.BLOCK, device="cuda")
        y, whole = poisoned(ek.BLOCK)
        ek.token_branch[(1,)](x, y, flag, num_warps=ek.NUM_WARPS, **ek.token_constexprs(read))
        torch.cuda.synchronize()
        want = x[:ek.BLOCK] + x[ek.BLOCK:] if flag <= 0 else x[:ek.BLOCK]
        assert torch.equal(y, want)
        assert_guard_untouched(whole, ek.BLOCK)


# --- TMA ----------------------------------------------------------------------------------------

def _descriptor(t, block, dtype):
    from kiln.nvidia.hopper import TensorDescriptor
    return TensorDescriptor(t, list(t.shape), list(t.stride()), list(block),
                            ek.tma_layout(block, dtype))


# Rows and columns: one row; fewer rows than an [8, 64] block; several blocks both ways with
# ragged edges. Row strides stay multiples of 16 bytes in bf16 and fp32.
TMA_SHAPES = [(1, 64), (3, 200), (20, 136)]


@pytest.mark.parametrize("shape", TMA_SHAPES, ids=[f"{r}x{c}" for r, c in TMA_SHAPES])
@pytest.mark.parametrize("block,dtype", ek.TMA_BLOCKS,
                         ids=[f"{b[0]}x{b[1]}-{d}" for b, d in ek.TMA_BLOCKS])
def test_tma_small_boxes(sm90, block, dtype, shape):
    rows, cols = shape
    grid = (-(-rows // block[0]), -(-cols // block[1]))
    for _ in range(2):
        x = torch.randn(shape, device="cuda").to(TORCH[dtype])
        # y is the first rows of a NaN-filled buffer with 8 rows more: the clipped stores of
        # the edge boxes must leave them alone.
        whole = torch.full((rows + 8, cols), float("nan"), device="cuda", dtype=TORCH[dtype])
        y = whole[:rows]
        ek.tma_scale[grid](_descriptor(x, block, dtype), _descriptor(y, block, dtype),
                           num_warps=ek.TMA_NUM_WARPS, **ek.tma_constexprs(block))
        torch.cuda.synchronize()
        assert torch.equal(y, x * 2)
        assert torch.isnan(whole[rows:]).all(), "a TMA store wrote past the tensor's rows"


# --- wgmma with N = 8 ---------------------------------------------------------------------------

@pytest.mark.parametrize("BM,BN,BK", ek.WGMMA_SHAPES)
def test_wgmma_n8(sm90, BM, BN, BK):
    for _ in range(2):
        a = torch.randn(BM, BK, device="cuda").to(torch.bfloat16)
        b = torch.randn(BN, BK, device="cuda").to(torch.bfloat16)
        c, whole = poisoned(BM * BN)
        ek.wgmma_small_n[(1,)](a, b, c, num_warps=ek.NUM_WARPS,
                               **ek.wgmma_constexprs(BM, BN, BK))
        torch.cuda.synchronize()
        ref = (a.double() @ b.double().T).float()
        torch.testing.assert_close(c.view(BM, BN), ref, rtol=1e-5, atol=1e-4)
        assert_guard_untouched(whole, BM * BN)


# --- the example GEMMs at small N and tiny C ----------------------------------------------------

GEMMS = {
    "gemm": hopper.kiln_matmul,
    "persistent": hopper.kiln_persistent_matmul,
    "ws": hopper_ws.kiln_ws_matmul,
    "ws_persistent": hopper_ws.kiln_ws_persistent_matmul,
}
# (m, n, k, cfg): BN = 8 (wgmma m64n8, a [128, 8] C tile with 16-byte rows, swizzle 0) over one
# and several column tiles; a C of 8 x 8 with K = 8, far smaller than one 128 x 256 tile and
# one 64-wide k-step (TMA zero-fills the rest and clips the store).
GEMM_CASES = [(300, 8, 200, {"BN": 8}), (1000, 24, 520, {"BN": 8}), (8, 8, 8, {})]


@pytest.mark.parametrize("m,n,k,cfg", GEMM_CASES,
                         ids=["BN8-one-column-tile", "BN8-three-column-tiles", "tiny-C"])
@pytest.mark.parametrize("name", list(GEMMS))
def test_example_gemm_edges(sm90, name, m, n, k, cfg):
    for _ in range(2):
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
        c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
        GEMMS[name](a, b, out=c, **cfg)
        torch.cuda.synchronize()
        ref = (a.double() @ b.double().T).float()
        assert not torch.isnan(c).any()
        torch.testing.assert_close(c.float(), ref, rtol=1e-2, atol=1e-2 * k ** 0.5)
