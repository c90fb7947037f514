"""Gluon 3.6 names Kiln lacked (docs/gluon-coverage.md): ``add``/``sub``/``mul``, ``xor_sum``,
``reduce_or``, ``umulhi``, ``erf``, ``fdiv``, ``div_rn``, ``sqrt_rn``, ``thread_barrier`` and
hopper's re-exports of ``async_copy`` / ``mma_v2``: what each compiles to on both vendors and
the errors at the user's line. test/gpu/test_language_extras.py runs these kernels against
torch on fresh random inputs."""

from __future__ import annotations

import os
import re

import pytest

import kiln
import kiln.language as kl

import compiled
import located

pytestmark = compiled.needs_compiler
HERE = os.path.abspath(__file__)


@kiln.jit
def unary_kernel(x, out, N: kl.constexpr, OP: kl.constexpr, W: kl.constexpr):
    L: kl.constexpr = kl.BlockedLayout([1], [W], [4], [0])
    offs = kl.arange(0, N, L)
    a = kl.load(x + offs)
    if OP == "erf":
        r = kl.erf(a)
    else:
        r = kl.sqrt_rn(a)
    kl.store(out + offs, r)


@kiln.jit
def binary_kernel(x, y, out, N: kl.constexpr, OP: kl.constexpr, W: kl.constexpr):
    L: kl.constexpr = kl.BlockedLayout([1], [W], [4], [0])
    offs = kl.arange(0, N, L)
    a = kl.load(x + offs)
    b = kl.load(y + offs)
    if OP == "umulhi":
        r = kl.umulhi(a, b)
    elif OP == "fdiv":
        r = kl.fdiv(a, b)
    elif OP == "fdiv_ieee":
        r = kl.fdiv(a, b, ieee_rounding=True)
    elif OP == "div_rn":
        r = kl.div_rn(a, b)
    elif OP == "add":
        r = kl.add(a, b)
    elif OP == "sub":
        r = kl.sub(a, b)
    else:
        r = kl.mul(a, b)
    kl.store(out + offs, r)


