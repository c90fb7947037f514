"""kiln.language.amd.cdna3.mfma and its layouts (Gluon's names): the F2-linear forms of
AMDMFMALayout and DotOperandLayout over it against the operand layouts of every v_mfma form
Kiln lowers, as the CDNA3/CDNA4 ISA documents them (computed here independently, lane by lane
and register by register), warps and repeats, compiling for gfx942 and gfx950 to the right
v_mfma instructions, and every error at the user's line."""

from __future__ import annotations

import itertools
import os
import re

import pytest

import kiln
import kiln.language as kl
from kiln.language.amd import cdna3, cdna4

import amdgcn_waits
import compiled
import located

pytestmark = compiled.needs_compiler

HERE = os.path.abspath(__file__)
WAVE = 64


def registers(layout, shape, num_warps):
    """{(warp, lane): [coordinate of register 0, 1, ...]} of ``layout`` on ``shape``, from
    its linear form (C++'s: the matrix-core layouts have no pure-Python form)."""
    kiln.compiler.compiler.default_target()  # installs C++'s layout oracle
    ll = kl.to_linear_layout(layout, shape)

    def xor(bases, v, c):
        for i, b in enumerate(bases):
            if v >> i & 1:
                c = (c[0] ^ b[0], c[1] ^ b[1])
        return c
    out = {}
    for w, l in itertools.product(range(num_warps), range(WAVE)):
        base = xor(ll.warp_bases, w, xor(ll.lane_bases, l, (0, 0)))
        out[(w, l)] = [xor(ll.reg_bases, r, base) for r in range(1 << len(ll.reg_bases))]
    return out


# The v_mfma forms Kiln lowers: (CDNA version, M = N, K, operand dtype, accumulator dtype,
# K elements per lane, the instruction's mnemonic on that version's chip). From the CDNA1 to
# CDNA4 ISA guides' instruction tables (CDNA1/CDNA2 spell them without the underscore before
# the type: v_mfma_f32_32x32x8f16).
FORMS = [
    (1, 32, 2, "fp32", "fp32", 1, "v_mfma_f32_32x32x2f32"),
    (1, 32, 8, "fp16", "fp32", 4, "v_mfma_f32_32x32x8f16"),
    (1, 16, 16, "fp16", "fp32", 4, "v_mfma_f32_16x16x16f16"),
    (1, 32, 4, "bf16", "fp32", 2, "v_mfma_f32_32x32x4bf16"),
    (1, 16, 8, "bf16", "fp32", 2, "v_mfma_f32_16x16x8bf16"),
    (1, 32, 8, "int8", "int32", 4, "v_mfma_i32_32x32x8i8"),
    (1, 16, 16, "int8", "int32", 4, "v_mfma_i32_16x16x16i8"),
    (2, 16, 4, "fp64", "fp64", 1, "v_mfma_f64_16x16x4f64"),
    (2, 32, 8, "bf16", "fp32", 4, "v_mfma_f32_32x32x8bf16_1k"),
    (2, 16, 16, "bf16", "fp32", 4, "v_mfma_f32_16x16x16bf16_1k"),
    (2, 16, 16, "int8", "int32", 4, "v_mfma_i32_16x16x16i8"),
    (3, 32, 2, "fp32", "fp32", 1, "v_mfma_f32_32x32x2_f32"),
    (3, 16, 4, "fp32", "fp32", 1, "v_mfma_f32_16x16x4_f32"),
    (3, 16, 4, "fp64", "fp64", 1, "v_mfma_f64_16x16x4_f64"),
    (3, 32, 8, "fp16", "fp32", 4, "v_mfma_f32_32x32x8_f16"),
    (3, 16, 16, "fp16", "fp32", 4, "v_mfma_f32_16x16x16_f16"),
    (3, 32, 8, "bf16", "fp32", 4, "v_mfma_f32_32x32x8_bf16"),
    (3, 16, 16, "bf16", "fp32", 4, "v_mfma_f32_16x16x16_bf16"),
    (3, 32, 16, "int8", "int32", 8, "v_mfma_i32_32x32x16_i8"),
    (3, 16, 32, "int8", "int32", 8, "v_mfma_i32_16x16x32_i8"),
    (3, 32, 16, "fp8e4b8", "fp32", 8, "v_mfma_f32_32x32x16_fp8_fp8"),   # FNUZ: gfx942 only
    (3, 16, 32, "fp8e5b16", "fp32", 8, "v_mfma_f32_16x16x32_bf8_bf8"),
    (4, 32, 16, "fp16", "fp32", 8, "v_mfma_f32_32x32x16_f16"),
    (4, 16, 32, "fp16", "fp32", 8, "v_mfma_f32_16x16x32_f16"),
    (4, 32, 16, "bf16", "fp32", 8, "v_mfma_f32_32x32x16_bf16"),
    (4, 16, 32, "bf16", "fp32", 8, "v_mfma_f32_16x16x32_bf16"),
    (4, 32, 32, "int8", "int32", 16, "v_mfma_i32_32x32x32_i8"),
    (4, 16, 64, "int8", "int32", 16, "v_mfma_i32_16x16x64_i8"),
    (4, 32, 16, "fp8e4nv", "fp32", 8, "v_mfma_f32_32x32x16_fp8_fp8"),
    (4, 16, 32, "fp8e5", "fp32", 8, "v_mfma_f32_16x16x32_bf8_bf8"),
]
CHIP = {1: "hip:gfx908", 2: "hip:gfx90a", 3: "hip:gfx942", 4: "hip:gfx950"}
IDS = [f[-1] + ("_" + CHIP[f[0]][4:] if f[0] != 3 else "") +
       ("_fnuz" if f[3] in ("fp8e4b8", "fp8e5b16") else "") for f in FORMS]
