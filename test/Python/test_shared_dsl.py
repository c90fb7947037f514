"""The DSL's shared-memory surface: allocate_shared_memory, .store, .load (Gluon's names),
the IR it emits, and errors at the user's line."""

from __future__ import annotations

import os
import re

import pytest

import kiln
import kiln.language as kl
from kiln.compiler import compiler as compiler_mod

import located

L = kl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
LT = kl.BlockedLayout([4, 1], [8, 4], [1, 4], [0, 1])
SH = kl.SwizzledSharedLayout(4, 1, 8, [1, 0])
SIG = {"x": "*fp32:16", "y": "*fp32:16"}


@kiln.jit
def roundtrip(x, y, SHL: kl.constexpr):
    offs = kl.arange(0, 32, kl.SliceLayout(1, L))[:, None] * 32 + \
        kl.arange(0, 32, kl.SliceLayout(0, L))[None, :]
    buf = kl.allocate_shared_memory(kl.float32, [32, 32], SHL)
    buf.store(kl.load(x + offs))
    again = kl.allocate_shared_memory(kl.float32, [32, 32], SHL, buf.load(LT))
    buf._keep_alive()
    kl.barrier()
    kl.store(y + offs, again.load(L))


def test_emits_local_ops_that_cpp_verifies_and_lowers():
    ir = compiler_mod.make_ir(roundtrip, SIG, {"SHL": SH}, target="cuda:sm_90a")
    assert ir.count('"tile.local_alloc"') == 2
    assert '"tile.local_store"' in ir and ir.count('"tile.local_load"') == 2
    assert ir.count('"tile.barrier"() : () -> ()') == 1
    assert "!tile.memdesc<32x32xf32, #tile.swizzled_shared<{vec = 4, perPhase = 1, " \
           "maxPhase = 8, order = [1, 0]}>, mutable>" in ir
    k = kiln.compile(roundtrip, SIG, {"SHL": SH}, target="cuda:sm_90a", cache=False)
    assert k.metadata["shared"] == 2 * 32 * 32 * 4
    assert k.asm["ptx"].count("st.shared") > 0 and k.asm["ptx"].count("ld.shared") > 0


@kiln.jit
def bad_layout(x):
    kl.allocate_shared_memory(kl.float32, [32, 32], L)  # E:layout


@kiln.jit
def bad_store(x):
    buf = kl.allocate_shared_memory(kl.float32, [32, 32], SH)
    buf.store(kl.full([32, 16], 0.0, kl.float32, L))  # E:store


@kiln.jit
def bad_rank(x):
    kl.allocate_shared_memory(kl.float32, [1024], SH)  # E:rank


@kiln.jit
def bad_dtype(x):
    kl.allocate_shared_memory("float32", [32, 32], SH)  # E:dtype


@kiln.jit
def bad_ring(x):
    kl.allocate_shared_memory(kl.float32, [0, 32, 32], SH)  # E:ring


@kiln.jit
def bad_index(x):
    kl.allocate_shared_memory(kl.float32, [32, 32], SH).index(0)  # E:index


@kiln.jit
def bad_slot(x):
    kl.allocate_shared_memory(kl.float32, [2, 32, 32], SH).index(1.5)  # E:slot


@kiln.jit
def bad_load(x):
    kl.allocate_shared_memory(kl.float32, [32, 32], SH).load(  # E:load
        kl.BlockedLayout([4], [32], [4], [0]))


@kiln.jit
def bad_slice(x):
    kl.allocate_shared_memory(kl.float32, [32, 32], SH).slice(8, 16)  # E:slice


@kiln.jit
def bad_permute(x):
    kl.allocate_shared_memory(kl.float32, [2, 32, 32], SH).permute([1, 0, 2])  # E:permute


PADDED = kl.PaddedSharedLayout.with_identity_for([[32, 4]], [32, 32], [1, 0])


@kiln.jit
def bad_reshape(x):
    kl.allocate_shared_memory(kl.float32, [32, 32], PADDED).reshape([1000])  # E:reshape


