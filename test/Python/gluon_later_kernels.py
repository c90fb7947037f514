"""Kernels of Gluon's later features (after Triton 3.8) shared by the DSL tests (compiled, no
GPU) and the GPU tests (run against torch): once-per-thread and shared-view inline assembly,
vectorized ordered loads and stores, buffers of pointers, ld/stmatrix round trips, and the
FPSan payload formula."""

from __future__ import annotations

import kiln
import kiln.language as kl
from kiln.language import fpsan

# -- inline assembly --------------------------------------------------------------------------


@kl.constexpr_function
def row_sum(outputs, inputs):
    out, = outputs
    values, = inputs
    return f"mov.u32 {out[0]}, 0;\n" + "\n".join(
        f"add.u32 {out[0]}, {out[0]}, {v};" for v in values)


@kiln.jit
def many_kernel(x_ptr, y_ptr):
    layout: kl.constexpr = kl.BlockedLayout([1, 128], [32, 1], [4, 1], [1, 0])
    rows = kl.arange(0, 128, layout=kl.SliceLayout(1, layout))
    cols = kl.arange(0, 128, layout=kl.SliceLayout(0, layout))
    x = kl.load(x_ptr + rows[:, None] * 128 + cols[None, :])
    out_layout: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    out_type: kl.constexpr = kl.distributed_type(kl.int32, [128], out_layout)
    y = kl.inline_asm(row_sum, ("=&r", "r"), [x], out_type, is_pure=True)
    kl.store(y_ptr + kl.arange(0, 128, layout=out_layout), y)


@kl.constexpr_function
def shared_loads(outputs, inputs):
    out, = outputs
    base, offsets = inputs
    loads = "\n".join(f"add.u32 a, {base[0]}, {o}; ld.shared.f32 {d}, [a];"
                      for d, o in zip(out, offsets))
    return "{ .reg .u32 a;\n" + loads + "\n}"


def shared_loads_statement(pack):
    """shared_loads as one inline_asm_elementwise statement of `pack` elements, and its
    constraints."""
    outputs = (tuple(f"${i}" for i in range(pack)),)
    inputs = ((f"${pack}",), tuple(f"${pack + 1 + i}" for i in range(pack)))
    return shared_loads(outputs, inputs), ",".join(["=&f"] * pack + ["r"] * (pack + 1))


@kiln.jit
def view_kernel(x_ptr, y_ptr, THREADWISE: kl.constexpr, PACK: kl.constexpr,
                ASM: kl.constexpr, CONSTRAINTS: kl.constexpr):
    """Columns 32..63 of a 128 x 64 tile read through a shared view by inline assembly: once
    per thread (THREADWISE, kl.inline_asm) or one statement per PACK elements."""
    layout: kl.constexpr = kl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
    r = kl.arange(0, 128, layout=kl.SliceLayout(1, layout))
    c = kl.arange(0, 64, layout=kl.SliceLayout(0, layout))
    values = kl.load(x_ptr + r[:, None] * 64 + c[None, :])
    parent = kl.allocate_shared_memory(kl.float32, [128, 64],
                                       kl.SwizzledSharedLayout(1, 1, 1, [1, 0]), values)
    view = parent.slice(32, 32, dim=1)
    cols = kl.arange(0, 32, layout=kl.SliceLayout(0, layout))
    offsets = (r[:, None] * 64 + cols[None, :]) * 4
    kl.barrier()
    if THREADWISE:
        result = kl.inline_asm(ASM, CONSTRAINTS, [view, offsets],
                               offsets.type.with_element_ty(kl.float32))
    else:
        result = kl.inline_asm_elementwise(ASM, CONSTRAINTS, [view, offsets], kl.float32,
                                           False, PACK)
    kl.store(y_ptr + r[:, None] * 32 + cols[None, :], result)


@kiln.jit
def _count(out):
    kl.inline_asm("{ .reg .u32 old; atom.global.add.u32 old, [$0], 1; }", "l", [out])


@kiln.jit
def count_kernel(out, WS: kl.constexpr):
    if WS:
        kl.warp_specialize([(_count, (out,)), (_count, (out + 1,))], [4])
    else:
        _count(out)
        kl.inline_asm("bar.sync 0;")


# -- ordered loads and stores ------------------------------------------------------------------


