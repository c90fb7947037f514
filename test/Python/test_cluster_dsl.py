"""Clusters (issue 24, item 3, in part): ``num_ctas`` CTAs run each program and layouts split
tensors and shared buffers among them with ``cga_layout``. A split tensor has a
``#tile.cga<{bases, layout}>`` layout and its whole shape in the IR; tile-split-cluster makes
it each CTA's part, and ``arange`` adds where that part starts (from the CTA's rank,
``program_id(0) % num_ctas``). ``program_id(0)`` / ``num_programs(0)`` count programs
(clusters), as in Gluon. Moving data between CTAs is an error at the user's line."""

import os
import re
import subprocess

import pytest

import kiln
import kiln.language as kl
from kiln.compiler.errors import CompilationError

import compiled
import located
import remarks

pytestmark = compiled.needs_compiler

HERE = os.path.abspath(__file__)
SPLIT2 = kl.BlockedLayout([8], [32], [8], [0], cga_layout=[[1]])


def _compile(fn, sig, cx, num_ctas, num_warps=8):
    return kiln.compile(fn, sig, cx, target="cuda:sm_90a", num_warps=num_warps,
                        num_ctas=num_ctas, cache=False)


@kiln.jit
def copy_kernel(Out, In, numel, XBLOCK: kl.constexpr, layout: kl.constexpr):
    # Triton's test_copy_kernel_multi_cta kernel.
    xoffset = kl.program_id(0) * XBLOCK + kl.arange(0, XBLOCK, layout=layout)
    xmask = xoffset < numel
    kl.store(Out + xoffset, kl.load(In + xoffset, xmask), xmask)


def _split(tile_ir):
    """The module after tile-resolve-layouts and tile-split-cluster (kiln-opt replays them)."""
    proc = subprocess.run([remarks.KILN_OPT, "-", "--tile-resolve-layouts",
                           "--tile-split-cluster"], input=tile_ir, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_each_cta_holds_its_part():
    k = _compile(copy_kernel, {"Out": "*fp32", "In": "*fp32", "numel": "i32"},
                 {"XBLOCK": 2048, "layout": SPLIT2}, num_ctas=2)
    tile = k.asm["tile"]
    assert "#tile.cga<{bases = [[1]], layout = #blocked}>" in tile
    assert "tile.arange 0, 2048 : tensor<2048xi32, #cga>" in tile
    assert k.metadata["num_ctas"] == 2
    # program_id(0) counts programs: the CTA index divided by num_ctas.
    assert "arith.divsi" in tile
    # 2048 elements split in two: each CTA's arange covers 1024, moved by rank * 1024.
    split = _split(tile)
    assert "tile.arange 0, 1024 : tensor<1024xi32, #blocked>" in split
    assert "arith.constant 1024 : i32" in split and "tensor<2048" not in split
    assert "#tile.cga" not in split


def test_layout_and_num_ctas_must_agree():
    four = kl.BlockedLayout([8], [32], [8], [0], cga_layout=[[1], [2]])
    with pytest.raises(CompilationError, match=r"splits 4 CTAs, but the kernel has num_ctas=2"):
        _compile(copy_kernel, {"Out": "*fp32", "In": "*fp32", "numel": "i32"},
                 {"XBLOCK": 2048, "layout": four}, num_ctas=2)


def test_cga_layout_is_checked():
    with pytest.raises(ValueError, match="moves by a power of two of CTA tiles along one"):
        kl.BlockedLayout([1, 1], [1, 32], [4, 1], [1, 0], cga_layout=[[1, 1]])
    with pytest.raises(ValueError, match="two cga_layout bases move the same way"):
        kl.BlockedLayout([1, 1], [1, 32], [4, 1], [1, 0], cga_layout=[[1, 0], [1, 0]])
    with pytest.raises(ValueError, match="needs 2 entries"):
        kl.BlockedLayout([1, 1], [1, 32], [4, 1], [1, 0], cga_layout=[[1]])
    a = kl.BlockedLayout([1, 1], [1, 32], [4, 1], [1, 0], cga_layout=[[1, 0]])
    b = kl.BlockedLayout([1, 1], [1, 32], [4, 1], [1, 0], cga_layout=[[0, 1]])
    assert a != b and a.mangle() != b.mangle() and a.without_cga() == b.without_cga()
    assert kl.SliceLayout(1, a).cga_bases == ((1,),) and kl.SliceLayout(0, a).cga_bases == ((0,),)


ROWS = kl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0], cga_layout=[[1, 0]])
COLS = kl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0], cga_layout=[[0, 1]])


