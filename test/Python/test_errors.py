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

HERE = os.path.abspath(__file__)
SRC = open(HERE).read().splitlines()
L = kl.BlockedLayout([1], [32], [4], [0])
L2 = kl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
NOT_CONSTEXPR = 5
CONSTEXPR = kl.constexpr(5)


def where(marker, anchor):
    """(line, col) of ``anchor`` on the line tagged ``# <marker>``."""
    line = next(i for i, text in enumerate(SRC, 1) if text.rstrip().endswith(f"# {marker}"))
    return line, SRC[line - 1].index(anchor) + 1


def assert_error(err, marker, anchor, message, cls=CompilationError):
    assert isinstance(err, cls), f"{type(err).__name__}: {err}"
    line, col = where(marker, anchor)
    assert (err.file, err.line, err.col) == (HERE, line, col), str(err)
    assert re.fullmatch(message, err.message), err.message
    text = str(err).splitlines()
    assert text[0] == f"{HERE}:{line}:{col}: error: {err.message}"
    src = SRC[line - 1]
    indent = len(src) - len(src.lstrip())
    assert text[1] == "    " + src.strip()
    assert text[2] == "    " + " " * (col - 1 - indent) + "^"
    return text


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
        (runtime_constexpr_arg, {"x": "*fp32", "n": "i32"}, "E:rt-arg", "helper_cx",
         r"argument 'V' of helper_cx\(\) is a constexpr but got a runtime value"),
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
    assert "arith.constant dense<5>" in compile_ir(uses_constexpr_global)


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


# --- memory ops ---------------------------------------------------------------------------------


@kiln.jit
def scalar_load(x, n):
    v = kl.load(x)  # E:scalar-load


@kiln.jit
def other_without_mask(x, n):
    v = kl.load(x + kl.arange(0, 128, L), other=0.0)  # E:other


def test_memory_op_misuse():
    with pytest.raises(CompilationError) as ei:
        compile_ir(scalar_load)
    assert_error(ei.value, "E:scalar-load", "kl.load",
                 r"load: a scalar pointer cannot be accessed directly; build a tensor of "
                 r"pointers \(e\.g\. ptr \+ kl\.arange\(\.\.\.\)\)")
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
        {"severity": "error", "message": "'tile.arange' op bad", "file": HERE, "line": line,
         "col": col},
        {"severity": "note", "message": "see here", "file": HERE, "line": line, "col": 5}])
    text = str(err).splitlines()
    assert text[0] == f"{HERE}:{line}:{col}: error: 'tile.arange' op bad"
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
    assert "tile.arange" in err.message
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
