"""examples/hopper_attention.py's lazy rescaling (LAZY) compiled for sm_90a without a GPU: at
each of a consumer's rescale sites a warp votes and branches over exactly the accumulator's
multiplies (D * 64 / 128 a thread), the eager kernel has no vote and multiplies as before, and
ptxas takes both without spilling. GPU results (O, LSE and the bits against the reference on
scores whose row maxima keep rising): third_party/nvidia/test/gpu/test_hopper_attention.py's
test_lazy_rescale."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

import kiln.language as kl

import compiled

pytestmark = compiled.needs_compiler

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "..", "examples"))
import hopper_attention  # noqa: E402

PTXAS = "/usr/local/cuda/bin/ptxas"


def _compile(D, lazy, persistent):
    BN, stages, regs = hopper_attention.WS_CONFIGS[D]

    def desc(rows):
        return kl.tensor_descriptor_type(
            kl.float16, [rows, D], kl.NVMMASharedLayout.get_default_for([rows, D], kl.float16))

    common = dict(CAUSAL=True, STAGES=stages, CONSUMER_REGS=regs, PRODUCER_REGS=24,
                  SCHEDULE=3, num_warps=4, CONSUMERS=2, LAZY=lazy, target="cuda:sm_90a")
    if persistent:
        return hopper_attention.hopper_attn_fwd_ws_persistent_kernel.warmup(
            desc(64), desc(BN), desc(BN), "*fp16:16", "*fp32:16", "*i32:16", "*i32:16",
            "*i32:16", 16, 16, 0.1, 1, 1, 1, 1, 8, 16, DYNAMIC=True, **common)
    return hopper_attention.hopper_attn_fwd_ws_kernel.warmup(
        desc(64), desc(BN), desc(BN), "*fp16:16", "*fp32:16", "*i32:16", "*i32:16", 16, 16,
        0.1, 1, 1, 1, 1, **common)


def _skipped_regions(ptx):
    """The instructions between each uniform branch on a warp vote and its label."""
    return re.findall(r"vote\.sync\.any\.pred[^\n]*\n\s*@!\S+ bra\.uni (\S+);\n(.*?)\n\s*\1:",
                      ptx, re.S)


@pytest.mark.parametrize("D", [128, 256])
@pytest.mark.parametrize("persistent", [False, True], ids=["tile", "persistent"])
def test_lazy_skips_exactly_the_rescale(D, persistent, tmp_path):
    lazy = _compile(D, True, persistent).asm["ptx"]
    eager = _compile(D, False, persistent).asm["ptx"]
    regions = _skipped_regions(lazy)
    # Order 3 rescales at one place in its loop, in each of the two consumer partitions.
    assert len(regions) == 2, len(regions)
    for _, body in regions:
        ops = [line.split()[0] for line in body.strip().splitlines()]
        assert ops == ["mul.f32"] * (D * 64 // 128), ops[:4]
    assert "vote.sync" not in eager
    # The eager kernel multiplies every accumulator element once a block, outside any branch.
    assert len(re.findall(r"mul\.f32", eager)) >= 2 * D * 64 // 128
    for name, text in (("lazy", lazy), ("eager", eager)):
        if not os.path.exists(PTXAS):
            continue
        src = tmp_path / f"{name}.ptx"
        src.write_text(text)
        r = subprocess.run([PTXAS, "-arch=sm_90a", "-v", str(src), "-o", str(tmp_path / "k")],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert " 0 bytes spill stores" in r.stderr and "warning" not in r.stderr.lower(), \
            r.stderr
