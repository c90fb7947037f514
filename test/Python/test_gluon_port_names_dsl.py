"""Two things Gluon kernels of other projects do that Kiln took differently:

* A number Kiln keeps at compile time where Triton holds a scalar tensor (an int assigned to
  a name, or passed to a helper's parameter: Triton turns it into a tensor) takes tensor
  methods: ``((b0 + 3) * 64).to(kl.int16)`` with ``b0`` the literal 0 a caller passed, as
  Primus-Turbo's attention does. Checked on the IR (the i32 value, then the conversion).
* ``kiln.language._layouts`` answers the NVIDIA layouts that Gluon's ``_layouts`` module
  defines (``from triton.experimental.gluon.language._layouts import DotOperandLayout``)."""

from __future__ import annotations

import re

import pytest

import kiln
import kiln.language as kl
from kiln import compiler as compiler_mod

import compiled

pytestmark = compiled.needs_compiler


@kiln.jit
def _scaled(b0, MASK: kl.constexpr):
    n = 0
    if MASK:
        n = ((b0 + 3) * 64).to(kl.int16)
    return n


@kiln.jit
def literal_through_helper(out):
    kl.store(out, _scaled(0, True))


@kiln.jit
def assigned_float(out):
    x = 1.5
    kl.store(out, x.to(kl.float16))


def _ops(ir):
    return [re.sub(r" loc\(.*", "", l.strip()) for l in ir.splitlines()
            if '"arith.' in l or '"tile.store"' in l]


def test_a_kept_int_takes_tensor_methods_as_triton_scalar():
    ops = _ops(compiler_mod.make_ir(literal_through_helper, {"out": "*i16"},
                                    target="cuda:sm_90a"))
    # (0 + 3) * 64 folded at compile time, then the i32 scalar Triton holds, truncated.
    assert ops[0] == '%0 = "arith.constant"() {value = 192 : i32} : () -> i32', ops
    assert ops[1] == '%1 = "arith.trunci"(%0) : (i32) -> i16', ops
    assert "xi16" in ops[-1], ops


def test_a_kept_float_takes_tensor_methods_as_fp32_scalar():
    ops = _ops(compiler_mod.make_ir(assigned_float, {"out": "*fp16"}, target="cuda:sm_90a"))
    assert ops[0].startswith('%0 = "arith.constant"() {value = 1.500000e+00 : f32}'), ops
    assert '"arith.truncf"(%0) : (f32) -> f16' in ops[1], ops


def test_python_methods_of_numbers_stay_python():
    @kiln.jit
    def width(out):
        n = 40
        kl.store(out + kl.arange(0, 1, kl.BlockedLayout([1], [32], [4], [0])),
                 n.bit_length())  # an int method: 6, at compile time

    ops = _ops(compiler_mod.make_ir(width, {"out": "*i32"}, target="cuda:sm_90a"))
    assert any("value = dense<6> : tensor<1xi32" in o for o in ops), ops


def test_gluon_layouts_module_names_the_nvidia_layouts():
    from kiln.language import _layouts
    from kiln.language._layouts import (DotOperandLayout, NVMMADistributedLayout,
                                        NVMMASharedLayout)
    assert DotOperandLayout is kl.DotOperandLayout
    assert NVMMADistributedLayout is kl.NVMMADistributedLayout
    assert NVMMASharedLayout is kl.NVMMASharedLayout
    with pytest.raises(AttributeError, match="has no attribute 'NoSuchLayout'"):
        _layouts.NoSuchLayout  # noqa: B018
