"""Atomics against torch / numpy on fresh random inputs; the kernels are
test/Python/test_atomics_dsl.py's. Contention: many programs adding into few addresses."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Python"))
import test_atomics_dsl as k  # noqa: E402

W = 32


@pytest.mark.parametrize("n,nbins", [(100_000, 7), (4096, 1), (12_345, 256)])
def test_histogram_under_contention(target, n, nbins):
    x = torch.randint(0, nbins, (n,), dtype=torch.int32, device="cuda")
    bins = torch.zeros(nbins, dtype=torch.int32, device="cuda")
    block = 4 * W
    k.histogram_kernel[((n + block - 1) // block,)](x, bins, n, block, W, num_warps=4)
    assert torch.equal(bins, torch.bincount(x.long(), minlength=nbins).int())


REFS = {"add": np.add, "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor,
        "max": np.maximum, "min": np.minimum, "xchg": lambda a, b: b}


@pytest.mark.parametrize("op", sorted(REFS))
@pytest.mark.parametrize("dtype", [torch.int32, torch.int64])
def test_rmw_returns_old_and_updates(target, op, dtype):
    n = 4 * W
    info = torch.iinfo(dtype)
    lo, hi = (-1000, 1000) if op == "add" else (info.min // 2, info.max // 2)
    p = torch.randint(lo, hi, (n,), dtype=dtype, device="cuda")
    v = torch.randint(lo, hi, (n,), dtype=dtype, device="cuda")
    before = p.cpu().numpy().copy()
    out = torch.empty_like(p)
    k.rmw_kernel[(1,)](p, v, out, op, "acq_rel", "gpu", n, W, num_warps=4)
    assert np.array_equal(out.cpu().numpy(), before)
    assert np.array_equal(p.cpu().numpy(), REFS[op](before, v.cpu().numpy()))


@pytest.mark.parametrize("op", ["add", "max", "min", "xchg"])
def test_float_rmw(target, op):
    """One address per element, values of both signs: the old values, and the memory after
    (fp32 max / min are integer atomics on the bits; test_float_max_min_under_contention
    races them)."""
    n = 4 * W
    p = torch.randn(n, device="cuda")
    v = torch.randn(n, device="cuda")
    before = p.clone()
    out = torch.empty_like(p)
    k.rmw_kernel[(1,)](p, v, out, op, "relaxed", "cta", n, W, num_warps=4)
    ref = {"add": before + v, "max": torch.maximum(before, v),
           "min": torch.minimum(before, v), "xchg": v}[op]
    assert torch.equal(out, before) and torch.equal(p, ref)


@pytest.mark.parametrize("op", ["max", "min"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_float_max_min_under_contention(target, op, dtype):
    """Many programs on 8 addresses, values of mixed signs (slots 0, 3, 6 see only negative
    values, 1, 4, 7 only positive ones, 2 and 5 both, with infinities among slot 2's and
    +-0.0 among both's; the starting values include -inf, -0.0, +0.0 and +inf): the memory
    ends at torch's amax / amin of the start and the values; each old value returned is the
    start or a value of its slot, between the start and the result; and where the result is
    not the start, some element saw an old value it improved on."""
    slots, n = 8, 64 * 1024
    w = 64 if target.startswith("hip") else W
    v = torch.randn(n // slots, slots, dtype=dtype, device="cuda") * 100
    kind = torch.arange(slots, device="cuda") % 3
    v = torch.where(kind == 0, -v.abs() - 1, torch.where(kind == 1, v.abs() + 1, v))
    inf = float("inf")
    rows = torch.randperm(n // slots, device="cuda")[:16]
    v[rows[:8], 2] = torch.tensor([inf, -inf, 0.0, -0.0] * 2, dtype=dtype, device="cuda")
    v[rows[8:], 5] = torch.tensor([0.0, -0.0] * 4, dtype=dtype, device="cuda")
    start = torch.tensor([-inf, -0.0, 0.0, -5.0, 3.0, -1.0, 1.0, inf], dtype=dtype,
                         device="cuda")
    p = start.clone()
    v = v.reshape(-1).contiguous()
    out = torch.empty_like(v)
    block = 4 * w
    k.max_min_kernel[((n + block - 1) // block,)](p, v, out, n, op, slots, w, num_warps=4)
    vs, olds = v.view(-1, slots), out.view(-1, slots)
    if op == "max":
        ref = torch.maximum(start, vs.amax(0))
        lo, hi, improved = start, ref, olds < vs
    else:
        ref = torch.minimum(start, vs.amin(0))
        lo, hi, improved = ref, start, olds > vs
    assert torch.equal(p, ref)
    assert bool(((olds >= lo) & (olds <= hi)).all())
    for s in range(slots):
        assert bool(torch.isin(olds[:, s], torch.cat([vs[:, s], start[s:s + 1]])).all()), s
    assert bool((improved.any(0) | (ref == start)).all())


def test_cas(target):
    n = 4 * W
    p = torch.randint(0, 4, (n,), dtype=torch.int32, device="cuda")
    cmp = torch.randint(0, 4, (n,), dtype=torch.int32, device="cuda")
    v = torch.randint(100, 200, (n,), dtype=torch.int32, device="cuda")
    before = p.clone()
    out = torch.empty_like(p)
    k.cas_kernel[(1,)](p, cmp, v, out, n, W, num_warps=4)
    assert torch.equal(out, before)
    assert torch.equal(p, torch.where(before == cmp, v, before))


def test_scalar_counter_counts_programs_once(target):
    c = torch.zeros(1, dtype=torch.int32, device="cuda")
    k.counter_kernel[(777,)](c, W, num_warps=4)
    assert c.item() == 777


def test_elements_held_by_several_threads_are_added_once(target):
    p = torch.zeros(32, device="cuda")
    out = torch.empty(32, device="cuda")
    k.broadcast_kernel[(5,)](p, out, W, num_warps=4)
    assert torch.equal(p, torch.full((32,), 5.0, device="cuda"))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("pairs", [128, 1])
def test_packed_16_bit_float_adds_under_contention(target, dtype, pairs):
    """Many programs adding into few 16-bit float addresses (2 x pairs), two adjacent elements
    a thread (packed adds where the chip has them; test/Python/test_atomics_dsl.py checks the
    instruction). Small integers keep every sum exact in any order, so the totals equal
    torch's; each old value returned is a running sum the slot passed through (at least 0,
    at most the total less the value added)."""
    if dtype == torch.bfloat16 and not target.startswith(("cuda:sm_9", "hip:gfx94",
                                                           "hip:gfx95")):
        pytest.skip(f"bf16 atomic adds are instructions only from sm_90 and CDNA3 (elsewhere "
                    f"a compare-and-swap loop, not what this test measures); target {target}")
    # 32 adds of 1-3 into each of 256 slots; or 256 adds of 1 into each of 2 slots (every
    # thread of both programs on the same two addresses).
    n = 8 * 1024 if pairs > 1 else 512
    v = (torch.randint(1, 4, (n,), device="cuda") if pairs > 1
         else torch.ones(n, device="cuda")).to(dtype)
    p = torch.zeros(2 * pairs, device="cuda", dtype=dtype)
    out = torch.empty(n, device="cuda", dtype=dtype)
    w = 64 if target.startswith("hip") else W
    block = 2 * 4 * w
    k.packed_add_kernel[((n + block - 1) // block,)](p, v, out, n, pairs, 1, w, num_warps=4)
    j = torch.arange(n, device="cuda")
    slot = (j // 2 % pairs) * 2 + j % 2
    ref = torch.zeros(2 * pairs, dtype=torch.float64, device="cuda").index_add_(
        0, slot, v.double())
    assert ref.max() <= 256  # every partial sum exact in both formats
    assert torch.equal(p.double(), ref)
    olds = out.double()
    assert (olds >= 0).all() and (olds + v.double() <= ref[slot]).all()


@pytest.mark.parametrize("programs", [1, 100, 3000])
def test_scalar_tickets_are_unique(target, programs):
    """out[pid] = atomic_add(counter, 1): every program gets a different ticket, 0..n-1."""
    c = torch.zeros(1, dtype=torch.int32, device="cuda")
    out = torch.full((programs,), -1, dtype=torch.int32, device="cuda")
    k.ticket_kernel[(programs,)](c, out, num_warps=4)
    assert c.item() == programs
    assert torch.equal(out.sort().values, torch.arange(programs, dtype=torch.int32, device="cuda"))


@pytest.mark.parametrize("n", [1, 8, 32, 64])
@pytest.mark.parametrize("programs", [1, 7])
def test_old_values_of_repeated_elements(target, n, programs):
    """Elements several threads hold: each program adds once per element, and the old values
    it reports for an element, over all programs, are exactly start .. start + programs - 1."""
    start = torch.randint(-1000, 1000, (n,), dtype=torch.int32, device="cuda")
    p = start.clone()
    out = torch.full((programs, n), 12345, dtype=torch.int32, device="cuda")
    k.broadcast_old_kernel[(programs,)](p, out, n, W, num_warps=4)
    assert torch.equal(p, start + programs)
    expect = start[None, :] + torch.arange(programs, device="cuda", dtype=torch.int32)[:, None]
    assert torch.equal(out.sort(dim=0).values, expect)


@pytest.mark.parametrize("n", [1, 32])
def test_cas_old_values_of_repeated_elements(target, n):
    """Many programs race to claim each element: one wins it (its old value is 0); every
    other program sees the winner's id + 1 as the old value."""
    programs = 50
    p = torch.zeros(n, dtype=torch.int32, device="cuda")
    out = torch.full((programs, n), -1, dtype=torch.int32, device="cuda")
    k.broadcast_cas_kernel[(programs,)](p, out, n, W, num_warps=4)
    winners = p - 1
    assert bool(((winners >= 0) & (winners < programs)).all())
    rows = torch.arange(programs, device="cuda")[:, None]
    expect = torch.where(rows == winners[None, :], torch.zeros_like(out), p[None, :].expand_as(out))
    assert torch.equal(out, expect)


def test_release_acquire_message_passing(target):
    """Program 1 writes data and sets flags with releases; program 0 waits on the flags with
    acquires and reads the data: every value read is the one written (200 rounds, fresh
    memory each round). The two programs run at once on any GPU with two multiprocessors."""
    rounds = 200
    w = 64 if target.startswith("hip") else W
    n = 4 * w
    data = torch.zeros(rounds * n, dtype=torch.int32, device="cuda")
    flags = torch.zeros_like(data)
    out = torch.full_like(data, -1)
    spins = torch.zeros(rounds, dtype=torch.int32, device="cuda")
    k.message_kernel[(2,)](data, flags, out, spins, ROUNDS=rounds, N=n, W=w, LIMIT=1 << 24,
                           num_warps=4)
    torch.cuda.synchronize()
    want = (torch.arange(n, device="cuda", dtype=torch.int32) * 7)[None, :] + \
        torch.arange(1, rounds + 1, device="cuda", dtype=torch.int32)[:, None]
    assert int(spins.max()) < (1 << 24), "the flags were never seen"
    assert torch.equal(out.view(rounds, n), want)
