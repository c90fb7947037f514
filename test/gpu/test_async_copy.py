"""Async copies (Gluon's ``nvidia.ampere.async_copy``: cp.async global -> shared) through
kernel[grid], checked exactly against torch on fresh random inputs, ragged shapes included:

* the multi-buffered ring of Gluon's async-copy tutorial: c = a + b streamed BM rows at a time
  through NBUF shared slots per input (NBUF 2..4), fp16 and fp32, with the copy layout and the
  load layout each parameterised (the same layout: every thread reads back what it copied;
  different ones: threads read other threads' copies), several swizzles;
* a transpose through a swizzled buffer, filled by ``.store``, by
  ``allocate_shared_memory(..., value)`` or by cp.async, read back in the transposed layout;
* a row sum of a tile staged by cp.async, the zero fill of masked lanes, and layouts wider
  than the tile (broadcast threads copy nothing).

Kiln places the shared-memory barriers itself: no kernel here calls ``kl.barrier()``.
Skips cleanly without torch, a driver or a device; the cp.async cases skip on non-NVIDIA
targets. Run under ``compute-sanitizer --tool racecheck`` to check the barriers Kiln placed.
"""

from __future__ import annotations

import os
import sys

import pytest

import kiln
import kiln.language as kl
from kiln.language.nvidia.ampere import async_copy as cp

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "examples"))
from kernels import ring_add, ring_add_tokens, transpose_smem  # noqa: E402  (examples/kernels.py)

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

NUM_WARPS = 4
TORCH_DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
ELEM_BYTES = {"fp32": 4, "fp16": 2, "bf16": 2}


@pytest.fixture
def nvidia(target):
    if not target.startswith("cuda:"):
        pytest.skip(f"cp.async (kiln.language.nvidia.ampere.async_copy) is NVIDIA-only (sm_80 "
                    f"and later); this device's target is {target}")
    return target


def warp(target):
    return 32 if target.startswith("cuda:") else 64


def rand(shape, dtype):
    return torch.randn(shape, device="cuda", dtype=torch.float32).to(TORCH_DTYPES[dtype])


# --- a. the multi-buffered ring ----------------------------------------------------------------


