"""Python's builtins on runtime values as Triton and Gluon accept them (issue 24, item 5):
``min``/``max`` of runtime scalars and tensors are elementwise minimum/maximum (the grouped
tile order of a textbook Gluon GEMM writes ``min(num_pid_m - first_pid_m, GROUP_M)``), and
``abs`` is the elementwise absolute value. Compile-time arguments still run in Python."""

import os
import re

import pytest

import kiln
import kiln.language as kl

import compiled
import located

pytestmark = compiled.needs_compiler

HERE = os.path.abspath(__file__)
L = kl.BlockedLayout([1], [32], [4], [0])
SIG = {"x": "*fp32", "y": "*fp32", "n": "i32", "m": "i32"}


@kiln.jit
def grouped(x, y, n, m, GROUP: kl.constexpr):
    pid = kl.program_id(0)
    size = min(n - pid, GROUP)          # runtime scalar and constexpr
    hi = max(pid, m, 3)                  # three arguments, folded
    both = min(GROUP, 2 * GROUP)         # compile time: plain Python
    offs = kl.arange(0, 128, L)
    v = kl.load(x + offs)
    kl.store(y + offs, max(v, 0.5) + abs(v) + size + hi + both)


def test_min_max_abs_of_runtime_values_are_elementwise():
    k = kiln.compile(grouped, SIG, dict(GROUP=8), target="cuda:sm_90a", cache=False)
    tile = k.asm["tile"]
    assert len(re.findall(r"arith\.minsi", tile)) == 1, tile
    assert len(re.findall(r"arith\.maxsi", tile)) == 2, tile      # max(pid, m, 3)
    assert re.search(r"arith\.max(imum|num)f", tile), tile        # max(v, 0.5)
    assert "math.absf" in tile, tile
    # min(GROUP, 2 * GROUP) ran in Python: the constant 8 is added, no third min.
    ptx = k.asm["ptx"]
    assert "min.s32" in ptx and "max.s32" in ptx and "abs.f32" in ptx


@kiln.jit
def min_of_iterable(x, y, n, m):
    a = kl.program_id(0)
    b = min([a, n])  # E:iter
    kl.store(y, b.to(kl.float32))


def test_min_of_an_iterable_of_runtime_values_is_an_error_at_the_line():
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(min_of_iterable, SIG, {}, target="cuda:sm_90a", cache=False)
    located.assert_located(
        ei.value, HERE, "E:iter", "min(",
        r"min\(\) of runtime values takes two or more positional arguments \(no iterable, "
        r"key= or default=\); use kl\.minimum \(elementwise\) or kl\.min \(reduction\)",
        kiln.CompilationError)


from kiln.language.extra import libdevice  # noqa: E402


L64 = kl.BlockedLayout([2], [64], [4], [0])


@kiln.jit
def fast_math(x, y, LAY: kl.constexpr):
    offs = kl.arange(0, 512, LAY)
    v = kl.load(x + offs)
    kl.store(y + offs, libdevice.fast_expf(v) + libdevice.fast_dividef(v, 3.0) +
             libdevice.rsqrt(libdevice.abs(v) + 1.0))


def test_libdevice_calls_nvidia_libdevice_and_kiln_math_on_amd(monkeypatch, tmp_path):
    """Gluon's ``language.extra.libdevice`` (Triton's test_core uses fast_expf / fast_dividef):
    on NVIDIA every name calls libdevice's function (tile.extern_elementwise, linked from the
    CUDA toolkit's bitcode and inlined: no call is left in the PTX); on AMD the fast forms are
    Kiln's math, the others ocml's (third_party/amd/test/python/test_amd_libdevice.py) or,
    without the ROCm device libraries, Kiln's math where it has the function."""
    k = kiln.compile(fast_math, {"x": "*fp32", "y": "*fp32"}, dict(LAY=L), target="cuda:sm_90a",
                     cache=False)
    tile = k.asm["tile"]
    for symbol in ("__nv_fast_expf", "__nv_fast_fdividef", "__nv_rsqrtf", "__nv_fabsf"):
        assert f'tile.extern_elementwise "{symbol}"' in tile, tile
    assert "call" not in k.asm["ptx"].replace("// begin inline asm", "")
    assert hasattr(libdevice, "tanh") and len(libdevice.__all__) >= 197
    monkeypatch.setenv("KILN_ROCM_DEVICE_LIBS", str(tmp_path))  # none installed
    k = kiln.compile(fast_math, {"x": "*fp32", "y": "*fp32"}, dict(LAY=L64),
                     target="hip:gfx942", cache=False)
    tile = k.asm["tile"]
    assert "extern_elementwise" not in tile and "math.exp" in tile and "math.rsqrt" in tile


