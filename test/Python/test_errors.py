"""User errors in kernels (BAD_INPUTS items that apply to the DSL): each test checks the
exception type, the message, the file, the line, and the caret under the offending code."""

import os
import re

import pytest

import kiln
import kiln.language as kl
from kiln import CompilationError, InvalidOption, UnsupportedLanguageConstruct
from kiln.compiler import make_ir
from kiln.compiler.errors import from_diagnostics
from kiln.language.nvidia.hopper import tma as hopper_tma

import located
from fakes import FAKE_TARGETS

HERE = os.path.abspath(__file__)
SRC = open(HERE).read().splitlines()
L = kl.BlockedLayout([1], [32], [4], [0])
L2 = kl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
NOT_CONSTEXPR = 5
CONSTEXPR = kl.constexpr(5)


def where(marker, anchor):
    """(line, col) of ``anchor`` on the line tagged ``# <marker>``."""
    return located.where(HERE, marker, anchor)


def assert_error(err, marker, anchor, message, cls=CompilationError):
    return located.assert_located(err, HERE, marker, anchor, message, cls)


def compile_ir(fn, sig=None, cx=None, **kw):
    return make_ir(fn, sig if sig is not None else {"x": "*fp32", "n": "i32"}, cx, **kw)


# --- 1. bad shapes ----------------------------------------------------------------------------


@kiln.jit
def arange_np2(x, n):
    a = kl.arange(0, 100, L)  # E:np2


@kiln.jit
def arange_zero(x, n):
    a = kl.arange(8, 8, L)  # E:zero


@kiln.jit
def arange_negative(x, n):
    a = kl.arange(16, 0, L)  # E:neg


@kiln.jit
def full_bad(x, n, SHAPE: kl.constexpr):
    t = kl.full(SHAPE, 0.0, kl.float32, L2)  # E:full


@pytest.mark.parametrize("fn,marker,message", [
    (arange_np2, "E:np2", r"arange's range must be a power of 2, got 100"),
    (arange_zero, "E:zero", r"arange's end \(8\) must be greater than its start \(8\)"),
    (arange_negative, "E:neg", r"arange's end \(0\) must be greater than its start \(16\)"),
])
def test_arange_shapes(fn, marker, message):
    with pytest.raises(CompilationError) as ei:
        compile_ir(fn)
    assert_error(ei.value, marker, "kl.arange", message)


@pytest.mark.parametrize("shape,message", [
    ([16, 24], r"full: shape element 1 must be a power of 2, got 24"),
    ([0, 32], r"full: shape element 0 must be positive, got 0"),
    ([16, -4], r"full: shape element 1 must be positive, got -4"),
])
def test_full_shapes(shape, message):
    with pytest.raises(CompilationError) as ei:
        compile_ir(full_bad, cx={"SHAPE": shape})
    assert_error(ei.value, "E:full", "kl.full", message)


# --- 2. shape mismatches ------------------------------------------------------------------------


@kiln.jit
def binary_shapes(x, n):
    a = kl.arange(0, 128, L)
    b = kl.arange(0, 64, L)
    for i in kl.static_range(1):
        if True:
            y = a + b  # E:binop


@kiln.jit
def reshape_count(x, n):
    a = kl.arange(0, 128, L)
    b = kl.reshape(a, [4, 16])  # E:reshape


def test_shape_mismatch_in_binary_op():
    with pytest.raises(CompilationError) as ei:
        compile_ir(binary_shapes)
    assert_error(ei.value, "E:binop", "a + b", r"shape mismatch in add: \(128,\) vs \(64,\)")


def test_reshape_changes_element_count():
    with pytest.raises(CompilationError) as ei:
        compile_ir(reshape_count)
    assert_error(ei.value, "E:reshape", "kl.reshape",
                 r"reshape changes the number of elements: \(128,\) \(128\) -> \(4, 16\) "
                 r"\(64\)")


# --- 3. layouts ---------------------------------------------------------------------------------


@kiln.jit
def layout_mismatch(x, n):
    a = kl.arange(0, 128, L)
    b = kl.arange(0, 128, kl.BlockedLayout([2], [32], [4], [0]))
    c = a * b  # E:layout


@kiln.jit
def not_trivial(x, n):
    a = kl.arange(0, 512, kl.BlockedLayout([4], [32], [4], [0]))
    b = kl.convert_layout(a, L, assert_trivial=True)  # E:trivial


@kiln.jit
def bad_expand(x, n):
    a = kl.arange(0, 128, L)
    b = a[:, None]  # E:expand


@kiln.jit
def lanes_mismatch(x, n):
    a = kl.arange(0, 128, kl.BlockedLayout([1], [16], [4], [0]))  # E:lanes


@kiln.jit
def warps_mismatch(x, n):
    a = kl.arange(0, 128, L)  # E:warps


def test_layout_mismatch_in_broadcast_names_both_layouts():
    with pytest.raises(CompilationError) as ei:
        compile_ir(layout_mismatch)
    assert_error(ei.value, "E:layout", "a * b",
                 re.escape("Layout mismatch in broadcast: BlockedLayout(size_per_thread=[1], "
                           "threads_per_warp=[32], warps_per_cta=[4], order=[0]) vs "
                           "BlockedLayout(size_per_thread=[2], threads_per_warp=[32], "
                           "warps_per_cta=[4], order=[0])"))


def test_convert_layout_assert_trivial_names_both_layouts():
    with pytest.raises(CompilationError) as ei:
        compile_ir(not_trivial)
    assert_error(ei.value, "E:trivial", "kl.convert_layout",
                 re.escape("convert_layout(assert_trivial=True) would move data between "
                           "threads: BlockedLayout(size_per_thread=[4], threads_per_warp=[32], "
                           "warps_per_cta=[4], order=[0]) -> BlockedLayout(size_per_thread=[1], "
                           "threads_per_warp=[32], warps_per_cta=[4], order=[0])"))


def test_expand_dims_needs_a_slice_layout():
    with pytest.raises(CompilationError) as ei:
        compile_ir(bad_expand)
    assert_error(ei.value, "E:expand", "a[:, None]",
                 r"expand_dims along axis 1 needs a source layout SliceLayout\(dim=1, "
                 r"parent=\.\.\.\), got BlockedLayout\(.*\)")


def test_layout_must_match_warp_size_and_num_warps():
    with pytest.raises(CompilationError) as ei:
        compile_ir(lanes_mismatch)
    assert_error(ei.value, "E:lanes", "kl.arange",
                 r"arange: BlockedLayout\(.*\) spans 16 threads per warp, but cuda:sm_90a has "
                 r"32")
    with pytest.raises(CompilationError) as ei:
        compile_ir(warps_mismatch, target="hip:gfx942")
    assert_error(ei.value, "E:warps", "kl.arange", r"arange: .* spans 32 threads per warp, but "
                 r"hip:gfx942 has 64")
    with pytest.raises(CompilationError) as ei:
        compile_ir(warps_mismatch, num_warps=8)
    assert_error(ei.value, "E:warps", "kl.arange", r"arange: .* spans 4 warps, but the kernel "
                 r"has num_warps=8")


