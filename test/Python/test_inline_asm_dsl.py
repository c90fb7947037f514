"""inline_asm_elementwise (Gluon's): compile-level checks on both vendors (packing of narrow
elements, several results) and errors at the user's line. test/gpu/test_inline_asm.py runs
the NVIDIA kernels against torch."""

from __future__ import annotations

import pytest

import kiln
import kiln.language as kl

import compiled
import located

HERE = __file__

# Triton's documentation example: 4 u8 packed in one register, two results per element.
UNPACK_MAX = kl.constexpr("""
{
    .reg .b8 tmp<4>;
    mov.b32 {tmp0, tmp1, tmp2, tmp3}, $8;
    cvt.u32.u8 $0, tmp0;
    cvt.u32.u8 $1, tmp1;
    cvt.u32.u8 $2, tmp2;
    cvt.u32.u8 $3, tmp3;
}
cvt.rn.f32.s32 $4, $0;
cvt.rn.f32.s32 $5, $1;
cvt.rn.f32.s32 $6, $2;
cvt.rn.f32.s32 $7, $3;
max.f32 $4, $4, $9;
max.f32 $5, $5, $10;
max.f32 $6, $6, $11;
max.f32 $7, $7, $12;
""")


@kiln.jit
def unpack_max_kernel(x, y, c, d, N: kl.constexpr):
    L: kl.constexpr = kl.BlockedLayout([4], [32], [4], [0])
    o = kl.arange(0, N, L)
    u, v = kl.inline_asm_elementwise(UNPACK_MAX, "=r,=r,=r,=r,=r,=r,=r,=r,r,r,r,r,r",
                                     [kl.load(x + o), kl.load(y + o)],
                                     dtype=(kl.int32, kl.float32), is_pure=True, pack=4)
    kl.store(c + o, u)
    kl.store(d + o, v)


@kiln.jit
def shift_kernel(x, out, N: kl.constexpr, W: kl.constexpr, ASM: kl.constexpr,
                 CONSTRAINTS: kl.constexpr):
    L: kl.constexpr = kl.BlockedLayout([1], [W], [4], [0])
    o = kl.arange(0, N, L)
    y = kl.inline_asm_elementwise(ASM, CONSTRAINTS, [kl.load(x + o)], dtype=kl.int32,
                                  is_pure=False, pack=1)
    kl.store(out + o, y)


@compiled.needs_compiler
def test_packed_narrow_elements_and_two_results():
    k = kiln.compile(unpack_max_kernel, {"x": "*u8", "y": "*fp32", "c": "*i32", "d": "*fp32"},
                     {"N": 512}, target="cuda:sm_90a", num_warps=4, cache=False)
    ptx = k.asm["ptx"]
    assert ptx.count("cvt.u32.u8") == 4 and ptx.count("max.f32") == 4  # one statement


@compiled.needs_compiler
@pytest.mark.parametrize("target,w,asm,constraints", [
    ("cuda:sm_90a", 32, "shl.b32 $0, $1, 3;", "=r,r"),
    ("hip:gfx942", 64, "v_lshlrev_b32 $0, 3, $1", "=v,v"),
])
def test_both_vendors(target, w, asm, constraints):
    k = kiln.compile(shift_kernel, {"x": "*i32", "out": "*i32"},
                     {"N": 4 * w, "W": w, "ASM": asm, "CONSTRAINTS": constraints},
                     target=target, num_warps=4, cache=False)
    text = k.asm.get("ptx") or k.asm["amdgcn"]
    assert asm.split()[0] in text


@kiln.jit
def e_pack(x):
    L: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    v = kl.load(x + kl.arange(0, 128, L))
    kl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [v], kl.int32, True, 4)  # E:pack


@kiln.jit
def e_dtype(x):
    L: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    v = kl.load(x + kl.arange(0, 128, L))
    kl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [v], (), True, 1)  # E:dtype


@compiled.needs_compiler
@pytest.mark.parametrize("fn,marker,message", [
    (e_pack, "E:pack", r"inline_asm_elementwise: each thread holds 1 elements of "
                       r".*, which pack 4 does not divide"),
    (e_dtype, "E:dtype", r"inline_asm_elementwise: dtype must be a dtype or a non-empty tuple "
                         r"of dtypes, got \(\)"),
])
def test_errors_point_at_the_call(fn, marker, message):
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(fn, {"x": "*i32"}, {}, target="cuda:sm_90a", num_warps=4, cache=False)
    located.assert_located(ei.value, HERE, marker, "kl.inline_asm_elementwise", message,
                           kiln.CompilationError)
