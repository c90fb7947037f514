"""A shared linear layout whose block bases move elements between a cluster's CTAs by other than
whole parts (Gluon allows it: e.g. rows 0 and 3 in one CTA, rows 1 and 2 in the other). Each CTA's
part is then no box of the buffer: Kiln keeps it as one flat run of elements per CTA and reaches
every element through the layout's inverse (mapa + ld / st.shared::cluster). The inverse is
checked here against the layout's forward map by brute force over every element."""

from __future__ import annotations

import itertools
import os
import sys

import pytest

import kiln
import kiln.language as kl

import compiled
import located

pytestmark = compiled.needs_compiler
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gpu"))
from cluster_split_kernels import SCATTERED, slice_of_peers, split_rows, whole  # noqa: E402


def _forward(layout, offset, block):
    """The element (coordinates) that offset ``offset`` of CTA ``block`` holds."""
    coords = [0] * layout.rank
    for k, basis in enumerate(layout.offset_bases):
        if offset >> k & 1:
            coords = [c ^ b for c, b in zip(coords, basis)]
    for r, basis in enumerate(layout.block_bases):
        if block >> r & 1:
            coords = [c ^ b for c, b in zip(coords, basis)]
    return tuple(coords)


@pytest.mark.parametrize("name", sorted(SCATTERED))
def test_inverse_against_the_forward_map(name):
    layout = SCATTERED[name]
    assert layout.scattered
    inverse = layout.scattered_map()
    moving = sum(1 << r for r, b in enumerate(layout.block_bases) if any(b))
    seen = set()
    for offset in range(1 << len(layout.offset_bases)):
        for block in range(1 << len(layout.block_bases)):
            coords = _forward(layout, offset, block)
            assert all(0 <= c < n for c, n in zip(coords, layout.shape))
            got_offset, got_rank = 0, 0
            for d, c in enumerate(coords):
                for i, (o, r) in enumerate(inverse[d]):
                    if c >> i & 1:
                        got_offset ^= o
                        got_rank ^= r
            assert got_offset == offset and got_rank == block & moving, (coords, offset, block)
            seen.add(coords)
    # Every element of the buffer is somewhere.
    assert len(seen) == len(list(itertools.product(*[range(n) for n in layout.shape])))


def test_a_box_layout_is_not_scattered():
    box = kl.SharedLinearLayout([[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0]],
                                block_bases=[[2, 0]])
    assert not box.scattered and box.cga_split == (2, 1)


