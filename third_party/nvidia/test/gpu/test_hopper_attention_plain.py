"""examples/hopper_attention_plain.py, the Hopper flash-attention forward written with one K
buffer, one V buffer and one mbarrier in a ``gl.range(..., num_stages=STAGES)`` loop that the
pipeliner turns into a TMA ring: against an fp32 torch reference on fresh random inputs (fp16
and bf16, head dims 64, 128 and 256, causal and not, grouped-query heads, lengths that are not
multiples of the blocks), and the same bits as the loop left as written (STAGES 1) and as the
hand-pipelined single-partition kernel. Skips cleanly without torch, a driver or an sm_90
device."""

from __future__ import annotations

import math
import os
import sys

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "..", "examples"))
sys.path.insert(0, HERE)
import hopper_attention  # noqa: E402
import hopper_attention_plain  # noqa: E402
from test_hopper_attention import reference  # noqa: E402


@pytest.fixture
def sm90(target):
    if target != "cuda:sm_90a":
        pytest.skip(f"TMA and wgmma need sm_90a; this device's target is {target}")
    return target


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("D", [64, 128, 256])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("H,H_KV", [(4, 4), (8, 2)])
@pytest.mark.parametrize("Nq,Nk", [(1, 1), (17, 1000), (200, 77), (1000, 1000)])
def test_plain(sm90, dtype, D, causal, H, H_KV, Nq, Nk):
    B = 2
    q = torch.randn(B, Nq, H, D, device="cuda", dtype=dtype)
    k = torch.randn(B, Nk, H_KV, D, device="cuda", dtype=dtype)
    v = torch.randn(B, Nk, H_KV, D, device="cuda", dtype=dtype)
    o, lse = hopper_attention_plain.kiln_hopper_attention_plain(q, k, v, causal=causal)
    ro, rlse = reference(q, k, v, causal, 1.0 / math.sqrt(D))
    torch.testing.assert_close(o.float(), ro, atol=4e-2, rtol=4e-2)
    torch.testing.assert_close(lse, rlse, atol=2e-3, rtol=2e-3)
    BM, BN, _, W = hopper_attention_plain.PLAIN_CONFIGS[D]
    # The loop as written: the pipeliner changes when the copies are issued, not the math.
    o1, lse1 = hopper_attention_plain.kiln_hopper_attention_plain(q, k, v, causal=causal,
                                                                  config=(BM, BN, 1, W))
    o2, lse2 = hopper_attention_plain.kiln_hopper_attention_plain(q, k, v, causal=causal)
    torch.cuda.synchronize()
    assert torch.equal(o, o1) and torch.equal(lse, lse1)
    assert torch.equal(o, o2) and torch.equal(lse, lse2)


@pytest.mark.parametrize("D", [64, 128, 256])
@pytest.mark.parametrize("causal", [False, True])
def test_plain_is_the_hand_pipelined_kernel(sm90, D, causal):
    """The same math as hopper_attn_fwd_kernel, whose ring is built by hand: the same bits."""
    q, k, v = (torch.randn(2, 4097, 4, D, device="cuda", dtype=torch.float16)
               for _ in range(3))
    o, lse = hopper_attention_plain.kiln_hopper_attention_plain(q, k, v, causal=causal)
    oh, lseh = hopper_attention.kiln_hopper_attention(q, k, v, causal=causal,
                                                      warp_specialized=False)
    torch.cuda.synchronize()
    assert torch.equal(o, oh) and torch.equal(lse, lseh)
