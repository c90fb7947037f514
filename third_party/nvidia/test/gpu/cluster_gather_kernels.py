"""A gather from and a scatter into a buffer split among the CTAs of a cluster (distributed
shared memory), shared by the GPU test (values against torch) and the compile tests."""

from __future__ import annotations

import kiln
import kiln.language as kl


def layouts(num_ctas, tile=32):
    """(register layout, shared layout) of a [tile * num_ctas] vector split among the CTAs:
    CTA r holds elements r * tile ... (r + 1) * tile - 1."""
    bases = [[1 << b] for b in range(num_ctas.bit_length() - 1)]
    return (kl.BlockedLayout([1], [32], [1], [0], cga_layout=bases),
            kl.SwizzledSharedLayout(1, 1, 1, [0], cga_layout=bases))


@kiln.jit
def rotate_through_peers(out, SHIFT: kl.constexpr, TILE: kl.constexpr, L: kl.constexpr,
                         S: kl.constexpr):
    """out[i] = 3 * ((i + SHIFT) % block) + 1: each CTA seeds its part of a split buffer, then
    every element is read from the CTA that holds element (i + SHIFT) % block."""
    block: kl.constexpr = TILE * kl.num_ctas()
    offsets = kl.arange(0, block, layout=L)
    smem = kl.allocate_shared_memory(kl.int32, [block], S, offsets * 3 + 1)
    kl.barrier(cluster=True)
    got = smem.gather((offsets + SHIFT) % block, axis=0)
    kl.store(out + offsets, got)


@kiln.jit
def scatter_through_peers(out, SHIFT: kl.constexpr, TILE: kl.constexpr, L: kl.constexpr,
                          S: kl.constexpr):
    """out[(i + SHIFT) % block] = 3 * i + 1: each CTA writes every element of its part of the
    values into the CTA that holds element (i + SHIFT) % block, then reads its own part."""
    block: kl.constexpr = TILE * kl.num_ctas()
    offsets = kl.arange(0, block, layout=L)
    smem = kl.allocate_shared_memory(kl.int32, [block], S)
    kl.barrier(cluster=True)
    smem.scatter(offsets * 3 + 1, (offsets + SHIFT) % block, axis=0)
    kl.barrier(cluster=True)
    kl.store(out + offsets, smem.load(L))
