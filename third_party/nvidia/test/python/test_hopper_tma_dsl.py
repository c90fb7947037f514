"""kiln.language.nvidia.hopper's TMA and wgmma builtins (Gluon's names): examples/hopper.py's
GEMM and copy compile for sm_90a to the expected instructions, and every argument error of
the builtins points at the user's line with a caret."""

from __future__ import annotations

import os
import re
import sys

import pytest

import kiln
import kiln.language as kl
from kiln.language.nvidia.hopper import (fence_async_shared, mbarrier, tma, warpgroup_mma,
                                         warpgroup_mma_wait)

import compiled
import located

pytestmark = compiled.needs_compiler

HERE = os.path.abspath(__file__)
NV = kl.NVMMASharedLayout.get_default_for([128, 64], kl.bfloat16)
NV256 = kl.NVMMASharedLayout.get_default_for([128, 256], kl.bfloat16)
ACC = kl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, 64, 16])
DESC = kl.tensor_descriptor_type(kl.bfloat16, [128, 64], NV)
SIG = {"d": DESC, "x": "*fp32:16"}


def test_layouts():
    assert NV == kl.NVMMASharedLayout(128, 16, 2)
    assert kl.NVMMASharedLayout.get_default_for([64, 16], kl.bfloat16).swizzle_byte_width == 32
    assert kl.NVMMASharedLayout.get_default_for([4, 64], kl.bfloat16).swizzle_byte_width == 0
    assert NV.permuted([1, 0]).transposed and NV.permuted([1, 0]).permuted([1, 0]) == NV


def test_examples_compile_to_tma_and_wgmma():
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "..", "..", "..", ".."))
    from examples import hopper
    t = kl.tensor_descriptor_type
    k = hopper.gemm_kernel.warmup(t(kl.bfloat16, [128, 64], NV), t(kl.bfloat16, [256, 64], NV),
                                  t(kl.bfloat16, [128, 256], NV256), 4096, 4096, 4096,
                                  STAGES=3, GROUP_M=8, num_warps=8, grid=(1,),
                                  target="cuda:sm_90a")
    ptx = k.asm["ptx"]
    # 2 loads in each of 2 prologue steps and 2 in the loop; 4 boxes of 64 columns stored.
    assert ptx.count("cp.async.bulk.tensor.2d.shared::cluster.global") == 6
    assert ptx.count("cp.async.bulk.tensor.2d.global.shared::cta") == 4
    # One warpgroup instruction per k-step of 16 (BK = 64), m64n256 (BN = 256 per warpgroup).
    assert ptx.count("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16") == 4
    assert "wgmma.wait_group.sync.aligned 1;" in ptx
    assert k.metadata["params"][0] == {
        "name": "a_desc", "type": "tensordesc", "dtype": "bf16", "block_shape": [128, 64],
        "layout": {"swizzle_byte_width": 128, "element_bitwidth": 16, "rank": 2,
                   "transposed": False, "fp4_padded": False}}
    copy = hopper.tma_copy_kernel.warmup(t(kl.float32, [32, 32], kl.NVMMASharedLayout(
        128, 32)), t(kl.float32, [32, 32], kl.NVMMASharedLayout(128, 32)), grid=(1,),
        target="cuda:sm_90a")
    assert "mbarrier.try_wait.parity" in copy.asm["ptx"]


def test_descriptor_on_sm80_is_an_error():
    @kiln.jit
    def k(d, x):
        pass
    with pytest.raises(kiln.CompilationError, match="is a tensor descriptor, which cuda:sm_80"):
        kiln.compile(k, SIG, {}, target="cuda:sm_80", cache=False)


@kiln.jit
def e_not_desc(d, x):
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    buf = kl.allocate_shared_memory(kl.bfloat16, [128, 64], NV)
    tma.async_copy_global_to_shared(x, [0, 0], bar, buf)  # E:notdesc


@kiln.jit
def e_coord_count(d, x):
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    buf = kl.allocate_shared_memory(kl.bfloat16, [128, 64], NV)
    tma.async_copy_global_to_shared(d, [0], bar, buf)  # E:count


