"""Gluon's atomics (``atomic_add/and/or/xor/max/min/xchg/cas``, ``mask``, ``sem``, ``scope``):
what they compile to on both vendors (one atomic per element however many threads hold it,
the ordering and the target's scope), and the errors at the user's line.
test/gpu/test_atomics.py runs these kernels against torch / numpy, contention included."""

from __future__ import annotations

import math
import os
import re

import numpy as np
import pytest

import kiln
import kiln.language as kl

import compiled
import located

pytestmark = compiled.needs_compiler
HERE = os.path.abspath(__file__)
TARGETS = [("cuda:sm_90a", 32), ("hip:gfx942", 64)]


@kiln.jit
def histogram_kernel(x, bins, n, BLOCK: kl.constexpr, W: kl.constexpr):
    """bins[x[i]] += 1 for every i < n: many programs adding into few addresses."""
    L: kl.constexpr = kl.BlockedLayout([1], [W], [4], [0])
    offs = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK, L)
    m = offs < n
    v = kl.load(x + offs, mask=m, other=0)
    kl.atomic_add(bins + v, 1, mask=m)


@kiln.jit
def rmw_kernel(p, v, out, OP: kl.constexpr, SEM: kl.constexpr, SCOPE: kl.constexpr,
               N: kl.constexpr, W: kl.constexpr):
    """out[i] = atomic_OP(p + i, v[i]) (the old value)."""
    L: kl.constexpr = kl.BlockedLayout([1], [W], [4], [0])
    offs = kl.arange(0, N, L)
    val = kl.load(v + offs)
    if OP == "add":
        old = kl.atomic_add(p + offs, val, sem=SEM, scope=SCOPE)
    elif OP == "and":
        old = kl.atomic_and(p + offs, val, sem=SEM, scope=SCOPE)
    elif OP == "or":
        old = kl.atomic_or(p + offs, val, sem=SEM, scope=SCOPE)
    elif OP == "xor":
        old = kl.atomic_xor(p + offs, val, sem=SEM, scope=SCOPE)
    elif OP == "max":
        old = kl.atomic_max(p + offs, val, sem=SEM, scope=SCOPE)
    elif OP == "min":
        old = kl.atomic_min(p + offs, val, sem=SEM, scope=SCOPE)
    else:
        old = kl.atomic_xchg(p + offs, val, sem=SEM, scope=SCOPE)
    kl.store(out + offs, old)


@kiln.jit
def cas_kernel(p, cmp, v, out, N: kl.constexpr, W: kl.constexpr):
    L: kl.constexpr = kl.BlockedLayout([1], [W], [4], [0])
    offs = kl.arange(0, N, L)
    old = kl.atomic_cas(p + offs, kl.load(cmp + offs), kl.load(v + offs))
    kl.store(out + offs, old)


@kiln.jit
def counter_kernel(c, W: kl.constexpr):
    """One increment per program through a scalar pointer (every thread holds the element;
    one performs the atomic)."""
    kl.atomic_add(c, 1)


@kiln.jit
def broadcast_kernel(p, out, W: kl.constexpr):
    """A 32-element tensor over 4 x W threads: each element is held by several threads."""
    L: kl.constexpr = kl.BlockedLayout([1], [W], [4], [0])
    offs = kl.arange(0, 32, L)
    kl.atomic_add(p + offs, 1.0)


@kiln.jit
def ticket_kernel(c, out):
    """Each program takes a ticket: the old value of a scalar atomic is a scalar, the same in
    every thread (one performs the atomic; the others read its result)."""
    t = kl.atomic_add(c, 1)
    kl.store(out + kl.program_id(0), t)


@kiln.jit
def broadcast_old_kernel(p, out, N: kl.constexpr, W: kl.constexpr):
    """N elements over 4 x W threads (N < 4W: lanes or warps repeat elements), the old values
    used: each program adds 1 to p once per element and writes the old values it saw."""
    L: kl.constexpr = kl.BlockedLayout([1], [W], [4], [0])
    offs = kl.arange(0, N, L)
    old = kl.atomic_add(p + offs, 1)
    kl.store(out + kl.program_id(0) * N + offs, old)


