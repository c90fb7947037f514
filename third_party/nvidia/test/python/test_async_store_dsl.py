"""hopper.async_store (Gluon's name after Triton 3.6): a tensor stored into shared memory by
PTX st.async, each store's bytes counted on an mbarrier, compiled for sm_90a in clusters: the
store width follows the layout (b32, packed halves, v4), threads that repeat elements store
nothing, so the barrier receives the buffer's bytes once, and misuse is refused at the
user's line. third_party/nvidia/test/gpu/test_async_store.py runs it against torch."""

from __future__ import annotations

import os
import re

import pytest

import kiln
import kiln.language as kl
from kiln.language.nvidia import hopper
from kiln.language.nvidia.hopper import mbarrier

import compiled
import located
from async_store_kernels import async_store_roundtrip

pytestmark = compiled.needs_compiler

HERE = os.path.abspath(__file__)
ST = "st.async.weak.shared::cluster.mbarrier::complete_tx::bytes"


def _ptx(block, v, dt, sig, cga=((0,),), num_ctas=2):
    return kiln.compile(async_store_roundtrip, {"out": sig},
                        {"BLOCK": block, "V": v, "DT": dt, "CGA": [list(b) for b in cga]},
                        target="cuda:sm_90a", num_ctas=num_ctas, num_warps=4,
                        cache=False).asm["ptx"]


@pytest.mark.parametrize("block,v,dt,sig,form,nbytes", [
    (128, 1, kl.int32, "*i32", ".b32", 512),      # Gluon's test: one word a thread
    (256, 2, kl.float16, "*fp16", ".b32", 512),   # two halves packed into a word
    (512, 4, kl.int32, "*i32", ".v4.b32", 2048),  # 16 bytes a store
    (1024, 8, kl.int32, "*i32", ".v4.b32", 4096),  # 32 bytes a thread: two stores
])
def test_store_forms(block, v, dt, sig, form, nbytes):
    ptx = _ptx(block, v, dt, sig)
    stores = re.findall(re.escape(ST) + r"(\S*) ", ptx)
    assert stores and all(s == form for s in stores)
    assert re.search(rf"mbarrier\.arrive\.expect_tx\.shared\.b64 _, \[%r\d+\], {nbytes};", ptx)
    # Each store is predicated: threads holding only repeated elements store nothing.
    assert all(line.strip().startswith("@%p") for line in ptx.splitlines() if ST in line)


def test_split_buffer_stores_each_ctas_part():
    # Split between the two CTAs: each stores its 64 elements (256 bytes) into its own part.
    ptx = _ptx(128, 1, kl.int32, "*i32", cga=((1,),))
    assert re.search(r"mbarrier\.arrive\.expect_tx\.shared\.b64 _, \[%r\d+\], 256;", ptx)
    assert ST + ".b32" in ptx


@kiln.jit
def e_one_cta(out):
    layout: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    smem = kl.allocate_shared_memory(kl.int32, [128], kl.SwizzledSharedLayout(1, 1, 1, [0]))
    bar = mbarrier.allocate_mbarrier()
    hopper.async_store(smem, kl.arange(0, 128, layout), bar)  # E:one


@kiln.jit
def e_shape(out):
    layout: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    smem = kl.allocate_shared_memory(kl.int32, [256], kl.SwizzledSharedLayout(1, 1, 1, [0]))
    bar = mbarrier.allocate_mbarrier()
    hopper.async_store(smem, kl.arange(0, 128, layout), bar)  # E:shape


@kiln.jit
def e_narrow(out):
    layout: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    smem = kl.allocate_shared_memory(kl.int8, [128], kl.SwizzledSharedLayout(1, 1, 1, [0]))
    bar = mbarrier.allocate_mbarrier()
    hopper.async_store(smem, kl.arange(0, 128, layout).to(kl.int8), bar)  # E:narrow


@kiln.jit
def e_split(out):
    layout: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0], cga_layout=[[1]])
    shared: kl.constexpr = kl.SwizzledSharedLayout(1, 1, 1, [0], cga_layout=[[0]])
    smem = kl.allocate_shared_memory(kl.int32, [128], shared)
    bar = mbarrier.allocate_mbarrier()
    hopper.async_store(smem, kl.arange(0, 128, layout), bar)  # E:split


@kiln.jit
def e_not_smem(out):
    layout: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    bar = mbarrier.allocate_mbarrier()
    hopper.async_store(out, kl.arange(0, 128, layout), bar)  # E:notsmem


@kiln.jit
def e_not_tensor(out):
    smem = kl.allocate_shared_memory(kl.int32, [128], kl.SwizzledSharedLayout(1, 1, 1, [0]))
    bar = mbarrier.allocate_mbarrier()
    hopper.async_store(smem, 3, bar)  # E:nottensor


ERRORS = [
    (e_not_smem, 2, "E:notsmem", "hopper.async_store",
     r"hopper.async_store: dst must be a shared memory descriptor, got .*"),
    (e_not_tensor, 2, "E:nottensor", "hopper.async_store",
     r"hopper.async_store: value must be a tensor, got 3"),
    (e_one_cta, 1, "E:one", "hopper.async_store",
     r"hopper.async_store: st.async needs a cluster of at least two CTAs \(launch with "
     r"num_ctas >= 2\), this kernel has num_ctas=1"),
    (e_shape, 2, "E:shape", "hopper.async_store",
     r"hopper.async_store: value is \[128\] x int32, dst \[256\] x int32"),
    (e_narrow, 2, "E:narrow", "hopper.async_store",
     r"hopper.async_store: stores 1 consecutive bytes a thread; st.async stores 4, 8 or 16: "
     r"use layouts that give each thread at least 4 consecutive bytes of the buffer .*"),
    (e_split, 2, "E:split", "hopper.async_store",
     r"hopper.async_store: the tensor's layout gives each CTA of the cluster a \[64\] part, "
     r"but the buffer's layout .* a \[128\] part"),
]


@pytest.mark.parametrize("fn,ctas,marker,anchor,message", ERRORS, ids=[e[2] for e in ERRORS])
def test_errors_point_at_the_call(fn, ctas, marker, anchor, message):
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(fn, {"out": "*i32"}, {}, target="cuda:sm_90a", num_ctas=ctas, num_warps=4,
                     cache=False)
    located.assert_located(ei.value, HERE, marker, anchor, message, kiln.CompilationError)
