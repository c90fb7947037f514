"""``.reshape`` of a slot of a ring and of NVMMA buffers (Gluon's ``smem.index(i).reshape(...)``,
as FlagGems' FP8 BMM reads a [slots, 1, rows, cols] TMA ring as [rows, cols] wgmma operands).

The IR's ``tile.memdesc_reshape`` takes whole allocations in layouts whose reshape it knows;
the frontend emits these as ``tile.memdesc_reinterpret`` of the same bytes in the layout
``reshaped`` computes. Checked here: the emitted IR, that wgmma reads such a view, and that the
NVMMA layout ``reshaped`` returns maps every offset to the same element as the original
(C++'s F2-linear form of both, printed by ``kiln-opt --test-print-linear-layout``)."""

from __future__ import annotations

import ast
import itertools
import os
import re

import pytest

import kiln
import kiln.language as kl
from kiln.language.nvidia.hopper import fence_async_shared, warpgroup_mma

import compiled
import located
from remarks import KILN_OPT, remarks_by_line

pytestmark = compiled.needs_compiler

NV3 = kl.NVMMASharedLayout(128, 16, rank=3)
ACC = kl.NVMMADistributedLayout([3, 0], [4, 1], [16, 64, 16])
L = kl.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])
RM = kl.SwizzledSharedLayout(1, 1, 1, [1, 0])


@kiln.jit
def slot_as_wgmma_operand(a_ptr, out_ptr):
    ring = kl.allocate_shared_memory(kl.float16, [2, 1, 64, 64], NV3)
    r = kl.arange(0, 64, kl.SliceLayout(1, L))[:, None] * 64 + \
        kl.arange(0, 64, kl.SliceLayout(0, L))[None, :]
    a = ring.index(1).reshape([64, 64])
    a.store(kl.load(a_ptr + r))
    fence_async_shared()
    acc = warpgroup_mma(a, a.permute([1, 0]), kl.zeros([64, 64], kl.float32, ACC))
    kl.store(out_ptr + r, kl.convert_layout(acc, L))


@kiln.jit
def whole_nvmma_and_row_major_slot(x_ptr, out_ptr):
    # A whole rank-3 NVMMA buffer seen as rank 2, and a slot of a row-major ring flattened.
    buf = kl.allocate_shared_memory(kl.float16, [1, 64, 64], NV3)
    r = kl.arange(0, 64, kl.SliceLayout(1, L))[:, None] * 64 + \
        kl.arange(0, 64, kl.SliceLayout(0, L))[None, :]
    flat2 = buf.reshape([64, 64])
    flat2.store(kl.load(x_ptr + r))
    ring = kl.allocate_shared_memory(kl.float16, [2, 64, 64], RM)
    ring.index(0).store(flat2.load(L))
    one: kl.constexpr = kl.BlockedLayout([8], [32], [4], [0])
    flat = ring.index(0).reshape([4096])
    kl.store(out_ptr + kl.arange(0, 4096, one), flat.load(one))


def _views(k):
    return [l.strip() for l in k.asm["tile"].splitlines()
            if "memdesc_reinterpret" in l or "memdesc_reshape" in l]


def test_a_slot_reshaped_is_a_reinterpret_that_wgmma_reads():
    k = kiln.compile(slot_as_wgmma_operand, {"a_ptr": "*fp16", "out_ptr": "*fp32"}, {},
                     target="cuda:sm_90a", cache=False)
    (view,) = _views(k)
    assert view.split(" = ")[1].startswith("tile.memdesc_reinterpret"), view
    src, dst = view.split(" : ")[1].split(" loc(")[0].split(" -> ")
    assert src.startswith("!tile.memdesc<1x64x64xf16") and "layoutRank = 3" in src \
        and src.rstrip().endswith("mutable, 2x1x64x64>"), src
    assert dst.startswith("!tile.memdesc<64x64xf16") and "layoutRank = 2" in dst \
        and "swizzle = 128" in dst and dst.rstrip().endswith("mutable>"), dst
    assert k.asm["ptx"].count("wgmma.mma_async") == 4  # 64 / 16 k-steps


def test_whole_nvmma_buffer_and_row_major_slot_reshape():
    k = kiln.compile(whole_nvmma_and_row_major_slot, {"x_ptr": "*fp16", "out_ptr": "*fp16"},
                     {}, target="cuda:sm_90a", cache=False)
    views = _views(k)
    assert len(views) == 2, views
    # NVMMA has no reshape in the IR; the row-major slot is a view: both reinterprets.
    assert all(v.split(" = ")[1].startswith("tile.memdesc_reinterpret") for v in views), views
    assert any("mutable, 2x64x64> -> !tile.memdesc<4096xf16," in v for v in views), views


