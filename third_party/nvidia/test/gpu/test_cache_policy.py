"""Cache policies on a Hopper GPU (Gluon's ``cache_policy=``, after Triton 3.8): TMA loads and
stores with L2 eviction policies (generic and NVIDIA ones, predicated on and off) and cp.async
copies with a policy's cache modifier move exactly the data they move without one, against
torch on fresh random inputs. Skips cleanly without torch, a driver or an sm_90 device."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

import kiln  # noqa: E402
import kiln.language as kl  # noqa: E402
from kiln.language.nvidia import ampere, hopper  # noqa: E402
from kiln.language.nvidia.ampere import async_copy  # noqa: E402
from kiln.language.nvidia.hopper import mbarrier, tma  # noqa: E402
from kiln.nvidia.hopper import TensorDescriptor  # noqa: E402

FEP = hopper.FractionalEvictionPolicy


@pytest.fixture
def sm90(target):
    if target != "cuda:sm_90a":
        pytest.skip(f"TMA needs sm_90a; this device's target is {target}")
    return target


@kiln.jit
def tma_copy(in_desc, out_desc, PRED: kl.constexpr, LOAD_POLICY: kl.constexpr,
             STORE_POLICY: kl.constexpr):
    smem = kl.allocate_shared_memory(in_desc.dtype, in_desc.block_shape, in_desc.layout)
    bar = mbarrier.allocate_mbarrier()
    mbarrier.init(bar, count=1)
    mbarrier.expect(bar, in_desc.block_type.nbytes, pred=PRED)
    tma.async_load(in_desc, [0, 0], bar, smem, pred=PRED, cache_policy=LOAD_POLICY)
    mbarrier.wait(bar, phase=0, pred=PRED)
    mbarrier.invalidate(bar)
    if not PRED:
        layout: kl.constexpr = kl.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])
        smem.store(kl.full(in_desc.block_shape, -1, in_desc.dtype, layout))
        hopper.fence_async_shared()
    tma.async_store(out_desc, [0, 0], smem, cache_policy=STORE_POLICY)
    tma.store_wait(0)


POLICIES = [None, kl.CachePolicy(), kl.CachePolicy(eviction_policy="evict_first"),
            kl.CachePolicy(eviction_policy="evict_last"),
            hopper.CachePolicy(l2=FEP("evict_first", 1.0)),
            hopper.CachePolicy(l2=FEP("evict_normal", 1.0)),
            hopper.CachePolicy(l2=FEP("evict_last", 0.5, "evict_first")),
            hopper.CachePolicy(l2=FEP("evict_unchanged", 0.25, "evict_first"))]


@pytest.mark.parametrize("side", ["load", "store"])
@pytest.mark.parametrize("pred", [True, False])
@pytest.mark.parametrize("policy", POLICIES, ids=range(len(POLICIES)))
def test_tma_copy_with_policy(sm90, side, pred, policy):
    layout = kl.NVMMASharedLayout(swizzle_byte_width=64, element_bitwidth=16, rank=2)
    x = torch.randn(64, 32, device="cuda", dtype=torch.float16)
    y = torch.zeros_like(x)
    tma_copy[(1,)](TensorDescriptor.from_tensor(x, [64, 32], layout),
                   TensorDescriptor.from_tensor(y, [64, 32], layout), pred,
                   policy if side == "load" else None, policy if side == "store" else None,
                   num_warps=4)
    torch.cuda.synchronize()
    assert torch.equal(y, x if pred else torch.full_like(x, -1))


@kiln.jit
def cp_async_copy(src, dst, POLICY: kl.constexpr):
    layout: kl.constexpr = kl.BlockedLayout([4], [32], [4], [0])
    offs = kl.arange(0, 512, layout)
    smem = kl.allocate_shared_memory(kl.float32, [512], kl.SwizzledSharedLayout(1, 1, 1, [0]))
    async_copy.async_copy_global_to_shared(smem, src + offs, cache_policy=POLICY)
    async_copy.commit_group()
    async_copy.wait_group(0)
    kl.store(dst + offs, smem.load(layout))


@pytest.mark.parametrize("policy", [
    None, kl.CachePolicy(eviction_policy="evict_first"), kl.CachePolicy(".ca"),
    ampere.CachePolicy(cache_modifier=".ca", l2=FEP("evict_last", 0.5, "evict_first"),
                       l2_prefetch_size=128),
    ampere.CachePolicy(l2=FEP("evict_last", 1.0))], ids=range(5))
def test_cp_async_with_policy(target, policy):
    if not target.startswith("cuda"):
        pytest.skip("cp.async is NVIDIA's")
    x = torch.randn(512, device="cuda")
    y = torch.zeros_like(x)
    cp_async_copy[(1,)](x, y, policy, num_warps=4)
    torch.cuda.synchronize()
    assert torch.equal(y, x)
