"""examples/cluster_gemm.py under test-barrier-oracle's cluster mode, without a GPU: the kernel's IR
through tile-insert-barriers (the compile's own passes, replayed by kiln-opt) is played as the
CTAs of one cluster side by side (`ctas=N`), each CTA's consumer warps and loader warp on their
own, over executions of M, N, K and the program id, under three schedules, with every CTA's
mbarrier phases, the remote arrivals (`cta_mask`) on the other CTAs' barriers, the multicast B
copies landing in every CTA and the cluster barrier simulated. No refill of a slot -- in any CTA
-- may race with a consumer's reads of it, and no schedule may hang, for clusters of 2 and 4,
one tile a cluster or persistent. Then the ring is broken the ways a mistake would break it,
and the oracle must see each: every CTA releasing only its own slots (no cta_mask); the release
barriers counting one CTA's arrivals; the loader's waits for released slots deleted. The
multicast test kernel whose slots a cluster barrier releases (2 x 1 and 2 x 2 clusters) is
judged the same way, with and without its cluster barriers."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

import kiln.language as kl

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                ".."))
from examples import cluster_gemm  # noqa: E402

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


@pytest.fixture
def opt():
    if not os.path.exists(OPT):
        pytest.skip("kiln-opt is not built")


def _barriered(ctas, persistent, tmp_path, stages=2):
    """The cluster GEMM's IR after tile-insert-barriers: one CTA's program."""
    BM = BN = BK = 64
    la, lb, lc, acc = cluster_gemm.cluster_layouts(ctas, BM, BN, BK, num_warps=4)

    def desc(shape, layout):
        return kl.tensor_descriptor_type(kl.bfloat16, shape, layout)

    k = cluster_gemm.cluster_gemm_kernel.warmup(
        desc([ctas * BM, BK], la), desc([BN, BK], lb), desc([ctas * BM, BN], lc), 64, 64, 64,
        stages, 8, persistent, acc, num_warps=4, num_ctas=ctas, grid=(1,),
        target="cuda:sm_90a")
    src = tmp_path / f"cluster{ctas}_{int(persistent)}.mlir"
    src.write_text(k.asm["tile"])
    proc = subprocess.run([OPT, str(src), f"--pass-pipeline={_UP_TO_BARRIERS}", "-o", "-"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _oracle(text, ctas):
    proc = subprocess.run([OPT, "-", f"--test-barrier-oracle=ctas={ctas}", "-o", os.devnull,
                           "--mlir-print-op-on-diagnostic=false"], input=text,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    assert "barrier oracle:" in proc.stderr and "executions" in proc.stderr, proc.stderr
    return proc.stderr


def _mutate(text, pattern, repl, count=0):
    """`text` with `pattern` replaced; the mutation must change something."""
    out, n = re.subn(pattern, repl, text, count=count)
    assert n, pattern
    return out


CASES = [(2, False), (2, True), (4, False)]


@pytest.mark.parametrize("ctas,persistent", CASES)
def test_no_race_no_hang_across_the_cluster(opt, tmp_path, ctas, persistent):
    text = _barriered(ctas, persistent, tmp_path)
    # The kernel is what the oracle must judge: remote releases and multicast copies.
    assert f"cta_mask = {ctas - 1} : i32" in text
    assert re.search(r"async_tma_copy_global_to_local .* multicast %", text)
    assert "witnessed" not in _oracle(text, ctas)


def _empty_inits(ctas):
    """The release barriers' inits: those counting one arrival per CTA (the ready barriers
    count one)."""
    return rf"(tile_nv\.mbarrier_init %\w+), {ctas} :"


@pytest.mark.parametrize("ctas,persistent", CASES)
def test_releases_of_its_own_slots_only_are_a_race(opt, tmp_path, ctas, persistent):
    """Every CTA releasing only its own slots (each `empty` counting its own arrival): the CTA
    that issues the multicast refills the others' slots while their consumers may still read
    them. Played as one CTA, where the oracle takes every CTA to behave alike and a multicast
    to land locally, the same kernel looks right: that is what the cluster mode adds."""
    text = _barriered(ctas, persistent, tmp_path)
    local = _mutate(_mutate(text, r" \{cta_mask = \d+ : i32\}", ""), _empty_inits(ctas),
                    r"\1, 1 :")
    report = _oracle(local, ctas)
    assert re.search(r"witnessed \([^)]*write-after-read[^)]*\)\s*\n\s*tile_nv\."
                     r"async_tma_copy_global_to_local .* multicast", report), report
    assert "witnessed" not in _oracle(local, 1)


def test_a_release_barrier_counting_one_cta_is_a_race(opt, tmp_path):
    """`empty` counting one arrival a phase while both CTAs arrive on it (the count the
    target's structural check reports at the init): a phase completes on one CTA's release,
    and the multicast refill races with the other CTA's reads."""
    text = _barriered(2, False, tmp_path)
    report = _oracle(_mutate(text, _empty_inits(2), r"\1, 1 :"), 2)
    assert re.search(r"witnessed \([^)]*write-after-read[^)]*\)\s*\n\s*tile_nv\."
                     r"async_tma_copy_global_to_local .* multicast", report), report


def test_a_loader_that_does_not_wait_for_released_slots_races(opt, tmp_path):
    """The loader's waits on `empty` (each followed by its expect on `ready`) deleted: refills,
    its own CTA's and the multicast ones, race with the consumers' reads."""
    lines = _barriered(2, False, tmp_path).splitlines()
    drop = {i for i, ln in enumerate(lines) if "tile_nv.mbarrier_wait" in ln and
            any("tile_nv.mbarrier_expect" in x for x in lines[i + 1:i + 4])}
    assert drop
    report = _oracle("\n".join(ln for i, ln in enumerate(lines) if i not in drop), 2)
    assert re.search(r"witnessed \([^)]*write-after-read", report), report


@pytest.mark.parametrize("bits_m,bits_n", [(1, 0), (1, 1)])
def test_cluster_barrier_ring_across_the_cluster(opt, tmp_path, bits_m, bits_n):
    """tma_multicast_kernels.multicast_gemm: A's part shared along N and B's along M by
    multicast in a 2 x 1 or 2 x 2 cluster, every slot released by gl.barrier(cluster=True)
    after the wgmma. Played as its 2 or 4 CTAs: no race, no hang; with the cluster barriers
    gone, a CTA's multicast refills another's operand while that CTA's wgmma may still read
    it."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import tma_multicast_kernels as mk
    BM, BN, la, lb, acc, out = mk.gemm_layouts(bits_m, bits_n)
    ctas = 1 << (bits_m + bits_n)
    T = kl.tensor_descriptor_type
    k = mk.multicast_gemm.warmup(T(kl.float16, [BM, 64], la), T(kl.float16, [64, BN], lb),
                                 "*fp32", 256, 256, 256, MULTICAST=True, ACC=acc, OUT=out,
                                 num_warps=4, num_ctas=ctas, grid=(1,), target="cuda:sm_90a")
    src = tmp_path / f"mgemm{ctas}.mlir"
    src.write_text(k.asm["tile"])
    proc = subprocess.run([OPT, str(src), f"--pass-pipeline={_UP_TO_BARRIERS}", "-o", "-"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    assert "tile_nv.cluster_wait" in text and " multicast %" in text
    assert "witnessed" not in _oracle(text, ctas)
    bare = "\n".join(ln for ln in text.splitlines()
                     if "tile_nv.cluster_arrive" not in ln and "tile_nv.cluster_wait" not in ln)
    report = _oracle(bare, ctas)
    assert re.search(r"witnessed \([^)]*write-after-read[^)]*\)\s*\n\s*tile_nv\."
                     r"async_tma_copy_global_to_local .* multicast", report), report
