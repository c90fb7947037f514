"""The mfma lowering judged end to end without an AMD GPU: convert-tile-to-llvm's output for one
wave is run by a small interpreter here, lane by lane in lockstep, with each ``rocdl.mfma``
evaluated by the ISA's operand layouts (A[i][k] in lane i + M (k // kb), item k % kb; B[k][j]
in lane j + N (k // kb); D[i][j] in lane j + N ((i // 4) % (64 // N)), item
4 (i // (4 * 64 // N)) + i % 4), computed here and sharing nothing with the lowering. The
operands' registers are filled from random matrices through the layouts (which
test_amd_mfma_dsl.py checks against the same ISA tables), and the result read back through the
accumulator's layout must be A @ B + C: every register the lowering picks, its packing order,
the operand swap of transposed layouts, the K order of any k_width and the packing of bf16 (as
i16), i8 and fp8 (8 or 16 bytes per operand) are exercised."""

from __future__ import annotations

import itertools
import os
import re
import subprocess

import numpy as np
import pytest

import kiln
import kiln.compiler.compiler  # noqa: F401 (the layout oracle)
import kiln.language as kl

import compiled
from test_amd_mfma_dsl import registers

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                    ".."))
KILN_OPT = os.path.join(ROOT, "build", "bin", "kiln-opt")
pytestmark = [compiled.needs_compiler,
              pytest.mark.skipif(not os.path.exists(KILN_OPT), reason="kiln-opt is not built")]
WAVE = 64


def coords(layout, shape):
    """[lane][register] -> (row, col) of ``layout`` on ``shape`` for warp 0."""
    regs = registers(layout, shape, 1)
    return [regs[(0, lane)] for lane in range(WAVE)]


def isa_mfma_4x4(name, a, b, c, cbsz, abid):
    """One v_mfma_*_4x4x*_16b over the wave: 16 independent 4 x 4 products, block q on lanes
    4q .. 4q + 3 (A_q[i][k] in lane 4q + i, item k; B_q[k][j] in lane 4q + j, item k;
    D_q[i][j] in lane 4q + j, register i). With CBSZ c and ABID s, the blocks of each group of
    2^c take A from the group's block s (the CDNA3 ISA's broadcast controls)."""
    a, b = ([x if isinstance(x, list) else [x] for x in v] for v in (a, b))
    kb = len(a[0])
    group = 1 << cbsz[0]
    out = [list(x) for x in c]
    for q in range(16):
        src = q - q % group + abid[0] % group
        A = np.array([[a[4 * src + i][kk] for kk in range(kb)] for i in range(4)])
        B = np.array([[b[4 * q + j][kk] for j in range(4)] for kk in range(kb)])
        D = A @ B
        for i, j in itertools.product(range(4), range(4)):
            out[4 * q + j][i] += D[i, j]
    return out


