"""kiln.language / kiln.compiler.codegen: the tile IR text generated from kernels.

Text checks always run: the code generator writes every op in MLIR's generic form. When
kiln._compiler imports, every kernel of the corpus is also parsed and verified by it (and lowered
for each target); when upstream mlir-opt is installed, the corpus is checked for MLIR syntax and
dominance.
"""

import os
import re
import shutil
import subprocess
import sys

import pytest

import kiln
import kiln.language as kl
from kiln.compiler import make_ir
from kiln.language._layouts import is_trivial_conversion, reshape_linear

from compiled import compiler as _compiler, needs_compiler
MLIR_OPT = shutil.which("mlir-opt") or (
    "/usr/lib/llvm-22/bin/mlir-opt" if os.path.exists("/usr/lib/llvm-22/bin/mlir-opt") else None)
HERE = os.path.abspath(__file__)

L1 = kl.BlockedLayout([4], [32], [4], [0])
L2 = kl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
ROW = kl.SliceLayout(1, L2)
COL = kl.SliceLayout(0, L2)


def check_ir(ir, *patterns):
    """FileCheck-like: each pattern (a regex) must match, in order."""
    pos = 0
    for pat in patterns:
        m = re.compile(pat, re.M).search(ir, pos)
        assert m, f"pattern {pat!r} not found after offset {pos} in:\n{ir}"
        pos = m.end()


def body(ir):
    """The kernel text without locations."""
    return re.sub(r' loc\([^)]*\)', "", ir)


def g(snippet, **types):
    """A regex for a snippet of generic-form IR: ``%?`` is any numbered SSA value, ``...`` any
    text on the line, and ``$NAME`` the text of keyword ``NAME``."""
    for name, text in types.items():
        snippet = snippet.replace("$" + name, text)
    return re.escape(snippet).replace(r"%\?", r"%\d+").replace(r"\.\.\.", r"[^\n]*")


def op_lines(ir):
    """The op lines of the kernel's body (not block labels or region delimiters)."""
    lines = ir.splitlines()
    start = next(i for i, line in enumerate(lines) if "func.func" in line) + 1
    end = max(i for i, line in enumerate(lines) if line.startswith("  }"))
    return [line.strip() for line in lines[start:end]
            if not line.strip().startswith(("^bb", "}"))]


# ---------------------------------------------------------------------------------------------
# kernels
# ---------------------------------------------------------------------------------------------


@kiln.jit
def add_kernel(x, y, out, n, BLOCK: kl.constexpr):
    layout: kl.constexpr = kl.BlockedLayout([4], [32], [4], [0])
    offs = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK, layout)
    m = offs < n
    kl.store(out + offs, kl.load(x + offs, mask=m, other=0.0) + kl.load(y + offs, mask=m),
             mask=m)


@kiln.jit
def scale(v, factor: kl.constexpr):
    return v * factor


@kiln.jit
def twice(v):
    return scale(v, 2.0)


@kiln.jit
def maxf(a, b):
    return kl.maximum(a, b)


@kiln.jit
def shapes_kernel(x, out, M, N, BM: kl.constexpr, BN: kl.constexpr):
    rows = kl.arange(0, BM, ROW)
    cols = kl.arange(0, BN, COL)
    offs = rows[:, None] * N + cols[None, :]
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    v = kl.load(x + offs, mask=mask, other=0.0)
    s = kl.sum(v, axis=1)
    m = kl.reduce(v, 0, maxf)
    t = kl.max(s)
    flat = kl.reshape(v, [BM * BN])
    c = kl.convert_layout(flat, kl.BlockedLayout([4], [32], [4], [0]))
    kl.store(out + offs, twice(v) + t, mask=mask)


@kiln.jit
def loops_kernel(x, n, BLOCK: kl.constexpr):
    offs = kl.arange(0, BLOCK, L1)
    acc = kl.zeros([BLOCK], kl.float32, L1)
    count = 0
    for i in range(0, n, 4):
        acc += kl.load(x + offs + i)
        count += 1
    total = kl.sum(acc)
    if total > 0.0:
        total = total * 2.0
    else:
        total = -total
    j = n
    while j > 0:
        j = j - 3
    for k in kl.static_range(3):
        acc = acc + k
    kl.store(x + offs, acc + total + count + j)


