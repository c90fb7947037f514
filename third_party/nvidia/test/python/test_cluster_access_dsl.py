"""Dots whose accumulator a cluster splits, and loads and stores that reach other CTAs' parts of a cluster-split buffer
(third_party/nvidia/test/gpu/cluster_split_kernels.py) compile to mapa + ld / st.shared::cluster
(tile_nv.cluster_load / cluster_store); a view sliced along a split dimension is a
kiln.language.cluster_view, and a use it does not support is an error at the user's line."""

from __future__ import annotations

import os
import sys

import pytest

import kiln
import kiln.language as kl
from kiln.language.nvidia.ampere import async_copy

import compiled
import located

HERE = os.path.abspath(__file__)

pytestmark = compiled.needs_compiler
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gpu"))
from cluster_split_kernels import (dot_parent, fill_every_copy, slice_of_peers,  # noqa: E402
                                   split_cols, split_dot, split_rows,
                                   transpose_through_peers, whole)


def _compile(fn, sig, consts, num_ctas, **kw):
    return kiln.compile(fn, sig, consts, target="cuda:sm_90a", num_warps=4,
                        num_ctas=num_ctas, cache=False, **kw)


@pytest.mark.parametrize("num_ctas", [2, 4])
def test_transpose_through_peers_compiles(num_ctas):
    src = kl.BlockedLayout([1, 16], [32, 1], [1, 4], [0, 1], cga_layout=split_rows(num_ctas))
    dst = kl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0], cga_layout=split_cols(num_ctas))
    smem = kl.SwizzledSharedLayout(1, 1, 1, [1, 0], cga_layout=split_rows(num_ctas))
    k = _compile(transpose_through_peers, {"inp": "*fp32", "out": "*fp32"},
                 {"M": 256, "N": 64, "SRC": src, "DST": dst, "SMEM": smem}, num_ctas)
    ptx = k.asm["ptx"]
    assert "mapa.shared::cluster" in ptx
    assert "st.shared::cluster" in ptx and "ld.shared::cluster" in ptx


@pytest.mark.parametrize("op,instr", [("load", "ld.shared::cluster"),
                                      ("gather", "ld.shared::cluster"),
                                      ("store", "st.shared::cluster"),
                                      ("scatter", "st.shared::cluster")])
def test_slices_across_the_split_reach_peers(op, instr):
    alloc = kl.BlockedLayout([1, 1], [1, 32], [1, 4], [1, 0], cga_layout=split_rows(2))
    tile = kl.BlockedLayout([1, 1], [1, 32], [1, 4], [1, 0], cga_layout=whole(2))
    smem = kl.SwizzledSharedLayout(1, 1, 1, [1, 0], cga_layout=split_rows(2))
    k = _compile(slice_of_peers, {"inp": "*i32", "values": "*i32", "result": "*i32",
                                  "final": "*i32"},
                 {"OP": op, "ROWS": 4, "COLS": 32, "START": 2, "LEN": 2, "ALLOC": alloc,
                  "TILE": tile, "SMEM": smem, "TILE_ROWS": alloc,
                  "PLAIN": kl.SwizzledSharedLayout(1, 1, 1, [1, 0])}, 2)
    assert instr in k.asm["ptx"]
    assert "mapa.shared::cluster" in k.asm["ptx"]


@kiln.jit
def probe_views(out, S: kl.constexpr):
    smem = kl.allocate_shared_memory(kl.int32, [4, 32], S)
    rows = smem.slice(2, 2, dim=0)
    kl.static_assert(isinstance(rows, kl.cluster_view) and rows.offsets == (2, 0))
    cols = smem.slice(0, 16, dim=1)  # columns: in every CTA's part, an IR view
    kl.static_assert(not isinstance(cols, kl.cluster_view))
    both = smem.slice(2, 2, dim=0).slice(16, 16, dim=1)
    kl.static_assert(isinstance(both, kl.cluster_view) and both.offsets == (2, 16))
    kl.static_assert(both.shape[0] == 2 and both.shape[1] == 16)


def test_a_view_across_the_split_is_a_cluster_view():
    S = kl.SwizzledSharedLayout(1, 1, 1, [1, 0], cga_layout=split_rows(2))
    _compile(probe_views, {"out": "*i32"}, {"S": S}, 2)


@kiln.jit
def permute_a_view(out, S: kl.constexpr):
    smem = kl.allocate_shared_memory(kl.int32, [4, 32], S)
    smem.slice(2, 2, dim=0).permute([1, 0])  # E:permute-view