@kiln.jit
def bitwise_reduce_kernel(x, out, M: kl.constexpr, N: kl.constexpr, OP: kl.constexpr,
                          AXIS: kl.constexpr, W: kl.constexpr):
    """Reduces an M x N integer tile along AXIS (or all of it when AXIS is None) and stores the
    result (an M- or N-vector, or one element) from every thread holding it."""
    L: kl.constexpr = kl.BlockedLayout([1, 2], [W // 8, 8], [4, 1], [1, 0])
    rm = kl.arange(0, M, kl.SliceLayout(1, L))
    rn = kl.arange(0, N, kl.SliceLayout(0, L))
    a = kl.load(x + rm[:, None] * N + rn[None, :])
    r = kl.xor_sum(a, AXIS) if OP == "xor" else kl.reduce_or(a, AXIS)
    if AXIS == 0:
        kl.store(out + rn, r)
    elif AXIS == 1:
        kl.store(out + rm, r)
    else:
        kl.store(out + kl.arange(0, 1, kl.SliceLayout(0, L)), kl.full([1], r, r.dtype,
                                                                     kl.SliceLayout(0, L)))


@kiln.jit
def barrier_kernel(x, out, N: kl.constexpr, W: kl.constexpr):
    """Writes shared memory in one layout, passes a thread_barrier, reads it back in another."""
    L: kl.constexpr = kl.BlockedLayout([2], [W], [4], [0])
    R: kl.constexpr = kl.BlockedLayout([1], [W], [4], [0])
    buf = kl.allocate_shared_memory(kl.float32, [N], kl.SwizzledSharedLayout(1, 1, 1, [0]))
    buf.store(kl.load(x + kl.arange(0, N, L)))
    kl.thread_barrier()
    kl.store(out + kl.arange(0, N, R), buf.load(R))


TARGETS = [("cuda:sm_90a", 32), ("hip:gfx942", 64)]


def asm_of(kernel, sig, consts, target):
    k = kiln.compile(kernel, sig, consts, target=target, num_warps=4, cache=False)
    return k.asm.get("ptx") or k.asm["amdgcn"]


@pytest.mark.parametrize("target,w", TARGETS)
def test_umulhi_is_the_high_multiply(target, w):
    asm = asm_of(binary_kernel, {"x": "*i32", "y": "*i32", "out": "*i32"},
                 {"N": 4 * w, "OP": "umulhi", "W": w}, target)
    assert re.search(r"mul\.hi\.u32|v_mul_hi_u32", asm), asm[-2000:]
    asm = asm_of(binary_kernel, {"x": "*i64", "y": "*i64", "out": "*i64"},
                 {"N": 4 * w, "OP": "umulhi", "W": w}, target)
    assert re.search(r"mul\.hi\.u64|mul\.hi\.u32|mad\.hi|v_mul_hi_u32", asm)


@pytest.mark.parametrize("target,w", TARGETS)
@pytest.mark.parametrize("op", ["fdiv", "fdiv_ieee", "div_rn"])
def test_divisions_round_to_nearest(target, w, op):
    asm = asm_of(binary_kernel, {"x": "*fp32", "y": "*fp32", "out": "*fp32"},
                 {"N": 4 * w, "OP": op, "W": w}, target)
    if target.startswith("cuda") and op == "fdiv":  # Triton's approximate f32 division
        assert "div.full.f32" in asm and "div.rn" not in asm
    elif target.startswith("cuda"):
        assert "div.rn.f32" in asm and "div.full" not in asm and "div.approx" not in asm
    else:
        assert "v_div_fixup_f32" in asm  # the IEEE division sequence (every spelling on AMD)


@pytest.mark.parametrize("target,w", TARGETS)
def test_sqrt_rn_and_erf_compile(target, w):
    asm = asm_of(unary_kernel, {"x": "*fp32", "out": "*fp32"}, {"N": 4 * w, "OP": "sqrt_rn",
                                                                "W": w}, target)
    assert re.search(r"sqrt\.rn\.f32|v_sqrt_f32", asm)
    asm = asm_of(unary_kernel, {"x": "*fp32", "out": "*fp32"}, {"N": 4 * w, "OP": "erf",
                                                                "W": w}, target)
    # NVIDIA: libdevice's erff, linked and inlined; AMD: an inline polynomial. No call left.
    assert not re.search(r"\bcall\b|s_swappc", asm)
    for dt in ("*fp16", "*bf16"):  # computed in f32
        asm_of(unary_kernel, {"x": dt, "out": dt}, {"N": 4 * w, "OP": "erf", "W": w}, target)


@pytest.mark.parametrize("target,w", TARGETS)
@pytest.mark.parametrize("op", ["xor", "or"])
@pytest.mark.parametrize("axis", [0, 1, None])
def test_bitwise_reductions_compile(target, w, op, axis):
    asm_of(bitwise_reduce_kernel, {"x": "*i32", "out": "*i32"},
           {"M": 16, "N": 32, "OP": op, "AXIS": axis, "W": w}, target)


@pytest.mark.parametrize("target,w", TARGETS)
def test_thread_barrier_is_a_cta_barrier(target, w):
    asm = asm_of(barrier_kernel, {"x": "*fp32", "out": "*fp32"}, {"N": 8 * w, "W": w}, target)
    assert re.search(r"bar\.sync|barrier\.sync|s_barrier", asm)


def test_hopper_reexports_amperes():
    hopper, ampere = kl.nvidia.hopper, kl.nvidia.ampere
    assert hopper.mma_v2 is ampere.mma_v2 and hopper.async_copy is ampere.async_copy
    assert {"async_copy", "mma_v2"} <= set(hopper.__all__)


@kiln.jit
def e_umulhi_float(x):
    a = kl.full([128], 1.0, kl.float32, kl.BlockedLayout([1], [32], [4], [0]))
    kl.umulhi(a, a)  # E:umulhi


@kiln.jit
def e_erf_int(x):
    a = kl.full([128], 1, kl.int32, kl.BlockedLayout([1], [32], [4], [0]))
    kl.erf(a)  # E:erf


@kiln.jit
def e_xor_float(x):
    a = kl.full([128], 1.0, kl.float32, kl.BlockedLayout([1], [32], [4], [0]))
    kl.xor_sum(a)  # E:xor


@kiln.jit
def e_div_int(x):
    a = kl.full([128], 1, kl.int32, kl.BlockedLayout([1], [32], [4], [0]))
    kl.div_rn(a, a)  # E:div


ERRORS = [
    (e_umulhi_float, "E:umulhi", "kl.umulhi",
     r"umulhi expects 32- or 64-bit integer operands, got fp32 and fp32"),
    (e_erf_int, "E:erf", "kl.erf", r"erf expects a float32, float16 or bfloat16 operand, got int32"),
    (e_xor_float, "E:xor", "kl.xor_sum", r"xor_sum expects an integer tensor, got fp32"),
    (e_div_int, "E:div", "kl.div_rn", r"div_rn expects floating-point operands, got int32 and int32"),
]


@pytest.mark.parametrize("fn,marker,anchor,message", ERRORS, ids=[e[1] for e in ERRORS])
def test_errors_point_at_the_call(fn, marker, anchor, message):
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(fn, {"x": "*fp32"}, {}, target="cuda:sm_90a", num_warps=4, cache=False)
    located.assert_located(ei.value, HERE, marker, anchor, message, kiln.CompilationError)


@kiln.jit
def hinted_copy(x, out, start, N: kl.constexpr, HINT: kl.constexpr):
    """out[start + i] = x[start + i]: ``start`` is a runtime int the launcher did not specialize,
    so without a hint the loads and stores cannot be proven 16-byte aligned."""
    L: kl.constexpr = kl.BlockedLayout([4], [32], [4], [0])
    offs = start + kl.arange(0, N, L)
    if HINT:
        offs = kl.max_contiguous(kl.multiple_of(offs, 4), N)
    kl.store(out + offs, kl.load(x + offs))


def test_multiple_of_lets_loads_vectorize():
    sig = {"x": "*fp32:16", "out": "*fp32:16", "start": "i32"}
    plain = asm_of(hinted_copy, sig, {"N": 512, "HINT": False}, "cuda:sm_90a")
    hinted = asm_of(hinted_copy, sig, {"N": 512, "HINT": True}, "cuda:sm_90a")
    assert "ld.global.v4" not in plain and "ld.global.v4" in hinted
    assert "st.global.v4" in hinted


@kiln.jit
def e_hint_rank(x):
    a = kl.full([16, 16], 1, kl.int32, kl.BlockedLayout([1, 1], [4, 8], [4, 1], [1, 0]))
    kl.multiple_of(a, 16)  # E:hint


@kiln.jit
def e_hint_float(x):
    a = kl.full([16], 1.0, kl.float32, kl.BlockedLayout([1], [32], [1], [0]))
    kl.max_constancy(a, 4)  # E:hintf


def test_hint_errors():
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(e_hint_rank, {"x": "*fp32"}, {}, target="cuda:sm_90a", num_warps=4,
                     cache=False)
    located.assert_located(ei.value, HERE, "E:hint", "kl.multiple_of",
                           r"multiple_of: values must be 2 int\(s\), one per dimension of the "
                           r"input, got \[16\]", kiln.CompilationError)
    # Booleans are taken (a mask's constancy); floats are not.
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(e_hint_float, {"x": "*fp32"}, {}, target="cuda:sm_90a", num_warps=1,
                     cache=False)
    located.assert_located(ei.value, HERE, "E:hintf", "kl.max_constancy",
                           r"max_constancy hints integers, booleans or pointers, got fp32",
                           kiln.CompilationError)


@kiln.jit
def masked_buffer_load(x, out, n, HINT: kl.constexpr):
    L: kl.constexpr = kl.BlockedLayout([4], [64], [1], [0])
    offs = kl.arange(0, 256, L)
    mask = offs < n
    if HINT:
        mask = kl.max_constancy(mask, 4)
    v = kl.amd.cdna4.buffer_load(ptr=x, offsets=offs, mask=mask, other=0.0)
    kl.store(out + offs, v)


@pytest.mark.parametrize("hint,x4,x1", [(False, 0, 4), (True, 1, 0)])
def test_max_constancy_on_a_mask_widens_the_masked_load(hint, x4, x1):
    """Gluon takes constancy hints on booleans (a third-party top-k hints its load mask):
    the mask constant over 4 elements lets each thread load its 4 floats at once."""
    k = kiln.compile(masked_buffer_load, {"x": "*fp32:16", "out": "*fp32:16", "n": "i32"},
                     {"HINT": hint}, target="hip:gfx950", num_warps=1, cache=False)
    asm = k.asm["amdgcn"]
    assert (asm.count("buffer_load_dwordx4"), asm.count("buffer_load_dword ")) == (x4, x1)


@kiln.jit
def _selu_scalar(x, alpha):
    return kl.where(x > 0, x, alpha * (kl.exp(x) - 1))


@kiln.jit
def map_kernel(x, out, alpha, N: kl.constexpr):
    L: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    offs = kl.arange(0, N, L)
    kl.store(out + offs, kl.map_elementwise(_selu_scalar, kl.load(x + offs), alpha))


@kiln.jit
def ravel_kernel(x, out, M: kl.constexpr, N: kl.constexpr):
    """out = x.ravel() for an M x N tile, stored through a 1-D layout."""
    L: kl.constexpr = kl.BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0])
    F: kl.constexpr = kl.BlockedLayout([4], [32], [4], [0])
    a = kl.load(x + kl.arange(0, M, kl.SliceLayout(1, L))[:, None] * N +
                kl.arange(0, N, kl.SliceLayout(0, L))[None, :])
    kl.static_assert(kl.num_ctas() == 1)
    kl.store(out + kl.arange(0, M * N, F), kl.convert_layout(kl.ravel(a), F))