@kiln.jit
def e_coord_tensor(d, x):
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    buf = kl.allocate_shared_memory(kl.bfloat16, [128, 64], NV)
    tma.async_copy_global_to_shared(d, [0, kl.arange(0, 128, ACC_1D)], bar, buf)  # E:scalar


@kiln.jit
def e_shape(d, x):
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    buf = kl.allocate_shared_memory(kl.bfloat16, [64, 64], NV)
    tma.async_copy_global_to_shared(d, [0, 0], bar, buf)  # E:shape


@kiln.jit
def e_layout(d, x):
    buf = kl.allocate_shared_memory(kl.bfloat16, [128, 64], kl.NVMMASharedLayout(64, 16))
    tma.async_copy_shared_to_global(d, [0, 0], buf)  # E:layout


@kiln.jit
def e_store_wait(d, x):
    tma.store_wait(-1)  # E:wait


@kiln.jit
def e_fence(d, x):
    fence_async_shared(cluster=1)  # E:fence


@kiln.jit
def e_mma_register_a(d, x):
    acc = kl.zeros([128, 64], kl.float32, ACC)
    b = kl.allocate_shared_memory(kl.bfloat16, [64, 64], NV)
    warpgroup_mma(acc, b, acc)  # E:rega


@kiln.jit
def e_mma_register_a_dtype(d, x):
    acc = kl.zeros([128, 64], kl.float32, ACC)
    a = kl.zeros([128, 64], kl.float16, kl.DotOperandLayout(0, ACC, 2))
    b = kl.allocate_shared_memory(kl.bfloat16, [64, 64], NV)
    warpgroup_mma(a, b.permute((1, 0)), acc)  # E:regadt


@kiln.jit
def e_mma_register_a_fp8_kwidth(d, x):
    acc = kl.zeros([128, 64], kl.float32, ACC)
    a = kl.zeros([128, 64], kl.float8e4nv, kl.DotOperandLayout(0, ACC, 2))
    b = kl.allocate_shared_memory(kl.float8e4nv, [64, 64],
                                  kl.NVMMASharedLayout.get_default_for([64, 64], kl.float8e4nv))
    warpgroup_mma(a, b.permute((1, 0)), acc)  # E:regakw


@kiln.jit
def e_mma_a_scalar(d, x):
    acc = kl.zeros([128, 64], kl.float32, ACC)
    b = kl.allocate_shared_memory(kl.bfloat16, [64, 64], NV)
    warpgroup_mma(1.0, b.permute((1, 0)), acc)  # E:ascalar


@kiln.jit
def e_mma_b_tensor(d, x):
    acc = kl.zeros([128, 64], kl.float32, ACC)
    a = kl.allocate_shared_memory(kl.bfloat16, [128, 64], NV)
    warpgroup_mma(a, acc, acc)  # E:btensor


@kiln.jit
def e_mma_fp8_option(d, x):
    acc = kl.zeros([128, 64], kl.float32, ACC)
    nv8: kl.constexpr = kl.NVMMASharedLayout.get_default_for([128, 64], kl.float8e4nv)
    a = kl.allocate_shared_memory(kl.float8e4nv, [128, 64], nv8)
    b = kl.allocate_shared_memory(kl.float8e4nv, [64, 64], nv8)
    warpgroup_mma(a, b.permute((1, 0)), acc, max_num_imprecise_acc=-32)  # E:imprecise


@kiln.jit
def e_mma_wait_deps(d, x):
    warpgroup_mma_wait(0)  # E:deps


@kiln.jit
def e_acc_layout(d, x):
    bad: kl.constexpr = kl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[4, 1],  # E:ver
                                                  instr_shape=[16, 8, 16])


ACC_1D = kl.BlockedLayout([1], [32], [4], [0])

