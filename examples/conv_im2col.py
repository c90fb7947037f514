"""A 2-D convolution as an implicit GEMM on Hopper: TMA im2col loads of the input, TMA loads
of the weights, wgmma, in a ring of STAGES slots (Kiln's own kernel; Gluon's tutorial 13 has
the same algorithm with one slot, which Kiln's async-safety check refuses: its next loads
overwrite the slot the previous wgmma may still read).

Shapes: input NHWC ``[N, H, W, Ci]``, weights ``[Co, R, S, Ci]``, output NHWC
``[N, OH, OW, Co]`` with ``OH = (H + 2 * pad - R) // stride + 1`` (OW alike). The GEMM is
``[N * OH * OW, R * S * Ci] x [R * S * Ci, Co]``:

* a program computes ``BM`` consecutive output pixels (in N, OH, OW order) by ``BN`` output
  channels;
* its k-steps walk the filter taps (r, s) and, within a tap, ``BK`` input channels: the A tile
  is one im2col copy -- ``BM`` pixels starting at the program's first output pixel, each at
  (r, s) from its window's corner, ``BK`` channels -- and the B tile the weights' ``[BN, BK]``
  block at column ``(r * S + s) * Ci + c``;
* the descriptor's pixel box is the window the output pixels' corners sweep (lower corner
  ``-pad``, upper ``(OH - 1) * stride - pad - (H - 1)``), stepping by ``stride``; the copy
  walks it in W, H, N order, so consecutive output pixels follow the GEMM's rows across
  image rows and images; padding reads zeros.

Channels past ``Ci`` read zeros from the input, and the weights' matching columns (the next
tap's first channels) multiply those zeros, so ``Ci`` need not be a multiple of ``BK``.

    python3 examples/conv_im2col.py      # on a Hopper GPU: checks against torch
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import kiln  # noqa: E402
import kiln.language as gl  # noqa: E402
from kiln.language.nvidia.hopper import (  # noqa: E402
    fence_async_shared,
    mbarrier,
    tma,
    warpgroup_mma,
    warpgroup_mma_wait,
)


@kiln.jit
def _issue(in_desc, w_desc, bars, a_bufs, b_bufs, step, batch, y0, x0, pid_n, S, Ci,
           CI_STEPS, STAGES: gl.constexpr, live):
    """The loads of k-step ``step`` into its slot: tap (r, s) = divmod(step // CI_STEPS, S),
    channels from (step % CI_STEPS) * BK."""
    BK: gl.constexpr = in_desc.block_type.shape[1]
    BN: gl.constexpr = w_desc.block_type.shape[0]
    slot = step % STAGES
    tap = step // CI_STEPS
    c = (step % CI_STEPS) * BK
    r = tap // S
    s = tap % S
    mbarrier.expect(bars.index(slot), in_desc.block_type.nbytes + w_desc.block_type.nbytes,
                    pred=live)
    # (r, s) are compile-time ints when S and CI_STEPS are specialized to 1 (a 1x1 filter
    # with one channel step): the copy takes ints or integer scalars as its offsets.
    tma.async_copy_global_to_shared_im2col(in_desc, [batch, y0, x0, c], [r, s],
                                           bars.index(slot), a_bufs.index(slot), pred=live)
    tma.async_copy_global_to_shared(w_desc, [pid_n * BN, tap * Ci + c], bars.index(slot),
                                    b_bufs.index(slot), pred=live)


@kiln.jit
def conv2d_im2col_kernel(in_desc, w_desc, out_desc, S, Ci, OH, OW, pad, stride,
                         num_steps, CI_STEPS, STAGES: gl.constexpr, num_warps: gl.constexpr):
    BM: gl.constexpr = in_desc.block_type.shape[0]
    BK: gl.constexpr = in_desc.block_type.shape[1]
    BN: gl.constexpr = w_desc.block_type.shape[0]
    dtype: gl.constexpr = in_desc.dtype
    pid_m = gl.program_id(0)
    pid_n = gl.program_id(1)
    # The program's first output pixel, and where its window starts in the input.
    first = pid_m * BM
    batch = first // (OH * OW)
    rest = first % (OH * OW)
    y0 = (rest // OW) * stride - pad
    x0 = (rest % OW) * stride - pad

    a_bufs = gl.allocate_shared_memory(dtype, [STAGES, BM, BK], in_desc.layout)
    b_bufs = gl.allocate_shared_memory(dtype, [STAGES, BN, BK], w_desc.layout)
    bars = mbarrier.allocate_mbarrier(batch=STAGES)
    for i in gl.static_range(STAGES):
        mbarrier.init(bars.index(i), count=1)
    for i in gl.static_range(STAGES - 1):
        _issue(in_desc, w_desc, bars, a_bufs, b_bufs, i, batch, y0, x0, pid_n, S, Ci,
               CI_STEPS, STAGES, num_steps > i)

    acc_layout: gl.constexpr = gl.NVMMADistributedLayout(
        version=[3, 0], warps_per_cta=[num_warps, 1], instr_shape=[16, BN, 16])
    acc = gl.zeros([BM, BN], dtype=gl.float32, layout=acc_layout)
    for step in range(num_steps):
        slot = step % STAGES
        mbarrier.wait(bars.index(slot), (step // STAGES) & 1)
        acc = warpgroup_mma(a_bufs.index(slot), b_bufs.index(slot).permute((1, 0)), acc,
                            is_async=True)
        # The previous step's wgmma has read its slot; that slot takes step + STAGES - 1.
        acc = warpgroup_mma_wait(num_outstanding=1, deps=(acc,))
        if num_warps > 4:
            gl.thread_barrier()  # each warpgroup's wait retires only its own wgmma
        nxt = step + STAGES - 1
        _issue(in_desc, w_desc, bars, a_bufs, b_bufs, nxt, batch, y0, x0, pid_n, S, Ci,
               CI_STEPS, STAGES, nxt < num_steps)
    acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc,))
    for i in gl.static_range(STAGES):
        mbarrier.invalidate(bars.index(i))

    c_smem = gl.allocate_shared_memory(out_desc.dtype, [BM, BN], out_desc.layout)
    c_smem.store(acc.to(out_desc.dtype))
    fence_async_shared()
    tma.async_copy_shared_to_global(out_desc, [first, pid_n * BN], c_smem)
    tma.store_wait(0)


def conv2d_im2col(x, w, stride=1, padding=0, BM=128, BN=64, BK=64, STAGES=3, num_warps=4):
    """``conv2d(x, w)`` for an NHWC fp16/bf16 CUDA tensor ``x`` ``[N, H, W, Ci]`` and weights
    ``w`` ``[Co, R, S, Ci]`` (contiguous): the NHWC output ``[N, OH, OW, Co]``."""
    import torch

    from kiln.nvidia.hopper import TensorDescriptor, TensorDescriptorIm2Col

    N, H, W, Ci = x.shape
    Co, R, S, Ci2 = w.shape
    if Ci2 != Ci:
        raise ValueError(f"conv2d_im2col: the input has {Ci} channels, the weights {Ci2}")
    if stride < 1 or padding < 0:
        raise ValueError(f"conv2d_im2col: stride {stride} and padding {padding} must be >= 1 "
                         f"and >= 0")
    OH = (H + 2 * padding - R) // stride + 1
    OW = (W + 2 * padding - S) // stride + 1
    if OH < 1 or OW < 1:
        raise ValueError(f"conv2d_im2col: a {R}x{S} filter does not fit a {H}x{W} input "
                         f"padded by {padding}")
    dt = {torch.float16: gl.float16, torch.bfloat16: gl.bfloat16}[x.dtype]
    out = torch.empty((N * OH * OW, Co), device=x.device, dtype=x.dtype)
    la = gl.NVMMASharedLayout.get_default_for([BM, BK], dt)
    lb = gl.NVMMASharedLayout.get_default_for([BN, BK], dt)
    lc = gl.NVMMASharedLayout.get_default_for([BM, BN], dt)
    in_desc = TensorDescriptorIm2Col.from_tensor(
        x, [BM, BK], la, padding="zero", element_strides=[1, stride, stride, 1],
        pixel_box_lower_corner=[-padding, -padding],
        pixel_box_upper_corner=[(OH - 1) * stride - padding - (H - 1),
                                (OW - 1) * stride - padding - (W - 1)])
    w_desc = TensorDescriptor.from_tensor(w.reshape(Co, R * S * Ci), [BN, BK], lb)
    out_desc = TensorDescriptor.from_tensor(out, [BM, BN], lc)
    ci_steps = -(-Ci // BK)
    grid = (-(-(N * OH * OW) // BM), -(-Co // BN))
    conv2d_im2col_kernel[grid](in_desc, w_desc, out_desc, S, Ci, OH, OW, padding, stride,
                               R * S * ci_steps, ci_steps, STAGES, num_warps=num_warps)
    return out.reshape(N, OH, OW, Co)


def main():
    import torch
    torch.manual_seed(0)
    for N, H, W, Ci, Co, R, S, stride, pad in [(2, 16, 16, 64, 64, 3, 3, 1, 1),
                                               (1, 17, 9, 96, 128, 3, 3, 2, 0)]:
        x = torch.randn(N, H, W, Ci, device="cuda", dtype=torch.float16)
        w = torch.randn(Co, R, S, Ci, device="cuda", dtype=torch.float16)
        got = conv2d_im2col(x, w, stride, pad)
        ref = torch.nn.functional.conv2d(x.permute(0, 3, 1, 2).float(),
                                         w.permute(0, 3, 1, 2).float(), stride=stride,
                                         padding=pad).permute(0, 2, 3, 1)
        err = (got.float() - ref).abs().max().item()
        print(f"N={N} H={H} W={W} Ci={Ci} Co={Co} {R}x{S} stride={stride} pad={pad}: "
              f"max |err| {err:.3g}")


if __name__ == "__main__":
    main()
