"""examples/hopper_attention.py's warp-specialized kernel under test-barrier-oracle, without a
GPU: its IR through tile-insert-barriers (the compile's own passes, replayed by kiln-opt) is
played on its warps -- two (or three) consumer warpgroups and the producer warp, each
partition on its own -- over executions of its sequence lengths and heads and three schedules, with the
mbarrier phases simulated. No TMA refill may race with a consumer's wgmma reads of its slot,
and no schedule may hang, for every head dim and issue order (SCHEDULE 3's named barriers are
not modelled: they only add order). Then the protocol is broken the way a mistake would break
it (the producer's waits for released slots deleted; a consumer's release deleted), and the
oracle must see it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import kiln.language as kl

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "..", "examples"))
import hopper_attention  # noqa: E402

import compiled  # noqa: E402

pytestmark = compiled.needs_compiler

OPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "build",
                   "bin", "kiln-opt")
_UP_TO_BARRIERS = ("builtin.module(tile-resolve-layouts{target=cuda:sm_90a},tile-split-cluster,"
                   "tile-pipeline-assign-stages,tile-pipeline-lower-loads,tile-pipeline-expand,"
                   "tile-nv-pipeline-tma{target=cuda:sm_90a},"
                   "tile-nv-insert-proxy-fences{target=cuda:sm_90a},"
                   "tile-nv-pipeline-wgmma{target=cuda:sm_90a},"
                   "tile-insert-wait-counts{target=cuda:sm_90a},tile-check-async-safety,"
                   "tile-allocate-shared-memory{target=cuda:sm_90a},"
                   "tile-insert-barriers{target=cuda:sm_90a})")


def _barriered(D, schedule, tmp_path, consumers=2):
    """The ws kernel's IR after tile-insert-barriers."""
    BN, stages, regs = hopper_attention.WS_CONFIGS[D]

    def desc(rows):
        return kl.tensor_descriptor_type(
            kl.float16, [rows, D], kl.NVMMASharedLayout.get_default_for([rows, D], kl.float16))

    k = hopper_attention.hopper_attn_fwd_ws_kernel.warmup(
        desc(64), desc(BN), desc(BN), "*fp16:16", "*fp32:16", "*i32:16", "*i32:16", 16, 16, 0.1,
        1, 1, 1, 1, CAUSAL=False, STAGES=stages,
        CONSUMER_REGS=regs if consumers == 2 else 160, PRODUCER_REGS=24,
        SCHEDULE=schedule, num_warps=4, CONSUMERS=consumers, grid=(1,), target="cuda:sm_90a")
    src = tmp_path / f"ws{D}_{schedule}_{consumers}.mlir"
    src.write_text(k.asm["tile"])
    proc = subprocess.run([OPT, str(src), f"--pass-pipeline={_UP_TO_BARRIERS}", "-o", "-"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _oracle(text):
    proc = subprocess.run([OPT, "-", "--test-barrier-oracle", "-o", os.devnull,
                           "--mlir-print-op-on-diagnostic=false"], input=text,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "barrier oracle:" in proc.stderr and "executions" in proc.stderr, proc.stderr
    return proc.stderr


@pytest.fixture
def opt():
    if not os.path.exists(OPT):
        pytest.skip("kiln-opt is not built")


@pytest.mark.parametrize("D", [64, 128, 256])
@pytest.mark.parametrize("schedule", [0, 2, 3])
def test_no_race_no_hang(opt, tmp_path, D, schedule):
    assert "witnessed" not in _oracle(_barriered(D, schedule, tmp_path))


@pytest.mark.parametrize("schedule", [0, 1])
def test_three_consumers_no_race_no_hang(opt, tmp_path, schedule):
    """The kernel with three consumer warpgroups (head dim 64): each slot's release needs all
    three groups' arrivals; with one group's first release deleted, the producer hangs."""
    lines = _barriered(64, schedule, tmp_path, consumers=3).splitlines()
    assert "witnessed" not in _oracle("\n".join(lines))
    producer = max(i for i, l in enumerate(lines) if l.strip() == "}, {")
    first_release = next(i for i, l in enumerate(lines)
                         if "tile_nv.mbarrier_arrive" in l and i < producer)
    assert "witnessed (hang)" in _oracle("\n".join(lines[:first_release] +
                                                   lines[first_release + 1:]))


def test_a_broken_protocol_is_seen(opt, tmp_path):
    lines = _barriered(128, 0, tmp_path).splitlines()
    # The producer is the last partition (one warp): its waits are for released slots.
    producer = max(i for i, l in enumerate(lines) if l.strip() == "}, {")
    no_waits = [l for i, l in enumerate(lines)
                if not (i > producer and "tile_nv.mbarrier_wait" in l)]
    assert "witnessed (" in _oracle("\n".join(no_waits))
    assert "write-after-read" in _oracle("\n".join(no_waits))
    # A consumer's first release of a K slot (a one-thread arrival) deleted: the producer
    # never gets that slot back.
    first_release = next(i for i, l in enumerate(lines)
                         if "tile_nv.mbarrier_arrive" in l and i < producer)
    no_release = lines[:first_release] + lines[first_release + 1:]
    assert "witnessed (hang)" in _oracle("\n".join(no_release))
