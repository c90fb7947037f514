"""join, split and permute (Gluon's): compile-level checks on both vendors and errors at the
user's line. test/gpu/test_shape_ops.py runs the kernels against torch."""

from __future__ import annotations

import pytest

import kiln
import kiln.language as kl

import compiled
import located

HERE = __file__
TARGETS = [("cuda:sm_90a", 32), ("hip:gfx942", 64)]


@kiln.jit
def shape_ops_kernel(x, y, ab, a_out, b_out, t_out, M: kl.constexpr, N: kl.constexpr,
                     L: kl.constexpr):
    om = kl.arange(0, M, layout=kl.SliceLayout(1, L))[:, None]
    on = kl.arange(0, N, layout=kl.SliceLayout(0, L))[None, :]
    a = kl.load(x + om * N + on)
    b = kl.load(y + om * N + on)
    j = kl.join(a, b)  # [M, N, 2]
    JL: kl.constexpr = j.type.layout
    jm = kl.arange(0, M, layout=kl.SliceLayout(1, kl.SliceLayout(2, JL)))[:, None, None]
    jn = kl.arange(0, N, layout=kl.SliceLayout(0, kl.SliceLayout(2, JL)))[None, :, None]
    jk = kl.arange(0, 2, layout=kl.SliceLayout(0, kl.SliceLayout(1, JL)))[None, None, :]
    kl.store(ab + jm * (2 * N) + jn * 2 + jk, j)
    c, d = kl.split(j)
    kl.store(a_out + om * N + on, kl.convert_layout(c, L))
    kl.store(b_out + om * N + on, kl.convert_layout(d, L))
    t = kl.permute(a, (1, 0))
    TL: kl.constexpr = t.type.layout
    tm = kl.arange(0, N, layout=kl.SliceLayout(1, TL))[:, None]
    tn = kl.arange(0, M, layout=kl.SliceLayout(0, TL))[None, :]
    kl.store(t_out + tm * M + tn, t)


def layouts(w):
    return [kl.BlockedLayout([1, 4], [4, w // 4], [4, 1], [1, 0]),
            kl.BlockedLayout([2, 1], [w, 1], [1, 4], [0, 1])]


@compiled.needs_compiler
@pytest.mark.parametrize("target,w", TARGETS)
@pytest.mark.parametrize("ty", ["*fp32", "*fp16", "*i8", "*i64"])
def test_shape_ops_compile(target, w, ty):
    for L in layouts(w):
        k = kiln.compile(shape_ops_kernel, {n: ty for n in ("x", "y", "ab", "a_out", "b_out",
                                                           "t_out")},
                         {"M": 32, "N": 64, "L": L}, target=target, num_warps=4, cache=False)
        # permute moves no data: a register relabel, no trip through shared memory
        assert "tile.trans" in k.asm["tile"] and "tile.local_store" not in k.asm["tile"]


@kiln.jit
def e_join_types(x):
    L: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    v = kl.load(x + kl.arange(0, 128, L))
    kl.join(v, v.to(kl.float16))  # E:join


@kiln.jit
def e_split_size(x):
    L: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    kl.split(kl.load(x + kl.arange(0, 128, L)))  # E:split


@kiln.jit
def e_permute_dims(x):
    L: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    kl.permute(kl.load(x + kl.arange(0, 128, L)), (1, 0))  # E:permute


@compiled.needs_compiler
@pytest.mark.parametrize("fn,marker,anchor,message", [
    (e_join_types, "E:join", "kl.join", r"join: a and b must have one type .*"),
    (e_split_size, "E:split", "kl.split",
     r"split needs a last dimension of size 2, got shape \(128,\)"),
    (e_permute_dims, "E:permute", "kl.permute",
     r"permute: dims \[1, 0\] must be a permutation of 0\.\.0"),
])
def test_errors_point_at_the_call(fn, marker, anchor, message):
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(fn, {"x": "*fp32"}, {}, target="cuda:sm_90a", num_warps=4, cache=False)
    located.assert_located(ei.value, HERE, marker, anchor, message, kiln.CompilationError)


# -- Gluon's type names: tuple, tuple_type, base_value, base_type, void ----------------------


@kiln.jit
def tuple_kernel(x, out):
    L: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    o = kl.arange(0, 128, L)
    t = kl.tuple([kl.load(x + o), o])
    kl.static_assert(isinstance(t, kl.tuple) and isinstance(t[0], kl.base_value))
    kl.static_assert(isinstance(t[0].dtype, kl.base_type) and not isinstance(o, kl.tuple))
    kl.store(out + t[1], t[0])


@compiled.needs_compiler
def test_type_names():
    k = kiln.compile(tuple_kernel, {"x": "*fp32", "out": "*fp32"}, {}, target="cuda:sm_90a",
                     num_warps=4, cache=False)
    assert "st.global" in k.asm["ptx"]
    tt = kl.tuple_type([kl.int32, kl.float32], ["a", "b"])
    assert tt[1] is kl.float32 and len(tt) == 2 and tt == kl.tuple_type([kl.int32, kl.float32],
                                                                         ["a", "b"])
    assert kl.void != kl.int32 and str(kl.void) == "void" and isinstance(kl.void, kl.dtype)


# -- fp4_to_fp --------------------------------------------------------------------------------


@kiln.jit
def fp4_kernel(x, out, M: kl.constexpr, N: kl.constexpr, AXIS: kl.constexpr,
               DT: kl.constexpr, W: kl.constexpr = 32):
    L: kl.constexpr = kl.BlockedLayout([1, 4], [4, W // 4], [4, 1], [1, 0])
    om = kl.arange(0, M, layout=kl.SliceLayout(1, L))[:, None]
    on = kl.arange(0, N, layout=kl.SliceLayout(0, L))[None, :]
    y = kl.fp4_to_fp(kl.load(x + om * N + on), DT, AXIS)
    YL: kl.constexpr = y.type.layout
    M2: kl.constexpr = M * 2 if AXIS == 0 else M
    N2: kl.constexpr = N * 2 if AXIS == 1 else N
    ym = kl.arange(0, M2, layout=kl.SliceLayout(1, YL))[:, None]
    yn = kl.arange(0, N2, layout=kl.SliceLayout(0, YL))[None, :]
    kl.store(out + ym * N2 + yn, y)


@kiln.jit
def e_fp4_dtype(x):
    L: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    kl.fp4_to_fp(kl.load(x + kl.arange(0, 128, L)), kl.float16, 0)  # E:fp4


@compiled.needs_compiler
@pytest.mark.parametrize("target,w", TARGETS)
def test_fp4_to_fp_compiles(target, w):
    for axis in (0, 1):
        k = kiln.compile(fp4_kernel, {"x": "*u8", "out": "*bf16"},
                         {"M": 32, "N": 16, "AXIS": axis, "DT": kl.bfloat16, "W": w},
                         target=target,
                         num_warps=4, cache=False)
        assert "tile.reshape" in k.asm["tile"]
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(e_fp4_dtype, {"x": "*fp32"}, {}, target="cuda:sm_90a", num_warps=4,
                     cache=False)
    located.assert_located(ei.value, HERE, "E:fp4", "kl.fp4_to_fp",
                           r"fp4_to_fp needs bytes \(uint8 or int8\) holding two e2m1 values, "
                           r"got fp32", kiln.CompilationError)
