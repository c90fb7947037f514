"""Flash-attention forward in Kiln's DSL, written with Gluon's names (``triton.experimental.gluon``
-> ``kiln`` is the only change): the plain form, without TMA or warp specialization.

``attn_fwd_kernel`` computes, for each (sequence, head) and block of BM query rows,
O = softmax(Q K^T * sm_scale) V and the rows' log-sum-exp, streaming over the keys in blocks
of BN (FlashAttention-2's online softmax): S = Q K^T by ``mma_v2`` (m16n8k16 tensor cores,
fp32 accumulation), the running row maximum and sum in registers, ``exp2`` with the scale
folded into one multiply, P converted to the A-operand layout in registers, O += P V by
``mma_v2``; K and V tiles pass through shared memory, the loop pipelined by the compiler
(``range(..., num_stages=STAGES)``: asynchronous copies STAGES - 1 tiles ahead). Q, K and V are fp16 or bf16 in FlashAttention's varlen layout: rows of all
sequences packed along dim 0 ([total, heads, head_dim]), sequence i's rows from
``cu_seqlens[i]`` to ``cu_seqlens[i + 1]`` (a fixed-length batch is the case of equal
lengths). Grouped-query attention: query head h reads key/value head h // (H // H_KV).
``CAUSAL`` masks key j of query row i unless j <= i + (len_k - len_q) (the bottom-right
alignment FlashAttention uses when the lengths differ). Rows with no key (only possible when
causal with len_q > len_k) give O = 0 and LSE = -inf.

``kiln_attention(q, k, v, ...)`` is the host wrapper;
third_party/nvidia/test/gpu/test_attention.py checks it against an fp32 torch reference.
"""

from __future__ import annotations

import math

import kiln
import kiln.language as gl
from kiln.language.nvidia.ampere import mma_v2

__all__ = ["attn_fwd_kernel", "attn_fwd_tuned_kernel", "kiln_attention", "TUNING_CONFIGS"]

LOG2E = 1.4426950408889634


