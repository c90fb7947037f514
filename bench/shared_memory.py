#!/usr/bin/env python3
"""Shared memory and async copies, measured in one run against their peers:

* ``ring``: c = a + b on large row-major matrices, streamed through an NBUF-slot ring of
  shared memory per input with cp.async (Gluon's async-copy tutorial, the kernel of
  docs/shared-memory.md), against ``torch.add(a, b, out=c)`` and against the same ring
  written in Gluon (Triton 3.6). Goals: Kiln >= 0.97x torch and >= 1.0x Gluon.
* ``transpose``: out = x^T through a swizzled shared buffer (read along x's rows, written
  along out's rows), against ``x.t().contiguous()``. Goal: Kiln >= 1.0x torch.

Runs on the GPU machine with the Kiln wheel installed (kernels JIT-compile on first use):

    python3 bench/shared_memory.py [--shapes 8192x8192] [--dtypes fp16,fp32] [--sweep]
        [--json $OUT/shared_memory.json]

Bandwidth = (bytes read + bytes written) / median time: 3 * M * N * elem for the ring,
2 * M * N * elem for the transpose. The median comes from
``triton.testing.do_bench(..., return_mode="median")`` (no CUDA graphs) when triton imports,
else from CUDA events around each of many launches after a warm-up. Every kernel's output is
checked against torch, on fresh random inputs and a NaN-poisoned output, before it is timed.
Each side (Kiln, Gluon) runs the same small list of block configurations; the table shows
each side's best (``--sweep`` prints every configuration). Gluon failing to import (or to
compile a configuration) prints ``gluon unavailable`` and leaves its column empty.

Bank conflicts of the transpose: ``--ncu`` launches the Kiln transpose once (nothing else of
Kiln runs; the torch kernels that make the input and check the output are filtered out by
name):

    ncu -k regex:transpose_smem -c 1 --metrics \\
        l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,\\
        l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum \\
        python3 bench/shared_memory.py --ncu [--dtype fp32|fp16] [--swizzle 1,1,1]

``--swizzle vec,per_phase,max_phase`` replaces the tuned swizzle (1,1,1 is unswizzled: every
column read then hits one bank).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
try:  # the installed wheel first; a development checkout otherwise
    import kiln  # noqa: F401
except ImportError:
    sys.path.insert(0, os.path.join(_ROOT, "python"))

from timing import gbps, median_ms  # noqa: E402  (bench/timing.py)
import kiln  # noqa: E402
import kiln.language as kl  # noqa: E402

sys.path.insert(0, os.path.join(_ROOT, "examples"))
from kernels import ring_add, transpose_smem  # noqa: E402  (examples/kernels.py)

try:
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon.language.nvidia.ampere import async_copy as gcp
    GLUON_ERROR = None
except Exception as e:  # triton absent or without Gluon
    gluon = gl = gcp = None
    GLUON_ERROR = f"{type(e).__name__}: {e}"

DEFAULT_SHAPES = ((8192, 8192),)
ELEM_BYTES = {"fp16": 2, "fp32": 4}
GOALS = {"ring_vs_torch": 0.97, "ring_vs_gluon": 1.0, "transpose_vs_torch": 1.0}

# (BM, BN, NBUF, num_warps, ROWS): ROWS rows per program (a multiple of BM), so an 8192 x 8192
# matrix makes about a thousand programs; shared bytes = 2 inputs * NBUF * BM * BN * elem.
RING_CONFIGS = {
    "fp16": [(32, 128, 3, 4, 512), (32, 128, 4, 4, 1024), (64, 128, 3, 8, 1024),
             (32, 256, 3, 8, 512), (16, 256, 4, 4, 512), (64, 128, 4, 8, 2048),
             (32, 256, 4, 8, 1024), (64, 256, 3, 8, 2048)],
    "fp32": [(32, 64, 3, 4, 512), (32, 128, 3, 4, 512), (16, 128, 4, 4, 512),
             (32, 64, 4, 4, 1024), (64, 64, 3, 8, 1024), (64, 128, 3, 8, 1024),
             (32, 128, 4, 8, 1024), (64, 64, 4, 8, 2048)],
}
# (BM, BN, num_warps, how the buffer is filled)
TRANSPOSE_CONFIGS = [(64, 64, 4, "store"), (64, 64, 8, "store"), (128, 64, 8, "store"),
                     (64, 128, 8, "store"), (64, 64, 4, "async"), (64, 64, 8, "async")]


# --- Kiln kernels -------------------------------------------------------------------------------


# --- the same ring in Gluon ---------------------------------------------------------------------

if gluon is not None:
    @gluon.jit
    def transpose_smem_gluon(x, out, M, N, BM: gl.constexpr, BN: gl.constexpr,
                             L: gl.constexpr, LT: gl.constexpr, SH: gl.constexpr):
        """The Kiln transpose_smem (VIA="store") in Gluon, for --ncu --impl gluon."""
        dt: gl.constexpr = x.dtype.element_ty
        rows = gl.program_id(0) * BM + gl.arange(0, BM, gl.SliceLayout(1, L))
        cols = gl.program_id(1) * BN + gl.arange(0, BN, gl.SliceLayout(0, L))
        m = (rows[:, None] < M) & (cols[None, :] < N)
        buf = gl.allocate_shared_memory(dt, [BM, BN], SH)
        buf.store(gl.load(x + rows[:, None] * N + cols[None, :], mask=m))
        t = buf.load(LT)
        rows_t = gl.program_id(0) * BM + gl.arange(0, BM, gl.SliceLayout(1, LT))
        cols_t = gl.program_id(1) * BN + gl.arange(0, BN, gl.SliceLayout(0, LT))
        mt = (rows_t[:, None] < M) & (cols_t[None, :] < N)
        gl.store(out + cols_t[None, :] * M + rows_t[:, None], t, mask=mt)

    @gluon.jit
    def ring_add_gluon(a, b, c, M, N, ROWS, BM: gl.constexpr, BN: gl.constexpr,
                       NBUF: gl.constexpr, CL: gl.constexpr, LL: gl.constexpr,
                       SH: gl.constexpr):
        dt: gl.constexpr = a.dtype.element_ty
        a_bufs = gl.allocate_shared_memory(dt, [NBUF, BM, BN], SH)
        b_bufs = gl.allocate_shared_memory(dt, [NBUF, BM, BN], SH)
        row0 = gl.program_id(1) * ROWS
        row_end = gl.minimum(M, row0 + ROWS)
        num_blocks = gl.cdiv(row_end - row0, BM)
        cols_c = gl.program_id(0) * BN + gl.arange(0, BN, gl.SliceLayout(0, CL))
        rows_c = row0 + gl.arange(0, BM, gl.SliceLayout(1, CL))
        cols_l = gl.program_id(0) * BN + gl.arange(0, BN, gl.SliceLayout(0, LL))
        rows_l = row0 + gl.arange(0, BM, gl.SliceLayout(1, LL))
        for s in gl.static_range(NBUF - 1):
            r0 = rows_c + s * BM
            m0 = (r0[:, None] < row_end) & (cols_c[None, :] < N)
            offs0 = r0[:, None] * N + cols_c[None, :]
            gcp.async_copy_global_to_shared(a_bufs.index(s), a + offs0, mask=m0)
            gcp.async_copy_global_to_shared(b_bufs.index(s), b + offs0, mask=m0)
            gcp.commit_group()
        for k in range(num_blocks):
            nxt = k + NBUF - 1
            r = rows_c + nxt * BM
            m = (r[:, None] < row_end) & (cols_c[None, :] < N)
            offs = r[:, None] * N + cols_c[None, :]
            gcp.async_copy_global_to_shared(a_bufs.index(nxt % NBUF), a + offs, mask=m)
            gcp.async_copy_global_to_shared(b_bufs.index(nxt % NBUF), b + offs, mask=m)
            gcp.commit_group()
            # Triton's membar pass puts a CTA barrier after every async wait, and one before
            # the next copy into a slot that was just read: no explicit barrier is needed.
            gcp.wait_group(NBUF - 1)
            x = a_bufs.index(k % NBUF).load(LL)
            y = b_bufs.index(k % NBUF).load(LL)
            r_l = rows_l + k * BM
            m_l = (r_l[:, None] < row_end) & (cols_l[None, :] < N)
            gl.store(c + r_l[:, None] * N + cols_l[None, :], x + y, mask=m_l)
        gcp.wait_group(0)


# --- layouts ------------------------------------------------------------------------------------


def ring_layouts(lang, dtype, BN, num_warps):
    """(copy/load layout, shared layout) for the ring: 16 bytes per thread along the row (one
    16-byte cp.async, one 16-byte shared load, one 16-byte global store), the same layout for
    copying and reading (each thread reads back what it copied), unswizzled rows."""
    vec = 16 // ELEM_BYTES[dtype]
    lanes = min(32, BN // vec)
    CL = lang.BlockedLayout([1, vec], [32 // lanes, lanes], [num_warps, 1], [1, 0])
    return CL, lang.SwizzledSharedLayout(vec, 1, 1, [1, 0])


def transpose_layouts(dtype, num_warps, swizzle=None):
    """(L, LT, SH). L: 16-byte vectors along x's rows, 8 threads per 128-byte row segment.
    LT: 16-byte vectors along out's rows (x's columns); one shared load instruction of a warp
    reads rows 8*i + j (fp16) or 4*i + j (fp32) of four columns, i = 0..7. The swizzle
    (vec, per_phase=vec, max_phase=8) gives those 8 rows 8 different phases, so the 32 lanes
    hit 32 different banks (fp32) or 16 words shared by pairs (fp16); the 16-byte stores of a
    quarter warp cover one 128-byte row segment, a permutation of its 8 groups."""
    vec = 16 // ELEM_BYTES[dtype]
    L = kl.BlockedLayout([1, vec], [4, 8], [num_warps, 1], [1, 0])
    LT = kl.BlockedLayout([vec, 1], [8, 4], [1, num_warps], [0, 1])
    sw = swizzle or (vec, vec, 8)
    return L, LT, kl.SwizzledSharedLayout(*sw, [1, 0])


# --- timing -------------------------------------------------------------------------------------






def _error(e):
    text = f"{type(e).__name__}: {e}".strip().splitlines()
    return text[0][:300] if text else type(e).__name__


# --- the ring -----------------------------------------------------------------------------------


def ring_launcher(side, dtype, config, a, b, c):
    BM, BN, NBUF, num_warps, ROWS = config
    M, N = a.shape
    lang = kl if side == "kiln" else gl
    kernel = ring_add if side == "kiln" else ring_add_gluon
    CL, SH = ring_layouts(lang, dtype, BN, num_warps)
    grid = (kiln.cdiv(N, BN), kiln.cdiv(M, ROWS))

    def run():
        kernel[grid](a, b, c, M, N, ROWS, BM=BM, BN=BN, NBUF=NBUF, CL=CL, LL=CL, SH=SH,
                     num_warps=num_warps)
    return run


def bench_ring(M, N, dtype, rep):
    import torch
    tdt = {"fp16": torch.float16, "fp32": torch.float32}[dtype]
    a = torch.randn(M, N, device="cuda").to(tdt)
    b = torch.randn(M, N, device="cuda").to(tdt)
    c = torch.empty_like(a)
    ref = a + b
    nbytes = 3 * M * N * ELEM_BYTES[dtype]
    torch_ms, timer = median_ms(lambda: torch.add(a, b, out=c), rep=rep)
    rows = []
    sides = ["kiln"] + (["gluon"] if gluon is not None else [])
    for side in sides:
        for config in RING_CONFIGS[dtype]:
            row = {"side": side, "config": list(config)}
            try:
                run = ring_launcher(side, dtype, config, a, b, c)
                c.fill_(float("nan"))
                run()
                torch.cuda.synchronize()
                row["correct"] = bool(torch.equal(c, ref))
                if row["correct"]:
                    row["ms"], _ = median_ms(run, rep=rep)
                    row["gbps"] = gbps(nbytes, row["ms"])
            except Exception as e:  # a configuration that does not compile or launch
                row["error"] = _error(e)
            rows.append(row)
    del a, b, c, ref
    return {"shape": [M, N], "dtype": dtype, "bytes": nbytes, "timer": timer,
            "torch_ms": torch_ms, "torch_gbps": gbps(nbytes, torch_ms), "runs": rows}


def best(rows, side):
    ok = [r for r in rows if r["side"] == side and r.get("gbps")]
    return max(ok, key=lambda r: r["gbps"]) if ok else None


# --- the transpose ------------------------------------------------------------------------------


def transpose_launcher(dtype, config, x, out, swizzle=None):
    BM, BN, num_warps, via = config
    M, N = x.shape
    L, LT, SH = transpose_layouts(dtype, num_warps, swizzle)
    grid = (kiln.cdiv(M, BM), kiln.cdiv(N, BN))

    def run():
        transpose_smem[grid](x, out, M, N, BM=BM, BN=BN, L=L, LT=LT, SH=SH, VIA=via,
                             num_warps=num_warps)
    return run


def bench_transpose(M, N, dtype, rep, swizzle=None):
    import torch
    tdt = {"fp16": torch.float16, "fp32": torch.float32}[dtype]
    x = torch.randn(M, N, device="cuda").to(tdt)
    out = torch.empty((N, M), device="cuda", dtype=tdt)
    ref = x.t().contiguous()
    nbytes = 2 * M * N * ELEM_BYTES[dtype]
    torch_ms, timer = median_ms(lambda: x.t().contiguous(), rep=rep)
    rows = []
    for config in TRANSPOSE_CONFIGS:
        row = {"side": "kiln", "config": list(config)}
        try:
            run = transpose_launcher(dtype, config, x, out, swizzle)
            out.fill_(float("nan"))
            run()
            torch.cuda.synchronize()
            row["correct"] = bool(torch.equal(out, ref))
            if row["correct"]:
                row["ms"], _ = median_ms(run, rep=rep)
                row["gbps"] = gbps(nbytes, row["ms"])
        except Exception as e:
            row["error"] = _error(e)
        rows.append(row)
    del x, out, ref
    return {"shape": [M, N], "dtype": dtype, "bytes": nbytes, "timer": timer,
            "torch_ms": torch_ms, "torch_gbps": gbps(nbytes, torch_ms), "runs": rows}


# --- report -------------------------------------------------------------------------------------


def _verdict(ratio, goal):
    if ratio is None:
        return f"{'-':>6}          "
    mark = "ok" if ratio >= goal else "BELOW"
    return f"{ratio:>6.3f} {mark:<5}(>={goal:.2f})"


def _config_text(row):
    return "-" if row is None else ",".join(str(v) for v in row["config"])


def print_ring(results):
    print(f"\nring c = a + b (cp.async, NBUF slots)   goals: kiln/torch >= "
          f"{GOALS['ring_vs_torch']}, kiln/gluon >= {GOALS['ring_vs_gluon']}")
    print(f"{'dtype':<5} {'shape':<10} {'kiln GB/s':>9} {'torch GB/s':>10} {'gluon GB/s':>10}  "
          f"{'kiln/torch':<21} {'kiln/gluon':<21} kiln cfg (BM,BN,NBUF,warps,ROWS)  gluon cfg")
    for r in results:
        k, g = best(r["runs"], "kiln"), best(r["runs"], "gluon")
        kg = k["gbps"] if k else None
        gg = g["gbps"] if g else None
        print(f"{r['dtype']:<5} {'x'.join(map(str, r['shape'])):<10} "
              f"{(f'{kg:.0f}' if kg else '-'):>9} {r['torch_gbps']:>10.0f} "
              f"{(f'{gg:.0f}' if gg else '-'):>10}  "
              f"{_verdict(kg / r['torch_gbps'] if kg else None, GOALS['ring_vs_torch'])} "
              f"{_verdict(kg / gg if kg and gg else None, GOALS['ring_vs_gluon'])} "
              f"{_config_text(k):<33} {_config_text(g)}")
        _print_problems(r)


def print_transpose(results):
    print(f"\ntranspose out = x^T through swizzled shared memory   goal: kiln/torch >= "
          f"{GOALS['transpose_vs_torch']}")
    print(f"{'dtype':<5} {'shape':<10} {'kiln GB/s':>9} {'torch GB/s':>10}  {'kiln/torch':<21} "
          f"kiln cfg (BM,BN,warps,fill)")
    for r in results:
        k = best(r["runs"], "kiln")
        kg = k["gbps"] if k else None
        print(f"{r['dtype']:<5} {'x'.join(map(str, r['shape'])):<10} "
              f"{(f'{kg:.0f}' if kg else '-'):>9} {r['torch_gbps']:>10.0f}  "
              f"{_verdict(kg / r['torch_gbps'] if kg else None, GOALS['transpose_vs_torch'])} "
              f"{_config_text(k)}")
        _print_problems(r)


def _print_problems(result):
    for row in result["runs"]:
        if "error" in row:
            print(f"    {row['side']} {_config_text(row)}: {row['error']}")
        elif row.get("correct") is False:
            print(f"    {row['side']} {_config_text(row)}: WRONG RESULT (not timed)")


def print_sweep(results, what):
    print(f"\n{what}: every configuration")
    for r in results:
        for row in r["runs"]:
            value = (f"{row['gbps']:.0f} GB/s ({row['gbps'] / r['torch_gbps']:.3f}x torch)"
                     if row.get("gbps") else row.get("error", "wrong result"))
            print(f"  {r['dtype']:<5} {'x'.join(map(str, r['shape'])):<10} {row['side']:<6} "
                  f"{_config_text(row):<22} {value}")


# --- main ---------------------------------------------------------------------------------------


def _shape(text):
    m, _, n = text.lower().partition("x")
    return int(m), int(n)


def _swizzle(text):
    parts = tuple(int(v) for v in text.split(","))
    if len(parts) != 3:
        raise argparse.ArgumentTypeError("--swizzle takes vec,per_phase,max_phase")
    return parts


def triton_cdiv(a, b):
    return (a + b - 1) // b


def run_ncu(shape, dtype, swizzle, impl="kiln"):
    """One launch of the Kiln (or the same Gluon) transpose, for ncu's bank-conflict
    counters."""
    import torch
    M, N = shape
    tdt = {"fp16": torch.float16, "fp32": torch.float32}[dtype]
    x = torch.randn(M, N, device="cuda").to(tdt)
    out = torch.full((N, M), float("nan"), device="cuda", dtype=tdt)
    config = TRANSPOSE_CONFIGS[0]
    if impl == "gluon":
        BM, BN, num_warps, _ = config
        vec = 16 // ELEM_BYTES[dtype]
        sw = swizzle or (vec, vec, 8)
        transpose_smem_gluon[(triton_cdiv(M, BM), triton_cdiv(N, BN))](
            x, out, M, N, BM=BM, BN=BN,
            L=gl.BlockedLayout([1, vec], [4, 8], [num_warps, 1], [1, 0]),
            LT=gl.BlockedLayout([vec, 1], [8, 4], [1, num_warps], [0, 1]),
            SH=gl.SwizzledSharedLayout(*sw, [1, 0]), num_warps=num_warps)
    else:
        transpose_launcher(dtype, config, x, out, swizzle)()
    torch.cuda.synchronize()
    ok = bool(torch.equal(out, x.t().contiguous()))
    _, _, SH = transpose_layouts(dtype, config[2], swizzle)
    print(f"transpose_smem ({impl}) {dtype} {M}x{N} config {_config_text({'config': config})} {SH}: "
          f"launched once, {'ok' if ok else 'WRONG'}")
    return 0 if ok else 1


def main(argv=None):
    ap = argparse.ArgumentParser(description="Kiln shared memory / cp.async bandwidth vs torch "
                                             "and Gluon")
    ap.add_argument("--shapes", default=",".join(f"{m}x{n}" for m, n in DEFAULT_SHAPES),
                    help="comma-separated MxN list (default 8192x8192)")
    ap.add_argument("--dtypes", default="fp16,fp32")
    ap.add_argument("--only", choices=["ring", "transpose"], default=None)
    ap.add_argument("--sweep", action="store_true", help="print every configuration")
    ap.add_argument("--rep", type=int, default=200, help="do_bench rep (ms)")
    ap.add_argument("--json", default=None,
                    help="write results here (default: $OUT/shared_memory.json if OUT is set)")
    ap.add_argument("--ncu", action="store_true",
                    help="launch the Kiln transpose once (for ncu) and exit")
    ap.add_argument("--dtype", default="fp32", choices=sorted(ELEM_BYTES),
                    help="the --ncu launch's dtype")
    ap.add_argument("--impl", choices=["kiln", "gluon"], default="kiln",
                    help="whose transpose --ncu launches")
    ap.add_argument("--swizzle", type=_swizzle, default=None,
                    help="vec,per_phase,max_phase of the transpose's buffer (default: tuned)")
    args = ap.parse_args(argv)
    import torch
    torch.cuda.init()  # make torch's context current before Kiln's driver looks
    shapes = [_shape(s) for s in args.shapes.split(",") if s]
    if args.ncu:
        return run_ncu(shapes[0], args.dtype, args.swizzle, args.impl)
    dtypes = [d for d in args.dtypes.split(",") if d]
    print(f"device: {torch.cuda.get_device_name()}")
    if gluon is None:
        print(f"gluon unavailable ({GLUON_ERROR}): no Gluon column")
    ring, transpose = [], []
    for M, N in shapes:
        for dtype in dtypes:
            if args.only in (None, "ring"):
                ring.append(bench_ring(M, N, dtype, args.rep))
            if args.only in (None, "transpose"):
                transpose.append(bench_transpose(M, N, dtype, args.rep, args.swizzle))
    timer = (ring or transpose)[0]["timer"] if (ring or transpose) else "-"
    print(f"timer: {timer}; GB/s = (bytes read + written) / median time")
    if ring:
        if args.sweep:
            print_sweep(ring, "ring")
        print_ring(ring)
    if transpose:
        if args.sweep:
            print_sweep(transpose, "transpose")
        print_transpose(transpose)
    path = args.json or (os.path.join(os.environ["OUT"], "shared_memory.json")
                         if os.environ.get("OUT") else None)
    if path:
        with open(path, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "gluon_error": GLUON_ERROR,
                       "goals": GOALS, "ring": ring, "transpose": transpose}, f, indent=2)
    wrong = any(row.get("correct") is False for r in ring + transpose for row in r["runs"])
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