@kiln.jit
def sum_rows(x, out, L: kl.constexpr):
    offs = kl.arange(0, 64, kl.SliceLayout(1, L))[:, None] * 64 + \
        kl.arange(0, 64, kl.SliceLayout(0, L))[None, :]
    kl.store(out + kl.arange(0, 64, kl.SliceLayout(0, L)), kl.sum(kl.load(x + offs), 0))  # SUM


@kiln.jit
def change_split(x, L: kl.constexpr, M: kl.constexpr):
    offs = kl.arange(0, 64, kl.SliceLayout(1, L))[:, None] * 64 + \
        kl.arange(0, 64, kl.SliceLayout(0, L))[None, :]
    kl.store(x + kl.convert_layout(offs, M), 1.0)


@kiln.jit
def auto_to_split(x, L: kl.constexpr):
    offs = kl.arange(0, 64)[:, None] * 64 + kl.arange(0, 64)[None, :]
    kl.store(kl.set_auto_layout(x + offs, L), 1.0)  # AUTO


@kiln.jit
def smem_other_split(x, L: kl.constexpr, S: kl.constexpr):
    offs = kl.arange(0, 64, kl.SliceLayout(1, L))[:, None] * 64 + \
        kl.arange(0, 64, kl.SliceLayout(0, L))[None, :]
    buf = kl.allocate_shared_memory(kl.float32, [64, 64], S)
    buf.store(kl.load(x + offs))  # SMEM


# Split along rows in the other bit order: the same [16, 64] part in each CTA, another CTA's
# (so the store reaches into the other CTAs' shared memory).
ROWS_OTHER_ORDER = kl.SwizzledSharedLayout(1, 1, 1, [1, 0], cga_layout=[[2, 0], [1, 0]])
ROWS4 = kl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0], cga_layout=[[1, 0], [2, 0]])


def test_a_move_between_splits_goes_through_distributed_shared_memory():
    """convert_layout from rows split among the CTAs to columns split among them: through a
    buffer split by rows (each CTA stores its part), a cluster barrier, each CTA's load of its
    columns from the other CTAs' parts, and a second cluster barrier (test_cluster.py runs
    it)."""
    k = _compile(change_split, {"x": "*fp32"}, {"L": ROWS, "M": COLS}, num_ctas=2, num_warps=4)
    tile = _split(k.asm["tile"])
    assert "tile.local_store" in tile and "tile_nv.cluster_load" in tile
    ptx = k.asm["ptx"]
    assert ptx.count("ld.shared::cluster") and ptx.count("barrier.cluster.arrive") >= 2
    assert k.metadata["shared"] >= 64 * 64 * 4 // 2  # the buffer: each CTA's half


def test_a_move_between_splits_needs_concrete_layouts():
    with pytest.raises(CompilationError) as e:
        _compile(auto_to_other_split, {"x": "*fp32"}, {"L": ROWS}, num_ctas=2, num_warps=4)
    located.assert_located(e.value, HERE, "CONVERT", "kl.convert_layout",
                           r"convert_layout between layouts that split the tensor differently "
                           r"among the CTAs of a cluster .* needs concrete layouts on both "
                           r"sides", CompilationError)


@kiln.jit
def auto_to_other_split(x, L: kl.constexpr):
    offs = kl.arange(0, 64)[:, None] * 64 + kl.arange(0, 64)[None, :]
    kl.store(x + kl.convert_layout(offs, L), 1.0)  # CONVERT


def test_a_store_into_a_buffer_split_another_way_reaches_the_other_ctas():
    # Each CTA's rows belong to another CTA's part of the buffer: distributed shared memory.
    k = _compile(smem_other_split, {"x": "*fp32"}, {"L": ROWS4, "S": ROWS_OTHER_ORDER},
                 num_ctas=4, num_warps=4)
    assert "tile_nv.cluster_store" in k.asm["tile"]
    assert "st.shared::cluster" in k.asm["ptx"]


