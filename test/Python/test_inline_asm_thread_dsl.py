"""Gluon's ``inline_asm`` (after Triton 3.8; ``kl.inline_asm``): one assembly statement per
thread. Without a GPU: the operand numbering (outputs first, every register of a tensor, one
operand per scalar or shared view), constraint tuples expanded per register, asm generated
by a constexpr_function, results of another shape and layout, scalar and empty results, the
statement once per partition under warp_specialize, AMD compilation, and the errors at the
user's line. test/gpu/test_inline_asm_thread.py runs the kernels on a GPU."""

from __future__ import annotations

import os
import re

import pytest

import kiln
import kiln.language as kl

import compiled
import gluon_later_kernels as K
import located

pytestmark = compiled.needs_compiler
HERE = os.path.abspath(__file__)
NV = "cuda:sm_90a"


@kl.constexpr_function
def add_bias(outputs, inputs):
    out, scalar = outputs
    values, bias = inputs
    lines = [f"add.u32 {d}, {s}, {bias[0]};" for d, s in zip(out, values)]
    return "\n".join(lines + [f"mov.u32 {scalar[0]}, {bias[0]};"])


@kiln.jit
def operands_kernel(out, res, ASM: kl.constexpr, CONSTRAINTS: kl.constexpr):
    layout: kl.constexpr = kl.BlockedLayout([4], [32], [4], [0])
    x = kl.arange(0, 512, layout=layout)
    y, s = kl.inline_asm(ASM, CONSTRAINTS, [x, 17], (x.type, kl.uint32), is_pure=True)
    kl.store(out + x, y)
    kl.store(res, s.to(kl.int32))


def _compile(fn, sig, consts=None, target=NV, num_warps=4):
    return kiln.compile(fn, sig, consts or {}, target=target, num_warps=num_warps, cache=False)


LITERAL = "\n".join([f"add.u32 ${i}, ${5 + i}, $9;" for i in range(4)] + ["mov.u32 $4, $9;"])


@pytest.mark.parametrize("generated", [False, True])
def test_operands_are_numbered_outputs_first(generated):
    # x: 4 registers a thread; outputs $0-$3 (y) and $4 (the scalar), inputs $5-$8 (x)
    # and $9 (17): Gluon's numbering, from a literal or from a generator.
    asm, cons = ((add_bias, ("=&r", "=r", "r", "r")) if generated else
                 (LITERAL, "=&r,=&r,=&r,=&r,=r,r,r,r,r,r"))
    k = _compile(operands_kernel, {"out": "*i32", "res": "*i32"},
                 {"ASM": asm, "CONSTRAINTS": cons})
    tile = k.asm["tile"]
    assert 'tile.inline_asm"' in tile or "tile.inline_asm " in tile, tile
    assert "add.u32 $0, $5, $9;" in tile and "mov.u32 $4, $9;" in tile
    assert '"=&r,=&r,=&r,=&r,=r,r,r,r,r,r"' in tile
    ptx = k.asm["ptx"]
    assert len(re.findall(r"add\.u32 %r\d+, %r\d+, %r\d+;", ptx)) >= 4, ptx
    assert "mov.u32" in ptx


def test_a_result_of_another_shape_and_layout():
    # 128 registers in, one out: one statement with 129 operands.
    k = _compile(K.many_kernel, {"x_ptr": "*i32", "y_ptr": "*i32"})
    assert k.asm["ptx"].count("add.u32") == 128


def test_no_results_and_once_per_partition():
    ptx = _compile(K.count_kernel, {"out": "*i32"}, {"WS": False}).asm["ptx"]
    assert ptx.count("atom.global.add.u32") == 1 and "bar.sync 0;" in ptx
    ptx = _compile(K.count_kernel, {"out": "*i32"}, {"WS": True}).asm["ptx"]
    assert ptx.count("atom.global.add.u32") == 2


@kiln.jit
def shared_kernel(out, TARGET_AMD: kl.constexpr):
    layout: kl.constexpr = kl.BlockedLayout([1], [64 if TARGET_AMD else 32], [4], [0])
    n: kl.constexpr = 256 if TARGET_AMD else 128
    x = kl.arange(0, n, layout=layout)
    smem = kl.allocate_shared_memory(kl.int32, [n], kl.SwizzledSharedLayout(1, 1, 1, [0]), x)
    kl.barrier()
    if TARGET_AMD:
        y = kl.inline_asm("v_add_u32 $0, $1, $2\nds_read_b32 $0, $0\ns_waitcnt lgkmcnt(0)",
                          "=&v,v,v", [smem, x * 4], x.type)
    else:
        y = kl.inline_asm("{ .reg .u32 a; add.u32 a, $1, $2; ld.shared.u32 $0, [a]; }",
                          "=&r,r,r", [smem, x * 4], x.type)
    kl.store(out + x, y)


def test_a_shared_view_is_its_address():
    ptx = _compile(shared_kernel, {"out": "*i32"}, {"TARGET_AMD": False}).asm["ptx"]
    assert "ld.shared.u32" in ptx
    amd = _compile(shared_kernel, {"out": "*i32"}, {"TARGET_AMD": True},
                   target="hip:gfx942").asm["amdgcn"]
    assert "ds_read_b32" in amd


@kl.constexpr_function
def not_a_string(outputs, inputs):
    return 17


@kiln.jit
def e_generator(out):
    x = kl.arange(0, 128, layout=kl.BlockedLayout([1], [32], [4], [0]))
    y = kl.inline_asm(not_a_string, ("=r", "r"), [x], x.type, is_pure=True)  # E:gen
    kl.store(out + x, y)


