"""fp8 conversions and arithmetic (kiln.language._fp8) as kernels: run against torch by
test/gpu/test_fp8_gpu.py; the lowering itself is checked on the CPU by test_fp8_conversions.py."""

import kiln
import kiln.language as kl


@kiln.jit
def codes_to_f32(Codes, Out, FMT: kl.constexpr, N: kl.constexpr):
    layout: kl.constexpr = kl.BlockedLayout([4], [32], [4], [0])
    o = kl.arange(0, N, layout)
    c = kl.load(Codes + o)  # uint8
    kl.store(Out + o, c.to(FMT, bitcast=True).to(kl.float32))


@kiln.jit
def codes_to(Codes, Out, FMT: kl.constexpr, DST: kl.constexpr, N: kl.constexpr):
    layout: kl.constexpr = kl.BlockedLayout([4], [32], [4], [0])
    o = kl.arange(0, N, layout)
    c = kl.load(Codes + o)  # uint8
    kl.store(Out + o, c.to(FMT, bitcast=True).to(DST))


@kiln.jit
def f32_to_codes(X, Out, n, FMT: kl.constexpr, RTZ: kl.constexpr, BLOCK: kl.constexpr):
    layout: kl.constexpr = kl.BlockedLayout([4], [32], [4], [0])
    o = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK, layout)
    x = kl.load(X + o, mask=o < n)
    c = x.to(FMT, fp_downcast_rounding="rtz" if RTZ else None)
    kl.store(Out + o, c.to(kl.uint8, bitcast=True), mask=o < n)


@kiln.jit
def from_half(X, Out, n, FMT: kl.constexpr, BLOCK: kl.constexpr):
    layout: kl.constexpr = kl.BlockedLayout([4], [32], [4], [0])
    o = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK, layout)
    x = kl.load(X + o, mask=o < n)  # fp16 or bf16
    kl.store(Out + o, x.to(FMT).to(kl.uint8, bitcast=True), mask=o < n)


@kiln.jit
def fp8_arith(A, B, Out, Cmp, FMT: kl.constexpr, N: kl.constexpr):
    layout: kl.constexpr = kl.BlockedLayout([4], [32], [4], [0])
    o = kl.arange(0, N, layout)
    a = kl.load(A + o).to(FMT, bitcast=True)
    b = kl.load(B + o).to(FMT, bitcast=True)
    r = a * b + 1.0  # each step in f32, rounded back to FMT
    r = kl.maximum(r, -a)
    kl.store(Out + o, r.to(kl.uint8, bitcast=True))
    kl.store(Cmp + o, (a < b).to(kl.int8) + 2 * (a.to(kl.float32) * 0.5 > b).to(kl.int8))


@kiln.jit
def codes_abs(Codes, Out, FMT: kl.constexpr, N: kl.constexpr, W: kl.constexpr = 32):
    """|x| of every code of an fp8 format, as codes (Gluon's abs of fp8: the sign bit)."""
    layout: kl.constexpr = kl.BlockedLayout([4], [W], [4], [0])
    o = kl.arange(0, N, layout)
    x = kl.load(Codes + o).to(FMT, bitcast=True)
    kl.store(Out + o, kl.abs(x).to(kl.uint8, bitcast=True))


@kiln.jit
def e4b15_codes_up(Codes, Out16, Out32, N: kl.constexpr):
    """Every fp8e4b15 code to f16 and f32."""
    layout: kl.constexpr = kl.BlockedLayout([4], [32], [4], [0])
    o = kl.arange(0, N, layout)
    x = kl.load(Codes + o).to(kl.float8e4b15, bitcast=True)
    kl.store(Out16 + o, x.to(kl.float16))
    kl.store(Out32 + o, x.to(kl.float32))


@kiln.jit
def e4b15_down(X, Out, n, BLOCK: kl.constexpr):
    """f16 or f32 values to fp8e4b15 codes."""
    layout: kl.constexpr = kl.BlockedLayout([4], [32], [4], [0])
    o = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK, layout)
    x = kl.load(X + o, mask=o < n)
    kl.store(Out + o, x.to(kl.float8e4b15).to(kl.uint8, bitcast=True), mask=o < n)
