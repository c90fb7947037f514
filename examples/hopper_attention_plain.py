"""The Hopper flash-attention forward of examples/hopper_attention.py written the simple way:
one K buffer, one V buffer and one mbarrier, the key blocks in a
``gl.range(..., num_stages=STAGES)`` loop (expect, two TMA copies, wait, S = Q K^T by wgmma,
the online softmax, O += P V by wgmma), no warp specialization. Kiln's pipeliner turns the
loop into a STAGES-slot TMA ring with a barrier per slot (tile-nv-pipeline-tma, as for
examples/pipelined.py's tma_gemm_kernel) and, since both warpgroups read it, a second barrier
per slot that every warp arrives on once done reading; a refill waits for that instead of a
CTA barrier, so the warpgroups need not meet every block (hopper_attn_fwd_kernel, the same
ring built by hand, meets them with a CTA barrier before each refill). It runs at 0.88-1.02x
the warp-specialized kernel on an H200 (docs/results-attention.md).

``kiln_hopper_attention_plain(q, k, v, causal=False, sm_scale=None)`` takes and returns what
``kiln_hopper_attention`` does for fixed-length batches ([B, N, H, D]; K and V may have
fewer heads); third_party/nvidia/test/gpu/test_hopper_attention_plain.py checks it against
an fp32 torch reference and ``num_stages=1`` (the loop as written), and
``bench/attention.py --hopper plainpipe`` times it.
"""

from __future__ import annotations

import math

import kiln
import kiln.language as gl
from kiln.language.nvidia.hopper import mbarrier, tma, warpgroup_mma
from kiln.nvidia.hopper import TensorDescriptor

from hopper_attention import LOG2E, _block_range, _gl_dtype, _masked, _softmax_step, \
    _store_o_lse

__all__ = ["hopper_attn_fwd_plain_kernel", "kiln_hopper_attention_plain", "PLAIN_CONFIGS"]

# (BM, BN, STAGES, num_warps) by head dim: 64 query rows per warpgroup; three stages where
# shared memory holds them (224 KiB at head dim 128), two at 256.
PLAIN_CONFIGS = {64: (128, 128, 3, 8), 128: (128, 128, 3, 8), 256: (128, 64, 2, 8)}


