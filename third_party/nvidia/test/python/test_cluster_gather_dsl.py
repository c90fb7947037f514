"""gather from and scatter into a buffer that the CTAs of a cluster split (third_party/nvidia/
test/gpu/cluster_gather_kernels.py): they compile to mapa + ld / st.shared::cluster with a
cluster barrier before the kernel ends (no CTA may leave while another accesses its shared
memory); atomics too (tile_nv.cluster_atomic_rmw, masks included)."""

from __future__ import annotations

import os
import sys

import pytest

import kiln
import kiln.language as kl

import compiled
import located

HERE = os.path.abspath(__file__)

pytestmark = compiled.needs_compiler
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gpu"))
from cluster_gather_kernels import layouts, rotate_through_peers, scatter_through_peers  # noqa: E402,E501


@pytest.mark.parametrize("num_ctas", [2, 4, 8])
def test_gather_from_peers_compiles(num_ctas):
    L, S = layouts(num_ctas)
    k = kiln.compile(rotate_through_peers, {"out": "*i32"},
                     {"SHIFT": 45, "TILE": 32, "L": L, "S": S}, target="cuda:sm_90a",
                     num_warps=1, num_ctas=num_ctas, cache=False)
    ptx = k.asm["ptx"]
    assert "mapa.shared::cluster" in ptx
    assert "ld.shared::cluster" in ptx
    # The seed's barrier, and the one before the end.
    assert ptx.count("barrier.cluster.wait") == 2


@pytest.mark.parametrize("num_ctas", [2, 4])
def test_scatter_to_peers_compiles(num_ctas):
    L, S = layouts(num_ctas)
    k = kiln.compile(scatter_through_peers, {"out": "*i32"},
                     {"SHIFT": 45, "TILE": 32, "L": L, "S": S}, target="cuda:sm_90a",
                     num_warps=1, num_ctas=num_ctas, cache=False)
    ptx = k.asm["ptx"]
    assert "mapa.shared::cluster" in ptx
    assert "st.shared::cluster" in ptx


@kiln.jit
def atomics_to_peers(out, L: kl.constexpr, S: kl.constexpr, MASKED: kl.constexpr):
    offsets = kl.arange(0, 64, layout=L)
    smem = kl.allocate_shared_memory(kl.int32, [64], S)
    if MASKED:
        smem.atomic_scatter_add(offsets, offsets, axis=0, mask=offsets < 7)
    else:
        old = smem.atomic_scatter_max(offsets, 63 - offsets, axis=0)
        kl.store(out + offsets, old)
        smem.atomic_scatter_or(offsets, offsets, axis=0)


def test_atomics_into_peers_compile():
    L, S = layouts(2)
    k = kiln.compile(atomics_to_peers, {"out": "*i32"}, {"L": L, "S": S, "MASKED": False},
                     target="cuda:sm_90a", num_warps=1, num_ctas=2, cache=False)
    ptx = k.asm["ptx"]
    assert "atom.shared::cluster.cluster.relaxed.max.s32" in ptx  # old values used
    assert "red.shared::cluster.cluster.relaxed.or.b32" in ptx  # not used


def test_masked_atomics_into_peers_compile():
    L, S = layouts(2)
    k = kiln.compile(atomics_to_peers, {"out": "*i32"}, {"L": L, "S": S, "MASKED": True},
                     target="cuda:sm_90a", num_warps=1, num_ctas=2, cache=False)
    assert "mask(" in k.asm["tile"]  # the mask reaches tile_nv.cluster_atomic_rmw
    assert "red.shared::cluster.cluster.relaxed.add.u32" in k.asm["ptx"]


@kiln.jit
def gather_across_the_split(out, L: kl.constexpr, S: kl.constexpr):
    rows = kl.arange(0, 64, layout=kl.SliceLayout(1, L))[:, None]
    cols = kl.arange(0, 32, layout=kl.SliceLayout(0, L))[None, :]
    smem = kl.allocate_shared_memory(kl.int32, [64, 32], S, rows * 32 + cols)
    kl.store(out + rows * 32 + cols, smem.gather(31 - cols + rows * 0, axis=1))


def test_a_gather_along_another_dimension_than_the_split_gives_every_coordinate():
    # Buffer and indices split by rows, gathered along columns: tile_nv.cluster_load with
    # both coordinates (the axis-only form, cluster_gather, does not fit).
    L = kl.BlockedLayout([1, 1], [1, 32], [1, 1], [1, 0], cga_layout=[[1, 0]])
    S = kl.SwizzledSharedLayout(1, 1, 1, [1, 0], cga_layout=[[1, 0]])
    k = kiln.compile(gather_across_the_split, {"out": "*i32"}, {"L": L, "S": S},
                     target="cuda:sm_90a", num_warps=1, num_ctas=2, cache=False)
    assert "tile_nv.cluster_load" in k.asm["tile"]
    assert "tile_nv.cluster_gather" not in k.asm["tile"]


@kiln.jit
def buffer_smaller_than_its_split(out, S: kl.constexpr):
    smem = kl.allocate_shared_memory(kl.int32, [1, 64], S)  # E:small-split
    kl.store(out, smem.index(0).load(kl.BlockedLayout([2], [32], [1], [0])).sum(0))


def test_a_buffer_smaller_than_its_split_is_an_error_at_the_allocation():
    """A descriptor's block may be smaller than its CTA split (each CTA then holds all of
    it, as Gluon); a buffer is split into equal parts, so this one cannot be."""
    S = kl.SwizzledSharedLayout(1, 1, 1, [1, 0], cga_layout=[[1, 0], [2, 0]])
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(buffer_smaller_than_its_split, {"out": "*i32"}, {"S": S},
                     target="cuda:sm_90a", num_warps=1, num_ctas=4, cache=False)
    located.assert_located(
        ei.value, HERE, "E:small-split", "kl.allocate_shared_memory",
        r".*dimension 0 of size 1 cannot be split among 4 CTAs; a buffer is split into equal "
        r"parts \(a TMA descriptor's block may be smaller than its split: each CTA then holds "
        r"all of it\)", kiln.CompilationError)


@kiln.jit
def gather_from_a_whole_buffer(out, L: kl.constexpr, S: kl.constexpr):
    whole = kl.arange(0, 64, layout=kl.BlockedLayout([2], [32], [1], [0]))
    smem = kl.allocate_shared_memory(kl.int32, [64], S, whole)
    offsets = kl.arange(0, 64, layout=L)
    kl.store(out + offsets, smem.gather(63 - offsets, axis=0))


def test_split_indices_into_a_whole_buffer_read_the_own_copy():
    """Indices split among the CTAs, the buffer not (each CTA holds all of it): every rank bit
    is the reader's own, so each CTA reads its own copy."""
    L, _ = layouts(2)
    k = kiln.compile(gather_from_a_whole_buffer, {"out": "*i32"},
                     {"L": L, "S": kl.SwizzledSharedLayout(1, 1, 1, [0])}, target="cuda:sm_90a",
                     num_warps=1, num_ctas=2, cache=False)
    assert "keep = 15 : i32" in k.asm["tile"]