ERRORS = [
    (e_not_desc, "E:notdesc", "tma.async_copy_global_to_shared",
     r"tma.async_copy_global_to_shared: tensor_desc must be a tensor descriptor .*"),
    (e_coord_count, "E:count", "tma.async_copy_global_to_shared",
     r"tma.async_copy_global_to_shared: the descriptor's block has rank 2, but 1 coordinates "
     r"are given"),
    (e_coord_tensor, "E:scalar", "tma.async_copy_global_to_shared",
     r"tma.async_copy_global_to_shared: coordinates must be scalars, got .*"),
    (e_shape, "E:shape", "tma.async_copy_global_to_shared",
     r"tma.async_copy_global_to_shared: result is \[64, 64\] x bf16, the descriptor's block "
     r"\[128, 64\] x bf16"),
    (e_layout, "E:layout", "tma.async_copy_shared_to_global",
     r"tma.async_copy_shared_to_global: src's layout NVMMASharedLayout\(swizzle_byte_width=64"
     r".* is not the descriptor's NVMMASharedLayout\(swizzle_byte_width=128.*\)"),
    (e_store_wait, "E:wait", "tma.store_wait",
     r"tma.store_wait: pendings must be a constexpr int >= 0, got -1"),
    (e_fence, "E:fence", "fence_async_shared",
     r"fence_async_shared: cluster must be a constexpr bool, got 1"),
    (e_mma_register_a, "E:rega", "warpgroup_mma",
     r"warpgroup_mma: a in registers must be in DotOperandLayout\(0, acc's layout, "
     r"k_width=2\), got NVMMADistributedLayout\(version=\[3, 0\].*"),
    (e_mma_register_a_dtype, "E:regadt", "warpgroup_mma",
     r"warpgroup_mma: a in registers must be bfloat16, float16, float8e4nv or float8e5 like b, "
     r"got fp16 and bf16"),
    (e_mma_register_a_fp8_kwidth, "E:regakw", "warpgroup_mma",
     r"warpgroup_mma: a in registers must be in DotOperandLayout\(0, acc's layout, "
     r"k_width=4\), got DotOperandLayout\(operand_index=0.*k_width=2.*"),
    (e_mma_a_scalar, "E:ascalar", "warpgroup_mma",
     r"warpgroup_mma: a must be a shared memory descriptor or a tensor in "
     r"DotOperandLayout\(0, acc's layout, k_width=2\), got .*"),
    (e_mma_b_tensor, "E:btensor", "warpgroup_mma",
     r"warpgroup_mma: b must be a shared memory descriptor, got .*"),
    (e_mma_fp8_option, "E:imprecise", "warpgroup_mma",
     r"warpgroup_mma: max_num_imprecise_acc must be a positive int, got -32"),
    (e_mma_wait_deps, "E:deps", "warpgroup_mma_wait",
     r"warpgroup_mma_wait: deps must be given \(the accumulators to wait for\), as in Gluon"),
    (e_acc_layout, "E:ver", "kl.NVMMADistributedLayout",
     r"NVMMADistributedLayout: version \[2, 0\] \(mma.sync\) has instr_shape \[16, 8\], got "
     r"\[16, 8, 16\]"),
]


@pytest.mark.parametrize("fn,marker,anchor,message", ERRORS, ids=[e[1] for e in ERRORS])
def test_errors_point_at_the_call(fn, marker, anchor, message):
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(fn, SIG, {}, target="cuda:sm_90a", cache=False)
    located.assert_located(ei.value, HERE, marker, anchor, message, kiln.CompilationError)