@pytest.mark.parametrize("fn,marker,anchor,message,cls", [
    (bad_slice, "E:slice", "kl.allocate_shared_memory",
     r"slice: start 8 along dimension 0 must be a multiple of the length 16", ValueError),
    (bad_permute, "E:permute", "kl.allocate_shared_memory",
     r"permute: the leading 1 dimension\(s\) of .* are ring slots outside the shared layout "
     r"and must stay in place", ValueError),
    (bad_reshape, "E:reshape", "kl.allocate_shared_memory",
     r"reshape: \(1000,\) does not hold the 1024 elements of .*",
     ValueError),
    (bad_layout, "E:layout", "kl.allocate_shared_memory",
     r"allocate_shared_memory: layout must be a shared layout \(e.g. "
     r"kl.SwizzledSharedLayout\(...\)\), got BlockedLayout\(.*\)", TypeError),
    (bad_store, "E:store", "buf.store",
     r"store to shared memory: value .* must be a tensor of shape \(32, 32\) and type fp32",
     ValueError),
    (bad_rank, "E:rank", "kl.allocate_shared_memory",
     r"allocate_shared_memory: SwizzledSharedLayout\(.*\) has rank 2 but the shape "
     r"\(1024,\) has rank 1", ValueError),
    (bad_dtype, "E:dtype", "kl.allocate_shared_memory",
     r"allocate_shared_memory: element_ty must be a dtype, got 'float32'", TypeError),
    (bad_ring, "E:ring", "kl.allocate_shared_memory",
     r"allocate_shared_memory: shape element 0 must be a positive constexpr int, got 0",
     TypeError),
    (bad_index, "E:index", "kl.allocate_shared_memory",
     r"index: the shared buffer .* has no leading dimension to index \(its layout covers "
     r"all 2 dimensions\)", ValueError),
    (bad_slot, "E:slot", "kl.allocate_shared_memory",
     r"index: the slot must be a scalar integer of at most 32 bits, got fp32", TypeError),
    (bad_load, "E:load", "kl.allocate_shared_memory",
     r"load from shared memory: .* has rank 1 but the shape \(32, 32\) has rank 2",
     ValueError),
])
def test_errors_point_at_the_line_and_column(fn, marker, anchor, message, cls):
    with pytest.raises(kiln.CompilationError) as ei:
        compiler_mod.make_ir(fn, {"x": "*fp32"}, target="cuda:sm_90a")
    located.assert_located(ei.value, os.path.abspath(__file__), marker, anchor, message,
                           kiln.CompilationError)
    assert isinstance(ei.value.__cause__, cls), repr(ei.value.__cause__)


@kiln.jit
def views(x, y):
    r = kl.arange(0, 32, kl.SliceLayout(1, L))
    c = kl.arange(0, 32, kl.SliceLayout(0, L))
    buf = kl.allocate_shared_memory(kl.float32, [32, 32], SH)
    buf.store(kl.load(x + r[:, None] * 32 + c[None, :]))
    top = buf.slice(0, 16).load(kl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0]))
    t = buf.permute([1, 0]).load(L)
    kl.store(y + r[:, None] * 32 + c[None, :], t)
    flat = kl.allocate_shared_memory(kl.float32, [4, 32], kl.SwizzledSharedLayout(1, 1, 1, [1, 0]))
    f = flat.reshape([128]).load(kl.BlockedLayout([1], [32], [4], [0]))


def test_views_emit_ops_that_cpp_verifies():
    ir = compiler_mod.make_ir(views, SIG, target="cuda:sm_90a")
    assert '"tile.memdesc_subslice"' in ir and "offsets = array<i32: 0, 0>" in ir
    assert '"tile.memdesc_permute"' in ir and "order = array<i32: 1, 0>" in ir
    # The permuted view's layout is the buffer's with its dimensions renamed.
    assert "!tile.memdesc<32x32xf32, #tile.swizzled_shared<{vec = 4, perPhase = 1, " \
           "maxPhase = 8, order = [0, 1]}>, mutable>" in ir
    assert '"tile.memdesc_reshape"' in ir
    k = kiln.compile(views, SIG, target="cuda:sm_90a", cache=False)
    assert k.asm["ptx"].count("ld.shared") > 0


def test_padded_shared_layout_checks_its_arguments():
    ok = kl.PaddedSharedLayout.with_identity_for([[64, 4]], [32, 64], [1, 0])
    assert ok.to_ir().startswith("#tile.padded_shared<{intervals = [64], paddings = [4], "
                                 "offset = [[0, 1], [0, 2]")
    assert ok.permuted([1, 0]).shape == (64, 32)
    with pytest.raises(ValueError, match="intervals and paddings must be powers of 2"):
        kl.PaddedSharedLayout.with_identity_for([[64, 3]], [32, 64], [1, 0])
    with pytest.raises(ValueError, match="intervals must be distinct"):
        kl.PaddedSharedLayout.with_identity_for([[64, 4], [64, 2]], [32, 64], [1, 0])
    with pytest.raises(ValueError, match="reach every element of shape"):
        kl.PaddedSharedLayout([[4, 1]], [[0, 1], [0, 1], [1, 0]], [], [2, 4])
    with pytest.raises(ValueError, match="cga_layout must be"):
        kl.PaddedSharedLayout([[4, 1]], [[0, 1], [0, 2], [1, 0]], [[1, 0]], [2, 4])