@kiln.jit
def broadcast_cas_kernel(p, out, N: kl.constexpr, W: kl.constexpr):
    """Each program claims the elements still 0 with its id + 1; old values written out."""
    L: kl.constexpr = kl.BlockedLayout([1], [W], [4], [0])
    offs = kl.arange(0, N, L)
    old = kl.atomic_cas(p + offs, 0, kl.program_id(0) + 1)
    kl.store(out + kl.program_id(0) * N + offs, old)


@kiln.jit
def message_kernel(data, flags, out, spins, ROUNDS: kl.constexpr, N: kl.constexpr,
                   W: kl.constexpr, LIMIT: kl.constexpr):
    """Message passing between two programs, ROUNDS times: program 1's thread i writes
    data[r, i] and then sets flags[r, i] with a release; program 0's thread i waits for the
    flag with acquires (at most LIMIT tries a round) and then reads data[r, i] into out."""
    L: kl.constexpr = kl.BlockedLayout([1], [W], [4], [0])
    offs = kl.arange(0, N, L)
    for r in range(ROUNDS):
        if kl.program_id(0) == 1:
            kl.store(data + r * N + offs, offs * 7 + r + 1)
            kl.atomic_xchg(flags + r * N + offs, 1, sem="release")
        else:
            seen = kl.atomic_add(flags + r * N + offs, 0, sem="acquire")
            tries = kl.to_tensor(0)
            while kl.min(seen, axis=0) + (tries >= LIMIT).to(kl.int32) == 0:
                seen = kl.atomic_add(flags + r * N + offs, 0, sem="acquire")
                tries += 1
            kl.store(out + r * N + offs, kl.load(data + r * N + offs))
            kl.store(spins + r, tries)


@kiln.jit
def packed_add_kernel(p, v, out, n, PAIRS: kl.constexpr, STRIDE: kl.constexpr,
                      W: kl.constexpr):
    """For element (r, c) of program pid (r < 4W, c < 2; j = 2 (pid 4W + r) + c < n):
    out[j] = atomic_add(p + (2 (j // 2 % PAIRS) + c) * STRIDE, v[j]), the old value. Every
    program adds into the same 2 PAIRS addresses; a thread holds one row, two adjacent
    elements: with STRIDE 1, 16-bit floats add two at a time."""
    L: kl.constexpr = kl.BlockedLayout([1, 2], [W, 1], [4, 1], [1, 0])
    rows = kl.program_id(0) * (4 * W) + kl.arange(0, 4 * W, kl.SliceLayout(1, L))
    cols = kl.arange(0, 2, kl.SliceLayout(0, L))
    j = rows[:, None] * 2 + cols[None, :]
    m = j < n
    slot = (rows % PAIRS)[:, None] * 2 + cols[None, :]
    old = kl.atomic_add(p + slot * STRIDE, kl.load(v + j, mask=m, other=0.0), mask=m,
                        sem="relaxed")
    kl.store(out + j, old, mask=m)


@kiln.jit
def max_min_kernel(p, v, out, n, OP: kl.constexpr, SLOTS: kl.constexpr, W: kl.constexpr):
    """out[i] = atomic_OP(p + i % SLOTS, v[i]) for i < n: many programs on SLOTS addresses."""
    L: kl.constexpr = kl.BlockedLayout([1], [W], [4], [0])
    offs = kl.program_id(0) * (4 * W) + kl.arange(0, 4 * W, L)
    m = offs < n
    val = kl.load(v + offs, mask=m, other=0.0)
    if OP == "max":
        old = kl.atomic_max(p + offs % SLOTS, val, mask=m)
    else:
        old = kl.atomic_min(p + offs % SLOTS, val, mask=m)
    kl.store(out + offs, old, mask=m)


