"""kiln.language.nvidia.hopper.bulk (Gluon's ``hopper.bulk.async_load``): a copy of contiguous
global bytes into a shared buffer, completing on an mbarrier. The kernels compile for sm_90a to
one ``cp.async.bulk`` each (multicast in a cluster), and every argument error points at the
user's line with a caret."""

from __future__ import annotations

import os

import pytest

import kiln
import kiln.language as kl
from kiln.language.nvidia.hopper import bulk, cluster, mbarrier

import compiled
import located
from bulk_kernels import SH, ROW, copy_kernel, multicast_kernel, ring_kernel

pytestmark = compiled.needs_compiler

HERE = os.path.abspath(__file__)
BULK = "global.mbarrier::complete_tx::bytes"  # .shared::cta, or ::cluster with multicast


SIG = {"src": "*fp32:16", "dst": "*fp32:16", "n_bytes": "i32"}


@pytest.mark.parametrize("runtime", [False, True])
def test_copy_compiles_to_one_bulk_copy(runtime):
    k = kiln.compile(copy_kernel, SIG, {"N": 1024, "RUNTIME": runtime},
                     target="cuda:sm_90a", cache=False)
    ptx = k.asm["ptx"]
    assert ptx.count(BULK) == 1, ptx
    # Into this CTA's shared memory: PTX 8.6's .shared::cta form (as Gluon), the module's
    # PTX version raised for it.
    assert "cp.async.bulk.shared::cta.global" in ptx and ".version 8.6" in ptx
    # The expect arms the barrier for the same bytes (a run-time count in a register).
    assert ptx.count("mbarrier.arrive.expect_tx") >= 1


def test_kernels_without_bulk_copies_keep_ptx_8_3():
    @kiln.jit
    def plain(src, dst):
        offs = kl.arange(0, 512, ROW)
        kl.store(dst + offs, kl.load(src + offs))
    k = kiln.compile(plain, {"src": "*fp32:16", "dst": "*fp32:16"}, {}, target="cuda:sm_90a",
                     cache=False)
    assert ".version 8.3" in k.asm["ptx"]


def test_ring_compiles():
    k = kiln.compile(ring_kernel, {"src": "*fp32:16", "dst": "*fp32:16", "steps": "i32"},
                     {"N": 512}, target="cuda:sm_90a", cache=False)
    assert k.asm["ptx"].count(BULK) == 3


@pytest.mark.parametrize("multicast", [False, True])
def test_multicast_in_a_cluster(multicast):
    k = kiln.compile(multicast_kernel, {"src": "*fp32:16", "dst": "*fp32:16"},
                     {"N": 1024, "MULTICAST": multicast}, target="cuda:sm_90a",
                     num_ctas=2, cache=False)
    ptx = k.asm["ptx"]
    assert ptx.count(BULK) == 1
    assert ("multicast::cluster" in ptx) == multicast
    assert ("cp.async.bulk.shared::cluster.global" in ptx) == multicast


@kiln.jit
def e_not_smem(src, dst):
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    bulk.async_load(dst, src, 64, bar)  # E:smem


@kiln.jit
def e_bytes(src, dst):
    buf = kl.allocate_shared_memory(kl.float32, [64], SH)
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    bulk.async_load(buf, src, 100, bar)  # E:bytes


@kiln.jit
def e_too_many(src, dst):
    buf = kl.allocate_shared_memory(kl.float32, [64], SH)
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    bulk.async_load(buf, src, 512, bar)  # E:many


@kiln.jit
def e_pointer_block(src, dst):
    buf = kl.allocate_shared_memory(kl.float32, [64], SH)
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    bulk.async_load(buf, src + kl.arange(0, 128, ROW), 256, bar)  # E:ptr


@kiln.jit
def e_float_bytes(src, dst):
    buf = kl.allocate_shared_memory(kl.float32, [64], SH)
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    bulk.async_load(buf, src, kl.load(src), bar)  # E:fbytes


@kiln.jit
def e_subslice(src, dst):
    buf = kl.allocate_shared_memory(kl.float32, [16, 64], kl.SwizzledSharedLayout(1, 1, 1,
                                                                                  [1, 0]))
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    bulk.async_load(buf.slice(0, 32, dim=1), src, 256, bar)  # E:sub


ERRORS = [
    (e_not_smem, "E:smem", "bulk.async_load",
     r"bulk.async_load: smem must be a shared memory descriptor, got .*"),
    (e_bytes, "E:bytes", "bulk.async_load",
     r"bulk.async_load: num_bytes must be a positive multiple of 16, got 100"),
    (e_too_many, "E:many", "bulk.async_load",
     r"bulk.async_load: num_bytes is 512, more than the destination's 256 bytes "
     r"\(smem.nbytes_per_cta\)"),
    (e_pointer_block, "E:ptr", "bulk.async_load",
     r"bulk.async_load: pointer must be a scalar global-memory pointer, got .*"),
    (e_float_bytes, "E:fbytes", "bulk.async_load",
     r"bulk.async_load: num_bytes must be a scalar integer of at most 32 bits, got .*"),
    (e_subslice, "E:sub", "bulk.async_load",
     r".*result must be one contiguous byte range \(a slot, or a view whose elements fill a "
     r"range of it\), got .*"),
]


@pytest.mark.parametrize("fn,marker,anchor,message", ERRORS, ids=[e[1] for e in ERRORS])
def test_errors_point_at_the_call(fn, marker, anchor, message):
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(fn, {"src": "*fp32:16", "dst": "*fp32:16"}, {}, target="cuda:sm_90a",
                     cache=False)
    located.assert_located(ei.value, HERE, marker, anchor, message, kiln.CompilationError)


@kiln.jit
def rank_kernel(out):
    kl.store(out + kl.program_id(0), cluster.cta_rank())


@pytest.mark.parametrize("num_ctas", [1, 2, 4])
def test_cluster_cta_rank(num_ctas):
    """hopper.cluster.cta_rank (Gluon's, after Triton 3.8): the low bits of the CTA's x index,
    as every cluster split takes the rank; the constant 0 outside a cluster."""
    k = kiln.compile(rank_kernel, {"out": "*i32"}, {}, target="cuda:sm_90a",
                     num_ctas=num_ctas, cache=False)
    tile = k.asm["tile"]
    if num_ctas == 1:
        assert "arith.andi" not in tile
    else:
        assert f"arith.constant {num_ctas - 1} : i32" in tile and "arith.andi" in tile
