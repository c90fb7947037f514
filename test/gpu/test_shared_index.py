"""Indexed shared-memory access on the GPU against torch on fresh random inputs (kernels:
test/Python/test_shared_index_dsl.py): gather from whole buffers and sub-views in plain,
swizzled, padded and NVMMA layouts along both axes; scatter of a permutation; the atomic
scatters of every kind, masked and not, with operands broadcast so that threads repeat
elements (each element must act once)."""

from __future__ import annotations

import os
import sys
from collections import Counter

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Python"))
import kiln.language as kl  # noqa: E402
import test_shared_index_dsl as k  # noqa: E402

W = 32
M = N = 32


@pytest.mark.parametrize("s", range(4))
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("sub", [0, 32])
def test_gather(target, s, axis, sub):
    src = torch.randn(2 * M, 2 * N, device="cuda")
    K = 16
    view = src[sub:sub + M, sub:sub + N]
    if axis == 1:
        idx = torch.randint(0, N, (M, K), dtype=torch.int32, device="cuda")
    else:
        idx = torch.randint(0, M, (K, N), dtype=torch.int32, device="cuda")
    out = torch.zeros(idx.shape, device="cuda")
    k.gather_kernel[(1,)](src, idx, out, M, N, K, axis, sub, k.reg_layout(W),
                          k.shared_layouts()[s], num_warps=4)
    assert torch.equal(out, torch.gather(view, axis, idx.long()))


@pytest.mark.parametrize("s", [0, 1])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_scatter_permutation(target, s, axis, dtype):
    vals = torch.randn(M, N, device="cuda").to(dtype)
    perm = torch.argsort(torch.rand(M, N, device="cuda"), dim=axis).to(torch.int32)
    out = torch.full((M, N), 7.0, device="cuda", dtype=dtype)
    S = k.shared_layouts()[s]
    if dtype == torch.float16:
        S = kl.SwizzledSharedLayout(S.vec, S.per_phase, S.max_phase, S.order)
    k.scatter_kernel[(1,)](vals, perm, out, M, N, axis, k.reg_layout(W), S, num_warps=4)
    ref = torch.zeros_like(vals).scatter_(axis, perm.long(), vals)
    assert torch.equal(out, ref)


def _reference(op, init, vals, idx, mask, axis, shape):
    out = torch.full(shape, init, dtype=vals.dtype, device="cpu")
    v, i, m = vals.cpu(), idx.cpu().long(), mask.cpu()
    rn, rm = v.shape
    for a in range(rn):
        for b in range(rm):
            if not m[a, b]:
                continue
            r, c = (i[a, b].item(), b) if axis == 0 else (a, i[a, b].item())
            x, y = out[r, c], v[a, b]
            out[r, c] = {"add": lambda: x + y, "max": lambda: torch.maximum(x, y),
                         "min": lambda: torch.minimum(x, y), "and": lambda: x & y,
                         "or": lambda: x | y, "xor": lambda: x ^ y, "xchg": lambda: y}[op]()
    return out


# Floats have add and xchg only (Gluon's kinds); integers every kind.
KINDS = [(op, dt) for dt in (torch.int32, torch.int64)
         for op in ("add", "max", "min", "and", "or", "xor", "xchg")] + \
    [(op, torch.float32) for op in ("add", "xchg")]


@pytest.mark.parametrize("op,dtype", KINDS)
@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("axis,rshape", [(1, (16, 2)), (0, (2, 32)), (1, (16, 32))])
def test_atomic_scatter(target, op, masked, axis, rshape, dtype):
    floating = dtype.is_floating_point
    shape = (16, 32)
    rn, rm = rshape
    if floating:
        vals = torch.randint(-8, 8, rshape, device="cuda").to(dtype)  # exact sums
    else:
        vals = torch.randint(-2**20, 2**20, rshape, device="cuda").to(dtype)
    if op == "xchg":  # one writer a place: deterministic
        idx = torch.arange(rm if axis == 1 else rn, device="cuda", dtype=torch.int32)
        idx = (idx[None, :] if axis == 1 else idx[:, None]).expand(rn, rm).contiguous()
    else:
        idx = torch.randint(0, shape[axis], rshape, dtype=torch.int32, device="cuda")
    mask = (torch.rand(rshape, device="cuda") < 0.7) if masked else \
        torch.ones(rshape, dtype=torch.bool, device="cuda")
    init = {"and": -1, "min": 2**20 + 5}.get(op, 3)
    ref = _reference(op, init, vals, idx, mask, axis, shape)
    old = torch.zeros(rshape, dtype=dtype, device="cuda")
    out = torch.zeros(shape, dtype=dtype, device="cuda")
    L = kl.BlockedLayout([1, 1], [8, 4], [4, 1], [1, 0])
    k.atomic_kernel[(1,)](vals, idx, mask.to(torch.int8), old, out, init, shape[0], shape[1],
                          rn, rm, axis, op, masked, L, k.shared_layouts()[0], num_warps=4)
    got = out.cpu()
    assert torch.equal(got, ref), (got - ref).abs().max()
    if op == "add" and not floating:
        # The old values an element's adds saw: init, then its partial sums in some order.
        # Each add's old value plus its own value is another add's old value or the final.
        o, v, i, m = old.cpu(), vals.cpu(), idx.cpu().long(), mask.cpu()
        for key in set((i[a, b].item(), b if axis == 0 else a) for a in range(rn)
                       for b in range(rm) if m[a, b]):
            seen = [(o[a, b].item(), v[a, b].item()) for a in range(rn) for b in range(rm)
                    if m[a, b] and (i[a, b].item(), b if axis == 0 else a) == key]
            r, c = (key[0], key[1]) if axis == 0 else (key[1], key[0])
            # A chain init -> ... -> final: each add's old value plus its value is the next's.
            assert Counter([s for s, _ in seen] + [got[r, c].item()]) == \
                Counter([s + d for s, d in seen] + [init])


def test_atomic_fadd_f16(target):
    """fp16 adds of small integers (exact), threads repeating elements."""
    shape = (32, 16)
    vals = torch.randint(-4, 4, (2, 16), device="cuda").to(torch.float16)
    idx = torch.randint(0, 32, (2, 16), dtype=torch.int32, device="cuda")
    mask = torch.ones((2, 16), dtype=torch.int8, device="cuda")
    old = torch.zeros((2, 16), dtype=torch.float16, device="cuda")
    out = torch.zeros(shape, dtype=torch.float16, device="cuda")
    L = kl.BlockedLayout([1, 1], [8, 4], [4, 1], [1, 0])
    k.atomic_kernel[(1,)](vals, idx, mask, old, out, 1.0, 32, 16, 2, 16, 0, "add", False, L,
                          k.shared_layouts()[1], num_warps=4)
    ref = _reference("add", 1.0, vals.cpu().float(), idx, mask.bool(), 0, shape)
    assert torch.equal(out.cpu().float(), ref)