def asm_of(kernel, sig, consts, target, num_warps=4):
    k = kiln.compile(kernel, sig, consts, target=target, num_warps=num_warps, cache=False)
    return k.asm.get("ptx") or k.asm["amdgcn"]


@pytest.mark.parametrize("target,w", TARGETS)
def test_histogram_compiles_to_one_atomic_per_element(target, w):
    asm = asm_of(histogram_kernel, {"x": "*i32", "bins": "*i32", "n": "i32"},
                 {"BLOCK": 4 * w, "W": w}, target)
    if target.startswith("cuda"):
        ops = re.findall(r"\b(?:atom|red)\.[\w.]*add[\w.]*", asm)
        assert len(ops) == 1, ops
        # The default sem, acq_rel at gpu scope, on the instruction itself (as Triton
        # writes it), not fences around a relaxed one.
        assert re.findall(r"fence\.[\w.]+|atom\.[\w.]+", asm) == [
            "atom.acq_rel.gpu.global.add.u32"]
    else:
        assert len(re.findall(r"global_atomic_add\w*", asm)) == 1


@pytest.mark.parametrize("target,w", TARGETS)
@pytest.mark.parametrize("op", ["add", "and", "or", "xor", "max", "min", "xchg"])
def test_rmw_kinds_compile(target, w, op):
    for dt in ("*i32", "*u32", "*i64"):
        asm_of(rmw_kernel, {"p": dt, "v": dt, "out": dt},
               {"OP": op, "SEM": "acq_rel", "SCOPE": "gpu", "N": 4 * w, "W": w}, target)
    if op in ("add", "max", "min", "xchg"):
        for dt in ("*fp32", "*fp16") if op != "xchg" else ("*fp32",):
            asm_of(rmw_kernel, {"p": dt, "v": dt, "out": dt},
                   {"OP": op, "SEM": "relaxed", "SCOPE": "cta", "N": 4 * w, "W": w}, target)


SEMS = [("relaxed", "cta"), ("acquire", "gpu"), ("release", "sys"), ("acq_rel", "gpu")]
# (op, pointee) -> the PTX operation of `atom`, or the two of a float max/min (integer
# atomics on the bits), or None: no such `atom`, a compare-and-swap loop between fences.
ATOM_OPS = {("add", "i32"): "add.u32", ("add", "u32"): "add.u32", ("add", "i64"): "add.u64",
            ("add", "fp32"): "add.f32", ("add", "fp64"): "add.f64",
            ("add", "fp16"): "add.noftz.f16", ("add", "bf16"): "add.noftz.bf16",
            ("and", "i32"): "and.b32", ("or", "i64"): "or.b64", ("xor", "u32"): "xor.b32",
            ("max", "i32"): "max.s32", ("max", "u32"): "max.u32", ("max", "i64"): "max.s64",
            ("min", "i64"): "min.s64", ("min", "u32"): "min.u32",
            ("xchg", "i32"): "exch.b32", ("xchg", "fp32"): "exch.b32", ("xchg", "i64"): "exch.b64",
            ("xchg", "fp64"): "exch.b64", ("max", "fp32"): ("max.s32", "min.u32"),
            ("min", "fp64"): ("min.s64", "max.u64"), ("min", "fp16"): None}