@kiln.jit
def vector_kernel(src, out, STRIDE: kl.constexpr, OFFSET: kl.constexpr,
                  MASK_GROUP: kl.constexpr, STORE: kl.constexpr):
    x = kl.arange(0, 512, layout=kl.BlockedLayout([16], [32], [1], [0]))
    if MASK_GROUP:
        mask = x // MASK_GROUP % 2 == 0
    else:
        mask = None
    if STORE:
        values = kl.load(src + x)
        kl.atomic_store(out + x * STRIDE + OFFSET, values, mask=mask, sem="release")
    else:
        values = kl.atomic_load(src + x * STRIDE + OFFSET, mask=mask, sem="acquire")
        kl.store(out + x, values, mask=mask)


# -- buffers of pointers -----------------------------------------------------------------------


@kiln.jit
def pointers_kernel(src, idx, out, BLOCK: kl.constexpr, layout: kl.constexpr,
                    WRITE: kl.constexpr, READ: kl.constexpr):
    offsets = kl.arange(0, BLOCK, layout=layout)
    pointers = src + offsets
    shared_layout: kl.constexpr = kl.SwizzledSharedLayout(1, 1, 1, order=[0])
    if WRITE == "local_alloc":
        smem = kl.allocate_shared_memory(pointers.dtype, [BLOCK], shared_layout, pointers)
    elif WRITE == "local_store":
        smem = kl.allocate_shared_memory(pointers.dtype, [BLOCK], shared_layout)
        smem.store(pointers)
    else:
        smem = kl.allocate_shared_memory(pointers.dtype, [BLOCK], shared_layout)
        smem.scatter(pointers, kl.load(idx + offsets), axis=0)
    if READ == "local_load":
        result = smem.load(layout)
    else:
        result = smem.gather(kl.load(idx + offsets), axis=0)
    kl.store(out + offsets, kl.load(result))


# -- ld/stmatrix round trips -------------------------------------------------------------------


@kiln.jit
def matrix_round_trip(inp, out, N: kl.constexpr, store_layout: kl.constexpr,
                      load_layout: kl.constexpr, shared_layout: kl.constexpr):
    offsets = kl.arange(0, N, layout=store_layout)
    values = kl.load(inp + offsets)
    smem = kl.allocate_shared_memory(inp.dtype.element_ty, [N], shared_layout)
    smem.store(values)
    values = smem.load(load_layout)
    offsets = kl.arange(0, N, layout=load_layout)
    kl.store(out + offsets, values)


def matrix_layouts(reg_bases, lane_bases):
    """(size, shared layout, register layout) of Gluon's test_ldstmatrix_register_order."""
    size = 32 << len(reg_bases)
    shared_bases = [[1 << i] for i in range(size.bit_length() - 1)]
    if size > 512:
        shared_bases[9][0] ^= 16
    return size, kl.SharedLinearLayout(shared_bases), kl.DistributedLinearLayout(
        reg_bases=[[b] for b in reg_bases], lane_bases=[[b] for b in lane_bases],
        warp_bases=[], block_bases=[], shape=[size])


# (element, transposed, register bases, lane bases): Gluon's cases and a two-matrix one.
MATRIX_CASES = [
    ("fp16", True, [8], [16, 32, 1, 2, 4]),
    ("fp16", True, [64, 32, 128, 256], [8, 16, 1, 2, 4]),
    ("i8", False, [128, 1, 2, 256, 512], [4, 8, 16, 32, 64]),
    ("fp16", False, [64, 1, 128, 256], [2, 4, 8, 16, 32]),
    ("fp32", False, [32, 64, 128], [1, 2, 4, 8, 16]),
    ("fp16", False, [1, 64], [2, 4, 8, 16, 32]),
]
MATRIX_IDS = ["b16-transpose-x1", "b16-transpose-bank", "b8-packed", "b16", "b32", "b16-x2"]


# -- FPSan payloads ----------------------------------------------------------------------------


def reference_embed(u, dt):
    """The FPSan payload of raw bits ``u`` (unsigned) of float type ``dt``, by the formula."""
    w, s, a, bp, bm = fpsan._constants(dt)
    half, mask = 1 << (w - 1), (1 << (w - 1)) - 1
    y = (u * a) & mask
    z = y ^ (y >> s)
    return ((z * (bm if u & half else bp)) & mask) | (u & half)
