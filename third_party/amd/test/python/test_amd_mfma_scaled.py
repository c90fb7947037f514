"""kiln.language.amd.cdna4.mfma_scaled and get_mfma_scale_layout (Gluon's names): the scale
layout against the lanes the CDNA4 ISA reads scales from, the lowered product run by the
one-wave interpreter of test_amd_mfma_emulated.py (each ``rocdl.mfma.scale`` evaluated by the
ISA's operand layouts for e2m1 / e4m3 / e5m2 and E8M0 scales, sharing nothing with the
lowering) against a float64 reference, compiling to ``v_mfma_scale_f32_*_f8f6f4`` with the
right formats for gfx950, Triton 3.6's own test_amd_mfma_scaled configurations, k_width 32
(aiter's Gluon A8W8 GEMM: which K each instruction slot reads, read back from the lowered IR;
its product with constant scales; why per-block scales are refused) and every error at the
user's line."""

from __future__ import annotations

import itertools
import os
import re
import subprocess

import numpy as np
import pytest

import kiln
import kiln.language as kl
from kiln.language.amd import cdna4

import compiled
import located
from test_amd_mfma_dsl import registers
from test_amd_mfma_emulated import KILN_OPT, coords, e2m1, fp8, run

pytestmark = compiled.needs_compiler

HERE = os.path.abspath(__file__)
WAVE = 64


# -- the scale layout --------------------------------------------------------------------------

LAYOUT_CASES = [  # (instr M, operand, warps_per_cta, tiles_per_warp, MN, K // 32)
    (16, 0, [1, 1], [1, 1], 16, 4), (16, 1, [1, 1], [1, 1], 16, 4),
    (32, 0, [1, 1], [1, 1], 32, 2), (32, 1, [1, 1], [1, 1], 32, 2),
    (16, 0, [2, 2], [1, 1], 64, 8), (16, 1, [2, 2], [1, 1], 64, 8),
    (32, 0, [4, 1], [2, 1], 512, 4), (32, 1, [1, 4], [1, 2], 256, 8),
    (16, 1, [2, 4], [2, 2], 256, 16), (32, 0, [2, 1], [1, 1], 256, 2),
]


@pytest.mark.parametrize("case", LAYOUT_CASES, ids=lambda c: f"m{c[0]}-op{c[1]}-w"
                         f"{'x'.join(map(str, c[2]))}-t{'x'.join(map(str, c[3]))}-{c[4]}x{c[5]}")
def test_scale_layout_puts_each_scale_where_the_instruction_reads_it(case):
    """Lane l of an M-row instruction reads the scale of row (column) l % M, K block
    l // M of its K step (ISA); a warp's scales are those of the rows (columns) its
    accumulator part covers; every scale is held."""
    mdim, op, warps, tiles, mn, ks = case
    acc = kl.amd.AMDMFMALayout(4, [mdim, mdim, 128 if mdim == 16 else 64], True, warps,
                               tiles_per_warp=tiles)
    dot = kl.DotOperandLayout(op, acc, 16)
    lay = cdna4.get_mfma_scale_layout(dot, [mn, ks])
    nw = warps[0] * warps[1]
    got = registers(lay, [mn, ks], nw)
    other = mn  # the accumulator's other extent does not matter: use a square one
    acc_regs = registers(acc, [mn, other], nw)
    groups = WAVE // mdim
    held = set()
    for (w, lane), cs in got.items():
        # The rows (op 0) / columns (op 1) of the accumulator warp w computes.
        owned = {c[op] for l2 in range(WAVE) for c in acc_regs[(w, l2)]}
        for row, q in cs:
            assert row % mdim == lane % mdim and q % groups == lane // mdim, (w, lane, row, q)
            assert row in owned, (w, row)
            held.add((row, q))
    assert held == set(itertools.product(range(mn), range(ks)))


def test_scale_layout_is_gluons():
    """Triton 3.6's test_frontend (test_amd_mfma_scaled) prints this layout for a 16 x 4 scale
    of a 16x16x128 instruction on one warp."""
    acc = kl.amd.AMDMFMALayout(4, [16, 16, 128], True, [1, 1])
    for op in (0, 1):
        lay = cdna4.get_mfma_scale_layout(kl.DotOperandLayout(op, acc, 16), [16, 4])
        assert (lay.reg_bases, lay.lane_bases, lay.warp_bases) == (
            (), ((1, 0), (2, 0), (4, 0), (8, 0), (0, 1), (0, 2)), ())


def test_scale_layout_arguments_are_checked():
    acc = kl.amd.AMDMFMALayout(4, [16, 16, 128], True, [1, 1])
    dot = kl.DotOperandLayout(0, acc, 16)
    with pytest.raises(ValueError, match="scale_factor must be 32, got 16"):
        cdna4.get_mfma_scale_layout(dot, [16, 4], 16)
    with pytest.raises(TypeError, match="expects a DotOperandLayout over an AMDMFMALayout"):
        cdna4.get_mfma_scale_layout(kl.BlockedLayout([1, 1], [8, 8], [1, 1], [1, 0]), [16, 4])
    with pytest.raises(ValueError, match=r"K // 32 = 3 must be a power of 2"):
        cdna4.get_mfma_scale_layout(dot, [16, 3])