@pytest.mark.parametrize("sem,scope", SEMS)
def test_sem_and_scope_reach_the_instruction(sem, scope):
    """The memory order and scope are the instruction's own (`atom.<sem>.<scope>`, as Triton
    writes them; LLVM's NVPTX backend would drop both), and ptxas takes every form. A
    32- or 64-bit float max/min is two integer atomics on the bits, both with the sem and
    scope. An operation `atom` lacks (16-bit float max/min) is a relaxed compare-and-swap
    loop between the fences of its sem: release before, acquire after."""
    for (op, dt), want in ATOM_OPS.items():
        sig = {"p": f"*{dt}", "v": f"*{dt}", "out": f"*{dt}"}
        asm = asm_of(rmw_kernel, sig, {"OP": op, "SEM": sem, "SCOPE": scope, "N": 128,
                                       "W": 32}, "cuda:sm_90a")
        got = re.findall(r"\bfence\.[\w.]+|\batom\.[\w.]+", asm)
        if want is not None:
            want = (want,) if isinstance(want, str) else want
            assert got == [f"atom.{sem}.{scope}.global.{w}" for w in want], (op, dt, got)
            continue
        width = 64 if dt == "fp64" else 32
        fence = f"fence.acq_rel.{scope}"
        expect = ([fence] if sem in ("release", "acq_rel") else []) + \
            [f"atom.relaxed.{scope}.global.cas.b{width}"] + \
            ([fence] if sem in ("acquire", "acq_rel") else [])
        assert got == expect, (op, dt, got)
    asm = asm_of(cas_kernel, {"p": "*i64", "cmp": "*i64", "v": "*i64", "out": "*i64"},
                 {"N": 128, "W": 32}, "cuda:sm_90a")
    assert re.findall(r"\bfence\.[\w.]+|\batom\.[\w.]+", asm) == [
        "atom.acq_rel.gpu.global.cas.b64"]


@pytest.mark.parametrize("target,w", TARGETS)
@pytest.mark.parametrize("dt", ["fp32", "fp64"])
@pytest.mark.parametrize("op", ["max", "min"])
def test_float_max_min_are_integer_atomics_on_the_bits(target, w, dt, op):
    """fp32 / fp64 atomic_max is, as in Triton, a signed integer max on the bits where the
    value's sign bit is clear and an unsigned min where it is set (atomic_min: signed min,
    unsigned max), each under the mask, with the atomic's sem and scope: no compare-and-swap
    loop. test_float_bit_trick_matches_float_order checks the order it computes."""
    n = 32 if dt == "fp32" else 64
    signed, unsigned = ("max", "min") if op == "max" else ("min", "max")
    asm = asm_of(max_min_kernel, {"p": f"*{dt}", "v": f"*{dt}", "out": f"*{dt}", "n": "i32"},
                 {"OP": op, "SLOTS": 8, "W": w}, target)
    if target.startswith("cuda"):
        assert "cas" not in asm
        assert re.findall(r"\bfence\.[\w.]+|\batom\.[\w.]+", asm) == [
            f"atom.acq_rel.gpu.global.{signed}.s{n}", f"atom.acq_rel.gpu.global.{unsigned}.u{n}"]
    else:
        assert "cmpswap" not in asm
        x2 = "" if n == 32 else "_x2"
        assert re.findall(r"\bglobal_atomic_\w+", asm) == [
            f"global_atomic_s{signed}{x2}", f"global_atomic_u{unsigned}{x2}"]


_INTS = {np.float32: (np.int32, np.uint32), np.float64: (np.int64, np.uint64)}


def _bit_trick_rmw(op, mem, x):
    """atomic_max / atomic_min of the floats ``x`` into ``mem`` (numpy arrays of one float
    type, an address per element), as the DSL emits it (Semantic._float_max_min): two
    integer atomics on the bits of ``mem``, the first (signed max / min) masked by "the sign
    bit of x is clear", the second (unsigned min / max) by "it is set"; the old value is the
    one of the atomic that acted. Updates ``mem``; returns the old values."""
    sint, uint = _INTS[mem.dtype.type]
    ival = x.view(sint)
    pos = ~(ival < 0)
    signed, unsigned = (np.maximum, np.minimum) if op == "max" else (np.minimum, np.maximum)
    bits = mem.view(sint)
    old_pos = bits.copy()
    bits[:] = np.where(pos, signed(bits, ival), bits)
    ubits = mem.view(uint)
    old_neg = ubits.copy()
    ubits[:] = np.where(~pos, unsigned(ubits, ival.view(uint)), ubits)
    return np.where(pos, old_pos, old_neg.view(sint)).view(mem.dtype)


