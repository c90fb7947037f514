#!/usr/bin/env python3
"""GPU proof: Kiln's example kernels, AOT-compiled here, run correctly there and copy fast.

Runs ON THE GPU MACHINE (torch present, no LLVM), from the repository root:

    bash scripts/device-run.sh python3 test/gpu/run_gpu_proof.py --bundle build/gpu-bundle

The bundle comes from ``python3 scripts/build-gpu-bundle.py`` (run where Kiln's compiler is
built), which compiles exactly the specializations the CASES below need: this module
describes every case as pure data, and :func:`needed_variants` derives each case's bundle key
from that description with the JIT's specialization rule (examples/kernels.py,
"Bundle keys"). Here, the key is derived again from the real torch arguments and must match.

Every case uses fresh ``torch.randn`` inputs (the seed is printed), poisons its output buffer
(larger than the output, so out-of-bounds writes show) with NaN, launches from the bundle
and compares with torch. Then it measures copy_2d's bandwidth against ``dst.copy_(src)``.
Full results go to $OUT/gpu_proof.json when OUT is set. Exit status 1 on any mismatch.

Importing this module needs neither torch nor a GPU (the build script reads CASES).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import sys
import time
import traceback

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The checkout's package only when no kiln is installed (an installed wheel wins).
_PATHS = [os.path.join(_ROOT, "examples"), os.path.join(_ROOT, "bench")]
if importlib.util.find_spec("kiln") is None:
    _PATHS.append(os.path.join(_ROOT, "python"))
for _p in _PATHS:
    if _p not in sys.path:
        sys.path.insert(0, _p)

import kernels as K  # noqa: E402

TARGET = "cuda:sm_90a"
DEVICE = "cuda"  # torch device of the tensors
FP32 = 4

# Each case is pure data. Matrices may be views into a larger buffer: `*_cols` is the
# buffer's row length (the view's row stride), `*_off` the view's (row, col) start in it.
CASES = {
    "vector_add": [{"n": n} for n in (1, 1000, 4096, 1_000_003)],
    "copy_2d": [
        {"M": 64, "N": 256},
        {"M": 100, "N": 300},
        {"M": 37, "N": 129, "src_cols": 200},                        # row stride > N
        {"M": 50, "N": 70, "src_cols": 203, "src_off": (3, 5), "dst_cols": 96},  # unaligned src
        {"M": 512, "N": 512, "src_cols": 1024, "src_off": (0, 256)},
        {"M": 1, "N": 1000},
        {"M": 1000, "N": 1},
        {"M": 259, "N": 401, "src_cols": 1000, "src_off": (7, 64), "dst_cols": 512},
        # Odd row strides on both sides, output view inside a NaN buffer (guards before
        # and after it).
        {"M": 45, "N": 33, "src_cols": 33, "dst_cols": 35, "dst_off": (2, 1)},
        {"M": 130, "N": 257, "src_cols": 259, "src_off": (1, 1), "dst_cols": 261,
         "dst_off": (1, 3)},
        {"M": 33, "N": 129, "src_cols": 131, "dst_cols": 129, "dst_off": (3, 0)},
    ],
    # r[:, None] * stride + c[None, :] < N over a 16x32 tile: the indexing whose row starts
    # were once taken for 16-byte aligned (misaligned v4 accesses, y[48] written for
    # stride 33, N 48). x_off / y_off (elements) start the views off 16-byte alignment.
    "masked_rows": [
        {"stride": 33, "N": 48},
        {"stride": 33, "N": 500},
        {"stride": 17, "N": 100, "x_off": 1, "y_off": 3},
        {"stride": 7, "N": 37, "y_off": 2},
        {"stride": 48, "N": 512},
        {"stride": 48, "N": 300, "x_off": 4, "y_off": 8},
        {"stride": 32, "N": 497, "y_off": 1},
        {"stride": 1, "N": 20},
        {"stride": 100, "N": 1600},
    ],
    "softmax": [
        {"M": 1, "N": 1024},
        {"M": 128, "N": 1024},
        {"M": 77, "N": 1000},
        {"M": 256, "N": 781},
        {"M": 33, "N": 16},
        {"M": 1000, "N": 100},
        {"M": 3, "N": 7},
        {"M": 64, "N": 500, "src_cols": 512},
        {"M": 5, "N": 1},
    ],
    "transpose": [
        {"M": 64, "N": 64},
        {"M": 100, "N": 37},
        {"M": 1, "N": 300},
        {"M": 513, "N": 257},
        {"M": 2048, "N": 1000},
        {"M": 300, "N": 200, "src_cols": 256, "src_off": (1, 3)},
    ],
}
BANDWIDTH_SHAPES = [(8192, 8192)]


def _view(case, prefix, default_cols):
    cols = case.get(f"{prefix}_cols", default_cols)
    off = case.get(f"{prefix}_off", (0, 0))
    return cols, off


def _ptr_spec(off_elems):
    """Signature string of a fp32 pointer `off_elems` elements into a fresh allocation
    (torch allocations are at least 256-byte aligned)."""
    return "*fp32:16" if (off_elems * FP32) % 16 == 0 else "*fp32"


def spec_args(name, case):
    """Runtime arguments of a case for specialization, without torch: pointers as type
    strings (aligned or not), integers as their values."""
    if name == "vector_add":
        return {"x": "*fp32:16", "y": "*fp32:16", "out": "*fp32:16", "n": case["n"]}
    if name == "masked_rows":
        return {"x": _ptr_spec(case.get("x_off", 0)), "y": _ptr_spec(case.get("y_off", 0)),
                "stride": case["stride"], "N": case["N"]}
    M, N = case["M"], case["N"]
    cols, (r0, c0) = _view(case, "src", N)
    if name == "copy_2d":
        dcols = case.get("dst_cols", N)
        dr0, dc0 = case.get("dst_off", (0, 0))
        return {"src": _ptr_spec(r0 * cols + c0), "dst": _ptr_spec(dr0 * dcols + dc0),
                "M": M, "N": N,
                "stride_sm": cols, "stride_dst_m": dcols}
    if name == "softmax":
        return {"out": "*fp32:16", "lse": "*fp32:16", "inp": _ptr_spec(r0 * cols + c0),
                "M": M, "N": N, "stride_in": cols, "stride_out": N}
    if name == "transpose":
        return {"src": _ptr_spec(r0 * cols + c0), "dst": "*fp32:16", "M": M, "N": N,
                "stride_sm": cols, "stride_dst_n": M}
    raise KeyError(name)


def all_cases():
    for name, cases in CASES.items():
        for case in cases:
            yield name, case
    for M, N in BANDWIDTH_SHAPES:
        yield "copy_2d", {"M": M, "N": N}


def needed_variants(target=TARGET):
    """{bundle key: (kernel name, signature, constexprs)} for every case (and bandwidth
    shape); what scripts/build-gpu-bundle.py compiles."""
    out = {}
    for name, case in all_cases():
        signature, constexprs, _ = K.specialize(name, target, spec_args(name, case))
        out.setdefault(K.bundle_key(name, target, signature, constexprs),
                       (name, signature, constexprs))
    return out


def case_label(name, case):
    if name == "vector_add":
        return f"n={case['n']}"
    if name == "masked_rows":
        return (f"stride={case['stride']} N={case['N']} x_off={case.get('x_off', 0)} "
                f"y_off={case.get('y_off', 0)}")
    label = f"{case['M']}x{case['N']}"
    for prefix in ("src", "dst"):
        if f"{prefix}_cols" in case or f"{prefix}_off" in case:
            cols, off = _view(case, prefix, case["N"])
            label += f" {prefix}[ld={cols}" + (f",off={tuple(off)}]" if any(off) else "]")
    return label


# ---------------------------------------------------------------------------------------------
# Running (torch + GPU)
# ---------------------------------------------------------------------------------------------

def _make_view(torch, case, prefix, rows, default_cols, fill=None):
    """A (rows, case N or given) view into a larger buffer, plus the buffer."""
    cols, (r0, c0) = _view(case, prefix, default_cols)
    buf_rows = r0 + rows
    if fill is None:
        buf = torch.randn(buf_rows, cols, device=DEVICE)
    else:
        buf = torch.full((buf_rows, cols), fill, device=DEVICE)
    return buf, buf[r0:r0 + rows, c0:c0 + default_cols] if prefix else buf


def _outside_is_nan(torch, buf, view):
    """True when every element of `buf` outside `view` (a view into it) is still NaN."""
    mask = torch.ones_like(buf, dtype=torch.bool)
    flat = mask.view(-1)
    offset = view.storage_offset() - buf.storage_offset()
    inside = torch.as_strided(flat, view.shape, view.stride(), offset)
    inside.fill_(False)
    return bool(torch.isnan(buf[mask]).all())


def _errs(torch, got, ref):
    if got.numel() == 0:
        return 0.0
    diff = (got.double() - ref.double()).abs()
    diff = torch.where(torch.isnan(diff), torch.full_like(diff, float("inf")), diff)
    diff = torch.where(torch.isnan(got) & torch.isnan(ref), torch.zeros_like(diff), diff)
    return float(diff.max())


def run_case(torch, bundle, name, case, target=TARGET):
    """Builds inputs, launches the matching bundle kernel, checks; returns a result dict."""
    nan = float("nan")
    result = {"kernel": name, "case": case_label(name, case)}
    if name == "vector_add":
        n = case["n"]
        x, y = torch.randn(n, device=DEVICE), torch.randn(n, device=DEVICE)
        out_buf = torch.full((n + 4096,), nan, device=DEVICE)
        out = out_buf[:n]
        args = {"x": x, "y": y, "out": out, "n": n}
        grid = K.grid(name, target, n)
        outputs = [(out_buf, out, x + y, 0.0, 0.0)]
    elif name == "copy_2d":
        M, N = case["M"], case["N"]
        _, src = _make_view(torch, case, "src", M, N)
        r0, c0 = case.get("dst_off", (0, 0))
        dst_buf, dst = _make_view(torch, {"dst_cols": case.get("dst_cols", N),
                                          "dst_off": (r0, c0)}, "dst", M + 2, N, fill=nan)
        dst = dst[:M]
        args = {"src": src, "dst": dst, "M": M, "N": N, "stride_sm": src.stride(0),
                "stride_dst_m": dst.stride(0)}
        grid = K.grid(name, target, M, N)
        outputs = [(dst_buf, dst, src.clone(), 0.0, 0.0)]
    elif name == "masked_rows":
        cfg = K.config(name, target)["constexprs"]
        stride, N = case["stride"], case["N"]
        span = (cfg["BLOCK_R"] - 1) * stride + cfg["BLOCK_C"]  # elements the tile can touch
        guard = 64
        x_off, y_off = case.get("x_off", 0), case.get("y_off", 0)
        x = torch.randn(x_off + span, device=DEVICE)[x_off:]
        y_buf = torch.full((guard + y_off + span + guard,), nan, device=DEVICE)
        y = y_buf[guard + y_off:guard + y_off + span]
        r = torch.arange(cfg["BLOCK_R"], device=DEVICE)[:, None]
        c = torch.arange(cfg["BLOCK_C"], device=DEVICE)[None, :]
        offs = (r * stride + c).flatten()
        offs = offs[offs < N]
        ref = torch.full((span,), nan, device=DEVICE)
        ref[offs] = x[offs]
        args = {"x": x, "y": y, "stride": stride, "N": N}
        grid = K.grid(name, target)
        outputs = [(y_buf, y, ref, 0.0, 0.0)]
    elif name == "softmax":
        M, N = case["M"], case["N"]
        _, inp = _make_view(torch, case, "src", M, N)
        inp.mul_(3.0)
        out_buf = torch.full((M + 2, N), nan, device=DEVICE)
        out = out_buf[:M]
        lse_buf = torch.full((M + 64,), nan, device=DEVICE)
        lse = lse_buf[:M]
        args = {"out": out, "lse": lse, "inp": inp, "M": M, "N": N,
                "stride_in": inp.stride(0), "stride_out": out.stride(0)}
        grid = K.grid(name, target, M)
        ref = torch.softmax(inp.double(), dim=1)
        ref_lse = torch.logsumexp(inp.double(), dim=1)
        outputs = [(out_buf, out, ref, 1e-4, 1e-6), (lse_buf, lse, ref_lse, 1e-5, 1e-5)]
    elif name == "transpose":
        M, N = case["M"], case["N"]
        _, src = _make_view(torch, case, "src", M, N)
        dst_buf = torch.full((N + 1, M), nan, device=DEVICE)
        dst = dst_buf[:N]
        args = {"src": src, "dst": dst, "M": M, "N": N, "stride_sm": src.stride(0),
                "stride_dst_n": dst.stride(0)}
        grid = K.grid(name, target, M, N)
        outputs = [(dst_buf, dst, src.t().clone(), 0.0, 0.0)]
    else:
        raise KeyError(name)

    key, runtime = K.key_for_args(name, target, args)
    expected = K.bundle_key(name, target, *K.specialize(name, target,
                                                         spec_args(name, case))[:2])
    result["key"] = key
    if key != expected:
        result.update(ok=False, error=f"specialization of the real arguments ({key}) differs "
                      f"from the case description's ({expected})")
        return result
    if key not in bundle:
        result.update(ok=False, error=f"variant {key} is not in the bundle")
        return result
    bundle[key][grid](*[args[n] for n in runtime])
    if DEVICE == "cuda":
        torch.cuda.synchronize()
    ok, max_err, oob_ok = True, 0.0, True
    for buf, got, ref, rtol, atol in outputs:
        err = _errs(torch, got, ref)
        max_err = max(max_err, err)
        if rtol == 0.0 and atol == 0.0:
            ref = ref.to(got.dtype)
            good = bool(torch.equal(torch.isnan(got), torch.isnan(ref)) and
                        torch.equal(torch.nan_to_num(got), torch.nan_to_num(ref)))
        else:
            good = bool(torch.allclose(got.double(), ref.double(), rtol=rtol, atol=atol))
        outside = _outside_is_nan(torch, buf, got)
        ok = ok and good and outside
        oob_ok = oob_ok and outside
    result.update(ok=ok, max_abs_err=max_err, out_of_bounds_untouched=oob_ok, grid=list(grid))
    return result


def run_all(bundle, seed, target=TARGET, kernels=None):
    import torch
    results = []
    for name, case in ((n, c) for n, cs in CASES.items() for c in cs):
        if kernels and name not in kernels:
            continue
        torch.manual_seed(seed)
        try:
            results.append(run_case(torch, bundle, name, case, target))
        except Exception as e:
            results.append({"kernel": name, "case": case_label(name, case), "ok": False,
                            "error": f"{type(e).__name__}: {e}",
                            "traceback": traceback.format_exc()})
    return results


def print_results(results):
    print(f"{'kernel':<11} {'case':<46} {'bundle key':<24} {'max |err|':>10}  result")
    for r in results:
        err = r.get("max_abs_err")
        err = "-" if err is None else f"{err:.2e}"
        verdict = "ok" if r["ok"] else "FAIL"
        if not r["ok"]:
            if "error" in r:
                verdict += f": {r['error']}"
            elif not r.get("out_of_bounds_untouched", True):
                verdict += ": wrote outside the output"
            else:
                verdict += ": mismatch"
        print(f"{r['kernel']:<11} {r['case']:<46} {r.get('key', '-'):<24} {err:>10}  {verdict}")


def main(argv=None):
    ap = argparse.ArgumentParser(description="Kiln GPU proof (runs on the GPU machine)")
    ap.add_argument("--bundle", default=os.path.join(_ROOT, "build", "gpu-bundle"))
    ap.add_argument("--seed", type=int, default=None, help="default: random, printed")
    ap.add_argument("--kernels", default=None, help="comma-separated subset")
    ap.add_argument("--no-bench", action="store_true", help="skip the bandwidth measurement")
    args = ap.parse_args(argv)

    import torch
    from kiln.runtime import get_driver
    from kiln.runtime.bundle import load_bundle
    torch.cuda.init()  # torch's context first; Kiln's runtime reuses the current one
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    device = torch.cuda.get_device_name()
    target = get_driver().current_target()
    print(f"device: {device} ({target}); torch {torch.__version__}; seed = {seed}")
    bundle = load_bundle(args.bundle)
    print(f"bundle: {args.bundle} ({len(bundle)} kernels)")

    t0 = time.time()
    kernels = set(args.kernels.split(",")) if args.kernels else None
    results = run_all(bundle, seed, target, kernels)
    failures = [r for r in results if not r["ok"]]

    bandwidth, bench_error = [], None
    if not args.no_bench and not kernels:
        try:
            import copy_bandwidth
            bandwidth = copy_bandwidth.copy_bandwidth(bundle, BANDWIDTH_SHAPES, target)
        except Exception as e:
            bench_error = f"{type(e).__name__}: {e}"
            traceback.print_exc()

    print()
    print_results(results)
    for r in failures:
        if "traceback" in r:
            print(f"\n{r['kernel']} {r['case']}:\n{r['traceback']}")
    summary = {}
    for r in results:
        s = summary.setdefault(r["kernel"], [0, 0])
        s[0] += r["ok"]
        s[1] += 1
    print("\n" + "  ".join(f"{k}: {p}/{t}" for k, (p, t) in summary.items()))
    if bandwidth:
        print()
        copy_bandwidth.print_table(bandwidth)
    if bench_error:
        print(f"bandwidth: FAILED ({bench_error})")
    bad_copy = [b for b in bandwidth if b["correct"] is False]
    status = "PASS" if not failures and not bad_copy and not bench_error else "FAIL"
    print(f"\n{status}: {len(results) - len(failures)}/{len(results)} cases ok, "
          f"seed {seed}, {time.time() - t0:.1f}s")

    if os.environ.get("OUT"):
        with open(os.path.join(os.environ["OUT"], "gpu_proof.json"), "w") as f:
            json.dump({"device": device, "target": target, "seed": seed,
                       "torch": torch.__version__, "bundle": args.bundle,
                       "status": status, "cases": results, "bandwidth": bandwidth,
                       "bandwidth_error": bench_error}, f, indent=2)
    return 0 if status == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