def test_summing_along_a_dimension_that_is_not_split_compiles():
    k = _compile(sum_rows, {"x": "*fp32", "out": "*fp32"}, {"L": COLS}, num_ctas=2, num_warps=4)
    assert "tensor<64x32xf32" in _split(k.asm["tile"])
    assert "cluster_peers" not in _split(k.asm["tile"])
    assert "barrier.cluster" not in k.asm["ptx"]


@pytest.mark.parametrize("layout, num_ctas, peers", [(ROWS, 2, 1), (ROWS4, 4, 3)])
def test_summing_along_a_split_dimension_combines_the_ctas(layout, num_ctas, peers):
    """Each CTA sums its rows; the reduce carries the rank bits of the CTAs with the other
    rows, and the lowering reads their sums from their shared memory between two cluster
    barriers, in rank order (third_party/nvidia/test/gpu/test_cluster.py runs it)."""
    k = _compile(sum_rows, {"x": "*fp32", "out": "*fp32"}, {"L": layout}, num_ctas=num_ctas,
                 num_warps=4)
    tile = _split(k.asm["tile"])
    assert f"tensor<{64 // num_ctas}x64xf32" in tile
    assert f"tile.cluster_peers = {peers} : i32" in tile
    ptx = k.asm["ptx"]
    assert ptx.count("barrier.cluster.arrive.aligned;") == 2
    assert ptx.count("barrier.cluster.wait.aligned;") == 2
    # each thread's column sums, each read from every CTA of the rows
    loads = ptx.count("ld.shared::cluster")
    assert loads and loads % num_ctas == 0, loads


@kiln.jit
def max_in_warp_specialize(x, out, L: kl.constexpr):
    kl.warp_specialize([(_max_part, (x, out, L)), (_idle, (out,))], [1], [24])


@kiln.jit
def _max_part(x, out, L: kl.constexpr):
    offs = kl.arange(0, 64, kl.SliceLayout(1, L))[:, None] * 64 + \
        kl.arange(0, 64, kl.SliceLayout(0, L))[None, :]
    kl.store(out + kl.arange(0, 64, kl.SliceLayout(0, L)), kl.max(kl.load(x + offs), 0))  # WSMAX


@kiln.jit
def _idle(out):
    pass


def test_a_reduction_across_ctas_in_a_warp_specialized_kernel_is_an_error_at_the_line():
    with pytest.raises(CompilationError) as e:
        _compile(max_in_warp_specialize, {"x": "*fp32", "out": "*fp32"}, {"L": ROWS},
                 num_ctas=2, num_warps=4)
    located.assert_located(e.value, HERE, "WSMAX", "kl.max",
                           r"reduce: reduces across the CTAs of a cluster, which takes a "
                           r"barrier of every thread of the cluster; in a kernel with "
                           r"warp_specialize the worker warps never reach it, .*",
                           CompilationError)


def test_automatic_layouts_resolve_to_split_ones():
    # The aranges have AutoLayout; set_auto_layout gives the pointers a split layout, and the
    # aranges' parts follow from it (their CTA offsets are added after the resolution).
    k = _compile(auto_to_split, {"x": "*fp32"}, {"L": ROWS}, num_ctas=2, num_warps=4)
    split = _split(k.asm["tile"])
    assert "#slice = #tile.slice<{dim = 1, parent = #blocked}>" in split
    assert "tile.arange 0, 32 : tensor<32xi32, #slice>" in split
    assert "tile.arange 0, 64 : tensor<64xi32, #slice1>" in split
    assert split.count("arith.constant 32 : i32") == 1  # one offset: the split rows


def test_a_tensor_every_cta_holds_is_stored_by_one():
    # cga_layout [[0]]: both CTAs of the cluster hold all 2048 elements; only the CTA of
    # rank 0 stores them (as one thread stores an element its CTA's layout repeats).
    both = kl.BlockedLayout([8], [32], [8], [0], cga_layout=[[0]])
    k = _compile(copy_kernel, {"Out": "*fp32", "In": "*fp32", "numel": "i32"},
                 {"XBLOCK": 2048, "layout": both}, num_ctas=2)
    split = _split(k.asm["tile"])
    store = next(l for l in split.splitlines() if "tile.store" in l)
    mask = store.split(",")[2].split(":")[0].strip()
    assert re.search(rf"{re.escape(mask)} = arith.andi %\w+, %\w+ : tensor<2048xi1", split), store
    assert re.search(r"arith.cmpi eq, %\w+, %c0_i32 : i32", split), split
    # The split tensor of SPLIT2 (each CTA its own half) is stored by both, unmasked by rank.
    k = _compile(copy_kernel, {"Out": "*fp32", "In": "*fp32", "numel": "i32"},
                 {"XBLOCK": 2048, "layout": SPLIT2}, num_ctas=2)
    assert "arith.cmpi eq" not in _split(k.asm["tile"])