def _float_stream(rng, ftype, shape):
    """Floats of ``ftype``, no NaN: +-0.0, infinities, denormals, the extremes, random
    values, and random bit patterns of either sign (denormals among them)."""
    sint, uint = _INTS[ftype]
    info = np.finfo(ftype)
    special = np.array([0.0, math.inf, info.smallest_subnormal, 3 * info.smallest_subnormal,
                        info.smallest_normal - info.smallest_subnormal, info.smallest_normal,
                        info.max, 1.0, 1.5], ftype)
    special = np.concatenate([special, -special])
    n = 8 * np.dtype(ftype).itemsize
    inf_bits = int(np.array(math.inf, ftype).view(uint))  # the bits above it are NaNs
    patterns = (rng.integers(0, inf_bits, shape, dtype=uint, endpoint=True) |
                (rng.integers(0, 2, shape, dtype=uint) << uint(n - 1))).view(ftype)
    values = (rng.standard_normal(shape) * 10).astype(ftype)
    pick = rng.integers(0, 3, shape)
    return np.where(pick == 0, rng.choice(special, shape),
                    np.where(pick == 1, patterns, values))


@pytest.mark.parametrize("ftype", [np.float32, np.float64], ids=["fp32", "fp64"])
@pytest.mark.parametrize("op", ["max", "min"])
def test_float_bit_trick_matches_float_order(op, ftype):
    """Brute force, no GPU: the bit trick applied in sequence to random streams of floats
    (+-0.0, infinities, denormals, random values and bit patterns; no NaN), 500 streams of
    60, leaves the value Python's max / min of the floats leaves, and returns the same old
    value at every step. Bitwise it orders -0.0 below +0.0: against a reference breaking
    that tie so, the values agree bit for bit."""
    rng = np.random.default_rng(20261129 + (op == "min") + 2 * (ftype is np.float64))
    streams, steps = 500, 60
    xs = _float_stream(rng, ftype, (steps, streams))
    mem = _float_stream(rng, ftype, (streams,))
    ref = [float(v) for v in mem]
    tied = list(ref)
    pick = max if op == "max" else min
    key = lambda v: (v, math.copysign(1.0, v))  # noqa: E731  (-0.0 below +0.0)

    def bits(values):
        return np.array(values, ftype).view(_INTS[ftype][1])

    for x in xs:
        old = _bit_trick_rmw(op, mem, x)
        assert [float(v) for v in old] == ref
        assert np.array_equal(old.view(_INTS[ftype][1]), bits(tied))
        ref = [pick(r, float(v)) for r, v in zip(ref, x)]
        tied = [pick(t, float(v), key=key) for t, v in zip(tied, x)]
    assert [float(v) for v in mem] == ref
    assert np.array_equal(mem.view(_INTS[ftype][1]), bits(tied))


@pytest.mark.parametrize("target,w", TARGETS)
def test_message_passing_compiles(target, w):
    """test/gpu's release/acquire litmus: the release and acquire reach the instructions."""
    asm = asm_of(message_kernel, {"data": "*i32", "flags": "*i32", "out": "*i32",
                                  "spins": "*i32"},
                 {"ROUNDS": 2, "N": 4 * w, "W": w, "LIMIT": 100}, target)
    if target.startswith("cuda"):
        assert "atom.release.gpu.global.exch.b32" in asm
        assert "atom.acquire.gpu.global.add.u32" in asm


@kiln.jit
def old_value_kernel(counter, out, USE: kl.constexpr, CAS: kl.constexpr = False):
    """One scalar atomic (an add, or a compare-and-swap as a lock's): its old value stored
    (USE) or dropped."""
    if CAS:
        old = kl.atomic_cas(counter, 0, 1, sem="release", scope="gpu")
    else:
        old = kl.atomic_add(counter, 1, sem="release", scope="gpu")
    if USE:
        kl.store(out, old)


