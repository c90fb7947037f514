"""A Triton (``triton.language``) flash-attention forward written for bench/attention.py's
comparison: FlashAttention-2's algorithm as Triton's fused-attention tutorial has it (one
program per block of BLOCK_M query rows and (batch, head), K and V streamed in blocks of
BLOCK_N with ``tl.dot``, the online softmax in exp2 with the scale folded in, the loop
pipelined by Triton's ``num_stages``), on [B, N, H, D] fp16 / bf16 tensors, non-causal and
causal (bottom-right aligned as FlashAttention). It returns O only. Needs Triton; imported
only when the bench is asked for it."""

from __future__ import annotations

import math

import torch
import triton
import triton.language as tl


@triton.jit
def _attn_fwd(Q, K, V, O, stride_qb, stride_qn, stride_qh, stride_kb, stride_kn, stride_kh,
              stride_ob, stride_on, stride_oh, H, N_Q, N_K, qk_scale,
              HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
              CAUSAL: tl.constexpr):
    pid_m = tl.program_id(0)
    b = tl.program_id(1) // H
    h = tl.program_id(1) % H
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    dims = tl.arange(0, HEAD_DIM)
    q = tl.load(Q + b * stride_qb + h * stride_qh + rows[:, None] * stride_qn + dims[None, :],
                mask=rows[:, None] < N_Q, other=0.0)
    m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    hi = N_K
    if CAUSAL:
        hi = tl.minimum(N_K, tl.maximum((pid_m + 1) * BLOCK_M + N_K - N_Q, 0))
    k_base = K + b * stride_kb + h * stride_kh
    v_base = V + b * stride_kb + h * stride_kh
    for start in range(0, hi, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        kt = tl.load(k_base + cols[None, :] * stride_kn + dims[:, None],
                     mask=cols[None, :] < N_K, other=0.0)
        s = tl.dot(q, kt)
        valid = cols[None, :] < N_K
        if CAUSAL:
            valid = valid & (cols[None, :] <= rows[:, None] + (N_K - N_Q))
        s = tl.where(valid, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1) * qk_scale)
        m_use = tl.where(m_new == float("-inf"), 0.0, m_new)
        p = tl.math.exp2(s * qk_scale - m_use[:, None])
        alpha = tl.math.exp2(m_i - m_use)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_base + cols[:, None] * stride_kn + dims[None, :],
                    mask=cols[:, None] < N_K, other=0.0)
        acc = acc * alpha[:, None]
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_new
    acc = acc / tl.where(l_i == 0.0, 1.0, l_i)[:, None]
    tl.store(O + b * stride_ob + h * stride_oh + rows[:, None] * stride_on + dims[None, :],
             acc.to(O.dtype.element_ty), mask=rows[:, None] < N_Q)


def triton_attention(q, k, v, causal=False, BLOCK_M=128, BLOCK_N=64, num_warps=8,
                     num_stages=3):
    """O of softmax(Q K^T / sqrt(D)) V for q, k, v [B, N, H, D] (one head count)."""
    B, N_Q, H, D = q.shape
    N_K = k.shape[1]
    o = torch.empty_like(q)
    grid = (triton.cdiv(N_Q, BLOCK_M), B * H)
    _attn_fwd[grid](q, k, v, o, q.stride(0), q.stride(1), q.stride(2), k.stride(0),
                    k.stride(1), k.stride(2), o.stride(0), o.stride(1), o.stride(2), H, N_Q,
                    N_K, 1.0 / math.sqrt(D) * 1.4426950408889634, HEAD_DIM=D,
                    BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, CAUSAL=bool(causal),
                    num_warps=num_warps, num_stages=num_stages)
    return o
