"""inline_asm_elementwise (Gluon's): compile-level checks on both vendors (packing of narrow
elements, several results) and errors at the user's line. test/gpu/test_inline_asm.py runs
the NVIDIA kernels against torch."""

from __future__ import annotations

import re

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


def _have_ptxas():
    import os
    import shutil
    return bool(os.environ.get("KILN_PTXAS") or shutil.which("ptxas")
                or os.path.exists("/usr/local/cuda/bin/ptxas"))


@kiln.jit
def e_assembler(x, out, W: kl.constexpr, GOOD: kl.constexpr, BAD: kl.constexpr,
                CONSTRAINTS: kl.constexpr):
    L: kl.constexpr = kl.BlockedLayout([1], [W], [4], [0])
    offs = kl.arange(0, 4 * W, L)
    v = kl.inline_asm_elementwise(GOOD, CONSTRAINTS, [kl.load(x + offs)], kl.int32, True, 1)
    v = kl.inline_asm_elementwise(BAD, CONSTRAINTS, [v], kl.int32, True, 1)  # E:assembler
    kl.store(out + offs, v)


@kiln.jit
def e_assembler_thread(x, out, BAD: kl.constexpr, CONSTRAINTS: kl.constexpr):
    L: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    offs = kl.arange(0, 128, L)
    v = kl.load(x + offs)
    v = kl.inline_asm("add.u32 $0, $1, 7;", "=r,r", [v], v.type, is_pure=True)
    v = kl.inline_asm(BAD, CONSTRAINTS, [v], v.type, is_pure=True)  # E:thread
    kl.store(out + offs, v)


# The assembler (ptxas, or LLVM's integrated assembler for AMD) rejects a line of the user's
# inline assembly: the error points at the call that wrote that line, not at the kernel (the
# kernel's other, valid inline assembly is told apart by its text).
def _assert_at_call(err, marker, anchor, message):
    line, col = located.where(HERE, marker, anchor)
    assert (err.file, err.line, err.col) == (HERE, line, col), str(err)
    assert re.fullmatch(message, err.message), err.message
    first = err.message.splitlines()[0]
    assert str(err).splitlines()[0] == f"{HERE}:{line}:{col}: error: {first}"


@compiled.needs_compiler
@pytest.mark.parametrize("target,w,good,bad,constraints,message", [
    ("cuda:sm_90a", 32, "shl.b32 $0, $1, 3;", "shl.b33 $0, $1, 3;", "=r,r",
     r"ptxas failed with exit code \d+ on the inline assembly written here\n(.|\n)*"
     r"Unknown modifier '\.b33'(.|\n)*"),
    ("hip:gfx942", 64, "v_lshlrev_b32 $0, 3, $1", "v_lshlrev_b33 $0, 3, $1", "=v,v",
     r"LLVM code generation for hip:gfx942 failed on the inline assembly written here:\n"
     r"(.|\n)*v_lshlrev_b33(.|\n)*"),
])
def test_assembler_errors_point_at_the_call(target, w, good, bad, constraints, message):
    if target.startswith("cuda:") and not _have_ptxas():
        pytest.skip("no ptxas on this machine: the compile keeps the PTX for the driver to "
                    "assemble at load, so nothing here rejects the assembly")
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(e_assembler, {"x": "*i32", "out": "*i32"},
                     {"W": w, "GOOD": good, "BAD": bad, "CONSTRAINTS": constraints},
                     target=target, num_warps=4, cache=False)
    _assert_at_call(ei.value, "E:assembler", "kl.inline_asm_elementwise", message)


@compiled.needs_compiler
def test_assembler_error_in_once_per_thread_asm_points_at_the_call():
    if not _have_ptxas():
        pytest.skip("no ptxas on this machine: the compile keeps the PTX for the driver to "
                    "assemble at load, so nothing here rejects the assembly")
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(e_assembler_thread, {"x": "*i32", "out": "*i32"},
                     {"BAD": "addd.u32 $0, $1, 7;", "CONSTRAINTS": "=r,r"},
                     target="cuda:sm_90a", num_warps=4, cache=False)
    _assert_at_call(ei.value, "E:thread", "kl.inline_asm(",
                    r"ptxas failed with exit code \d+ on the inline assembly written here\n"
                    r"(.|\n)*Not a name of any known instruction: 'addd'(.|\n)*")


@kiln.jit
def e_constraints(x, out, C: kl.constexpr, ODT: kl.constexpr, W: kl.constexpr):
    L: kl.constexpr = kl.BlockedLayout([1], [W], [4], [0])
    offs = kl.arange(0, 4 * W, L)
    v = kl.inline_asm_elementwise("mov.b32 $0, $1;", C, [kl.load(x + offs)], ODT, True, 1)  # E:c
    kl.store(out + offs, v)


# A constraint string LLVM would reject (and, unchecked, crash on in code generation): an
# error at the call, saying why, before LLVM sees the statement; both vendors' lowerings share
# the check. The counts in the message are one statement's registers.
@compiled.needs_compiler
@pytest.mark.parametrize("target", ["cuda:sm_90a", "hip:gfx942"])
@pytest.mark.parametrize("constraints,odt,out,message", [
    ("=r,5", kl.int32, "*i32", r"constraint string rejected by LLVM: failed to parse "
                               r"constraints \(constraints \"=r,5\"; each statement has 1 "
                               r"outputs and 1 inputs, outputs first\)"),
    ("=r", kl.int32, "*i32", r"constraint string rejected by LLVM: number of input "
                             r"constraints does not match number of parameters .*"),
    ("", kl.int32, "*i32", r"constraint string rejected by LLVM: .*\(constraints \"\"; .*"),
    ("r,=r", kl.int32, "*i32", r"constraint string rejected by LLVM: output constraint "
                               r"occurs after input.*"),
    ("=r,n", kl.int32, "*i32", r"asks for an immediate with input 0's constraint \"n\", but "
                               r"its operands are registers .*"),
    ("=l,0", kl.int64, "*i64", r"ties input 0 of type 'i32' to output 0 of type 'i64': a "
                               r"tied input must have its output's size .*"),
])
def test_constraint_errors_point_at_the_call(target, constraints, odt, out, message):
    if target.startswith("hip:"):
        constraints = constraints.replace("r", "v").replace("l", "v")
        message = message.replace("\\\"=r,5\\\"", "\\\"=v,5\\\"")
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(e_constraints, {"x": "*i32", "out": out},
                     {"C": constraints, "ODT": odt, "W": 64 if target.startswith("hip:") else 32},
                     target=target, num_warps=4, cache=False)
    located.assert_located(ei.value, HERE, "E:c", "kl.inline_asm_elementwise",
                           "inline_asm_elementwise: " + message, kiln.CompilationError)


@compiled.needs_compiler
def test_constraint_error_in_once_per_thread_asm_points_at_the_call():
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(e_assembler_thread, {"x": "*i32", "out": "*i32"},
                     {"BAD": "add.u32 $0, $1, 7;", "CONSTRAINTS": "=r,1"},
                     target="cuda:sm_90a", num_warps=4, cache=False)
    located.assert_located(ei.value, HERE, "E:thread", "kl.inline_asm(",
                           r"inline_asm: constraint string rejected by LLVM: failed to parse "
                           r"constraints .*", kiln.CompilationError)
