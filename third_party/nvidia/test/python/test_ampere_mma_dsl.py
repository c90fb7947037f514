"""kiln.language.nvidia.ampere.mma_v2 and its layouts (Gluon's names): the F2-linear forms of
NVMMADistributedLayout(version=[2, 0]) and DotOperandLayout against the m16n8k16 fragments as
the PTX ISA states them (computed here independently, lane by lane), examples/ampere.py's GEMM
compiling for sm_80 and sm_90a to mma.sync, and every argument error at the user's line."""

from __future__ import annotations

import itertools
import os
import sys

import pytest

import kiln
import kiln.language as kl
from kiln.language.nvidia.ampere import mma_v2

import compiled
import located

pytestmark = compiled.needs_compiler

HERE = os.path.abspath(__file__)
MMA = kl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[2, 2], instr_shape=[16, 8])
OP_A = kl.DotOperandLayout(operand_index=0, parent=MMA, k_width=2)
OP_B = kl.DotOperandLayout(operand_index=1, parent=MMA, k_width=2)
SIG = {"x": "*fp32:16"}


def owned(layout, shape, num_warps):
    """{(warp, lane): set of coordinates} of ``layout`` on ``shape``, from its linear form
    (C++'s: the tensor-core layouts have no pure-Python form)."""
    kiln.compiler.compiler.default_target()  # installs C++'s layout oracle
    ll = kl.to_linear_layout(layout, shape)
    out = {}
    for w, l in itertools.product(range(num_warps), range(32)):
        base = [0, 0]
        for bits, v in ((ll.lane_bases, l), (ll.warp_bases, w)):
            for i, b in enumerate(bits):
                if v >> i & 1:
                    base = [base[0] ^ b[0], base[1] ^ b[1]]
        coords = set()
        for r in range(1 << len(ll.reg_bases)):
            c = list(base)
            for i, b in enumerate(ll.reg_bases):
                if r >> i & 1:
                    c = [c[0] ^ b[0], c[1] ^ b[1]]
            coords.add(tuple(c))
        out[(w, l)] = coords
    return out


# The m16n8k16 fragments of the PTX ISA ("Matrix Fragments for mma.m16n8k16"), for lane l with
# groupID g = l // 4 and threadID_in_group t = l % 4.
def ptx_a(l):  # A, 16 x 16 (row, col): a0..a7
    g, t = l // 4, l % 4
    return {(g + 8 * (i % 4 >= 2), 2 * t + (i % 2) + 8 * (i >= 4)) for i in range(8)}


def ptx_b(l):  # B, 16 x 8 (row = k, col = n): b0..b3
    g, t = l // 4, l % 4
    return {(2 * t + (i % 2) + 8 * (i >= 2), g) for i in range(4)}


def ptx_c(l):  # C/D, 16 x 8: c0..c3
    g, t = l // 4, l % 4
    return {(g + 8 * (i >= 2), 2 * t + (i % 2)) for i in range(4)}


def test_layouts_are_the_ptx_fragments():
    one = kl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[1, 1], instr_shape=[16, 8])
    for layout, shape, frag in ((one, [16, 8], ptx_c),
                                (kl.DotOperandLayout(0, one, 2), [16, 16], ptx_a),
                                (kl.DotOperandLayout(1, one, 2), [16, 8], ptx_b)):
        got = owned(layout, shape, 1)
        for lane in range(32):
            assert got[(0, lane)] == frag(lane), (layout, lane)