@kiln.jit
def add_kernel(Out, XBLOCK: kl.constexpr, layout: kl.constexpr, USE: kl.constexpr):
    offs = kl.arange(0, XBLOCK, layout=layout)
    old = kl.atomic_add(Out + offs, kl.full([XBLOCK], 1.0, kl.float32, layout))  # E:add
    if USE:
        kl.store(Out + XBLOCK + offs, old)


def test_an_atomic_every_cta_holds_runs_once():
    # Run by both CTAs, the add would count twice: only the CTA of rank 0 performs it.
    both = kl.BlockedLayout([8], [32], [8], [0], cga_layout=[[0]])
    k = _compile(add_kernel, {"Out": "*fp32"}, {"XBLOCK": 2048, "layout": both, "USE": False},
                 num_ctas=2)
    split = _split(k.asm["tile"])
    assert re.search(r"arith.cmpi eq, %\w+, %c0_i32 : i32", split), split
    atomic = next(l for l in split.splitlines() if "tile.atomic_rmw" in l)
    owner = re.search(r'tile.atomic_rmw "fadd", %\w+, %\w+, (%\w+) ', atomic)
    assert owner, atomic  # pointers, values and the owner mask
    assert re.search(rf"{owner.group(1)} = tile.splat %\w+ : tensor<2048xi1", split), split


def test_an_atomic_whose_old_values_several_ctas_hold_is_refused_at_the_op():
    both = kl.BlockedLayout([8], [32], [8], [0], cga_layout=[[0]])
    with pytest.raises(CompilationError) as e:
        _compile(add_kernel, {"Out": "*fp32"}, {"XBLOCK": 2048, "layout": both, "USE": True},
                 num_ctas=2)
    located.assert_located(e.value, HERE, "E:add", "kl.atomic_add",
                           r".*uses the old values of elements several CTAs of the cluster "
                           r"hold .*use a cga_layout that gives each element to one CTA",
                           CompilationError)


@kiln.jit
def row_softmax(x, out, N: kl.constexpr, L: kl.constexpr):
    """One row of N a program, split among the cluster's CTAs by L: its maximum and its sum
    are reductions across the CTAs."""
    offs = kl.program_id(0) * N + kl.arange(0, N, L)
    v = kl.load(x + offs)
    e = kl.exp(v - kl.max(v, 0))
    kl.store(out + offs, e / kl.sum(e, 0))


@kiln.jit
def _first_largest(a, ia, b, ib):
    pick = (a > b) | ((a == b) & (ia < ib))
    return kl.where(pick, a, b), kl.where(pick, ia, ib)


@kiln.jit
def row_argmax(x, out, N: kl.constexpr, L: kl.constexpr):
    """The first index of each row's largest value: a reduction of a (value, index) tuple
    across the CTAs."""
    offs = kl.arange(0, N, L)
    v = kl.load(x + kl.program_id(0) * N + offs)
    _, i = kl.reduce((v, offs), 0, _first_largest)
    kl.store(out + kl.program_id(0), i)


def test_softmax_and_argmax_across_ctas_compile():
    L = kl.BlockedLayout([4], [32], [4], [0], cga_layout=[[1], [2]])
    k = _compile(row_softmax, {"x": "*fp32", "out": "*fp32"}, {"N": 4096, "L": L},
                 num_ctas=4, num_warps=4)
    assert _split(k.asm["tile"]).count("tile.cluster_peers = 3 : i32") == 2
    k = _compile(row_argmax, {"x": "*fp32", "out": "*i32"}, {"N": 4096, "L": L},
                 num_ctas=4, num_warps=4)
    assert _split(k.asm["tile"]).count("tile.cluster_peers = 3 : i32") == 1


