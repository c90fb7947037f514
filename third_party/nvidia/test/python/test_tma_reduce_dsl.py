"""TMA reduce-stores (Gluon's ``tma.async_atomic_add`` / ``_min`` / ``_max`` / ``_and`` /
``_or`` / ``_xor``) and ``tma.store_wait(read_only=)``: each kind compiles for sm_90a to its
``cp.reduce.async.bulk.tensor`` (and ptxas takes it), a wait with ``read_only=False`` to
``cp.async.bulk.wait_group`` without ``.read``, and what PTX cannot reduce is refused at the
user's line. third_party/nvidia/test/gpu/test_tma_reduce.py runs them against torch."""

from __future__ import annotations

import os
import re

import pytest

import kiln
import kiln.language as kl
from kiln.language.nvidia.hopper import fence_async_shared, mbarrier, tma

import compiled
import located

pytestmark = compiled.needs_compiler

HERE = os.path.abspath(__file__)
BL = kl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])


def _desc(dtype, block=(32, 32)):
    return kl.tensor_descriptor_type(dtype, list(block),
                                     kl.NVMMASharedLayout.get_default_for(list(block), dtype))


@kiln.jit
def reduce_kernel(d, KIND: kl.constexpr, READ_ONLY: kl.constexpr):
    buf = kl.allocate_shared_memory(d.dtype, d.block_shape, d.layout,
                                    kl.full(d.block_shape, 1, d.dtype, BL))
    fence_async_shared()
    if KIND == "add":
        tma.async_atomic_add(d, [0, 32], buf)
    elif KIND == "min":
        tma.async_atomic_min(d, [0, 32], buf)
    elif KIND == "max":
        tma.async_atomic_max(d, [0, 32], buf)
    elif KIND == "and":
        tma.async_atomic_and(d, [0, 32], buf)
    elif KIND == "or":
        tma.async_atomic_or(d, [0, 32], buf)
    else:
        tma.async_atomic_xor(d, [0, 32], buf)
    tma.store_wait(0, read_only=READ_ONLY)


ACCEPTED = [("add", kl.float32), ("add", kl.float16), ("add", kl.bfloat16), ("add", kl.int32),
            ("add", kl.uint32), ("add", kl.uint64), ("min", kl.float16), ("min", kl.bfloat16),
            ("min", kl.int32), ("min", kl.int64), ("max", kl.uint32), ("max", kl.uint64),
            ("and", kl.int32), ("or", kl.uint64), ("xor", kl.uint32), ("and", kl.uint64)]


@pytest.mark.parametrize("kind,dtype", ACCEPTED, ids=[f"{k}-{d}" for k, d in ACCEPTED])
def test_each_kind_compiles_to_its_reduce(kind, dtype):
    k = kiln.compile(reduce_kernel, {"d": _desc(dtype)}, {"KIND": kind, "READ_ONLY": True},
                     target="cuda:sm_90a", cache=False)
    ptx = k.asm["ptx"]
    assert k.asm.get("cubin")  # ptxas accepted it
    # One box per 128-byte swizzle chunk of a 32-element row: 1 (32-bit), 1 (16-bit: one
    # 64-byte chunk) or 2 (64-bit); the inner coordinate moved by a chunk for the second.
    boxes = 2 if dtype.primitive_bitwidth == 64 else 1
    insn = f"cp.reduce.async.bulk.tensor.2d.global.shared::cta.{kind}.tile.bulk_group"
    assert ptx.count(insn) == boxes, ptx
    assert ptx.count("cp.reduce.async.bulk.tensor") == boxes
    assert "cp.async.bulk.tensor.2d.global.shared::cta" not in ptx  # not a plain store
    # Committed as one bulk group, which the default wait waits for reading its source.
    assert ptx.count("cp.async.bulk.commit_group;") == 1
    assert re.search(r"cp\.async\.bulk\.wait_group\.read\s+0;", ptx)