@kiln.jit
def math_kernel(x, out, BLOCK: kl.constexpr):
    offs = kl.arange(0, BLOCK, L1)
    v = kl.load(x + offs)
    r = kl.exp(v) + kl.exp2(v) + kl.log(v) + kl.log2(v) + kl.sqrt(v) + kl.rsqrt(v)
    r = r + kl.abs(v) + kl.sin(v) + kl.cos(v) + kl.floor(v) + kl.ceil(v)
    r = kl.fma(r, v, 1.0)
    r = kl.where(v > 0.0, r, -v)
    r = kl.minimum(r, 3.0)
    i = offs.to(kl.int64) * 3
    u = (offs // 2 + offs % 3 - (offs << 1) + (offs >> 1)) ^ (offs & 7) | ~offs
    h = v.to(kl.float16).to(kl.float32) + i.to(kl.float32) + u
    kl.store(out + offs, h + r)


@kiln.jit
def scalar_kernel(out, a, b, f):
    pid = kl.program_id(0)
    n = kl.num_programs(1)
    q = a // b + a % b
    g = f * 2 + a
    w = kl.num_warps()
    c = kl.cdiv(a, 16)
    offs = kl.arange(0, 128, kl.BlockedLayout([1], [32], [4], [0]))
    kl.store(out + offs, g + q + pid + n + w + c)


@kiln.jit
def i1_if_kernel(out, n):
    offs = kl.arange(0, 128, kl.BlockedLayout([1], [32], [4], [0]))
    flag = n > 3
    v = 0
    if flag and n < 10:
        v = 1
    kl.store(out + offs, offs + v)


@kiln.jit
def neg_step_kernel(out, n):
    offs = kl.arange(0, 128, kl.BlockedLayout([1], [32], [4], [0]))
    acc = offs
    for i in range(n, 0, -2):
        acc = acc + i
    kl.store(out + offs, acc)


@kiln.jit
def linear_kernel(out):
    lin: kl.constexpr = kl.DistributedLinearLayout([[1], [2]], [[4], [8], [16], [32], [64]],
                                                  [[128], [256]], [], [512])
    offs = kl.arange(0, 512, lin)
    kl.store(out + offs, offs)


@kiln.jit
def empty_kernel(x):
    pass


@kiln.jit
def dtypes_kernel(a, b, c, d, n, big):
    offs = kl.arange(0, 128, kl.BlockedLayout([1], [32], [4], [0]))
    va = kl.load(a + offs)
    vb = kl.load(b + offs)
    vc = kl.load(c + offs)
    s = va + vb
    m = vb > 7
    w = kl.where(m, vc, 1.5)
    t = (va.to(kl.float32) / 3) + vc
    for i in range(0, big, 2):
        t = t + i
    kl.store(d + offs, m)
    kl.store(c + offs, w + t)
    kl.store(b + offs, (vb >> 2) + vb // 3 + vb % 5 + s)
    kl.store(c + offs, kl.where(n > 4, vc, vc * 2))


@kiln.jit
def reductions_kernel(x, out):
    r = kl.arange(0, 16, ROW)
    c = kl.arange(0, 32, COL)
    v = kl.load(x + r[:, None] * 32 + c[None, :])
    s = kl.sum(v, axis=1, keep_dims=True)
    mn = kl.min(v, axis=0, keep_dims=True)
    tot = kl.sum(v)
    iv = kl.sum(v.to(kl.int8), axis=0)
    b1, b2 = kl.broadcast(s, mn)
    extra = kl.expand_dims(iv, 0).to(kl.float32)
    kl.store(out + r[:, None] * 32 + c[None, :], b1 + b2 + tot + extra)
    one = kl.sum(kl.load(x + c), axis=0, keep_dims=True)
    kl.store(out + c, one)


CORPUS = {
    "dtypes": (dtypes_kernel, {"a": "*i8", "b": "*u32", "c": "*fp16", "d": "*i1", "n": "i32",
                               "big": "i64"}, {}),
    "reductions": (reductions_kernel, {"x": "*fp32", "out": "*fp32"}, {}),
    "add": (add_kernel, {"x": "*fp32:16", "y": "*fp32", "out": "*fp32", "n": "i32"},
            {"BLOCK": 512}),
    "shapes": (shapes_kernel, {"x": "*fp32", "out": "*fp32", "M": "i32", "N": "i32"},
               {"BM": 16, "BN": 32}),
    "loops": (loops_kernel, {"x": "*fp32", "n": "i32"}, {"BLOCK": 128}),
    "math": (math_kernel, {"x": "*fp32", "out": "*fp32"}, {"BLOCK": 512}),
    "scalar": (scalar_kernel, {"out": "*fp32", "a": "i32", "b": "i32", "f": "fp32"}, {}),
    "i1_if": (i1_if_kernel, {"out": "*i32", "n": "i32"}, {}),
    "neg_step": (neg_step_kernel, {"out": "*i32", "n": "i32"}, {}),
    "linear": (linear_kernel, {"out": "*i32"}, {}),
    "empty": (empty_kernel, {"x": "*fp16"}, {}),
}


def gen(name, **kw):
    fn, sig, cx = CORPUS[name]
    return make_ir(fn, sig, cx, **kw)


# ---------------------------------------------------------------------------------------------
# text checks
# ---------------------------------------------------------------------------------------------


def test_module_header_and_signature():
    ir = gen("add")
    check_ir(ir, r'^#blocked = #tile\.blocked<\{sizePerThread = \[4\], threadsPerWarp = \[32\], '
                 r'warpsPerCTA = \[4\], order = \[0\]\}>$',
             r'^module attributes \{tile\.target = "cuda:sm_90a", tile\.num_warps = 4 : i32, '
             r'tile\.threads_per_warp = 32 : i32\} \{$',
             r'func\.func public @add_kernel\(%x: !tile\.ptr<f32> \{tile\.divisibility = 16 : '
             r'i32\} loc\(', r'%y: !tile\.ptr<f32> loc\(', r'%n: i32 loc\(')
    head = next(l for l in ir.splitlines() if "func.func" in l)
    assert "BLOCK" not in head  # constexprs are not parameters


def test_add_ops_in_order():
    ir = body(gen("add"))
    t = dict(I="tensor<512xi32, #blocked>", B="tensor<512xi1, #blocked>",
             F="tensor<512xf32, #blocked>", P="tensor<512x!tile.ptr<f32>, #blocked>")
    check_ir(ir, g('%? = "tile.program_id"() {axis = 0 : i32} : () -> i32') + "$",
             g('"arith.constant"() {value = 512 : i32} : () -> i32'),
             g('"arith.muli"(%?, %?) : (i32, i32) -> i32'),
             g('"tile.arange"() {start = 0 : i32, end = 512 : i32} : () -> $I', **t),
             g('"tile.splat"(%?) : (i32) -> $I', **t),
             g('"arith.addi"(%?, %?) : ($I, $I) -> $I', **t),
             g('"tile.splat"(%n) : (i32) -> $I', **t),
             g('"arith.cmpi"(%?, %?) {predicate = 2 : i64} : ($I, $I) -> $B', **t),  # slt
             g('"tile.splat"(%out) : (!tile.ptr<f32>) -> $P', **t),
             g('"tile.addptr"(%?, %?) : ($P, $I) -> $P', **t),
             g('"arith.constant"() {value = dense<0.000000e+00> : $F} : () -> $F', **t),
             g('"tile.load"(%?, %?, %?) {operandSegmentSizes = array<i32: 1, 1, 1>} : '
               '($P, $B, $F) -> $F', **t),
             g('"tile.load"(%?, %?) {operandSegmentSizes = array<i32: 1, 1, 0>} : ($P, $B) -> $F',
               **t),
             g('"arith.addf"(%?, %?) : ($F, $F) -> $F', **t),
             g('"tile.store"(%?, %?, %?) : ($P, $F, $B) -> ()', **t),
             "^" + g('    "func.return"() : () -> ()') + "$")


def test_every_op_has_a_location():
    ir = gen("loops")
    src_lines = open(HERE).read().splitlines()
    for line in ir.splitlines():
        s = line.strip()
        if not s or s.startswith(("#", "^bb")) or s.endswith("{"):
            continue  # an op with regions carries its location after its closing brace
        m = re.search(r'loc\("([^"]+)":(\d+):(\d+)\)$', s)
        assert m, f"no location on: {line}"
        assert m.group(1) == HERE
        assert 1 <= int(m.group(2)) <= len(src_lines) and int(m.group(3)) >= 1


def test_locations_point_at_the_python_expression():
    ir = gen("add")
    line_no = next(i for i, l in enumerate(open(HERE), 1)
                   if "offs = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK, layout)" in l)
    text = open(HERE).read().splitlines()[line_no - 1]
    col = text.index("kl.arange") + 1
    assert (f'"tile.arange"() {{start = 0 : i32, end = 512 : i32}} : () -> '
            f'tensor<512xi32, #blocked> loc("{HERE}":{line_no}:{col})') in ir
    def_line = next(i for i, l in enumerate(open(HERE), 1) if l.startswith("def add_kernel"))
    assert f'\n    "func.return"() : () -> () loc("{HERE}":{def_line}:1)\n' in ir


def test_shapes_expand_broadcast_reduce_reshape():
    ir = body(gen("shapes"))
    check_ir(ir, r"^#slice = #tile\.slice<\{dim = 1, parent = #blocked\}>$",
             r"^#slice1 = #tile\.slice<\{dim = 0, parent = #blocked\}>$",
             g('"tile.arange"() {start = 0 : i32, end = 16 : i32} : () -> tensor<16xi32, #slice>'),
             g('"tile.expand_dims"(%?) {axis = 1 : i32} : (tensor<16xi32, #slice>) -> '
               'tensor<16x1xi32, #blocked>'),
             g('"tile.expand_dims"(%?) {axis = 0 : i32} : (tensor<32xi32, #slice1>) -> '
               'tensor<1x32xi32, #blocked>'),
             g('"tile.broadcast"(%?) : (tensor<16x1xi32, #blocked>) -> '
               'tensor<16x32xi32, #blocked>'),
             g('%? = "tile.reduce"(%?) ({') + "$", r"^    \^bb0\(%\d+: f32, %\d+: f32\):$",
             g('"arith.addf"(%?, %?) : (f32, f32) -> f32'),
             g('"tile.reduce_return"(%?) : (f32) -> ()'),
             "^" + g('    }) {axis = 1 : i32} : (tensor<16x32xf32, #blocked>) -> '
                     'tensor<16xf32, #slice>') + "$",
             g('"arith.maxnumf"(%?, %?) : (f32, f32) -> f32'),
             g('}) {axis = 0 : i32} : (tensor<16x32xf32, #blocked>) -> tensor<32xf32, #slice1>'),
             g('}) {axis = 0 : i32} : (tensor<16xf32, #slice>) -> f32'),
             g('"tile.reshape"(%?) : (tensor<16x32xf32, #blocked>) -> tensor<512xf32, #linear>'),
             g('"tile.convert_layout"(%?) : (tensor<512xf32, #linear>) -> '
               'tensor<512xf32, #blocked1>'),
             g('"arith.constant"() {value = dense<2.000000e+00> : tensor<16x32xf32, #blocked>}'),
             g('"arith.mulf"'))
    # the inferred reshape layout keeps every element in its thread (same as ops.mlir's #lin)
    assert ("#linear = #tile.linear<{register = [[1], [2]], lane = [[4], [8], [16], [32], "
            "[64]], warp = [[128], [256]]}>") in ir


def test_for_if_while_static_range():
    ir = body(gen("loops"))
    f = "tensor<128xf32, #blocked>"
    check_ir(ir, g('"arith.constant"() {value = dense<0.000000e+00> : $F}', F=f),
             g('"arith.constant"() {value = 0 : i32}'), g('"arith.constant"() {value = 4 : i32}'),
             g('%?:2 = "scf.for"(%?, %n, %?, %?, %?) ({') + "$",
             "^" + g('    ^bb0(%?: i32, %?: $F, %?: i32):', F=f) + "$",
             g('"tile.load"'), g('"arith.addf"'), g('"arith.addi"(%?, %?) : (i32, i32) -> i32'),
             g('"scf.yield"(%?, %?) : ($F, i32) -> ()', F=f) + "$",
             "^" + g('    }) : (i32, i32, i32, $F, i32) -> ($F, i32)', F=f) + "$",
             g('"tile.reduce"'),
             g('"arith.cmpf"(%?, %?) {predicate = 2 : i64} : (f32, f32) -> i1'),  # ogt
             g('%? = "scf.if"(%?) ({') + "$", g('"arith.mulf"'),
             g('"scf.yield"(%?) : (f32) -> ()'), r"^    \}, \{$", g('"arith.negf"'),
             g('"scf.yield"(%?) : (f32) -> ()'), "^" + g("    }) : (i1) -> f32") + "$",
             g('%? = "scf.while"(%n) ({') + "$", "^" + g("    ^bb0(%?: i32):") + "$",
             g('"arith.cmpi"(%?, %?) {predicate = 4 : i64}'),  # sgt
             g('"scf.condition"(%?, %?) : (i1, i32) -> ()'), r"^    \}, \{$",
             "^" + g("    ^bb0(%?: i32):") + "$", g('"arith.subi"'),
             g('"scf.yield"(%?) : (i32) -> ()'), "^" + g("    }) : (i32) -> i32") + "$",
             g("{value = dense<0.000000e+00>"), g("{value = dense<1.000000e+00>"),
             g("{value = dense<2.000000e+00>"))
    assert ir.count('"scf.for"') == 1  # static_range is unrolled


def test_negative_step_and_i1_if():
    ir = body(gen("neg_step"))
    check_ir(ir, g('"arith.subi"(%?, %n) : (i32, i32) -> i32'),
             g('"arith.constant"() {value = 0 : i32}'), g('"arith.constant"() {value = 2 : i32}'),
             g('"scf.for"(...) ({'), "^" + g("    ^bb0(%?: i32, "), g('"arith.subi"'),
             g("}) : (i32, i32, i32, tensor<128xi32, #blocked>) -> tensor<128xi32, #blocked>"))
    ir = body(gen("i1_if"))
    check_ir(ir, g('"arith.cmpi"(%n, %?) {predicate = 4 : i64} : (i32, i32) -> i1'),  # sgt
             g('"arith.cmpi"(%n, %?) {predicate = 2 : i64} : (i32, i32) -> i1'),  # slt
             g('"arith.andi"(%?, %?) : (i1, i1) -> i1'), g('%? = "scf.if"(%?) ({'),
             g('"arith.constant"() {value = 1 : i32}'), g('"scf.yield"'), r"\}, \{$",
             g('"arith.constant"() {value = 0 : i32}'), g('"scf.yield"'),
             g("}) : (i1) -> i32"))


def test_math_and_casts():
    ir = body(gen("math"))
    for op in ("math.exp", "math.exp2", "math.log", "math.log2", "math.sqrt", "math.rsqrt",
               "math.absf", "math.sin", "math.cos", "math.floor", "math.ceil", "math.fma",
               "arith.select", "arith.minnumf", "arith.extsi", "arith.divsi", "arith.remsi",
               "arith.shli", "arith.shrsi", "arith.xori", "arith.andi", "arith.ori",
               "arith.truncf", "arith.extf", "arith.sitofp", "arith.negf"):
        assert f'"{op}"(' in ir, op
    check_ir(ir, g('"arith.extsi"(%?) : (tensor<512xi32, #blocked>) -> tensor<512xi64, #blocked>'),
             g('"arith.constant"() {value = dense<3> : tensor<512xi64, #blocked>}'))
    f, b = "tensor<512xf32, #blocked>", "tensor<512xi1, #blocked>"
    check_ir(ir, g('"arith.cmpf"(%?, %?) {predicate = 2 : i64} : ($F, $F) -> $B', F=f, B=b),
             g('"arith.select"(%?, %?, %?) : ($B, $F, $F) -> $F', F=f, B=b))


def test_scalar_promotion():
    ir = body(gen("scalar"))
    check_ir(ir, g('"tile.program_id"() {axis = 0 : i32}'),
             g('"tile.num_programs"() {axis = 1 : i32}'),
             g('"arith.divsi"(%a, %b) : (i32, i32) -> i32'),
             g('"arith.remsi"(%a, %b) : (i32, i32) -> i32'),
             g('"arith.constant"() {value = 2.000000e+00 : f32} : () -> f32'),
             g('"arith.mulf"(%f, %?) : (f32, f32) -> f32'), g('"arith.sitofp"(%a) : (i32) -> f32'),
             g('"arith.addf"'))
    # num_warps() is a constexpr: a literal that takes the float type of its neighbour
    assert '"arith.constant"() {value = 4.000000e+00 : f32}' in ir


def test_linear_layout_and_hip_target():
    ir = body(gen("linear"))
    assert ("#linear = #tile.linear<{register = [[1], [2]], lane = [[4], [8], [16], [32], "
            "[64]], warp = [[128], [256]]}>") in ir

    @kiln.jit
    def k(out, L: kl.constexpr):
        offs = kl.arange(0, 256, L)
        kl.store(out + offs, offs.to(kl.float16))
    hip = make_ir(k, {"out": "*fp16"}, {"L": kl.BlockedLayout([4], [64], [1], [0])},
                  target="hip:gfx950", num_warps=1)
    check_ir(hip, r'tile\.target = "hip:gfx950", tile\.num_warps = 1 : i32, '
                  r'tile\.threads_per_warp = 64 : i32',
             g('"arith.sitofp"(%?) : (tensor<256xi32, #blocked>) -> tensor<256xf16, #blocked>'))


def test_dtypes_unsigned_bool_and_i64_loop():
    ir = body(gen("dtypes"))
    check_ir(ir, r"func\.func public @dtypes_kernel\(%a: !tile\.ptr<i8>, %b: !tile\.ptr<i32>, "
                 r"%c: !tile\.ptr<f16>, %d: !tile\.ptr<i8>, %n: i32, %big: i64\)",
             g('"arith.extsi"(%?) : (tensor<128xi8, #blocked>) -> tensor<128xi32, #blocked>'),
             g('"arith.cmpi"(%?, %?) {predicate = 8 : i64}'),  # ugt
             g('"arith.constant"() {value = dense<1.500000e+00> : tensor<128xf16'),
             g('"arith.sitofp"(%?) : (tensor<128xi8'), g('"arith.divf"'),
             g('"scf.for"(%?, %big, %?, %?) ({'), "^" + g("    ^bb0(%?: i64, "),
             g("}) : (i64, i64, i64, "),
             g('"arith.extui"(%?) : (tensor<128xi1, #blocked>) -> tensor<128xi8, #blocked>'),
             g('"arith.shrui"'), g('"arith.divui"'), g('"arith.remui"'),
             g('"tile.splat"(%?) : (i1) -> tensor<128xi1, #blocked>'), g('"arith.select"'))


def test_reductions_keep_dims():
    ir = body(gen("reductions"))
    check_ir(ir, g('"tile.reduce"(%?) ({'), g("}) {axis = 1 : i32}"),
             g('"tile.expand_dims"(%?) {axis = 1'), g('"arith.minnumf"'),
             g('"tile.expand_dims"(%?) {axis = 0'),
             g('"arith.extsi"(%?) : (tensor<16x32xi8, #blocked>) -> tensor<16x32xi32, #blocked>'),
             g("}) {axis = 0 : i32} : (...) -> f32") + "$",
             g('"tile.splat"(%?) : (f32) -> tensor<1xf32, #slice1>'))


def test_range_num_stages_attribute():
    @kiln.jit
    def k(x, n):
        offs = kl.arange(0, 128, kl.BlockedLayout([1], [32], [4], [0]))
        for i in kl.range(0, n, num_stages=3):
            kl.store(x + offs + i, 1.0)
    ir = make_ir(k, {"x": "*fp32", "n": "i32"})
    assert re.search("^" + g("    }) {tile.num_stages = 3 : i32} : (i32, i32, i32) -> () loc("),
                     ir, re.M)


def test_empty_kernel_and_bool_pointer():
    ir = body(gen("empty"))
    check_ir(ir, r"func\.func public @empty_kernel\(%x: !tile\.ptr<f16>\) \{",
             "^" + g('    "func.return"() : () -> ()') + "$")
    ir = make_ir(empty_kernel, {"x": "*i1"})
    assert "!tile.ptr<i8>" in ir  # bools are bytes in memory


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_every_op_is_in_generic_form(name):
    """No op's custom syntax lives in Python: every op line is ``%r = "dialect.op"(...)``."""
    lines = op_lines(gen(name))
    assert lines[-1].startswith('"func.return"() : () -> ()')
    for line in lines:
        assert re.match(r'(%\S+ = )?"[a-z_]+\.[a-z0-9_.]+"\(', line), line


def test_float_literals():
    from kiln.language._semantic import float_literal
    assert float_literal(1.0, kl.float32) == "1.000000e+00"
    assert float_literal(0.1, kl.float64) == "1.000000e-01"
    assert float_literal(1 / 3, kl.float64) == "3.33333333333333315e-01"
    assert float_literal(1 / 3, kl.float32) == "3.333333333e-01"
    assert float(float_literal(0.1, kl.float32)) == pytest.approx(0.1)
    assert float_literal(float("inf"), kl.float32) == "0x7F800000"
    assert float_literal(float("-inf"), kl.float16) == "0xFC00"
    assert float_literal(float("nan"), kl.bfloat16) == "0x7FC0"


# ---------------------------------------------------------------------------------------------
# layouts
# ---------------------------------------------------------------------------------------------


def test_layouts_are_hashable_constexprs_with_mangle():
    a = kl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
    assert a == L2 and hash(a) == hash(L2) and a.mangle() == L2.mangle()
    assert a.mangle() != kl.BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0]).mangle()
    assert kl.SliceLayout(1, a).mangle() != kl.SliceLayout(0, a).mangle()
    assert a.to_ir() == ("#tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], "
                         "warpsPerCTA = [4, 1], order = [1, 0]}>")
    assert kl.SliceLayout(0, a).to_ir().startswith("#tile.slice<{dim = 0, parent = #tile.blocked")
    assert repr(a) == ("BlockedLayout(size_per_thread=[1, 4], threads_per_warp=[4, 8], "
                       "warps_per_cta=[4, 1], order=[1, 0])")
    with pytest.raises(ValueError, match="powers of 2"):
        kl.BlockedLayout([3], [32], [4], [0])
    with pytest.raises(ValueError, match="permutation"):
        kl.BlockedLayout([1, 1], [4, 8], [4, 1], [0, 0])
    # Block bases (a cluster's split, in elements) that move by whole CTA parts: the cga
    # bases in parts; the IR holds one CTA's part wrapped in #tile.cga.
    split = kl.DistributedLinearLayout([], [[1]], [], [[2]], [4])
    assert split.cga_bases == ((1,),) and split.without_cga().shape == (2,)
    assert split.to_ir() == ("#tile.cga<{bases = [[1]], layout = #tile.linear<{register = [], "
                             "lane = [[1]], warp = []}>}>")
    assert kl.DistributedLinearLayout([], [[1]], [], [[0]], [2]).cga_bases == ((0,),)
    with pytest.raises(ValueError, match="does not move by whole CTA parts"):
        kl.DistributedLinearLayout([[1]], [[2]], [], [[3]], [8])
    with pytest.raises(ValueError, match="do not cover"):
        kl.DistributedLinearLayout([[1]], [[1]], [], [], [4])


