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


@kiln.jit
def tuple_surface_kernel(x, out, pair):
    L: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    o = kl.arange(0, 128, L)
    v = kl.load(x + o)
    t = (v, o, 4)
    # Gluon's tuple: its type, its values, slices and sums that stay tuples
    kl.static_assert(t.type == kl.tuple_type([v.type, o.type, t.type[2]]))
    kl.static_assert(len(t.values) == 3 and isinstance(t[0:2], kl.tuple))
    kl.static_assert(isinstance(t + (1,), kl.tuple) and len(t * 2) == 6)
    kl.static_assert(isinstance(pair, kl.tuple) and pair.type[0] == pair[0].type)
    halves = kl.split(kl.join(v, v))
    kl.static_assert(isinstance(halves, kl.tuple) and halves.type[1] == halves[1].type)
    named = kl.tuple([v, o], type=kl.tuple_type([v.type, o.type], ["val", "off"]))
    kl.store(out + named.off, named.val + pair[0] + pair[1])


@compiled.needs_compiler
def test_tuple_surface():
    k = kiln.compile(tuple_surface_kernel, {"x": "*fp32", "out": "*fp32",
                                            "pair": ("fp32", "fp32")},
                     {}, target="cuda:sm_90a", num_warps=4, cache=False)
    assert "st.global" in k.asm["ptx"]
    t = kl.tuple([1, 2], type=kl.tuple_type([kl.int32, kl.int32], ["a", "b"]))
    assert t.b == 2 and t.values == [1, 2] and t == (1, 2) and list(t.type) == [kl.int32] * 2
    with pytest.raises(AttributeError, match="no attribute 'c'"):
        t.c
    with pytest.raises(ValueError, match="2 values but a type of 1"):
        kl.tuple([1, 2], type=[kl.int32])


# -- fp4_to_fp --------------------------------------------------------------------------------


@kiln.jit
def fp4_kernel(x, out, M: kl.constexpr, N: kl.constexpr, AXIS: kl.constexpr,
               DT: kl.constexpr, W: kl.constexpr = 32, LAYOUT: kl.constexpr = None):
    L: kl.constexpr = kl.BlockedLayout([1, 4], [4, W // 4], [4, 1], [1, 0]) if LAYOUT is None \
        else LAYOUT
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


# -- result layouts: what Gluon 3.6 infers (printed by Triton 3.6.0 on the GPU machine) -------

BL = kl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
MMA = kl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, 32, 16])
MMA2 = kl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[4, 1], instr_shape=[16, 8])


@kiln.jit
def layout_kernel(x, out, M: kl.constexpr, N: kl.constexpr, L: kl.constexpr, OP: kl.constexpr,
                  WANT: kl.constexpr):
    om = kl.arange(0, M, layout=kl.SliceLayout(1, L))[:, None]
    on = kl.arange(0, N, layout=kl.SliceLayout(0, L))[None, :]
    v = kl.load(x + om * N + on)
    if OP == "join":
        r = kl.join(v, v)
    elif OP == "join_split":
        r = kl.join(*kl.split(kl.join(v, v)))
    elif OP == "split":
        r = kl.split(kl.join(v, v))[1]
    else:
        r = kl.fp4_to_fp(v, kl.float16, 0 if OP == "fp4_0" else 1)
    kl.static_assert(r.type.layout == WANT)
    kl.store(out, kl.sum(kl.reshape(r, [r.numel]).to(kl.float32), 0))


def _lin(reg, lane, warp, shape):
    return kl.DistributedLinearLayout(reg, lane, warp, [], shape)


@compiled.needs_compiler
@pytest.mark.parametrize("L,shape,op,want", [
    (BL, [16, 32], "join", kl.BlockedLayout([1, 4, 2], [4, 8, 1], [4, 1, 1], [2, 1, 0])),
    (MMA, [64, 32], "join", _lin([[0, 0, 1], [0, 1, 0], [8, 0, 0], [0, 8, 0], [0, 16, 0]],
                                 [[0, 2, 0], [0, 4, 0], [1, 0, 0], [2, 0, 0], [4, 0, 0]],
                                 [[16, 0, 0], [32, 0, 0]], [64, 32, 2])),
    # join of split's halves is the layout that was split
    (MMA, [64, 32], "join_split", _lin([[0, 0, 1], [0, 1, 0], [8, 0, 0], [0, 8, 0],
                                        [0, 16, 0]],
                                       [[0, 2, 0], [0, 4, 0], [1, 0, 0], [2, 0, 0], [4, 0, 0]],
                                       [[16, 0, 0], [32, 0, 0]], [64, 32, 2])),
    (BL, [16, 32], "split", kl.SliceLayout(2, kl.BlockedLayout([1, 4, 2], [4, 8, 1], [4, 1, 1],
                                                               [2, 1, 0]))),
    (BL, [16, 32], "fp4_1", kl.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])),
    # Gluon's own object carries one more register basis ([32, 0]) and shape [64, 32], which
    # its lowering drops: this is the layout it uses
    (BL, [16, 32], "fp4_0", _lin([[1, 0], [0, 1], [0, 2]], [[0, 4], [0, 8], [0, 16], [2, 0],
                                                            [4, 0]], [[8, 0], [16, 0]],
                                 [32, 32])),
    (MMA, [64, 32], "fp4_1", _lin([[0, 1], [0, 2], [8, 0], [0, 16], [0, 32]],
                                  [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], [[16, 0], [32, 0]],
                                  [64, 64])),
    (MMA, [64, 32], "fp4_0", _lin([[1, 0], [0, 1], [16, 0], [0, 8], [0, 16]],
                                  [[0, 2], [0, 4], [2, 0], [4, 0], [8, 0]], [[32, 0], [64, 0]],
                                  [128, 32])),
    # a dot operand decoded along K: twice its k_width
    (kl.DotOperandLayout(0, MMA2, 2), [64, 32], "fp4_1", kl.DotOperandLayout(0, MMA2, 4)),
    (kl.DotOperandLayout(1, MMA2, 2), [32, 64], "fp4_0", kl.DotOperandLayout(1, MMA2, 4)),
], ids=["join-blocked", "join-mma", "join-split-mma", "split-blocked", "fp4-blocked-1",
        "fp4-blocked-0", "fp4-mma-1", "fp4-mma-0", "fp4-dot-a", "fp4-dot-b"])
