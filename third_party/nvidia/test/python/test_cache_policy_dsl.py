"""Cache policies (Gluon's, after Triton 3.8): ``kl.CachePolicy`` and
``nvidia.ampere.CachePolicy`` / ``FractionalEvictionPolicy`` (hopper's are the same objects)
without a GPU: the checks Gluon makes, ``cache_policy=`` on loads, stores, cp.async copies and
TMA copies (not with the older ``cache_modifier=`` / ``eviction_policy=``), the cache modifier
of a cp.async copy, and a TMA copy's L2 policy as ``createpolicy.fractional`` and the copy's
``.L2::cache_hint`` (ptxas assembles every kernel). third_party/nvidia/test/gpu/
test_cache_policy.py runs the copies on a GPU."""

from __future__ import annotations

import os
import re

import pytest

import kiln
import kiln.language as kl
from kiln.language.nvidia import ampere, hopper
from kiln.language.nvidia.hopper import mbarrier, tma
from kiln.language.nvidia.ampere import async_copy

import compiled
import located

pytestmark = compiled.needs_compiler
HERE = os.path.abspath(__file__)
FEP = hopper.FractionalEvictionPolicy
F16_SW64 = kl.NVMMASharedLayout(swizzle_byte_width=64, element_bitwidth=16, rank=2)
F32_SW32 = kl.NVMMASharedLayout(swizzle_byte_width=32, element_bitwidth=32, rank=2)


def test_generic_policy_checks():
    assert kl.CachePolicy().cache_modifier == "none"
    assert kl.CachePolicy().eviction_policy == "evict_normal"
    assert kl.CachePolicy(".cg").cache_modifier == "cg"
    with pytest.raises(ValueError, match="Unsupported cache modifier"):
        kl.CachePolicy(".invalid")
    with pytest.raises(ValueError, match="Unsupported eviction policy"):
        kl.CachePolicy(eviction_policy="evict_unchanged")
    with pytest.raises(TypeError, match="cache_modifier must be a string"):
        kl.CachePolicy(3)


def test_nvidia_policy_checks():
    assert hopper.CachePolicy is ampere.CachePolicy and hopper.FractionalEvictionPolicy is FEP
    assert ampere.CachePolicy(".cg").cache_modifier == "cg"
    assert ampere.CachePolicy(l2_prefetch_size=64).l2_prefetch_size == 64
    assert FEP("evict_last", 1).fraction == 1.0
    for kwargs, message in [({"cache_modifier": ".none"}, "Unsupported cache modifier"),
                            ({"l1": "evict_immediately"}, "Unsupported L1"),
                            ({"l2": "evict_last"}, "l2 must be a FractionalEvictionPolicy"),
                            ({"l2_prefetch_size": 32}, "L2 prefetch size"),
                            ({"l2_prefetch_size": 64.0}, "L2 prefetch size"),
                            ({}, "requires a cache modifier, L1 policy, L2 policy")]:
        with pytest.raises((ValueError, TypeError), match=message):
            ampere.CachePolicy(**kwargs)
    with pytest.raises(ValueError, match=r"\(0, 1\]"):
        FEP("evict_last", 0.0)
    with pytest.raises(ValueError, match="must be finite"):
        FEP("evict_last", float("nan"))
    with pytest.raises(ValueError, match="Unsupported L2 secondary"):
        FEP("evict_first", 0.5, "evict_last")
    with pytest.raises(ValueError, match="Unsupported L2 primary"):
        FEP("no_allocate", 0.5)


@kiln.jit
def load_store_kernel(src, dst, LOAD_POLICY: kl.constexpr, STORE_POLICY: kl.constexpr):
    offs = kl.arange(0, 128, kl.BlockedLayout([1], [32], [4], [0]))
    v = kl.load(src + offs, cache_policy=LOAD_POLICY)
    kl.store(dst + offs, v, cache_policy=STORE_POLICY)


@kiln.jit
def in_kernel_policy(src, dst):
    offs = kl.arange(0, 128, kl.BlockedLayout([1], [32], [4], [0]))
    v = kl.load(src + offs, cache_policy=kl.CachePolicy(".cg", "evict_last"))
    kl.store(dst + offs, v, cache_policy=kl.CachePolicy(".cs", "evict_first"))


def _ptx(fn, sig, consts=None, num_warps=4):
    k = kiln.compile(fn, sig, consts or {}, target="cuda:sm_90a", num_warps=num_warps,
                     cache=False)
    assert k.asm.get("cubin")
    return k.asm["ptx"]