# --- non-constexpr where a constexpr is needed --------------------------------------------------


@kiln.jit
def runtime_arange(x, n):
    a = kl.arange(0, n, L)  # E:rt-arange


@kiln.jit
def runtime_layout(x, n, LAYOUT):
    a = kl.arange(0, 128, LAYOUT)  # E:rt-layout


@kiln.jit
def runtime_static_range(x, n):
    for i in kl.static_range(0, n):  # E:rt-static
        pass


@kiln.jit
def runtime_shape(x, n):
    t = kl.full([n, 4], 0, kl.int32, L2)  # E:rt-shape


@kiln.jit
def runtime_constexpr_arg(x, n):
    helper_cx(n)  # E:rt-arg


@kiln.jit
def helper_cx(V: kl.constexpr):
    pass


@kiln.jit
def helper_store_cx(x, V: kl.constexpr):
    kl.store(x, V.to(kl.float32))


@kiln.jit
def runtime_store_via_cx(x, n):
    helper_store_cx(x, n)


def test_runtime_value_for_a_constexpr_helper_argument_stays_runtime():
    """As in Triton: a helper's constexpr annotation does not make a runtime value constant
    (the value is used as it is; a use that needs a constexpr says so)."""
    ir = make_ir(runtime_store_via_cx, {"x": "*fp32", "n": "i32"})
    assert "arith.sitofp" in ir and "tile.store" in ir


@kiln.jit
def pick_row(pid, grid_m, grid_n, GROUP_M: kl.constexpr):
    if GROUP_M == 1:
        return pid // grid_n
    return kl.minimum(grid_m, pid)


@kiln.jit
def misannotated_constexpr(out, num_tiles, GRID_N: kl.constexpr):
    # a third-party MoE decode: `grid_m: constexpr = NUM_TILES // GRID_N` with NUM_TILES a
    # run-time argument, only passed on (Triton wraps the value and compiles the kernel)
    grid_m: kl.constexpr = num_tiles // GRID_N  # N:ann
    kl.store(out + kl.program_id(0), pick_row(kl.program_id(0), grid_m, GRID_N, 2))


@kiln.jit
def misannotated_constexpr_as_shape(out, n):
    size: kl.constexpr = n * 2  # N:shape
    kl.store(out + kl.arange(0, size, L), 1.0)  # E:shape


def test_a_runtime_value_annotated_constexpr_is_accepted_as_triton_does():
    ir = make_ir(misannotated_constexpr, {"out": "*i32", "num_tiles": "i32"},
                 {"GRID_N": 45})
    assert "arith.divsi" in ir and "arith.minsi" in ir and "tile.store" in ir
    # where a compile-time value is wanted, a note points back at the annotation
    with pytest.raises(CompilationError) as ei:
        make_ir(misannotated_constexpr_as_shape, {"out": "*fp32", "n": "i32"})
    assert_error(ei.value, "E:shape", "kl.arange",
                 r"arange end must be a constexpr, got a runtime value of type int32")
    line = next(i for i, t in enumerate(open(HERE).read().splitlines(), 1) if "# N:shape" in t)
    assert any("'size' is annotated constexpr but was assigned a run-time value" in n[0]
               and n[2] == line for n in ei.value.notes), ei.value.notes


def test_non_constexpr_arguments():
    cases = [
        (runtime_arange, {"x": "*fp32", "n": "i32"}, "E:rt-arange", "kl.arange",
         r"arange end must be a constexpr, got a runtime value of type int32"),
        (runtime_layout, {"x": "*fp32", "n": "i32", "LAYOUT": "i32"}, "E:rt-layout",
         "kl.arange", r"arange layout must be a constexpr, got a runtime value of type int32"),
        (runtime_static_range, {"x": "*fp32", "n": "i32"}, "E:rt-static", "kl.static_range",
         r"static_range bounds must be constexpr, got a runtime value"),
        (runtime_shape, {"x": "*fp32", "n": "i32"}, "E:rt-shape", "kl.full",
         r"full shape must be a constexpr, got a runtime value of type int32"),
    ]
    for fn, sig, marker, anchor, message in cases:
        with pytest.raises(CompilationError) as ei:
            make_ir(fn, sig)
        assert_error(ei.value, marker, anchor, message)


# --- 17. unsupported Python ---------------------------------------------------------------------


@kiln.jit
def uses_try(x, n):
    try:  # E:try
        pass
    except Exception:
        pass


@kiln.jit
def uses_while_break(x, n):
    i = 0
    while i < n:
        i += 1
        if i > 4:
            break  # E:break


@kiln.jit
def uses_lambda(x, n):
    f = lambda v: v + 1  # E:lambda


@kiln.jit
def uses_generator(x, n):
    t = tuple(i for i in range(4))  # E:gen


@kiln.jit
def uses_global(x, n):
    a = kl.arange(0, 128, L) + NOT_CONSTEXPR  # E:global


@kiln.jit
def uses_constexpr_global(x, n):
    a = kl.arange(0, 128, L) + CONSTEXPR


def make_closure():
    captured = [1, 2]

    @kiln.jit
    def uses_closure(x, n):
        a = kl.arange(0, 128, L) + captured  # E:closure
    return uses_closure


@kiln.jit
def uses_for_break(x, n):
    for i in range(n):
        break  # E:for-break


@kiln.jit
def uses_plain_function(x, n):
    v = os.getcwd()  # E:plainfn


@kiln.jit
def uses_nested_def(x, n):
    def inner():  # E:nested
        pass


@pytest.mark.parametrize("fn,marker,anchor,message", [
    (uses_try, "E:try", "try", r"try/except is not supported in kernels"),
    (uses_while_break, "E:break", "break", r"while loops with break are not supported in kernels"),
    (uses_lambda, "E:lambda", "lambda",
     r"lambda is not supported in kernels; define a @kiln.jit function instead"),
    (uses_generator, "E:gen", "(i for", r"generator expressions are not supported in kernels"),
    (uses_for_break, "E:for-break", "break", r"break is not supported in kernels"),
    (uses_plain_function, "E:plainfn", "os.getcwd",
     r"cannot call 'getcwd' from a kernel: it is neither a @kiln.jit function nor a kiln "
     r"builtin .*"),
    (uses_nested_def, "E:nested", "def inner", r"nested function definitions are not supported "
     r"in kernels; define a separate @kiln.jit function"),
])
def test_unsupported_constructs(fn, marker, anchor, message):
    with pytest.raises(UnsupportedLanguageConstruct) as ei:
        compile_ir(fn)
    assert_error(ei.value, marker, anchor, message, UnsupportedLanguageConstruct)