def test_linear_forms():
    lin = kl.to_linear_layout(L2, [16, 32])
    assert lin.reg_bases == ((0, 1), (0, 2))
    assert lin.lane_bases == ((0, 4), (0, 8), (0, 16), (1, 0), (2, 0))
    assert lin.warp_bases == ((4, 0), (8, 0))
    # a larger tensor wraps into registers; a smaller one broadcasts lanes
    assert kl.to_linear_layout(L1, [1024]).reg_bases == ((1,), (2,), (512,))
    assert kl.to_linear_layout(L1, [256]).warp_bases == ((128,), (0,))
    assert kl.to_linear_layout(ROW, [16]).lane_bases == ((0,), (0,), (0,), (1,), (2,))
    flat = reshape_linear(L2, (16, 32), (512,))
    assert flat.lane_bases == ((4,), (8,), (16,), (32,), (64,))
    assert is_trivial_conversion(L1, kl.to_linear_layout(L1, [512]), (512,))
    assert not is_trivial_conversion(L1, kl.BlockedLayout([1], [32], [4], [0]), (512,))


# ---------------------------------------------------------------------------------------------
# specialization
# ---------------------------------------------------------------------------------------------


class FakeTensor:
    def __init__(self, addr, dtype="float32"):
        self.addr, self.dtype = addr, dtype

    def data_ptr(self):
        return self.addr