@kiln.jit
def reshape_part(x):
    kl.allocate_shared_memory(kl.float32, [4, 32], RM).slice(0, 16, dim=1).reshape([64])  # E:p


@kiln.jit
def reshape_merges_rows(x):
    kl.allocate_shared_memory(kl.float16, [2, 64, 64], NV3).reshape([128, 64])  # E:m


@pytest.mark.parametrize("fn,marker,message", [
    (reshape_part, "E:p", r"reshape: .* is a part of a buffer; only whole buffers and slots "
                          r"of a ring can be reshaped"),
])
def test_reshapes_that_are_not_the_same_bytes_are_errors(fn, marker, message):
    from kiln import compiler as compiler_mod
    with pytest.raises(kiln.CompilationError) as ei:
        compiler_mod.make_ir(fn, {"x": "*fp32"}, target="cuda:sm_90a")
    located.assert_located(ei.value, os.path.abspath(__file__), marker,
                           "kl.allocate_shared_memory", message, kiln.CompilationError)


def test_merging_rows_of_an_nvmma_ring_is_a_linear_view():
    # Not NVMMA bytes under the new shape (a row holds one 128-byte chunk, the slot's offsets
    # come after the rows'): a linear view of the same bytes, as Gluon makes it.
    from kiln import _compiler
    from kiln import compiler as compiler_mod
    ir = compiler_mod.make_ir(reshape_merges_rows, {"x": "*fp32"}, target="cuda:sm_90a")
    assert "tile.memdesc_reinterpret" in ir and "#tile.shared_linear" in ir
    base = _compiler.linear_layout(NV3.to_ir(), [2, 64, 64], 16)[0]
    view = kl.SharedLinearLayout(base).reshaped([2, 64, 64], [128, 64])
    for k, (b, v) in enumerate(zip(base, view.offset_bases)):
        assert [b[0] * 64 + b[1], b[2]] == v, (k, b, v)


@pytest.mark.skipif(not os.path.exists(KILN_OPT), reason="kiln-opt not built")
def test_nvmma_reshaped_layout_maps_every_offset_to_the_same_element():
    cases = []
    for swizzle, bits, transposed, (lead, new_lead), (rows, cols) in itertools.product(
            (0, 32, 64, 128), (8, 16), (False, True), (((1,), ()), ((), (1,)), ((1, 2), (2,)),
                                                       ((2,), (1, 2))),
            ((128, 128), (256, 128), (128, 512))):
        layout = kl.NVMMASharedLayout(swizzle, bits, len(lead) + 2, transposed)
        shape, new_shape = list(lead) + [rows, cols], list(new_lead) + [rows, cols]
        new = layout.reshaped(shape, new_shape)
        assert new is not None and new.rank == len(new_shape), (layout, shape, new_shape)
        cases.append((layout, shape, new, new_shape))
    # Merging a leading dimension into the rows is different bytes once a row holds more
    # than one swizzle chunk (the leading dimensions' offsets come after the chunks').
    assert kl.NVMMASharedLayout(128, 16, 3).reshaped([2, 64, 128], [128, 128]) is None
    assert kl.NVMMASharedLayout(128, 16, 2).reshaped([64, 128], [64, 2, 64]) is None

    def ty(layout, shape, e):
        return (f"!tile.memdesc<{'x'.join(map(str, shape))}x{e}, {layout.to_ir()}>")
    lines = ["module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {"]
    for i, (layout, shape, new, new_shape) in enumerate(cases):
        e = {8: "i8", 16: "f16"}[layout.element_bitwidth]
        lines.append(f"func.func @f{i}(%a: {ty(layout, shape, e)}) {{ return }}")
        lines.append(f"func.func @g{i}(%a: {ty(new, new_shape, e)}) {{ return }}")
    lines.append("}")
    got = remarks_by_line("\n".join(lines) + "\n", "test-print-linear-layout")
    for i, (layout, shape, new, new_shape) in enumerate(cases):
        maps = []
        for line in (2 * i + 2, 2 * i + 3):
            remark = got.get(line)
            assert remark is not None, (i, line)
            maps.append(ast.literal_eval(re.search(r"register = (\[.*?\]), lane",
                                                 remark).group(1)))
        # Both maps are F2-linear: equal on every offset when equal on each offset bit.
        keep = [d for d, n in enumerate(shape) if n != 1]
        keep_new = [d for d, n in enumerate(new_shape) if n != 1]
        assert len(maps[0]) == len(maps[1]) == sum(n.bit_length() - 1 for n in shape)
        for bit, (a, b) in enumerate(zip(*maps)):
            assert [a[d] for d in keep] == [b[d] for d in keep_new], \
                (layout, shape, new_shape, bit, a, b)
    # Not vacuous: swizzled layouts, whose bases move columns with the rows.
    assert any(c[0].swizzle_byte_width == 128 for c in cases)