def test_negative_shared_layout_bases_are_refused():
    # Basis entries are coordinates: a negative one is named, not rendered into the IR (a
    # PaddedSharedLayout took it) or reported as bases that miss elements (SharedLinearLayout).
    with pytest.raises(ValueError, match=r"PaddedSharedLayout: offset basis \[-1, 0\] lies "
                                         r"outside the shape \[2, 4\]"):
        kl.PaddedSharedLayout([[4, 1]], [[0, 1], [0, 2], [-1, 0]], [], [2, 4])
    with pytest.raises(ValueError, match=r"PaddedSharedLayout: offset basis \[0, 4\] lies "
                                         r"outside the shape \[2, 4\]"):
        kl.PaddedSharedLayout([[4, 1]], [[0, 1], [0, 4], [1, 0]], [], [2, 4])
    with pytest.raises(ValueError, match=r"SharedLinearLayout: offset_bases entries are "
                                         r"coordinates and must not be negative, got \[0, -2\]"):
        kl.SharedLinearLayout([[0, 1], [0, -2], [1, 0]])
    with pytest.raises(ValueError, match=r"SharedLinearLayout: block_bases entries are "
                                         r"coordinates and must not be negative, got \[-2, 0\]"):
        kl.SharedLinearLayout([[0, 1], [0, 2], [1, 0]], [[-2, 0]])


@kiln.jit
def padded_wrong_shape(x):
    kl.allocate_shared_memory(  # E:padshape
        kl.float32, [32, 32], kl.PaddedSharedLayout.with_identity_for([[64, 4]], [32, 64], [1, 0]))


def test_padded_layout_shape_must_match_the_buffer():
    with pytest.raises(kiln.CompilationError) as ei:
        compiler_mod.make_ir(padded_wrong_shape, {"x": "*fp32"}, target="cuda:sm_90a")
    located.assert_located(ei.value, os.path.abspath(__file__), "E:padshape",
                           "kl.allocate_shared_memory",
                           r"allocate_shared_memory: PaddedSharedLayout\(.*\) is for buffers of "
                           r"shape \[32, 64\], but the shape's last 2 dimension\(s\) are \[32, "
                           r"32\]", kiln.CompilationError)


@kiln.jit
def slice_dim(x):
    kl.allocate_shared_memory(kl.float32, [32, 32], SH).slice(0, 16, dim=2)  # E:sdim


@kiln.jit
def slice_outside(x):
    kl.allocate_shared_memory(kl.float32, [32, 32], SH).slice(16, 32)  # E:sout


@kiln.jit
def slice_length(x):
    kl.allocate_shared_memory(kl.float32, [32, 32], SH).slice(0, 12)  # E:slen


@kiln.jit
def slice_start_type(x, n):
    kl.allocate_shared_memory(kl.float32, [32, 32], SH).slice(n, 16)  # E:stype


@kiln.jit
def permute_order(x):
    kl.allocate_shared_memory(kl.float32, [32, 32], SH).permute([0, 0])  # E:porder


@kiln.jit
def reshape_view(x):
    kl.allocate_shared_memory(kl.float32, [4, 32], RM).slice(0, 16, dim=1).reshape([64])  # E:rview


@kiln.jit
def reshape_count(x):
    kl.allocate_shared_memory(kl.float32, [4, 32], RM).reshape([64])  # E:rcount


@kiln.jit
def reshape_last(x):
    kl.allocate_shared_memory(kl.float32, [3, 4, 32], RM).reshape([128, 3])  # E:rlast


RM = kl.SwizzledSharedLayout(1, 1, 1, [1, 0])


@pytest.mark.parametrize("fn,marker,message,cls", [
    (slice_dim, "E:sdim", r"slice: dim 2 is out of range for the rank-2 buffer .*", ValueError),
    (slice_outside, "E:sout", r"slice: \[16, 48\) is outside dimension 0 of size 32",
     ValueError),
    (slice_length, "E:slen", r"slice: length 12 along dimension 0 \(covered by the shared "
     r"layout\) must be a power of 2", ValueError),
    (slice_start_type, "E:stype", r"slice: start must be a constexpr int, got .*", TypeError),
    (permute_order, "E:porder", r"permute: order \[0, 0\] must be a permutation of 0..1",
     ValueError),
    (reshape_view, "E:rview", r"reshape: .* is a part of a buffer; only whole buffers and "
                              r"slots of a ring can be reshaped",
     ValueError),
    (reshape_count, "E:rcount", r"reshape: \(64,\) does not hold the 128 elements of .*",
     ValueError),
    (reshape_last, "E:rlast", r"reshape: the last dimension of \(128, 3\) must be a "
     r"power of 2", ValueError),
])
def test_view_errors_point_at_the_line_and_column(fn, marker, message, cls):
    with pytest.raises(kiln.CompilationError) as ei:
        compiler_mod.make_ir(fn, {"x": "*fp32", "n": "i32"} if fn is slice_start_type
                             else {"x": "*fp32"}, target="cuda:sm_90a")
    located.assert_located(ei.value, os.path.abspath(__file__), marker,
                           "kl.allocate_shared_memory", message, kiln.CompilationError)
    assert isinstance(ei.value.__cause__, cls), repr(ei.value.__cause__)