def test_loads_and_stores_take_policies():
    # Hints: checked, and the data moves as without them.
    plain = _ptx(load_store_kernel, {"src": "*fp32", "dst": "*fp32"},
                 {"LOAD_POLICY": None, "STORE_POLICY": None})
    for lp, sp in [(kl.CachePolicy(".cg", "evict_last"), kl.CachePolicy(".cs", "evict_first")),
                   (ampere.CachePolicy(l1="no_allocate", l2=FEP("evict_last", 0.33,
                                                                "evict_first"),
                                       l2_prefetch_size=128),
                    ampere.CachePolicy(l1="no_allocate"))]:
        ptx = _ptx(load_store_kernel, {"src": "*fp32", "dst": "*fp32"},
                   {"LOAD_POLICY": lp, "STORE_POLICY": sp})
        assert "ld.global" in ptx and "st.global" in ptx
        assert ptx.count("ld.global") == plain.count("ld.global")
    assert "ld.global" in _ptx(in_kernel_policy, {"src": "*fp32", "dst": "*fp32"})


@kiln.jit
def cp_async_kernel(src, dst, POLICY: kl.constexpr):
    layout: kl.constexpr = kl.BlockedLayout([4], [32], [4], [0])
    offs = kl.arange(0, 512, layout)
    smem = kl.allocate_shared_memory(kl.float32, [512], kl.SwizzledSharedLayout(1, 1, 1, [0]))
    async_copy.async_copy_global_to_shared(smem, src + offs, cache_policy=POLICY)
    async_copy.commit_group()
    async_copy.wait_group(0)
    kl.store(dst + offs, smem.load(layout))


@pytest.mark.parametrize("policy,modifier", [
    # 16-byte copies bypass L1 (.cg) unless the policy asks for .ca.
    (None, "cg"), (kl.CachePolicy(eviction_policy="evict_first"), "cg"),
    (kl.CachePolicy(".ca"), "ca"),
    (ampere.CachePolicy(cache_modifier=".ca", l2=FEP("evict_last", 0.5, "evict_first"),
                        l2_prefetch_size=128), "ca")])
def test_cp_async_takes_the_policys_cache_modifier(policy, modifier):
    ptx = _ptx(cp_async_kernel, {"src": "*fp32:16", "dst": "*fp32:16"}, {"POLICY": policy})
    ops = set(re.findall(r"cp\.async\.(c[ag])\.shared\.global", ptx))
    assert ops == {modifier}, ops


@kiln.jit
def tma_kernel(in_desc, out_desc, LOAD_POLICY: kl.constexpr, STORE_POLICY: kl.constexpr):
    smem = kl.allocate_shared_memory(in_desc.dtype, in_desc.block_shape, in_desc.layout)
    bar = mbarrier.allocate_mbarrier()
    mbarrier.init(bar, count=1)
    mbarrier.expect(bar, in_desc.block_type.nbytes)
    tma.async_load(in_desc, [0, 0], bar, smem, cache_policy=LOAD_POLICY)
    mbarrier.wait(bar, phase=0)
    mbarrier.invalidate(bar)
    tma.async_store(out_desc, [0, 0], smem, cache_policy=STORE_POLICY)
    tma.store_wait(0)


def _desc(block):
    return kl.tensor_descriptor_type(kl.float16, list(block), F16_SW64)


POLICIES = [
    (None, None),
    (kl.CachePolicy(), None),
    (kl.CachePolicy(eviction_policy="evict_first"), "createpolicy.fractional.L2::evict_first.b64"),
    (kl.CachePolicy(eviction_policy="evict_last"), "createpolicy.fractional.L2::evict_last.b64"),
    (hopper.CachePolicy(l2=FEP("evict_normal", 1.0)),
     "createpolicy.fractional.L2::evict_normal.b64"),
    (hopper.CachePolicy(l2=FEP("evict_last", 0.5, "evict_first")),
     "createpolicy.fractional.L2::evict_last.L2::evict_first.b64"),
    (hopper.CachePolicy(l2=FEP("evict_unchanged", 0.25, "evict_first")),
     "createpolicy.fractional.L2::evict_unchanged.L2::evict_first.b64"),
]


@pytest.mark.parametrize("side", ["load", "store"])
@pytest.mark.parametrize("policy,create", POLICIES, ids=range(len(POLICIES)))
def test_tma_copies_carry_the_l2_policy(side, policy, create):
    consts = {"LOAD_POLICY": policy if side == "load" else None,
              "STORE_POLICY": policy if side == "store" else None}
    ptx = _ptx(tma_kernel, {"in_desc": _desc([64, 32]), "out_desc": _desc([64, 32])}, consts)
    copies = [ln.strip() for ln in ptx.splitlines() if "cp.async.bulk.tensor" in ln]
    hinted = [ln for ln in copies if ".L2::cache_hint" in ln]
    if create is None:
        assert "createpolicy" not in ptx and not hinted
        return
    assert ptx.count("createpolicy") == 1 and create in ptx, ptx
    direction = "shared::cluster.global" if side == "load" else "global.shared::cta"
    assert hinted and all(direction in ln for ln in hinted), copies
    assert all(re.search(r", %rd\d+;$", ln) for ln in hinted), hinted  # the policy, last


