"""Flash-attention forward for Hopper (sm_90a) in Kiln's DSL, written with Gluon's names
(``triton.experimental.gluon`` -> ``kiln`` is the only change): the tensor-memory-accelerator
and warpgroup-MMA forms of examples/attention.py.

Both compute, for each (batch, head) and block of 128 query rows, O = softmax(Q K^T *
sm_scale) V and the rows' log-sum-exp, streaming over the keys in blocks of BN with
FlashAttention-2's online softmax: Q arrives once by TMA; K and V tiles [BN, D] by TMA into
a STAGES-deep ring of NVMMA-swizzled slots with one mbarrier per slot; S = Q K^T by
asynchronous wgmma with both operands in shared memory (K through a permuted view), 64 query
rows per warpgroup; the softmax in registers (``exp2`` with the scale folded into one
multiply-add, masking only on the blocks that need it: the last key block, and the diagonal
ones when CAUSAL); O += P V by wgmma with P from registers (the S accumulator converted to the
A-operand layout, which moves no data) and V from shared memory.

* ``hopper_attn_fwd_ws_kernel`` (the default): warp-specialized. A producer warp issues the
  TMA loads; two consumer warpgroups (the kernel's 4 warps and a worker partition) each own
  64 rows and run independently, releasing a K slot once S has retired and a V slot once
  P V has (each slot its own ``empty`` barrier, two arrivals a phase); registers 240 per consumer
  thread, 24 per producer thread (setmaxnreg). SCHEDULE picks the issue order (0: S,
  softmax, P V per block; 1: FlashAttention-3's intra-warpgroup overlap; 2: that and
  ping-pong turns between the two warpgroups, on mbarriers; 3: the same turns on named
  barriers); WS_SCHEDULES has the default by head dim.
* ``hopper_attn_fwd_kernel``: one partition of 8 warps that also issues the loads, a CTA
  barrier per block before a slot is refilled.

Q, K and V are [B, N, H, D] (or [B, N, H_KV, D] for K and V: grouped-query attention, query
head h reads key/value head h // (H // H_KV)), fp16 or bf16, contiguous, D in (64, 128, 256).
The descriptors view them as [B * N, H * D]: a K/V block that runs past its sequence's end
reads the next sequence's rows, which the mask sets to -inf before the softmax (and P = 0
multiplies V there); past the tensor's end TMA reads zeros. CAUSAL masks key j of query row i
unless j <= i + (N_K - N_Q) (FlashAttention's bottom-right alignment). The warp-specialized
form also takes variable-length batches (FlashAttention's varlen layout: sequences packed
along the rows, bounded by ``cu_seqlens`` arrays).

``kiln_hopper_attention(q, k, v, causal=False, sm_scale=None)`` is the host wrapper;
third_party/nvidia/test/gpu/test_hopper_attention.py checks it against an fp32 torch
reference, ``bench/attention.py --hopper ws,plain`` times it against torch's SDPA backends.
"""

from __future__ import annotations

import math

import kiln
import kiln.language as gl
from kiln.language.nvidia import named_barrier
from kiln.language.nvidia.hopper import mbarrier, tma, warpgroup_mma, warpgroup_mma_wait
from kiln.nvidia.hopper import TensorDescriptor

__all__ = ["hopper_attn_fwd_kernel", "hopper_attn_fwd_ws_kernel",
           "hopper_attn_fwd_ws_persistent_kernel", "hopper_attn_fwd_ws_tuned_kernel",
           "kiln_hopper_attention", "CONFIGS", "WS_CONFIGS", "WS_SCHEDULES", "WS_CONSUMERS",
           "WS_LAZY"]

LOG2E = 1.4426950408889634
LN2 = gl.constexpr(0.6931471805599453)
# _softmax_step's LAZY: how far (log2 units) a block must raise a row's maximum to move it.
LAZY_THRESHOLD = gl.constexpr(8.0)

# (BM, BN, STAGES, num_warps) by head dim: 64 query rows per warpgroup.
CONFIGS = {64: (128, 128, 3, 8), 128: (128, 128, 2, 8), 256: (128, 64, 2, 8)}
# (BN, STAGES, consumer registers) of the warp-specialized form by head dim.
WS_CONFIGS = {64: (128, 3, 240), 128: (128, 2, 240), 256: (64, 2, 240)}
# Its issue order (SCHEDULE) by head dim: the faster in the same runs on an H200 (16k tokens;
# at head dim 64 and 256 the warpgroups' turns won by 3-15 %; at 128, 2-8 % over order 0 at
# 8k and 16k tokens, causal or not, once the loop carried P as packed words).
WS_SCHEDULES = {64: 3, 128: 3, 256: 3}
# Consumer warpgroups of the kernel of one tile a program, by head dim: three at 64 (192
# query rows a program, 160 registers a thread; H200, 16k tokens, same run: 505.5 / 482.6
# TFLOP/s non-causal / causal against 453.9 / 438.5 with two), two where three groups' S
# and O do not fit in 160 registers (ptxas would serialize the wgmmas). Three take order 1.
WS_CONSUMERS = {64: 3, 128: 2, 256: 2}
# Lazy rescaling (_softmax_step's LAZY) of the warp-specialized forms by head dim: on where
# the accumulator's rescale is a large share of the softmax's instructions (head dim 256:
# 128 multiplies a thread a block against 32 exponentials); at 128 it ran within the runs'
# spread (-2.4 to +3.2 %), at 64 slower (H200, docs/results-attention.md).
WS_LAZY = {64: False, 128: False, 256: True}


@kiln.jit
def _issue_kv(k_desc, v_desc, k_bufs, v_bufs, bars, step, kv_row, kv_col, live,
              BN: gl.constexpr, STAGES: gl.constexpr):
    """TMA loads of key/value block ``step`` into its ring slot (none when not ``live``)."""
    slot = step % STAGES
    mbarrier.expect(bars.index(slot), k_desc.block_type.nbytes + v_desc.block_type.nbytes,
                    pred=live)
    tma.async_copy_global_to_shared(k_desc, [kv_row + step * BN, kv_col], bars.index(slot),
                                    k_bufs.index(slot), pred=live)
    tma.async_copy_global_to_shared(v_desc, [kv_row + step * BN, kv_col], bars.index(slot),
                                    v_bufs.index(slot), pred=live)