def test_bases_that_miss_elements_are_refused():
    with pytest.raises(ValueError, match="must reach every element"):
        kl.SharedLinearLayout([[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [3, 0]],
                              block_bases=[[3, 0]])


def _compile(smem, num_ctas, op="load", rows=4, start=2, length=2, target="cuda:sm_90a"):
    alloc = kl.BlockedLayout([1, 1], [1, 32], [1, 4], [1, 0], cga_layout=split_rows(num_ctas))
    tile = kl.BlockedLayout([1, 1], [1, 32], [1, 4], [1, 0], cga_layout=whole(num_ctas))
    return kiln.compile(
        slice_of_peers, {"inp": "*i32", "values": "*i32", "result": "*i32", "final": "*i32"},
        {"OP": op, "ROWS": rows, "COLS": 32, "START": start, "LEN": length, "ALLOC": alloc,
         "TILE": tile, "SMEM": smem, "TILE_ROWS": alloc,
         "PLAIN": kl.SwizzledSharedLayout(1, 1, 1, [1, 0], cga_layout=whole(num_ctas))},
        target=target, num_warps=4, num_ctas=num_ctas, cache=False)


@pytest.mark.parametrize("op", ["load", "store", "gather", "scatter", "atomic"])
def test_scattered_parts_compile_to_peer_accesses(op):
    k = _compile(SCATTERED["rows_0_3"], 2, op)
    ptx = k.asm["ptx"]
    assert "mapa.shared::cluster" in ptx
    assert "ld.shared::cluster" in ptx  # the final read of the whole buffer at least
    if op in ("store", "scatter"):
        assert "st.shared::cluster" in ptx
    # One CTA's part: 64 int32 (a flat run), not the 4 x 32 box the offset bases span.
    assert "tile.local_alloc" in k.asm["tile"] and "memdesc<1x64xi32" in k.asm["tile"]


HERE = os.path.abspath(__file__)
KERNELS = os.path.abspath(os.path.join(os.path.dirname(HERE), "..", "gpu",
                                       "cluster_split_kernels.py"))


@kiln.jit
def _index_a_scattered_buffer(out, SMEM: kl.constexpr):
    smem = kl.allocate_shared_memory(kl.int32, [4, 32], SMEM)
    smem.index(1)  # E:index


@kiln.jit
def _permute_a_scattered_buffer(out, SMEM: kl.constexpr):
    smem = kl.allocate_shared_memory(kl.int32, [4, 32], SMEM)
    smem.permute((1, 0))  # E:permute


@kiln.jit
def _ring_of_scattered_buffers(out, SMEM: kl.constexpr):
    kl.allocate_shared_memory(kl.int32, [2, 4, 32], SMEM)  # E:ring


@pytest.mark.parametrize("fn,marker,anchor,message", [
    (_index_a_scattered_buffer, "E:index", "smem.index",
     r".*index: .* has no leading dimension to index .*use slice"),
    (_permute_a_scattered_buffer, "E:permute", "smem.permute",
     r".*permute of a view of a buffer split among the CTAs of a cluster .*"),
    (_ring_of_scattered_buffers, "E:ring", "kl.allocate_shared_memory",
     r".*ring slots of such a buffer are not supported"),
])
def test_what_such_a_buffer_refuses_is_an_error_at_the_line(fn, marker, anchor, message):
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(fn, {"out": "*i32"}, {"SMEM": SCATTERED["rows_0_3"]},
                     target="cuda:sm_90a", num_warps=4, num_ctas=2, cache=False)
    located.assert_located(ei.value, HERE, marker, anchor, message, kiln.CompilationError)


@kiln.jit
def _allocate_scattered(out, SMEM: kl.constexpr):
    kl.allocate_shared_memory(kl.int32, [4, 32], SMEM)  # E:amd


def test_a_target_without_distributed_shared_memory_refuses_it():
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(_allocate_scattered, {"out": "*i32"},
                     {"SMEM": SCATTERED["rows_0_3"]}, target="hip:gfx950", num_warps=4,
                     num_ctas=2, cache=False)
    located.assert_located(ei.value, HERE, "E:amd", "kl.allocate_shared_memory",
                           r".*places elements in other CTAs' parts by element; hip:gfx950 "
                           r"cannot reach other CTAs' shared memory", kiln.CompilationError)


@pytest.mark.parametrize("name", ["with_copies", "zero_basis"])
def test_atomics_where_the_buffer_has_copies(name):
    # Each CTA acts on its own copy: fine where the values repeat along the copies' rank bit
    # (every copy gets the same atomics), an error where they are split there.
    smem = SCATTERED["with_copies"] if name == "with_copies" else kl.SwizzledSharedLayout(
        1, 1, 1, [1, 0], cga_layout=[[1, 0], [0, 0]])
    alloc = kl.BlockedLayout([1, 1], [1, 32], [1, 4], [1, 0], cga_layout=split_rows(4))
    for tile_bases, ok in ((whole(4), True), (split_rows(4), False)):
        tile = kl.BlockedLayout([1, 1], [1, 32], [1, 4], [1, 0], cga_layout=tile_bases)
        args = ({"inp": "*i32", "values": "*i32", "result": "*i32", "final": "*i32"},
                {"OP": "atomic", "ROWS": 4, "COLS": 32, "START": 0, "LEN": 4, "ALLOC": alloc,
                 "TILE": tile, "SMEM": smem, "TILE_ROWS": alloc,
                 "PLAIN": kl.SwizzledSharedLayout(1, 1, 1, [1, 0], cga_layout=tile_bases)})
        if ok:
            ptx = kiln.compile(slice_of_peers, *args, target="cuda:sm_90a", num_warps=4,
                               num_ctas=4, cache=False).asm["ptx"]
            assert "atom.shared::cluster" in ptx
        else:
            with pytest.raises(kiln.CompilationError) as ei:
                kiln.compile(slice_of_peers, *args, target="cuda:sm_90a", num_warps=4,
                             num_ctas=4, cache=False)
            located.assert_located(
                ei.value, KERNELS, "E:atomic", "view.atomic_scatter_add",
                r"atomic_scatter_add: the buffer is held in copies by the CTAs that differ in "
                r"rank bits 0x2 .* but the values' layout splits them there.*",
                kiln.CompilationError)