def test_globals_and_closures_must_be_constexpr():
    with pytest.raises(CompilationError) as ei:
        compile_ir(uses_global)
    assert_error(ei.value, "E:global", "NOT_CONSTEXPR",
                 r"cannot use global 'NOT_CONSTEXPR' of type int in a kernel: only constexpr "
                 r"values can be captured; write NOT_CONSTEXPR = kl.constexpr\(\.\.\.\) or pass "
                 r"it as a kernel argument")
    with pytest.raises(CompilationError) as ei:
        compile_ir(make_closure())
    assert_error(ei.value, "E:closure", "captured",
                 r"cannot use closure variable 'captured' of type list in a kernel: .*")
    assert '"arith.constant"() {value = dense<5> :' in compile_ir(uses_constexpr_global)


# --- 18. inconsistent types across control flow -------------------------------------------------


@kiln.jit
def if_types(x, n):
    v = kl.arange(0, 128, L)  # E:if-before
    if n > 0:
        v = v.to(kl.float32)  # E:if-then
    else:
        v = v + 1  # E:if-else


@kiln.jit
def loop_types(x, n):
    acc = kl.zeros([128], kl.float32, L)  # E:loop-init
    for i in range(n):
        acc = acc.to(kl.float16)  # E:loop-body


@kiln.jit
def while_types(x, n):
    acc = kl.zeros([128], kl.float32, L)  # E:while-init
    while n > 0:
        acc = kl.arange(0, 128, L)  # E:while-body


def _site(marker, anchor):
    line, col = where(marker, anchor)
    return f"{HERE}:{line}:{col}"


def test_if_branches_must_agree():
    with pytest.raises(CompilationError) as ei:
        compile_ir(if_types)
    ty_f = r"<\[128\], fp32, BlockedLayout\(.*?\)>"
    ty_i = r"<\[128\], int32, BlockedLayout\(.*?\)>"
    text = assert_error(ei.value, "E:if-else", "v =", rf"Variable 'v' has type {ty_f} in the then "
                        rf"branch \({re.escape(_site('E:if-then', 'v ='))}\) but type {ty_i} in "
                        rf"the else branch \({re.escape(_site('E:if-else', 'v ='))}\)")
    line, col = where("E:if-then", "v =")
    assert text[3].startswith(f"{HERE}:{line}:{col}: note: 'v' is assigned here with type ")
    assert text[4] == "    " + SRC[line - 1].strip()


def test_loop_carried_types_must_agree():
    with pytest.raises(CompilationError) as ei:
        compile_ir(loop_types)
    text = assert_error(
        ei.value, "E:loop-body", "acc =",
        rf"Loop-carried variable 'acc' has type <\[128\], fp32, .*> before the loop "
        rf"\({re.escape(_site('E:loop-init', 'acc ='))}\) but type <\[128\], fp16, .*> at the "
        rf"end of the loop body \({re.escape(_site('E:loop-body', 'acc ='))}\)")
    line, col = where("E:loop-init", "acc =")
    assert text[3] == (f"{HERE}:{line}:{col}: note: 'acc' is assigned here with type "
                       f"<[128], fp32, {L!r}>")
    assert text[4] == "    " + SRC[line - 1].strip()
    with pytest.raises(CompilationError) as ei:
        compile_ir(while_types)
    assert_error(ei.value, "E:while-body", "acc =",
                 rf"Loop-carried variable 'acc' has type .*fp32.* before the loop "
                 rf"\({re.escape(_site('E:while-init', 'acc ='))}\) but type .*int32.* at the end "
                 r"of the loop body \(.*\)")


# --- 15. / 14. program ids and options ----------------------------------------------------------


@kiln.jit
def bad_axis(x, n):
    p = kl.program_id(axis=3)  # E:axis


@kiln.jit  # E:def-deco
def small(x, n):  # E:def
    pass


def test_program_id_axis():
    with pytest.raises(CompilationError) as ei:
        compile_ir(bad_axis)
    assert_error(ei.value, "E:axis", "kl.program_id", r"program_id axis must be 0, 1 or 2, got 3")


@pytest.mark.parametrize("num_warps", [3, 0, 64, "4"])
def test_num_warps_must_be_a_power_of_2(num_warps):
    with pytest.raises(InvalidOption) as ei:
        compile_ir(small, num_warps=num_warps)
    assert isinstance(ei.value, ValueError)
    assert_error(ei.value, "E:def", "def small", rf"num_warps must be a power of 2 between 1 and "
                 rf"32, got {re.escape(repr(num_warps))}", InvalidOption)
    with pytest.raises(InvalidOption, match="between 1 and 16, got 32"):
        compile_ir(small, num_warps=32, target="hip:gfx942")


def test_bad_target_and_signature():
    with pytest.raises(InvalidOption, match="unknown target 'cuda:sm_10'; known targets: "):
        compile_ir(small, target="cuda:sm_10")
    with pytest.raises(TypeError, match="missing type for argument 'n'"):
        make_ir(small, {"x": "*fp32"})
    with pytest.raises(TypeError, match="has no argument 'm'"):
        make_ir(small, {"x": "*fp32", "n": "i32", "m": "i32"})
    with pytest.raises(ValueError, match="unknown type 'f32x'"):
        make_ir(small, {"x": "*f32x", "n": "i32"})
    with pytest.raises(TypeError, match=r"small\(\): too many positional arguments"):
        small.warmup(1, 2, 3, target="cuda:sm_90a")


@kiln.jit
def optional_out(x, n, y=None):
    offs = kl.arange(0, 128, kl.BlockedLayout([1], [32], [4], [0]))
    v = kl.load(x + offs, mask=offs < n)
    if y is not None:
        kl.store(y + offs, v * 2.0, mask=offs < n)
    kl.store(x + offs, v + 1.0, mask=offs < n)


def test_an_argument_defaulting_to_none_may_be_left_out_of_the_signature():
    """As a launch that leaves it out binds None (a constexpr), so does compile."""
    without = make_ir(optional_out, {"x": "*fp32", "n": "i32"})
    with_y = make_ir(optional_out, {"x": "*fp32", "n": "i32", "y": "*fp32"})
    assert without.count("tile.store") == 1 and with_y.count("tile.store") == 2
    with pytest.raises(TypeError, match="missing type for argument 'n'"):
        make_ir(optional_out, {"x": "*fp32"})


