"""hopper.cluster.cta_rank (Gluon's, after Triton 3.8) on a Hopper GPU: each CTA of clusters of
1, 2 and 4 writes its rank at cluster index * num_ctas + rank: every place is written once, with
0 .. num_ctas - 1 within each cluster. Skips
cleanly without torch, a driver or an sm_90 device."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

import kiln  # noqa: E402
import kiln.language as kl  # noqa: E402
from kiln.language.nvidia.hopper import cluster  # noqa: E402


@kiln.jit
def rank_kernel(out, N: kl.constexpr):
    # program_id is the cluster's index (as in Triton); each CTA writes its rank at its place.
    rank = cluster.cta_rank()
    kl.store(out + kl.program_id(0) * N + rank, rank)


@pytest.mark.parametrize("num_ctas", [1, 2, 4])
def test_cta_rank(target, num_ctas):
    if target != "cuda:sm_90a":
        pytest.skip(f"clusters need sm_90a; this device's target is {target}")
    clusters = 3
    out = torch.full((clusters * num_ctas,), -1, device="cuda", dtype=torch.int32)
    rank_kernel[(clusters,)](out, num_ctas, num_warps=4, num_ctas=num_ctas)
    torch.cuda.synchronize()
    assert out.tolist() == list(range(num_ctas)) * clusters