L1 = kl.BlockedLayout([1], [32], [4], [0])
SH1 = kl.SwizzledSharedLayout(1, 1, 1, [0])


@kiln.jit
def buffer_chosen_by_if(x, y, flag):
    a = kl.allocate_shared_memory(kl.float32, [128], SH1)
    b = kl.allocate_shared_memory(kl.float32, [128], SH1)
    offs = kl.arange(0, 128, L1)
    a.store(kl.load(x + offs))
    b.store(kl.load(x + offs) + 1.0)
    if flag > 0:
        s = a
    else:
        s = b
    kl.store(y + offs, s.load(L1))


@kiln.jit
def buffer_carried_by_loop(x, y, n):
    a = kl.allocate_shared_memory(kl.float32, [128], SH1)
    b = kl.allocate_shared_memory(kl.float32, [128], SH1)
    offs = kl.arange(0, 128, L1)
    a.store(kl.load(x + offs))
    cur = a
    nxt = b
    for i in range(n):
        nxt.store(cur.load(L1) * 2.0)
        cur, nxt = nxt, cur
    kl.store(y + offs, cur.load(L1))


@kiln.jit
def buffer_through_nested_control_flow(x, y, n):
    a = kl.allocate_shared_memory(kl.float32, [128], SH1)
    b = kl.allocate_shared_memory(kl.float32, [128], SH1)
    offs = kl.arange(0, 128, L1)
    a.store(kl.load(x + offs))
    for i in range(n):
        if i % 2 == 0:
            b.store(a.load(L1) + 1.0)
            a, b = b, a
    k = 0
    while k < n:
        a, b = b, a
        k += 1
    kl.store(y + offs, a.load(L1))


@pytest.mark.parametrize("target", ["cuda:sm_90a", "hip:gfx942"])
@pytest.mark.parametrize("fn,scalar", [(buffer_chosen_by_if, "flag"),
                                       (buffer_carried_by_loop, "n"),
                                       (buffer_through_nested_control_flow, "n")])
def test_a_buffer_chosen_at_run_time_compiles(fn, scalar, target):
    """An if may pick between buffers of one type and a loop may carry them (ping-pong), as
    in Gluon: a memdesc-typed scf.if result / iteration argument, a shared address after
    lowering. Kiln cannot name such a buffer's allocation, so the barrier pass takes it as
    all of shared memory (a barrier before each access that may follow another thread's)."""
    w = 64 if target.startswith("hip") else 32
    layout = kl.BlockedLayout([1], [w], [4], [0])
    global L1
    saved, L1 = L1, layout
    try:
        k = kiln.compile(fn, {"x": "*fp32", "y": "*fp32", scalar: "i32"}, {}, target=target,
                         cache=False)
    finally:
        L1 = saved
    tile = k.asm["tile"]
    assert re.search(r"-> \(!tile\.memdesc<128xf32", tile) or \
        re.search(r"iter_args\(.*!tile\.memdesc", tile), tile
    if fn is buffer_carried_by_loop:
        # The loop's load follows the previous iteration's store by other threads, and its
        # store follows this iteration's loads: two CTA barriers in the loop.
        asm = k.asm.get("ptx") or k.asm["amdgcn"]
        barrier = "bar.sync" if target.startswith("cuda") else "s_barrier"
        assert asm.count(barrier) >= 2, asm


@kiln.jit
def buffers_of_two_types(x, y, flag):
    a = kl.allocate_shared_memory(kl.float32, [128], SH1)
    b = kl.allocate_shared_memory(kl.float32, [64], SH1)
    if flag > 0:
        s = a
    else:
        s = b  # E:pick-types
    kl.store(y + kl.arange(0, 128, L1), s.load(L1))