def test_specialization():
    sig, cx, runtime, key = add_kernel.specialize(
        {"x": FakeTensor(4096), "y": FakeTensor(4100), "out": FakeTensor(0, "float16"),
         "n": 1, "BLOCK": 256})
    assert sig == {"x": "*fp32:16", "y": "*fp32", "out": "*fp16:16"}
    assert cx == {"n": 1, "BLOCK": 256} and runtime == ["x", "y", "out"]
    sig, cx, _, key2 = add_kernel.specialize(
        {"x": FakeTensor(4096), "y": FakeTensor(4096), "out": FakeTensor(0), "n": 64,
         "BLOCK": 256})
    assert sig["n"] == "i32:16" and key != key2
    assert add_kernel.specialize({"x": FakeTensor(16), "y": FakeTensor(16),
                                  "out": FakeTensor(16), "n": 7, "BLOCK": 1})[0]["n"] == "i32"
    assert add_kernel.specialize({"x": 1.5, "y": True, "out": 2**40, "n": 2**63,
                                  "BLOCK": 1})[0] == {"x": "fp32", "y": "i1", "out": "i64:16",
                                                      "n": "u64:16"}

    @kiln.jit(do_not_specialize=["n"], do_not_specialize_on_alignment=["x"])
    def k(x, n):
        pass
    assert k.specialize({"x": FakeTensor(32), "n": 1})[0] == {"x": "*fp32", "n": "i32"}
    assert k.specialize({"x": FakeTensor(32), "n": 32})[0] == {"x": "*fp32", "n": "i32"}