# --- memory ops ---------------------------------------------------------------------------------


@kiln.jit
def scalar_load(x, n):
    v = kl.load(x, mask=kl.arange(0, 128, L) < n)  # E:scalar-load


@kiln.jit
def other_without_mask(x, n):
    v = kl.load(x + kl.arange(0, 128, L), other=0.0)  # E:other


def test_memory_op_misuse():
    with pytest.raises(CompilationError) as ei:
        compile_ir(scalar_load)
    assert_error(ei.value, "E:scalar-load", "kl.load",
                 r"load: a scalar pointer takes a scalar mask")
    with pytest.raises(CompilationError) as ei:
        compile_ir(other_without_mask)
    assert_error(ei.value, "E:other", "kl.load", r"load: `other` cannot be given without `mask`")


# --- errors inside inlined functions point at the callee, with the call site as a note ---------


@kiln.jit
def bad_helper(v):
    return v + kl.arange(0, 64, L)  # E:callee


@kiln.jit
def calls_bad_helper(x, n):
    a = bad_helper(kl.arange(0, 128, L))  # E:caller


def test_error_in_inlined_function():
    with pytest.raises(CompilationError) as ei:
        compile_ir(calls_bad_helper)
    text = assert_error(ei.value, "E:callee", "v +", r"shape mismatch in add: \(128,\) vs \(64,\)")
    line, col = where("E:caller", "bad_helper(")
    assert text[3] == f"{HERE}:{line}:{col}: note: in call to 'bad_helper'"
    assert text[5] == "    " + " " * (col - 1 - 4) + "^"


# --- diagnostics from the C++ side ----------------------------------------------------------------


def test_diagnostics_map_back_to_user_source():
    line, col = where("E:diag", "value")
    value = 1  # E:diag
    err = from_diagnostics([
        {"severity": "error", "message": "arange: bad", "file": HERE, "line": line,
         "col": col},
        {"severity": "note", "message": "see here", "file": HERE, "line": line, "col": 5}])
    text = str(err).splitlines()
    assert text[0] == f"{HERE}:{line}:{col}: error: arange: bad"
    assert text[1] == "    value = 1  # E:diag"
    assert text[2] == "    ^"
    assert text[3] == f"{HERE}:{line}:5: note: see here"


def test_real_verifier_diagnostic_is_mapped():
    _compiler = pytest.importorskip("kiln._compiler", reason="kiln._compiler is not built")
    from kiln.compiler.compiler import _run
    line, col = where("E:cpp", "kl.arange")
    anchor = "kl.arange(0, 100)"  # E:cpp
    ir = ('module attributes {tile.target = "cuda:sm_90a", tile.num_warps = 4 : i32, '
          'tile.threads_per_warp = 32 : i32} {\n func.func @f() {\n'
          f'  %0 = tile.arange 0, 100 : tensor<100xi32, #tile.blocked<{{sizePerThread = [1], '
          f'threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}}>> loc("{HERE}":{line}:{col})\n'
          '  return\n }\n}\n')
    with pytest.raises(CompilationError) as ei:
        _run(_compiler, "parse/verify",
             lambda: _compiler.run_pipeline(ir, "builtin.module()", "kernel"))
    err = ei.value
    assert (err.file, err.line, err.col) == (HERE, line, col)
    assert err.message.startswith("arange:")
    caret = SRC[line - 1].strip().index("kl.arange")
    assert str(err).splitlines()[2] == "    " + " " * caret + "^"


# --- compile-time checks and limits -------------------------------------------------------------


@kiln.jit
def static_check(x, n, BLOCK: kl.constexpr):
    kl.static_assert(BLOCK % 64 == 0, f"BLOCK must be a multiple of 64, got {BLOCK}")  # E:sa


@kiln.jit
def huge_unroll(x, n):
    for i in kl.static_range(100000):  # E:unroll
        pass


@kiln.jit
def recursive(x, n):
    recursive(x, n)  # E:rec


def test_static_assert():
    assert "func.func" in compile_ir(static_check, cx={"BLOCK": 128})
    with pytest.raises(CompilationError) as ei:
        compile_ir(static_check, cx={"BLOCK": 100})
    assert_error(ei.value, "E:sa", "kl.static_assert",
                 r"static_assert failed: BLOCK must be a multiple of 64, got 100")


def test_unroll_and_inlining_limits():
    with pytest.raises(CompilationError) as ei:
        compile_ir(huge_unroll)
    assert_error(ei.value, "E:unroll", "for i",
                 r"static loop of 100000 iterations exceeds the unroll limit \(65536\)")
    with pytest.raises(CompilationError) as ei:
        compile_ir(recursive)
    assert_error(ei.value, "E:rec", "recursive(x, n)",
                 r"calls to @kiln.jit functions nest deeper than 32 levels "
                 r"\(recursion is not supported\)")
    assert len(ei.value.notes) == 8


# --- names and paths the IR cannot spell as they are --------------------------------------------


@kiln.jit
def kérnel(x, n):  # E:unicode-def
    offs = kl.arange(0, 128, L)
    kl.store(x + offs, kl.load(x + offs) + 1.0)


@kiln.jit
def ünicode_error(x, n):
    offs = kl.arange(0, 100, L)  # E:unicode-err


def test_non_ascii_kernel_name_gets_an_ascii_symbol():
    ir = compile_ir(kérnel)
    assert "func.func public @k_u00e9_rnel(" in ir
    from kiln.compiler.ir import symbol_name
    assert symbol_name("add") == "add" and symbol_name("ünicode") == "_u00fc_nicode"
    assert symbol_name("名前") == "_u540d__u524d_"
    with pytest.raises(CompilationError) as ei:  # errors still point at the user's line
        compile_ir(ünicode_error)
    assert_error(ei.value, "E:unicode-err", "kl.arange", r"arange's range must be a power of 2, "
                 r"got 100")


def test_non_ascii_kernel_name_compiles():
    pytest.importorskip("kiln._compiler", reason="kiln._compiler is not built")
    k = kiln.compile(kérnel, {"x": "*fp32", "n": "i32"}, cache=False)
    assert k.name == "kérnel" and k.metadata["name"] == "k_u00e9_rnel"
    assert ".entry k_u00e9_rnel" in k.asm["ptx"]


NEWLINE_KERNEL = """
import kiln
import kiln.language as kl
L = kl.BlockedLayout([1], [32], [4], [0])

@kiln.jit
def k(x, n):
    offs = kl.arange(0, 128, L)
    kl.store(x + offs, kl.load(x + offs) + 1.0)
"""


def _import_from(folder, name, text):
    import importlib.util
    import linecache
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.py"
    path.write_text(text)
    linecache.clearcache()
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod, str(path)


