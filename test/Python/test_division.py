"""f32 division as Triton does it: `x / y` and fdiv(ieee_rounding=False) may be approximate
(the IR's arith.divf carries fastmath<afn>; NVIDIA then divides with div.full.f32), div_rn and
fdiv(ieee_rounding=True) round to nearest (div.rn.f32). Other types are unchanged."""

import re

import kiln
import kiln.language as kl

from fakes import FAKE_TARGETS  # noqa: F401

L = kl.BlockedLayout([1], [32], [4], [0])


@kiln.jit
def divisions(x, y, o, KIND: kl.constexpr):
    offs = kl.arange(0, 128, L)
    a = kl.load(x + offs)
    b = kl.load(y + offs)
    if KIND == "slash":
        q = a / b
    elif KIND == "fdiv":
        q = kl.fdiv(a, b)
    elif KIND == "fdiv_ieee":
        q = kl.fdiv(a, b, ieee_rounding=True)
    else:
        q = kl.div_rn(a, b)
    kl.store(o + offs, q)


def _compile(kind, elem="fp32"):
    sig = {"x": f"*{elem}", "y": f"*{elem}", "o": f"*{elem}"}
    return kiln.compile(divisions, sig, {"KIND": kind}, target="cuda:sm_90a")


def test_slash_and_fdiv_may_be_approximate():
    for kind in ("slash", "fdiv"):
        k = _compile(kind)
        assert re.search(r"arith\.divf.*fastmath<afn>", k.asm["tile"]), kind
        assert "div.full.f32" in k.asm["ptx"] and "div.rn.f32" not in k.asm["ptx"], kind


def test_div_rn_and_ieee_fdiv_round_to_nearest():
    for kind in ("div_rn", "fdiv_ieee"):
        k = _compile(kind)
        assert "afn" not in k.asm["tile"], kind
        assert "div.rn.f32" in k.asm["ptx"] and "div.full" not in k.asm["ptx"], kind


def test_f64_division_is_ieee():
    k = _compile("slash", "fp64")
    assert "afn" not in k.asm["tile"]
    assert "div.rn.f64" in k.asm["ptx"]


def test_amd_divides_rounding_to_nearest():
    @kiln.jit
    def amd(x, y, o):
        offs = kl.arange(0, 256, kl.BlockedLayout([1], [64], [4], [0]))
        kl.store(o + offs, kl.load(x + offs) / kl.load(y + offs))
    k = kiln.compile(amd, {"x": "*fp32", "y": "*fp32", "o": "*fp32"}, target="hip:gfx942")
    assert "v_div_fixup_f32" in k.asm["amdgcn"]  # LLVM's correctly rounded sequence
