"""The kernel of hopper.async_store's tests (DSL and GPU): arange values stored into a shared
buffer by st.async in each CTA of a cluster, waited for on an mbarrier, read back and written
out."""

from __future__ import annotations

import kiln
import kiln.language as kl
from kiln.language.nvidia import hopper
from kiln.language.nvidia.hopper import mbarrier


@kiln.jit
def async_store_roundtrip(out, BLOCK: kl.constexpr, V: kl.constexpr, DT: kl.constexpr,
                          CGA: kl.constexpr):
    layout: kl.constexpr = kl.BlockedLayout([V], [32], [4], [0], cga_layout=CGA)
    shared: kl.constexpr = kl.SwizzledSharedLayout(1, 1, 1, order=[0], cga_layout=CGA)
    offsets = kl.arange(0, BLOCK, layout=layout)
    smem = kl.allocate_shared_memory(DT, [BLOCK], shared)
    bar = mbarrier.allocate_mbarrier()
    mbarrier.init(bar, count=1)
    mbarrier.expect(bar, smem.nbytes_per_cta)
    hopper.async_store(smem, offsets.to(DT), bar)
    mbarrier.wait(bar, phase=0, deps=[smem])
    result = smem.load(layout)
    mbarrier.invalidate(bar)
    kl.store(out + offsets, result)