def test_other_uses_of_a_cluster_view_are_errors():
    S = kl.SwizzledSharedLayout(1, 1, 1, [1, 0], cga_layout=split_rows(2))
    with pytest.raises(kiln.CompilationError) as ei:
        _compile(permute_a_view, {"out": "*i32"}, {"S": S}, 2)
    located.assert_located(
        ei.value, HERE, "E:permute-view", "smem.slice(2, 2, dim=0).permute",
        r"NotImplementedError: permute of a view of a buffer split among the CTAs of a "
        r"cluster that crosses the split \(sliced along a split dimension\) is not "
        r"supported; such a view supports load, store, gather, scatter, atomic_scatter_\*, "
        r"slice, index",
        kiln.CompilationError)


@pytest.mark.parametrize("mma", [False, True])
@pytest.mark.parametrize("bases", [[[1, 0]], [[0, 1]], [[1, 0], [0, 1]], [[0, 0]]])
def test_dots_split_among_a_cluster_compile(mma, bases):
    """A dot operand's split is its accumulator's with K unsplit (an N split repeats A, an M
    split repeats B): each CTA multiplies whole rows by whole columns."""
    P = dot_parent(mma, bases)
    assert kl.DotOperandLayout(0, P, 2).cga_bases == tuple((b[0], 0) for b in map(tuple, bases))
    assert kl.DotOperandLayout(1, P, 2).cga_bases == tuple((0, b[1]) for b in map(tuple, bases))
    dt = "*fp16" if mma else "*fp32"
    k = _compile(split_dot, {"a": dt, "b": dt, "c": "*fp32"},
                 {"M": 128, "N": 64, "K": 32, "P": P, "K_WIDTH": 2 if mma else 0, "MMA": mma},
                 1 << len(bases))
    assert ("mma.sync" in k.asm["ptx"]) == mma


def _slice_consts(op, tile_bases):
    alloc = kl.BlockedLayout([1, 1], [1, 32], [1, 4], [1, 0], cga_layout=split_rows(2))
    tile = kl.BlockedLayout([1, 1], [1, 32], [1, 4], [1, 0], cga_layout=tile_bases)
    smem = kl.SwizzledSharedLayout(1, 1, 1, [1, 0], cga_layout=split_rows(2))
    return {"OP": op, "ROWS": 4, "COLS": 32, "START": 2, "LEN": 2, "ALLOC": alloc,
            "TILE": tile, "SMEM": smem, "TILE_ROWS": alloc,
            "PLAIN": kl.SwizzledSharedLayout(1, 1, 1, [1, 0])}


SLICE_SIG = {"inp": "*i32", "values": "*i32", "result": "*i32", "final": "*i32"}


def test_atomics_on_a_view_across_the_split():
    # Each element in one CTA (the tile split by rows): old values returned (atom), an add of
    # ones whose old values nobody reads is red.inc; an unused xor is red.
    k = _compile(slice_of_peers, SLICE_SIG, _slice_consts("atomic", split_rows(2)), 2)
    ptx = k.asm["ptx"]
    assert "atom.shared::cluster.cluster.relaxed.add.u32" in ptx
    assert "red.shared::cluster.cluster.relaxed.inc.u32" in ptx
    k = _compile(slice_of_peers, SLICE_SIG, _slice_consts("xor", whole(2)), 2)
    assert "red.shared::cluster.cluster.relaxed.xor.b32" in k.asm["ptx"]


def test_old_values_of_elements_every_cta_holds_pass_between_the_ctas():
    # One CTA acts (the other's mask is off); its old values reach the other through its
    # shared memory between two cluster barriers.
    k = _compile(slice_of_peers, SLICE_SIG, _slice_consts("atomic", whole(2)), 2)
    ptx = k.asm["ptx"]
    assert "atom.shared::cluster.cluster.relaxed.add.u32" in ptx
    assert ptx.count("barrier.cluster.wait") >= 4  # the user's two, the broadcast's two


@pytest.mark.parametrize("num_ctas", [2, 4])
def test_a_store_into_a_repeated_buffer_reaches_every_copy(num_ctas):
    # The buffer repeats every rank bit the tensor splits: one cluster_store per copy.
    src = kl.BlockedLayout([1, 1], [1, 32], [4, 1], [1, 0], cga_layout=split_rows(num_ctas))
    dst = kl.BlockedLayout([1, 1], [2, 16], [4, 1], [1, 0], cga_layout=split_cols(num_ctas))
    smem = kl.SwizzledSharedLayout(1, 1, 1, [1, 0], cga_layout=whole(num_ctas))
    k = _compile(fill_every_copy, {"inp": "*i32", "out": "*i32"},
                 {"ROWS": 32, "COLS": 64, "SRC": src, "DST": dst, "SMEM": smem}, num_ctas)
    assert k.asm["tile"].count("tile_nv.cluster_store") == num_ctas


