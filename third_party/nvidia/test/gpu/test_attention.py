"""examples/attention.py's flash-attention forward (plain form, mma_v2) against an fp32 torch
reference on fresh random inputs: fp16 and bf16, head dims 64 and 128, causal (bottom-right
aligned when the lengths differ) and not, grouped-query heads, lengths that are not multiples
of the block, a varlen batch mixing them; the log-sum-exp too, and the same bits on a second
run."""

from __future__ import annotations

import math
import os
import sys

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..",
                                "examples"))
import attention  # noqa: E402


@pytest.fixture
def sm80(target):
    if not target.startswith("cuda:sm_") or int(target.split("_")[1].rstrip("a")) < 80:
        pytest.skip(f"mma_v2 needs sm_80+; this device's target is {target}")
    return target


def reference(q, k, v, cu_q, cu_k, causal, scale):
    """(o, lse) in fp32 for packed q [Tq, H, D], k/v [Tk, H_KV, D]."""
    H, H_KV = q.shape[1], k.shape[1]
    outs, lses = [], []
    for i in range(cu_q.numel() - 1):
        qi = q[cu_q[i]:cu_q[i + 1]].float()
        ki = k[cu_k[i]:cu_k[i + 1]].float().repeat_interleave(H // H_KV, dim=1)
        vi = v[cu_k[i]:cu_k[i + 1]].float().repeat_interleave(H // H_KV, dim=1)
        lq, lk = qi.shape[0], ki.shape[0]
        s = torch.einsum("qhd,khd->hqk", qi, ki) * scale
        if causal:
            rows = torch.arange(lq, device=q.device)[:, None]
            cols = torch.arange(lk, device=q.device)[None, :]
            s = s.masked_fill(cols > rows + (lk - lq), float("-inf"))
        lse = torch.logsumexp(s, dim=-1)                      # [H, lq]
        p = torch.softmax(s, dim=-1).nan_to_num(0.0)          # rows of no key: 0
        outs.append(torch.einsum("hqk,khd->qhd", p, vi))
        lses.append(lse.transpose(0, 1))
    return torch.cat(outs), torch.cat(lses)


def check(q, k, v, cu_q, cu_k, causal, o, lse):
    scale = 1.0 / math.sqrt(q.shape[-1])
    ro, rlse = reference(q, k, v, cu_q, cu_k, causal, scale)
    tol = 2e-2 if q.dtype == torch.float16 else 4e-2
    torch.testing.assert_close(o.float(), ro, atol=tol, rtol=tol)
    torch.testing.assert_close(lse, rlse, atol=2e-3, rtol=2e-3)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("D", [64, 128])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("H,H_KV", [(4, 4), (8, 2)])
@pytest.mark.parametrize("Nq,Nk", [(1, 1), (17, 17), (300, 300), (17, 1000), (200, 77)])
def test_fixed_length(sm80, dtype, D, causal, H, H_KV, Nq, Nk):
    B = 2
    q = torch.randn(B, Nq, H, D, device="cuda", dtype=dtype)
    k = torch.randn(B, Nk, H_KV, D, device="cuda", dtype=dtype)
    v = torch.randn(B, Nk, H_KV, D, device="cuda", dtype=dtype)
    o, lse = attention.kiln_attention(q, k, v, causal=causal)
    torch.cuda.synchronize()
    cu_q = torch.arange(0, (B + 1) * Nq, Nq, device="cuda")
    cu_k = torch.arange(0, (B + 1) * Nk, Nk, device="cuda")
    check(q.reshape(-1, H, D), k.reshape(-1, H_KV, D), v.reshape(-1, H_KV, D), cu_q, cu_k,
          causal, o.reshape(-1, H, D), lse.reshape(-1, H))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("D", [64, 128])
@pytest.mark.parametrize("causal", [False, True])
def test_varlen_batch(sm80, dtype, D, causal):
    """One launch over sequences of lengths 1, 17, 1000 and 4097 (keys: other lengths),
    packed; the same bits when run again."""
    lq, lk = [1, 17, 1000, 4097], [5, 17, 999, 4097]
    H, H_KV = 8, 2
    cu_q = attention._cu_seqlens(lq, "cuda")
    cu_k = attention._cu_seqlens(lk, "cuda")
    q = torch.randn(sum(lq), H, D, device="cuda", dtype=dtype)
    k = torch.randn(sum(lk), H_KV, D, device="cuda", dtype=dtype)
    v = torch.randn(sum(lk), H_KV, D, device="cuda", dtype=dtype)
    run = lambda: attention.kiln_attention(q, k, v, causal=causal, cu_seqlens_q=cu_q,  # noqa
                                           cu_seqlens_k=cu_k, max_seqlen_q=max(lq))
    o, lse = run()
    o2, lse2 = run()
    torch.cuda.synchronize()
    check(q, k, v, cu_q, cu_k, causal, o, lse)
    assert torch.equal(o, o2) and torch.equal(lse, lse2)


def test_bad_arguments(sm80):
    q = torch.randn(1, 8, 4, 64, device="cuda", dtype=torch.float16)
    with pytest.raises(ValueError, match="multiple of key/value heads"):
        attention.kiln_attention(q, q[:, :, :3], q[:, :, :3])
    with pytest.raises(ValueError, match="head dim must be 64 or 128"):
        attention.kiln_attention(q[..., :32], q[..., :32], q[..., :32])
    with pytest.raises(TypeError, match="fp16 or bf16"):
        attention.kiln_attention(q.float(), q.float(), q.float())


@pytest.mark.parametrize("D", [64, 128])
@pytest.mark.parametrize("causal", [False, True])
def test_tuned(sm80, D, causal):
    """tuned=True: kiln.autotune's pick among TUNING_CONFIGS (each config ran while tuning)
    gives the reference's O and LSE, on a varlen batch."""
    lq, lk = [17, 300, 1000], [5, 333, 999]
    H, H_KV, dtype = 4, 2, torch.float16
    cu_q = attention._cu_seqlens(lq, "cuda")
    cu_k = attention._cu_seqlens(lk, "cuda")
    q = torch.randn(sum(lq), H, D, device="cuda", dtype=dtype)
    k = torch.randn(sum(lk), H_KV, D, device="cuda", dtype=dtype)
    v = torch.randn(sum(lk), H_KV, D, device="cuda", dtype=dtype)
    o, lse = attention.kiln_attention(q, k, v, causal=causal, cu_seqlens_q=cu_q,
                                      cu_seqlens_k=cu_k, max_seqlen_q=max(lq), tuned=True)
    torch.cuda.synchronize()
    check(q, k, v, cu_q, cu_k, causal, o, lse)
    assert attention.attn_fwd_tuned.best_config in attention.TUNING_CONFIGS
