"""warpgroup_mma's max_num_imprecise_acc as Triton reads it: other types ignore it; a value of
at least K is the hardware's accumulation; a smaller one promotes fp8 sums to fp32 every
ceil(value / 32) * 32 products of K (one wgmma per chunk, each added to the accumulator)."""

import pytest

import kiln
import kiln.language as kl
from kiln.language.nvidia import hopper

import compiled

pytestmark = compiled.needs_compiler


@kiln.jit
def opts(out, DT: kl.constexpr, KI: kl.constexpr, IMPRECISE: kl.constexpr):
    acc_layout: kl.constexpr = kl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                         instr_shape=[16, 64, KI])
    smem: kl.constexpr = kl.NVMMASharedLayout.get_default_for([64, 64], DT)
    sa = kl.allocate_shared_memory(DT, [64, 64], smem)
    sb = kl.allocate_shared_memory(DT, [64, 64], smem)  # [N, K], K contiguous
    sa.store(kl.full([64, 64], 0, kl.int8, kl.BlockedLayout([1, 16], [8, 4], [4, 1], [1, 0]))
             .to(DT, bitcast=True) if DT.primitive_bitwidth == 8 else
             kl.full([64, 64], 1.0, DT, kl.BlockedLayout([1, 8], [8, 4], [4, 1], [1, 0])))
    sb.store(kl.full([64, 64], 0, kl.int8, kl.BlockedLayout([1, 16], [8, 4], [4, 1], [1, 0]))
             .to(DT, bitcast=True) if DT.primitive_bitwidth == 8 else
             kl.full([64, 64], 1.0, DT, kl.BlockedLayout([1, 8], [8, 4], [4, 1], [1, 0])))
    hopper.fence_async_shared()
    acc = hopper.warpgroup_mma(sa, sb.permute((1, 0)), kl.zeros([64, 64], kl.float32, acc_layout),
                               max_num_imprecise_acc=IMPRECISE)
    rows = kl.arange(0, 64, kl.SliceLayout(1, acc_layout))[:, None]
    cols = kl.arange(0, 64, kl.SliceLayout(0, acc_layout))[None, :]
    kl.store(out + rows * 64 + cols, acc)


def _compile(dt, ki, imprecise):
    return kiln.compile(opts, {"out": "*fp32:16"}, {"DT": dt, "KI": ki, "IMPRECISE": imprecise},
                        target="cuda:sm_90a", cache=False)


def test_other_types_ignore_it():
    k = _compile(kl.bfloat16, 16, 32)
    assert "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16" in k.asm["ptx"]


def test_fp8_at_least_k_is_the_hardware_accumulation():
    k = _compile(kl.float8e4nv, 32, 64)
    assert "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3" in k.asm["ptx"]


@pytest.mark.parametrize("imprecise,chunks", [(32, 2), (33, 1), (1, 2), (63, 1)])
def test_fp8_promotion_inside_a_call(imprecise, chunks):
    """K=64: chunks of ceil(imprecise / 32) * 32 products, each a k32 wgmma of its own
    waited for before its fp32 add."""
    k = _compile(kl.float8e4nv, 32, imprecise)
    ptx = k.asm["ptx"]
    assert ptx.count("wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3") == 64 // 32
    assert ptx.count("wgmma.wait_group.sync.aligned 0") >= chunks


def test_fp8_promotion_needs_a_positive_count():
    with pytest.raises(kiln.CompilationError, match=r"max_num_imprecise_acc must be a positive "
                       r"int, got 0"):
        _compile(kl.float8e4nv, 32, 0)
