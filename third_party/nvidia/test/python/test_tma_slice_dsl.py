"""TMA into and out of shared-memory subslices (Gluon's test_tma_slice): each box lands at the
address of its first element when the hardware's absolute-address swizzle then puts every
element where the buffer's layout has it (checked element by element; the compile errors,
naming the rule, where it would not, which Gluon's slicing rules and the NVMMA layout's own
limits already exclude for every box these kernels can form). Launched by
third_party/nvidia/test/gpu/test_tma_slice.py."""

import re

import pytest

import kiln
import kiln.language as kl
from kiln.compiler.errors import CompilationError
from kiln.language.nvidia.hopper import mbarrier, tma

import compiled

pytestmark = compiled.needs_compiler

MB = mbarrier.MBarrierLayout()


@kiln.jit
def copy_through_second_half(in_desc, out_desc, ROWS: kl.constexpr, COLS: kl.constexpr):
    # As Gluon's test: the block goes into rows ROWS..2*ROWS of the buffer while rows 0..ROWS
    # are zeroed, then out again from there.
    smem = kl.allocate_shared_memory(in_desc.dtype, [2 * ROWS, COLS], in_desc.layout)
    first = smem.slice(0, ROWS)
    second = smem.slice(ROWS, ROWS)
    bar = kl.allocate_shared_memory(kl.int64, [1], MB)
    mbarrier.init(bar, count=1)
    mbarrier.expect(bar, in_desc.block_type.nbytes)
    tma.async_copy_global_to_shared(in_desc, [0, 0], bar, second)  # E:load
    mbarrier.wait(bar, phase=0)
    blocked: kl.constexpr = kl.BlockedLayout([1, 1], [1, 32], [1, 4], [1, 0])
    first.store(kl.zeros([ROWS, COLS], kl.float32, blocked))
    tma.async_copy_shared_to_global(out_desc, [0, 0], second)
    tma.store_wait(0)


def _desc(rows, cols, layout=None):
    layout = layout or kl.NVMMASharedLayout.get_default_for([rows, cols], kl.float32)
    return kl.tensor_descriptor_type(kl.float32, [rows, cols], layout)


def test_boxes_land_after_the_first_half():
    d = _desc(128, 128)
    k = copy_through_second_half.warmup(d, d, 128, 128, grid=(1,), target="cuda:sm_90a")
    # 128-byte swizzle of f32: 4 chunks of 32 columns, each 256 rows x 128 bytes in the
    # buffer; the second half of chunk i starts at i * 32768 + 16384 bytes.
    offsets = [re.findall(r"@global_smem, i(?:32|64) (\d+)\)", line)
               for line in k.asm["llir"].splitlines() if "cp.async.bulk.tensor" in line]
    starts = [int(o[0]) for o in offsets]
    assert starts == [16384 + 32768 * i for i in range(4)] * 2


@kiln.jit
def copy_columns(in_desc, out_desc, ROWS: kl.constexpr, COLS: kl.constexpr, BUF: kl.constexpr):
    # The box goes into columns COLS..2*COLS of a buffer BUF wide.
    smem = kl.allocate_shared_memory(kl.float32, [ROWS, BUF], kl.NVMMASharedLayout(128, 32))
    part = smem.slice(COLS, COLS, dim=1)
    bar = kl.allocate_shared_memory(kl.int64, [1], MB)
    mbarrier.init(bar, count=1)
    mbarrier.expect(bar, in_desc.block_type.nbytes)
    tma.async_copy_global_to_shared(in_desc, [0, 0], bar, part)  # E:cols
    mbarrier.wait(bar, phase=0)
    tma.async_copy_shared_to_global(out_desc, [0, 0], part)
    tma.store_wait(0)


def test_column_slice_of_whole_chunks():
    # Columns 32..64 of a 64-column f32 buffer are its second 128-byte chunk: 8 rows x 128 B
    # from byte 1024, one whole swizzle atom.
    d = _desc(8, 32, kl.NVMMASharedLayout(128, 32))
    k = copy_columns.warmup(d, d, 8, 32, 64, grid=(1,), target="cuda:sm_90a")
    starts = [re.findall(r"@global_smem, i(?:32|64) (\d+)\)", line)
              for line in k.asm["llir"].splitlines() if "cp.async.bulk.tensor" in line]
    assert [int(s[0]) for s in starts] == [1024, 1024]
