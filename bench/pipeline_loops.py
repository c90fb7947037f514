"""Kernels with two pipelined loops, measured: out[r] = sum_c x[r, c] + sum_c y[r, c] with one
``range(..., num_stages=S)`` loop per input (a kernel shape the pipeliner used to refuse),
Kiln against the same kernel in Triton 3.6 (``tl.range(..., num_stages=S)``) and torch, in one
run on a GPU machine. Results are checked against torch first; each ratio is the median of
same-round ratios over interleaved rounds.

    python3 bench/pipeline_loops.py [--rows 8192] [--cols 8192] [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics

import torch

import kiln
import kiln.language as kl

BR, BC = 16, 256


@kiln.jit
def two_loop_sum_kiln(x, y, out, R, C, stride, STAGES: kl.constexpr, BR: kl.constexpr,
                      BC: kl.constexpr):
    layout: kl.constexpr = kl.BlockedLayout([1, 4], [1, 32], [4, 1], [1, 0])
    rows = kl.program_id(0) * BR + kl.arange(0, BR, kl.SliceLayout(1, layout))
    cols = kl.arange(0, BC, kl.SliceLayout(0, layout))
    acc = kl.zeros([BR, BC], kl.float32, layout)
    for c0 in kl.range(0, C, BC, num_stages=STAGES):
        acc += kl.load(x + rows[:, None] * stride + (c0 + cols[None, :]))
    for c0 in kl.range(0, C, BC, num_stages=STAGES):
        acc += kl.load(y + rows[:, None] * stride + (c0 + cols[None, :]))
    kl.store(out + rows, kl.sum(acc, axis=1))


def triton_kernel():
    import triton
    import triton.language as tl

    @triton.jit
    def two_loop_sum(x, y, out, R, C, stride, STAGES: tl.constexpr, BR: tl.constexpr,
                     BC: tl.constexpr):
        rows = tl.program_id(0) * BR + tl.arange(0, BR)
        cols = tl.arange(0, BC)
        acc = tl.zeros([BR, BC], tl.float32)
        for c0 in tl.range(0, C, BC, num_stages=STAGES):
            acc += tl.load(x + rows[:, None] * stride + (c0 + cols[None, :]))
        for c0 in tl.range(0, C, BC, num_stages=STAGES):
            acc += tl.load(y + rows[:, None] * stride + (c0 + cols[None, :]))
        tl.store(out + rows, tl.sum(acc, axis=1))

    return two_loop_sum


def main():
    import triton.testing

    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=8192)
    ap.add_argument("--cols", type=int, default=8192)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    R, C = args.rows, args.cols
    g = torch.Generator(device="cuda").manual_seed(7)
    x = torch.randn((R, C), device="cuda", generator=g)
    y = torch.randn((R, C), device="cuda", generator=g)
    ref = x.sum(1) + y.sum(1)
    tri = triton_kernel()
    grid = (R // BR,)
    print(f"device {torch.cuda.get_device_name()}, torch {torch.__version__}")
    for stages in (1, 3, 4):
        out_k = torch.full((R,), float("nan"), device="cuda")
        out_t = torch.full((R,), float("nan"), device="cuda")
        sides = {
            "kiln": lambda: two_loop_sum_kiln[grid](x, y, out_k, R, C, C, STAGES=stages, BR=BR,
                                                   BC=BC, num_warps=4),
            "triton": lambda: tri[grid](x, y, out_t, R, C, C, STAGES=stages, BR=BR, BC=BC,
                                        num_warps=4),
            "torch": lambda: torch.add(x.sum(1), y.sum(1), out=out_t.new_empty(R)),
        }
        sides["kiln"]()
        sides["triton"]()
        torch.cuda.synchronize()
        for name, out in (("kiln", out_k), ("triton", out_t)):
            err = ((out - ref).abs().max() / ref.abs().max()).item()
            assert err < 1e-4, f"{name} s{stages}: max rel err {err}"
        times = {k: [] for k in sides}
        for r in range(args.rounds):
            order = list(sides)[r % 3:] + list(sides)[:r % 3]
            for k in order:
                times[k].append(triton.testing.do_bench(sides[k], return_mode="median"))
        gbs = {k: 2 * R * C * 4 / (statistics.median(v) * 1e-3) / 1e9 for k, v in times.items()}
        vs_t = statistics.median(t / k for k, t in zip(times["kiln"], times["triton"]))
        vs_torch = statistics.median(t / k for k, t in zip(times["kiln"], times["torch"]))
        print(f"{R}x{C} two loops, num_stages={stages} (GB/s): kiln {gbs['kiln']:.0f}, "
              f"triton {gbs['triton']:.0f}, torch {gbs['torch']:.0f}; "
              f"kiln/triton {vs_t:.3f}, kiln/torch {vs_torch:.3f}")


if __name__ == "__main__":
    main()