def test_source_path_with_a_newline(tmp_path):
    from kiln.compiler.ir import loc_text
    assert loc_text('a\nb"c\\d\x7f', 3, 4) == 'loc("a\\0Ab\\"c\\\\d\\7F":3:4)'
    mod, path = _import_from(tmp_path / "with\nnewline", "knewline", NEWLINE_KERNEL)
    ir = compile_ir(mod.k)
    assert 'knewline.py":8:' in ir and "\n" not in ir.split('loc("')[1].split('")')[0]
    _compiler = pytest.importorskip("kiln._compiler", reason="kiln._compiler is not built")
    k = kiln.compile(mod.k, {"x": "*fp32", "n": "i32"}, cache=False)
    assert ".entry k" in k.asm["ptx"]
    # a diagnostic of the C++ side names the real file again (newline included)
    from kiln.compiler.compiler import _run
    ir = ('module attributes {tile.target = "cuda:sm_90a", tile.num_warps = 4 : i32, '
          'tile.threads_per_warp = 32 : i32} {\n func.func @f() {\n'
          '  %0 = tile.arange 0, 100 : tensor<100xi32, #tile.blocked<{sizePerThread = [1], '
          'threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>> ' + loc_text(path, 8, 12)
          + '\n  return\n }\n}\n')
    with pytest.raises(CompilationError) as ei:
        _run(_compiler, "parse/verify",
             lambda: _compiler.run_pipeline(ir, "builtin.module()", "kernel.tile.mlir"))
    assert (ei.value.file, ei.value.line, ei.value.col) == (path, 8, 12)
    assert str(ei.value).splitlines()[-2:] == ["    offs = kl.arange(0, 128, L)",
                                               "           ^"]


# --- pointer address spaces ----------------------------------------------------------------------


def test_negative_address_space_is_rejected_before_building_ir():
    with pytest.raises(ValueError, match=r"pointer address space must be between 0 and "
                       r"16777215, got -1"):
        kl.pointer_type(kl.float32, -1)
    with pytest.raises(ValueError, match=r"pointer address space must be an integer, got 1.5"):
        kl.pointer_type(kl.float32, 1.5)
    ptr = kl.pointer_type(kl.float32)
    ptr.address_space = -1  # however it got there, the signature check names the argument
    with pytest.raises(ValueError, match=r"argument 'x': pointer address space must be between "
                       r"0 and 16777215, got -1"):
        make_ir(small, {"x": ptr, "n": "i32"})
    with pytest.raises(ValueError, match=r"argument 'x': unknown type 'fp32@-1' in signature"):
        make_ir(small, {"x": "*fp32@-1", "n": "i32"})


def test_address_space_is_part_of_the_cache_key():
    from kiln.compiler import compiler as c
    keys = {c.cache_key(small, c.parse_signature(small, {"x": x, "n": "i32"}), "cuda:sm_90a",
                        4, "v")
            for x in ("*fp32", kl.pointer_type(kl.float32, 1), kl.pointer_type(kl.float32, 3))}
    assert len(keys) == 2
    assert "!tile.ptr<f32, 3>" in make_ir(small, {"x": kl.pointer_type(kl.float32, 3),
                                                  "n": "i32"})


# --- fp8: conversions and arithmetic by promotion; no math functions or reductions --------------


@kiln.jit
def fp8_add(x, n):
    offs = kl.arange(0, 128, L)
    a = kl.load(x + offs)
    kl.store(x + offs, a + a)


@kiln.jit
def fp8_scale(x, n):
    offs = kl.arange(0, 128, L)
    kl.store(x + offs, kl.load(x + offs) * 2.0)


@kiln.jit
def fp8_upcast(x, n):
    offs = kl.arange(0, 128, L)
    kl.store(x + offs, kl.load(x + offs).to(kl.float32).to(x.dtype.element_ty))


@kiln.jit
def fp8_other(x, n):
    offs = kl.arange(0, 128, L)
    v = kl.load(x + offs, mask=offs < n, other=0.0)
    kl.store(x + offs, kl.where(v < 1.0, v, -v), mask=offs < n)


@kiln.jit
def fp8_abs(x, n):
    offs = kl.arange(0, 128, L)
    v = kl.load(x + offs, mask=offs < n)
    kl.store(x + offs, kl.abs(v), mask=offs < n)


@kiln.jit
def fp8_max(x, n):
    offs = kl.arange(0, 128, L)
    m = kl.max(kl.load(x + offs), axis=0)  # E:fp8-max


@kiln.jit
def fp8_exp(x, n):
    offs = kl.arange(0, 128, L)
    m = kl.exp(kl.load(x + offs))  # E:fp8-exp


@kiln.jit
def fp8_rtz_f16(x, n):
    offs = kl.arange(0, 128, L)
    m = kl.load(x + offs).to(kl.float16, fp_downcast_rounding="rtz")  # E:rtz-f16


@kiln.jit
def fp8_copy(x, n):
    offs = kl.arange(0, 128, L)
    v = kl.load(x + offs, mask=offs < n)
    kl.store(x + offs, v.to(kl.int8, bitcast=True).to(v.dtype, bitcast=True), mask=offs < n)


FP8_TAIL = (r" is not supported: fp8 values convert \(x\.to\(\.\.\.\)\) and compute by promotion "
            r"\(\+, -, \*, /, comparisons, minimum, maximum, where; abs on the sign bit\), "
            r"but math functions, reductions and scans take a wider float, as in Gluon: convert "
            r"first, e\.g\. x\.to\(kl\.float32\)")


@pytest.mark.parametrize("fp8", ["fp8e4nv", "fp8e5"])
@pytest.mark.parametrize("fn,marker,anchor,what", [
    (fp8_max, "E:fp8-max", "kl.max", r"a reduction of {}"),
    (fp8_exp, "E:fp8-exp", "kl.exp", r"exp on {}"),
])
def test_fp8_math_and_reductions_are_located_errors(fp8, fn, marker, anchor, what):
    with pytest.raises(CompilationError) as ei:
        compile_ir(fn, {"x": f"*{fp8}", "n": "i32"})
    assert_error(ei.value, marker, anchor, what.format(fp8) + FP8_TAIL)


def test_rtz_only_to_fp8():
    with pytest.raises(CompilationError) as ei:
        compile_ir(fp8_rtz_f16, {"x": "*fp32", "n": "i32"})
    assert_error(ei.value, "E:rtz-f16", "kl.load", r"fp_downcast_rounding='rtz' is supported "
                 r"for conversions to fp8, not to fp16")


@kiln.jit
def fp8_e4b15_rtz(x, n):
    offs = kl.arange(0, 128, L)
    m = kl.load(x + offs).to(kl.float8e4b15, fp_downcast_rounding="rtz")  # E:e4b15