# The m16n8k32 fragments for 8-bit operands: four values a register, A's registers (r, k 0-3),
# (r + 8, k 0-3), (r, k 16-19), (r + 8, k 16-19) from each lane's 4 t.
def ptx_a8(l):  # A, 16 x 32: a0..a15
    g, t = l // 4, l % 4
    return {(g + 8 * (i // 4 % 2), 4 * t + i % 4 + 16 * (i >= 8)) for i in range(16)}


def ptx_b8(l):  # B, 32 x 8: b0..b7
    g, t = l // 4, l % 4
    return {(4 * t + i % 4 + 16 * (i >= 4), g) for i in range(8)}


def test_int8_operand_layouts_are_the_m16n8k32_fragments():
    one = kl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[1, 1], instr_shape=[16, 8])
    for layout, shape, frag in ((kl.DotOperandLayout(0, one, 4), [16, 32], ptx_a8),
                                (kl.DotOperandLayout(1, one, 4), [32, 8], ptx_b8)):
        got = owned(layout, shape, 1)
        for lane in range(32):
            assert got[(0, lane)] == frag(lane), (layout, lane)


@kiln.jit
def int8_mma(x, y, KW: kl.constexpr):
    bl: kl.constexpr = kl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
    offs = kl.arange(0, 64, kl.SliceLayout(1, bl))[:, None] * 64 + \
        kl.arange(0, 64, kl.SliceLayout(0, bl))[None, :]
    a = kl.convert_layout(kl.load(y + offs), kl.DotOperandLayout(0, MMA, KW))
    b = kl.convert_layout(kl.load(y + 4096 + offs), kl.DotOperandLayout(1, MMA, KW))
    acc = mma_v2(a, b, kl.zeros([64, 64], kl.int32, MMA))
    kl.store(x + offs, kl.convert_layout(acc, bl))


@pytest.mark.parametrize("target", ["cuda:sm_80", "cuda:sm_90a"])
@pytest.mark.parametrize("k_width", [4, 8, 16])
def test_int8_operands_compile_to_saturating_m16n8k32(target, k_width):
    """Gluon's mma_v2 takes int8 operands into an int32 accumulator (a third-party IQ3_S
    GEMM does): mma.sync m16n8k32 with .satfinite, as Gluon emits it. 64 x 64 x 64 on 2 x 2
    warps: each warp 2 x 4 tiles of 16 x 8, 2 K steps."""
    k = kiln.compile(int8_mma, {"x": "*i32:16", "y": "*i8:16"}, {"KW": k_width}, target=target,
                     num_warps=4, cache=False)
    ptx = k.asm["ptx"]
    assert ptx.count("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32") == 16, ptx
    assert "mma.sync.aligned.m16n8k16" not in ptx


def test_warps_tile_the_accumulator_and_broadcast_the_operands():
    """2 x 2 warps, consecutive warps across N first (as Triton's mma v2): warp w holds
    block (w // 2, w % 2) of C, rows w // 2 of A (all of K) and columns w % 2 of B."""
    c = owned(MMA, [32, 16], 4)
    a = owned(OP_A, [32, 16], 4)
    b = owned(OP_B, [16, 16], 4)
    for w, lane in itertools.product(range(4), range(32)):
        wm, wn = w // 2, w % 2
        assert c[(w, lane)] == {(r + 16 * wm, col + 8 * wn) for r, col in ptx_c(lane)}
        assert a[(w, lane)] == {(r + 16 * wm, k) for r, k in ptx_a(lane)}
        assert b[(w, lane)] == {(k, col + 8 * wn) for k, col in ptx_b(lane)}


def test_repeats_cover_larger_tensors_once():
    for layout, shape in ((MMA, [64, 64]), (OP_A, [64, 64]), (OP_B, [64, 64])):
        got = owned(layout, shape, 4)
        every = [c for cs in got.values() for c in cs]
        copies = 2 if layout is not MMA else 1  # operands are shared by 2 warps
        assert len(every) == copies * 64 * 64
        assert set(every) == {(r, c) for r in range(64) for c in range(64)}


def test_layout_arguments_are_checked():
    with pytest.raises(ValueError, match=r"version \[2, 0\] \(mma.sync\) has instr_shape"):
        kl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[4, 1],
                                  instr_shape=[16, 8, 16]).to_ir()
    # Versions Kiln does not lower are built (Gluon code builds layouts at import time) and
    # are an error where a kernel uses them.
    v1 = kl.NVMMADistributedLayout(version=[1, 0], warps_per_cta=[4, 1], instr_shape=[16, 8])
    with pytest.raises(ValueError, match=r"version must be \[2, 0\], \[2, 1\] \(mma.sync\) or "
                                         r"\[3, 0\]"):
        v1.to_ir()
    # Rank 3 (batched) mma.sync layouts have a batch entry in instr_shape.
    with pytest.raises(ValueError, match=r"has instr_shape \[1, 16, 8\] \(batched"):
        kl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[4, 1, 1],
                                  instr_shape=[16, 8]).to_ir()
    # A BlockedLayout parent is dot_fma's (test_dot_fma_dsl.py); other layouts are refused.
    with pytest.raises(TypeError, match="parent must be an NVMMADistributedLayout, an "
                                        "AMDMFMALayout or a BlockedLayout"):
        kl.DotOperandLayout(0, kl.SliceLayout(0, kl.BlockedLayout([1, 1], [4, 8], [4, 1],
                                                                  [1, 0])), 2)
    with pytest.raises(ValueError, match="operand_index must be 0 \\(A\\) or 1 \\(B\\)"):
        kl.DotOperandLayout(2, MMA, 2)
    with pytest.raises(ValueError, match="k_width must be a power of 2"):
        kl.DotOperandLayout(0, MMA, 3)
    acc3 = kl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                     instr_shape=[16, 64, 16])
    with pytest.raises(ValueError, match="only operand 0 \\(A\\) is held in registers"):
        kl.DotOperandLayout(1, acc3, 2)
    assert OP_A == kl.DotOperandLayout(operand_index=0, parent=MMA, k_width=2)
    assert "DotOperandLayout(operand_index=0" in repr(OP_A)
    assert OP_A.mangle() != OP_B.mangle() and MMA.mangle() != acc3.mangle()