@kiln.jit
def fp8e4b15_copy(x, out, N: kl.constexpr):
    L: kl.constexpr = kl.BlockedLayout([4], [32], [4], [0])
    offs = kl.arange(0, N, L)
    kl.store(out + offs, kl.load(x + offs))


def test_map_elementwise_ravel_num_ctas_fp8e4b15_compile():
    for t, w in TARGETS:
        if w == 32:
            asm_of(map_kernel, {"x": "*fp32", "out": "*fp32", "alpha": "fp32"}, {"N": 128}, t)
            asm_of(ravel_kernel, {"x": "*fp32", "out": "*fp32"}, {"M": 16, "N": 32}, t)
            asm = asm_of(fp8e4b15_copy, {"x": "*fp8e4b15", "out": "*fp8e4b15"}, {"N": 512}, t)
            assert "ld.global" in asm
    assert kl.float8e4b15.primitive_bitwidth == 8 and str(kl.float8e4b15) == "fp8e4b15"


@kiln.jit
def e_map_not_jit(x):
    a = kl.full([128], 1.0, kl.float32, kl.BlockedLayout([1], [32], [4], [0]))
    kl.map_elementwise(abs, a)  # E:map


@kiln.jit
def _branchy(v):
    if v > 0:
        return v * 2.0
    return -v