def test_block_bases_that_move_by_whole_parts_reach_peers():
    # A shared linear layout split by block bases (Gluon's form of a cga split): a tensor
    # split the other way stores into the other CTAs' parts.
    offsets = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 0], [4, 0], [8, 0],
               [16, 0]]
    smem = kl.SharedLinearLayout(offset_bases=offsets, block_bases=[[32, 0]])
    src = kl.BlockedLayout([1, 1], [1, 32], [4, 1], [1, 0], cga_layout=split_cols(2))
    dst = kl.BlockedLayout([1, 1], [1, 32], [4, 1], [1, 0], cga_layout=split_rows(2))
    k = _compile(fill_every_copy, {"inp": "*i32", "out": "*i32"},
                 {"ROWS": 64, "COLS": 32, "SRC": src, "DST": dst, "SMEM": smem}, 2)
    assert "tile_nv.cluster_store" in k.asm["tile"]
    assert "st.shared::cluster" in k.asm["ptx"]


@kiln.jit
def async_copy_into_a_view(x, S: kl.constexpr, L: kl.constexpr):
    smem = kl.allocate_shared_memory(kl.int32, [4, 32], S)
    r = kl.arange(0, 2, layout=kl.SliceLayout(1, L))[:, None]
    c = kl.arange(0, 32, layout=kl.SliceLayout(0, L))[None, :]
    async_copy.async_copy_global_to_shared(smem.slice(2, 2, dim=0), x + r * 32 + c)  # E:copy


def test_an_op_without_a_cluster_path_refuses_a_cluster_view_at_the_line():
    S = kl.SwizzledSharedLayout(1, 1, 1, [1, 0], cga_layout=split_rows(2))
    L = kl.BlockedLayout([1, 1], [1, 32], [4, 1], [1, 0], cga_layout=whole(2))
    with pytest.raises(kiln.CompilationError) as ei:
        _compile(async_copy_into_a_view, {"x": "*i32"}, {"S": S, "L": L}, 2)
    located.assert_located(
        ei.value, HERE, "E:copy", "async_copy.async_copy_global_to_shared",
        r"NotImplementedError: this use of a view of a buffer split among the CTAs of a "
        r"cluster that crosses the split .*", kiln.CompilationError)


@kiln.jit
def auto_load_of_a_view(out, S: kl.constexpr):
    smem = kl.allocate_shared_memory(kl.int32, [4, 32], S)
    smem.slice(2, 2, dim=0).load(kl.AutoLayout())  # E:auto-view


@kiln.jit
def view_through_an_if(out, S: kl.constexpr, L: kl.constexpr, FLAG):
    smem = kl.allocate_shared_memory(kl.int32, [4, 32], S)
    view = smem.slice(2, 2, dim=0)
    if FLAG > 0:  # E:carried
        view = smem.slice(0, 2, dim=0)
    view.load(L)


@kiln.jit
def ring_of_split_buffers(out, S: kl.constexpr, L: kl.constexpr):
    smem = kl.allocate_shared_memory(kl.int32, [2, 4, 32], S)
    smem.slice(2, 2, dim=1).load(L)  # E:ring


def test_cluster_view_errors_point_at_the_line():
    S = kl.SwizzledSharedLayout(1, 1, 1, [1, 0], cga_layout=split_rows(2))
    L = kl.BlockedLayout([1, 1], [1, 32], [4, 1], [1, 0], cga_layout=whole(2))
    with pytest.raises(kiln.CompilationError) as ei:
        _compile(auto_load_of_a_view, {"out": "*i32"}, {"S": S}, 2)
    located.assert_located(
        ei.value, HERE, "E:auto-view", "smem.slice(2, 2, dim=0).load",
        r"load from shared memory: a view crossing the cluster's split needs a concrete "
        r"layout", kiln.CompilationError)
    with pytest.raises(kiln.CompilationError) as ei:
        _compile(view_through_an_if, {"out": "*i32", "FLAG": "i32"}, {"S": S, "L": L}, 2)
    located.assert_located(
        ei.value, HERE, "E:carried", "if FLAG > 0",
        r".*a view of a buffer split among the CTAs of a cluster that crosses the split "
        r"\(sliced along a split dimension\) cannot be passed on or carried.*",
        kiln.CompilationError)


def test_a_ring_of_split_buffers_needs_a_slot_first():
    S = kl.SwizzledSharedLayout(1, 1, 1, [1, 0], cga_layout=split_rows(2))
    L = kl.BlockedLayout([1, 1, 1], [1, 1, 32], [1, 4, 1], [2, 1, 0], cga_layout=whole(2, 3))
    with pytest.raises(kiln.CompilationError) as ei:
        _compile(ring_of_split_buffers, {"out": "*i32"}, {"S": S, "L": L}, 2)
    located.assert_located(
        ei.value, HERE, "E:ring", "smem.slice(2, 2, dim=1).load",
        r"load from shared memory: .* has leading ring dimensions; index a slot first "
        r"\(\.index\(i\)\)", kiln.CompilationError)
