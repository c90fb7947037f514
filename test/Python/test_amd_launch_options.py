"""Triton's AMD launch options in a ported kernel's launch (aiter passes its tuned config as
**config): waves_per_eu reaches LLVM as the kernel's amdgpu-waves-per-eu occupancy hint;
matrix_instr_nonkdim, kpack and schedule_hint steer Triton's automatic tl.dot lowering, which a
Gluon kernel does not use, and are accepted without effect, as in Triton; llvm_fn_attrs (the
AMD option of Triton after 3.6) puts LLVM attributes on the kernel function; an NVIDIA target
ignores them all, as Triton's CUDA backend does."""

import os
import re

import pytest

import kiln
import kiln.language as kl

import located
from fakes import FAKE_TARGETS  # noqa: F401


@kiln.jit
def fill(x):  # E:def
    offs = kl.arange(0, 256, kl.BlockedLayout([1], [64], [4], [0]))
    kl.store(x + offs, offs)


@kiln.jit
def fill32(x):
    offs = kl.arange(0, 128, kl.BlockedLayout([1], [32], [4], [0]))
    kl.store(x + offs, offs)


def _hint(kernel):
    return re.findall(r'"amdgpu-waves-per-eu"="([^"]*)"', kernel.asm["llir"])


def test_waves_per_eu_reaches_llvm():
    plain = fill.warmup("*i32", grid=(1,), target="hip:gfx950")
    hinted = fill.warmup("*i32", grid=(1,), target="hip:gfx950", waves_per_eu=2)
    assert _hint(plain) == [] and _hint(hinted) == ["2,2"]
    assert fill.warmup("*i32", grid=(1,), target="hip:gfx950", waves_per_eu=0) is plain


def test_tl_dot_options_are_accepted():
    k = fill.warmup("*i32", grid=(1,), target="hip:gfx942", waves_per_eu=1,
                    matrix_instr_nonkdim=16, kpack=2, schedule_hint="none")
    assert _hint(k) == ["1,1"]


def test_nvidia_ignores_them():
    plain = fill32.warmup("*i32", grid=(1,), target="cuda:sm_90a")
    k = fill32.warmup("*i32", grid=(1,), target="cuda:sm_90a", waves_per_eu=2,
                      matrix_instr_nonkdim=16)
    assert k.asm["ptx"] == plain.asm["ptx"]


def test_a_bad_waves_per_eu_is_an_error():
    with pytest.raises(kiln.InvalidOption, match=r"waves_per_eu must be an int between 0 and "
                       r"20 \(waves per SIMD; 0: the compiler's choice\), got 'two'"):
        fill.warmup("*i32", grid=(1,), target="hip:gfx950", waves_per_eu="two")


def _fn_attr(kernel, name):
    """The value of LLVM function attribute `name` on the kernel (None: absent; "" for one
    without a value)."""
    m = re.search(rf'"{re.escape(name)}"(?:="([^"]*)")?', kernel.asm["llir"])
    return None if m is None else (m.group(1) or "")


def test_llvm_fn_attrs_reach_the_kernel_function():
    """Triton's AMD option after 3.6 (Primus-Turbo's attention passes it): pairs or
    'name=value,...' text, each replacing Kiln's own attribute of that name."""
    pairs = fill.warmup("*i32", grid=(1,), target="hip:gfx950", waves_per_eu=2,
                        llvm_fn_attrs=(("amdgpu-agpr-alloc", "0,0"),
                                       ("amdgpu-no-dispatch-id", ""),
                                       ("amdgpu-waves-per-eu", "1,1")))
    assert _fn_attr(pairs, "amdgpu-agpr-alloc") == "0,0"
    assert _fn_attr(pairs, "amdgpu-no-dispatch-id") == ""
    assert _hint(pairs) == ["1,1"]  # the user's replaced waves_per_eu's
    text = fill.warmup("*i32", grid=(1,), target="hip:gfx950",
                       llvm_fn_attrs="amdgpu-sched-strategy=max-ilp,amdgpu-no-dispatch-id")
    assert _fn_attr(text, "amdgpu-sched-strategy") == "max-ilp"
    assert _fn_attr(text, "amdgpu-no-dispatch-id") == ""
    plain = fill.warmup("*i32", grid=(1,), target="hip:gfx950")
    assert _fn_attr(plain, "amdgpu-sched-strategy") is None
    # The same attributes as a list key the same kernel as the text.
    again = fill.warmup("*i32", grid=(1,), target="hip:gfx950",
                        llvm_fn_attrs=[["amdgpu-sched-strategy", "max-ilp"],
                                       ["amdgpu-no-dispatch-id", ""]])
    assert again is text


def test_llvm_fn_attrs_are_checked():
    with pytest.raises(kiln.InvalidOption) as ei:
        fill.warmup("*i32", grid=(1,), target="hip:gfx950", llvm_fn_attrs=(("a", 1),))
    # At the kernel's definition, where launch options are reported.
    located.assert_located(ei.value, os.path.abspath(__file__), "E:def", "def fill",
                           r"llvm_fn_attrs must be a string 'name=value,...' or \(name, value\) "
                           r"string pairs, got \(\('a', 1\),\)", kiln.InvalidOption)
    with pytest.raises(kiln.InvalidOption, match="is not an LLVM function attribute"):
        fill.warmup("*i32", grid=(1,), target="hip:gfx950", llvm_fn_attrs=(('a"b', "1"),))
    # An NVIDIA target ignores them, as Triton's CUDA backend does.
    nv = fill32.warmup("*i32", grid=(1,), target="cuda:sm_90a",
                       llvm_fn_attrs="amdgpu-agpr-alloc=0")
    assert "amdgpu" not in nv.asm["llir"]
