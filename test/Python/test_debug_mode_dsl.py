"""Debug mode (Triton's ``debug=True``): ``device_assert`` is compiled only in debug mode, and
signed integer ``+ - *`` narrower than 64 bits assert that they do not overflow unless
``sanitize_overflow=False``. Compile-level, both vendors; test/gpu/test_debug_mode.py runs the
kernels (a failing assertion stops the launch and the driver reports file:line)."""

from __future__ import annotations

import re

import pytest

import kiln
import kiln.language as kl

import compiled
import located

HERE = __file__
TARGETS = [("cuda:sm_90a", 32), ("hip:gfx942", 64)]


@kiln.jit
def assert_kernel(x, out, N: kl.constexpr, W: kl.constexpr, MASKED: kl.constexpr):
    L: kl.constexpr = kl.BlockedLayout([1], [W], [4], [0])
    o = kl.arange(0, N, L)
    v = kl.load(x + o)
    if MASKED:
        kl.device_assert(v >= 0, "v must not be negative", mask=o < 8)
    else:
        kl.device_assert(v >= 0, "v must not be negative")  # A:here
    kl.store(out + o, v)


@kiln.jit
def arith_kernel(x, y, out, N: kl.constexpr, W: kl.constexpr, OP: kl.constexpr):
    L: kl.constexpr = kl.BlockedLayout([1], [W], [4], [0])
    o = kl.arange(0, N, L)
    a = kl.load(x + o)
    b = kl.load(y + o)
    if OP == "add":
        r = a + b
    elif OP == "sub":
        r = a - b
    elif OP == "mul":
        r = a * b
    else:
        r = kl.sum(a, axis=0) + kl.zeros([N], a.dtype, L)  # the combine's + is checked too
    kl.store(out + o, r)


def _asm(kernel, sig, consts, target, **options):
    k = kiln.compile(kernel, sig, consts, target=target, num_warps=4, cache=False, **options)
    return k, (k.asm.get("ptx") or k.asm["amdgcn"])


def _asserts(asm, target):
    """How many assertion reports (NVIDIA: calls of __assertfail) or traps (AMD) the assembly
    has."""
    if target.startswith("cuda"):
        return len(re.findall(r"call\.uni __assertfail,", asm))
    return asm.count("s_trap")


@compiled.needs_compiler
@pytest.mark.parametrize("target,w", TARGETS)
@pytest.mark.parametrize("masked", [False, True])
def test_device_assert_only_in_debug_mode(target, w, masked):
    sig = {"x": "*i32", "out": "*i32"}
    consts = {"N": 4 * w, "W": w, "MASKED": masked}
    plain, asm = _asm(assert_kernel, sig, consts, target)
    assert "tile.assert" not in plain.asm["tile"] and _asserts(asm, target) == 0
    debug, asm = _asm(assert_kernel, sig, consts, target, debug=True)
    assert "tile.assert" in debug.asm["tile"]
    assert _asserts(asm, target) >= 1
    assert debug.metadata.get("debug") is True and "debug" not in plain.metadata
    assert debug.metadata["key"] != plain.metadata["key"]
    # The report names the message, this file and the kernel: __assertfail on NVIDIA, ROCm's
    # device printf (ockl) on AMD where the ROCm device libraries are installed.
    if target.startswith("cuda") or _rocm_libs():
        text = debug.asm["llvm_dialect"]
        assert "v must not be negative" in text and HERE in text and "assert_kernel" in text


def _rocm_libs():
    from kiln.language.amd._libdevice import device_libs_dir
    return device_libs_dir() is not None


@compiled.needs_compiler
def test_amd_assert_traps_without_the_libraries(monkeypatch, tmp_path):
    monkeypatch.setenv("KILN_ROCM_DEVICE_LIBS", str(tmp_path))  # none installed
    debug, asm = _asm(assert_kernel, {"x": "*i32", "out": "*i32"},
                      {"N": 256, "W": 64, "MASKED": False}, "hip:gfx942", debug=True)
    assert "s_trap" in asm and "__ockl_printf" not in debug.asm["llvm_dialect"]