@kiln.jit
def hopper_attn_fwd_kernel(q_desc, k_desc, v_desc, o_ptr, lse_ptr, N_Q, N_K, H, H_KV, qk_scale,
                           CAUSAL: gl.constexpr, STAGES: gl.constexpr, num_warps: gl.constexpr):
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

    pid_m = gl.program_id(0)
    batch = gl.program_id(1) // H
    head = gl.program_id(1) % H
    kv_head = head // (H // H_KV)
    q_row = batch * N_Q + pid_m * BM
    kv_row = batch * N_K

    q_s = gl.allocate_shared_memory(dtype, [BM, HEAD_DIM], q_desc.layout)
    k_bufs = gl.allocate_shared_memory(dtype, [STAGES, BN, HEAD_DIM], k_desc.layout)
    v_bufs = gl.allocate_shared_memory(dtype, [STAGES, BN, HEAD_DIM], v_desc.layout)
    q_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    bars = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    mbarrier.init(q_bar, count=1)
    for i in gl.static_range(STAGES):
        mbarrier.init(bars.index(i), count=1)

    num_n, first_masked = _block_range(pid_m, N_Q, N_K, BM, BN, CAUSAL)

    mbarrier.expect(q_bar, q_desc.block_type.nbytes)
    tma.async_copy_global_to_shared(q_desc, [q_row, head * HEAD_DIM], q_bar, q_s)
    for i in gl.static_range(STAGES - 1):
        _issue_kv(k_desc, v_desc, k_bufs, v_bufs, bars, i, kv_row, kv_head * HEAD_DIM,
                  num_n > i, BN, STAGES)

    rows = pid_m * BM + gl.arange(0, BM, row_l)
    m_i = gl.full([BM], float("-inf"), gl.float32, row_l)
    l_i = gl.zeros([BM], gl.float32, row_l)
    acc = gl.zeros([BM, HEAD_DIM], gl.float32, o_layout)
    s_zero = gl.zeros([BM, BN], gl.float32, s_layout)
    mbarrier.wait(q_bar, 0)

    for j in range(num_n):
        slot = j % STAGES
        mbarrier.wait(bars.index(slot), (j // STAGES) & 1)
        s = warpgroup_mma(q_s, k_bufs.index(slot).permute((1, 0)), s_zero, use_acc=False,
                          is_async=True)
        # Retires this step's S and the previous step's P V (this warpgroup's).
        s = warpgroup_mma_wait(num_outstanding=0, deps=(s,))
        acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc,))
        s = _masked(s, j * BN, first_masked, rows, N_Q, N_K, CAUSAL, BN, col_l)
        p, m_i, l_i, alpha = _softmax_step(s, m_i, l_i, qk_scale)
        acc = acc * gl.convert_layout(alpha, gl.SliceLayout(1, o_layout))[:, None]
        p_op = gl.convert_layout(p.to(dtype), p_layout)
        acc = warpgroup_mma(p_op, v_bufs.index(slot), acc, is_async=True)
        # Every warpgroup has retired its wgmma of step j - 1 (the waits above) before
        # the slot they read, (j - 1) % STAGES, takes step j + STAGES - 1.
        gl.thread_barrier()
        _issue_kv(k_desc, v_desc, k_bufs, v_bufs, bars, j + STAGES - 1, kv_row,
                  kv_head * HEAD_DIM, j + STAGES - 1 < num_n, BN, STAGES)

    acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc,))
    mbarrier.invalidate(q_bar)
    for i in gl.static_range(STAGES):
        mbarrier.invalidate(bars.index(i))

    _store_o_lse(acc, m_i, l_i, rows, o_ptr, lse_ptr, pid_m, batch, head, N_Q, H, dtype)


@kiln.jit
def _store_o_lse(acc, m_i, l_i, rows, o_ptr, lse_ptr, pid_m, batch, head, N_Q, H,
                 dtype: gl.constexpr):
    """The epilogue of the kernels of one partition: O = acc / l and the rows' natural-log
    LSE of the scaled scores (-inf for a row of no key), for query block ``pid_m`` of
    [B, N_Q, H, D] (O) and [B, H, N_Q] (LSE)."""
    BM: gl.constexpr = acc.shape[0]
    HEAD_DIM: gl.constexpr = acc.shape[1]
    o_layout: gl.constexpr = acc.type.layout
    l_use = gl.where(l_i == 0.0, 1.0, l_i)
    o = acc / gl.convert_layout(l_use, gl.SliceLayout(1, o_layout))[:, None]
    o_rows = pid_m * BM + gl.arange(0, BM, gl.SliceLayout(1, o_layout))
    o_cols = gl.arange(0, HEAD_DIM, gl.SliceLayout(0, o_layout))
    o_off = ((batch * N_Q + o_rows[:, None]) * H + head) * HEAD_DIM + o_cols[None, :]
    gl.store(o_ptr + o_off, o.to(dtype), mask=o_rows[:, None] < N_Q)
    lse = gl.where(l_i == 0.0, float("-inf"), (m_i + gl.log2(l_use)) * LN2)
    gl.store(lse_ptr + (batch * H + head) * N_Q + rows, lse, mask=rows < N_Q)


@kiln.jit
def _query_block(CAUSAL: gl.constexpr):
    """This program's query block. Causal blocks run longest first: block m sees m + 1 key
    blocks, so the grid's first programs take the last (longest) blocks and the short ones
    fill the gaps at the end, instead of leaving the longest for last (H200, 16k tokens,
    causal fp16: 539.6 -> 560.3 TFLOP/s at head dim 128, SCHEDULE 2 527.3 -> 568.7; the
    single-partition kernel did not gain from it and keeps the grid's order)."""
    if CAUSAL:
        return gl.num_programs(0) - 1 - gl.program_id(0)
    else:
        return gl.program_id(0)


