"""Sustained throughput under the GPU's power limit: each side runs alone, back to back, for
--seconds, in interleaved rounds, while nvidia-smi samples the SM clock and the board power every
100 ms. Per window it prints TFLOP/s, the mean SM clock and power, TFLOP per joule and TFLOP/s
per GHz.

Short timings (bench/attention.py, bench/cluster_gemm.py: do_bench medians with idle gaps) see
the clock a cool GPU boosts to. A kernel that keeps the tensor cores busy for seconds draws the
board to its power limit, where the clock drops until the power fits. Then two kernels that do
the same multiply-adds differ only by the energy each spends around them, and TFLOP/J is the
figure that separates them.

    python3 bench/sustained.py attention [--seqlen 8192] [--batch 2] [--heads 16] [--dim 128]
    python3 bench/sustained.py gemm [--sizes 4096,8192]
    python3 bench/sustained.py wild [--cases lmdeploy_fp8_gemm_persistent]
    [--seconds 4] [--rounds 2]

``wild`` runs a case of the wild corpus (test/wild/cases) the way its project launches it, with
Triton and with Kiln, each side in a process of its own (after ``python3 scripts/wild-corpus.py
restore``, build/wild carried to the GPU machine), and prints launches per second (the case's
FLOP count is not known here). Only a kernel that outlasts its host path (each side launches
back to back, synchronizing every 10 calls) is held at the power limit; a short one measures
the host.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import json
import os
import statistics
import subprocess
import sys
import time

try:
    import torch
except ImportError:  # the parsing and summaries below are usable (and tested) without it
    torch = None

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from examples import cluster_gemm, hopper_attention  # noqa: E402


def _sampler():
    return subprocess.Popen(["nvidia-smi", "--query-gpu=timestamp,clocks.sm,power.draw",
                             "--format=csv,noheader,nounits", "-lms", "100"],
                            stdout=subprocess.PIPE, text=True)


def _samples(text):
    """(seconds since the epoch, SM MHz, watts) per nvidia-smi line."""
    out = []
    for row in csv.reader(text.strip().splitlines()):
        try:
            stamp = datetime.datetime.strptime(row[0].strip(), "%Y/%m/%d %H:%M:%S.%f")
            out.append((stamp.timestamp(), float(row[1]), float(row[2])))
        except (ValueError, IndexError):
            continue  # a line nvidia-smi cut short when it was stopped
    return out


def _hold(fn, seconds):
    """(start, end, calls) of `fn` launched back to back for `seconds`."""
    start, calls = time.time(), 0
    while time.time() - start < seconds:
        for _ in range(10):
            fn()
        calls += 10
        torch.cuda.synchronize()
    return start, time.time(), calls


def measure(label, sides, flops, seconds, rounds, unit="TFLOP/s"):
    """Each side alone for `seconds`, `rounds` times, interleaved. A side is a function to
    launch, or (for `run_side`) a callable taking `seconds` that returns (start, end, calls)."""
    held = {name: fn if getattr(fn, "holds", False) else
            (lambda fn: lambda s: _hold(fn, s))(fn) for name, fn in sides.items()}
    for fn in sides.values():
        if not getattr(fn, "holds", False):
            fn()
    torch.cuda.synchronize()
    smi = _sampler()
    windows = []
    try:
        for _ in range(rounds):
            for name, hold in held.items():
                windows.append((name, *hold(seconds)))
                time.sleep(1.0)  # a gap, so that no window starts in another's tail
    finally:
        smi.terminate()
    for line in summarize(label, windows, _samples(smi.communicate()[0]), flops, unit):
        print(line)


def summarize(label, windows, samples, flops, unit="TFLOP/s"):
    """A line per window (name, start, end, calls): its rate (`flops` a call, per 10^12), and
    the mean clock and power of the samples (time, MHz, W) inside it but its first half
    second, where the clock settles after the gap."""
    per = "TFLOP" if unit == "TFLOP/s" else "k launches"
    lines = []
    for name, start, end, calls in windows:
        inside = [s for s in samples if start + 0.5 <= s[0] <= end]
        rate = flops * calls / (end - start) / 1e12
        if not inside:
            lines.append(f"{label} {name:14}: {rate:7.2f} {unit} (no nvidia-smi samples)")
            continue
        mhz = statistics.mean(s[1] for s in inside)
        watts = statistics.mean(s[2] for s in inside)
        lines.append(f"{label} {name:14}: {rate:7.2f} {unit}, SM clock {mhz:5.0f} MHz, "
                     f"{watts:4.0f} W, {rate / watts:.4f} {per}/J, "
                     f"{rate / mhz * 1000:5.2f} {unit} per GHz ({len(inside)} samples)")
    return lines


def attention(args):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    B, H, D, n = args.batch, args.heads, args.dim, args.seqlen
    q, k, v = (torch.randn(B, n, H, D, device="cuda", dtype=torch.float16) for _ in range(3))
    qt, kt, vt = (t.transpose(1, 2) for t in (q, k, v))
    for causal in (False, True):
        def kiln_side():
            hopper_attention.kiln_hopper_attention(q, k, v, causal=causal)

        def cudnn_side():
            with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                torch.nn.functional.scaled_dot_product_attention(qt, kt, vt, is_causal=causal)
        o_kiln = hopper_attention.kiln_hopper_attention(q, k, v, causal=causal)[0]
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            o_ref = torch.nn.functional.scaled_dot_product_attention(qt, kt, vt,
                                                                     is_causal=causal)
        err = (o_kiln.float() - o_ref.transpose(1, 2).float()).abs().max().item()
        if err > 2e-2:
            raise SystemExit(f"Kiln's O differs from cuDNN's by {err:.3g}")
        flops = 4 * B * H * n * n * D / (2 if causal else 1)
        measure(f"attention N={n} D={D} causal={causal!s:5}",
                {"kiln ws": kiln_side, "cudnn": cudnn_side}, flops, args.seconds, args.rounds)


def gemm(args):
    for size in (int(s) for s in args.sizes.split(",")):
        a = torch.randn(size, size, device="cuda").to(torch.bfloat16)
        b = torch.randn(size, size, device="cuda").to(torch.bfloat16)
        c = torch.empty(size, size, device="cuda", dtype=torch.bfloat16)
        ref = torch.matmul(a, b.T)
        sides = {"cublas": lambda: torch.matmul(a, b.T, out=c),
                 "kiln-cluster": cluster_gemm.kiln_cluster_matmul_launcher(a, b, c)[0],
                 "kiln-clusterp": cluster_gemm.kiln_cluster_matmul_launcher(
                     a, b, c, persistent=True)[0]}
        for name, fn in sides.items():
            c.zero_()
            fn()
            err = (c.float() - ref.float()).abs().max().item()
            if err > 1e-2 * ref.abs().max().item():
                raise SystemExit(f"{name}'s product differs from torch's by {err:.3g}")
        measure(f"bf16 {size}^3", sides, 2 * size ** 3, args.seconds, args.rounds)


_WILD_CHILD = r'''
import json, sys, time
sys.path.insert(0, {wild!r}); sys.path.insert(0, {cases!r})
import harness
case = harness.load_case({case!r})
sys.path.insert(0, {root!r})
import importlib, torch
mod = importlib.import_module(case.MODULE)
launch, check = case.setup(mod)
launch(); torch.cuda.synchronize()
ok = check()
if not ok[0]:
    raise SystemExit(f"{{ok}}")
for line in sys.stdin:
    seconds = float(line)
    start, calls = time.time(), 0
    while time.time() - start < seconds:
        for _ in range(10):
            launch()
        calls += 10
        torch.cuda.synchronize()
    print(json.dumps([start, time.time(), calls]), flush=True)
'''


def wild(args):
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    wild_dir = os.path.join(root, "test", "wild")
    sys.path.insert(0, wild_dir)
    import harness
    for case in args.cases.split(","):
        project = harness.load_case(case).PROJECT
        sides, children = {}, []
        for side, tree in (("triton", "src"), ("kiln", "kiln")):
            code = _WILD_CHILD.format(wild=wild_dir, cases=os.path.join(wild_dir, "cases"),
                                      case=case,
                                      root=os.path.join(root, "build", "wild", tree, project))
            child = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
            children.append(child)

            def hold(seconds, child=child, side=side):
                child.stdin.write(f"{seconds}\n")
                child.stdin.flush()
                line = child.stdout.readline()
                if not line:
                    raise SystemExit(f"the {side} side of {case} stopped (its error above)")
                return tuple(json.loads(line))
            hold.holds = True
            sides[side] = hold
        try:
            measure(case, sides, 1e9, args.seconds, args.rounds, unit="k launches/s")
        finally:
            for child in children:
                child.stdin.close()
                child.wait(timeout=60)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=["attention", "gemm", "wild"])
    ap.add_argument("--seconds", type=float, default=4.0)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--seqlen", type=int, default=8192)
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--heads", type=int, default=16)
    ap.add_argument("--dim", type=int, default=128)
    ap.add_argument("--sizes", default="4096,8192")
    ap.add_argument("--cases", default="lmdeploy_fp8_gemm_persistent")
    args = ap.parse_args(argv)
    if torch is None or not torch.cuda.is_available():
        raise SystemExit("bench/sustained.py needs a CUDA GPU")
    {"attention": attention, "gemm": gemm, "wild": wild}[args.what](args)


if __name__ == "__main__":
    main()