@kiln.jit
def annotated_pointers(x: kl.pointer_type(kl.float32), y: "*fp16", n, BLOCK: kl.constexpr):
    offs = kl.arange(0, BLOCK, L1)
    kl.store(y + offs, kl.load(x + offs, mask=offs < n).to(kl.float16), mask=offs < n)


def test_integer_addresses_for_pointer_annotated_arguments():
    """An int passed where the annotation says pointer is an address (a "*fp32" argument,
    16-byte alignment specialized as for tensors); elsewhere an int stays an integer."""
    sig, cx, runtime, _ = annotated_pointers.specialize(
        {"x": 0x10000, "y": 0x10008, "n": 1000, "BLOCK": 512})
    assert sig == {"x": "*fp32:16", "y": "*fp16", "n": "i32"} and runtime == ["x", "y", "n"]
    sig = annotated_pointers.specialize({"x": 1, "y": FakeTensor(64, "float16"), "n": 5,
                                         "BLOCK": 512})[0]
    assert sig == {"x": "*fp32", "y": "*fp16:16", "n": "i32"}  # 1 is an address, not a constant
    assert add_kernel.specialize({"x": 4096, "y": FakeTensor(16), "out": FakeTensor(16),
                                  "n": 7, "BLOCK": 1})[0]["x"] == "i32:16"  # not annotated
    ir = make_ir(annotated_pointers, *annotated_pointers.specialize(
        {"x": 0x10000, "y": 0x10008, "n": 1000, "BLOCK": 512})[:2])
    check_ir(ir, r"%x: !tile.ptr<f32> \{tile.divisibility = 16 : i32\}", r"%y: !tile.ptr<f16>")
    with pytest.raises(TypeError, match=r"argument 'y' is annotated \*fp16 but got a tensor of "
                       r"fp32"):
        annotated_pointers.specialize({"x": 0, "y": FakeTensor(64), "n": 5, "BLOCK": 512})
    with pytest.raises(TypeError, match=r"argument 'x' is annotated \*fp32: pass a tensor \(an "
                       r"object with data_ptr\(\)\) or an integer device address, got float"):
        annotated_pointers.specialize({"x": 1.5, "y": 0, "n": 5, "BLOCK": 512})
    with pytest.raises(ValueError, match=r"argument 'x': address -16 is not a 64-bit unsigned"):
        annotated_pointers.specialize({"x": -16, "y": 0, "n": 5, "BLOCK": 512})