@kiln.jit
def _nested_branches(a, b):
    r = a
    if a > b:
        r = b
        if b < 0:
            r = 0.0
    elif a < -b:
        r = -b
    return r


@kiln.jit
def map_branch_kernel(x, y, out, N: kl.constexpr, W: kl.constexpr):
    """map_elementwise of functions that branch on their values, as Gluon's run per element."""
    L: kl.constexpr = kl.BlockedLayout([1], [W], [4], [0])
    offs = kl.arange(0, N, L)
    a, b = kl.load(x + offs), kl.load(y + offs)
    kl.store(out + offs, kl.map_elementwise(_branchy, a))
    kl.store(out + N + offs, kl.map_elementwise(_nested_branches, a, b))


@kiln.jit
def _halvings(x):
    n = 0
    while x > 1.0:
        x = x * 0.5
        n += 1
    return n.to(kl.float32) + x


@kiln.jit
def _repeat_add(x, k):
    acc = x * 0.0
    for i in range(k):
        acc += x
    return acc


@kiln.jit
def _nested_loops(x):
    steps = 0
    while x > 1.0:
        y = x
        while y > 2.0:
            y = y - 2.0
            steps += 1
        x = x * 0.5
    return steps


@kiln.jit
def _loop_in_branch(x):
    r = x
    if x > 10.0:
        while r > 10.0:  # only the elements above 10 iterate
            r = r - 3.0
    else:
        r = -r
    return r