# -- the lowered product, interpreted ----------------------------------------------------------

FMT_CODE = {"e4m3": 0, "e5m2": 1, "e2m1": 4}
PACK = {"e4m3": 1, "e5m2": 1, "e2m1": 2}


def random_bytes(rng, fmt, shape):
    """Bytes of moderate finite values (the sums stay exact in float64 and f32)."""
    if fmt == "e2m1":
        return rng.integers(0, 256, shape)
    lo, hi = (0x28, 0x48) if fmt == "e4m3" else (0x30, 0x48)
    return rng.integers(lo, hi, shape) | (rng.integers(0, 2, shape) << 7)


def decode(fmt, data, pack_axis):
    """The logical matrix of a byte tensor (e2m1: two values a byte along pack_axis)."""
    if fmt != "e2m1":
        return np.vectorize(lambda x: fp8(int(x), 4 if fmt == "e4m3" else 5))(data)
    lo = np.vectorize(lambda x: e2m1(int(x) & 0xF))(data)
    hi = np.vectorize(lambda x: e2m1(int(x) >> 4))(data)
    out = np.stack([lo, hi], axis=pack_axis + 1)
    shape = list(data.shape)
    shape[pack_axis] *= 2
    return out.reshape(shape)


SCALED_CASES = [  # (instr, transposed, M, N, K, a format, b format)
    ([16, 16, 128], True, 16, 16, 128, "e2m1", "e2m1"),
    ([16, 16, 128], False, 16, 16, 128, "e4m3", "e4m3"),
    ([32, 32, 64], True, 32, 32, 64, "e5m2", "e4m3"),
    ([32, 32, 64], False, 32, 32, 128, "e2m1", "e4m3"),
    ([16, 16, 128], True, 32, 16, 256, "e4m3", "e2m1"),
    ([16, 16, 128], False, 32, 32, 128, "e2m1", "e5m2"),
    ([32, 32, 64], True, 32, 64, 64, "e2m1", "e2m1"),
    # M or N below the instruction's: lanes past the tensor repeat its rows / columns
    ([16, 16, 128], True, 4, 32, 128, "e2m1", "e2m1"),
    ([16, 16, 128], False, 4, 16, 256, "e4m3", "e2m1"),
    ([32, 32, 64], True, 8, 32, 64, "e2m1", "e4m3"),
    ([16, 16, 128], True, 16, 8, 128, "e5m2", "e2m1"),
    ([32, 32, 64], False, 32, 16, 64, "e4m3", "e4m3"),
]