def test_postponed_pointer_annotations(tmp_path):
    """``from __future__ import annotations`` turns annotations into strings."""
    import importlib.util
    (tmp_path / "kpostponed.py").write_text(
        "from __future__ import annotations\n"
        "import kiln\nimport kiln.language as kl\n"
        "@kiln.jit\n"
        "def k(x: kl.pointer_type(kl.int8), y: '*i32', n: int, B: kl.constexpr):\n"
        "    pass\n")
    spec = importlib.util.spec_from_file_location("kpostponed", tmp_path / "kpostponed.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.k.specialize({"x": 32, "y": 8, "n": 32, "B": 4})[0] == {
        "x": "*i8:16", "y": "*i32", "n": "i32:16"}


def test_specialized_one_is_folded_into_the_ir():
    ir = make_ir(add_kernel, {"x": "*fp32:16", "y": "*fp32:16", "out": "*fp32:16"},
                 {"n": 1, "BLOCK": 512})
    assert "%n" not in ir
    assert ir.count("{tile.divisibility = 16 : i32}") == 3
    check_ir(body(ir), g('"arith.constant"() {value = dense<1> : tensor<512xi32, #blocked>}'),
             g('"arith.cmpi"(%?, %?) {predicate = 2 : i64}'))  # slt


def test_grid_normalization():
    from kiln.jit import _normalize_grid
    assert _normalize_grid((4,)) == (4, 1, 1)
    assert _normalize_grid([2, 3]) == (2, 3, 1)
    for bad in (4, (), (0,), (1, 70000), (1, 2, 3, 4), (1.5,)):
        with pytest.raises(ValueError):
            _normalize_grid(bad)