FNUZ = ("fp8e4b8", "fp8e5b16")


# The ISA's operand layouts of an M x N x K mfma with kb K elements per lane (the "matrix
# layout" figures of the CDNA3 ISA, section 7.1, and the AMD matrix instruction calculator):
#   A[i][k]: lane i + M * (k // kb), item k % kb;   B[k][j]: lane j + N * (k // kb), item k % kb
#   D[i][j]: lane j + N * ((i // 4) % (64 // N)), item 4 * (i // (4 * 64 // N)) + i % 4
#   f64 (v_mfma_f64_16x16x4_f64, one row a register: the matrix instruction calculator's
#   layout, as Triton's 64-bit AMDMFMALayout states it): lane j + 16 (i % 4), item i // 4
def isa_a(m, k, kb):
    return {(i, kk): (i + m * (kk // kb), kk % kb) for i in range(m) for kk in range(k)}


def isa_b(n, k, kb):
    return {(kk, j): (j + n * (kk // kb), kk % kb) for kk in range(k) for j in range(n)}


def isa_d(m, n, bits=32):
    groups = WAVE // n
    if bits == 64:
        return {(i, j): (j + n * (i % groups), i // groups) for i in range(m) for j in range(n)}
    return {(i, j): (j + n * ((i // 4) % groups), 4 * (i // (4 * groups)) + i % 4)
            for i in range(m) for j in range(n)}


def as_lane_item(regs):
    return {coord: (lane, item) for (w, lane), cs in regs.items() for item, coord in
            enumerate(cs)}


@pytest.mark.parametrize("form", FORMS, ids=IDS)
def test_layouts_are_the_isa_operand_layouts(form):
    version, m, k, _, acc_dt, kb, _ = form
    bits = 64 if acc_dt == "fp64" else 32
    acc = kl.amd.AMDMFMALayout(version, [m, m, k], False, [1, 1], element_bitwidth=bits)
    got_d = as_lane_item(registers(acc, [m, m], 1))
    assert got_d == isa_d(m, m, bits)
    # k_width = the instruction's K per lane: registers are the ISA's items.
    a = registers(kl.DotOperandLayout(0, acc, kb), [m, k], 1)
    b = registers(kl.DotOperandLayout(1, acc, kb), [k, m], 1)
    assert as_lane_item(a) == isa_a(m, k, kb)
    assert as_lane_item(b) == isa_b(m, k, kb)
    # Transposed: D^T's layout (the lowering swaps the operands: C^T = B^T A^T).
    tr = kl.amd.AMDMFMALayout(version, [m, m, k], True, [1, 1], element_bitwidth=bits)
    got_t = as_lane_item(registers(tr, [m, m], 1))
    assert got_t == {(j, i): v for (i, j), v in isa_d(m, m, bits).items()}


def test_warps_tile_n_first_and_operands_broadcast():
    """2 x 2 warps of 32 x 32 blocks: warp w holds block (w // 2, w % 2) of C (N first, as
    Triton's layout), rows w // 2 of A (all of K) and columns w % 2 of B."""
    acc = kl.amd.AMDMFMALayout(3, [32, 32, 8], False, [2, 2])
    c = registers(acc, [64, 64], 4)
    a = registers(kl.DotOperandLayout(0, acc, 4), [64, 16], 4)
    b = registers(kl.DotOperandLayout(1, acc, 4), [16, 64], 4)
    d1, a1, b1 = isa_d(32, 32), isa_a(32, 8, 4), isa_b(32, 8, 4)
    for w, lane in itertools.product(range(4), range(WAVE)):
        wm, wn = w // 2, w % 2
        assert set(c[(w, lane)]) == {(i + 32 * wm, j + 32 * wn)
                                     for (i, j), (l, _) in d1.items() if l == lane}
        assert set(a[(w, lane)]) == {(i + 32 * wm, kk + 8 * s) for s in range(2)
                                     for (i, kk), (l, _) in a1.items() if l == lane}
        assert set(b[(w, lane)]) == {(kk + 8 * s, j + 32 * wn) for s in range(2)
                                     for (kk, j), (l, _) in b1.items() if l == lane}


def test_tiles_per_warp_and_repeats_cover_each_element_once():
    acc = kl.amd.AMDMFMALayout(4, [16, 16, 32], True, [2, 1], tiles_per_warp=[2, 2])
    for layout, shape, copies in ((acc, [128, 64], 1),
                                  (kl.DotOperandLayout(0, acc, 8), [128, 64], 1),
                                  (kl.DotOperandLayout(1, acc, 8), [64, 64], 2)):
        got = registers(layout, shape, 2)
        every = [c for cs in got.values() for c in cs]
        assert len(every) == copies * shape[0] * shape[1]
        assert set(every) == set(itertools.product(range(shape[0]), range(shape[1])))


def test_layout_arguments_are_checked():
    with pytest.raises(ValueError, match=r"AMDMFMALayout: invalid instruction shape"):
        kl.amd.AMDMFMALayout(3, [8, 8, 4], False, [4, 1])
    with pytest.raises(ValueError, match=r"AMDMFMALayout: version must be in \[1, 4\]"):
        kl.amd.AMDMFMALayout(5, [32, 32, 8], False, [4, 1])
    # Gluon accepts these; Kiln refuses them where a kernel uses them.
    for v in (1, 2):  # CDNA1 / CDNA2 layouts, the same layout as CDNA3's
        assert kl.amd.AMDMFMALayout(v, [32, 32, 8], False, [4, 1]).to_ir().startswith(
            f"#tile_amd.mfma<{{version = {v}, instrShape = [32, 32, 8]")
    for layout, why in ((kl.amd.AMDMFMALayout(3, [64, 4, 64], False, [4, 1]),
                         "must be transposed"),
                        (kl.amd.AMDMFMALayout(3, [4, 64, 64], True, [4, 1]),
                         "is not transposed"),
                        (kl.amd.AMDMFMALayout(3, [32, 32, 8], False, [4, 1, 1, 1]), "rank 4"),
                        (kl.amd.AMDMFMALayout(3, [32, 32, 8], False, [4, 1, 1],
                                              tiles_per_warp=[2, 1, 1]), "batch entry is 1"),
                        (kl.amd.AMDMFMALayout(3, [32, 32, 8], False, [4, 1], 64),
                         "element_bitwidth 64 with instr_shape")):
        with pytest.raises(ValueError, match=why):
            layout.to_ir()
    acc = kl.amd.AMDMFMALayout(3, [32, 32, 8], False, [2, 2])
    with pytest.raises(ValueError, match="k_width must be a power of 2 in \\[1, 32\\]"):
        kl.DotOperandLayout(0, acc, 3)
    assert acc == kl.amd.AMDMFMALayout(version=3, instr_shape=[32, 32, 8], transposed=False,
                                       warps_per_cta=[2, 2], element_bitwidth=32,
                                       tiles_per_warp=[1, 1])
    assert acc.mangle() != kl.amd.AMDMFMALayout(3, [32, 32, 8], True, [2, 2]).mangle()
    assert "#tile_amd.dot_op<{opIdx = 1" in kl.DotOperandLayout(1, acc, 4).to_ir()
    assert cdna4.mfma is cdna3.mfma


@kiln.jit
def layout_in_kernel(x, V: kl.constexpr, INSTR: kl.constexpr, WARPS: kl.constexpr,
                     TILES: kl.constexpr):
    L: kl.constexpr = kl.amd.AMDMFMALayout(V, INSTR, False, WARPS, tiles_per_warp=TILES)  # E:f
    kl.store(x + kl.zeros([64, 64], kl.int32, L), kl.zeros([64, 64], kl.float32, L))


@pytest.mark.parametrize("v,instr,warps,tiles,message", [
    (3, [32, 32, 0], [2, 2], [1, 1], r"instr_shape entries must be positive, got \[32, 32, 0\]"),
    (3, [32, 32, -8], [2, 2], [1, 1],
     r"instr_shape entries must be positive, got \[32, 32, -8\]"),
    (3, [32, 0, 16], [2, 2], [1, 1], r"instr_shape entries must be positive, got \[32, 0, 16\]"),
    (3, [32, 32, 8], [0, 4], [1, 1], r"warps_per_cta entries must be positive, got \[0, 4\]"),
    (3, [32, 32, 8], [2, -2], [1, 1], r"warps_per_cta entries must be positive, got \[2, -2\]"),
    (3, [32, 32, 8], [2, 2], [0, 1], r"tiles_per_warp entries must be positive, got \[0, 1\]"),
    (0, [32, 32, 8], [2, 2], [1, 1], r"version must be in \[1, 4\], got 0"),
], ids=["k0", "k-8", "n0", "warps0", "warps-2", "tiles0", "version0"])
def test_zero_or_negative_layout_fields_are_refused_where_the_layout_is_built(v, instr, warps,
                                                                             tiles, message):
    # Not when the module is parsed (at the kernel's def line), nor where the layout is used.
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(layout_in_kernel, {"x": "*fp32"},
                     {"V": v, "INSTR": instr, "WARPS": warps, "TILES": tiles},
                     target="hip:gfx942", num_warps=4, cache=False)
    located.assert_located(ei.value, HERE, "E:f", "kl.amd.AMDMFMALayout",
                           r"AMDMFMALayout: " + message, kiln.CompilationError)


def test_wmma_layout_fields_are_checked_at_construction():
    # Kiln does not lower wmma, but a zero or negative field is no layout in Gluon either.
    for args, message in (
            ((1, False, [0, 4]), r"warps_per_cta entries must be positive, got \[0, 4\]"),
            ((1, False, [2, 2], [16, 0, 16]),
             r"instr_shape entries must be positive, got \[16, 0, 16\]"),
            ((1, False, [2, 2], None, [1, -1]),
             r"tiles_per_warp entries must be positive, got \[1, -1\]"),
            ((0, False, [2, 2]), r"version must be a positive int, got 0")):
        with pytest.raises(ValueError, match=r"AMDWMMALayout: " + message):
            kl.amd.AMDWMMALayout(*args)
    kl.amd.AMDWMMALayout(1, False, [2, 2], [16, 16, 16], [1, 1])


@kiln.jit
def mfma_kernel(a_ptr, b_ptr, c_ptr, M: kl.constexpr, N: kl.constexpr, K: kl.constexpr,
                V: kl.constexpr, IM: kl.constexpr, IK: kl.constexpr, TR: kl.constexpr,
                KW: kl.constexpr, BITS: kl.constexpr = 32):
    acc_l: kl.constexpr = kl.amd.AMDMFMALayout(V, [IM, IM, IK], TR, [2, 2],
                                               element_bitwidth=BITS)
    blk: kl.constexpr = kl.BlockedLayout([1, 4], [16, 4], [4, 1], [1, 0])
    rm = kl.arange(0, M, kl.SliceLayout(1, blk))
    rk = kl.arange(0, K, kl.SliceLayout(0, blk))
    rk2 = kl.arange(0, K, kl.SliceLayout(1, blk))
    rn = kl.arange(0, N, kl.SliceLayout(0, blk))
    a = kl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = kl.load(b_ptr + rk2[:, None] * N + rn[None, :])
    a = kl.convert_layout(a, kl.DotOperandLayout(0, acc_l, KW))
    b = kl.convert_layout(b, kl.DotOperandLayout(1, acc_l, KW))
    acc = kl.zeros([M, N], c_ptr.dtype.element_ty, acc_l)
    acc = cdna3.mfma(a, b, acc)  # E:kernel_mfma
    kl.store(c_ptr + rm[:, None] * N + rn[None, :], kl.convert_layout(acc, blk))


@pytest.mark.parametrize("form", FORMS, ids=IDS)
@pytest.mark.parametrize("transposed", [False, True])
def test_compiles_to_the_instruction(form, transposed):
    version, m, k, dt, acc_dt, kb, mnemonic = form
    chips = ["hip:gfx942"] if dt in FNUZ else ["hip:gfx942", "hip:gfx950"] if version == 3 \
        else [CHIP[version]]
    for target in chips:
        c = kiln.compile(mfma_kernel, {"a_ptr": f"*{dt}", "b_ptr": f"*{dt}",
                                       "c_ptr": f"*{acc_dt}"},
                         dict(M=64, N=64, K=4 * k, V=version, IM=m, IK=k, TR=transposed,
                              KW=2 * kb, BITS=64 if acc_dt == "fp64" else 32), target=target,
                         num_warps=4, cache=False)
        asm = c.asm["amdgcn"]
        got = re.findall(r"\bv_mfma\w*", asm)
        # Each of the 4 waves: (64 / 2 / m)^2 blocks x 4 K steps.
        assert got == [mnemonic] * ((32 // m) ** 2 * 4), (target, set(got))


@kiln.jit
def small_mfma_kernel(a_ptr, b_ptr, c_ptr, M: kl.constexpr, N: kl.constexpr, K: kl.constexpr,
                      ACC: kl.constexpr, KW: kl.constexpr, NW: kl.constexpr):
    blk: kl.constexpr = kl.BlockedLayout([4, 4], [4, 16], [NW, 1], [1, 0])
    rm = kl.arange(0, M, kl.SliceLayout(1, blk))
    rn = kl.arange(0, N, kl.SliceLayout(0, blk))
    rka = kl.arange(0, K, kl.SliceLayout(0, blk))
    rkb = kl.arange(0, K, kl.SliceLayout(1, blk))
    a = cdna3.buffer_load(a_ptr, rm[:, None] * K + rka[None, :])
    b = cdna3.buffer_load(b_ptr, rkb[:, None] * N + rn[None, :])
    acc = cdna3.mfma(kl.convert_layout(a, kl.DotOperandLayout(0, ACC, KW)),
                     kl.convert_layout(b, kl.DotOperandLayout(1, ACC, KW)),
                     kl.zeros([M, N], kl.float32, ACC))
    out = kl.convert_layout(acc, blk).to(c_ptr.dtype.element_ty)
    cdna3.buffer_store(out, c_ptr, rm[:, None] * N + rn[None, :])


@pytest.mark.parametrize("shape", [(32, 32, 16), (16, 16, 32)])
@pytest.mark.parametrize("dt", ["fp16", "bf16"])
@pytest.mark.parametrize("num_warps", [4, 8])
@pytest.mark.parametrize("version", [2, 3, 4])
def test_gluon_test_amd_mfma_configurations(shape, dt, num_warps, version):
    """The configurations Triton 3.6's own test_amd_mfma runs (a 32 x 32 instruction,
    transposed, all warps along M; tensors as small as 16 x 16, smaller than the block, which
    the layouts broadcast; test_amd_mfma_emulated.py checks that arithmetic), with the layout
    version of each chip that test runs on (2 on gfx90a)."""
    m, n, k = shape
    ik = 16 if version == 4 else 8
    acc = kl.amd.AMDMFMALayout(version, [32, 32, ik], True, [num_warps, 1])
    c = kiln.compile(small_mfma_kernel, {"a_ptr": f"*{dt}", "b_ptr": f"*{dt}",
                                         "c_ptr": f"*{dt}"},
                     dict(M=m, N=n, K=k, ACC=acc, KW=ik // 2, NW=num_warps),
                     target=CHIP[version], num_warps=num_warps, cache=False)
    # One 32 x 32 block per wave, K / instruction K steps.
    assert len(re.findall(r"\bv_mfma\w*", c.asm["amdgcn"])) == k // ik


def test_gfx942_fp8_and_gfx950_shapes_are_refused_at_the_op():
    with pytest.raises(kiln.CompilationError, match=r"CDNA3 \(gfx942\) has no 32x32x16 mfma "
                       r"for 'f8E4M3FN' .*FNUZ formats float8e4b8 / float8e5b16"):
        kiln.compile(mfma_kernel, {"a_ptr": "*fp8e4nv", "b_ptr": "*fp8e4nv",
                                   "c_ptr": "*fp32"},
                     dict(M=64, N=64, K=64, V=3, IM=32, IK=16, TR=False, KW=8),
                     target="hip:gfx942", num_warps=4, cache=False)
    with pytest.raises(kiln.CompilationError, match=r"the layout is for CDNA4 \(gfx950\) "
                       r"\(version 4\); hip:gfx942 has CDNA version 3"):
        kiln.compile(mfma_kernel, {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32"},
                     dict(M=64, N=64, K=64, V=4, IM=32, IK=16, TR=False, KW=8),
                     target="hip:gfx942", num_warps=4, cache=False)
    with pytest.raises(kiln.CompilationError, match=r"CDNA3 \(gfx942\) has no 32x32x16 mfma "
                       r"for 'f16' x 'f16' -> 'f32'; its shapes for these types are "
                       r"\[32, 32, 8\], \[16, 16, 16\]"):
        kiln.compile(mfma_kernel, {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32"},
                     dict(M=64, N=64, K=64, V=3, IM=32, IK=16, TR=False, KW=8),
                     target="hip:gfx942", num_warps=4, cache=False)


def test_older_layouts_run_where_their_instruction_remains():
    """A version-1 or version-2 layout compiles for a newer chip that still has its
    instruction (CDNA1's f16 and f32 forms, CDNA2's f64 and `.1k` bf16 ones), with that chip's
    spelling; CDNA3 replaced the i8 and two-element bf16 forms: an error naming the
    instruction and the shapes the chip has."""
    for version, m, k, dt, acc_dt, kb, target, mnemonic in (
            (1, 32, 8, "fp16", "fp32", 4, "hip:gfx942", "v_mfma_f32_32x32x8_f16"),
            (1, 16, 4, "fp32", "fp32", 1, "hip:gfx950", "v_mfma_f32_16x16x4_f32"),
            (1, 32, 8, "fp16", "fp32", 4, "hip:gfx90a", "v_mfma_f32_32x32x8f16"),
            (2, 32, 8, "bf16", "fp32", 4, "hip:gfx942", "v_mfma_f32_32x32x8_bf16"),
            (2, 16, 4, "fp64", "fp64", 1, "hip:gfx950", "v_mfma_f64_16x16x4_f64")):
        c = kiln.compile(mfma_kernel, {"a_ptr": f"*{dt}", "b_ptr": f"*{dt}",
                                       "c_ptr": f"*{acc_dt}"},
                         dict(M=64, N=64, K=4 * k, V=version, IM=m, IK=k, TR=False, KW=kb,
                              BITS=64 if acc_dt == "fp64" else 32),
                         target=target, num_warps=4, cache=False)
        assert set(re.findall(r"\bv_mfma\w*", c.asm["amdgcn"])) == {mnemonic}, target
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(mfma_kernel, {"a_ptr": "*int8", "b_ptr": "*int8", "c_ptr": "*int32"},
                     dict(M=64, N=64, K=32, V=2, IM=32, IK=8, TR=False, KW=4),
                     target="hip:gfx942", num_warps=4, cache=False)
    located.assert_located(
        ei.value, HERE, "E:kernel_mfma", "cdna3.mfma",
        r"mfma: the 32x32x8 mfma for 'i8' x 'i8' \(v_mfma_i32_32x32x8i8\) is a CDNA2 "
        r"\(gfx90a\) instruction that hip:gfx942 does not have; its shapes for these types "
        r"are \[32, 32, 16\], \[16, 16, 32\], \[4, 64, 64\], \[64, 4, 64\] \(a version 3 "
        r"layout\)", kiln.CompilationError)
    with pytest.raises(kiln.CompilationError, match=r"the layout is for CDNA2 \(gfx90a\) "
                       r"\(version 2\); hip:gfx908 has CDNA version 1"):
        kiln.compile(mfma_kernel, {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32"},
                     dict(M=64, N=64, K=32, V=2, IM=32, IK=8, TR=False, KW=4),
                     target="hip:gfx908", num_warps=4, cache=False)
    with pytest.raises(kiln.CompilationError, match=r"CDNA1 \(gfx908\) has no 16x16x4 mfma "
                       r"for 'f64' x 'f64' -> 'f64'"):
        kiln.compile(mfma_kernel, {"a_ptr": "*fp64", "b_ptr": "*fp64", "c_ptr": "*fp64"},
                     dict(M=64, N=64, K=16, V=1, IM=16, IK=4, TR=False, KW=1, BITS=64),
                     target="hip:gfx908", num_warps=4, cache=False)


ACC = kl.amd.AMDMFMALayout(3, [32, 32, 8], False, [2, 2])
OP_A = kl.DotOperandLayout(0, ACC, 4)
OP_B = kl.DotOperandLayout(1, ACC, 4)
SIG = {"x": "*fp32:16"}


@kiln.jit
def e_acc_layout(x):
    acc = kl.zeros([64, 64], kl.float32, kl.BlockedLayout([1, 4], [8, 8], [4, 1], [1, 0]))
    a = kl.zeros([64, 16], kl.float16, OP_A)
    b = kl.zeros([16, 64], kl.float16, OP_B)
    cdna3.mfma(a, b, acc)  # E:acc


@kiln.jit
def e_operand_layout(x):
    acc = kl.zeros([64, 64], kl.float32, ACC)
    a = kl.zeros([64, 16], kl.float16, OP_B)
    b = kl.zeros([16, 64], kl.float16, OP_B)
    cdna3.mfma(a, b, acc)  # E:opa


@kiln.jit
def e_kwidth(x):
    acc = kl.zeros([64, 64], kl.float32, ACC)
    a = kl.zeros([64, 16], kl.float16, kl.DotOperandLayout(0, ACC, 8))
    b = kl.zeros([16, 64], kl.float16, OP_B)
    cdna3.mfma(a, b, acc)  # E:kw


@kiln.jit
def e_shapes(x):
    acc = kl.zeros([64, 64], kl.float32, ACC)
    a = kl.zeros([64, 16], kl.float16, OP_A)
    b = kl.zeros([32, 64], kl.float16, OP_B)
    cdna3.mfma(a, b, acc)  # E:shape


@kiln.jit
def e_dtype(x):
    acc = kl.zeros([64, 64], kl.float32, ACC)
    a = kl.zeros([64, 16], kl.int16, OP_A)
    b = kl.zeros([16, 64], kl.int16, OP_B)
    cdna3.mfma(a, b, acc)  # E:dtype


@kiln.jit
def e_k(x):
    acc = kl.zeros([64, 64], kl.float32, ACC)
    a = kl.zeros([64, 2], kl.float16, OP_A)
    b = kl.zeros([2, 64], kl.float16, OP_B)
    cdna3.mfma(a, b, acc)  # E:k


@kiln.jit
def e_not_tensor(x):
    acc = kl.zeros([64, 64], kl.float32, ACC)
    b = kl.zeros([16, 64], kl.float16, OP_B)
    cdna3.mfma(1.0, b, acc)  # E:nott


@kiln.jit
def e_not_amd(x):
    acc = kl.zeros([64, 64], kl.float32, ACC)
    a = kl.zeros([64, 16], kl.float16, OP_A)
    b = kl.zeros([16, 64], kl.float16, OP_B)
    cdna3.mfma(a, b, acc)  # E:nv


ERRORS = [
    (e_not_tensor, "E:nott", "cdna3.mfma",
     r"mfma: a must be a 2-D \(or 3-D, batched\) tensor like acc, got .*"),
    (e_acc_layout, "E:acc", "cdna3.mfma",
     r"mfma: acc must be in an AMDMFMALayout, got BlockedLayout.*"),
    (e_operand_layout, "E:opa", "cdna3.mfma",
     r"mfma: a must be in DotOperandLayout\(0, acc's layout, k_width\), got "
     r"DotOperandLayout\(operand_index=1.*"),
    (e_kwidth, "E:kw", "cdna3.mfma", r"mfma: a and b must have the same k_width, got 8 and 4"),
    (e_shapes, "E:shape", "cdna3.mfma",
     r"mfma: shapes do not multiply: a \[64, 16\], b \[32, 64\], acc \[64, 64\]"),
    (e_dtype, "E:dtype", "cdna3.mfma",
     r"mfma: CDNA3 \(gfx942\) has no 32x32x8 mfma for 'i16' x 'i16' -> 'f32' "
     r"\(f32, f16, bf16 and i8 operands into f32 or i32, f64 into f64; fp8: FNUZ on gfx942, OCP on gfx950\)"),
    (e_k, "E:k", "cdna3.mfma",
     r"mfma: K = 2 is shorter than k_width 4 \(use a k_width of at most 2\)"),
]


@pytest.mark.parametrize("fn,marker,anchor,message", ERRORS, ids=[e[1] for e in ERRORS])
def test_errors_point_at_the_call(fn, marker, anchor, message):
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(fn, SIG, {}, target="hip:gfx942", num_warps=4, cache=False)
    located.assert_located(ei.value, HERE, marker, anchor, message, kiln.CompilationError)


def test_mfma_is_amd_only():
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(e_not_amd, SIG, {}, target="cuda:sm_90a", num_warps=4, cache=False)
    assert "AMD" in ei.value.message and ei.value.line == located.where(HERE, "E:nv",
                                                                        "cdna3.mfma")[0]


def registers3(layout, shape, num_warps):
    """registers() for a 3-D layout: {(warp, lane): [coordinate of register 0, 1, ...]}."""
    kiln.compiler.compiler.default_target()
    ll = kl.to_linear_layout(layout, shape)

    def xor(bases, v, c):
        for i, b in enumerate(bases):
            if v >> i & 1:
                c = tuple(x ^ y for x, y in zip(c, b))
        return c
    return {(w, l): [xor(ll.reg_bases, r, xor(ll.warp_bases, w, xor(ll.lane_bases, l,
                                                                      (0, 0, 0))))
                     for r in range(1 << len(ll.reg_bases))]
            for w, l in itertools.product(range(num_warps), range(WAVE))}


def test_batched_layouts_place_the_batch_as_triton():
    """A batched AMDMFMALayout [B, M, N]: each batch index is the 2-D layout's; warps go
    along N, then M, then the batch (warp bit 1 here); batch repeats are the last registers.
    Its operands hold the same batch indices as the accumulator."""
    acc = kl.amd.AMDMFMALayout(3, [32, 32, 8], False, [2, 1, 2])
    flat = kl.amd.AMDMFMALayout(3, [32, 32, 8], False, [1, 2])
    c3, c2 = registers3(acc, [4, 32, 64], 4), registers(flat, [32, 64], 2)
    a3 = registers3(kl.DotOperandLayout(0, acc, 4), [4, 32, 16], 4)
    b3 = registers3(kl.DotOperandLayout(1, acc, 4), [4, 16, 64], 4)
    for w, lane in itertools.product(range(4), range(WAVE)):
        wn, wb = w & 1, w >> 1
        regs = c3[(w, lane)]
        half = len(regs) // 2  # batch wb first, then wb + 2 (the last register bit)
        assert [r[0] for r in regs] == [wb] * half + [wb + 2] * half
        assert [r[1:] for r in regs[:half]] == c2[(wn, lane)]
        assert [r[1:] for r in regs[half:]] == c2[(wn, lane)]
        assert {r[0] for r in a3[(w, lane)]} == {r[0] for r in b3[(w, lane)]} == {wb, wb + 2}


@kiln.jit
def batched_mfma_kernel(a_ptr, b_ptr, c_ptr, NB: kl.constexpr, M: kl.constexpr,
                        N: kl.constexpr, K: kl.constexpr):
    acc_l: kl.constexpr = kl.amd.AMDMFMALayout(3, [32, 32, 8], True, [2, 2, 1])
    blk: kl.constexpr = kl.BlockedLayout([1, 1, 4], [1, 16, 4], [1, 4, 1], [2, 1, 0])
    rb = kl.arange(0, NB, kl.SliceLayout(1, kl.SliceLayout(2, blk)))[:, None, None]
    r1 = kl.arange(0, M, kl.SliceLayout(0, kl.SliceLayout(2, blk)))[None, :, None]
    rk = kl.arange(0, K, kl.SliceLayout(0, kl.SliceLayout(1, blk)))[None, None, :]
    rk1 = kl.arange(0, K, kl.SliceLayout(0, kl.SliceLayout(2, blk)))[None, :, None]
    rn = kl.arange(0, N, kl.SliceLayout(0, kl.SliceLayout(1, blk)))[None, None, :]
    a = kl.load(a_ptr + rb * M * K + r1 * K + rk)
    b = kl.load(b_ptr + rb * K * N + rk1 * N + rn)
    a = kl.convert_layout(a, kl.DotOperandLayout(0, acc_l, 4))
    b = kl.convert_layout(b, kl.DotOperandLayout(1, acc_l, 4))
    acc = cdna3.mfma(a, b, kl.zeros([NB, M, N], kl.float32, acc_l))
    kl.store(c_ptr + rb * M * N + r1 * N + rn, kl.convert_layout(acc, blk))


@pytest.mark.parametrize("target", ["hip:gfx942", "hip:gfx950"])
def test_batched_mfma_compiles_to_the_instruction(target):
    c = kiln.compile(batched_mfma_kernel, {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32"},
                     dict(NB=4, M=64, N=32, K=16), target=target, num_warps=4, cache=False)
    got = re.findall(r"\bv_mfma\w*", c.asm["amdgcn"])
    # Each wave: batches w // 2 and w // 2 + 2, one 32 x 32 block of M each, 2 K steps.
    assert got == ["v_mfma_f32_32x32x8_f16"] * 4, set(got)


@pytest.mark.parametrize("instr,transposed,m,n,k,dt,mnemonic,nw", [
    ([4, 64, 64], False, 4, 256, 64, "fp16", "v_mfma_f32_4x4x4_16b_f16", 4),
    ([64, 4, 64], True, 256, 4, 64, "fp16", "v_mfma_f32_4x4x4_16b_f16", 4),
    ([4, 64, 64], False, 4, 256, 64, "bf16", "v_mfma_f32_4x4x4_16b_bf16", 4),
    ([4, 64, 16], False, 4, 256, 16, "fp32", "v_mfma_f32_4x4x1_16b_f32", 4),
])
@pytest.mark.parametrize("target", ["hip:gfx942", "hip:gfx950"])
def test_4x4_instructions_compile_with_the_broadcast(instr, transposed, m, n, k, dt,
                                                     mnemonic, nw, target):
    """The 4 x 64 / 64 x 4 forms (Triton's, for a product with a side of 4): 16 instructions
    for each K tile of 16 lane groups, each taking the shared operand from lane group 0 .. 15
    (cbsz:4 abid:g); test_amd_mfma_emulated.py checks their arithmetic."""
    warps = [1, nw] if m == 4 else [nw, 1]
    acc = kl.amd.AMDMFMALayout(3 if target == "hip:gfx942" else 4, instr, transposed, warps)
    kw = instr[2] // 16
    c = kiln.compile(small_mfma_kernel, {"a_ptr": f"*{dt}", "b_ptr": f"*{dt}",
                                         "c_ptr": f"*{dt}"},
                     dict(M=m, N=n, K=k, ACC=acc, KW=kw, NW=nw), target=target, num_warps=nw,
                     cache=False)
    asm = c.asm["amdgcn"]
    got = re.findall(r"\b(v_mfma\w*)[^\n]*", asm)
    assert got == [mnemonic] * 16, set(got)
    ids = sorted(int(x) for x in re.findall(r"v_mfma\w*[^\n]*abid:(\d+)", asm))
    assert ids == list(range(1, 16)), ids  # abid:0 is not printed
    assert len(re.findall(r"v_mfma\w*[^\n]*cbsz:4", asm)) == 16


@pytest.mark.parametrize("target", ["hip:gfx942", "hip:gfx950"])
def test_4x4_fp32_loads_past_the_vmcnt_counter(target):
    """The fp32 4 x 256 kernel on four waves issues 68 loads a wave (a's 4 dwordx4 first)
    before a's first is used, with no vmcnt wait there: LLVM counts on the 6-bit counter
    (a wave issuing a VMEM instruction with 63 in flight stalls until the oldest retires),
    so a's four loads have retired. The independent checker models that stall: it passes
    the kernel, still catches its first vmcnt wait raised by one, and catches the use of
    a's last load once fewer than 63 loads follow it (the kernel cut by two loads, the
    later waits renumbered)."""
    acc = kl.amd.AMDMFMALayout(3 if target == "hip:gfx942" else 4, [4, 64, 16], False, [1, 4])
    c = kiln.compile(small_mfma_kernel, {"a_ptr": "*fp32", "b_ptr": "*fp32", "c_ptr": "*fp32"},
                     dict(M=4, N=256, K=16, ACC=acc, KW=1, NW=4), target=target, num_warps=4,
                     cache=False)
    asm = c.asm["amdgcn"]
    loads = list(re.finditer(r"^\s*buffer_load_dword(x4)? (v\d+|v\[(\d+):\d+\])[^\n]*\n",
                             asm, re.M))
    assert [bool(m.group(1)) for m in loads] == [True] * 4 + [False] * 64, asm
    assert "vmcnt(" not in asm[:loads[-1].end()], asm
    first_use = re.search(rf"ds_write_b128 v\d+, {re.escape(loads[0].group(2))}", asm)
    assert first_use and "vmcnt(" not in asm[loads[-1].end():first_use.start()], asm

    def check(text):
        (r,) = amdgcn_waits.check(text)
        assert r.waves == 4
        return [m for m, _ in r.violations.values()]

    assert check(asm) == []
    wait = re.search(r"s_waitcnt vmcnt\((\d+)\)", asm)
    bad = asm[:wait.start()] + f"s_waitcnt vmcnt({int(wait.group(1)) + 1})" + asm[wait.end():]
    (msg,) = check(bad)
    assert f"vmcnt({int(wait.group(1)) + 1}) in force" in msg, msg

    def cut(k):  # the last k loads dropped, the waits after them counting k fewer
        head, tail = asm[:loads[-1].end()], asm[loads[-1].end():]
        for m in reversed(loads[-k:]):
            head = head[:m.start()] + head[m.end():]
        return head + re.sub(r"vmcnt\((\d+)\)",
                             lambda m: f"vmcnt({max(0, int(m.group(1)) - k)})", tail)

    assert check(cut(1)) == []  # 63 loads after the fourth: retired by the stall
    (msg,) = check(cut(2))  # 62: the fourth may still be in flight at its use
    assert f"uses v{loads[3].group(3)}, loaded by" in msg, msg
    assert "no vmcnt wait before it, 63 VMEM ops in flight" in msg, msg


@kiln.jit
def layout_used(x, INSTR: kl.constexpr, TR: kl.constexpr, WARPS: kl.constexpr,
                TILES: kl.constexpr):
    L: kl.constexpr = kl.amd.AMDMFMALayout(3, INSTR, TR, WARPS, tiles_per_warp=TILES)
    z = kl.zeros([64, 64], kl.float32, L)  # E:use
    kl.store(x + kl.zeros([64, 64], kl.int32, kl.BlockedLayout([1, 1], [1, 64], [1, 4], [1, 0])),
             kl.convert_layout(z, kl.BlockedLayout([1, 1], [1, 64], [1, 4], [1, 0])))


@pytest.mark.parametrize("instr,tr,warps,tiles,message", [
    ([64, 4, 64], False, [2, 2], [1, 1],
     r"instr_shape \[64, 4, 64\] must be transposed \(not transposed, use \[4, 64, k\]\)"),
    ([4, 64, 64], True, [2, 2], [1, 1],
     r"instr_shape \[4, 64, 64\] is not transposed \(transposed, use \[64, 4, k\]\)"),
], ids=["64x4-not-transposed", "4x64-transposed"])
def test_layouts_kiln_cannot_lower_are_errors_where_used(instr, tr, warps, tiles, message):
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(layout_used, {"x": "*fp32"},
                     {"INSTR": instr, "TR": tr, "WARPS": warps, "TILES": tiles},
                     target="hip:gfx942", num_warps=4, cache=False)
    located.assert_located(ei.value, HERE, "E:use", "kl.zeros", r"AMDMFMALayout\(.*" + message,
                           kiln.CompilationError)


@kiln.jit
def mfma_with_regclass(x, RC: kl.constexpr):
    lay: kl.constexpr = kl.amd.AMDMFMALayout(version=3, instr_shape=[32, 32, 8],
                                             transposed=True, warps_per_cta=[2, 2])
    a = kl.full([64, 64], 1.0, kl.bfloat16, kl.DotOperandLayout(0, lay, 4))
    b = kl.full([64, 64], 2.0, kl.bfloat16, kl.DotOperandLayout(1, lay, 4))
    acc = cdna3.mfma(a, b, kl.zeros([64, 64], kl.float32, lay), cd_regclass=RC)  # E:rc
    r = kl.arange(0, 64, kl.SliceLayout(1, lay))
    c = kl.arange(0, 64, kl.SliceLayout(0, lay))
    kl.store(x + r[:, None] * 64 + c[None, :], acc)


@pytest.mark.parametrize("rc", [None, "a", "v"])
def test_mfma_accepts_newer_gluons_cd_regclass(rc):
    """Newer Gluon's mfma(..., cd_regclass=) (a gfx950 tutorial step passes "a"): accepted,
    the register class left to LLVM; the same code as without it."""
    k = kiln.compile(mfma_with_regclass, {"x": "*fp32:16"}, {"RC": rc}, target="hip:gfx942",
                     num_warps=4, cache=False)
    assert "v_mfma" in k.asm["amdgcn"]


def test_mfma_cd_regclass_is_checked():
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(mfma_with_regclass, {"x": "*fp32:16"}, {"RC": "s"}, target="hip:gfx942",
                     num_warps=4, cache=False)
    located.assert_located(ei.value, HERE, "E:rc", "cdna3.mfma",
                           r"mfma: cd_regclass must be 'a', 'v' or None, got 's'",
                           kiln.CompilationError)
