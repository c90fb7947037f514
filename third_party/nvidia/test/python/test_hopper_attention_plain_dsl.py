"""examples/hopper_attention_plain.py compiled for sm_90a without a GPU: its key-block loop
(one K and one V buffer, one mbarrier) is pipelined into a TMA ring with a barrier per slot,
with no remark saying it was left alone, its slots released by every warp on barriers of
their own (no CTA barrier in the loop); num_stages=1 leaves it as written. GPU results:
third_party/nvidia/test/gpu/test_hopper_attention_plain.py."""

from __future__ import annotations

import os
import sys
import warnings

import kiln
import kiln.language as kl

import compiled

pytestmark = compiled.needs_compiler

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "..", "examples"))
import hopper_attention_plain  # noqa: E402


def _compile(stages):
    D = 128
    BM, BN, _, W = hopper_attention_plain.PLAIN_CONFIGS[D]

    def desc(rows):
        return kl.tensor_descriptor_type(
            kl.float16, [rows, D], kl.NVMMASharedLayout.get_default_for([rows, D], kl.float16))

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        k = hopper_attention_plain.hopper_attn_fwd_plain_kernel.warmup(
            desc(BM), desc(BN), desc(BN), "*fp16:16", "*fp32:16", 4096, 4096, 16, 16, 0.1,
            CAUSAL=False, STAGES=stages, num_warps=W, grid=(1,), target="cuda:sm_90a")
    return k, [str(w.message) for w in caught]


def test_key_loop_becomes_a_tma_ring():
    k, messages = _compile(2)
    assert not any("not pipelined" in m for m in messages), messages
    ptx = k.asm["ptx"]
    # Q's barrier and two per ring slot: the copies' and the warps' release of the slot.
    assert ptx.count("mbarrier.init") == 5
    # Every warp releases a slot itself (bar.warp.sync, then lane 0 arrives): in the loop
    # no CTA barrier orders the two warpgroups' reads before a refill.
    assert "bar.warp.sync" in ptx
    loop = ptx[ptx.index("wgmma.mma_async"):ptx.rindex("wgmma.mma_async")]
    assert "bar.sync" not in loop and "barrier.sync" not in loop
    # Two slots of K and V (2 x 2 x 128 x 128 fp16) and Q.
    assert k.metadata.shared >= 2 * 2 * 128 * 128 * 2 + 128 * 128 * 2


def test_one_stage_leaves_the_loop_as_written():
    k, _ = _compile(1)
    assert k.asm["ptx"].count("mbarrier.init") == 2


_UP_TO_BARRIERS = ("builtin.module(tile-resolve-layouts{target=cuda:sm_90a},tile-split-cluster,"
                   "tile-pipeline-assign-stages,tile-pipeline-lower-loads,tile-pipeline-expand,"
                   "tile-nv-pipeline-tma{target=cuda:sm_90a},"
                   "tile-nv-insert-proxy-fences{target=cuda:sm_90a},"
                   "tile-nv-pipeline-wgmma{target=cuda:sm_90a},"
                   "tile-insert-wait-counts{target=cuda:sm_90a},tile-check-async-safety,"
                   "tile-allocate-shared-memory{target=cuda:sm_90a},"
                   "tile-insert-barriers{target=cuda:sm_90a},test-barrier-oracle)")


def test_the_barrier_oracle_sees_no_race(tmp_path):
    """The kernel's IR through tile-insert-barriers (the compile's own passes, replayed by
    kiln-opt) played on its 8 warps by test-barrier-oracle: no execution (sequence lengths,
    heads, masking branches) and schedule of the warps races with a refill or hangs."""
    import subprocess
    opt = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..",
                       "build", "bin", "kiln-opt")
    if not os.path.exists(opt):
        import pytest
        pytest.skip("kiln-opt is not built")
    for stages in (2, 3):
        k, _ = _compile(stages)
        src = tmp_path / f"plain{stages}.mlir"
        src.write_text(k.asm["tile"])
        proc = subprocess.run([opt, str(src), f"--pass-pipeline={_UP_TO_BARRIERS}", "-o",
                               os.devnull, "--mlir-print-op-on-diagnostic=false"],
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr
        assert "barrier oracle:" in proc.stderr and "executions" in proc.stderr
        assert "witnessed" not in proc.stderr, proc.stderr
    # The oracle can fail here: without the refills' waits (a pass that forgot them) the
    # TMA copies race with the other warps' wgmma reads of their slots.
    up_to = _UP_TO_BARRIERS.replace(",test-barrier-oracle)", ")")
    built = subprocess.run([opt, str(src), f"--pass-pipeline={up_to}", "-o", "-"],
                           capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr
    mutant = "\n".join(l for l in built.stdout.splitlines() if "elected_warp" not in l)
    proc = subprocess.run([opt, "-", "--test-barrier-oracle", "-o", os.devnull,
                           "--mlir-print-op-on-diagnostic=false"], input=mutant,
                          capture_output=True, text=True, timeout=600)
    assert "witnessed (write-after-read)" in proc.stderr, proc.stderr