@pytest.mark.parametrize("target", ["cuda:sm_80", "cuda:sm_90a"])
def test_example_gemm_compiles_to_mma_sync(target):
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "..", "..", "..", ".."))
    from examples import ampere
    k = ampere.mma_v2_gemm_kernel.warmup(
        "*bf16:16", "*bf16:16", "*bf16:16", 1000, 1000, 1000, 1000, 1000, 1000,
        BM=128, BN=128, BK=32, STAGES=3, WARPS_M=2, WARPS_N=2, num_warps=4, grid=(1,),
        target=target)
    ptx = k.asm["ptx"]
    assert k.asm.get("cubin")  # ptxas accepted it
    # Each warp: 64 x 64 of C = 4 x 8 instruction tiles, 2 k-steps of 16 per BK = 32.
    assert ptx.count("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32") == 64
    # 16-byte copies: A's 128 x 32 and B's 32 x 128 tiles are 4 copies each per thread, in 2
    # prologue steps and the loop.
    assert ptx.count("cp.async.cg.shared.global") == 3 * (4 + 4)
    assert k.metadata["shared"] == 3 * (128 * 32 + 32 * 128) * 2


@kiln.jit
def e_acc_layout(x):
    acc = kl.zeros([64, 64], kl.float32, kl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0]))
    a = kl.zeros([64, 32], kl.bfloat16, OP_A)
    b = kl.zeros([32, 64], kl.bfloat16, OP_B)
    mma_v2(a, b, acc)  # E:acc


@kiln.jit
def e_operand_layout(x):
    acc = kl.zeros([64, 64], kl.float32, MMA)
    a = kl.zeros([64, 32], kl.bfloat16, OP_B)
    b = kl.zeros([32, 64], kl.bfloat16, OP_B)
    mma_v2(a, b, acc)  # E:opa


@kiln.jit
def e_kwidth(x):
    acc = kl.zeros([64, 64], kl.float32, MMA)
    a = kl.zeros([64, 32], kl.bfloat16, kl.DotOperandLayout(0, MMA, 4))
    b = kl.zeros([32, 64], kl.bfloat16, OP_B)
    mma_v2(a, b, acc)  # E:kw


@kiln.jit
def e_dtype(x):
    acc = kl.zeros([64, 64], kl.float32, MMA)
    a = kl.zeros([64, 32], kl.int16, OP_A)
    b = kl.zeros([32, 64], kl.int16, OP_B)
    mma_v2(a, b, acc)  # E:dtype


@kiln.jit
def e_int8_acc(x):
    acc = kl.zeros([64, 64], kl.float32, MMA)
    a = kl.zeros([64, 32], kl.int8, OP_A)
    b = kl.zeros([32, 64], kl.int8, OP_B)
    mma_v2(a, b, acc)  # E:i8acc


@kiln.jit
def e_shapes(x):
    acc = kl.zeros([64, 64], kl.float32, MMA)
    a = kl.zeros([64, 32], kl.bfloat16, OP_A)
    b = kl.zeros([64, 64], kl.bfloat16, OP_B)
    mma_v2(a, b, acc)  # E:shape


