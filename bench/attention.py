"""examples/attention.py's flash-attention forward against torch's
scaled_dot_product_attention (each of its cuDNN, flash and efficient backends torch has
there), same run, TFLOP/s (4 * B * H * Nq * Nk * D flops, halved for causal), fp16 or bf16.
With --hopper, examples/hopper_attention.py's TMA + wgmma forms too; with --triton, a Triton
kernel of the same algorithm (bench/_triton_attention.py). Every side's O is checked against
SDPA's first; one that differs is reported and not timed.

    python3 bench/attention.py [--dtype fp16] [--heads 16] [--dim 128] [--batch 4]
                               [--seqlens 1024,4096] [--rounds 3]
                               [--hopper default,ws,ws0,pws:3,tuned,plain,plainpipe] [--tiles none]
                               [--ws-config 128,3,240]
                               [--triton 128,64,8,3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "examples"))
from examples import attention, hopper_attention  # noqa: E402
import hopper_attention_plain  # noqa: E402
from kiln.testing import do_bench  # noqa: E402
from timing import best_ratio, best_side  # noqa: E402


def sdpa(backend):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    b = getattr(SDPBackend, backend)

    def run(q, k, v, causal):
        with sdpa_kernel(b):
            return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
    return run


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dtype", choices=["fp16", "bf16"], default="fp16")
    ap.add_argument("--heads", type=int, default=16)
    ap.add_argument("--dim", type=int, default=128)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--seqlens", default="1024,4096")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--tiles", default="64,64,4,3",
                    help="Kiln's BM,BN,num_warps,num_stages (several: separated by /; "
                         "'tuned': kiln.autotune's pick; 'none': no plain-form side)")
    ap.add_argument("--triton", default="",
                    help="a Triton fused-attention kernel (bench/_triton_attention.py) with "
                         "BLOCK_M,BLOCK_N,num_warps,num_stages (several: separated by /)")
    ap.add_argument("--hopper", default="",
                    help="examples/hopper_attention.py's forms to time, comma-separated: default "
                         "(kiln_hopper_attention's default call), ws (warp-specialized, one "
                         "tile a program, its default SCHEDULE; ws0 ... ws3 a given one), "
                         "pws (its persistent kernel, tiles from a counter; pws0, pws3), "
                         "sws (persistent, tiles round-robin; sws0, sws3), tuned (warp-specialized, "
                         "kiln.autotune's pick), plain (the single-partition kernel), "
                         "plainpipe (examples/hopper_attention_plain.py: its loop written "
                         "simply, the ring made by the pipeliner); a warp-specialized form "
                         "with ':2' or ':3' takes that many consumer warpgroups (pws:3), with "
                         "'@lazy' or '@eager' the softmax's lazy rescaling on or off "
                         "(default@eager; otherwise WS_LAZY by head dim)")
    ap.add_argument("--ws-config", default="",
                    help="BN,STAGES,CONSUMER_REGS for the warp-specialized forms (default: "
                         "examples/hopper_attention.py's WS_CONFIGS by head dim)")
    args = ap.parse_args(argv)
    ws_config = tuple(int(x) for x in args.ws_config.split(",")) if args.ws_config else None
    dtype = torch.float16 if args.dtype == "fp16" else torch.bfloat16
    B, H, D = args.batch, args.heads, args.dim
    for n in (int(x) for x in args.seqlens.split(",")):
        q, k, v = (torch.randn(B, n, H, D, device="cuda", dtype=dtype) for _ in range(3))
        qt, kt, vt = (t.transpose(1, 2) for t in (q, k, v))  # torch's [B, H, N, D]
        for causal in (False, True):
            sides = {}
            for tile in args.tiles.split("/") if args.tiles != "none" else ():
                if tile == "tuned":
                    sides["kiln tuned"] = lambda: attention.kiln_attention(
                        q, k, v, causal=causal, tuned=True)
                    continue
                bm, bn, w, st = (int(x) for x in tile.split(","))
                sides[f"kiln {bm}x{bn}/{w}w/{st}st"] = \
                    lambda bm=bm, bn=bn, w=w, st=st: attention.kiln_attention(
                        q, k, v, causal=causal, BM=bm, BN=bn, num_warps=w, num_stages=st)
            for side in args.hopper.split(",") if args.hopper else ():
                form, _, rescale = side.partition("@")
                if rescale not in ("", "lazy", "eager"):
                    ap.error(f"--hopper {side}: '@{rescale}' is not @lazy or @eager")
                lazy = {"": None, "lazy": True, "eager": False}[rescale]
                form, _, groups = form.partition(":")
                consumers = int(groups) if groups else None
                if form == "default":
                    sides[f"hopper {side}"] = \
                        lambda lazy=lazy: hopper_attention.kiln_hopper_attention(
                            q, k, v, causal=causal, lazy_rescale=lazy)
                    continue
                if form == "plainpipe":
                    sides["hopper plainpipe"] = \
                        lambda: hopper_attention_plain.kiln_hopper_attention_plain(
                            q, k, v, causal=causal)
                    continue
                persistent = form.startswith(("pws", "sws"))
                ws = form.startswith(("ws", "pws", "sws")) or form == "tuned"
                digits = form[3:] if persistent else form[2:]
                schedule = int(digits) if ws and form != "tuned" and digits else None
                if persistent and form.startswith("sws"):
                    persistent = "static"
                sides[f"hopper {side}"] = \
                    lambda ws=ws, schedule=schedule, tuned=form == "tuned", p=persistent, \
                    c=consumers, lazy=lazy: hopper_attention.kiln_hopper_attention(
                        q, k, v, causal=causal, warp_specialized=ws, schedule=schedule,
                        tuned=tuned, persistent=p, config=ws_config if ws else None,
                        consumers=c, lazy_rescale=lazy if ws else None)
            for cfg in args.triton.split("/") if args.triton else ():
                from _triton_attention import triton_attention
                bm, bn, w, st = (int(x) for x in cfg.split(","))
                sides[f"triton {cfg}"] = \
                    lambda bm=bm, bn=bn, w=w, st=st: triton_attention(
                        q, k, v, causal=causal, BLOCK_M=bm, BLOCK_N=bn, num_warps=w,
                        num_stages=st)
            for backend in ("CUDNN_ATTENTION", "FLASH_ATTENTION", "EFFICIENT_ATTENTION"):
                fn = sdpa(backend)
                try:
                    fn(qt, kt, vt, causal)
                except Exception as e:  # noqa: BLE001 -- a backend this torch lacks
                    print(f"  ({backend}: {str(e).splitlines()[0][:80]})")
                    continue
                sides[backend.split("_")[0].lower()] = \
                    lambda fn=fn: fn(qt, kt, vt, causal)
            # Every side's O against torch's default SDPA (a side that computes something
            # else is reported, not timed as if it were right).
            ref = torch.nn.functional.scaled_dot_product_attention(
                qt, kt, vt, is_causal=causal).transpose(1, 2)
            for s in list(sides):
                try:
                    out = sides[s]()
                except Exception as e:  # noqa: BLE001 -- e.g. a Triton config out of resources
                    print(f"  ({s}: {type(e).__name__}: {str(e).splitlines()[0][:100]}, "
                          f"not timed)")
                    del sides[s]
                    continue
                out = out[0] if isinstance(out, tuple) else out
                if out.shape != ref.shape:
                    out = out.transpose(1, 2)
                err = (out.float() - ref.float()).abs().max().item()
                if not err < 5e-2:
                    print(f"  ({s}: max |O - SDPA| = {err:.3g}, not timed)")
                    del sides[s]
            flops = 4 * B * H * n * n * D / (2 if causal else 1)
            rounds = {s: [] for s in sides}
            for _ in range(args.rounds):
                for s, fn in sides.items():
                    rounds[s].append(flops / do_bench(fn, return_mode="median") / 1e9)
            line = ", ".join(f"{s} {statistics.median(r):6.1f}" for s, r in rounds.items())
            print(f"N={n:6d} causal={causal!s:5} TFLOP/s: {line}")
            # Same-run ratios: the best Kiln side against the best of each other group.
            kiln_side = best_side(rounds, lambda s: s.startswith(("kiln ", "hopper ")))
            ratios = []
            for label, theirs in (("Triton", lambda s: s.startswith("triton ")),
                                  ("SDPA", lambda s: s in ("cudnn", "flash", "efficient"))):
                r = best_ratio(rounds, lambda s: s == kiln_side, theirs)
                if r:
                    ratios.append(f"/ best {label} ({r[1]}) {r[2]:.3f}")
            if ratios:
                print(f"    best Kiln ({kiln_side}) " + ", ".join(ratios)
                      + " (median of the rounds' ratios)")


if __name__ == "__main__":
    main()