@kiln.jit
def rounding_word(x, n):
    offs = kl.arange(0, 128, L)
    m = kl.load(x + offs).to(kl.float8e4nv, fp_downcast_rounding="up")  # E:rnd-word


@kiln.jit
def rounding_widening(x, n):
    offs = kl.arange(0, 128, L)
    m = kl.load(x + offs).to(kl.float32, fp_downcast_rounding="rtz")  # E:rnd-wide


@pytest.mark.parametrize("fn,sig,marker,anchor,message", [
    (fp8_e4b15_rtz, {"x": "*fp32", "n": "i32"}, "E:e4b15", "kl.load",
     r"fp_downcast_rounding='rtz' is not supported for fp8e4b15 \(Triton rounds it to "
     r"nearest only\)"),
    (rounding_word, {"x": "*fp32", "n": "i32"}, "E:rnd-word", "kl.load",
     r"fp_downcast_rounding must be 'rtne' or 'rtz', got 'up'"),
    (rounding_widening, {"x": "*fp16", "n": "i32"}, "E:rnd-wide", "kl.load",
     r"fp_downcast_rounding applies to float conversions that narrow, not fp16 to fp32"),
])
def test_fp8_conversion_misuse_is_located(fn, sig, marker, anchor, message):
    with pytest.raises(CompilationError) as ei:
        compile_ir(fn, sig)
    assert_error(ei.value, marker, anchor, message)


@pytest.mark.parametrize("fp8", ["fp8e4nv", "fp8e5", "fp8e4b8", "fp8e5b16"])
def test_fp8_arithmetic_conversions_and_constants_compile(fp8):
    for fn in (fp8_copy, fp8_add, fp8_scale, fp8_upcast, fp8_other, fp8_abs):
        ir = compile_ir(fn, {"x": f"*{fp8}", "n": "i32"})
        assert f"tensor<128x{kl.dtype(fp8).to_ir()}" in ir
    pytest.importorskip("kiln._compiler", reason="kiln._compiler is not built")
    for fn in (fp8_copy, fp8_add, fp8_scale, fp8_upcast, fp8_other, fp8_abs):
        kiln.compile(fn, {"x": f"*{fp8}", "n": "i32"}, cache=False)


# --- reduce combine functions ------------------------------------------------------------------


@kiln.jit
def combine_with_if(a, b):
    if a > b:  # E:comb-if
        c = a
    else:
        c = b
    return c


@kiln.jit
def combine_with_for(a, b):
    for i in range(3):  # E:comb-for
        a = a + b
    return a


@kiln.jit
def combine_with_reduction(a, b):
    return a + kl.sum(kl.arange(0, 128, L), 0)  # E:comb-nested


@kiln.jit
def combine_with_static_control_flow(a, b, PICK_MAX: kl.constexpr = True):
    for i in kl.static_range(1):
        if PICK_MAX:
            c = kl.maximum(a, b)
        else:
            c = kl.minimum(a, b)
    return kl.where(a != a, a, c)


@kiln.jit
def reduce_with(x, n, COMBINE: kl.constexpr):
    v = kl.reduce(kl.load(x + kl.arange(0, 128, L)), 0, COMBINE)  # E:reduce-call


def not_a_kernel(a, b):
    return a


@pytest.mark.parametrize("combine,marker,anchor,message", [
    (combine_with_if, "E:comb-if", "if", r"a runtime if is not supported in a reduce combine "
     r"function; combine the two scalars with elementwise operations \(kl.where, kl.maximum, "
     r"\.\.\.\)"),
    (combine_with_for, "E:comb-for", "for", r"a runtime for loop is not supported in a reduce "
     r"combine function; .*"),
    (combine_with_reduction, "E:comb-nested", "kl.sum", r"a reduction inside a reduce combine "
     r"function is not supported: the combine function receives two scalars and must combine "
     r"them with elementwise operations"),
])
def test_reduce_combine_control_flow_and_nesting(combine, marker, anchor, message):
    with pytest.raises(CompilationError) as ei:
        compile_ir(reduce_with, cx={"COMBINE": combine})
    text = assert_error(ei.value, marker, anchor, message, type(ei.value))
    line, col = where("E:reduce-call", "kl.reduce")
    assert text[3] == (f"{HERE}:{line}:{col}: note: in the combine function "
                       f"'{combine.__name__}' of this reduce")


@kiln.jit
def reduce_builtin_max(x, n):
    v = kl.reduce(kl.load(x + kl.arange(0, 128, L)), 0, max)
    w = kl.reduce(kl.load(x + kl.arange(0, 128, L)), 0, min)
    offs = kl.arange(0, 128, L)
    kl.store(x + offs, kl.full([128], v + w, kl.float32, L))


def test_reduce_with_python_max_min_and_static_control_flow():
    ir = compile_ir(reduce_builtin_max)
    assert ir.count("tile.reduce_return") == 2
    assert "arith.maxnumf" in ir and "arith.minnumf" in ir
    ir = compile_ir(reduce_with, cx={"COMBINE": combine_with_static_control_flow})
    assert "arith.maxnumf" in ir and "scf." not in ir
    ir = compile_ir(reduce_with, cx={"COMBINE": kl.maximum})
    assert "arith.maxnumf" in ir
    pytest.importorskip("kiln._compiler", reason="kiln._compiler is not built")
    kiln.compile(reduce_builtin_max, {"x": "*fp32", "n": "i32"}, cache=False)


def test_reduce_combine_must_be_a_kernel_function():
    for bad, name in ((not_a_kernel, "not_a_kernel"), (kl.sum, "sum")):
        with pytest.raises(CompilationError) as ei:
            compile_ir(reduce_with, cx={"COMBINE": bad})
        assert_error(ei.value, "E:reduce-call", "kl.reduce",
                     rf"reduce: combine_fn must be a @kiln.jit function of two scalars \(or max, "
                     rf"min, kl.maximum, kl.minimum\), got {name}")


# --- num_ctas ------------------------------------------------------------------------------------


def test_num_ctas_must_be_a_cluster_size(monkeypatch, tmp_path):
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path))
    with pytest.raises(InvalidOption) as ei:
        kiln.compile(small, {"x": "*fp32", "n": "i32"}, num_ctas=3)
    assert isinstance(ei.value, ValueError)
    assert_error(ei.value, "E:def", "def small", r"num_ctas must be a power of 2 between 1 and "
                 r"16 \(the CTAs of a cluster\), got 3", InvalidOption)
    with pytest.raises(InvalidOption, match=r"num_ctas must be a power of 2 between 1 and 16"):
        small.warmup("*fp32", "i32", target="cuda:sm_90a", num_ctas=32)
    with pytest.raises(InvalidOption, match=r"got 0"):
        small.warmup("*fp32", "i32", target="cuda:sm_90a", num_ctas=0)
    with pytest.raises(InvalidOption, match=r"got True"):
        small[(1,)](0, 5, num_ctas=True)  # before looking for a GPU