@kiln.jit
def rows_softmax_keep_dims(x, out, M: kl.constexpr, N: kl.constexpr, L: kl.constexpr):
    """M rows of N, the columns split among the cluster's CTAs by L: the rows' maxima and
    sums keep their dimension (keep_dims=True) and broadcast back over each CTA's columns."""
    offs = kl.arange(0, M, kl.SliceLayout(1, L))[:, None] * N + \
        kl.arange(0, N, kl.SliceLayout(0, L))[None, :]
    v = kl.load(x + offs)
    e = kl.exp(v - kl.max(v, 1, keep_dims=True))
    kl.store(out + offs, e / kl.sum(e, 1, keep_dims=True))


def test_row_reductions_keeping_dims_across_ctas_compile():
    L = kl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0], cga_layout=[[0, 1], [0, 2]])
    k = _compile(rows_softmax_keep_dims, {"x": "*fp32", "out": "*fp32"},
                 {"M": 16, "N": 1024, "L": L}, num_ctas=4, num_warps=4)
    assert _split(k.asm["tile"]).count("tile.cluster_peers = 3 : i32") == 2
    assert "tensor<16x256xf32" in _split(k.asm["tile"])


@kiln.jit
def resplit_copy(x, out, L: kl.constexpr, M: kl.constexpr):
    """out = x, loaded in L's split and stored in M's: the values cross between the CTAs."""
    offs_l = kl.arange(0, 64, kl.SliceLayout(1, L))[:, None] * 64 + \
        kl.arange(0, 64, kl.SliceLayout(0, L))[None, :]
    offs_m = kl.arange(0, 64, kl.SliceLayout(1, M))[:, None] * 64 + \
        kl.arange(0, 64, kl.SliceLayout(0, M))[None, :]
    kl.store(out + offs_m, kl.convert_layout(kl.load(x + offs_l), M))


WHOLE = kl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
COLS4 = kl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0], cga_layout=[[0, 1], [0, 2]])


@pytest.mark.parametrize("src, dst, num_ctas", [(ROWS, COLS, 2), (ROWS4, COLS4, 4),
                                                (ROWS4, WHOLE, 4), (WHOLE, ROWS4, 4)])
def test_resplit_copy_compiles(src, dst, num_ctas):
    k = _compile(resplit_copy, {"x": "*fp32", "out": "*fp32"}, {"L": src, "M": dst},
                 num_ctas=num_ctas, num_warps=4)
    assert "barrier.cluster" in k.asm["ptx"]


WAVE_SPLIT = kl.BlockedLayout([1], [64], [2], [0], cga_layout=[[1]])
WAVE_WHOLE = kl.BlockedLayout([1], [64], [2], [0])


@kiln.jit
def amd_resplit(x, out, L: kl.constexpr, M: kl.constexpr):
    v = kl.load(x + kl.arange(0, 256, L))
    kl.store(out + kl.arange(0, 256, M), kl.convert_layout(v, M))  # AMDCVT


@kiln.jit
def amd_split_sum(x, out, L: kl.constexpr):
    kl.store(out, kl.sum(kl.load(x + kl.arange(0, 256, L)), 0))  # AMDSUM


@pytest.mark.parametrize("fn, cx, marker, anchor, message", [
    (amd_resplit, {"L": WAVE_SPLIT, "M": WAVE_WHOLE}, "AMDCVT", "kl.convert_layout",
     r"convert_layout between layouts that split the tensor differently among the CTAs of a "
     r"cluster .* moves data between CTAs, which hip:gfx950 cannot do \(no distributed shared "
     r"memory\)"),
    (amd_split_sum, {"L": WAVE_SPLIT}, "AMDSUM", "kl.sum",
     r"reduce: reduces across the CTAs of a cluster, which needs distributed shared memory "
     r"this target lacks"),
])
def test_moving_data_between_ctas_without_distributed_shared_memory_is_an_error(
        fn, cx, marker, anchor, message):
    with pytest.raises(CompilationError) as e:
        kiln.compile(fn, {"x": "*fp32", "out": "*fp32"}, cx, num_ctas=2, num_warps=2,
                     target="hip:gfx950", cache=False)
    located.assert_located(e.value, HERE, marker, anchor, message, CompilationError)