@kiln.jit
def _gather_in_branch(i, p, n):
    v = i.to(kl.float32) * 0.0
    if (i >= 0) & (i < n):
        v = kl.load(p + i)  # only the elements with 0 <= i < n read
    return v


@kiln.jit
def map_loop_kernel(x, k, out, N: kl.constexpr, W: kl.constexpr):
    """map_elementwise of functions that loop on their values, as Gluon's run per element."""
    L: kl.constexpr = kl.BlockedLayout([1], [W], [4], [0])
    offs = kl.arange(0, N, L)
    a, c = kl.load(x + offs), kl.load(k + offs)
    kl.store(out + offs, kl.map_elementwise(_halvings, a))
    kl.store(out + N + offs, kl.map_elementwise(_repeat_add, a, c))
    kl.store(out + 2 * N + offs, kl.map_elementwise(_nested_loops, a).to(kl.float32))
    kl.store(out + 3 * N + offs, kl.map_elementwise(_loop_in_branch, a))
    kl.store(out + 4 * N + offs, kl.map_elementwise(_gather_in_branch, c, x + offs * 0,
                                                    c * 0 + 10))


@kiln.jit
def _prints_in_loop(v):
    while v > 1.0:  # E:loopside
        kl.device_print("v", v)
        v = v * 0.5
    return v


@kiln.jit
def e_map_loop_side_effect(x):
    L: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    offs = kl.arange(0, 128, L)
    kl.map_elementwise(_prints_in_loop, kl.load(x + offs))


@kiln.jit
def _zero_step(x, k):
    acc = x
    for i in range(k, 10, 0):  # E:step
        acc += x
    return acc


@kiln.jit
def _carries_a_tuple(x):
    t = (x, x)
    while x > 1.0:  # E:tuple
        t = (t[0] * 0.5, t[1])
        x = x * 0.5
    return t[0]


@kiln.jit
def e_map_loop_errors(x, k, WHICH: kl.constexpr):
    L: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    offs = kl.arange(0, 128, L)
    if WHICH == 0:
        kl.map_elementwise(_zero_step, kl.load(x + offs), kl.load(k + offs))
    else:
        kl.map_elementwise(_carries_a_tuple, kl.load(x + offs))


@pytest.mark.parametrize("which,marker,anchor,message", [
    (0, "E:step", "range(k, 10, 0)",
     r"a range over values in map_elementwise's function needs a nonzero compile-time step"),
    (1, "E:tuple", "while x > 1.0:",
     r"'t': a while loop on a value in map_elementwise's function carries tensors and numbers "
     r"only"),
], ids=["zero-step", "tuple"])
def test_map_elementwise_loop_errors(which, marker, anchor, message):
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(e_map_loop_errors, {"x": "*fp32", "k": "*i32"}, {"WHICH": which},
                     target="cuda:sm_90a", num_warps=4, cache=False)
    located.assert_located(ei.value, HERE, marker, anchor, message, kiln.CompilationError)


def test_map_elementwise_loops_compile():
    for t, w in TARGETS:
        ir = kiln.compile(map_loop_kernel, {"x": "*fp32", "k": "*i32", "out": "*fp32"},
                          {"N": 128, "W": w}, target=t, num_warps=4, cache=False).asm["tile"]
        # one loop per while / for on values; each runs while any element's condition holds
        assert ir.count("scf.while") == 5 and "scf.for" not in ir
        # the branch's load reads only where its condition holds: a masked load
        assert any("tile.load" in line and "," in line.split("tile.load")[1].split(":")[0]
                   for line in ir.splitlines())
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(e_map_loop_side_effect, {"x": "*fp32"}, {}, target="cuda:sm_90a",
                     num_warps=4, cache=False)
    located.assert_located(ei.value, HERE, "E:loopside", "while v > 1.0:",
                           r"a while loop on a value in map_elementwise's function runs its "
                           r"body for every element until all are done, so the body may not "
                           r"store, print or call out; compute values",
                           kiln.CompilationError)


@kiln.jit
def _stores_in_branch(v, p):
    if v > 0:  # E:side
        kl.store(p, v)
    return v


