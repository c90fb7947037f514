"""Triton's enable_fp_fusion: on by default (a multiply feeding an add becomes one fma), off
on request from kiln.compile and from a launch option (a kernel compiled apart, its own cache
key)."""

import re

import kiln
import kiln.language as kl

from compiled import needs_compiler


@kiln.jit
def axpy(X, Y, Out, a, N: kl.constexpr):
    layout: kl.constexpr = kl.BlockedLayout([4], [32], [4], [0])
    o = kl.arange(0, N, layout)
    kl.store(Out + o, kl.load(X + o) * a + kl.load(Y + o))


SIG = {"X": "*fp32", "Y": "*fp32", "Out": "*fp32", "a": "fp32"}


@needs_compiler
def test_fusion_is_on_by_default_and_can_be_turned_off():
    on = kiln.compile(axpy, SIG, {"N": 512}, target="cuda:sm_90a", cache=False).asm["ptx"]
    off = kiln.compile(axpy, SIG, {"N": 512}, target="cuda:sm_90a", enable_fp_fusion=False,
                       cache=False)
    assert re.search(r"\bfma\.rn\.f32", on) and not re.search(r"\bmul\.rn\.f32", on)
    assert re.search(r"\bmul\.rn\.f32", off.asm["ptx"]) and \
        re.search(r"\badd\.rn\.f32", off.asm["ptx"]) and "fma" not in off.asm["ptx"]
    assert "tile.fp_fusion = false" in off.asm["tile"]


@needs_compiler
def test_the_option_keys_the_specialization():
    a = axpy.warmup("*fp32", "*fp32", "*fp32", 2.0, N=512, grid=(1,), target="cuda:sm_90a")
    b = axpy.warmup("*fp32", "*fp32", "*fp32", 2.0, N=512, grid=(1,), target="cuda:sm_90a",
                    enable_fp_fusion=False)
    assert a is not b and "fma.rn.f32" in a.asm["ptx"] and "fma" not in b.asm["ptx"]