def test_store_wait_read_only_false_waits_for_the_writes():
    k = kiln.compile(reduce_kernel, {"d": _desc(kl.float32)}, {"KIND": "add", "READ_ONLY": False},
                     target="cuda:sm_90a", cache=False)
    ptx = k.asm["ptx"]
    assert re.search(r"cp\.async\.bulk\.wait_group\s+0;", ptx), ptx
    assert "wait_group.read" not in ptx


@kiln.jit
def store_then_wait(d):
    buf = kl.allocate_shared_memory(d.dtype, d.block_shape, d.layout,
                                    kl.full(d.block_shape, 1, d.dtype, BL))
    fence_async_shared()
    tma.async_store(d, [0, 0], buf)
    tma.store_wait(1, read_only=False)
    tma.async_copy_shared_to_global(d, [32, 0], buf)
    tma.store_wait(0)


def test_store_wait_of_stores_and_gluon_store_name():
    k = kiln.compile(store_then_wait, {"d": _desc(kl.float32)}, {}, target="cuda:sm_90a",
                     cache=False)
    ptx = k.asm["ptx"]
    assert ptx.count("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group") == 2
    assert re.search(r"cp\.async\.bulk\.wait_group\s+1;", ptx)
    assert re.search(r"cp\.async\.bulk\.wait_group\.read\s+0;", ptx)


@kiln.jit
def load_named(d):
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    buf = kl.allocate_shared_memory(d.dtype, d.block_shape, d.layout)
    mbarrier.init(bar, count=1)
    mbarrier.expect(bar, d.block_type.nbytes)
    tma.async_load(d, [0, 0], bar, buf, multicast=False)
    mbarrier.wait(bar, 0)
    mbarrier.invalidate(bar)


def test_async_load_is_the_tma_load():
    k = kiln.compile(load_named, {"d": _desc(kl.float32)}, {}, target="cuda:sm_90a",
                     cache=False)
    assert "cp.async.bulk.tensor.2d.shared::cluster.global" in k.asm["ptx"]


# --- refusals, at the user's line ---

@kiln.jit
def e_min_f32(d):
    buf = kl.allocate_shared_memory(d.dtype, d.block_shape, d.layout)
    tma.async_atomic_min(d, [0, 0], buf)  # E:minf32


@kiln.jit
def e_max_f32(d):
    buf = kl.allocate_shared_memory(d.dtype, d.block_shape, d.layout)
    tma.async_atomic_max(d, [0, 0], buf)  # E:maxf32


@kiln.jit
def e_add_fp8(d):
    buf = kl.allocate_shared_memory(d.dtype, d.block_shape, d.layout)
    tma.async_atomic_add(d, [0, 0], buf)  # E:addfp8


@kiln.jit
def e_add_i64(d):
    buf = kl.allocate_shared_memory(d.dtype, d.block_shape, d.layout)
    tma.async_atomic_add(d, [0, 0], buf)  # E:addi64


@kiln.jit
def e_or_i64(d):
    buf = kl.allocate_shared_memory(d.dtype, d.block_shape, d.layout)
    tma.async_atomic_or(d, [0, 0], buf)  # E:ori64


@kiln.jit
def e_xor_f16(d):
    buf = kl.allocate_shared_memory(d.dtype, d.block_shape, d.layout)
    tma.async_atomic_xor(d, [0, 0], buf)  # E:xorf16


@kiln.jit
def e_and_i16(d):
    buf = kl.allocate_shared_memory(d.dtype, d.block_shape, d.layout)
    tma.async_atomic_and(d, [0, 0], buf)  # E:andi16


@kiln.jit
def e_src_shape(d):
    buf = kl.allocate_shared_memory(d.dtype, [16, 32], d.layout)
    tma.async_atomic_or(d, [0, 0], buf)  # E:shape


U32_SMEM = kl.NVMMASharedLayout.get_default_for([32, 32], kl.uint32)


@kiln.jit
def e_device_unsigned_min(base):
    d = tma.make_tensor_descriptor(base, shape=[64, 64], strides=[64, 1], block_shape=[32, 32],
                                   layout=U32_SMEM)
    buf = kl.allocate_shared_memory(kl.uint32, [32, 32], U32_SMEM)
    tma.async_atomic_min(d, [0, 0], buf)  # E:devmin