@kiln.jit
def e_map_side_effect(x):
    L: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    offs = kl.arange(0, 128, L)
    kl.map_elementwise(_stores_in_branch, kl.load(x + offs), x + offs)


def test_map_elementwise_branches_compile_to_selects():
    for t, w in TARGETS:
        ir = kiln.compile(map_branch_kernel, {"x": "*fp32", "y": "*fp32", "out": "*fp32"},
                          {"N": 128, "W": w}, target=t, num_warps=4, cache=False).asm["tile"]
        # _branchy's if merges one value, _nested_branches' three ifs one each.
        assert ir.count("arith.select") >= 4 and "scf.if" not in ir


def test_map_elementwise_errors():
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(e_map_not_jit, {"x": "*fp32"}, {}, target="cuda:sm_90a", num_warps=4,
                     cache=False)
    located.assert_located(ei.value, HERE, "E:map", "kl.map_elementwise",
                           r"map_elementwise: scalar_fn must be a @kiln.jit function, got abs",
                           kiln.CompilationError)
    with pytest.raises(kiln.CompilationError) as ei:  # a branch that stores
        kiln.compile(e_map_side_effect, {"x": "*fp32"}, {}, target="cuda:sm_90a", num_warps=4,
                     cache=False)
    located.assert_located(ei.value, HERE, "E:side", "if v > 0:",
                           r"an if on a value in map_elementwise's function runs both "
                           r"branches for every element, so its branches may not store, "
                           r"print or call out; compute values and select them",
                           kiln.CompilationError)


@kiln.jit
def assume_kernel(x, out, n, N: kl.constexpr, W: kl.constexpr):
    L: kl.constexpr = kl.BlockedLayout([1], [W], [4], [0])
    kl.assume(n > 0)
    offs = kl.arange(0, N, L)
    kl.assume(offs < N)
    kl.store(out + offs, kl.load(x + offs) + n)


def test_assume_reaches_llvm():
    k = kiln.compile(assume_kernel, {"x": "*fp32", "out": "*fp32", "n": "i32"},
                     {"N": 128, "W": 32}, target="cuda:sm_90a", num_warps=4, cache=False)
    assert "llvm.intr.assume" in k.asm["llvm_dialect"]
    asm_of(assume_kernel, {"x": "*fp32", "out": "*fp32", "n": "i32"}, {"N": 256, "W": 64},
           "hip:gfx942")


@kiln.jit
def e_assume_int(x):
    kl.assume(kl.program_id(0))  # E:assume


def test_assume_errors():
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(e_assume_int, {"x": "*fp32"}, {}, target="cuda:sm_90a", num_warps=4,
                     cache=False)
    located.assert_located(ei.value, HERE, "E:assume", "kl.assume",
                           r"assume expects a bool condition, got int32", kiln.CompilationError)


@kiln.jit
def bytes_as_words(src, dst, N: kl.constexpr, W: kl.constexpr):
    """Triton's pointer bitcast: the uint8 buffer read as uint32 words through
    ``src.to(kl.pointer_type(kl.uint32))`` (a third-party MXFP4 MoE kernel loads its packed
    weights so); the words stored through a cast back."""
    L: kl.constexpr = kl.BlockedLayout([4], [W], [4], [0])
    o = kl.arange(0, N, L)
    words = kl.load(src.to(kl.pointer_type(kl.uint32)) + o)
    kl.store(dst.to(kl.pointer_type(kl.uint32)) + o, words ^ 0x01010101)


@pytest.mark.parametrize("target,w", [("cuda:sm_90a", 32), ("hip:gfx942", 64)])
def test_pointer_casts_read_bytes_as_words(target, w):
    k = kiln.compile(bytes_as_words, {"src": "*u8:16", "dst": "*u8:16"}, {"N": 512, "W": w},
                     target=target, cache=False)
    assert "tile.ptr_cast" in k.asm["tile"]
    if target.startswith("cuda"):
        # 4 words a thread from a 16-byte-aligned base: one 16-byte load and store each
        assert "ld.global.v4.b32" in k.asm["ptx"] and "st.global.v4.b32" in k.asm["ptx"]


@kiln.jit
def cast_to_another_space(src):
    src.to(kl.pointer_type(kl.uint32, 3))  # E:space