def rows_layout(spt, BN=64):
    """Row-major layout of 4 warps of 32 threads, ``spt`` consecutive elements per thread
    along a row of BN."""
    lanes = min(32, BN // spt)
    return kl.BlockedLayout([1, spt], [32 // lanes, lanes], [NUM_WARPS, 1], [1, 0])


def copy_layout(kind, dtype):
    """Pointer layouts for the copies of a BM x 64 block."""
    if kind == "wide":  # 16 bytes per thread along the row: 16-byte cp.async where aligned
        return rows_layout(16 // ELEM_BYTES[dtype])
    return rows_layout(2)  # two elements per thread: 4-byte (fp16) or 8-byte (fp32) copies


def load_layout(kind, copy):
    if kind == "same":  # each thread reads back only what it copied
        return copy
    if kind == "transposed":  # threads run down the columns: they read others' copies
        return kl.BlockedLayout([4, 1], [8, 4], [1, NUM_WARPS], [0, 1])
    return rows_layout(1)  # "rows": one element per thread, 32 threads along a row


def run_ring(dtype, nbuf, M, N, rows_per_program, CL, LL, SH, BM=32, BN=64):
    a, b = rand((M, N), dtype), rand((M, N), dtype)
    c = torch.full_like(a, float("nan"))
    rows = rows_per_program or kiln.cdiv(M, BM) * BM
    grid = (kiln.cdiv(N, BN), kiln.cdiv(M, rows))
    ring_add[grid](a, b, c, M, N, rows, BM=BM, BN=BN, NBUF=nbuf, CL=CL, LL=LL, SH=SH,
                   num_warps=NUM_WARPS)
    torch.testing.assert_close(c, a + b, rtol=0, atol=0)


# (M, N, rows per program: None = one program per column block walks all rows). fp16 rows
# start 16-byte aligned only when N % 8 == 0, and Kiln knows it only when N % 16 == 0 (the
# specialization): below 4 bytes cp.async is illegal, so fp16 keeps N a multiple of 16 and
# only M is ragged; fp32 is ragged in both (4-byte copies where N % 16 != 0).
RING_SHAPES = {
    "fp32": [(37, 64, None), (100, 37, 64), (1000, 130, None), (1000, 130, 96), (1, 5, None)],
    "fp16": [(37, 64, None), (100, 80, 64), (1000, 208, None), (1000, 208, 96), (1, 16, None)],
}


@pytest.mark.parametrize("dtype", ["fp16", "fp32"])
@pytest.mark.parametrize("nbuf", [2, 3, 4])
@pytest.mark.parametrize("copy", ["wide", "pairs"])
@pytest.mark.parametrize("load", ["same", "transposed", "rows"])
def test_ring_add(nvidia, dtype, nbuf, copy, load):
    CL = copy_layout(copy, dtype)
    LL = load_layout(load, CL)
    vec = 16 // ELEM_BYTES[dtype]
    SH = kl.SwizzledSharedLayout(vec, 1, 1, [1, 0])  # unswizzled rows
    for M, N, rows in RING_SHAPES[dtype]:
        run_ring(dtype, nbuf, M, N, rows, CL, LL, SH)


def ring_swizzles(dtype):
    vec = 16 // ELEM_BYTES[dtype]
    # (1, 1, 1): rows unswizzled; (vec, ...): 16-byte groups permuted, 16-byte copies stay
    # whole; (2, 1, 16): 2-element groups, so each 16-byte copy splits into 4/8-byte ones.
    return [(1, 1, 1), (vec, 1, 8), (vec, 2, 4), (2, 1, 16)]


@pytest.mark.parametrize("dtype", ["fp16", "fp32"])
@pytest.mark.parametrize("swizzle_index", range(4))
def test_ring_add_swizzled(nvidia, dtype, swizzle_index):
    SH = kl.SwizzledSharedLayout(*ring_swizzles(dtype)[swizzle_index], [1, 0])
    CL = copy_layout("wide", dtype)
    LL = load_layout("transposed", CL)
    for M, N, rows in RING_SHAPES[dtype][1:4]:
        run_ring(dtype, 3, M, N, rows, CL, LL, SH)


# --- b. transpose through a swizzled buffer ----------------------------------------------------


def transpose_layouts(dtype, w):
    """(L, LT) for 64 x 64 tiles: 16-byte vectors along x's rows in L, along out's rows in
    LT."""
    vec = 16 // ELEM_BYTES[dtype]
    L = kl.BlockedLayout([1, vec], [w // 8, 8], [NUM_WARPS, 1], [1, 0])
    LT = kl.BlockedLayout([vec, 1], [8, w // 8], [1, NUM_WARPS], [0, 1])
    return L, LT


def transpose_swizzles(dtype):
    vec = 16 // ELEM_BYTES[dtype]
    # unswizzled; the bank-conflict-free choice of the bench (phase = one LT register's
    # rows); an 8-group swizzle with two rows per phase; 2-element groups.
    return [(1, 1, 1), (vec, vec, 8), (8, 2, 4), (2, 1, 16)]


TRANSPOSE_SHAPES = [(64, 64), (100, 37), (1, 1), (257, 513)]
# cp.async needs >= 4-byte copies: 16-bit rows must start aligned (N % 16 == 0 is what the
# specialization tells Kiln).
TRANSPOSE_SHAPES_ASYNC_16BIT = [(64, 64), (100, 80), (1, 16), (257, 528)]


@pytest.mark.parametrize("dtype", ["fp32", "fp16", "bf16"])
@pytest.mark.parametrize("swizzle_index", range(4))
@pytest.mark.parametrize("via", ["store", "alloc", "async"])
def test_transpose_through_swizzled_shared(target, dtype, swizzle_index, via):
    if via == "async" and not target.startswith("cuda:"):
        pytest.skip(f"cp.async is NVIDIA-only; this device's target is {target}")
    BM = BN = 64
    L, LT = transpose_layouts(dtype, warp(target))
    SH = kl.SwizzledSharedLayout(*transpose_swizzles(dtype)[swizzle_index], [1, 0])
    shapes = TRANSPOSE_SHAPES
    if via == "async" and ELEM_BYTES[dtype] < 4:
        shapes = TRANSPOSE_SHAPES_ASYNC_16BIT
    for M, N in shapes:
        x = rand((M, N), dtype)
        out = torch.full((N, M), float("nan"), device="cuda", dtype=x.dtype)
        transpose_smem[(kiln.cdiv(M, BM), kiln.cdiv(N, BN))](
            x, out, M, N, BM=BM, BN=BN, L=L, LT=LT, SH=SH, VIA=via, num_warps=NUM_WARPS)
        torch.testing.assert_close(out, x.t().contiguous(), rtol=0, atol=0)


# --- c. a row reduction staged by cp.async -----------------------------------------------------


@kiln.jit
def row_sum(x, out, M, N, BM: kl.constexpr, BN: kl.constexpr, CL: kl.constexpr,
            LL: kl.constexpr, SH: kl.constexpr):
    """out[i] = sum(x[i, :]) for BM rows per program; BN >= N (masked lanes are zero-filled,
    which is the sum's identity)."""
    rows = kl.program_id(0) * BM + kl.arange(0, BM, kl.SliceLayout(1, CL))
    cols = kl.arange(0, BN, kl.SliceLayout(0, CL))
    m = (rows[:, None] < M) & (cols[None, :] < N)
    buf = kl.allocate_shared_memory(kl.float32, [BM, BN], SH)
    cp.async_copy_global_to_shared(buf, x + rows[:, None] * N + cols[None, :], mask=m)
    cp.commit_group()
    cp.wait_group(0)
    s = kl.sum(buf.load(LL), axis=1)
    rows_l = kl.program_id(0) * BM + kl.arange(0, BM, kl.SliceLayout(1, LL))
    kl.store(out + rows_l, s, mask=rows_l < M)


@pytest.mark.parametrize("load", ["same", "other"])
@pytest.mark.parametrize("M,N", [(1, 5), (37, 100), (300, 1000), (64, 64), (129, 33)])
def test_row_sum(nvidia, load, M, N):
    BM = 16
    BN = max(32, kiln.next_power_of_2(N))
    CL = kl.BlockedLayout([1, 4], [4, 8], [NUM_WARPS, 1], [1, 0])
    LL = CL if load == "same" else rows_layout(1, BN)
    x = torch.randn((M, N), device="cuda")
    out = torch.full((M,), float("nan"), device="cuda")
    row_sum[(kiln.cdiv(M, BM),)](x, out, M, N, BM=BM, BN=BN, CL=CL, LL=LL,
                                 SH=kl.SwizzledSharedLayout(4, 1, 8, [1, 0]),
                                 num_warps=NUM_WARPS)
    torch.testing.assert_close(out, x.sum(dim=1), rtol=1e-5, atol=1e-4 * N ** 0.5)


# --- masked lanes are zero-filled --------------------------------------------------------------

POISON = kl.constexpr(12345.0)


@kiln.jit
def masked_copy(x, y, M, N, BM: kl.constexpr, BN: kl.constexpr, L: kl.constexpr,
                SH: kl.constexpr):
    """Copies x's tile into a buffer poisoned beforehand and writes the whole BM x BN buffer
    to y (row stride BN): masked lanes must come out as zeros, not as the poison."""
    rows = kl.program_id(0) * BM + kl.arange(0, BM, kl.SliceLayout(1, L))
    cols = kl.arange(0, BN, kl.SliceLayout(0, L))
    m = (rows[:, None] < M) & (cols[None, :] < N)
    buf = kl.allocate_shared_memory(kl.float32, [BM, BN], SH,
                                    kl.full([BM, BN], POISON, kl.float32, L))
    cp.async_copy_global_to_shared(buf, x + rows[:, None] * N + cols[None, :], mask=m)
    cp.commit_group()
    cp.wait_group(0)
    kl.store(y + rows[:, None] * BN + cols[None, :], buf.load(L))


@pytest.mark.parametrize("M,N", [(1, 1), (20, 30), (64, 64), (100, 17)])
@pytest.mark.parametrize("spt", [1, 2, 4])
def test_masked_lanes_are_zero_filled(nvidia, M, N, spt):
    BM, BN = 32, 64
    L = rows_layout(spt, BN)
    x = torch.randn((M, N), device="cuda")
    rows = kiln.cdiv(M, BM) * BM
    y = torch.full((rows, BN), float("nan"), device="cuda")
    masked_copy[(rows // BM,)](x, y, M, N, BM=BM, BN=BN, L=L,
                               SH=kl.SwizzledSharedLayout(1, 1, 1, [1, 0]), num_warps=NUM_WARPS)
    torch.testing.assert_close(y[:M, :N], x, rtol=0, atol=0)
    assert (y[M:] == 0).all() and (y[:, N:] == 0).all(), "masked lanes were not zero-filled"


@pytest.mark.parametrize("BM,BN", [(8, 32), (8, 16), (4, 8)])
def test_broadcast_threads_copy_nothing(nvidia, BM, BN):
    """A copy layout wider than the tile (4 warps of 4 x 8 threads, 4 elements each, over
    BM x BN): the threads that only repeat others' elements branch around the copy. (A
    zero-filling copy of theirs would race with the owner's and could leave zeros.)"""
    L = kl.BlockedLayout([1, 4], [4, 8], [NUM_WARPS, 1], [1, 0])
    M, N = BM - 1, BN - 3
    for _ in range(3):
        x = torch.randn((M, N), device="cuda")
        y = torch.full((BM, BN), float("nan"), device="cuda")
        masked_copy[(1,)](x, y, M, N, BM=BM, BN=BN, L=L,
                          SH=kl.SwizzledSharedLayout(1, 1, 1, [1, 0]), num_warps=NUM_WARPS)
        torch.testing.assert_close(y[:M, :N], x, rtol=0, atol=0)
        assert (y[M:] == 0).all() and (y[:, N:] == 0).all()


@pytest.mark.parametrize("dtype", ["fp16", "fp32"])
@pytest.mark.parametrize("load", ["same", "transposed"])
def test_ring_with_token_waits(nvidia, dtype, load):
    """The NBUF = 3 ring with waits computed from tokens, exact against a + b."""
    M, N = (1000, 208) if dtype == "fp16" else (1000, 130)
    CL = copy_layout("wide", dtype)
    a, b = rand((M, N), dtype), rand((M, N), dtype)
    c = torch.full_like(a, float("nan"))
    grid = (kiln.cdiv(N, 64), kiln.cdiv(M, 96))
    ring_add_tokens[grid](a, b, c, M, N, 96, BM=32, BN=64, CL=CL, LL=load_layout(load, CL),
                          SH=kl.SwizzledSharedLayout(1, 1, 1, [1, 0]), num_warps=NUM_WARPS)
    torch.testing.assert_close(c, a + b, rtol=0, atol=0)