def test_sanitize_overflow_is_accepted(monkeypatch, tmp_path):
    # Triton's option (overflow checks in debug mode only); Triton's own Gluon tests pass it.
    pytest.importorskip("kiln._compiler", reason="kiln._compiler is not built")
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path))
    a = small.warmup("*fp32", "i32", target="cuda:sm_90a", sanitize_overflow=True)
    b = small.warmup("*fp32", "i32", target="cuda:sm_90a", sanitize_overflow=False)
    assert a is b  # the same kernel: without debug the option changes nothing


def test_debug_false_is_the_default_and_debug_true_another_kernel(monkeypatch, tmp_path):
    # Triton's option; its tests pass debug=False and debug=True (test_debug_mode_dsl.py
    # checks what debug mode compiles).
    pytest.importorskip("kiln._compiler", reason="kiln._compiler is not built")
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path))
    a = small.warmup("*fp32", "i32", target="cuda:sm_90a", debug=False)
    assert a is small.warmup("*fp32", "i32", target="cuda:sm_90a")
    b = small.warmup("*fp32", "i32", target="cuda:sm_90a", debug=True)
    assert b is not a and b.metadata.get("debug") is True and "debug" not in a.metadata
    assert b is small.warmup("*fp32", "i32", target="cuda:sm_90a", debug=True)


def test_num_ctas_1_is_accepted(monkeypatch, tmp_path):
    pytest.importorskip("kiln._compiler", reason="kiln._compiler is not built")
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path))
    kiln.compile(small, {"x": "*fp32", "n": "i32"}, num_ctas=1, cache=False)
    small.warmup("*fp32", "i32", target="cuda:sm_90a", num_ctas=1)


# --- back-end and tool failures are reported at the kernel's def --------------------------------


class _FailingTranslate:
    """kiln._compiler with a translate step that fails like the C++ one does."""

    class CompilationError(Exception):
        def __init__(self, msg, diagnostics=()):
            super().__init__(msg)
            self.diagnostics = list(diagnostics)

    def __init__(self, fail_on, diagnostics):
        self.fail_on, self.diagnostics = fail_on, diagnostics

    def version(self):
        return "fake"

    def default_target(self):
        return "cuda:sm_90a"


    def known_targets(self):
        return [dict(t) for t in FAKE_TARGETS]

    def run_pipeline(self, ir, pipeline, source_name="kernel"):
        return ir

    def run_pipeline_with_info(self, ir, pipeline, source_name="kernel"):
        return {"text": ir, "info": {"shared": 0, "num_warps": None, "target": None,
                                     "kernels": []}}

    def translate(self, text, target, emit):
        if emit == self.fail_on:
            raise self.CompilationError("failed", self.diagnostics)
        return b"\x7fELF" if emit in ("cubin", "hsaco") else b"; text"


PTXAS_MESSAGE = ("ptxas failed with exit code 255\n  command: ptxas -arch=sm_90a -O3 -o k.cubin "
                 "k.ptx\nptxas fatal : something is wrong")


@pytest.mark.parametrize("fail_on,where_reported", [
    ("cubin", {"file": "<llvm-dialect>", "line": 1, "col": 1}),
    ("ptx", {"file": None, "line": None, "col": None}),
    ("llvm", {"file": "", "line": 0, "col": 0}),
    ("hsaco", {"file": "kernel.tile.mlir", "line": 3, "col": 22}),
])
def test_backend_errors_point_at_the_def(monkeypatch, tmp_path, fail_on, where_reported):
    from kiln.compiler import compiler as c
    diag = dict(where_reported, severity="error", message=PTXAS_MESSAGE)
    monkeypatch.setattr(c, "load_compiler", lambda: _FailingTranslate(fail_on, [diag]))
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path))
    target = "hip:gfx942" if fail_on == "hsaco" else "cuda:sm_90a"
    with pytest.raises(CompilationError) as ei:
        kiln.compile(small, {"x": "*fp32", "n": "i32"}, target=target, num_warps=4)
    err = ei.value
    line, col = where("E:def", "def small")
    assert (err.file, err.line, err.col) == (HERE, line, col)
    assert err.message == PTXAS_MESSAGE
    text = str(err).splitlines()
    assert text[0] == f"{HERE}:{line}:{col}: error: ptxas failed with exit code 255"
    assert text[3:5] == ["    def small(x, n):  # E:def", "    ^"]
    if where_reported["line"]:
        assert f"reported it at {where_reported['file']}:{where_reported['line']}:" in str(err)


def test_backend_error_without_diagnostics_points_at_the_def(monkeypatch, tmp_path):
    from kiln.compiler import compiler as c
    monkeypatch.setattr(c, "load_compiler", lambda: _FailingTranslate("cubin", []))
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path))
    with pytest.raises(CompilationError) as ei:
        kiln.compile(small, {"x": "*fp32", "n": "i32"})
    assert (ei.value.file, ei.value.line) == (HERE, where("E:def", "def small")[0])
    assert ei.value.message == "translate to llvm, ptx, cubin failed: failed"


def test_real_ptxas_failure_points_at_the_def(monkeypatch, tmp_path):
    pytest.importorskip("kiln._compiler", reason="kiln._compiler is not built")
    ptxas = tmp_path / "ptxas"
    ptxas.write_text('#!/bin/sh\necho "ptxas fatal : something is wrong" >&2\nexit 255\n')
    ptxas.chmod(0o755)
    monkeypatch.setenv("KILN_PTXAS", str(ptxas))
    with pytest.raises(CompilationError) as ei:
        kiln.compile(small, {"x": "*fp32", "n": "i32"}, cache=False)
    line, col = where("E:def", "def small")
    assert (ei.value.file, ei.value.line, ei.value.col) == (HERE, line, col)
    assert ei.value.message.startswith("ptxas failed with exit code 255")
    assert "ptxas fatal : something is wrong" in ei.value.message


# ---------------------------------------------------------------------------------------------
# Registers per thread (2^11 at most): the DSL's linear layouts and tensors past the limit.

def test_linear_layout_with_too_many_register_bases_is_a_value_error():
    # 31 bases used to crash the process (an int32 shift in C++).
    with pytest.raises(ValueError, match=r"at most 11 reg_bases \(2\^11 per thread\), got 31"):
        kl.DistributedLinearLayout([[0]] * 31, [[1], [2], [4], [8], [16]], [[32], [64]], [],
                                   [128])
    ok = kl.DistributedLinearLayout([[0]] * 11, [[1], [2], [4], [8], [16]], [[32], [64]], [],
                                    [128])
    assert len(ok.reg_bases) == 11