@kiln.jit
def attn_fwd_kernel(q_ptr, k_ptr, v_ptr, o_ptr, lse_ptr, cu_q_ptr, cu_k_ptr,
                    stride_qt, stride_qh, stride_kt, stride_kh, stride_vt, stride_vh,
                    stride_ot, stride_oh, H, H_KV, qk_scale,
                    HEAD_DIM: gl.constexpr, BM: gl.constexpr, BN: gl.constexpr,
                    CAUSAL: gl.constexpr, WARPS: gl.constexpr, STAGES: gl.constexpr):
    mma: gl.constexpr = gl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[WARPS, 1],
                                                  instr_shape=[16, 8])
    a_op: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=mma, k_width=2)
    b_op: gl.constexpr = gl.DotOperandLayout(operand_index=1, parent=mma, k_width=2)
    row_l: gl.constexpr = gl.SliceLayout(1, mma)
    col_l: gl.constexpr = gl.SliceLayout(0, mma)
    dtype: gl.constexpr = q_ptr.dtype.element_ty

    pid_m = gl.program_id(0)
    seq = gl.program_id(1) // H
    head = gl.program_id(1) % H
    kv_head = head // (H // H_KV)
    q_start = gl.load(cu_q_ptr + seq)
    len_q = gl.load(cu_q_ptr + seq + 1) - q_start
    k_start = gl.load(cu_k_ptr + seq)
    len_k = gl.load(cu_k_ptr + seq + 1) - k_start

    # Q [BM, HEAD_DIM] straight into the A-operand layout.
    qm = pid_m * BM + gl.arange(0, BM, gl.SliceLayout(1, a_op))
    qd = gl.arange(0, HEAD_DIM, gl.SliceLayout(0, a_op))
    q = gl.load(q_ptr + (q_start + qm[:, None]) * stride_qt + head * stride_qh + qd[None, :],
                mask=qm[:, None] < len_q, other=0.0)

    # K and V tiles [BN, HEAD_DIM]: 16-byte loads along the head dim, staged in swizzled
    # shared memory, read back as B operands (K^T through a permuted view). In a
    # range(..., num_stages=STAGES) loop the compiler turns the loads into a ring of
    # asynchronous copies.
    kv_ld: gl.constexpr = gl.BlockedLayout([1, 8], [32 // (HEAD_DIM // 8), HEAD_DIM // 8],
                                           [WARPS, 1], [1, 0])
    kv_sl: gl.constexpr = gl.SwizzledSharedLayout(8, 1, 8, [1, 0])
    kv_n = gl.arange(0, BN, gl.SliceLayout(1, kv_ld))
    kv_d = gl.arange(0, HEAD_DIM, gl.SliceLayout(0, kv_ld))
    # Strides are multiples of 8 elements (the host checks); written so, the alignment
    # analysis sees 16-byte rows.
    stride_kt = stride_kt // 8 * 8
    stride_vt = stride_vt // 8 * 8
    stride_kh = stride_kh // 8 * 8
    stride_vh = stride_vh // 8 * 8
    k_base = k_ptr + k_start * stride_kt + kv_head * stride_kh
    v_base = v_ptr + k_start * stride_vt + kv_head * stride_vh

    rows = pid_m * BM + gl.arange(0, BM, row_l)
    m_i = gl.full([BM], float("-inf"), gl.float32, row_l)
    l_i = gl.zeros([BM], gl.float32, row_l)
    acc = gl.zeros([BM, HEAD_DIM], gl.float32, mma)

    hi = len_k
    if CAUSAL:
        # The last row of this block sees keys up to its index + (len_k - len_q).
        hi = gl.minimum(len_k, gl.maximum((pid_m + 1) * BM + len_k - len_q, 0))
    for start_n in gl.range(0, hi, BN, num_stages=STAGES):
        n_ok = (start_n + kv_n)[:, None] < len_k
        k = gl.load(k_base + (start_n + kv_n)[:, None] * stride_kt + kv_d[None, :],
                    mask=n_ok, other=0.0)
        v = gl.load(v_base + (start_n + kv_n)[:, None] * stride_vt + kv_d[None, :],
                    mask=n_ok, other=0.0)
        k_s = gl.allocate_shared_memory(dtype, [BN, HEAD_DIM], kv_sl, value=k)
        v_s = gl.allocate_shared_memory(dtype, [BN, HEAD_DIM], kv_sl, value=v)
        s = mma_v2(q, k_s.permute((1, 0)).load(b_op), gl.zeros([BM, BN], gl.float32, mma))
        s = s * qk_scale
        cols = start_n + gl.arange(0, BN, col_l)
        valid = cols[None, :] < len_k
        if CAUSAL:
            valid = valid & (cols[None, :] <= rows[:, None] + (len_k - len_q))
        s = gl.where(valid, s, float("-inf"))
        m_new = gl.maximum(m_i, gl.max(s, axis=1))
        # A row that has seen no key yet keeps -inf: subtract 0 instead (exp2 gives 0s).
        m_use = gl.where(m_new == float("-inf"), 0.0, m_new)
        p = gl.exp2(s - m_use[:, None])
        alpha = gl.exp2(m_i - m_use)
        l_i = l_i * alpha + gl.sum(p, axis=1)
        acc = acc * alpha[:, None]
        acc = mma_v2(gl.convert_layout(p.to(dtype), a_op), v_s.load(b_op), acc)
        m_i = m_new

    l_use = gl.where(l_i == 0.0, 1.0, l_i)
    o = acc / l_use[:, None]
    od = gl.arange(0, HEAD_DIM, col_l)
    gl.store(o_ptr + (q_start + rows[:, None]) * stride_ot + head * stride_oh + od[None, :],
             o.to(dtype), mask=rows[:, None] < len_q)
    # Natural-log LSE of the scaled scores: (m + log2 l) / log2(e); -inf for a row of no key.
    lse = gl.where(l_i == 0.0, float("-inf"), (m_i + gl.log2(l_use)) * 0.6931471805599453)
    gl.store(lse_ptr + (q_start + rows) * H + head, lse, mask=rows < len_q)


def _cu_seqlens(lengths, device):
    import torch
    cu = torch.zeros(len(lengths) + 1, dtype=torch.int32, device=device)
    cu[1:] = torch.tensor(lengths, dtype=torch.int32, device=device).cumsum(0)
    return cu


@kiln.jit
def attn_fwd_tuned_kernel(q_ptr, k_ptr, v_ptr, o_ptr, lse_ptr, cu_q_ptr, cu_k_ptr,
                          stride_qt, stride_qh, stride_kt, stride_kh, stride_vt, stride_vh,
                          stride_ot, stride_oh, H, H_KV, qk_scale, MAX_SEQLEN,
                          HEAD_DIM: gl.constexpr, CAUSAL: gl.constexpr, BM: gl.constexpr,
                          BN: gl.constexpr, STAGES: gl.constexpr):
    """attn_fwd_kernel for kiln.autotune (``tuned=True``): the config's tile, ring depth and
    warps; MAX_SEQLEN, the longest sequence, is part of the tuning key (the kernel does not
    read it)."""
    attn_fwd_kernel(q_ptr, k_ptr, v_ptr, o_ptr, lse_ptr, cu_q_ptr, cu_k_ptr,
                    stride_qt, stride_qh, stride_kt, stride_kh, stride_vt, stride_vh,
                    stride_ot, stride_oh, H, H_KV, qk_scale, HEAD_DIM, BM, BN, CAUSAL,
                    gl.num_warps(), STAGES)


# What kiln_attention(..., tuned=True) chooses among: 16 query rows a warp; the 128-key tiles
# with two stages, so that K and V rings of head dim 128 fit in an A100's shared memory.
TUNING_CONFIGS = [
    kiln.Config({"BM": 64, "BN": 64, "STAGES": 3}, num_warps=4),
    kiln.Config({"BM": 64, "BN": 64, "STAGES": 2}, num_warps=4),
    kiln.Config({"BM": 64, "BN": 128, "STAGES": 2}, num_warps=4),
    kiln.Config({"BM": 128, "BN": 64, "STAGES": 3}, num_warps=8),
    kiln.Config({"BM": 128, "BN": 128, "STAGES": 2}, num_warps=8),
]
attn_fwd_tuned = kiln.autotune(TUNING_CONFIGS, key=["MAX_SEQLEN", "H", "H_KV", "HEAD_DIM",
                                                    "CAUSAL"])(attn_fwd_tuned_kernel)


def kiln_attention(q, k, v, causal=False, sm_scale=None, cu_seqlens_q=None, cu_seqlens_k=None,
                   max_seqlen_q=None, BM=64, BN=64, num_warps=4, num_stages=3, tuned=False):
    """Attention forward. Fixed length: q [B, Nq, H, D], k and v [B, Nk, H_KV, D]. Varlen:
    q [total_q, H, D], k and v [total_k, H_KV, D] with int32 ``cu_seqlens_q`` /
    ``cu_seqlens_k`` of B + 1 entries (and ``max_seqlen_q``). fp16 or bf16, D in
    (64, 128); H a multiple of H_KV. Returns (o, lse): o like q, lse fp32 [total_q, H] (fixed
    length: [B, Nq, H]). ``tuned=True``: the tile, ring depth and warps are kiln.autotune's
    pick among TUNING_CONFIGS (once per longest sequence, heads, head dim, causality and
    dtype, remembered on disk) instead of BM, BN, num_warps and num_stages."""
    import torch
    fixed = cu_seqlens_q is None
    if fixed:
        B, Nq, H, D = q.shape
        Nk = k.shape[1]
        cu_q = _cu_seqlens([Nq] * B, q.device)
        cu_k = _cu_seqlens([Nk] * B, q.device)
        max_q = Nq
        q3, k3, v3 = (t.reshape(-1, *t.shape[2:]) for t in (q, k, v))
    else:
        if cu_seqlens_k is None or max_seqlen_q is None:
            raise ValueError("varlen attention needs cu_seqlens_q, cu_seqlens_k and "
                             "max_seqlen_q")
        q3, k3, v3 = q, k, v
        B = cu_seqlens_q.numel() - 1
        H, D = q.shape[1], q.shape[2]
        cu_q, cu_k, max_q = cu_seqlens_q.int(), cu_seqlens_k.int(), int(max_seqlen_q)
    H_KV = k3.shape[1]
    if q.dtype not in (torch.float16, torch.bfloat16) or k.dtype != q.dtype or \
            v.dtype != q.dtype:
        raise TypeError(f"q, k, v must be fp16 or bf16 of one dtype, got {q.dtype}, "
                        f"{k.dtype}, {v.dtype}")
    if D not in (64, 128) or k3.shape[2] != D or v3.shape[2] != D:
        raise ValueError(f"head dim must be 64 or 128 for q, k and v, got {D}")
    if H % H_KV:
        raise ValueError(f"query heads ({H}) must be a multiple of key/value heads ({H_KV})")
    for name, t in (("q", q3), ("k", k3), ("v", v3)):
        if t.stride(2) != 1 or t.stride(0) % 8 or t.stride(1) % 8:
            raise ValueError(f"{name} must be contiguous along the head dim, with row and "
                             f"head strides multiples of 8 elements")
    scale = sm_scale if sm_scale is not None else 1.0 / math.sqrt(D)
    o = torch.empty_like(q3)
    lse = torch.empty((q3.shape[0], H), device=q.device, dtype=torch.float32)
    if tuned:
        attn_fwd_tuned[lambda meta: (_cdiv(max_q, meta["BM"]), B * H)](
            q3, k3, v3, o, lse, cu_q, cu_k, q3.stride(0), q3.stride(1), k3.stride(0),
            k3.stride(1), v3.stride(0), v3.stride(1), o.stride(0), o.stride(1), H, H_KV,
            scale * LOG2E, max_q, HEAD_DIM=D, CAUSAL=bool(causal))
    else:
        attn_fwd_kernel[(_cdiv(max_q, BM), B * H)](q3, k3, v3, o, lse, cu_q, cu_k,
                                                   q3.stride(0), q3.stride(1), k3.stride(0),
                                                   k3.stride(1), v3.stride(0), v3.stride(1),
                                                   o.stride(0), o.stride(1), H, H_KV,
                                                   scale * LOG2E, HEAD_DIM=D, BM=BM, BN=BN,
                                                   CAUSAL=bool(causal), WARPS=num_warps,
                                                   STAGES=num_stages, num_warps=num_warps)
    if fixed:
        return o.reshape(q.shape), lse.reshape(B, -1, H)
    return o, lse


def _cdiv(a, b):
    return (a + b - 1) // b