@pytest.mark.parametrize("target,w", TARGETS)
def test_dropped_scalar_atomic_passes_nothing_through_shared_memory(target, w):
    """A scalar atomic (add or compare-and-swap) whose value the kernel drops (the DSL's
    reduce to the scalar stays in the IR, unused) acts once and passes no old value to the other threads: no shared-memory
    store, no barrier. Used, the value reaches every thread through shared memory after a
    barrier."""
    sig = {"counter": "*i32", "out": "*i32"}
    for cas, op in ((False, "add"), (True, "cas")):
        dropped = asm_of(old_value_kernel, sig, {"USE": False, "CAS": cas}, target)
        used = asm_of(old_value_kernel, sig, {"USE": True, "CAS": cas}, target)
        if target.startswith("cuda"):
            width = "b32" if cas else "u32"
            assert re.findall(r"\batom\.[\w.]+", dropped) == [
                f"atom.release.gpu.global.{op}.{width}"]
            for pattern in (r"\bbar\.sync\b|\bbarrier\.sync\b", r"\bst\.shared\b"):
                assert not re.search(pattern, dropped), dropped
                assert re.search(pattern, used), used
        else:
            amd_op = "cmpswap" if cas else "add"
            assert len(re.findall(rf"global_atomic_{amd_op}\w*", dropped)) == 1, dropped
            assert "s_barrier" not in dropped and "ds_write" not in dropped, dropped
            assert "s_barrier" in used


@pytest.mark.parametrize("sem,scope", SEMS)
def test_amd_orders_the_atomic_itself(sem, scope):
    """On AMD targets the ordering is the atomicrmw's (LLVM's AMDGPU backend lowers it: a
    release writes back L2 before, an acquire invalidates after), at the agent or workgroup
    scope."""
    k = kiln.compile(rmw_kernel, {"p": "*i32", "v": "*i32", "out": "*i32"},
                     {"OP": "add", "SEM": sem, "SCOPE": scope, "N": 256, "W": 64},
                     target="hip:gfx942", num_warps=4, cache=False)
    llscope = {"cta": "workgroup", "gpu": "agent", "sys": None}[scope]
    order = {"relaxed": "monotonic"}.get(sem, sem)
    where = 'syncscope\\("' + llscope + '"\\) ' if llscope else ""
    pattern = r"atomicrmw add ptr addrspace\(1\) %\w+, i32 %\w+ " + where + order
    assert len(re.findall(pattern, k.asm["llir"])) == 1, k.asm["llir"]
    assert "fence" not in k.asm["llir"]
    asm = k.asm["amdgcn"]
    assert len(re.findall(r"global_atomic_add\b", asm)) == 1
    if sem in ("release", "acq_rel") and scope != "cta":
        assert "buffer_wbl2" in asm
    if sem in ("acquire", "acq_rel") and scope != "cta":
        assert "buffer_inv" in asm


@pytest.mark.parametrize("target,w", TARGETS)
def test_cas_and_scalar_counter_compile(target, w):
    asm_of(cas_kernel, {"p": "*i32", "cmp": "*i32", "v": "*i32", "out": "*i32"},
           {"N": 4 * w, "W": w}, target)
    asm_of(cas_kernel, {"p": "*fp32", "cmp": "*fp32", "v": "*fp32", "out": "*fp32"},
           {"N": 4 * w, "W": w}, target)
    asm = asm_of(counter_kernel, {"c": "*i32"}, {"W": w}, target)
    if target.startswith("cuda"):  # one atomic, behind the one-thread test
        assert len(re.findall(r"\b(?:atom|red)\.[\w.]*add", asm)) == 1


@kiln.jit
def e_int8(p, out):
    L: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    kl.atomic_add(p + kl.arange(0, 128, L), 1)  # E:i8


@kiln.jit
def e_sem(p, out):
    L: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    kl.atomic_add(p + kl.arange(0, 128, L), 1.0, sem="seq_cst")  # E:sem


@kiln.jit
def e_float_and(p, out):
    L: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    kl.atomic_and(p + kl.arange(0, 128, L), 1.0)  # E:fand


@kiln.jit
def e_cas_i16(p, out):
    L: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    q = p + kl.arange(0, 128, L)
    kl.atomic_cas(q, 0, 1)  # E:cas