def test_jit_function_cannot_be_called_directly():
    with pytest.raises(RuntimeError, match="launch it with"):
        add_kernel(1, 2, 3, 4)
    with pytest.raises(ValueError, match="inside a @kiln.jit"):
        kl.arange(0, 4, L1)


def test_import_without_extensions_numpy_or_torch(tmp_path):
    script = tmp_path / "blocked.py"
    script.write_text(
        "import sys, importlib.abc\n"
        "class Block(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path, target=None):\n"
        "        if name in ('kiln._compiler', 'kiln._runtime', 'numpy', 'torch') or \\\n"
        "           name.startswith(('numpy.', 'torch.')):\n"
        "            raise ImportError('blocked ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        f"sys.path.insert(0, {os.path.join(os.path.dirname(HERE), '..', '..', 'python')!r})\n"
        "import kiln, kiln.language as kl\n"
        "@kiln.jit\n"
        "def k(x):\n"
        "    pass\n"
        "for make in (lambda: kiln.compile(k, {'x': '*fp32'}),\n"
        "             lambda: kiln.compiler.make_ir(k, {'x': '*fp32'})):\n"
        "    try:\n"
        "        make()\n"
        "    except kiln.CompilationError as e:\n"
        "        print('ERR', e)\n")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert len(lines) == 2, out.stdout
    assert all("Kiln's compiler extension is not built" in line for line in lines)