def test_a_pointer_cast_keeps_its_address_space():
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(cast_to_another_space, {"src": "*u8"}, {}, target="cuda:sm_90a",
                     cache=False)
    located.assert_located(ei.value, os.path.abspath(__file__), "E:space", "src.to",
                           r"cannot cast \*uint8 \(address space 1\) to \*uint32 \(address space "
                           r"3\): a pointer cast keeps its address space",
                           kiln.CompilationError)


@kiln.jit
def full_of_no_shape(x, out, L: kl.constexpr):
    e = kl.full((), 3, kl.int32)  # Gluon: the scalar itself
    r = kl.arange(0, 16, kl.SliceLayout(1, L))
    c = kl.arange(0, 32, kl.SliceLayout(0, L))
    v = kl.load(x + e.to(kl.int64) * 512 + r[:, None] * 32 + c[None, :])
    kl.store(out + r[:, None] * 32 + c[None, :], v + e)


@pytest.mark.parametrize("target", ["cuda:sm_90a", "hip:gfx950"])
def test_full_of_no_shape_is_a_scalar(target):
    """kl.full((), v, dtype) is a scalar that broadcasts against any tensor, as Gluon's (a
    third-party gfx950 MoE kernel indexes experts with one); it was a 0-d tensor that did
    not ('shape mismatch in add: () vs (16, 32)')."""
    tpw = [2, 16] if target.startswith("cuda") else [4, 16]
    k = kiln.compile(full_of_no_shape, {"x": "*i32:16", "out": "*i32:16"},
                     {"L": kl.BlockedLayout([1, 4], tpw, [4, 1], [1, 0])}, target=target,
                     num_warps=4, cache=False)
    assert k.asm


@kiln.jit
def full_of_no_shape_from_a_tensor(x):
    v = kl.arange(0, 32, kl.BlockedLayout([1], [32], [4], [0]))
    kl.store(x, kl.full((), v, kl.int32))  # E:full0


def test_full_of_no_shape_from_a_tensor_is_an_error():
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(full_of_no_shape_from_a_tensor, {"x": "*i32"}, {}, target="cuda:sm_90a",
                     num_warps=4, cache=False)
    located.assert_located(ei.value, HERE, "E:full0", "kl.full",
                           r"full: value must be a scalar", kiln.CompilationError)


@kiln.jit
def truth_reduce_kernel(x, out, M: kl.constexpr, N: kl.constexpr, W: kl.constexpr):
    """kl.all / kl.any (Gluon's, after Triton 3.8) along each axis and over the whole tile."""
    L: kl.constexpr = kl.BlockedLayout([1, 2], [W // 8, 8], [4, 1], [1, 0])
    rm = kl.arange(0, M, kl.SliceLayout(1, L))
    rn = kl.arange(0, N, kl.SliceLayout(0, L))
    a = kl.load(x + rm[:, None] * N + rn[None, :])
    kl.store(out + rn, kl.all(a, 0).to(kl.int32))
    kl.store(out + N + rm, kl.any(a, axis=1).to(kl.int32))
    kl.store(out + N + M, kl.all(a).to(kl.int32) + 2 * kl.any(a > 3).to(kl.int32))


@pytest.mark.parametrize("target,w", TARGETS)
def test_all_and_any_reduce_truth_values(target, w):
    k = kiln.compile(truth_reduce_kernel, {"x": "*i32", "out": "*i32"},
                     {"M": 16, "N": 2 * w, "W": w}, target=target, num_warps=4, cache=False)
    tile = k.asm["tile"]
    # Non-bool inputs compare against zero; the reductions combine i1 values with and / or.
    assert re.search(r"arith\.andi .* : i1", tile) and re.search(r"arith\.ori .* : i1", tile)
    assert "arith.cmpi ne" in tile


def test_all_of_a_scalar_is_an_error():
    @kiln.jit
    def k(x, out):
        kl.store(out, kl.all(kl.load(x)).to(kl.int32))
    with pytest.raises(kiln.CompilationError, match="all expects a tensor, got a scalar"):
        kiln.compile(k, {"x": "*i32", "out": "*i32"}, {}, target="cuda:sm_90a", cache=False)