@kiln.jit
def e_groups(out):
    x = kl.arange(0, 128, layout=kl.BlockedLayout([1], [32], [4], [0]))
    y = kl.inline_asm("mov.u32 $0, $1;", ("=r",), [x], x.type, is_pure=True)  # E:groups
    kl.store(out + x, y)


@kiln.jit
def e_auto(out):
    x = kl.full([128], 0, kl.int32, kl.AutoLayout())
    y = kl.inline_asm("mov.u32 $0, $1;", "=r,r", [x], x.type, is_pure=True)  # E:auto
    kl.store(out + kl.arange(0, 128, layout=kl.BlockedLayout([1], [32], [4], [0])),
             kl.convert_layout(y, kl.BlockedLayout([1], [32], [4], [0])))


@kiln.jit
def e_pure_shared(out):
    layout: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    x = kl.arange(0, 128, layout=layout)
    smem = kl.allocate_shared_memory(kl.int32, [128], kl.SwizzledSharedLayout(1, 1, 1, [0]), x)
    y = kl.inline_asm("ld.shared.u32 $0, [$1];", "=r,r", [smem], kl.int32,  # E:pure
                      is_pure=True)
    kl.store(out, y)


@kiln.jit
def e_count(out):
    x = kl.arange(0, 256, layout=kl.BlockedLayout([2], [32], [4], [0]))
    s = kl.inline_asm("add.u32 $0, $1, $2;", "=r,r", [x], kl.int32, is_pure=True)  # E:count
    kl.store(out, s)


@kiln.jit
def e_view(out, PURE: kl.constexpr):
    # PURE: a pure statement on a view (refused); else two operands named for three.
    layout: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    x = kl.arange(0, 128, layout=layout)
    smem = kl.allocate_shared_memory(kl.int32, [128], kl.SwizzledSharedLayout(1, 1, 1, [0]), x)
    y = kl.inline_asm_elementwise("ld.shared.u32 $0, [$1];", "=r,r", [smem, x],  # E:view
                                  kl.int32, PURE, 1)
    kl.store(out + x, y)


@kiln.jit
def e_view_narrow(out):
    layout: kl.constexpr = kl.BlockedLayout([2], [32], [4], [0])
    x = kl.arange(0, 256, layout=layout).to(kl.int16)
    smem = kl.allocate_shared_memory(kl.int16, [256], kl.SwizzledSharedLayout(1, 1, 1, [0]), x)
    y = kl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r,h,h", [smem, x],  # E:vnarrow
                                  kl.int16, False, 2)
    kl.store(out + kl.arange(0, 256, layout=layout), y.to(kl.int32))


ERRORS = [
    (e_generator, "E:gen", "kl.inline_asm",
     r"inline_asm: asm must be a string or a constexpr_function returning a string, got int "
     r"from 'not_a_string'"),
    (e_groups, "E:groups", "kl.inline_asm",
     r"inline_asm: constraints as a tuple needs one constraint per output and input group "
     r"\(1 results \+ 1 arguments = 2\), got \('=r',\)"),
    (e_auto, "E:auto", "kl.inline_asm",
     r"inline_asm needs explicit distributed tensor layouts, got AutoLayout\(\) .*"),
    (e_pure_shared, "E:pure", "kl.inline_asm",
     r"inline_asm with a shared-memory operand must not be pure \(is_pure=False\).*"),
    (e_count, "E:count", "kl.inline_asm",
     r".*constraints name 2 operands, but each thread passes 1 outputs and 2 inputs .*"),
    ((e_view, {"PURE": True}), "E:view", "kl.inline_asm_elementwise",
     r"inline_asm_elementwise with a shared-memory operand must not be pure "
     r"\(is_pure=False\): the statement touches memory"),
    (e_view_narrow, "E:vnarrow", "kl.inline_asm_elementwise",
     r"inline_asm_elementwise: with a shared-memory operand, elements narrower than 32 bits "
     r"are not packed in Kiln \(got int16 with pack 2\); use pack=1"),
    ((e_view, {"PURE": False}), "E:view", "kl.inline_asm_elementwise",
     r"inline_asm_elementwise: constraints name 2 operands, but each statement has 1 outputs "
     r"and 2 inputs \(pack per tensor, one per shared-memory view\)"),
]


@pytest.mark.parametrize("fn,marker,anchor,message", ERRORS,
                         ids=[f"{e[1]}-{i}" for i, e in enumerate(ERRORS)])
def test_errors_point_at_the_call(fn, marker, anchor, message):
    fn, consts = fn if isinstance(fn, tuple) else (fn, {})
    with pytest.raises(kiln.CompilationError) as ei:
        _compile(fn, {"out": "*i32"}, consts)
    located.assert_located(ei.value, HERE, marker, anchor, message, kiln.CompilationError)


@pytest.mark.parametrize("pack", [1, 4])
def test_elementwise_statements_with_a_shared_view(pack):
    # Gluon's newest inline_asm_elementwise takes a view: one address operand per statement.
    # 32 registers a thread: 32 / pack statements, each renumbered onto the thread's operands.
    asm, cons = K.shared_loads_statement(pack)
    k = _compile(K.view_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32"},
                 {"THREADWISE": False, "PACK": pack, "ASM": asm, "CONSTRAINTS": cons})
    assert k.asm["ptx"].count("ld.shared.f32") == 32
    assert k.asm["tile"].count("tile.inline_asm") >= 1
    assert "inline_asm_elementwise" not in k.asm["tile"]


def test_once_per_thread_with_a_shared_view():
    # The same kernel, the view's address one operand of the thread's one statement.
    k = _compile(K.view_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32"},
                 {"THREADWISE": True, "PACK": 1, "ASM": K.shared_loads,
                  "CONSTRAINTS": ("=&f", "r", "r")})
    assert k.asm["ptx"].count("ld.shared.f32") == 32