@kiln.jit
def e_read_only(d):
    tma.store_wait(0, read_only=1)  # E:readonly


TYPES = ("add: f16, bf16, f32, 32-bit and unsigned 64-bit integers; min, max: f16, bf16, 32- "
         "and 64-bit integers; and, or, xor: 32- and 64-bit integers")
ERRORS = [
    (e_min_f32, {"d": _desc(kl.float32)}, "E:minf32", "tma.async_atomic_min",
     r"tma.async_atomic_min: TMA reduce-stores have no min on fp32 \(supported: fp16, bf16, "
     r"i32, u32, i64, u64\)"),
    (e_max_f32, {"d": _desc(kl.float32)}, "E:maxf32", "tma.async_atomic_max",
     r"tma.async_atomic_max: TMA reduce-stores have no max on fp32 .*"),
    (e_add_fp8, {"d": _desc(kl.float8e4nv, (32, 64))}, "E:addfp8", "tma.async_atomic_add",
     r"tma.async_atomic_add: TMA reduce-stores have no add on fp8e4nv \(supported: fp16, "
     r"bf16, fp32, i32, u32, u64\)"),
    (e_add_i64, {"d": _desc(kl.int64)}, "E:addi64", "tma.async_atomic_add",
     r"tma.async_atomic_add: TMA reduce-stores have no add on i64 \(.*\): PTX adds 64-bit "
     r"integers as u64 only; describe the tensor as uint64 \(the same bits\)"),
    (e_xor_f16, {"d": _desc(kl.float16)}, "E:xorf16", "tma.async_atomic_xor",
     r"tma.async_atomic_xor: TMA reduce-stores have no xor on fp16 \(supported: i32, u32, "
     r"u64\)"),
    (e_or_i64, {"d": _desc(kl.int64)}, "E:ori64", "tma.async_atomic_or",
     r"tma.async_atomic_or: TMA reduce-stores have no or on i64 \(supported: i32, u32, u64\): "
     r"on an int64 tensor map the GPU stops with an illegal instruction; describe the tensor "
     r"as uint64 \(the same bits: tensor.view\(torch.uint64\)\)"),
    (e_and_i16, {"d": _desc(kl.int16)}, "E:andi16", "tma.async_atomic_and",
     r"tma.async_atomic_and: TMA reduce-stores have no and on i16 .*"),
    (e_src_shape, {"d": _desc(kl.int32)}, "E:shape", "tma.async_atomic_or",
     r"tma.async_atomic_or: src is \[16, 32\] x int32, the descriptor's block \[32, 32\] x "
     r"int32"),
    (e_device_unsigned_min, {"base": "*u32"}, "E:devmin", "tma.async_atomic_min",
     r"tma.async_atomic_min: a descriptor made with tma.make_tensor_descriptor holds u32 as "
     r"a signed type, which min would not compute unsigned \(or, for a 64-bit and, or, xor, "
     r"not at all\); pass a host TensorDescriptor"),
    (e_read_only, {"d": _desc(kl.float32)}, "E:readonly", "tma.store_wait",
     r"tma.store_wait: read_only must be a constexpr bool, got 1"),
]


@pytest.mark.parametrize("fn,sig,marker,anchor,message", ERRORS, ids=[e[2] for e in ERRORS])
def test_errors_point_at_the_call(fn, sig, marker, anchor, message):
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(fn, sig, {}, target="cuda:sm_90a", cache=False)
    located.assert_located(ei.value, HERE, marker, anchor, message, kiln.CompilationError)


def test_dsl_name_of_the_op():
    from kiln.compiler.dsl_names import dsl_message
    assert dsl_message("'tile_nv.async_tma_reduce' op TMA reduce-stores have no min on 'f32'") \
        == "tma.async_atomic_*: TMA reduce-stores have no min on 'f32'"
