"""ldmatrix / stmatrix for any layout of their shape (Gluon's test_ldstmatrix_register_order
cases, after Triton 3.8) on an NVIDIA GPU: a round trip through shared memory gives back every
element, against torch on fresh random inputs (test/Python/test_ldstmatrix_dsl.py checks the
instructions). Skips cleanly without torch or a GPU."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

import kiln  # noqa: E402
import kiln.language as kl  # noqa: E402


@kiln.jit
def round_trip(inp, out, N: kl.constexpr, store_layout: kl.constexpr,
               load_layout: kl.constexpr, shared_layout: kl.constexpr):
    offsets = kl.arange(0, N, layout=store_layout)
    values = kl.load(inp + offsets)
    smem = kl.allocate_shared_memory(inp.dtype.element_ty, [N], shared_layout)
    smem.store(values)
    values = smem.load(load_layout)
    offsets = kl.arange(0, N, layout=load_layout)
    kl.store(out + offsets, values)


CASES = [(torch.float16, [8], [16, 32, 1, 2, 4]), (torch.float16, [64, 32, 128, 256], [8, 16, 1, 2, 4]),
         (torch.int8, [128, 1, 2, 256, 512], [4, 8, 16, 32, 64]),
         (torch.float16, [64, 1, 128, 256], [2, 4, 8, 16, 32]),
         (torch.float32, [32, 64, 128], [1, 2, 4, 8, 16]),
         (torch.float16, [1, 64], [2, 4, 8, 16, 32])]


@pytest.mark.parametrize("op", ["ld", "st"])
@pytest.mark.parametrize("dtype,reg_bases,lane_bases", CASES, ids=range(len(CASES)))
def test_round_trip(target, op, dtype, reg_bases, lane_bases):
    if not target.startswith("cuda"):
        pytest.skip("ldmatrix / stmatrix are NVIDIA's")
    if op == "st" and torch.cuda.get_device_capability()[0] < 9:
        pytest.skip("stmatrix needs sm_90")
    size = 32 << len(reg_bases)
    shared_bases = [[1 << i] for i in range(size.bit_length() - 1)]
    if size > 512:
        shared_bases[9][0] ^= 16
    shared = kl.SharedLinearLayout(shared_bases)
    layout = kl.DistributedLinearLayout(reg_bases=[[b] for b in reg_bases],
                                        lane_bases=[[b] for b in lane_bases], warp_bases=[],
                                        block_bases=[], shape=[size])
    blocked = kl.BlockedLayout([1], [32], [1], [0])
    store, load = (layout, blocked) if op == "st" else (blocked, layout)
    inp = torch.randint(-100, 100, (size,), dtype=torch.int32, device="cuda").to(dtype)
    out = torch.empty_like(inp)
    round_trip[(1,)](inp, out, size, store, load, shared, num_warps=1)
    torch.cuda.synchronize()
    assert torch.equal(out, inp)