@compiled.needs_compiler
@pytest.mark.parametrize("target,w", TARGETS)
@pytest.mark.parametrize("op", ["add", "sub", "mul", "sum"])
def test_overflow_checks(target, w, op):
    consts = {"N": 4 * w, "W": w, "OP": op}
    i32 = {"x": "*i32", "y": "*i32", "out": "*i32"}
    checked, _ = _asm(arith_kernel, i32, consts, target, debug=True)
    assert "int32 overflow detected for operation" in checked.asm["tile"]
    # Not without debug, not with sanitize_overflow=False, not for unsigned, 64-bit or floats.
    for sig, options in [(i32, {}), (i32, {"debug": True, "sanitize_overflow": False}),
                         ({"x": "*u32", "y": "*u32", "out": "*u32"}, {"debug": True}),
                         ({"x": "*i64", "y": "*i64", "out": "*i64"}, {"debug": True}),
                         ({"x": "*fp32", "y": "*fp32", "out": "*fp32"}, {"debug": True})]:
        k, _ = _asm(arith_kernel, sig, consts, target, **options)
        assert "tile.assert" not in k.asm["tile"], (sig, options)


@kiln.jit
def e_float_condition(x):
    L: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    kl.device_assert(kl.load(x + kl.arange(0, 128, L)), "float")  # E:float


@compiled.needs_compiler
def test_a_float_condition_is_an_error_at_the_call():
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(e_float_condition, {"x": "*fp32"}, {}, target="cuda:sm_90a", debug=True,
                     cache=False)
    located.assert_located(ei.value, HERE, "E:float", "kl.device_assert",
                           r"device_assert expects a bool or integer condition, got fp32",
                           kiln.CompilationError)


def test_jit_debug_options_select_kernels():
    """A launch's debug option, else the decorator's, picks the kernel; each is cached apart."""
    fn = kiln.jit(debug=True)(assert_kernel.fn)
    assert fn._debug_options({}) == (True, True)
    assert fn._debug_options({"debug": False}) == (False, True)
    assert fn._debug_options({"sanitize_overflow": False}) == (True, False)
    # Without debug the overflow option selects nothing (the same kernel).
    assert assert_kernel._debug_options({"sanitize_overflow": False}) == (False, True)


# -- device_print -----------------------------------------------------------------------------


@kiln.jit
def print_kernel(x, N: kl.constexpr, W: kl.constexpr):
    L: kl.constexpr = kl.BlockedLayout([1], [W], [4], [0])
    o = kl.arange(0, N, L)
    kl.device_print("x", kl.load(x + o), o)  # P:here
    kl.device_print("pid", kl.program_id(0), hex=True)


@compiled.needs_compiler
def test_device_print_is_vprintf():
    k = kiln.compile(print_kernel, {"x": "*fp32"}, {"N": 128, "W": 32}, target="cuda:sm_90a",
                     cache=False)
    ptx = k.asm["ptx"]
    # One call per element a thread holds and operand (1 x 2), and one for the scalar.
    assert len(re.findall(r"call\.uni \(retval0\),\s*vprintf,", ptx)) == 3
    text = k.asm["llvm_dialect"]
    assert "pid (%u, %u, %u) idx (%u) x (operand 0) %f" in text
    assert "pid (%u, %u, %u) pid 0x%x" in text


@compiled.needs_compiler
def test_device_print_on_amd_is_rocm_printf():
    """AMD: ROCm's device printf (ockl's __ockl_printf_begin / append_string_n / append_args,
    as HIP's compiler lowers printf); the code object asks the runtime for its hostcall
    buffer. Not run on an AMD GPU here."""
    if not _rocm_libs():
        pytest.skip("no ROCm device libraries (scripts/setup.sh installs rocm-device-libs)")
    k = kiln.compile(print_kernel, {"x": "*fp32"}, {"N": 256, "W": 64}, target="hip:gfx942",
                     cache=False)
    text = k.asm["llvm_dialect"]
    for fn in ("__ockl_printf_begin", "__ockl_printf_append_string_n",
               "__ockl_printf_append_args"):
        assert f"llvm.call @{fn}" in text, fn
    assert "pid (%u, %u, %u) idx (%u) x (operand 0) %f" in text
    assert "hidden_hostcall_buffer" in k.asm["amdgcn"] and k.asm["hsaco"]


@compiled.needs_compiler
def test_device_print_needs_a_device_printf(monkeypatch, tmp_path):
    monkeypatch.setenv("KILN_ROCM_DEVICE_LIBS", str(tmp_path))  # none installed
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(print_kernel, {"x": "*fp32"}, {"N": 256, "W": 64}, target="hip:gfx942",
                     cache=False)
    located.assert_located(ei.value, HERE, "P:here", "kl.device_print",
                           r"device_print: on AMD targets it prints through the ROCm device "
                           r"libraries' printf \(ockl\), and none were found: .*",
                           kiln.CompilationError)