def test_result_layouts_are_gluons(L, shape, op, want):
    ty = "*u8" if op.startswith("fp4") else "*fp16"
    k = kiln.compile(layout_kernel, {"x": ty, "out": "*fp32"},
                     {"M": shape[0], "N": shape[1], "L": L, "OP": op, "WANT": want},
                     target="cuda:sm_90a", num_warps=4, cache=False)
    # the results stay in the threads that hold the inputs: no trip through shared memory
    # before the final sum
    body = k.asm["tile"]
    assert body.count("tile.local_store") == 0 or body.index("tile.local_store") > \
        body.index("tile.reduce"), body


# -- split of a tensor whose layout is still inferred (tile.split) --------------------------

@kiln.jit
def split_auto_kernel(x, out, N: kl.constexpr, OUT: kl.constexpr):
    """out[i] = x[2i + 1] - x[2i]: every layout but the output's inferred, backward through
    the split and the reshape to the load (as Gluon infers it)."""
    pairs = kl.load(x + kl.arange(0, 2 * N)).reshape((N, 2))
    lo, hi = pairs.split()
    kl.store(out + kl.arange(0, N), kl.set_auto_layout(hi - lo, OUT))


def split_auto_out(w, warps=4):
    return kl.BlockedLayout([1], [w], [warps], [0])


@compiled.needs_compiler
@pytest.mark.parametrize("target,w", TARGETS)
def test_split_of_an_inferred_layout_compiles(target, w):
    k = kiln.compile(split_auto_kernel, {"x": "*i32", "out": "*i32"},
                     {"N": 128, "OUT": split_auto_out(w)}, target=target, num_warps=4,
                     cache=False)
    ir = k.asm["tile"]
    assert "tile.split" in ir and "#tile.auto" in ir


@kiln.jit
def join_auto_kernel(x, y, out, N: kl.constexpr, OUT: kl.constexpr):
    """out[2i] = x[i], out[2i + 1] = y[i]: join of inferred layouts (tile.join), the layouts
    inferred backward from the flat output's through reshape and join."""
    i = kl.arange(0, N)
    flat = kl.join(kl.load(x + i), kl.load(y + i)).reshape((2 * N,))
    kl.store(out + kl.arange(0, 2 * N), kl.set_auto_layout(flat, OUT))


def join_auto_out(w, warps=4):
    return kl.BlockedLayout([2], [w], [warps], [0])  # each thread its pairs


@compiled.needs_compiler
@pytest.mark.parametrize("target,w", TARGETS)
def test_join_of_inferred_layouts_compiles(target, w):
    k = kiln.compile(join_auto_kernel, {"x": "*fp32", "y": "*fp32", "out": "*fp32"},
                     {"N": 128, "OUT": join_auto_out(w)}, target=target, num_warps=4,
                     cache=False)
    assert "tile.join" in k.asm["tile"]


@kiln.jit
def e_join_across_lanes(x, out):
    i = kl.arange(0, 128)
    flat = kl.join(kl.load(x + i), kl.load(x + i)).reshape((256,))  # E:join-lanes
    kl.store(out + kl.arange(0, 256), kl.set_auto_layout(flat, kl.BlockedLayout([1], [32], [4],
                                                                                [0])))


@compiled.needs_compiler
def test_a_join_whose_pairs_lie_across_lanes_is_an_error_at_the_call():
    # The flat layout puts the pair's two elements in neighbouring lanes: no data moves in a
    # join, so it cannot be inferred to that.
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(e_join_across_lanes, {"x": "*fp32", "out": "*fp32"}, {},
                     target="cuda:sm_90a", num_warps=4, cache=False)
    located.assert_located(
        ei.value, HERE, "E:join-lanes", "kl.join",
        r".*join needs both elements of each pair in one thread.s registers.*",
        kiln.CompilationError)


@kiln.jit
def e_split_auto_size(x):
    kl.split(kl.load(x + kl.arange(0, 128)).reshape((32, 4)))  # E:split-auto


@compiled.needs_compiler
def test_split_of_an_inferred_layout_checks_the_pair_at_the_call():
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(e_split_auto_size, {"x": "*fp32"}, {}, target="cuda:sm_90a", num_warps=4,
                     cache=False)
    located.assert_located(
        ei.value, HERE, "E:split-auto", "kl.split",
        r"split needs a last dimension of size 2 \(and another dimension\), got shape "
        r"\(32, 4\)", kiln.CompilationError)