def test_buffers_of_two_types_cannot_be_chosen_between():
    """The error is at the user's line, in the user's terms (no IR value names)."""
    here = os.path.abspath(__file__)
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(buffers_of_two_types, {"x": "*fp32", "y": "*fp32", "flag": "i32"}, {},
                     target="cuda:sm_90a", cache=False)
    located.assert_located(
        ei.value, here, "E:pick-types", "s = b",
        r"Variable 's' is a shared-memory buffer of type !tile\.memdesc<128xf32, .*> in the "
        r"then branch \(.*\) and one of type !tile\.memdesc<64xf32, .*> in the else branch "
        r"\(.*\): a buffer chosen at run time \(by an if, or carried through a loop\) must "
        r"have one type on every path -- the same element type, shape, layout and "
        r"allocation shape", kiln.CompilationError)
    assert not re.search(r"%\d", str(ei.value)), str(ei.value)


@kiln.jit
def rows_permuted_view(inp, out, SMEM: kl.constexpr):
    """A [128, 64] fp32 tile stored into a swizzled buffer and read back through a view whose
    rows are permuted within each group of 8: reshape to [16, 4, 2, 64], permute (0, 2, 1, 3),
    reshape to [128, 64] (a third-party split GEMM reads its A tile so); the buffer's layout
    cannot be reshaped in its own family, so the views are linear layouts of the same bytes."""
    L: kl.constexpr = kl.BlockedLayout([1, 4], [2, 16], [4, 1], [1, 0])
    r = kl.arange(0, 128, layout=kl.SliceLayout(1, L))[:, None]
    c = kl.arange(0, 64, layout=kl.SliceLayout(0, L))[None, :]
    buf = kl.allocate_shared_memory(kl.float32, [128, 64], SMEM, kl.load(inp + r * 64 + c))
    view = buf.reshape((16, 4, 2, 64)).permute((0, 2, 1, 3)).reshape((128, 64))
    kl.store(out + r * 64 + c, view.load(L))


@pytest.mark.parametrize("smem", [kl.NVMMASharedLayout.get_default_for([128, 64], kl.float32),
                                  kl.SwizzledSharedLayout(4, 2, 8, [1, 0])])
def test_a_swizzled_buffer_reshaped_and_permuted_is_a_linear_view(smem):
    k = kiln.compile(rows_permuted_view, {"inp": "*fp32", "out": "*fp32"}, {"SMEM": smem},
                     target="cuda:sm_90a", num_warps=4, cache=False)
    tile = k.asm["tile"]
    assert "tile.memdesc_reinterpret" in tile and "#tile.shared_linear" in tile
    assert "ld.shared" in k.asm["ptx"]


@pytest.mark.parametrize("smem", [kl.NVMMASharedLayout.get_default_for([128, 64], kl.float32),
                                  kl.NVMMASharedLayout.get_default_for([128, 64], kl.float16),
                                  kl.SwizzledSharedLayout(4, 2, 8, [1, 0])])
def test_linear_views_hold_the_elements_they_name(smem):
    """Brute force over every element offset: the view's layout (the buffer's map from the
    compiler, reshaped and permuted by the DSL) sends each offset to the view element whose
    buffer element the buffer's own map sends it to."""
    from kiln import _compiler
    bits = 32 if getattr(smem, "element_bitwidth", 32) == 32 else 16
    base = kl.SharedLinearLayout(_compiler.linear_layout(smem.to_ir(), [128, 64], bits)[0])
    view = base.reshaped([128, 64], [16, 4, 2, 64]).permuted([0, 2, 1, 3]) \
        .reshaped([16, 2, 4, 64], [128, 64])

    def at(layout, offset):
        coords = [0] * layout.rank
        for k, b in enumerate(layout.offset_bases):
            if offset >> k & 1:
                coords = [x ^ y for x, y in zip(coords, b)]
        return coords

    for offset in range(128 * 64):
        (vr, vc), (br, bc) = at(view, offset), at(base, offset)
        a, c, b = vr // 8, vr // 4 % 2, vr % 4  # view row a*8 + c*4 + b
        assert (br, bc) == (a * 8 + b * 2 + c, vc), offset


def test_the_shared_layout_map_refuses_shapes_the_type_refuses():
    """kiln._compiler.linear_layout on a shared layout: the offset bases for a buffer type the
    compiler accepts, None for one it refuses (no map from an inconsistent shape)."""
    from kiln import _compiler
    sw = kl.SwizzledSharedLayout(4, 1, 8, [1, 0]).to_ir()
    assert len(_compiler.linear_layout(sw, [16, 32], 32)[0]) == 9
    assert _compiler.linear_layout(sw, [3, 5], 32) is None      # not powers of two
    assert _compiler.linear_layout(sw, [32], 32) is None        # rank below the layout's