@kiln.jit
def im2col_kernel(in_desc, out_desc, POLICY: kl.constexpr):
    smem = kl.allocate_shared_memory(in_desc.dtype, in_desc.block_shape, in_desc.layout)
    bar = mbarrier.allocate_mbarrier()
    mbarrier.init(bar, count=1)
    mbarrier.expect(bar, in_desc.block_type.nbytes)
    tma.async_load_im2col(in_desc, [0, 0, 0, 0], [0, 0], bar, smem, cache_policy=POLICY)
    mbarrier.wait(bar, phase=0)
    mbarrier.invalidate(bar)
    tma.async_store(out_desc, [0, 0], smem)
    tma.store_wait(pendings=0)


@pytest.mark.parametrize("policy", [None, hopper.CachePolicy(l2=FEP("evict_last", 0.5,
                                                                      "evict_first"))])
def test_im2col_load_carries_the_l2_policy(policy):
    # Gluon's test_tma_im2col: ".L2::cache_hint" in the PTX exactly when there is a policy.
    ptx = _ptx(im2col_kernel, {"in_desc": tma.tensor_descriptor_im2col_type(
        kl.float32, [32, 32], F32_SW32, 4), "out_desc": kl.tensor_descriptor_type(
        kl.float32, [32, 32], F32_SW32)}, {"POLICY": policy}, num_warps=1)
    assert (".L2::cache_hint" in ptx) == (policy is not None)


@kiln.jit
def e_both(x):
    offs = kl.arange(0, 128, kl.BlockedLayout([1], [32], [4], [0]))
    kl.load(x + offs, cache_modifier=".cg",  # E:both
            cache_policy=ampere.CachePolicy(l1="evict_first"))


@kiln.jit
def e_both_evict(x):
    offs = kl.arange(0, 128, kl.BlockedLayout([1], [32], [4], [0]))
    kl.store(x + offs, 1.0, eviction_policy="evict_last",  # E:bothev
             cache_policy=ampere.CachePolicy(l1="evict_first"))


@kiln.jit
def e_l1_modifier(x):
    offs = kl.arange(0, 128, kl.BlockedLayout([1], [32], [4], [0]))
    kl.load(x + offs, cache_policy=ampere.CachePolicy(".cg", l1="no_allocate"))  # E:l1cm


ERRORS = [
    (e_both, "E:both", "kl.load", r"load: cache_policy and cache_modifier are mutually "
                                  r"exclusive"),
    (e_both_evict, "E:bothev", "kl.store", r"store: cache_policy and eviction_policy are "
                                           r"mutually exclusive"),
    (e_l1_modifier, "E:l1cm", "kl.load", r"load: cache modifier cannot be combined with an L1 "
                                         r"eviction priority"),
]


@pytest.mark.parametrize("fn,marker,anchor,message", ERRORS, ids=[e[1] for e in ERRORS])
def test_errors_point_at_the_call(fn, marker, anchor, message):
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(fn, {"x": "*fp32"}, {}, target="cuda:sm_90a", cache=False)
    located.assert_located(ei.value, HERE, marker, anchor, message, kiln.CompilationError)


@kiln.jit
def tma_policy_kernel(in_desc, POLICY: kl.constexpr):
    smem = kl.allocate_shared_memory(in_desc.dtype, in_desc.block_shape, in_desc.layout)
    bar = mbarrier.allocate_mbarrier()
    mbarrier.init(bar, count=1)
    mbarrier.expect(bar, in_desc.block_type.nbytes)
    tma.async_load(in_desc, [0, 0], bar, smem, cache_policy=POLICY)  # E:tma
    mbarrier.wait(bar, phase=0)


@pytest.mark.parametrize("policy,message", [
    (hopper.CachePolicy(l1="evict_first"), r"tma.async_load: TMA operations do not support L1"
                                           r" eviction priorities"),
    (hopper.CachePolicy(cache_modifier=".cg"), r"tma.async_load: TMA operations do not support "
                                               r"cache modifiers"),
    (kl.CachePolicy(".cg"), r"tma.async_load: TMA operations do not support cache modifiers"),
    (hopper.CachePolicy(l2_prefetch_size=128), r"tma.async_load: TMA operations do not "
                                               r"support L2 prefetch size"),
    ("evict_last", r"tma.async_load: TMA cache_policy must be a CachePolicy, got 'evict_last'"),
])
def test_tma_refuses_what_it_cannot_carry(policy, message):
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(tma_policy_kernel, {"in_desc": _desc([64, 32])}, {"POLICY": policy},
                     target="cuda:sm_90a", cache=False)
    located.assert_located(ei.value, HERE, "E:tma", "tma.async_load", message,
                           kiln.CompilationError)
