#!/usr/bin/env python3
"""Bandwidth of Kiln's 2-D copy kernel (examples/kernels.py: copy_2d) against torch's device
copy (``dst.copy_(src)``), measured in the same run.

Runs on the GPU machine from an AOT bundle (no LLVM needed there):

    bash scripts/device-run.sh python3 bench/copy_bandwidth.py --bundle build/gpu-bundle \
        [--shapes 8192x8192,4096x4096] [--json $OUT/copy_bandwidth.json]

Bandwidth = (bytes read + bytes written) / median time; the median comes from
``triton.testing.do_bench(..., return_mode="median")`` when triton imports, else from CUDA
events around each of many launches after a warm-up. Build the bundle here first with
``python3 scripts/build-gpu-bundle.py`` (it compiles the copy variant for contiguous fp32
matrices whose sizes are multiples of 16; other shapes need their own variant, see
examples/kernels.py "Bundle keys").
"""

from __future__ import annotations

import argparse
import json
import os
import sys

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for _p in (os.path.join(_ROOT, "python"), os.path.join(_ROOT, "examples")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

from timing import median_ms  # noqa: E402  (bench/timing.py)

DEFAULT_SHAPES = ((8192, 8192),)




def copy_bandwidth(bundle, shapes=DEFAULT_SHAPES, target=None, check=True, device="cuda"):
    """Measures copy_2d (from ``bundle``) and torch's copy on contiguous fp32 (M, N) matrices.

    Returns one dict per shape: {shape, bytes, key, kiln_ms, torch_ms, kiln_gbps,
    torch_gbps, ratio, correct, timer}.
    """
    import torch
    import kernels as K
    if target is None:
        from kiln.runtime import get_driver
        target = get_driver().current_target()
    results = []
    for M, N in shapes:
        src = torch.randn(M, N, device=device)
        dst = torch.full_like(src, float("nan"))
        ref = torch.empty_like(src)
        args = {"src": src, "dst": dst, "M": M, "N": N, "stride_sm": src.stride(0),
                "stride_dst_m": dst.stride(0)}
        key, runtime = K.key_for_args("copy_2d", target, args)
        if key not in bundle:
            raise KeyError(f"copy_2d variant {key} for {M}x{N} is not in the bundle; "
                           f"rebuild it with scripts/build-gpu-bundle.py")
        kernel = bundle[key]
        grid = K.grid("copy_2d", target, M, N)
        values = [args[n] for n in runtime]

        def run_kiln():
            kernel[grid](*values)

        def run_torch():
            ref.copy_(src)

        run_kiln()
        if device == "cuda":
            torch.cuda.synchronize()
        correct = bool(torch.equal(dst, src)) if check else None
        kiln_ms, timer = median_ms(run_kiln)
        torch_ms, _ = median_ms(run_torch)
        nbytes = 2 * src.numel() * src.element_size()
        kiln_gbps = nbytes / (kiln_ms * 1e-3) / 1e9
        torch_gbps = nbytes / (torch_ms * 1e-3) / 1e9
        results.append({"shape": [M, N], "bytes": nbytes, "key": key,
                        "kiln_ms": kiln_ms, "torch_ms": torch_ms,
                        "kiln_gbps": kiln_gbps, "torch_gbps": torch_gbps,
                        "ratio": kiln_gbps / torch_gbps, "correct": correct, "timer": timer})
        del src, dst, ref
    return results


def print_table(results, goal=0.9):
    print(f"{'copy fp32':<12} {'MiB r+w':>8} {'kiln GB/s':>10} {'torch GB/s':>11} "
          f"{'kiln/torch':>10}  check  timer")
    for r in results:
        M, N = r["shape"]
        verdict = "" if r["ratio"] >= goal else f"  (below goal {goal})"
        check = {True: "ok", False: "WRONG", None: "-"}[r["correct"]]
        print(f"{f'{M}x{N}':<12} {r['bytes'] / 2**20:>8.0f} {r['kiln_gbps']:>10.1f} "
              f"{r['torch_gbps']:>11.1f} {r['ratio']:>10.3f}  {check:<5}  {r['timer']}"
              f"{verdict}")


def _shape(text):
    m, _, n = text.lower().partition("x")
    return int(m), int(n)


def main(argv=None):
    ap = argparse.ArgumentParser(description="Kiln copy_2d bandwidth vs torch copy")
    ap.add_argument("--bundle", default=os.path.join(_ROOT, "build", "gpu-bundle"))
    ap.add_argument("--shapes", default=",".join(f"{m}x{n}" for m, n in DEFAULT_SHAPES),
                    help="comma-separated MxN list (default 8192x8192)")
    ap.add_argument("--json", default=None,
                    help="write results here (default: $OUT/copy_bandwidth.json if OUT is set)")
    args = ap.parse_args(argv)
    import torch
    from kiln.runtime.bundle import load_bundle
    torch.cuda.init()  # make torch's context current before Kiln's driver looks
    bundle = load_bundle(args.bundle)
    results = copy_bandwidth(bundle, [_shape(s) for s in args.shapes.split(",") if s])
    print(f"device: {torch.cuda.get_device_name()}")
    print_table(results)
    path = args.json or (os.path.join(os.environ["OUT"], "copy_bandwidth.json")
                         if os.environ.get("OUT") else None)
    if path:
        with open(path, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "results": results}, f,
                      indent=2)
    return 0 if all(r["correct"] is not False for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