def isa_mfma(name, a, b, c):
    """One v_mfma over the wave: a, b per lane lists of kb values, c per lane accumulators."""
    m = re.match(r"rocdl\.mfma\.(?:[fi]32|f64)\.(\d+)x(\d+)x(\d+)\.?"
                 r"(f16|f32|f64|bf16(\.1k)?|i8|(?:fp8|bf8)\.(?:fp8|bf8))$", name)
    assert m, name
    M, N, K = map(int, m.groups()[:3])
    f64 = name.startswith("rocdl.mfma.f64")
    kb = K * M // WAVE
    # A kb = 1 form takes one scalar register a lane.
    a, b = ([x if isinstance(x, list) else [x] for x in v] for v in (a, b))
    A = np.zeros((M, K))
    B = np.zeros((K, N))
    for i, k in itertools.product(range(M), range(K)):
        A[i, k] = a[i + M * (k // kb)][k % kb]
    for k, j in itertools.product(range(K), range(N)):
        B[k, j] = b[j + N * (k // kb)][k % kb]
    D = A @ B
    out = [list(x) for x in c]
    groups = WAVE // N
    for i, j in itertools.product(range(M), range(N)):
        if f64:  # v_mfma_f64_16x16x4_f64: one row a register, rows i % 4 in the lane groups
            out[j + N * (i % groups)][i // groups] += D[i, j]
        else:
            out[j + N * ((i // 4) % groups)][4 * (i // (4 * groups)) + i % 4] += D[i, j]
    return out


def e2m1(x):
    """OCP FP4 E2M1: sign, 2 exponent bits (bias 1), 1 mantissa bit."""
    mag = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0][x & 7]
    return -mag if x & 8 else mag


def fp8(x, exp_bits):
    """OCP FP8 E4M3FN (exp_bits 4, bias 7) or E5M2 (5, bias 15), finite values."""
    man_bits = 7 - exp_bits
    bias = (1 << (exp_bits - 1)) - 1
    e, m = (x >> man_bits) & ((1 << exp_bits) - 1), x & ((1 << man_bits) - 1)
    v = m / (1 << man_bits) * 2.0 ** (1 - bias) if e == 0 else \
        (1 + m / (1 << man_bits)) * 2.0 ** (e - bias)
    return -v if x & 0x80 else v


def isa_mfma_scale(name, a, b, c, cbsz, blgp, opsel_a, scale_a, opsel_b, scale_b):
    """One v_mfma_scale_f32_MxNxK_f8f6f4 over the wave, by the CDNA4 ISA's operand layouts:
    A[i][k] in lane i + M g of 64 / M lane groups; e2m1 (format 4): g = k // 32, byte
    (k % 32) // 2, low nibble for even k; e4m3 / e5m2 (0 / 1): g = (k % (K/2)) // 16, byte
    16 (k // (K/2)) + k % 16. B[k][j] the same with lane j + N g. The E8M0 scale of row i's
    block q = k // 32 is byte opsel of lane i + M q's scale register."""
    m = re.match(r"rocdl\.mfma\.scale\.f32\.(\d+)x(\d+)x(\d+)\.f8f6f4$", name)
    assert m, name
    M, N, K = map(int, m.groups())

    def value(regs, lane, k, fmt):
        if fmt == 4:
            byte = regs[lane][(k % 32) // 2]
            return e2m1(byte >> 4 * (k % 2) & 0xF)
        assert fmt in (0, 1), fmt
        byte = regs[lane][16 * (k // (K // 2)) + k % 16]
        return fp8(byte & 0xFF, 4 if fmt == 0 else 5)

    def group(k, fmt):
        return k // 32 if fmt == 4 else (k % (K // 2)) // 16

    def scale(regs, opsel, lane):
        return 2.0 ** (((regs[lane] >> 8 * opsel[0]) & 0xFF) - 127)

    A = np.zeros((M, K))
    B = np.zeros((K, N))
    for i, k in itertools.product(range(M), range(K)):
        A[i, k] = value(a, i + M * group(k, cbsz[0]), k, cbsz[0]) * \
            scale(scale_a, opsel_a, i + M * (k // 32))
    for k, j in itertools.product(range(K), range(N)):
        B[k, j] = value(b, j + N * group(k, blgp[0]), k, blgp[0]) * \
            scale(scale_b, opsel_b, j + N * (k // 32))
    D = A @ B
    out = [list(x) for x in c]
    groups = WAVE // N
    for i, j in itertools.product(range(M), range(N)):
        out[j + N * ((i // 4) % groups)][4 * (i // (4 * groups)) + i % 4] += D[i, j]
    return out


def run(llvm_text, args):
    """Interprets the lowered function's straight-line body for 64 lanes in lockstep; args are
    per-lane register lists. Returns the per-lane registers it returns."""
    env = {f"%arg{i}": a for i, a in enumerate(args)}
    body = llvm_text[llvm_text.index("llvm.func"):]
    for line in body.splitlines()[1:]:
        line = line.strip()
        if line.startswith("llvm.return"):
            return env[line.split()[1]]
        m = re.match(r"(%\w+) = ([\w.]+)(.*)$", line)
        if not m:
            continue
        dst, op, rest = m.groups()
        ops = re.findall(r"%\w+", rest)
        if op == "llvm.extractvalue":
            i = int(re.search(r"\[(\d+)\]", rest).group(1))
            env[dst] = [regs[i] for regs in env[ops[0]]]
        elif op == "llvm.mlir.constant":
            env[dst] = [int(re.match(r"\((-?\d+)", rest).group(1))] * WAVE
        elif op in ("llvm.mlir.poison", "llvm.mlir.undef"):
            n = re.search(r"vector<(\d+)x", rest) or re.search(r"struct<\((.*)\)>", rest)
            size = int(n.group(1)) if rest.find("vector") >= 0 and "struct" not in rest \
                else len(re.findall(r"\b(?:f32|f16|bf16|i8|i16|i32|f64)\b", rest))
            env[dst] = [[0.0] * size for _ in range(WAVE)]
        elif op == "llvm.insertelement":
            v, vec, idx = (env[o] for o in ops[:3])
            env[dst] = [x[:i] + [y] + x[i + 1:] for x, y, i in zip(vec, v, idx)]
        elif op == "llvm.extractelement":
            vec, idx = env[ops[0]], env[ops[1]]
            env[dst] = [x[i] for x, i in zip(vec, idx)]
        elif op == "llvm.insertvalue":
            v, s = env[ops[0]], env[ops[1]]
            i = int(re.search(r"\[(\d+)\]", rest).group(1))
            env[dst] = [x[:i] + [y] + x[i + 1:] for x, y in zip(s, v)]
        elif op == "llvm.bitcast":
            # bf16 -> i16 and vector<8xi8> -> i64 / vector<16xi8> -> vector<4xi32>: the
            # same elements, element j in bytes (or halves) j of the packed value (LLVM's
            # little-endian bitcast), which the ISA's slot j reads.
            env[dst] = env[ops[0]]
        elif op == "llvm.zext":  # a scale byte into i32: the same value
            env[dst] = env[ops[0]]
        elif op == "rocdl.workitem.id.x":  # one wave: the thread index is the lane
            env[dst] = list(range(WAVE))
        elif op == "llvm.and":
            env[dst] = [x & y for x, y in zip(env[ops[0]], env[ops[1]])]
        elif op == "llvm.icmp":
            pred = re.match(r'\s*"(\w+)"', rest).group(1)
            assert pred in ("ne", "eq"), line
            env[dst] = [(x != y) == (pred == "ne") for x, y in zip(env[ops[0]], env[ops[1]])]
        elif op == "llvm.mlir.zero":  # shaped as the value it is selected against
            env[dst] = [None] * WAVE
        elif op == "llvm.select":
            def zero_like(v, other):
                return ([0.0] * len(other) if isinstance(other, list) else 0.0) \
                    if v is None else v
            env[dst] = [zero_like(x, y) if c else zero_like(y, x)
                        for c, x, y in zip(*(env[o] for o in ops[:3]))]
        elif op.startswith("rocdl.mfma.scale"):
            env[dst] = isa_mfma_scale(op, *(env[o] for o in ops[:9]))
        elif re.match(r"rocdl\.mfma\.[fi]32\.4x4x", op):
            env[dst] = isa_mfma_4x4(op, *(env[o] for o in ops[:5]))
        elif op.startswith("rocdl.mfma"):
            env[dst] = isa_mfma(op, env[ops[0]], env[ops[1]], env[ops[2]])
        else:
            raise AssertionError(f"the interpreter does not know {op}: {line}")
    raise AssertionError("no llvm.return")


CASES = [  # (target, version, [M, N, K] of the instruction, transposed, k_width, M, N, K[,
    #          operand type, accumulator type])
    ("hip:gfx942", 3, [32, 32, 8], False, 4, 64, 32, 16),
    ("hip:gfx942", 3, [32, 32, 8], True, 8, 32, 64, 32),
    ("hip:gfx942", 3, [16, 16, 16], False, 16, 32, 32, 64),
    ("hip:gfx942", 3, [16, 16, 16], True, 2, 16, 32, 32),
    ("hip:gfx950", 4, [32, 32, 16], True, 8, 32, 32, 32),
    ("hip:gfx950", 4, [16, 16, 32], False, 16, 32, 16, 64),
    ("hip:gfx942", 3, [32, 32, 8], True, 4, 32, 64, 16, "bf16", "f32"),
    ("hip:gfx942", 3, [16, 16, 32], False, 8, 32, 32, 64, "i8", "i32"),
    ("hip:gfx950", 4, [32, 32, 16], False, 16, 32, 32, 32, "bf16", "f32"),
    ("hip:gfx950", 4, [32, 32, 32], True, 16, 32, 32, 64, "i8", "i32"),
    ("hip:gfx942", 3, [32, 32, 16], True, 8, 32, 32, 32, "f8E4M3FNUZ", "f32"),
    # Tensors smaller than the instruction's block (Triton's test_amd_mfma, 16 x 16 x 32 on a
    # 32 x 32 instruction): the layouts broadcast, the block computes elements twice.
    ("hip:gfx942", 3, [32, 32, 8], True, 4, 16, 16, 32),
    ("hip:gfx942", 3, [32, 32, 8], False, 4, 16, 32, 16),
    ("hip:gfx950", 4, [16, 16, 32], False, 8, 8, 16, 32),
    ("hip:gfx950", 4, [16, 16, 32], False, 8, 16, 32, 64, "f8E5M2", "f32"),
    # K shorter than the operands' K tile (k_width x the lane groups), as Triton accepts (a
    # third-party triangular solve multiplies 16 x 16 bf16 blocks on a 16x16x32 layout): the
    # lanes that repeat K feed zeros, so each product is added once and C once.
    ("hip:gfx950", 4, [16, 16, 32], True, 8, 16, 16, 16, "bf16", "f32"),
    ("hip:gfx950", 4, [16, 16, 32], False, 8, 32, 16, 8),
    ("hip:gfx942", 3, [32, 32, 8], False, 4, 32, 32, 4),
    ("hip:gfx942", 3, [16, 16, 16], True, 8, 16, 32, 8),
    ("hip:gfx942", 3, [32, 32, 8], False, 8, 32, 32, 8),  # k_width longer than the tile needs
    ("hip:gfx950", 4, [32, 32, 32], True, 16, 32, 32, 16, "i8", "i32"),
    # f64 (v_mfma_f64_16x16x4_f64, a 64-bit accumulator layout), plain and transposed.
    ("hip:gfx942", 3, [16, 16, 4], False, 1, 32, 16, 8, "f64", "f64"),
    ("hip:gfx942", 3, [16, 16, 4], True, 1, 16, 32, 16, "f64", "f64"),
    ("hip:gfx950", 4, [16, 16, 4], False, 2, 32, 32, 8, "f64", "f64"),
    # f32 operands (one scalar register a lane).
    ("hip:gfx942", 3, [16, 16, 4], True, 1, 16, 16, 8, "f32", "f32"),
    ("hip:gfx950", 4, [32, 32, 2], False, 2, 32, 32, 4, "f32", "f32"),
    # The 4x4 instructions: 4 x 64 (A shared by the 16 blocks, ABID its lane group) and
    # 64 x 4 (transposed: B shared), k_width the instruction's or twice it.
    ("hip:gfx942", 3, [4, 64, 64], False, 4, 4, 64, 64),
    ("hip:gfx942", 3, [4, 64, 64], False, 8, 8, 64, 128),
    ("hip:gfx950", 4, [64, 4, 64], True, 4, 64, 4, 64),
    ("hip:gfx942", 3, [64, 4, 64], True, 4, 64, 8, 128, "bf16", "f32"),
    ("hip:gfx942", 3, [4, 64, 16], False, 1, 4, 64, 16, "f32", "f32"),
    ("hip:gfx942", 3, [4, 64, 64], False, 4, 4, 64, 64, "i8", "i32"),
    # CDNA1 (gfx908) and CDNA2 (gfx90a): bf16 two a lane (version 1) and four (`.1k`,
    # version 2), i8 four a lane (one i32 register), f64 from version 2, 4x4 bf16 and i8;
    # and a version-1 layout on gfx942, whose f16 instructions are CDNA1's.
    ("hip:gfx908", 1, [32, 32, 4], False, 2, 32, 32, 8, "bf16", "f32"),
    ("hip:gfx908", 1, [16, 16, 8], True, 4, 16, 32, 16, "bf16", "f32"),
    ("hip:gfx90a", 2, [32, 32, 8], False, 4, 64, 32, 16, "bf16", "f32"),
    ("hip:gfx90a", 2, [32, 32, 8], True, 4, 32, 32, 16, "i8", "i32"),
    ("hip:gfx908", 1, [16, 16, 16], False, 8, 32, 16, 32, "i8", "i32"),
    ("hip:gfx90a", 2, [16, 16, 4], False, 1, 16, 16, 8, "f64", "f64"),
    ("hip:gfx908", 1, [16, 16, 16], True, 4, 16, 16, 32),
    ("hip:gfx908", 1, [4, 64, 32], False, 2, 4, 64, 32, "bf16", "f32"),
    ("hip:gfx90a", 2, [64, 4, 64], True, 4, 64, 4, 64, "i8", "i32"),
    ("hip:gfx942", 1, [32, 32, 8], False, 4, 32, 32, 16),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0][4:]}-{'x'.join(map(str, c[2]))}"
                         f"-{'T' if c[3] else 'N'}-kw{c[4]}-{(c[8:] or ('f16',))[0]}")
def test_lowered_mfma_computes_a_times_b_plus_c(case):
    got, want = emulate(case)
    np.testing.assert_array_equal(got, want)


def test_the_f64_accumulator_layout_matters():
    """Negative control for f64: read with the 32-bit accumulators' row order (4 rows a
    lane), the lowered f64 product is wrong."""
    case = next(c for c in CASES if c[8:] == ("f64", "f64"))
    got, want = emulate(case, corrupt=lambda text: text.replace("rocdl.mfma.f64.16x16x4f64",
                                                               "rocdl.mfma.f32.16x16x4f64"))
    assert not np.array_equal(got, want)


def test_the_4x4_lane_group_matters():
    """Negative control for the 4x4 instructions: with every ABID 0 (each block reading the
    first lane group's K values) the product is wrong."""
    case = next(c for c in CASES if c[2] == [4, 64, 64])
    got, want = emulate(case, corrupt=lambda text: re.sub(
        r"(rocdl\.mfma\.f32\.4x4x4f16 %\w+, %\w+, %\w+, %\w+, )(%\w+)(, )(%\w+)",
        r"\1\4\3\4", text))
    assert not np.array_equal(got, want)


def test_the_repeated_k_lanes_must_feed_zeros():
    """Negative control for K shorter than the K tile: without the select that zeroes the
    lanes repeating K, each product is added twice."""
    case = next(c for c in CASES if c[2] == [16, 16, 32] and c[7] == 16)
    got, want = emulate(case, corrupt=lambda text: re.sub(
        r"llvm\.select (%\w+), %\w+, (%\w+) :", r"llvm.select \1, \2, \2 :", text))
    assert not np.array_equal(got, want)


def test_the_emulation_can_fail():
    """Negative control: the first instruction's operands swapped (what a lowering that
    forgot the transposed swap would emit) gives a wrong product."""
    got, want = emulate(CASES[1], corrupt=lambda text: re.sub(
        r"(rocdl\.mfma\.\S+) (%\w+), (%\w+),", r"\1 \3, \2,", text, count=1))
    assert not np.array_equal(got, want)


def emulate(case, corrupt=lambda text: text):
    target, version, instr, transposed, kw, M, N, K = case[:8]
    ta, tc = case[8:] or ("f16", "f32")
    acc = kl.amd.AMDMFMALayout(version, instr, transposed, [1, 1],
                               element_bitwidth=64 if tc == "f64" else 32)
    a_l, b_l = kl.DotOperandLayout(0, acc, kw), kl.DotOperandLayout(1, acc, kw)
    ir = f"""
#acc = {acc.to_ir()}
#a = {a_l.to_ir()}
#b = {b_l.to_ir()}
module attributes {{tile.num_warps = 1 : i32, tile.threads_per_warp = 64 : i32}} {{
  func.func @f(%a: tensor<{M}x{K}x{ta}, #a>, %b: tensor<{K}x{N}x{ta}, #b>, %c: tensor<{M}x{N}x{tc}, #acc>) -> tensor<{M}x{N}x{tc}, #acc> {{
    %d = tile_amd.mfma %a, %b, %c : tensor<{M}x{K}x{ta}, #a>, tensor<{K}x{N}x{ta}, #b> -> tensor<{M}x{N}x{tc}, #acc>
    return %d : tensor<{M}x{N}x{tc}, #acc>
  }}
}}
"""
    out = subprocess.run([KILN_OPT, "-", f"--convert-tile-to-llvm=target={target}"],
                         input=ir, capture_output=True, text=True, check=True).stdout
    rng = np.random.default_rng(M * 1000 + N * 10 + K + kw)
    A = rng.integers(-4, 5, (M, K)).astype(np.float64)  # exact in f16 and in the sums
    B = rng.integers(-4, 5, (K, N)).astype(np.float64)
    C = rng.integers(-4, 5, (M, N)).astype(np.float64)
    ca, cb, cc = coords(a_l, [M, K]), coords(b_l, [K, N]), coords(acc, [M, N])
    args = [[[A[r][k] for r, k in lane] for lane in ca],
            [[B[k][n] for k, n in lane] for lane in cb],
            [[C[r][n] for r, n in lane] for lane in cc]]
    res = run(corrupt(out), args)
    got = np.full((M, N), np.nan)
    for lane, regs in zip(cc, res):
        for (r, n), v in zip(lane, regs):
            assert np.isnan(got[r, n]) or got[r, n] == v, "copies of an element disagree"
            got[r, n] = v
    assert not np.isnan(got).any()
    return got, A @ B + C


def coords_nd(layout, shape, warp=0):
    """[lane][register] -> coordinate (any rank) of ``layout`` on ``shape`` for ``warp``."""
    kiln.compiler.compiler.default_target()  # installs C++'s layout oracle
    ll = kl.to_linear_layout(layout, shape)

    def xor(bases, v, c):
        for i, b in enumerate(bases):
            if v >> i & 1:
                c = tuple(x ^ y for x, y in zip(c, b))
        return c
    zero = (0,) * len(shape)
    out = []
    for lane in range(WAVE):
        base = xor(ll.warp_bases, warp, xor(ll.lane_bases, lane, zero))
        out.append([xor(ll.reg_bases, r, base) for r in range(1 << len(ll.reg_bases))])
    return out


BATCHED = [  # (target, version, instruction, transposed, k_width, B, M, N, K, type, acc type)
    ("hip:gfx942", 3, [32, 32, 8], False, 4, 2, 32, 64, 16, "f16", "f32"),
    ("hip:gfx942", 3, [16, 16, 16], True, 8, 4, 16, 32, 32, "f16", "f32"),
    ("hip:gfx950", 4, [16, 16, 32], False, 8, 2, 32, 16, 64, "bf16", "f32"),
    ("hip:gfx942", 3, [16, 16, 4], False, 1, 2, 16, 16, 8, "f64", "f64"),
]


@pytest.mark.parametrize("case", BATCHED, ids=lambda c: f"{c[0][4:]}-B{c[5]}-"
                         f"{'x'.join(map(str, c[2]))}-{'T' if c[3] else 'N'}-{c[9]}")
def test_lowered_batched_mfma_computes_each_batch(case):
    """A batched (3-D) mfma: A[b] @ B[b] + C[b] for every batch index, the batch held in
    registers (one warp) by the layout's batch repeats."""
    target, version, instr, transposed, kw, NB, M, N, K, ta, tc = case
    acc = kl.amd.AMDMFMALayout(version, instr, transposed, [1, 1, 1],
                               element_bitwidth=64 if tc == "f64" else 32)
    a_l, b_l = kl.DotOperandLayout(0, acc, kw), kl.DotOperandLayout(1, acc, kw)
    ir = f"""
#acc = {acc.to_ir()}
#a = {a_l.to_ir()}
#b = {b_l.to_ir()}
module attributes {{tile.num_warps = 1 : i32, tile.threads_per_warp = 64 : i32}} {{
  func.func @f(%a: tensor<{NB}x{M}x{K}x{ta}, #a>, %b: tensor<{NB}x{K}x{N}x{ta}, #b>, %c: tensor<{NB}x{M}x{N}x{tc}, #acc>) -> tensor<{NB}x{M}x{N}x{tc}, #acc> {{
    %d = tile_amd.mfma %a, %b, %c : tensor<{NB}x{M}x{K}x{ta}, #a>, tensor<{NB}x{K}x{N}x{ta}, #b> -> tensor<{NB}x{M}x{N}x{tc}, #acc>
    return %d : tensor<{NB}x{M}x{N}x{tc}, #acc>
  }}
}}
"""
    out = subprocess.run([KILN_OPT, "-", f"--convert-tile-to-llvm=target={target}"],
                         input=ir, capture_output=True, text=True, check=True).stdout
    assert len(re.findall(r"rocdl\.mfma", out)) % NB == 0
    rng = np.random.default_rng(NB * 100000 + M * 1000 + N * 10 + K)
    A = rng.integers(-4, 5, (NB, M, K)).astype(np.float64)
    B = rng.integers(-4, 5, (NB, K, N)).astype(np.float64)
    C = rng.integers(-4, 5, (NB, M, N)).astype(np.float64)
    ca, cb = coords_nd(a_l, [NB, M, K]), coords_nd(b_l, [NB, K, N])
    cc = coords_nd(acc, [NB, M, N])
    args = [[[A[x] for x in lane] for lane in ca], [[B[x] for x in lane] for lane in cb],
            [[C[x] for x in lane] for lane in cc]]
    res = run(out, args)
    got = np.full((NB, M, N), np.nan)
    for lane, regs in zip(cc, res):
        for x, v in zip(lane, regs):
            assert np.isnan(got[x]) or got[x] == v, "copies of an element disagree"
            got[x] = v
    assert not np.isnan(got).any()
    np.testing.assert_array_equal(got, A @ B + C)
