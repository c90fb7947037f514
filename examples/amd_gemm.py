"""A direct-to-LDS GEMM for CDNA3 (gfx942) and CDNA4 (gfx950): C = act(A @ B + bias).

Two forms of one kernel, both with A [M, K] and B [K, N] row-major fp16 (or bf16), an fp32
accumulator in an ``AMDMFMALayout`` and a fused epilogue (a bias per column, optional ReLU, the
cast to C's type, a masked buffer store):

* ``lds_gemm_kernel`` is written by hand as in Gluon: an NBUF-slot LDS ring per operand filled
  by ``buffer_load_to_shared`` (``buffer_load ... lds``: one scalar base plus 32-bit offsets,
  lanes past the matrix read past the buffer's end and write zeros), ``commit_group`` /
  ``wait_group(NBUF - 2)``, LDS reads straight into the mfma operand layouts with
  ``load_shared_relaxed`` (the wait already ordered them: no conservative ``vmcnt(0)``), and
  ``mfma``. Tile t + NBUF - 1 is copied while tile t is multiplied.
* ``auto_gemm_kernel`` is the same loop written plainly: masked ``kl.load`` s in a
  ``kl.range(..., num_stages=STAGES)`` loop, stored to shared memory and read back in the
  operand layouts. Kiln's pipeliner builds the ring and its waits (tutorial 05); on AMD the
  copies become buffer direct-to-LDS copies, so every wait is an exact ``vmcnt(N)``.

A copy moves 4 bytes per lane on gfx942 (2 fp16) and 16 on gfx950 (8 fp16); a wave's lanes
write consecutive LDS bytes (the hardware writes lane i at M0 + i x width), so the ring is an
unswizzled row-major buffer and the copy layout walks rows lane by lane.

No AMD GPU was available: ``python3 examples/amd_gemm.py`` compiles both forms for both chips and
prints what the final assembly holds (v_mfma, direct-to-LDS copies, s_waitcnt values, LDS reads
per iteration) and the independent vmcnt checker's verdict (third_party/amd/tools).
"""

from __future__ import annotations

import kiln
import kiln.language as kl
from kiln.language.amd import cdna3
from kiln.language.amd.cdna4 import async_copy as acp

__all__ = ["lds_gemm_kernel", "auto_gemm_kernel", "config", "compile_gemm"]


