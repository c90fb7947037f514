"""Shared memory holding pointers (Gluon's test_shared_memory_pointers, after Triton 3.8):
a tensor of pointers written with allocate_shared_memory's initial value, store or scatter,
read back with load or gather and dereferenced, against torch. Skips cleanly without torch or
a GPU."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

import kiln.language as kl  # noqa: E402
import gluon_later_kernels as K  # noqa: E402


@pytest.mark.parametrize("per_thread", [1, 2])
@pytest.mark.parametrize("write", ["local_alloc", "local_store", "local_scatter"])
@pytest.mark.parametrize("read", ["local_load", "local_gather"])
def test_pointers_round_trip(target, per_thread, write, read):
    warp = 64 if target.startswith("hip") else 32
    block = 4 * warp * per_thread
    layout = kl.BlockedLayout([per_thread], [warp], [4], [0])
    values = torch.randint(-1000, 1000, (block,), dtype=torch.int32, device="cuda")
    output = torch.empty_like(values)
    rev = torch.arange(block - 1, -1, -1, dtype=torch.int32, device="cuda")
    K.pointers_kernel[(1,)](values, rev, output, block, layout, write, read, num_warps=4)
    torch.cuda.synchronize()
    flipped = (write == "local_scatter") != (read == "local_gather")
    assert torch.equal(output, values.flip(0) if flipped else values)