@kiln.jit
def hopper_attn_fwd_plain_kernel(q_desc, k_desc, v_desc, o_ptr, lse_ptr, N_Q, N_K, H, H_KV,
                                 qk_scale, CAUSAL: gl.constexpr, STAGES: gl.constexpr,
                                 num_warps: gl.constexpr):
    BM: gl.constexpr = q_desc.block_type.shape[0]
    HEAD_DIM: gl.constexpr = q_desc.block_type.shape[1]
    BN: gl.constexpr = k_desc.block_type.shape[0]
    dtype: gl.constexpr = q_desc.dtype
    s_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0],
                                                       warps_per_cta=[num_warps, 1],
                                                       instr_shape=[16, BN, 16])
    o_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0],
                                                       warps_per_cta=[num_warps, 1],
                                                       instr_shape=[16, HEAD_DIM, 16])
    p_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=o_layout, k_width=2)
    row_l: gl.constexpr = gl.SliceLayout(1, s_layout)
    col_l: gl.constexpr = gl.SliceLayout(0, s_layout)
    o_row_l: gl.constexpr = gl.SliceLayout(1, o_layout)

    pid_m = gl.program_id(0)
    batch = gl.program_id(1) // H
    head = gl.program_id(1) % H
    kv_row = batch * N_K
    kv_col = (head // (H // H_KV)) * HEAD_DIM

    q_s = gl.allocate_shared_memory(dtype, [BM, HEAD_DIM], q_desc.layout)
    k_s = gl.allocate_shared_memory(dtype, [BN, HEAD_DIM], k_desc.layout)
    v_s = gl.allocate_shared_memory(dtype, [BN, HEAD_DIM], v_desc.layout)
    q_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(q_bar, count=1)
    mbarrier.init(bar, count=1)
    mbarrier.expect(q_bar, q_desc.block_type.nbytes)
    tma.async_copy_global_to_shared(q_desc, [batch * N_Q + pid_m * BM, head * HEAD_DIM], q_bar,
                                    q_s)
    num_n, first_masked = _block_range(pid_m, N_Q, N_K, BM, BN, CAUSAL)
    rows = pid_m * BM + gl.arange(0, BM, row_l)
    m_i = gl.full([BM], float("-inf"), gl.float32, row_l)
    l_i = gl.zeros([BM], gl.float32, row_l)
    acc = gl.zeros([BM, HEAD_DIM], gl.float32, o_layout)
    s_zero = gl.zeros([BM, BN], gl.float32, s_layout)
    mbarrier.wait(q_bar, 0)
    phase = 0
    for j in gl.range(0, num_n, num_stages=STAGES):
        mbarrier.expect(bar, k_desc.block_type.nbytes + v_desc.block_type.nbytes)
        tma.async_copy_global_to_shared(k_desc, [kv_row + j * BN, kv_col], bar, k_s)
        tma.async_copy_global_to_shared(v_desc, [kv_row + j * BN, kv_col], bar, v_s)
        mbarrier.wait(bar, phase)
        phase ^= 1
        s = warpgroup_mma(q_s, k_s.permute((1, 0)), s_zero, use_acc=False)
        s = _masked(s, j * BN, first_masked, rows, N_Q, N_K, CAUSAL, BN, col_l)
        p, m_i, l_i, alpha = _softmax_step(s, m_i, l_i, qk_scale)
        acc = acc * gl.convert_layout(alpha, o_row_l)[:, None]
        acc = warpgroup_mma(gl.convert_layout(p.to(dtype), p_layout), v_s, acc)
    mbarrier.invalidate(q_bar)
    mbarrier.invalidate(bar)

    _store_o_lse(acc, m_i, l_i, rows, o_ptr, lse_ptr, pid_m, batch, head, N_Q, H, dtype)


def kiln_hopper_attention_plain(q, k, v, causal=False, sm_scale=None, config=None):
    """Attention forward on sm_90a by the compiler-pipelined kernel: q [B, N_Q, H, D], k and
    v [B, N_K, H_KV, D], fp16 or bf16, contiguous, D in (64, 128, 256), H a multiple of H_KV;
    returns (o like q, lse fp32 [B, H, N_Q], natural log). ``config`` = (BM, BN, STAGES,
    num_warps) overrides PLAIN_CONFIGS[D]; STAGES 1 leaves the loop as written."""
    import torch
    if q.dim() != 4 or k.dim() != 4 or v.dim() != 4:
        raise ValueError("q, k and v must be [batch, seqlen, heads, head_dim]")
    B, N_Q, H, D = q.shape
    _, N_K, H_KV, _ = k.shape
    if k.shape[0] != B or v.shape != k.shape or k.shape[-1] != D or D not in PLAIN_CONFIGS:
        raise ValueError(f"head dim must be one of {sorted(PLAIN_CONFIGS)}, k and v of one "
                         f"shape and batch; got q {tuple(q.shape)}, k {tuple(k.shape)}, "
                         f"v {tuple(v.shape)}")
    if H % H_KV:
        raise ValueError(f"query heads ({H}) must be a multiple of key/value heads ({H_KV})")
    if q.dtype not in (torch.float16, torch.bfloat16) or k.dtype != q.dtype or \
            v.dtype != q.dtype:
        raise TypeError(f"q, k, v must be fp16 or bf16 of one dtype, got {q.dtype}, "
                        f"{k.dtype}, {v.dtype}")
    for name, t in (("q", q), ("k", k), ("v", v)):
        if not t.is_contiguous():
            raise ValueError(f"{name} must be contiguous")
    scale = sm_scale if sm_scale is not None else 1.0 / math.sqrt(D)
    BM, BN, STAGES, num_warps = config or PLAIN_CONFIGS[D]
    dt = _gl_dtype(q.dtype)
    o = torch.empty_like(q)
    lse = torch.empty((B, H, N_Q), device=q.device, dtype=torch.float32)

    def desc(t, rows, block):
        t2 = t.view(rows, -1)
        layout = gl.NVMMASharedLayout.get_default_for(list(block), dt)
        return TensorDescriptor(t2, list(t2.shape), list(t2.stride()), list(block), layout)

    grid = ((N_Q + BM - 1) // BM, B * H)
    hopper_attn_fwd_plain_kernel[grid](desc(q, B * N_Q, (BM, D)), desc(k, B * N_K, (BN, D)),
                                       desc(v, B * N_K, (BN, D)), o, lse, N_Q, N_K, H, H_KV,
                                       scale * LOG2E, CAUSAL=bool(causal), STAGES=STAGES,
                                       num_warps=num_warps)
    return o, lse