@kiln.constexpr_function
def _copy_layout(rows, cols, vec, num_warps):
    """A blocked layout for a rows x cols tile copied ``vec`` elements per lane, lanes along
    the row first (consecutive lanes write consecutive bytes of a row-major buffer)."""
    lanes_c = min(cols // vec, 64)
    return kl.BlockedLayout([1, vec], [64 // lanes_c, lanes_c], [num_warps, 1], [1, 0])


@kiln.jit
def lds_gemm_kernel(a_ptr, b_ptr, c_ptr, bias_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                    BM: kl.constexpr, BN: kl.constexpr, BK: kl.constexpr,
                    NBUF: kl.constexpr, ACC: kl.constexpr, KW: kl.constexpr,
                    VEC: kl.constexpr, RELU: kl.constexpr, num_warps: kl.constexpr):
    a_cp: kl.constexpr = _copy_layout(BM, BK, VEC, num_warps)
    b_cp: kl.constexpr = _copy_layout(BK, BN, VEC, num_warps)
    plain: kl.constexpr = kl.SwizzledSharedLayout(1, 1, 1, [1, 0])
    a_op: kl.constexpr = kl.DotOperandLayout(0, ACC, KW)
    b_op: kl.constexpr = kl.DotOperandLayout(1, ACC, KW)
    dt: kl.constexpr = a_ptr.dtype.element_ty
    ring_a = kl.allocate_shared_memory(dt, [NBUF, BM, BK], plain)
    ring_b = kl.allocate_shared_memory(dt, [NBUF, BK, BN], plain)

    pid_m = kl.program_id(0)
    pid_n = kl.program_id(1)
    rm = pid_m * BM + kl.arange(0, BM, kl.SliceLayout(1, a_cp))
    ka = kl.arange(0, BK, kl.SliceLayout(0, a_cp))
    kb = kl.arange(0, BK, kl.SliceLayout(1, b_cp))
    rn = pid_n * BN + kl.arange(0, BN, kl.SliceLayout(0, b_cp))
    a_offs = rm[:, None] * stride_am + ka[None, :]
    b_offs = kb[:, None] * stride_bk + rn[None, :]
    k_tiles = kl.cdiv(K, BK)

    # Prologue: tiles 0 .. NBUF-2 in flight (masked past K: they write zeros).
    for s in kl.static_range(NBUF - 1):
        acp.buffer_load_to_shared(ring_a.index(s), a_ptr, a_offs + s * BK,
                                  mask=(rm[:, None] < M) & (s * BK + ka[None, :] < K))
        acp.buffer_load_to_shared(ring_b.index(s), b_ptr, b_offs + s * BK * stride_bk,
                                  mask=(s * BK + kb[:, None] < K) & (rn[None, :] < N))
        acp.commit_group()

    acc = kl.zeros([BM, BN], kl.float32, ACC)
    for t in range(k_tiles):
        # Tile t + NBUF - 1 goes into the slot tile t - 1 was read from.
        nxt = t + NBUF - 1
        slot = nxt % NBUF
        acp.buffer_load_to_shared(ring_a.index(slot), a_ptr, a_offs + nxt * BK,
                                  mask=(rm[:, None] < M) & (nxt * BK + ka[None, :] < K))
        acp.buffer_load_to_shared(ring_b.index(slot), b_ptr, b_offs + nxt * BK * stride_bk,
                                  mask=(nxt * BK + kb[:, None] < K) & (rn[None, :] < N))
        acp.commit_group()
        acp.wait_group(NBUF - 1)  # tile t has landed
        a = acp.load_shared_relaxed(ring_a.index(t % NBUF), a_op)
        b = acp.load_shared_relaxed(ring_b.index(t % NBUF), b_op)
        acc = cdna3.mfma(a, b, acc)
    acp.wait_group(0)

    _epilogue(acc, c_ptr, bias_ptr, M, N, stride_cm, pid_m, pid_n, BM, BN, ACC, RELU)


@kiln.jit
def auto_gemm_kernel(a_ptr, b_ptr, c_ptr, bias_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                     BM: kl.constexpr, BN: kl.constexpr, BK: kl.constexpr,
                     STAGES: kl.constexpr, ACC: kl.constexpr, KW: kl.constexpr,
                     VEC: kl.constexpr, RELU: kl.constexpr, num_warps: kl.constexpr):
    a_cp: kl.constexpr = _copy_layout(BM, BK, VEC, num_warps)
    b_cp: kl.constexpr = _copy_layout(BK, BN, VEC, num_warps)
    plain: kl.constexpr = kl.SwizzledSharedLayout(1, 1, 1, [1, 0])
    a_op: kl.constexpr = kl.DotOperandLayout(0, ACC, KW)
    b_op: kl.constexpr = kl.DotOperandLayout(1, ACC, KW)
    dt: kl.constexpr = a_ptr.dtype.element_ty

    pid_m = kl.program_id(0)
    pid_n = kl.program_id(1)
    rm = pid_m * BM + kl.arange(0, BM, kl.SliceLayout(1, a_cp))
    ka = kl.arange(0, BK, kl.SliceLayout(0, a_cp))
    kb = kl.arange(0, BK, kl.SliceLayout(1, b_cp))
    rn = pid_n * BN + kl.arange(0, BN, kl.SliceLayout(0, b_cp))
    acc = kl.zeros([BM, BN], kl.float32, ACC)
    for k0 in kl.range(0, K, BK, num_stages=STAGES):
        a = kl.load(a_ptr + (rm[:, None] * stride_am + (k0 + ka[None, :])),
                    mask=(rm[:, None] < M) & (k0 + ka[None, :] < K), other=0.0)
        b = kl.load(b_ptr + ((k0 + kb[:, None]) * stride_bk + rn[None, :]),
                    mask=(k0 + kb[:, None] < K) & (rn[None, :] < N), other=0.0)
        a_s = kl.allocate_shared_memory(dt, [BM, BK], plain, value=a)
        b_s = kl.allocate_shared_memory(dt, [BK, BN], plain, value=b)
        acc = cdna3.mfma(a_s.load(a_op), b_s.load(b_op), acc)

    _epilogue(acc, c_ptr, bias_ptr, M, N, stride_cm, pid_m, pid_n, BM, BN, ACC, RELU)


@kiln.jit
def _epilogue(acc, c_ptr, bias_ptr, M, N, stride_cm, pid_m, pid_n, BM: kl.constexpr,
              BN: kl.constexpr, ACC: kl.constexpr, RELU: kl.constexpr):
    # Buffer loads and stores: masked lanes are dropped by the hardware's range check, so
    # no lane branches around them.
    rows = pid_m * BM + kl.arange(0, BM, kl.SliceLayout(1, ACC))
    cols = pid_n * BN + kl.arange(0, BN, kl.SliceLayout(0, ACC))
    bias = cdna3.buffer_load(bias_ptr, cols, mask=cols < N, other=0.0)
    out = acc + bias.to(kl.float32)[None, :]
    if RELU:
        out = kl.maximum(out, 0.0)
    cdna3.buffer_store(out.to(c_ptr.dtype.element_ty), c_ptr,
                       rows[:, None] * stride_cm + cols[None, :],
                       mask=(rows[:, None] < M) & (cols[None, :] < N))


def config(target, BM=128, BN=128, BK=32, num_warps=4, transposed=True):
    """The constexprs of either kernel for ``target`` (hip:gfx942 or hip:gfx950): a 2 x 2 wave
    grid of 32 x 32 mfma blocks, fp16 K 8 per instruction on gfx942 and 16 on gfx950, k_width
    the instruction's K per lane, copies of 4 / 16 bytes per lane."""
    gfx950 = target == "hip:gfx950"
    version, instr_k, kw, vec = (4, 16, 8, 8) if gfx950 else (3, 8, 4, 2)
    acc = kl.amd.AMDMFMALayout(version, [32, 32, instr_k], transposed, [2, num_warps // 2])
    return dict(BM=BM, BN=BN, BK=BK, ACC=acc, KW=kw, VEC=vec, num_warps=num_warps)


# ":range32": tensors under 2 GiB, as a launch specializes them (kiln.jit does so for any such
# tensor on these targets). The pipeliner's copies of A and B then go through buffer resources:
# their offsets come from the strides, which no analysis can bound, and without the marker the
# loop would wait for all loads (vmcnt(0)).
SIG = {"a_ptr": "*fp16:16:range32", "b_ptr": "*fp16:16:range32", "c_ptr": "*fp16:16:range32",
       "bias_ptr": "*fp32:16:range32", "M": "i32", "N": "i32:16", "K": "i32:16",
       "stride_am": "i32:16", "stride_bk": "i32:16", "stride_cm": "i32:16"}


def compile_gemm(form, target, stages=3, relu=True, **kw):
    """Compile ``form`` ("hand" or "auto") for ``target`` with ``stages`` ring slots."""
    cfg = config(target, **kw)
    num_warps = cfg["num_warps"]
    if form == "hand":
        cfg.update(NBUF=stages, RELU=relu)
        fn = lds_gemm_kernel
    else:
        cfg.update(STAGES=stages, RELU=relu)
        fn = auto_gemm_kernel
    return kiln.compile(fn, SIG, cfg, target=target, num_warps=num_warps, cache=False)


def _main():
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                    "third_party", "amd", "tools"))
    import amdgcn_waits
    from amdgcn_stats import loop_stats  # noqa: E402 (beside amdgcn_waits)
    for target in ("hip:gfx942", "hip:gfx950"):
        for form in ("hand", "auto"):
            k = compile_gemm(form, target)
            asm = k.asm["amdgcn"]
            reports = amdgcn_waits.check(asm)
            st = loop_stats(asm)
            verdict = "; ".join(r.summary() for r in reports)
            print(f"{target} {form}: per iteration {st['v_mfma']} v_mfma, {st['lds_copies']} "
                  f"direct-to-LDS copies, {st['lds_reads']} LDS reads, vmcnt {st['vmcnt']}, "
                  f"{st['barriers']} barriers\n    {verdict}")

if __name__ == "__main__":
    _main()