def test_persistent_gemm_compiles_to_tma_wgmma_and_a_store_wait_per_tile():
    """examples/hopper.py's persistent GEMM: the same k-loop as gemm_kernel inside a loop over
    tiles (stride num_programs), the previous tile's TMA store waited for (and a CTA barrier)
    before the C tile is rewritten, a last wait after the tile loop."""
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "..", "..", "..", ".."))
    from examples import hopper
    t = kl.tensor_descriptor_type
    k = hopper.persistent_gemm_kernel.warmup(
        t(kl.bfloat16, [128, 64], NV), t(kl.bfloat16, [256, 64], NV),
        t(kl.bfloat16, [128, 256], NV256), 4096, 4096, 4096, STAGES=3, GROUP_M=8, num_warps=8,
        grid=(1,), target="cuda:sm_90a")
    ptx = k.asm["ptx"]
    assert k.asm.get("cubin")  # ptxas accepted it
    # 2 loads in each of 2 prologue steps and 2 in the k-loop; 4 boxes of 64 columns stored.
    assert ptx.count("cp.async.bulk.tensor.2d.shared::cluster.global") == 6
    assert ptx.count("cp.async.bulk.tensor.2d.global.shared::cta") == 4
    assert ptx.count("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16") == 4
    assert "wgmma.wait_group.sync.aligned 1;" in ptx
    assert "%nctaid.x" in ptx  # the tile loop's stride, gl.num_programs(0)
    # store_wait(0) before each tile's epilogue and once after the tile loop; every thread
    # passes a CTA barrier after it before any thread writes shared memory again.
    waits = [m.end() for m in re.finditer(r"cp\.async\.bulk\.wait_group\.read\s+0;", ptx)]
    assert len(waits) == 2
    for end in waits:
        bar = ptx.find("bar.sync", end)
        store = ptx.find("st.shared", end)
        assert store == -1 or bar != -1 and bar < store
    # Ring (3 x (16 + 32) KiB), one C tile (64 KiB) and 3 barriers, all allocated once.
    assert k.metadata["shared"] == 3 * (16 + 32) * 1024 + 64 * 1024 + 3 * 8


# --- tile-check-async-safety, from the DSL: the mistakes that hang or race a Hopper kernel ---

RING = kl.constexpr(3)


@kiln.jit
def s_wait_never_arrived(d, x):
    bars = kl.allocate_shared_memory(kl.int64, [2, 1], mbarrier.MBarrierLayout())
    buf = kl.allocate_shared_memory(kl.bfloat16, [128, 64], NV)
    mbarrier.init(bars.index(0), count=1)
    mbarrier.init(bars.index(1), count=1)
    mbarrier.expect(bars.index(0), d.block_type.nbytes)
    tma.async_copy_global_to_shared(d, [0, 0], bars.index(0), buf)
    mbarrier.wait(bars.index(1), 0)  # S:hang


@kiln.jit
def s_expect_wrong_bytes(d, x):
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    a = kl.allocate_shared_memory(kl.bfloat16, [128, 64], NV)
    b = kl.allocate_shared_memory(kl.bfloat16, [128, 64], NV)
    mbarrier.init(bar, count=1)
    mbarrier.expect(bar, d.block_type.nbytes)  # S:bytes
    tma.async_copy_global_to_shared(d, [0, 0], bar, a)
    tma.async_copy_global_to_shared(d, [0, 64], bar, b)
    mbarrier.wait(bar, 0)