def emulate_scaled(case, corrupt=lambda text: text, kw=16, scales=None, fill=None):
    """Lowers one tile_amd.mfma_scaled for one wave and interprets it. ``kw`` is both operands'
    k_width; ``scales`` None passes random per-block scales as arguments, a pair (sa, sb) of
    bytes makes them constants in the function (what None / an int scale becomes). ``fill``
    (A, B) replaces the random operand bytes. Returns (result, float64 reference, LLVM text)."""
    instr, transposed, M, N, K, fa, fb = case
    acc = kl.amd.AMDMFMALayout(4, instr, transposed, [1, 1])
    a_l, b_l = kl.DotOperandLayout(0, acc, kw), kl.DotOperandLayout(1, acc, kw)
    sa_l = cdna4.get_mfma_scale_layout(a_l, [M, K // 32])
    sb_l = cdna4.get_mfma_scale_layout(b_l, [N, K // 32])
    ash, bsh = [M, K // PACK[fa]], [K // PACK[fb], N]
    t = lambda shape, ty, lay: f"tensor<{shape[0]}x{shape[1]}x{ty}, {lay}>"  # noqa: E731
    ta, tb = t(ash, "i8", "#a"), t(bsh, "i8", "#b")
    tsa, tsb = t([M, K // 32], "i8", "#sa"), t([N, K // 32], "i8", "#sb")
    tc = t([M, N], "f32", "#acc")
    sa, sb, consts = "%sa0", "%sb0", ""
    if scales is not None:  # i8 constants print signed
        sa, sb = "%sa", "%sb"
        consts = "\n    ".join(
            f"{n} = arith.constant dense<{v - 256 if v > 127 else v}> : {ty}"
            for n, v, ty in ((sa, scales[0], tsa), (sb, scales[1], tsb)))
    ir = f"""
#acc = {acc.to_ir()}
#a = {a_l.to_ir()}
#b = {b_l.to_ir()}
#sa = {sa_l.to_ir()}
#sb = {sb_l.to_ir()}
module attributes {{tile.num_warps = 1 : i32, tile.threads_per_warp = 64 : i32}} {{
  func.func @f(%a: {ta}, %sa0: {tsa}, %b: {tb}, %sb0: {tsb}, %c: {tc}) -> {tc} {{
    {consts}
    %d = tile_amd.mfma_scaled %a scale {sa}, %b scale {sb}, %c {{aFormat = "{fa}", bFormat = "{fb}"}} : {ta}, {tsa}, {tb}, {tsb} -> {tc}
    return %d : {tc}
  }}
}}
"""
    out = subprocess.run([KILN_OPT, "-", "--convert-tile-to-llvm=target=hip:gfx950"],
                         input=ir, capture_output=True, text=True, check=True).stdout
    rng = np.random.default_rng(M * 7 + N * 3 + K + len(fa + fb))
    A8, B8 = random_bytes(rng, fa, ash), random_bytes(rng, fb, bsh)
    if fill is not None:
        A8, B8 = fill
    SA = rng.integers(122, 133, (M, K // 32))
    SB = rng.integers(122, 133, (N, K // 32))
    if scales is not None:
        SA, SB = np.full_like(SA, scales[0]), np.full_like(SB, scales[1])
    C = rng.integers(-4, 5, (M, N)).astype(np.float64)
    regs = lambda lay, shape, X: [[int(X[r][k]) for r, k in lane]  # noqa: E731
                                  for lane in coords(lay, shape)]
    args = [regs(a_l, ash, A8), regs(sa_l, [M, K // 32], SA), regs(b_l, bsh, B8),
            regs(sb_l, [N, K // 32], SB), [[C[r][n] for r, n in lane]
                                           for lane in coords(acc, [M, N])]]
    res = run(corrupt(out), args)
    got = np.full((M, N), np.nan)
    for lane, vals in zip(coords(acc, [M, N]), res):
        for (r, n), v in zip(lane, vals):
            assert np.isnan(got[r, n]) or got[r, n] == v, "copies of an element disagree"
            got[r, n] = v
    assert not np.isnan(got).any()
    A = decode(fa, A8, 1) * np.repeat(2.0 ** (SA - 127), 32, axis=1)
    B = decode(fb, B8, 0) * np.repeat(2.0 ** (SB - 127), 32, axis=1).T
    return got, A @ B + C, out


@pytest.mark.parametrize("case", SCALED_CASES, ids=lambda c: f"{'x'.join(map(str, c[0]))}-"
                         f"{'T' if c[1] else 'N'}-{c[2]}x{c[3]}x{c[4]}-{c[5]}-{c[6]}")
def test_lowered_mfma_scaled_computes_the_scaled_product(case):
    got, want, text = emulate_scaled(case)
    np.testing.assert_array_equal(got, want)
    # The formats the instruction is told: transposed, b is its A operand.
    fa, fb = FMT_CODE[case[5]], FMT_CODE[case[6]]
    if case[1]:
        fa, fb = fb, fa
    calls = re.findall(r"rocdl\.mfma\.scale\.\S+ %\w+, %\w+, %\w+, (%\w+), (%\w+),", text)
    assert calls
    consts = dict(re.findall(r"(%\w+) = llvm\.mlir\.constant\((\d+) : i32\)", text))
    assert {(int(consts[x]), int(consts[y])) for x, y in calls} == {(fa, fb)}


def test_the_scaled_emulation_can_fail():
    """Negative controls: the scales of the first instruction swapped, or its operands."""
    for case, pattern, repl in (
            (SCALED_CASES[3], r"(rocdl\.mfma\.scale\.\S+ .*, )(%\w+), (%\w+), (%\w+) :",
             r"\1\4, \3, \2 :"),
            (SCALED_CASES[1], r"(rocdl\.mfma\.scale\.\S+) (%\w+), (%\w+),", r"\1 \3, \2,")):
        got, want, _ = emulate_scaled(case, corrupt=lambda text: re.sub(
            pattern, repl, text, count=1))
        assert not np.array_equal(got, want)


# -- k_width 32 -----------------------------------------------------------------------------
#
# aiter's Gluon A8W8 GEMM passes e4m3 / e5m2 operands in k_width 32 layouts (32 consecutive K
# values a lane group) with no scales. Triton lowers any k_width by handing the instruction a
# lane's consecutive registers; at k_width 16 those are the ISA's K order (16 values, and 16
# more half the instruction's K on), at k_width 32 another order, right only because a and b
# share it and every scale is the same.

KW32_CASES = [  # (instr, transposed, M, N, K, a format, b format), both operands k_width 32
    ([16, 16, 128], True, 16, 16, 128, "e4m3", "e4m3"),
    ([16, 16, 128], False, 32, 16, 256, "e5m2", "e4m3"),
    ([32, 32, 64], True, 32, 64, 128, "e4m3", "e5m2"),
    ([32, 32, 64], False, 64, 32, 64, "e5m2", "e5m2"),
]


@pytest.mark.parametrize("case", KW32_CASES, ids=lambda c: f"{'x'.join(map(str, c[0]))}-"
                         f"{'T' if c[1] else 'N'}-{c[2]}x{c[3]}x{c[4]}-{c[5]}-{c[6]}")
def test_lowered_k_width_32_computes_the_scaled_product(case):
    """k_width 32 operands with constant scales (what None or an int byte becomes): the
    interpreted product is A @ B * 2^(sa + sb - 254) + C, one instruction per block and K
    step."""
    instr, _, M, N, K = case[:5]
    got, want, text = emulate_scaled(case, kw=32, scales=(0x81, 0x7C))
    np.testing.assert_array_equal(got, want)
    steps = (M // instr[0]) * (N // instr[1]) * (K // instr[2])
    assert len(re.findall(r"rocdl\.mfma\.scale\.", text)) == steps


@pytest.mark.parametrize("kw", [16, 32])
@pytest.mark.parametrize("instr", [[16, 16, 128], [32, 32, 64]], ids=lambda i: f"{i[0]}x{i[2]}")
@pytest.mark.parametrize("transposed", [False, True], ids=["N", "T"])
def test_instruction_slots_hold_the_layouts_k_values(kw, instr, transposed, monkeypatch):
    """The bytes each instruction reads, from the lowered IR: a and b are filled with their
    own coordinates ((row or column) << 12 | k), the IR interpreted, and every mfma_scale's
    operand slots read back. Slot j of lane l (lane group g = l // M) holds row (column)
    l % M of the block and K s K_i + 16 g + j for j < 16, s K_i + K_i / 2 + 16 g + j - 16
    after (k_width 16: the ISA's order), or s K_i + 32 g + j (k_width 32: the layout's
    consecutive registers, as Triton feeds them); the two operands' slots hold the same K;
    each instruction covers its K step once."""
    mi, ki = instr[0], instr[2]
    M, N, K = 2 * mi, 2 * mi, 2 * ki
    A = np.array([[(r << 12) | k for k in range(K)] for r in range(M)])
    B = np.array([[(n << 12) | k for n in range(N)] for k in range(K)])
    calls = []

    def record(name, a, b, c, *rest):
        calls.append((a, b))
        return [list(x) for x in c]

    import test_amd_mfma_emulated
    monkeypatch.setattr(test_amd_mfma_emulated, "isa_mfma_scale", record)
    emulate_scaled((instr, transposed, M, N, K, "e4m3", "e5m2"), kw=kw, scales=(0x7F, 0x7F),
                   fill=(A, B))
    assert len(calls) == (M // mi) * (N // mi) * (K // ki)
    steps = set()
    for x, y in calls:
        s = min(v & 0xFFF for lane in x for v in lane) // ki
        steps.add(s)
        blocks = (x[0][0] >> 12, y[0][0] >> 12)
        for lane in range(WAVE):
            g = lane // mi
            for j in range(32):
                if kw == 32:
                    want = s * ki + 32 * g + j
                else:
                    want = s * ki + 16 * g + j if j < 16 else s * ki + ki // 2 + 16 * g + j - 16
                for v, block in ((x[lane][j], blocks[0]), (y[lane][j], blocks[1])):
                    assert v & 0xFFF == want, (lane, j, v & 0xFFF, want)
                    assert v >> 12 == block + lane % mi, (lane, j, v >> 12)
    assert steps == set(range(K // ki))


def test_k_width_32_cannot_carry_per_block_scales():
    """Why k_width 32 takes only constant scales, by the ISA model alone (no lowering): one
    16x16x128 instruction fed a layout's consecutive registers and get_mfma_scale_layout's
    scales. The k_width 16 layout with a scale per 32-value block computes A @ B; the k_width
    32 layout computes it with one scale, but not with a scale per block (each scale the
    instruction applies covers 16 values from each of two lane groups, which k_width 32 fills
    from two different blocks)."""
    from test_amd_mfma_emulated import isa_mfma_scale
    acc = kl.amd.AMDMFMALayout(4, [16, 16, 128], False, [1, 1])
    rng = np.random.default_rng(5)
    A8, B8 = random_bytes(rng, "e4m3", [16, 128]), random_bytes(rng, "e4m3", [128, 16])
    per_block = rng.integers(122, 133, (16, 4)), rng.integers(122, 133, (16, 4))
    one = np.full((16, 4), 0x80), np.full((16, 4), 0x7E)

    def product(kw, scales):
        a_l, b_l = kl.DotOperandLayout(0, acc, kw), kl.DotOperandLayout(1, acc, kw)
        a = [[int(A8[r][k]) for r, k in lane] for lane in coords(a_l, [16, 128])]
        b = [[int(B8[k][n]) for k, n in lane] for lane in coords(b_l, [128, 16])]
        sc = [[int(S[r][q]) for (r, q), in coords(cdna4.get_mfma_scale_layout(lay, [16, 4]),
                                                   [16, 4])]
              for S, lay in zip(scales, (a_l, b_l))]
        zero = [[0] * 32 for _ in range(WAVE)]
        out = isa_mfma_scale("rocdl.mfma.scale.f32.16x16x128.f8f6f4", a, b, zero, [0] * WAVE,
                             [0] * WAVE, [0] * WAVE, sc[0], [0] * WAVE, sc[1])
        got = np.zeros((16, 16))
        for lane, vals in zip(coords(acc, [16, 16]), out):
            for (r, n), v in zip(lane, vals):
                got[r, n] = v
        want = (decode("e4m3", A8, 1) * np.repeat(2.0 ** (scales[0] - 127), 32, axis=1)) @ \
            (decode("e4m3", B8, 0) * np.repeat(2.0 ** (scales[1] - 127), 32, axis=1).T)
        return got, want

    for kw, scales, right in ((16, per_block, True), (32, one, True), (32, per_block, False)):
        got, want = product(kw, scales)
        assert np.array_equal(got, want) == right, (kw, right)


# -- compiling kernels -------------------------------------------------------------------------

@kiln.jit
def scaled_kernel(out_ptr, a_ptr, b_ptr, as_ptr, bs_ptr, M: kl.constexpr, N: kl.constexpr,
                  K: kl.constexpr, AF: kl.constexpr, BF: kl.constexpr, INSTR: kl.constexpr,
                  W: kl.constexpr, SCALES: kl.constexpr, KW: kl.constexpr):
    """Triton 3.6's test_amd_mfma_scaled kernel, in Kiln's names: buffer loads of packed or
    8-bit operands, converted to the dot operand layouts, scales loaded in
    get_mfma_scale_layout's layout (or None), mfma_scaled, a buffer store."""
    mfma: kl.constexpr = kl.amd.AMDMFMALayout(4, INSTR, True, W)
    DA: kl.constexpr = 2 if AF == "e2m1" else 1
    DB: kl.constexpr = 2 if BF == "e2m1" else 1
    al: kl.constexpr = kl.DotOperandLayout(0, mfma, KW)
    bl: kl.constexpr = kl.DotOperandLayout(1, mfma, KW)
    asl: kl.constexpr = cdna4.get_mfma_scale_layout(al, [M, K // 32])
    bsl: kl.constexpr = cdna4.get_mfma_scale_layout(bl, [N, K // 32])
    ld: kl.constexpr = kl.BlockedLayout([1, 8], [8, 8], [W[0] * W[1], 1], [1, 0])
    am = kl.arange(0, M, kl.SliceLayout(1, ld))[:, None]
    ak = kl.arange(0, K // DA, kl.SliceLayout(0, ld))[None, :]
    a = kl.convert_layout(cdna4.buffer_load(a_ptr, am * (K // DA) + ak), al)
    bk = kl.arange(0, K // DB, kl.SliceLayout(1, ld))[:, None]
    bn = kl.arange(0, N, kl.SliceLayout(0, ld))[None, :]
    b = kl.convert_layout(cdna4.buffer_load(b_ptr, bk * N + bn), bl)
    a_s = None
    b_s = None
    if SCALES:
        sm = kl.arange(0, M, kl.SliceLayout(1, asl))[:, None]
        sk = kl.arange(0, K // 32, kl.SliceLayout(0, asl))[None, :]
        a_s = cdna4.buffer_load(as_ptr, sm * (K // 32) + sk)
        tn = kl.arange(0, N, kl.SliceLayout(1, bsl))[:, None]
        tk = kl.arange(0, K // 32, kl.SliceLayout(0, bsl))[None, :]
        b_s = cdna4.buffer_load(bs_ptr, tn * (K // 32) + tk)
    c = cdna4.mfma_scaled(a, a_s, AF, b, b_s, BF, kl.zeros([M, N], kl.float32, mfma))
    om = kl.arange(0, M, kl.SliceLayout(1, mfma))[:, None]
    on = kl.arange(0, N, kl.SliceLayout(0, mfma))[None, :]
    cdna4.buffer_store(c, out_ptr, om * N + on)


SIG = {"out_ptr": "*fp32", "a_ptr": "*u8", "b_ptr": "*u8", "as_ptr": "*u8", "bs_ptr": "*u8"}


def compile_scaled(af, bf, instr=(16, 16, 128), scales=True, M=32, N=32, K=128, W=(2, 2),
                   target="hip:gfx950", kw=16):
    return kiln.compile(scaled_kernel, SIG, dict(M=M, N=N, K=K, AF=af, BF=bf,
                                                 INSTR=list(instr), W=list(W),
                                                 SCALES=scales, KW=kw),
                        target=target, num_warps=W[0] * W[1], cache=False)


@pytest.mark.parametrize("af,bf", list(itertools.product(FMT_CODE, FMT_CODE)))
@pytest.mark.parametrize("has_scale", [True, False])
def test_gluon_test_amd_mfma_scaled_configurations(af, bf, has_scale):
    """Every configuration of Triton 3.6's test_amd_mfma_scaled (32 x 32 x 128 on a
    transposed 16x16x128 layout over 2 x 2 warps, formats 3 x 3, with and without scales)
    compiles to one v_mfma_scale per warp with the instruction told b's format as its A
    operand's (cbsz) and a's as its B's (blgp)."""
    asm = compile_scaled(af, bf, scales=has_scale).asm["amdgcn"]
    insts = re.findall(r"v_mfma_scale_f32_16x16x128_f8f6f4 .*", asm)
    assert len(insts) == 1, insts
    cbsz = re.search(r"cbsz:(\d)", insts[0])
    blgp = re.search(r"blgp:(\d)", insts[0])
    assert (int(cbsz.group(1)) if cbsz else 0, int(blgp.group(1)) if blgp else 0) == \
        (FMT_CODE[bf], FMT_CODE[af])


@pytest.mark.parametrize("instr,W,count", [((32, 32, 64), (1, 1), 16),
                                           ((16, 16, 128), (1, 1), 32),
                                           ((32, 32, 64), (2, 2), 4)])
def test_instruction_counts(instr, W, count):
    """64 x 64 x 256 e4m3 x e2m1: a warp's (64 / M)^2 / warps blocks x 256 / K steps."""
    asm = compile_scaled("e4m3", "e2m1", instr, M=64, N=64, K=256, W=W).asm["amdgcn"]
    assert len(re.findall(r"v_mfma_scale_f32_\w+", asm)) == count


@pytest.mark.parametrize("instr,W", [((16, 16, 128), (2, 2)), ((32, 32, 64), (1, 1)),
                                     ((16, 16, 128), (4, 1))])
def test_k_width_32_compiles_to_the_same_instructions(instr, W):
    """64 x 64 x 256 e4m3 x e5m2 without scales, as aiter's A8W8 GEMM calls it: k_width 32
    gives as many v_mfma_scale as k_width 16, told the same formats, with the scale operands
    the same register for every instruction (one constant byte)."""
    asm = {kw: compile_scaled("e4m3", "e5m2", instr, scales=False, M=64, N=64, K=256, W=W,
                              kw=kw).asm["amdgcn"] for kw in (16, 32)}
    insts = {kw: re.findall(r"v_mfma_scale_f32_\w+ .*", a) for kw, a in asm.items()}
    blocks = (64 // instr[0]) * (64 // instr[1]) // (W[0] * W[1])
    assert len(insts[32]) == len(insts[16]) == blocks * (256 // instr[2])
    # Past D, A, B, C: the two scale operands and the modifiers (formats, op_sel).
    tails = {kw: {re.split(r",\s*", i, maxsplit=4)[4] for i in insts[kw]} for kw in insts}
    assert len(tails[16]) == len(tails[32]) == 1, tails
    assert {re.sub(r"v\d+", "v", t) for t in tails[32] | tails[16]} == \
        {"v, v op_sel_hi:[0,0,0] cbsz:1"}, tails
    assert re.search(r"cbsz:1", insts[32][0]) and not re.search(r"blgp", insts[32][0])


# -- errors ------------------------------------------------------------------------------------

ACC = kl.amd.AMDMFMALayout(4, [16, 16, 128], True, [1, 1])
OP_A = kl.DotOperandLayout(0, ACC, 16)
OP_B = kl.DotOperandLayout(1, ACC, 16)
ACC3 = kl.amd.AMDMFMALayout(3, [16, 16, 32], True, [1, 1])
ESIG = {"x": "*fp32:16"}


@kiln.jit
def e_format(x):
    a = kl.full([16, 64], 0x11, kl.uint8, OP_A)
    b = kl.full([64, 16], 0x22, kl.uint8, OP_B)
    acc = kl.zeros([16, 16], kl.float32, ACC)
    cdna4.mfma_scaled(a, None, "e3m2", b, None, "e2m1", acc)  # E:fmt


@kiln.jit
def e_kwidth(x):
    a = kl.full([16, 64], 0x11, kl.uint8, kl.DotOperandLayout(0, ACC, 8))
    b = kl.full([64, 16], 0x22, kl.uint8, kl.DotOperandLayout(1, ACC, 8))
    acc = kl.zeros([16, 16], kl.float32, ACC)
    cdna4.mfma_scaled(a, None, "e2m1", b, None, "e2m1", acc)  # E:kw


@kiln.jit
def e_kw32_e2m1(x):
    a = kl.full([16, 64], 0x11, kl.uint8, kl.DotOperandLayout(0, ACC, 32))
    b = kl.full([64, 16], 0x22, kl.uint8, kl.DotOperandLayout(1, ACC, 32))
    acc = kl.zeros([16, 16], kl.float32, ACC)
    cdna4.mfma_scaled(a, None, "e2m1", b, None, "e2m1", acc)  # E:kw32e2m1


@kiln.jit
def e_kw_mixed(x):
    a = kl.full([16, 128], 0x11, kl.uint8, kl.DotOperandLayout(0, ACC, 32))
    b = kl.full([128, 16], 0x22, kl.uint8, OP_B)
    acc = kl.zeros([16, 16], kl.float32, ACC)
    cdna4.mfma_scaled(a, None, "e4m3", b, None, "e4m3", acc)  # E:kwmix


@kiln.jit
def e_kw32_scale(x):
    al: kl.constexpr = kl.DotOperandLayout(0, ACC, 32)
    a = kl.full([16, 128], 0x11, kl.uint8, al)
    b = kl.full([128, 16], 0x22, kl.uint8, kl.DotOperandLayout(1, ACC, 32))
    s = kl.full([16, 4], 0x7F, kl.uint8, cdna4.get_mfma_scale_layout(al, [16, 4]))
    acc = kl.zeros([16, 16], kl.float32, ACC)
    cdna4.mfma_scaled(a, s, "e4m3", b, None, "e5m2", acc)  # E:kw32scale


@kiln.jit
def e_shapes(x):
    a = kl.full([16, 64], 0x11, kl.uint8, OP_A)
    b = kl.full([64, 16], 0x22, kl.uint8, OP_B)
    acc = kl.zeros([16, 16], kl.float32, ACC)
    cdna4.mfma_scaled(a, None, "e4m3", b, None, "e2m1", acc)  # E:shape


@kiln.jit
def e_float_scale(x):
    a = kl.full([16, 64], 0x11, kl.uint8, OP_A)
    b = kl.full([64, 16], 0x22, kl.uint8, OP_B)
    acc = kl.zeros([16, 16], kl.float32, ACC)
    cdna4.mfma_scaled(a, 1.0, "e2m1", b, None, "e2m1", acc)  # E:fscale


@kiln.jit
def e_scale_shape(x):
    a = kl.full([16, 64], 0x11, kl.uint8, OP_A)
    b = kl.full([64, 16], 0x22, kl.uint8, OP_B)
    s = kl.full([16, 2], 0x7F, kl.uint8, kl.BlockedLayout([1, 1], [32, 2], [1, 1], [1, 0]))
    acc = kl.zeros([16, 16], kl.float32, ACC)
    cdna4.mfma_scaled(a, s, "e2m1", b, None, "e2m1", acc)  # E:sshape


@kiln.jit
def e_scale_layout(x):
    a = kl.full([16, 64], 0x11, kl.uint8, OP_A)
    b = kl.full([64, 16], 0x22, kl.uint8, OP_B)
    s = kl.full([16, 4], 0x7F, kl.uint8, kl.BlockedLayout([1, 1], [16, 4], [1, 1], [1, 0]))
    acc = kl.zeros([16, 16], kl.float32, ACC)
    acc = cdna4.mfma_scaled(a, s, "e2m1", b, None, "e2m1", acc)  # E:slayout
    kl.store(x + kl.arange(0, 16, kl.SliceLayout(1, ACC))[:, None] * 16 +
             kl.arange(0, 16, kl.SliceLayout(0, ACC))[None, :], acc)


@kiln.jit
def e_dtype(x):
    a = kl.full([16, 128], 1, kl.float16, OP_A)
    b = kl.full([128, 16], 1, kl.float16, OP_B)
    acc = kl.zeros([16, 16], kl.float32, ACC)
    cdna4.mfma_scaled(a, None, "e4m3", b, None, "e4m3", acc)  # E:dtype


@kiln.jit
def e_version(x):
    a = kl.full([16, 32], 0x11, kl.uint8, kl.DotOperandLayout(0, ACC3, 16))
    b = kl.full([32, 16], 0x22, kl.uint8, kl.DotOperandLayout(1, ACC3, 16))
    acc = kl.zeros([16, 16], kl.float32, ACC3)
    cdna4.mfma_scaled(a, None, "e4m3", b, None, "e4m3", acc)  # E:ver


@kiln.jit
def e_gfx942(x):
    a = kl.full([16, 64], 0x11, kl.uint8, OP_A)
    b = kl.full([64, 16], 0x22, kl.uint8, OP_B)
    acc = kl.zeros([16, 16], kl.float32, ACC)
    cdna4.mfma_scaled(a, None, "e2m1", b, None, "e2m1", acc)  # E:942


ERRORS = [
    (e_format, "E:fmt", "cdna4.mfma_scaled",
     r"mfma_scaled: a_format must be 'e2m1', 'e4m3' or 'e5m2', got 'e3m2'", "hip:gfx950"),
    (e_kwidth, "E:kw", "cdna4.mfma_scaled",
     r"mfma_scaled: a's k_width must be 16 \(a lane group holds 16 bytes of K\), or 32 for "
     r"e4m3 / e5m2 data, got 8 for e2m1", "hip:gfx950"),
    (e_kw32_e2m1, "E:kw32e2m1", "cdna4.mfma_scaled",
     r"mfma_scaled: a's k_width must be 16 \(a lane group holds 16 bytes of K\), or 32 for "
     r"e4m3 / e5m2 data, got 32 for e2m1", "hip:gfx950"),
    (e_kw_mixed, "E:kwmix", "cdna4.mfma_scaled",
     r"mfma_scaled: a and b must both have k_width 32 when one does \(k_width 32 sums K in an "
     r"order of its own, which both operands must share\), got 32 and 16", "hip:gfx950"),
    (e_kw32_scale, "E:kw32scale", "cdna4.mfma_scaled",
     r"mfma_scaled: with k_width 32 operands a_scale must be None or an int byte: the "
     r"instruction applies each scale to 16 K values of two 32-value blocks there; use "
     r"k_width 16 for per-block scales", "hip:gfx950"),
    (e_shapes, "E:shape", "cdna4.mfma_scaled",
     r"mfma_scaled: shapes do not multiply: a \[16, 64\] \(e4m3\), b \[64, 16\] \(e2m1\), acc "
     r"\[16, 16\] \(e2m1 holds two K values a byte\)", "hip:gfx950"),
    (e_float_scale, "E:fscale", "cdna4.mfma_scaled",
     r"mfma_scaled: a_scale must be None, an E8M0 byte \(an int, 2 \*\* \(s - 127\)\) or a "
     r"uint8 tensor, got 1.0", "hip:gfx950"),
    (e_scale_shape, "E:sshape", "cdna4.mfma_scaled",
     r"mfma_scaled: a_scale must be 16 x 4 \(one scale per 32 K values\), got \[16, 2\]",
     "hip:gfx950"),
    (e_scale_layout, "E:slayout", "cdna4.mfma_scaled",
     r"mfma_scaled: a_scale's layout is not the scaled mfma one: lane bit 0 moves "
     r"by \[0, 1\], the instruction's by \[1, 0\] .*get_mfma_scale_layout for their scales\)",
     "hip:gfx950"),
    (e_dtype, "E:dtype", "cdna4.mfma_scaled",
     r"mfma_scaled: a is fp16, which cannot hold e4m3 data \(uint8 bytes or float8e4nv\)",
     "hip:gfx950"),
    (e_version, "E:ver", "cdna4.mfma_scaled",
     r"mfma_scaled: scaled mfma needs a version 4 \(CDNA4, gfx950\) layout with "
     r"instrShape \[16, 16, 128\] or \[32, 32, 64\], got version 3, instrShape \[16, 16, 32\]",
     "hip:gfx942"),
    (e_gfx942, "E:942", "cdna4.mfma_scaled",
     r"mfma_scaled: scaled mfma is a CDNA4 instruction; hip:gfx942 does not "
     r"have it", "hip:gfx942"),
]


@pytest.mark.parametrize("fn,marker,anchor,message,target", ERRORS,
                         ids=[e[1] for e in ERRORS])
def test_errors_point_at_the_call(fn, marker, anchor, message, target):
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(fn, ESIG, {}, target=target, num_warps=1, cache=False)
    located.assert_located(ei.value, HERE, marker, anchor, message, kiln.CompilationError)


def test_gluons_frontend_forms_compile():
    """Triton 3.6's test_frontend forms: explicit scale tensors, None, and int scalars."""
    @kiln.jit
    def forms(x, MODE: kl.constexpr):
        a = kl.full([16, 64], 0x11, kl.uint8, OP_A)
        b = kl.full([64, 16], 0x22, kl.uint8, OP_B)
        acc = kl.full([16, 16], 0, kl.float32, ACC)
        if MODE == 0:
            a_s = kl.full([16, 4], 0x02, kl.uint8, cdna4.get_mfma_scale_layout(OP_A, [16, 4]))
            b_s = kl.full([16, 4], 0x01, kl.uint8, cdna4.get_mfma_scale_layout(OP_B, [16, 4]))
            acc = cdna4.mfma_scaled(a, a_s, "e2m1", b, b_s, "e2m1", acc)
        elif MODE == 1:
            acc = cdna4.mfma_scaled(a, None, "e2m1", b, None, "e2m1", acc)
        else:
            acc = cdna4.mfma_scaled(a, 0x02, "e2m1", b, 0x01, "e2m1", acc)
        offs = kl.arange(0, 16, kl.SliceLayout(1, ACC))[:, None] * 16 + \
            kl.arange(0, 16, kl.SliceLayout(0, ACC))[None, :]
        kl.store(x + offs, acc)
    for mode in range(3):
        k = kiln.compile(forms, ESIG, {"MODE": mode}, target="hip:gfx950", num_warps=1,
                         cache=False)
        assert len(re.findall(r"v_mfma_scale_f32_16x16x128_f8f6f4", k.asm["amdgcn"])) == 1


def test_fp8_typed_operands_are_the_same_bytes():
    """Operands typed float8e4nv / float8e5 (as Gluon kernels pass them) compile to the same
    instructions as their uint8 bytes."""
    @kiln.jit
    def typed(x, src, FP8: kl.constexpr):
        ra = kl.arange(0, 16, kl.SliceLayout(1, OP_A))[:, None] * 128 + \
            kl.arange(0, 128, kl.SliceLayout(0, OP_A))[None, :]
        rb = kl.arange(0, 128, kl.SliceLayout(1, OP_B))[:, None] * 16 + \
            kl.arange(0, 16, kl.SliceLayout(0, OP_B))[None, :]
        a = kl.load(src + ra)
        b = kl.load(src + 2048 + rb)
        acc = kl.full([16, 16], 0, kl.float32, ACC)
        if FP8:
            acc = cdna4.mfma_scaled(a.to(kl.float8e4nv, bitcast=True), 0x02, "e4m3",
                                    b.to(kl.float8e5, bitcast=True), 0x01, "e5m2", acc)
        else:
            acc = cdna4.mfma_scaled(a, 0x02, "e4m3", b, 0x01, "e5m2", acc)
        offs = kl.arange(0, 16, kl.SliceLayout(1, ACC))[:, None] * 16 + \
            kl.arange(0, 16, kl.SliceLayout(0, ACC))[None, :]
        kl.store(x + offs, acc)
    asm = [kiln.compile(typed, {"x": "*fp32:16", "src": "*u8:16"}, {"FP8": f},
                        target="hip:gfx950", num_warps=1, cache=False).asm["amdgcn"]
           for f in (False, True)]
    mfma = [re.findall(r"v_mfma_scale_f32_16x16x128_f8f6f4.*", a) for a in asm]
    assert len(mfma[0]) == 1 and mfma[0] == mfma[1]