# ---------------------------------------------------------------------------------------------
# the corpus through real tools
# ---------------------------------------------------------------------------------------------


@pytest.mark.skipif(MLIR_OPT is None, reason="upstream mlir-opt is not installed")
@pytest.mark.parametrize("name", sorted(CORPUS))
def test_corpus_is_valid_mlir(name):
    """Syntax, SSA dominance and upstream (arith/scf/math/func) verifiers via mlir-opt."""
    ir = gen(name)
    r = subprocess.run([MLIR_OPT, "--allow-unregistered-dialect", "-o", os.devnull],
                       input=ir, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr + "\n" + ir


@needs_compiler
@pytest.mark.parametrize("name", sorted(CORPUS))
def test_corpus_verifies(name):
    out = _compiler.run_pipeline(gen(name), "builtin.module()", "kernel")
    assert "module attributes" in out


@needs_compiler
@pytest.mark.parametrize("target", ["cuda:sm_90a", "hip:gfx942"])
def test_corpus_lowers(target):
    ws = 32 if target.startswith("cuda") else 64
    layout = kl.BlockedLayout([4], [ws], [4], [0])

    @kiln.jit
    def k(x, y, n, L: kl.constexpr):
        offs = kl.arange(0, 1024, L)
        acc = kl.zeros([1024], kl.float32, L)
        for i in range(0, n):
            acc += kl.load(x + offs + i * 1024, mask=offs < n, other=0.0)
        kl.store(y + offs, kl.exp(acc) + kl.sum(acc))
    ir = make_ir(k, {"x": "*fp32:16", "y": "*fp32:16", "n": "i32"}, {"L": layout},
                 target=target)
    tile = _compiler.run_pipeline(ir, "builtin.module()", "kernel")
    llvm = _compiler.run_pipeline(tile, f"builtin.module(kiln-to-llvm{{target={target} "
                                        f"num-warps=4}})", "kernel")
    assert "llvm.func" in llvm


@needs_compiler
def test_pipeline_returns_structured_module_info():
    """Shared memory, compile context and kernel names come back as data, not text."""
    ws = 32
    layout = kl.BlockedLayout([4], [ws], [4], [0])

    @kiln.jit
    def k(x, y, L: kl.constexpr):
        offs = kl.arange(0, 1024, L)
        kl.store(y + offs, kl.sum(kl.load(x + offs), axis=0) + kl.load(x + offs))
    ir = make_ir(k, {"x": "*fp32:16", "y": "*fp32:16"}, {"L": layout}, target="cuda:sm_90a")
    out = _compiler.run_pipeline_with_info(
        ir, "builtin.module(kiln-to-llvm{target=cuda:sm_90a num-warps=4})", "kernel")
    info = out["info"]
    assert "llvm.func" in out["text"]
    assert info["num_warps"] == 4 and info["target"] == "cuda:sm_90a"
    assert info["kernels"] == ["k"]
    # Argument attributes per kernel, in order; before lowering, the divisibility hints.
    before = _compiler.run_pipeline_with_info(ir, "builtin.module()", "kernel")["info"]
    assert before["kernel_args"] == {"k": [{"tile.divisibility": "16 : i32"},
                                           {"tile.divisibility": "16 : i32"}]}
    assert len(info["kernel_args"]["k"]) == 2
    # A cross-warp sum stages partial results through shared memory.
    assert info["shared"] > 0
    assert f"tile.shared = {info['shared']} : i32" in out["text"]