ERRORS = [
    (e_cas_i16, "E:cas", {"p": "*i16", "out": "*i16"},
     r"atomic_cas needs 32- or 64-bit values, got int16"),
    (e_int8, "E:i8", {"p": "*i8", "out": "*i8"},
     r"atomic_add: atomics need 32- or 64-bit integers, got int8"),
    (e_sem, "E:sem", {"p": "*fp32", "out": "*fp32"},
     r"atomic_add: sem must be one of relaxed, acquire, release, acq_rel, got 'seq_cst'"),
    (e_float_and, "E:fand", {"p": "*fp32", "out": "*fp32"},
     r"atomic_and needs integer values, got fp32"),
]


@pytest.mark.parametrize("fn,marker,sig,message", ERRORS, ids=[e[1] for e in ERRORS])
def test_errors_point_at_the_call(fn, marker, sig, message):
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(fn, sig, {}, target="cuda:sm_90a", num_warps=4, cache=False)
    anchor = {"E:fand": "kl.atomic_and", "E:cas": "kl.atomic_cas"}.get(marker, "kl.atomic_add")
    located.assert_located(ei.value, HERE, marker, anchor, message, kiln.CompilationError)


@kiln.jit
def e_cas_int_literal(p, out):
    L: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    kl.atomic_cas(p + kl.arange(0, 128, L), 0, 1.0)  # E:cas-int


@kiln.jit
def e_cas_int_tensor(p, out):
    L: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    offs = kl.arange(0, 128, L)
    kl.atomic_cas(p + offs, kl.load(out + offs), 1.0)  # E:cas-tensor


@kiln.jit
def e_cas_float_literal(p, out):
    kl.atomic_cas(p, 0, 1.5)  # E:cas-float


@kiln.jit
def e_cas_too_big(p, out):
    kl.atomic_cas(p, 4294967296, 1)  # E:cas-big


CAS_TYPES = [
    (e_cas_int_literal, "E:cas-int", {"p": "*fp32", "out": "*fp32"},
     r"atomic_cas: cmp must have the pointer's element type fp32, got 0 \(a Python int\); "
     r"convert it explicitly \(\.to\(\) for the value, \.to\(\.\.\., bitcast=True\) for "
     r"the bits\)"),
    (e_cas_int_tensor, "E:cas-tensor", {"p": "*fp32", "out": "*i32"},
     r"atomic_cas: cmp must have the pointer's element type fp32, got a tensor of int32; "
     r"convert it explicitly .*"),
    (e_cas_float_literal, "E:cas-float", {"p": "*i32", "out": "*i32"},
     r"atomic_cas: val must have the pointer's element type int32, got 1\.5 \(a Python "
     r"float\); convert it explicitly .*"),
    (e_cas_too_big, "E:cas-big", {"p": "*i32", "out": "*i32"},
     r"atomic_cas: cmp must have the pointer's element type int32, got 4294967296, which "
     r"int32 cannot hold"),
]


@pytest.mark.parametrize("fn,marker,sig,message", CAS_TYPES, ids=[e[1] for e in CAS_TYPES])
def test_cas_operands_of_another_type_are_refused(fn, marker, sig, message):
    """cmp and val of another type than the pointer's elements are an error at the call, as
    in Triton (tt.atomic_cas takes only the pointee type), not an implicit conversion: the
    compare is bitwise, so an int next to float elements could mean its value or its bits."""
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(fn, sig, {}, target="cuda:sm_90a", num_warps=4, cache=False)
    located.assert_located(ei.value, HERE, marker, "kl.atomic_cas", message,
                           kiln.CompilationError)


@kiln.jit
def cas_literals(p, q):
    kl.atomic_cas(p, 0, 1)
    kl.atomic_cas(q, 0.0, 1.0)


def test_cas_literals_of_the_pointee_kind_take_its_type():
    # An int literal takes any integer type that holds it (i64 here; Triton would type it
    # int32 and refuse it), a float literal any float type.
    k = kiln.compile(cas_literals, {"p": "*i64", "q": "*fp64"}, {}, target="cuda:sm_90a",
                     num_warps=4, cache=False)
    assert re.search(r"atom\.[\w.]*cas\.b64", k.asm["ptx"]), k.asm["ptx"]