@kiln.jit
def _block_range(pid_m, N_Q, N_K, BM: gl.constexpr, BN: gl.constexpr, CAUSAL: gl.constexpr):
    """(number of key blocks, first key block start that needs the mask) of query block
    ``pid_m``: all blocks, or (CAUSAL) up to its last row's diagonal."""
    hi = N_K
    first_masked = (N_K // BN) * BN
    if CAUSAL:
        diag = pid_m * BM + N_K - N_Q
        hi = gl.minimum(N_K, gl.maximum(diag + BM, 0))
        first_masked = gl.minimum(first_masked, gl.maximum(diag + 1, 0) // BN * BN)
    return gl.cdiv(hi, BN), first_masked


@kiln.jit
def _ws_producer(k_desc, v_desc, k_bufs, v_bufs, ready, empty, pid_m, head, N_Q, k_start, N_K,
                 H, H_KV, step0, BM: gl.constexpr, CAUSAL: gl.constexpr,
                 STAGES: gl.constexpr):
    """The producer warp: each key block's K, then its V, into their ring slots, each once
    both consumers have released that slot's previous tile (K slot s and V slot s have
    barriers of their own: ready / empty s and STAGES + s). Key block j is the ring's step
    step0 + j (the steps of earlier tiles of a persistent program come first)."""
    BN: gl.constexpr = k_desc.block_type.shape[0]
    HEAD_DIM: gl.constexpr = k_desc.block_type.shape[1]
    kv_row = k_start
    kv_col = (head // (H // H_KV)) * HEAD_DIM
    num_n, first_masked = _block_range(pid_m, N_Q, N_K, BM, BN, CAUSAL)
    for j in range(num_n):
        slot = (step0 + j) % STAGES
        # A slot's n-th fill waits for the consumers' previous release of it; parity 1 of a
        # fresh barrier counts as completed (the first round is free).
        phase = (((step0 + j) // STAGES) & 1) ^ 1
        mbarrier.wait(empty.index(slot), phase)
        mbarrier.expect(ready.index(slot), k_desc.block_type.nbytes)
        tma.async_copy_global_to_shared(k_desc, [kv_row + j * BN, kv_col], ready.index(slot),
                                        k_bufs.index(slot))
        mbarrier.wait(empty.index(STAGES + slot), phase)
        mbarrier.expect(ready.index(STAGES + slot), v_desc.block_type.nbytes)
        tma.async_copy_global_to_shared(v_desc, [kv_row + j * BN, kv_col],
                                        ready.index(STAGES + slot), v_bufs.index(slot))


@kiln.jit
def _masked(s, start_n, first_masked, rows, N_Q, N_K, CAUSAL: gl.constexpr, BN: gl.constexpr,
            col_l: gl.constexpr):
    """S with the keys its rows may not see at -inf, on the blocks that need the mask."""
    if start_n >= first_masked:
        cols = start_n + gl.arange(0, BN, col_l)
        valid = cols[None, :] < N_K
        if CAUSAL:
            valid = valid & (cols[None, :] <= rows[:, None] + (N_K - N_Q))
        s = gl.where(valid, s, float("-inf"))
    return s


@kiln.jit
def _exp2(x):
    """2^x, one MUFU.EX2 an element: ``ex2.approx.ftz`` (results below 2^-126 are 0).
    ``gl.exp2`` is ``ex2.approx`` without ftz, as in Triton, for which ptxas wraps each
    MUFU.EX2 in a compare and two predicated multiplies to produce denormal results."""
    return gl.inline_asm_elementwise("ex2.approx.ftz.f32 $0, $1;", "=f,f", [x],
                                     dtype=gl.float32, is_pure=True, pack=1)


@kiln.jit
def _softmax_step(s, m_i, l_i, qk_scale, LAZY: gl.constexpr = False):
    """The online softmax of one block: (P, the rows' new maximum and sum, the factor the
    accumulator is rescaled by). Rows that have seen no key yet keep -inf and P = 0.

    LAZY: a row's maximum moves only when the block raises it by more than LAZY_THRESHOLD
    (log2 units; FlashAttention-4's lazy rescaling): P is then at most 2^LAZY_THRESHOLD, and
    a row whose maximum stayed has the factor 1.0 exactly, which lets _rescale skip it."""
    m_new = gl.maximum(m_i, gl.max(s, axis=1) * qk_scale)
    if LAZY:
        m_new = gl.where(m_new > m_i + LAZY_THRESHOLD, m_new, m_i)
    m_use = gl.where(m_new == float("-inf"), 0.0, m_new)
    p = _exp2(s * qk_scale - m_use[:, None])
    alpha = _exp2(m_i - m_use)
    if LAZY:
        alpha = gl.where(m_new == m_i, 1.0, alpha)
    return p, m_new, l_i * alpha + gl.sum(p, axis=1), alpha


@gl.constexpr_function
def _rescale_asm(outs, ins):
    """The text of _rescale's statement: a warp votes on whether any of its rows has a factor
    other than 1.0 and, if none has, branches over the multiplies (every thread of the warp
    takes the same way). The accumulator's operands are tied to the outputs."""
    acc, = outs
    _, factors, rows = ins
    text = ["{", ".reg .pred %rs_any, %rs_row;",
            f"setp.neu.f32 %rs_any, {rows[0]}, 0f3F800000;"]
    for r in rows[1:]:
        text += [f"setp.neu.f32 %rs_row, {r}, 0f3F800000;", "or.pred %rs_any, %rs_any, %rs_row;"]
    text += ["vote.sync.any.pred %rs_any, %rs_any, 0xffffffff;",
             "@!%rs_any bra.uni rs_done_${:uid};"]
    text += [f"mul.f32 {o}, {o}, {f};" for o, f in zip(acc, factors)]
    text += ["rs_done_${:uid}:", "}"]
    return "\n".join(text)


@gl.constexpr_function
def _rescale_constraints(regs, rows):
    """Outputs, the accumulator's registers tied to them, the factors, the rows' factors."""
    return ",".join(["=f"] * regs + [str(i) for i in range(regs)] + ["f"] * (regs + rows))


@gl.constexpr_function
def _regs_per_thread(shape, threads):
    return shape[0] * shape[1] // threads


@kiln.jit
def _rescale(acc, alpha, LAZY: gl.constexpr = False):
    """acc * alpha[:, None] (alpha in a slice of any layout). LAZY: a warp whose rows all have
    alpha == 1.0 skips the multiplies (a warpgroup's accumulator of 64 rows: a thread holds
    two rows and 1/128 of the elements)."""
    o_row_l: gl.constexpr = gl.SliceLayout(1, acc.type.layout)
    alpha = gl.convert_layout(alpha, o_row_l)
    if LAZY:
        gl.static_assert(acc.shape[0] == 64, "a warpgroup's accumulator: 64 rows")
        factors = gl.broadcast_to(alpha[:, None], acc.shape)
        acc = gl.inline_asm(_rescale_asm,
                            _rescale_constraints(_regs_per_thread(acc.shape, 128), 2),
                            (acc, factors, alpha), acc.type, is_pure=True)
    else:
        acc = acc * alpha[:, None]
    return acc


@kiln.jit
def _pass_turn(GROUP: gl.constexpr, j, num_n):
    """SCHEDULE 3: warpgroup GROUP, done issuing block j, hands the turn to the other group
    (named barrier 1 - GROUP of both groups' 256 threads); the second group does not after
    its last block, whose turn the first would never take."""
    if GROUP == 0:
        named_barrier.arrive(1, 256)
    else:
        if j + 1 < num_n:
            named_barrier.arrive(0, 256)


@kiln.jit
def _ws_consumer(q_bufs, k_bufs, v_bufs, q_bar, q_empty, ready, empty, turn, o_ptr, lse_ptr,
                 pid_m, head, q_start, N_Q, N_K, H, qk_scale, lse_start, lse_strides, step0,
                 q_phase, GROUP: gl.constexpr, CAUSAL: gl.constexpr, STAGES: gl.constexpr,
                 SCHEDULE: gl.constexpr, RELEASE_Q: gl.constexpr, LAZY: gl.constexpr = False):
    """One consumer warpgroup: 64 query rows (half GROUP of the block) against every key
    block, S = Q K^T and O += P V by wgmma, the online softmax in between; it releases a
    K slot once its S has retired and a V slot once its P V has.

    SCHEDULE 0: per block, S, its softmax, then P V. 1: block j's S and block j - 1's P V
    are issued together and run while this warpgroup computes block j's softmax
    (FlashAttention-3's intra-warpgroup overlap). 2: as 1, and the two warpgroups take turns
    issuing (the ``turn`` mbarriers), so that one's softmax overlaps the other's wgmmas.
    3: as 2, the turns through named barriers (warpgroup g waits at barrier g and hands the
    turn on at the other's; the second group lets the first go first and keeps no turn after
    its last).

    RELEASE_Q: arrive on ``q_empty`` once the tile's last S has retired (Q is read by no
    later wgmma), so that a persistent producer loads the next tile's Q during the last
    P V and the epilogue.

    LAZY: the softmax's lazy rescaling (_softmax_step, _rescale)."""
    BM_WG: gl.constexpr = q_bufs.shape[1]
    HEAD_DIM: gl.constexpr = q_bufs.shape[2]
    BN: gl.constexpr = k_bufs.shape[1]
    dtype: gl.constexpr = q_bufs.dtype
    s_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                       instr_shape=[16, BN, 16])
    o_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                       instr_shape=[16, HEAD_DIM, 16])
    p_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=o_layout, k_width=2)
    row_l: gl.constexpr = gl.SliceLayout(1, s_layout)
    col_l: gl.constexpr = gl.SliceLayout(0, s_layout)
    o_row_l: gl.constexpr = gl.SliceLayout(1, o_layout)

    CONSUMERS: gl.constexpr = q_bufs.shape[0]
    num_n, first_masked = _block_range(pid_m, N_Q, N_K, CONSUMERS * BM_WG, BN, CAUSAL)
    first_row = pid_m * CONSUMERS * BM_WG + GROUP * BM_WG
    rows = first_row + gl.arange(0, BM_WG, row_l)
    m_i = gl.full([BM_WG], float("-inf"), gl.float32, row_l)
    l_i = gl.zeros([BM_WG], gl.float32, row_l)
    acc = gl.zeros([BM_WG, HEAD_DIM], gl.float32, o_layout)
    s_zero = gl.zeros([BM_WG, BN], gl.float32, s_layout)
    q_s = q_bufs.index(GROUP)
    mbarrier.wait(q_bar, q_phase)
    # Each loop and its last wait under one `if`: an accumulator of an unfinished wgmma must
    # not meet the zeros of a loop that ran no step before the wait (ptxas would then
    # serialize every wgmma, C7515).
    if SCHEDULE == 0:
        if num_n > 0:
            for j in range(num_n):
                slot = (step0 + j) % STAGES
                mbarrier.wait(ready.index(slot), ((step0 + j) // STAGES) & 1)
                s = warpgroup_mma(q_s, k_bufs.index(slot).permute((1, 0)), s_zero,
                                  use_acc=False, is_async=True)
                # Retires this block's S (its K slot is free) and the previous block's P V
                # (its V slot is free).
                s = warpgroup_mma_wait(num_outstanding=0, deps=(s,))
                acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc,))
                mbarrier.arrive(empty.index(slot))
                if RELEASE_Q:
                    mbarrier.arrive(q_empty, pred=j == num_n - 1)
                mbarrier.arrive(empty.index(STAGES + (step0 + j + STAGES - 1) % STAGES),
                                pred=j > 0)
                s = _masked(s, j * BN, first_masked, rows, N_Q, N_K, CAUSAL, BN, col_l)
                p, m_i, l_i, alpha = _softmax_step(s, m_i, l_i, qk_scale, LAZY)
                acc = _rescale(acc, alpha, LAZY)
                p_op = gl.convert_layout(p.to(dtype), p_layout)
                mbarrier.wait(ready.index(STAGES + slot), ((step0 + j) // STAGES) & 1)
                acc = warpgroup_mma(p_op, v_bufs.index(slot), acc, is_async=True)
            acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc,))
            mbarrier.arrive(empty.index(STAGES + (step0 + num_n + STAGES - 1) % STAGES))
    else:
        if num_n > 0:
            if SCHEDULE == 2:
                mbarrier.wait(turn.index(GROUP), 0)
            if SCHEDULE == 3:
                if GROUP == 1:
                    named_barrier.arrive(0, 256)
                named_barrier.sync(GROUP, 256)
            first = step0 % STAGES
            mbarrier.wait(ready.index(first), (step0 // STAGES) & 1)
            s = warpgroup_mma(q_s, k_bufs.index(first).permute((1, 0)), s_zero,
                              use_acc=False, is_async=True)
            if SCHEDULE == 2:
                mbarrier.arrive(turn.index(1 - GROUP))
            if SCHEDULE == 3:
                _pass_turn(GROUP, 0, num_n)
            s = warpgroup_mma_wait(num_outstanding=0, deps=(s,))
            mbarrier.arrive(empty.index(first))
            if RELEASE_Q:
                mbarrier.arrive(q_empty, pred=num_n == 1)
            s = _masked(s, 0, first_masked, rows, N_Q, N_K, CAUSAL, BN, col_l)
            p, m_i, l_i, alpha = _softmax_step(s, m_i, l_i, qk_scale, LAZY)
            p_op = gl.convert_layout(p.to(dtype), p_layout)
            for j in range(1, num_n):
                slot = (step0 + j) % STAGES
                prev = (step0 + j - 1) % STAGES
                if SCHEDULE == 2:
                    mbarrier.wait(turn.index(GROUP), j & 1)
                if SCHEDULE == 3:
                    named_barrier.sync(GROUP, 256)
                mbarrier.wait(ready.index(slot), ((step0 + j) // STAGES) & 1)
                mbarrier.wait(ready.index(STAGES + prev), ((step0 + j - 1) // STAGES) & 1)
                s = warpgroup_mma(q_s, k_bufs.index(slot).permute((1, 0)), s_zero,
                                  use_acc=False, is_async=True)
                acc = warpgroup_mma(p_op, v_bufs.index(prev), acc, is_async=True)
                if SCHEDULE == 2:
                    mbarrier.arrive(turn.index(1 - GROUP))
                if SCHEDULE == 3:
                    _pass_turn(GROUP, j, num_n)
                # Groups retire in order: S_j first, while P V runs on.
                s = warpgroup_mma_wait(num_outstanding=1, deps=(s,))
                mbarrier.arrive(empty.index(slot))
                if RELEASE_Q:
                    mbarrier.arrive(q_empty, pred=j == num_n - 1)
                s = _masked(s, j * BN, first_masked, rows, N_Q, N_K, CAUSAL, BN, col_l)
                p, m_i, l_i, alpha = _softmax_step(s, m_i, l_i, qk_scale, LAZY)
                acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc,))
                mbarrier.arrive(empty.index(STAGES + prev))
                acc = _rescale(acc, alpha, LAZY)
                p_op = gl.convert_layout(p.to(dtype), p_layout)
            last = (step0 + num_n - 1) % STAGES
            mbarrier.wait(ready.index(STAGES + last), ((step0 + num_n - 1) // STAGES) & 1)
            acc = warpgroup_mma(p_op, v_bufs.index(last), acc, is_async=True)
            acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc,))
            mbarrier.arrive(empty.index(STAGES + last))
    if RELEASE_Q:
        if num_n == 0:
            mbarrier.arrive(q_empty)

    l_use = gl.where(l_i == 0.0, 1.0, l_i)
    o = acc / gl.convert_layout(l_use, o_row_l)[:, None]
    o_rows = first_row + gl.arange(0, BM_WG, o_row_l)
    o_cols = gl.arange(0, HEAD_DIM, gl.SliceLayout(0, o_layout))
    o_off = ((q_start + o_rows[:, None]) * H + head) * HEAD_DIM + o_cols[None, :]
    gl.store(o_ptr + o_off, o.to(dtype), mask=o_rows[:, None] < N_Q)
    lse = gl.where(l_i == 0.0, float("-inf"), (m_i + gl.log2(l_use)) * LN2)
    lse_off = lse_start + head * lse_strides[0] + rows * lse_strides[1]
    gl.store(lse_ptr + lse_off, lse, mask=rows < N_Q)


@kiln.jit
def _ring_barriers(STAGES: gl.constexpr, CONSUMERS: gl.constexpr = 2):
    """The K/V ring's barriers, initialized: K slot s completes on ready / empty s, V slot s
    on STAGES + s (one arrival fills, the CONSUMERS warpgroups' release); and the two
    warpgroups' turn barriers of SCHEDULE 2."""
    ready = gl.allocate_shared_memory(gl.int64, [2 * STAGES, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [2 * STAGES, 1], mbarrier.MBarrierLayout())
    turn = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    for i in gl.static_range(2 * STAGES):
        mbarrier.init(ready.index(i), count=1)
        mbarrier.init(empty.index(i), count=CONSUMERS)
    for g in gl.static_range(2):
        mbarrier.init(turn.index(g), count=1)
    return ready, empty, turn


@kiln.jit
def _invalidate_ring_barriers(ready, empty, turn, STAGES: gl.constexpr):
    for i in gl.static_range(2 * STAGES):
        mbarrier.invalidate(ready.index(i))
        mbarrier.invalidate(empty.index(i))
    for g in gl.static_range(2):
        mbarrier.invalidate(turn.index(g))


@kiln.jit
def _sequence(cu_q_ptr, cu_k_ptr, batch):
    """(first query row, query rows, first key row, key rows) of sequence ``batch``."""
    q_start = gl.load(cu_q_ptr + batch)
    N_Q = gl.load(cu_q_ptr + batch + 1) - q_start
    k_start = gl.load(cu_k_ptr + batch)
    N_K = gl.load(cu_k_ptr + batch + 1) - k_start
    return q_start, N_Q, k_start, N_K


@kiln.jit
def hopper_attn_fwd_ws_kernel(q_desc, k_desc, v_desc, o_ptr, lse_ptr, cu_q_ptr, cu_k_ptr, H,
                              H_KV, qk_scale, lse_stride_s, lse_stride_b, lse_stride_h,
                              lse_stride_t, CAUSAL: gl.constexpr, STAGES: gl.constexpr,
                              CONSUMER_REGS: gl.constexpr, PRODUCER_REGS: gl.constexpr,
                              SCHEDULE: gl.constexpr, num_warps: gl.constexpr,
                              CONSUMERS: gl.constexpr = 2, LAZY: gl.constexpr = False):
    """The warp-specialized form: 128 query rows a program, a producer warp (TMA) and two
    consumer warpgroups of 64 rows each (the kernel's 4 warps and a worker partition), which
    run independently: each releases a K or V slot on its ``empty`` barrier (two arrivals a
    phase) and the producer refills it. CONSUMERS=3: 192 rows a program, three consumer
    warpgroups (SCHEDULE 0 or 1; the turns of 2 and 3 are between two groups). Sequence b's
    query rows are cu_q[b] .. cu_q[b + 1] of Q and O, its keys cu_k[b] .. cu_k[b + 1] of K
    and V (FlashAttention's varlen layout; a fixed-length batch has equal steps); row r of
    head h of sequence b has its LSE at
    cu_q[b] * lse_stride_s + b * lse_stride_b + h * lse_stride_h + r * lse_stride_t.
    LAZY: the softmax's lazy rescaling (_softmax_step, _rescale)."""
    gl.static_assert(num_warps == 4, "the default partition is one consumer warpgroup")
    gl.static_assert(CONSUMERS == 2 or (CONSUMERS == 3 and SCHEDULE < 2),
                     "two consumer warpgroups, or three with SCHEDULE 0 or 1")
    BM_WG: gl.constexpr = q_desc.block_type.shape[0]
    HEAD_DIM: gl.constexpr = q_desc.block_type.shape[1]
    BN: gl.constexpr = k_desc.block_type.shape[0]
    dtype: gl.constexpr = q_desc.dtype
    q_bufs = gl.allocate_shared_memory(dtype, [CONSUMERS, BM_WG, HEAD_DIM], q_desc.layout)
    k_bufs = gl.allocate_shared_memory(dtype, [STAGES, BN, HEAD_DIM], k_desc.layout)
    v_bufs = gl.allocate_shared_memory(dtype, [STAGES, BN, HEAD_DIM], v_desc.layout)
    q_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(q_bar, count=1)
    ready, empty, turn = _ring_barriers(STAGES, CONSUMERS)
    if SCHEDULE == 2:
        mbarrier.arrive(turn.index(0))  # the first warpgroup issues first
    pid_m = _query_block(CAUSAL)
    batch = gl.program_id(1) // H
    head = gl.program_id(1) % H
    q_start, N_Q, k_start, N_K = _sequence(cu_q_ptr, cu_k_ptr, batch)
    lse_start = q_start * lse_stride_s + batch * lse_stride_b
    # The grid covers the longest sequence: blocks past this one's end do nothing.
    if pid_m * CONSUMERS * BM_WG < N_Q:
        # Every consumer's Q rows, before the partitions start.
        q_row = q_start + pid_m * CONSUMERS * BM_WG
        q_col = head * HEAD_DIM
        mbarrier.expect(q_bar, CONSUMERS * q_desc.block_type.nbytes)
        for g in gl.static_range(CONSUMERS):
            tma.async_copy_global_to_shared(q_desc, [q_row + g * BM_WG, q_col], q_bar,
                                            q_bufs.index(g))
        # What every consumer takes before its group and the constexprs.
        consumer = (q_bufs, k_bufs, v_bufs, q_bar, q_bar, ready, empty, turn, o_ptr, lse_ptr,
                    pid_m, head, q_start, N_Q, N_K, H, qk_scale, lse_start,
                    (lse_stride_h, lse_stride_t), 0, 0)
        producer = (k_desc, v_desc, k_bufs, v_bufs, ready, empty, pid_m, head, N_Q, k_start,
                    N_K, H, H_KV, 0, CONSUMERS * BM_WG, CAUSAL, STAGES)
        if CONSUMERS == 3:
            gl.warp_specialize([
                (_ws_consumer, consumer + (0, CAUSAL, STAGES, SCHEDULE, False, LAZY)),
                (_ws_consumer, consumer + (1, CAUSAL, STAGES, SCHEDULE, False, LAZY)),
                (_ws_consumer, consumer + (2, CAUSAL, STAGES, SCHEDULE, False, LAZY)),
                (_ws_producer, producer),
            ], [4, 4, 1], [CONSUMER_REGS, CONSUMER_REGS, PRODUCER_REGS])
        else:
            gl.warp_specialize([
                (_ws_consumer, consumer + (0, CAUSAL, STAGES, SCHEDULE, False, LAZY)),
                (_ws_consumer, consumer + (1, CAUSAL, STAGES, SCHEDULE, False, LAZY)),
                (_ws_producer, producer),
            ], [4, 1], [CONSUMER_REGS, PRODUCER_REGS])
    mbarrier.invalidate(q_bar)
    _invalidate_ring_barriers(ready, empty, turn, STAGES)


@kiln.jit
def _persistent_tile(t, num_m, BH, CAUSAL: gl.constexpr):
    """(query block, batch * heads + head) of the persistent kernel's tile t: one head's
    query blocks, then the next head's, so that the programs running at once read the
    same few heads' K and V (which then stay in L2); causal, each head's longest block
    first."""
    m = t % num_m
    if CAUSAL:
        m = num_m - 1 - m
    return m, t // num_m


@kiln.jit
def _next_tile(tile_buf, k, num_warps: gl.constexpr):
    """The tile index the producer posted for this program's k-th tile (the tile count when
    there is none)."""
    one_l: gl.constexpr = gl.BlockedLayout([1], [32], [num_warps], [0])
    return gl.max(tile_buf.index(k & 1).load(one_l), axis=0)


@kiln.jit
def _ws_consumer_persistent(q_bufs, k_bufs, v_bufs, q_ready, q_empty, ready, empty, turn,
                            tile_buf, o_ptr, lse_ptr, cu_q_ptr, cu_k_ptr, H, qk_scale,
                            lse_stride_s, lse_stride_b, lse_stride_h, lse_stride_t, num_m, BH,
                            GROUP: gl.constexpr, CAUSAL: gl.constexpr, STAGES: gl.constexpr,
                            SCHEDULE: gl.constexpr, LAZY: gl.constexpr):
    """A consumer warpgroup of the persistent kernel: _ws_consumer on each tile the producer
    posts (its index in ``tile_buf``, readable once that tile's Q has landed), the ring's
    steps and Q's phases continuing from tile to tile; every consumer releases Q
    (``q_empty``) once a tile's last S has retired."""
    BM_WG: gl.constexpr = q_bufs.shape[1]
    BN: gl.constexpr = k_bufs.shape[1]
    CONSUMERS: gl.constexpr = q_bufs.shape[0]
    total = num_m * BH
    step = 0
    tiles = 0
    mbarrier.wait(q_ready, 0)
    t = _next_tile(tile_buf, 0, 4)
    while t < total:
        pid_m, bh = _persistent_tile(t, num_m, BH, CAUSAL)
        batch = bh // H
        head = bh % H
        q_start, N_Q, k_start, N_K = _sequence(cu_q_ptr, cu_k_ptr, batch)
        _ws_consumer(q_bufs, k_bufs, v_bufs, q_ready, q_empty, ready, empty, turn, o_ptr,
                     lse_ptr, pid_m, head, q_start, N_Q, N_K, H, qk_scale,
                     q_start * lse_stride_s + batch * lse_stride_b,
                     (lse_stride_h, lse_stride_t), step, tiles & 1, GROUP, CAUSAL, STAGES,
                     SCHEDULE, True, LAZY)
        num_n, first_masked = _block_range(pid_m, N_Q, N_K, CONSUMERS * BM_WG, BN, CAUSAL)
        step += num_n
        tiles += 1
        mbarrier.wait(q_ready, tiles & 1)
        t = _next_tile(tile_buf, tiles, 4)


@kiln.jit
def _ws_producer_persistent(q_desc, k_desc, v_desc, q_bufs, k_bufs, v_bufs, q_ready, q_empty,
                            ready, empty, tile_buf, tile_counter, cu_q_ptr, cu_k_ptr, H, H_KV,
                            num_m, BH, CAUSAL: gl.constexpr, STAGES: gl.constexpr,
                            DYNAMIC: gl.constexpr):
    """The producer warp of the persistent kernel. It takes tiles program_id, then (DYNAMIC)
    the grid's size plus a global counter's next value, so that programs that finish early
    take more, or program_id + k * grid (round-robin); it skips tiles past their sequence's
    end. Per tile: once every consumer released the previous tile's Q, the tile's index
    into ``tile_buf`` (slot k % 2, published by the arrival on ``q_ready``), each
    consumer's Q rows, then _ws_producer's K and V. At the end, ``total`` with a bare arrival: no more tiles."""
    BM_WG: gl.constexpr = q_desc.block_type.shape[0]
    HEAD_DIM: gl.constexpr = q_desc.block_type.shape[1]
    BN: gl.constexpr = k_desc.block_type.shape[0]
    CONSUMERS: gl.constexpr = q_bufs.shape[0]
    BM: gl.constexpr = CONSUMERS * BM_WG
    one_l: gl.constexpr = gl.BlockedLayout([1], [32], [1], [0])
    total = num_m * BH
    grid = gl.num_programs(0)
    t = gl.program_id(0)
    step = 0
    tiles = 0
    while t < total:
        pid_m, bh = _persistent_tile(t, num_m, BH, CAUSAL)
        batch = bh // H
        head = bh % H
        q_start, N_Q, k_start, N_K = _sequence(cu_q_ptr, cu_k_ptr, batch)
        if DYNAMIC:
            t_next = grid + gl.atomic_add(tile_counter, 1)
        else:
            t_next = t + grid
        if pid_m * BM < N_Q:
            mbarrier.wait(q_empty, (tiles & 1) ^ 1)
            tile_buf.index(tiles & 1).store(gl.full([1], t, gl.int32, one_l))
            mbarrier.expect(q_ready, CONSUMERS * q_desc.block_type.nbytes)
            for g in gl.static_range(CONSUMERS):
                tma.async_copy_global_to_shared(
                    q_desc, [q_start + pid_m * BM + g * BM_WG, head * HEAD_DIM],
                    q_ready, q_bufs.index(g))
            _ws_producer(k_desc, v_desc, k_bufs, v_bufs, ready, empty, pid_m, head, N_Q,
                         k_start, N_K, H, H_KV, step, BM, CAUSAL, STAGES)
            num_n, first_masked = _block_range(pid_m, N_Q, N_K, BM, BN, CAUSAL)
            step += num_n
            tiles += 1
        t = t_next
    mbarrier.wait(q_empty, (tiles & 1) ^ 1)
    tile_buf.index(tiles & 1).store(gl.full([1], total, gl.int32, one_l))
    mbarrier.arrive(q_ready)


@kiln.jit
def hopper_attn_fwd_ws_persistent_kernel(q_desc, k_desc, v_desc, o_ptr, lse_ptr, cu_q_ptr,
                                         cu_k_ptr, tile_counter, H, H_KV, qk_scale,
                                         lse_stride_s, lse_stride_b, lse_stride_h,
                                         lse_stride_t, num_m, BH, CAUSAL: gl.constexpr,
                                         STAGES: gl.constexpr, CONSUMER_REGS: gl.constexpr,
                                         PRODUCER_REGS: gl.constexpr, SCHEDULE: gl.constexpr,
                                         DYNAMIC: gl.constexpr, num_warps: gl.constexpr,
                                         CONSUMERS: gl.constexpr = 2, LAZY: gl.constexpr = False):
    """The warp-specialized kernel, persistent: a program per SM (the grid) takes tiles of
    num_m query blocks x BH (batch x heads), in _persistent_tile's order, with one K/V ring
    and one Q buffer per consumer for all of them: the producer loads a tile's Q once every
    consumer released the previous one (``q_empty``, an arrival each, after its last S
    of that tile) and runs ahead into the next tile's keys while they finish its last P V
    and store O. DYNAMIC: programs take the next tile from ``tile_counter`` (an int32 that
    is zero at launch) as they free up; otherwise tiles t, t + grid, ... SCHEDULE 0, 1 or 3
    (2's mbarrier turns count their phases per tile). CONSUMERS=3: tiles of 192 query rows,
    three consumer warpgroups (SCHEDULE 0 or 1), as hopper_attn_fwd_ws_kernel's; LAZY too."""
    gl.static_assert(num_warps == 4, "the default partition is one consumer warpgroup")
    gl.static_assert(SCHEDULE != 2, "the persistent kernel takes SCHEDULE 0, 1 or 3")
    gl.static_assert(CONSUMERS == 2 or (CONSUMERS == 3 and SCHEDULE < 2),
                     "two consumer warpgroups, or three with SCHEDULE 0 or 1")
    BM_WG: gl.constexpr = q_desc.block_type.shape[0]
    HEAD_DIM: gl.constexpr = q_desc.block_type.shape[1]
    BN: gl.constexpr = k_desc.block_type.shape[0]
    dtype: gl.constexpr = q_desc.dtype
    q_bufs = gl.allocate_shared_memory(dtype, [CONSUMERS, BM_WG, HEAD_DIM], q_desc.layout)
    k_bufs = gl.allocate_shared_memory(dtype, [STAGES, BN, HEAD_DIM], k_desc.layout)
    v_bufs = gl.allocate_shared_memory(dtype, [STAGES, BN, HEAD_DIM], v_desc.layout)
    q_ready = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    q_empty = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(q_ready, count=1)
    mbarrier.init(q_empty, count=CONSUMERS)
    # The index of the tile whose Q is in q_bufs, by tile parity.
    tile_buf = gl.allocate_shared_memory(gl.int32, [2, 1],
                                         gl.SwizzledSharedLayout(1, 1, 1, order=[0]))
    ready, empty, turn = _ring_barriers(STAGES, CONSUMERS)
    consumer = (q_bufs, k_bufs, v_bufs, q_ready, q_empty, ready, empty, turn, tile_buf, o_ptr,
                lse_ptr, cu_q_ptr, cu_k_ptr, H, qk_scale, lse_stride_s, lse_stride_b,
                lse_stride_h, lse_stride_t, num_m, BH)
    producer = (q_desc, k_desc, v_desc, q_bufs, k_bufs, v_bufs, q_ready, q_empty, ready, empty,
                tile_buf, tile_counter, cu_q_ptr, cu_k_ptr, H, H_KV, num_m, BH, CAUSAL, STAGES,
                DYNAMIC)
    if CONSUMERS == 3:
        gl.warp_specialize([
            (_ws_consumer_persistent, consumer + (0, CAUSAL, STAGES, SCHEDULE, LAZY)),
            (_ws_consumer_persistent, consumer + (1, CAUSAL, STAGES, SCHEDULE, LAZY)),
            (_ws_consumer_persistent, consumer + (2, CAUSAL, STAGES, SCHEDULE, LAZY)),
            (_ws_producer_persistent, producer),
        ], [4, 4, 1], [CONSUMER_REGS, CONSUMER_REGS, PRODUCER_REGS])
    else:
        gl.warp_specialize([
            (_ws_consumer_persistent, consumer + (0, CAUSAL, STAGES, SCHEDULE, LAZY)),
            (_ws_consumer_persistent, consumer + (1, CAUSAL, STAGES, SCHEDULE, LAZY)),
            (_ws_producer_persistent, producer),
        ], [4, 1], [CONSUMER_REGS, PRODUCER_REGS])
    mbarrier.invalidate(q_ready)
    mbarrier.invalidate(q_empty)
    _invalidate_ring_barriers(ready, empty, turn, STAGES)


@kiln.jit
def hopper_attn_fwd_ws_tuned_kernel(q_desc, k_desc, v_desc, o_ptr, lse_ptr, cu_q_ptr, cu_k_ptr,
                                    H, H_KV, qk_scale, lse_stride_s, lse_stride_b,
                                    lse_stride_h, lse_stride_t, MAX_SEQLEN,
                                    CAUSAL: gl.constexpr, HEAD_DIM: gl.constexpr,
                                    STAGES: gl.constexpr, SCHEDULE: gl.constexpr,
                                    num_warps: gl.constexpr, LAZY: gl.constexpr = False):
    """hopper_attn_fwd_ws_kernel for kiln.autotune (``tuned=True``): MAX_SEQLEN, the longest
    sequence, is part of the tuning key (the kernel does not read it); HEAD_DIM, checked
    against the descriptors, keeps each head dim's tuning apart; STAGES and SCHEDULE are the
    config's."""
    gl.static_assert(q_desc.block_type.shape[1] == HEAD_DIM)
    hopper_attn_fwd_ws_kernel(q_desc, k_desc, v_desc, o_ptr, lse_ptr, cu_q_ptr, cu_k_ptr, H,
                              H_KV, qk_scale, lse_stride_s, lse_stride_b, lse_stride_h,
                              lse_stride_t, CAUSAL, STAGES, 240, 24, SCHEDULE, num_warps, 2,
                              LAZY)


def _ws_tuning_configs(D):
    """What ``tuned=True`` chooses among at head dim D: ring depth 2 or 3 (2 at 256, whose
    3 would not fit in shared memory) and issue order 0, 2 or 3."""
    return [kiln.Config({"HEAD_DIM": D, "STAGES": stages, "SCHEDULE": schedule}, num_warps=4)
            for stages in ((2,) if D == 256 else (2, 3)) for schedule in (0, 2, 3)]


_WS_TUNED = {}


def _ws_tuned(D):
    """The autotuned warp-specialized kernel of head dim D (made on first use)."""
    if D not in _WS_TUNED:
        _WS_TUNED[D] = kiln.autotune(_ws_tuning_configs(D),
                                     key=["MAX_SEQLEN", "H", "H_KV", "CAUSAL"])(
            hopper_attn_fwd_ws_tuned_kernel)
    return _WS_TUNED[D]


def _auto_form(D, causal, n_q):
    """(persistent, consumers) of a default call, by head dim, causality and the longest
    query sequence. At head dim 64 (H200, fp16, 16 heads, 16k tokens a batch, TFLOP/s,
    bench/attention.py, medians of three rounds in one run): non-causal up to 4k queries the
    persistent kernel with three groups (1k 366.9 against 344.3 one tile a program; 4k 476.0
    against 467.8; at 16k 503.5 against 507.8); causal up to 2k the persistent kernel with
    two groups (1k 247.3 against 185.9: 192-row tiles waste a third of their key blocks on
    the diagonal there); otherwise one tile a program with three. Head dim 256 (lazily
    rescaled) up to 4k queries: the persistent kernel (same run: 1k 503.7 / 367.5 against
    462.9 / 349.6 non-causal / causal, 4k 608.6 / 520.7 against 583.5 / 508.8). Head dim
    128: one tile a program (the persistent kernel ran within the runs' spread of it)."""
    if D == 64:
        if not causal and n_q <= 4096:
            return True, 3
        if causal and n_q <= 2048:
            return True, 2
        return False, 3
    if D == 256 and n_q <= 4096:
        return True, None
    return False, None


def _three_groups(schedule, config, regs):
    """(SCHEDULE, consumer registers) of a kernel with three consumer warpgroups: order 1
    unless ``schedule`` says 0; 160 registers unless ``config`` gives a budget."""
    if schedule is not None and schedule >= 2:
        raise ValueError("three consumer warpgroups take SCHEDULE 0 or 1")
    # Three groups of 128 threads and the producer's in 64K registers.
    return (1 if schedule is None else schedule), (regs if config is not None else 160)


def _gl_dtype(torch_dtype):
    import torch
    return {torch.float16: gl.float16, torch.bfloat16: gl.bfloat16}[torch_dtype]


def kiln_hopper_attention(q, k, v, causal=False, sm_scale=None, config=None,
                          warp_specialized=True, schedule=None, cu_seqlens_q=None,
                          cu_seqlens_k=None, max_seqlen_q=None, tuned=False, persistent=None,
                          consumers=None, lazy_rescale=None):
    """Attention forward on sm_90a, fp16 or bf16, contiguous; D in (64, 128, 256); H a
    multiple of H_KV. Fixed length: q [B, N_Q, H, D], k and v [B, N_K, H_KV, D]; returns
    (o like q, lse fp32 [B, H, N_Q], natural log). Varlen (the warp-specialized form):
    q [total_q, H, D], k and v [total_k, H_KV, D] with int32 ``cu_seqlens_q`` /
    ``cu_seqlens_k`` of B + 1 entries and ``max_seqlen_q``; returns (o like q, lse
    [total_q, H]). ``warp_specialized`` picks the producer / consumer form (``config`` =
    (BN, STAGES, CONSUMER_REGS) overrides WS_CONFIGS[D]) or the single-partition one
    (``config`` = (BM, BN, STAGES, num_warps) overrides CONFIGS[D]); ``schedule`` is the
    warp-specialized form's SCHEDULE (see _ws_consumer; by default WS_SCHEDULES[D]).
    ``tuned=True`` (the warp-specialized form, without ``config`` or ``schedule``): kiln.autotune
    picks the ring depth and the issue order, once per (longest sequence, heads, causal, dtype)
    and head dim, remembered on disk. ``persistent=True`` (the warp-specialized form): a
    program per SM takes the (query block, batch, head) tiles in turn
    (hopper_attn_fwd_ws_persistent_kernel; SCHEDULE 0, 1 or 3), the next from a counter
    as it frees up; ``persistent="static"``: tiles dealt round-robin; ``persistent=False``:
    one tile a program. ``consumers=3`` (the warp-specialized kernels, head dim 64,
    SCHEDULE 0 or 1): three consumer warpgroups of 64 query rows, 192 rows a tile, 160
    registers a thread (a ``config``'s budget must leave room for them). By default
    WS_CONSUMERS[D] where the rest of the call allows it (no ``config``, order 0 or 1 or
    none, not tuned; then order 1 unless ``schedule`` says), else two. ``persistent=None``
    (the default): _auto_form's choice by head dim, causality and query length where the
    call leaves ``consumers``, ``schedule``, ``config`` and ``tuned`` to their defaults,
    else one tile a program. ``lazy_rescale`` (the warp-specialized forms): rows' maxima move
    only by more than 2^8 and warps skip the accumulator's rescale when none of their rows
    moved; by default WS_LAZY[D]."""
    import torch
    varlen = cu_seqlens_q is not None
    if persistent is None:
        persistent = False
        if (warp_specialized and not tuned and config is None and schedule is None
                and consumers is None):
            n_q = max_seqlen_q if varlen else (q.shape[1] if q.dim() == 4 else None)
            if n_q is not None:
                persistent, consumers = _auto_form(q.shape[-1], causal, int(n_q))
    if consumers not in (None, 2, 3):
        raise ValueError(f"consumers must be 2 or 3, got {consumers!r}")
    if consumers == 3 and (tuned or not warp_specialized):
        raise ValueError("consumers=3 is a form of the warp-specialized kernels (not tuned)")
    if consumers == 3 and q.shape[-1] != 64:
        raise ValueError(f"consumers=3 needs head dim 64, got {q.shape[-1]}: three groups' "
                         f"S and O do not fit in 160 registers a thread at larger ones")
    if consumers is None:
        default = (warp_specialized and not tuned and config is None
                   and schedule in (None, 0, 1))
        consumers = WS_CONSUMERS.get(q.shape[-1], 2) if default else 2
    if (tuned or persistent) and not warp_specialized:
        raise ValueError(f"{'tuned' if tuned else 'persistent'}=True is a form of the "
                         f"warp-specialized kernel")
    if lazy_rescale and not warp_specialized:
        raise ValueError("lazy_rescale=True is a form of the warp-specialized kernels (the "
                         "single-partition kernel rescales every block)")
    if varlen:
        if cu_seqlens_k is None or max_seqlen_q is None:
            raise ValueError("varlen attention needs cu_seqlens_q, cu_seqlens_k and "
                             "max_seqlen_q")
        if not warp_specialized:
            raise ValueError("varlen batches run on the warp-specialized form only")
        if q.dim() != 3 or k.dim() != 3 or v.dim() != 3:
            raise ValueError("varlen q, k and v must be [total, heads, head_dim]")
        B = cu_seqlens_q.numel() - 1
        if cu_seqlens_k.numel() != B + 1:
            raise ValueError(f"cu_seqlens_q and cu_seqlens_k must have one length, got "
                             f"{B + 1} and {cu_seqlens_k.numel()}")
        (total_q, H, D), (total_k, H_KV, _) = q.shape, k.shape
        N_Q = int(max_seqlen_q)
    else:
        if q.dim() != 4 or k.dim() != 4 or v.dim() != 4:
            raise ValueError("q, k and v must be [batch, seqlen, heads, head_dim]")
        B, N_Q, H, D = q.shape
        _, N_K, H_KV, _ = k.shape
        if k.shape[0] != B:
            raise ValueError(f"q and k must have one batch, got {B} and {k.shape[0]}")
        total_q, total_k = B * N_Q, B * N_K
    if q.dtype not in (torch.float16, torch.bfloat16) or k.dtype != q.dtype or \
            v.dtype != q.dtype:
        raise TypeError(f"q, k, v must be fp16 or bf16 of one dtype, got {q.dtype}, "
                        f"{k.dtype}, {v.dtype}")
    if D not in CONFIGS or k.shape[-1] != D or v.shape != k.shape:
        raise ValueError(f"head dim must be one of {sorted(CONFIGS)} for q, k and v, and k, v "
                         f"of one shape; got q {tuple(q.shape)}, k {tuple(k.shape)}, "
                         f"v {tuple(v.shape)}")
    if H % H_KV:
        raise ValueError(f"query heads ({H}) must be a multiple of key/value heads ({H_KV})")
    for name, t in (("q", q), ("k", k), ("v", v)):
        if not t.is_contiguous():
            raise ValueError(f"{name} must be contiguous")
    scale = sm_scale if sm_scale is not None else 1.0 / math.sqrt(D)
    o = torch.empty_like(q)
    dt = _gl_dtype(q.dtype)

    def desc(t, rows, block):
        t2 = t.view(rows, -1)
        layout = gl.NVMMASharedLayout.get_default_for(list(block), dt)
        return TensorDescriptor(t2, list(t2.shape), list(t2.stride()), list(block), layout)

    if warp_specialized:
        BN, STAGES, regs = config or WS_CONFIGS[D]
        lazy = WS_LAZY[D] if lazy_rescale is None else bool(lazy_rescale)
        if varlen:
            cu_q, cu_k = cu_seqlens_q.int(), cu_seqlens_k.int()
            lse = torch.empty((total_q, H), device=q.device, dtype=torch.float32)
            lse_strides = (H, 0, 1, H)              # [total_q, H]
        else:
            cu_q = torch.arange(0, total_q + 1, N_Q, device=q.device, dtype=torch.int32)
            cu_k = torch.arange(0, total_k + 1, N_K, device=q.device, dtype=torch.int32)
            lse = torch.empty((B, H, N_Q), device=q.device, dtype=torch.float32)
            lse_strides = (0, H * N_Q, N_Q, 1)      # [B, H, N_Q]
        grid = ((N_Q + 127) // 128, B * H)
        if persistent:
            if tuned:
                raise ValueError("tuned=True tunes the kernel of one tile a program")
            order = WS_SCHEDULES[D] if schedule is None else schedule
            if order == 2:
                raise ValueError("the persistent kernel takes SCHEDULE 0, 1 or 3")
            if consumers == 3:
                order, regs = _three_groups(schedule, config, regs)
            num_m = (N_Q + 64 * consumers - 1) // (64 * consumers)
            sms = torch.cuda.get_device_properties(q.device).multi_processor_count
            if persistent not in (True, "dynamic", "static"):
                raise ValueError(f"persistent must be False, True, 'dynamic' or 'static', "
                                 f"got {persistent!r}")
            dynamic = persistent != "static"
            counter = torch.zeros(1, device=q.device, dtype=torch.int32)
            hopper_attn_fwd_ws_persistent_kernel[(max(1, min(sms, num_m * B * H)),)](
                desc(q, total_q, (64, D)), desc(k, total_k, (BN, D)),
                desc(v, total_k, (BN, D)), o, lse, cu_q, cu_k, counter, H, H_KV,
                scale * LOG2E, *lse_strides, num_m, B * H, CAUSAL=bool(causal),
                STAGES=STAGES, CONSUMER_REGS=regs, PRODUCER_REGS=24, SCHEDULE=order,
                DYNAMIC=dynamic, num_warps=4, CONSUMERS=consumers, LAZY=lazy)
            return o, lse
        if tuned:
            if config is not None or schedule is not None:
                raise ValueError("tuned=True picks the config and the schedule itself")
            _ws_tuned(D)[grid](desc(q, total_q, (64, D)), desc(k, total_k, (BN, D)),
                               desc(v, total_k, (BN, D)), o, lse, cu_q, cu_k, H, H_KV,
                               scale * LOG2E, *lse_strides, N_Q, CAUSAL=bool(causal),
                               LAZY=lazy)
            return o, lse
        order = WS_SCHEDULES[D] if schedule is None else schedule
        if consumers == 3:
            order, regs = _three_groups(schedule, config, regs)
            grid = ((N_Q + 191) // 192, B * H)
        hopper_attn_fwd_ws_kernel[grid](desc(q, total_q, (64, D)), desc(k, total_k, (BN, D)),
                                        desc(v, total_k, (BN, D)), o, lse, cu_q, cu_k, H,
                                        H_KV, scale * LOG2E, *lse_strides,
                                        CAUSAL=bool(causal), STAGES=STAGES,
                                        CONSUMER_REGS=regs, PRODUCER_REGS=24, SCHEDULE=order,
                                        num_warps=4, CONSUMERS=consumers, LAZY=lazy)
        return o, lse
    BM, BN, STAGES, num_warps = config or CONFIGS[D]
    lse = torch.empty((B, H, N_Q), device=q.device, dtype=torch.float32)
    grid = ((N_Q + BM - 1) // BM, B * H)
    hopper_attn_fwd_kernel[grid](desc(q, total_q, (BM, D)), desc(k, total_k, (BN, D)),
                                 desc(v, total_k, (BN, D)), o, lse, N_Q, N_K, H, H_KV,
                                 scale * LOG2E, CAUSAL=bool(causal), STAGES=STAGES,
                                 num_warps=num_warps)
    return o, lse