@kiln.jit
def s_refill_while_read(d, x, n):
    a_bufs = kl.allocate_shared_memory(kl.bfloat16, [RING, 128, 64], NV)
    b_bufs = kl.allocate_shared_memory(kl.bfloat16, [RING, 128, 64], NV)
    bars = kl.allocate_shared_memory(kl.int64, [RING, 1], mbarrier.MBarrierLayout())
    for s in kl.static_range(RING):
        mbarrier.init(bars.index(s), count=1)
    acc = kl.zeros([128, 128], kl.float32, ACC128)
    for i in range(n):
        slot = i % RING
        mbarrier.wait(bars.index(slot), (i // RING) & 1)
        acc = warpgroup_mma(a_bufs.index(slot), b_bufs.index(slot).permute((1, 0)), acc,
                            is_async=True)
        nxt = (i + RING - 1) % RING
        mbarrier.expect(bars.index(nxt), 2 * d.block_type.nbytes)
        tma.async_copy_global_to_shared(d, [0, 0], bars.index(nxt), a_bufs.index(nxt))  # S:race
        tma.async_copy_global_to_shared(d, [0, 0], bars.index(nxt), b_bufs.index(nxt))
    acc = warpgroup_mma_wait(0, deps=(acc,))


ACC128 = kl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                   instr_shape=[16, 128, 16])

SAFETY = [
    (s_wait_never_arrived, "S:hang", "mbarrier.wait",
     r"mbarrier.wait waits on a barrier that nothing in this function arrives on "
     r"\(no expect or arrive on it\): its phase never completes and the wait never returns"),
    (s_expect_wrong_bytes, "S:bytes", "mbarrier.expect",
     r"mbarrier.expect announces 16384 transaction bytes, but the 2 writes "
     r"completing on this barrier before its next wait deliver 32768 bytes: the phase "
     r"completes before all the data lands"),
    (s_refill_while_read, "S:race", "tma.async_copy_global_to_shared",
     r"tma.async_copy_global_to_shared writes a shared buffer that the asynchronous "
     r"read of warpgroup_mma may still be reading: no wait on the 'wgmma' counter "
     r"with at most 1 pending comes between them \(the read was issued 1 iteration earlier\)"),
]


@pytest.mark.parametrize("fn,marker,anchor,message", SAFETY, ids=[e[1] for e in SAFETY])
def test_async_safety_errors_point_at_the_call(fn, marker, anchor, message):
    sig = dict(SIG, n="i32") if fn is s_refill_while_read else SIG
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(fn, sig, {}, target="cuda:sm_90a", cache=False)
    located.assert_located(ei.value, HERE, marker, anchor, message, kiln.CompilationError)


def test_async_safety_accepts_the_fixed_kernels():
    # The same kernels with the mistake fixed compile: the refill after warpgroup_mma_wait(1)
    # as examples/hopper.py does it (covered there), the expect for both tiles here.
    @kiln.jit
    def fixed(d, x):
        bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
        a = kl.allocate_shared_memory(kl.bfloat16, [128, 64], NV)
        b = kl.allocate_shared_memory(kl.bfloat16, [128, 64], NV)
        mbarrier.init(bar, count=1)
        mbarrier.expect(bar, 2 * d.block_type.nbytes)
        tma.async_copy_global_to_shared(d, [0, 0], bar, a)
        tma.async_copy_global_to_shared(d, [0, 64], bar, b)
        mbarrier.wait(bar, 0)
    assert "mbarrier.try_wait.parity" in kiln.compile(fixed, SIG, {}, target="cuda:sm_90a",
                                                      cache=False).asm["ptx"]


@kiln.jit
def fp8_register_a_promoted(x, IMPRECISE: kl.constexpr):
    acc = kl.zeros([128, 64], kl.float32, ACC)
    ld: kl.constexpr = kl.BlockedLayout([1, 16], [8, 4], [kl.num_warps(), 1], [1, 0])
    r = kl.arange(0, 128, kl.SliceLayout(1, ld))
    k = kl.arange(0, 64, kl.SliceLayout(0, ld))
    a = kl.convert_layout(kl.load(x + r[:, None] * 64 + k[None, :]), kl.DotOperandLayout(0, ACC, 4))
    b = kl.allocate_shared_memory(kl.float8e4nv, [64, 64],
                                  kl.NVMMASharedLayout.get_default_for([64, 64], kl.float8e4nv))
    warpgroup_mma(a, b.permute((1, 0)), acc, max_num_imprecise_acc=IMPRECISE)  # E:promote


def test_fp8_register_a_with_promotion_at_k_compiles():
    """fp8 A in registers with max_num_imprecise_acc of at least K (one chunk: nothing to
    slice), as a third-party Hopper FP8 MoE kernel passes it."""
    k = kiln.compile(fp8_register_a_promoted, {"x": "*fp8e4nv:16"}, {"IMPRECISE": 64},
                     target="cuda:sm_90a", num_warps=4, cache=False)
    assert k.asm["ptx"].count("wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3") == 4


def test_fp8_register_a_with_promotion_below_k_is_an_error():
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(fp8_register_a_promoted, {"x": "*fp8e4nv:16"}, {"IMPRECISE": 32},
                     target="cuda:sm_90a", num_warps=4, cache=False)
    located.assert_located(ei.value, HERE, "E:promote", "warpgroup_mma",
                           r"warpgroup_mma: max_num_imprecise_acc=32 below K=64 with a in "
                           r"registers .*", kiln.CompilationError)