def test_broadcast_layout_without_result_compiles():
    asm = asm_of(broadcast_kernel, {"p": "*fp32", "out": "*fp32"}, {"W": 32}, "cuda:sm_90a")
    assert len(re.findall(r"\b(?:atom|red)\.[\w.]*add", asm)) == 1


PACKED = {"cuda:sm_90a": {"fp16": r"atom\.relaxed\.gpu\.global\.add\.noftz\.f16x2",
                          "bf16": r"atom\.relaxed\.gpu\.global\.add\.noftz\.bf16x2"},
          "cuda:sm_80": {"fp16": r"atom\.relaxed\.gpu\.global\.add\.noftz\.f16x2"},
          "hip:gfx942": {"fp16": r"global_atomic_pk_add_f16", "bf16": r"global_atomic_pk_add_bf16"},
          "hip:gfx950": {"fp16": r"global_atomic_pk_add_f16", "bf16": r"global_atomic_pk_add_bf16"}}


@pytest.mark.parametrize("target", sorted(PACKED))
@pytest.mark.parametrize("dt", ["fp16", "bf16"])
def test_16_bit_float_adds_are_packed_where_the_hardware_has_it(target, dt):
    """Two adjacent 16-bit floats of a thread (4-byte aligned, one mask) are one packed add
    (sm_60+ f16x2, sm_90+ bf16x2, CDNA3/4 pk_add); elsewhere, and for pointers that are not
    adjacent, one atomic per element."""
    w = 64 if target.startswith("hip") else 32
    sig = {"p": f"*{dt}:16", "v": f"*{dt}:16", "out": f"*{dt}:16", "n": "i32:16"}
    consts = {"PAIRS": 128, "STRIDE": 1, "W": w}
    asm = asm_of(packed_add_kernel, sig, consts, target)
    packed = PACKED[target].get(dt)
    if packed is None:  # bf16x2 needs sm_90
        assert not re.search(r"bf16x2", asm)
        return
    assert len(re.findall(packed, asm)) == 1, asm
    # Every other element (not adjacent): one atomic each, none packed.
    asm = asm_of(packed_add_kernel, sig, dict(consts, STRIDE=2), target)
    assert not re.search(packed, asm)
    if target.startswith("cuda"):
        assert len(re.findall(rf"atom\.[\w.]*add\.noftz\.{dt.replace('fp', 'f')}\b", asm)) == 2


@pytest.mark.parametrize("target", ["cuda:sm_90a", "hip:gfx942"])
def test_scalar_atomic_returns_a_scalar(target):
    asm = asm_of(ticket_kernel, {"c": "*i32", "out": "*i32"}, {}, target)
    if target.startswith("cuda"):  # one atomic; its result passes through shared memory
        assert len(re.findall(r"\batom\.[\w.]*add", asm)) == 1
        assert "st.shared" in asm and "ld.shared" in asm
    else:
        assert len(re.findall(r"\bglobal_atomic_add", asm)) == 1
        assert "ds_write" in asm and "ds_read" in asm


@pytest.mark.parametrize("n", [1, 8, 32, 64])
def test_old_values_of_repeated_elements_are_broadcast(n):
    """One atomic per element however many threads hold it; its old value is written to the
    scratch once and read back by every holder, between two barriers."""
    k = kiln.compile(broadcast_old_kernel, {"p": "*i32", "out": "*i32"}, {"N": n, "W": 32},
                     target="cuda:sm_90a", num_warps=4, cache=False)
    ptx = k.asm["ptx"]
    per_thread = max(1, n // 128)
    assert len(re.findall(r"\batom\.[\w.]*add", ptx)) == per_thread
    assert len(re.findall(r"\bbar\.sync", ptx)) == 2
    assert k.metadata.shared >= 4 * n