@kiln.jit
def libdevice_cbrt(x, y):
    offs = kl.arange(0, 512, L64)
    kl.store(y + offs, libdevice.cbrt(kl.load(x + offs)))  # E:amdcbrt


@kiln.jit
def libdevice_amd_only(x, y):
    offs = kl.arange(0, 128, L)
    kl.store(y + offs, libdevice.fast_tanhf(kl.load(x + offs)))  # E:amdonly


@kiln.jit
def libdevice_half(x, y):
    offs = kl.arange(0, 128, L)
    kl.store(y + offs, libdevice.erf(kl.load(x + offs)))  # E:half


@pytest.mark.parametrize("fn,sig,target,marker,anchor,message", [
    (libdevice_cbrt, {"x": "*fp32", "y": "*fp32"}, "hip:gfx942", "E:amdcbrt", "libdevice.cbrt",
     r"libdevice\.cbrt calls NVIDIA's libdevice, which is not linked for hip:gfx942; this "
     r"target's libdevice has: abs, acos, .*"),
    (libdevice_amd_only, {"x": "*fp32", "y": "*fp32"}, "cuda:sm_90a", "E:amdonly",
     "libdevice.fast_tanhf", r"libdevice\.fast_tanhf is in Gluon's AMD libdevice only "
     r"\(NVIDIA's libdevice has no such function\)"),
    (libdevice_half, {"x": "*fp16", "y": "*fp16"}, "cuda:sm_90a", "E:half", "libdevice.erf",
     r"libdevice\.erf: no signature takes \(fp16\); it takes \(fp32\); \(fp64\)"),
])
def test_libdevice_errors_name_the_call(fn, sig, target, marker, anchor, message):
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(fn, sig, {}, target=target, cache=False)
    located.assert_located(ei.value, HERE, marker, anchor, message, kiln.CompilationError)


@kiln.jit
def scalar_pointer(x, y, n):
    s = kl.load(x)
    offs = kl.arange(0, 128, L)
    v = kl.load(x + offs) * s
    kl.store(y + 128, kl.sum(v, 0))
    kl.store(y + 129, 7.0, mask=n > 3)


@kiln.jit
def scalar_pointer_tensor_value(x, y, n):
    kl.store(y, kl.load(x + kl.arange(0, 128, L)))  # E:scalarptr


def test_loads_and_stores_through_scalar_pointers():
    """Gluon accepts ``ttgl.store(out, x.sum(0))`` and ``ttgl.load(ptr)``: a one-element
    access every thread makes (test/gpu/test_jit.py runs it)."""
    sig = {"x": "*fp32", "y": "*fp32", "n": "i32"}
    k = kiln.compile(scalar_pointer, sig, {}, target="cuda:sm_90a", cache=False)
    assert k.asm["tile"].count("tile.store") == 2 and "tile.splat" in k.asm["tile"]
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(scalar_pointer_tensor_value, sig, {}, target="cuda:sm_90a", cache=False)
    located.assert_located(ei.value, HERE, "E:scalarptr", "kl.store",
                           r"store: a scalar pointer takes a scalar value, got a tensor of "
                           r"shape \[128\]", kiln.CompilationError)


@kiln.jit
def _store_maybe_masked(ptr, offs, v, mask=None):
    if mask is None:
        kl.store(ptr + offs, v)
    else:
        kl.store(ptr + offs, v, mask=mask)


@kiln.jit
def identity_tests(X, n):
    layout: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    offs = kl.arange(0, 128, layout)
    v = kl.load(X + offs)
    _store_maybe_masked(X, offs, v + 1.0)                  # mask is None: unmasked
    _store_maybe_masked(X, offs, v + 2.0, mask=offs < n)   # a tensor is not None
    kl.static_assert(v is not None)


def test_is_none_on_tensors_is_decided_at_compile_time():
    import re
    k = kiln.compile(identity_tests, {"X": "*fp32", "n": "i32"}, target="cuda:sm_90a",
                     cache=False)
    stores = re.findall(r"tile\.store [^\n]*", k.asm["tile"])
    masked = [s for s in stores if s.split(":")[0].count(",") == 2]  # tile.store %p, %v, %m
    assert len(stores) == 2 and len(masked) == 1