@kiln.jit
def e_small(x):
    small: kl.constexpr = kl.NVMMADistributedLayout([2, 0], [1, 1], [16, 8])
    acc = kl.zeros([16, 8], kl.float32, small)
    a = kl.zeros([16, 8], kl.bfloat16, kl.DotOperandLayout(0, small, 2))
    b = kl.zeros([8, 8], kl.bfloat16, kl.DotOperandLayout(1, small, 2))
    mma_v2(a, b, acc)  # E:small


@kiln.jit
def e_acc_dtype(x):
    acc = kl.zeros([64, 64], kl.float16, MMA)
    a = kl.zeros([64, 32], kl.bfloat16, OP_A)
    b = kl.zeros([32, 64], kl.bfloat16, OP_B)
    mma_v2(a, b, acc)  # E:accdt


@kiln.jit
def e_not_tensor(x):
    acc = kl.zeros([64, 64], kl.float32, MMA)
    b = kl.zeros([32, 64], kl.bfloat16, OP_B)
    mma_v2(1.0, b, acc)  # E:nott


ERRORS = [
    (e_acc_dtype, "E:accdt", "mma_v2",
     r"mma_v2: acc must be float32 \(or float16 with float16 operands\), got fp16"),
    (e_not_tensor, "E:nott", "mma_v2", r"mma_v2: a must be a 2-D tensor, got .*"),
    (e_acc_layout, "E:acc", "mma_v2",
     r"mma_v2: acc must be in NVMMADistributedLayout\(version=\[2, 0\], \.\.\.\), got "
     r"BlockedLayout.*"),
    (e_operand_layout, "E:opa", "mma_v2",
     r"mma_v2: a must be in DotOperandLayout\(0, acc's layout, k_width\), got "
     r"DotOperandLayout\(operand_index=1.*"),
    (e_kwidth, "E:kw", "mma_v2",
     r"mma_v2: a and b must have the same k_width \(it orders K inside each instruction\), "
     r"got 4 and 2"),
    (e_dtype, "E:dtype", "mma_v2",
     r"mma_v2: a and b must both be bfloat16, float16, float32 \(read as tf32\) or int8, got "
     r"int16 and int16"),
    (e_int8_acc, "E:i8acc", "mma_v2", r"mma_v2: acc must be int32 with int8 operands, got fp32"),
    (e_shapes, "E:shape", "mma_v2",
     r"mma_v2: shapes do not multiply: a \[64, 32\], b \[64, 64\], acc \[64, 64\]"),
    (e_small, "E:small", "mma_v2",
     r"mma_v2: K = 8 is not a multiple of the m16n8k16 instruction's K \(16\)"),
]


@pytest.mark.parametrize("fn,marker,anchor,message", ERRORS, ids=[e[1] for e in ERRORS])
def test_errors_point_at_the_call(fn, marker, anchor, message):
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(fn, SIG, {}, target="cuda:sm_80", num_warps=4 if fn is not e_small else 1,
                     cache=False)
    located.assert_located(ei.value, HERE, marker, anchor, message, kiln.CompilationError)


def test_layouts_that_differ_mangle_differently():
    # The mangled layout is part of a kernel's cache key: a minor version that differs must
    # not reuse another layout's kernel.
    v20 = kl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[4, 1], instr_shape=[16, 8])
    v21 = kl.NVMMADistributedLayout(version=[2, 1], warps_per_cta=[4, 1], instr_shape=[16, 8])
    assert v20 != v21 and v20.mangle() != v21.mangle()


def test_blackwell_module_reexports_what_gluons_does():
    """Gluon's Blackwell module re-exports mma_v2 and async_copy (Ampere's) and mbarrier,
    fence_async_shared, async_store (Hopper's); a kernel for Blackwell and Ampere imports
    mma_v2 from there (a third-party speech-feature kernel did)."""
    from kiln.language.nvidia import ampere, blackwell, hopper
    assert blackwell.mma_v2 is ampere.mma_v2 and blackwell.async_copy is ampere.async_copy
    assert blackwell.mbarrier is hopper.mbarrier
    assert blackwell.fence_async_shared is hopper.fence_async_shared
    assert blackwell.async_store is hopper.async_store