def test_tensor_past_the_register_limit_points_at_the_line():
    @kiln.jit
    def big(x, BLOCK: kl.constexpr):
        offs = kl.arange(0, BLOCK, L)  # E:big
        kl.store(x + offs, offs)
    with pytest.raises(CompilationError) as info:
        kiln.compile(big, {"x": "*i32"}, {"BLOCK": 2 ** 19}, target="cuda:sm_90a", cache=False)
    assert_error(info.value, "E:big", "kl.arange",
                 r"arange: tensor 'tensor \[524288\] int32, BlockedLayout\(\[1\], \[32\], \[4\], "
                 r"\[0\]\)' needs 4096 registers per thread in layout BlockedLayout\(.*\); Kiln's limit is 2048 \(use a smaller block or more warps\)")


def test_amd_register_limit_is_lower_and_names_the_target():
    # 1024 per thread is legal IR (and compiles for NVIDIA), but LLVM's AMDGPU
    # backend needs ~15 s for it: gfx942/gfx950 stop at 512.
    L64 = kl.BlockedLayout([1], [64], [4], [0])

    @kiln.jit
    def big(x, BLOCK: kl.constexpr):
        offs = kl.arange(0, BLOCK, L64)  # E:big64
        kl.store(x + offs, offs)
    with pytest.raises(CompilationError) as info:
        kiln.compile(big, {"x": "*i32"}, {"BLOCK": 2 ** 18}, target="hip:gfx942", cache=False)
    assert_error(info.value, "E:big64", "kl.arange",
                 r"arange: tensor 'tensor \[262144\] int32, BlockedLayout\(\[1\], \[64\], \[4\], "
                 r"\[0\]\)' needs 1024 registers per thread in layout BlockedLayout\(.*\); Kiln's limit on hip:gfx942 is 512 \(use a smaller block or more warps\)")


@kiln.jit
def sum_all_keep_dims(x, y):
    r = kl.arange(0, 16, kl.SliceLayout(1, L2))
    c = kl.arange(0, 16, kl.SliceLayout(0, L2))
    v = kl.load(x + r[:, None] * 16 + c[None, :])
    s = kl.sum(v, axis=None, keep_dims=True)  # E:sum-all-keep
    kl.store(y, kl.sum(s, axis=None))


def test_reduce_of_every_axis_keeping_dims_is_a_located_error():
    """Gluon refuses it too (its expand_dims takes no scalar); the message says what to do."""
    with pytest.raises(CompilationError) as ei:
        compile_ir(sum_all_keep_dims, {"x": "*fp32", "y": "*fp32"})
    assert_error(ei.value, "E:sum-all-keep", "kl.sum",
                 r"reduce with axis=None and keep_dims=True is not supported: reducing every "
                 r"axis gives a scalar, which has no layout to keep dimensions in \(Gluon "
                 r"refuses it too\); reduce one axis at a time with keep_dims=True")


@kiln.jit
def name_a_module_lacks(x):
    hopper_tma.async_reduce_shared_to_global(x)  # E:missing-name


@kiln.jit
def misspelled_module_name(x):
    hopper_tma.async_copy_shared_to_globl(x)  # E:misspelled-name


def test_a_name_a_module_lacks_lists_what_it_has():
    """A name from a Gluon fork (or a typo): the error at the line lists the module's names, or
    the near ones."""
    with pytest.raises(CompilationError) as ei:
        compile_ir(name_a_module_lacks, {"x": "*fp32"})
    assert_error(ei.value, "E:missing-name", "hopper_tma.async_reduce_shared_to_global",
                 r"AttributeError: module 'kiln\.language\.nvidia\.hopper\.tma' has no attribute "
                 r"'async_reduce_shared_to_global' \(it has async_atomic_add, .*"
                 r"async_copy_shared_to_global, .*store_wait.*\)")
    with pytest.raises(CompilationError) as ei:
        compile_ir(misspelled_module_name, {"x": "*fp32"})
    assert_error(ei.value, "E:misspelled-name", "hopper_tma.async_copy_shared_to_globl",
                 r"AttributeError: module 'kiln\.language\.nvidia\.hopper\.tma' has no attribute "
                 r"'async_copy_shared_to_globl' \(did you mean async_copy_shared_to_global\?\)")


@kiln.jit
def chained_view_error(x):
    SW: kl.constexpr = kl.SwizzledSharedLayout(1, 1, 1, [1, 0])
    view = (kl.allocate_shared_memory(kl.float32, [32, 32], SW)
            .slice(0, 16, dim=0)
            .slice(8, 16, dim=1))  # E:chain


def test_an_error_in_a_multi_line_chain_points_at_its_call():
    """The failing call of a chain written over several lines: its line and method name, not
    the chain's first line."""
    with pytest.raises(CompilationError) as ei:
        compile_ir(chained_view_error, {"x": "*fp32"})
    assert_error(ei.value, "E:chain", "slice(8, 16, dim=1)",
                 r"slice: start 8 along dimension 1 must be a multiple of the length 16")


@kiln.jit
def buffer_as_a_tensor(x):
    SW: kl.constexpr = kl.SwizzledSharedLayout(1, 1, 1, [0])
    L: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    buf = kl.allocate_shared_memory(kl.float32, [128], SW)
    kl.convert_layout(buf, L)  # E:buffer-as-tensor


def test_a_shared_buffer_where_a_tensor_is_wanted_says_load_it():
    with pytest.raises(CompilationError) as ei:
        compile_ir(buffer_as_a_tensor, {"x": "*fp32"})
    assert_error(ei.value, "E:buffer-as-tensor", "kl.convert_layout",
                 r"a shared-memory buffer \(.*\) is not a tensor: read it into registers with "
                 r"\.load\(layout\) first")


if True:  # a kernel defined in an indented block (a file's `if GLUON_AVAILABLE:`)
    @kiln.jit
    def indented_with_blank_lines(x):

        L: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])

        o = kl.arange(0, 128, L)

        kl.store(x + o, kl.load(x + o, mask=o < 3.5, other=[1]))  # E:after-blanks


def test_an_error_below_blank_lines_of_an_indented_kernel_names_its_line():
    """Blank lines of a function defined in an indented block (shorter than its indent) kept
    their place: an error below them named a line too early by their number."""
    with pytest.raises(CompilationError) as ei:
        compile_ir(indented_with_blank_lines, {"x": "*fp32"})
    line, _ = located.where(HERE, "E:after-blanks", "kl.store")
    assert ei.value.line == line, (ei.value.line, line, str(ei.value))
