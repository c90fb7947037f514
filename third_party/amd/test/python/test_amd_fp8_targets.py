"""FNUZ fp8 (float8e4b8 / float8e5b16) matrix products are gfx942's: gfx950's fp8 mfma
instructions have the same encodings but read the OCP formats, so FNUZ operands compiled
for gfx950 (with a version-3 layout, whose instructions gfx950 also has) would be misread,
every product off by a factor of 2. Kiln refuses them at the user's mfma line, naming the
OCP types; gfx942 still compiles them."""

from __future__ import annotations

import os
import re

import pytest

import kiln
import kiln.language as kl
from kiln.language.amd import cdna3

import compiled
import located

pytestmark = compiled.needs_compiler

HERE = os.path.abspath(__file__)


@kiln.jit
def fp8_mfma(a_ptr, b_ptr, c_ptr, V: kl.constexpr):
    acc_l: kl.constexpr = kl.amd.AMDMFMALayout(V, [32, 32, 16], False, [2, 2])
    blk: kl.constexpr = kl.BlockedLayout([1, 4], [16, 4], [4, 1], [1, 0])
    rm = kl.arange(0, 64, kl.SliceLayout(1, blk))
    rk = kl.arange(0, 64, kl.SliceLayout(0, blk))
    rk2 = kl.arange(0, 64, kl.SliceLayout(1, blk))
    rn = kl.arange(0, 64, kl.SliceLayout(0, blk))
    a = kl.convert_layout(kl.load(a_ptr + rm[:, None] * 64 + rk[None, :]),
                          kl.DotOperandLayout(0, acc_l, 8))
    b = kl.convert_layout(kl.load(b_ptr + rk2[:, None] * 64 + rn[None, :]),
                          kl.DotOperandLayout(1, acc_l, 8))
    acc = cdna3.mfma(a, b, kl.zeros([64, 64], kl.float32, acc_l))  # E:mfma
    kl.store(c_ptr + rm[:, None] * 64 + rn[None, :], kl.convert_layout(acc, blk))


def _compile(dt, target):
    return kiln.compile(fp8_mfma, {"a_ptr": f"*{dt}", "b_ptr": f"*{dt}", "c_ptr": "*fp32"},
                        {"V": 3}, target=target, num_warps=4, cache=False)


@pytest.mark.parametrize("dt", ["fp8e4b8", "fp8e5b16"])
def test_fnuz_fp8_on_gfx950_is_refused_at_the_mfma(dt):
    with pytest.raises(kiln.CompilationError) as ei:
        _compile(dt, "hip:gfx950")
    located.assert_located(ei.value, HERE, "E:mfma", "cdna3.mfma",
                           r".*FNUZ fp8 operands .* on hip:gfx950, whose fp8 mfma reads the OCP "
                           r"formats float8e4nv / float8e5.*", kiln.CompilationError)


@pytest.mark.parametrize("dt,mnemonic", [("fp8e4b8", "v_mfma_f32_32x32x16_fp8_fp8"),
                                         ("fp8e5b16", "v_mfma_f32_32x32x16_bf8_bf8")])
def test_fnuz_fp8_on_gfx942_still_compiles(dt, mnemonic):
    asm = _compile(dt, "hip:gfx942").asm["amdgcn"]
    assert set(re.findall(r"\bv_mfma\w*", asm)) == {mnemonic}

