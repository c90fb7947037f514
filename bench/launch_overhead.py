#!/usr/bin/env python3
"""Where a warm ``kernel[grid]`` call spends its host time: Kiln's launch path profiled.

    python3 bench/launch_overhead.py [--calls 2000] [--hopper] [--keywords]

Runs on the GPU machine (Kiln installed, torch). Times warm launches of a small vector add
(host time per call, GPU work queued, synchronized at the end) against ``torch.add(out=)`` and
the same kernel in Gluon (when triton is installed) in the same run, and prints the top
functions of a cProfile run of Kiln's loop, so the Python and native parts of the launch can be
told apart.
``--hopper`` (sm_90 only) does the same for examples/hopper.py's ``gemm_kernel`` launched on
three prebuilt TensorDescriptors (a 256x256x256 GEMM, so the GPU never holds the host back),
and for the same kernel in Gluon (bench/gluon_hopper.py) when triton is installed.
``--keywords`` times the launch shape of flash-linear-attention's AttnRes forward (every
argument by name, a tuple of tensors, None for the optional pointers, constexprs by name)
against the same kernel launched positionally.
bench/cold_compile.py compares the total with Gluon and torch in the same run.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time

import os
import sys

import torch

import kiln
import kiln.language as kl

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@kiln.jit
def add(x, y, out, n, BLOCK: kl.constexpr, layout: kl.constexpr):
    offs = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK, layout)
    m = offs < n
    kl.store(out + offs, kl.load(x + offs, mask=m) + kl.load(y + offs, mask=m), mask=m)


def host_time(call, calls):
    """Best of 3 loops of the mean host time of one call, in us (GPU work queued)."""
    for _ in range(100):
        call()
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(calls):
            call()
        best = min(best, (time.perf_counter() - start) / calls)
        torch.cuda.synchronize()
    return best * 1e6


def profile(call, calls):
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(calls):
        call()
    prof.disable()
    torch.cuda.synchronize()
    pstats.Stats(prof).sort_stats("tottime").print_stats(18)


def vector_add(calls):
    x = torch.randn(1024, device="cuda")
    y = torch.randn(1024, device="cuda")
    o = torch.empty_like(x)
    layout = kl.BlockedLayout([4], [32], [4], [0])

    def call():
        add[(1,)](x, y, o, 1024, BLOCK=1024, layout=layout, num_warps=4)

    kiln_us = host_time(call, calls)
    torch.testing.assert_close(o, x + y)
    o2 = torch.empty_like(x)
    torch_us = host_time(lambda: torch.add(x, y, out=o2), calls)
    print(f"kiln warm launch: {kiln_us:.2f} us per kernel[grid] call (host); "
          f"torch.add(out=) {torch_us:.2f} us (kiln / torch {kiln_us / torch_us:.2f})")
    try:
        gluon_us = gluon_vector_add(x, y, calls)
        print(f"gluon warm launch of the same kernel: {gluon_us:.2f} us "
              f"(kiln / gluon {kiln_us / gluon_us:.2f})")
    except ImportError as e:  # no triton: Kiln's and torch's numbers alone
        print(f"gluon: not measured ({e})")
    from kiln.runtime import launcher
    print("warm launch in C (kiln/_fastlaunch):",
          "yes" if launcher._fastlaunch is not None else "no (Python launchers)")
    breakdown(x, y, o, kiln_us, calls)
    profile(call, calls)


def gluon_vector_add(x, y, calls):
    """The same vector add in Gluon, launched warm the same way (host us per call)."""
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl

    @gluon.jit
    def gadd(x, y, out, n, BLOCK: gl.constexpr, layout: gl.constexpr):
        offs = gl.program_id(0) * BLOCK + gl.arange(0, BLOCK, layout)
        m = offs < n
        gl.store(out + offs, gl.load(x + offs, mask=m) + gl.load(y + offs, mask=m), mask=m)

    o = torch.empty_like(x)
    layout = gl.BlockedLayout([4], [32], [4], [0])

    def call():
        gadd[(1,)](x, y, o, 1024, BLOCK=1024, layout=layout, num_warps=4)
    us = host_time(call, calls)
    torch.testing.assert_close(o, x + y)
    return us


def breakdown(x, y, o, total_us, calls):
    """Where the warm vector add's host time goes: the kernel's launcher called directly
    (no binding or key: the C launcher where built), then with the stream given (no torch
    stream query), then the runtime's native entry point through ctypes with the argument
    buffer packed in advance, and a ctypes call of a function that does nothing."""
    from kiln import _runtime
    hits = [hit for variants in add._variants.values() for v in variants
            for hit in v.table.values()]
    if len(hits) != 1:
        print(f"breakdown: {len(hits)} warm launchers learnt, expected 1")
        return
    fast = hits[0][0]
    loaded = getattr(getattr(fast, "fallback", fast), "__globals__", {}).get("K")
    px, py, po = x.data_ptr(), y.data_ptr(), o.data_ptr()
    stream = torch.cuda.current_stream().cuda_stream
    direct = host_time(lambda: fast(1, 1, 1, None, x, px, y, py, o, po, 1024), calls)
    given = host_time(lambda: fast(1, 1, 1, stream, x, px, y, py, o, po, 1024), calls)
    rows = [("kernel[grid](...)", total_us), ("its launcher called directly", direct),
            ("  with the stream given", given)]
    if loaded is not None and loaded._function is not None:
        plan = _runtime._plan(loaded.arg_types)
        buf = plan.pack([px, py, po, 1024])
        entry = _runtime._lib.kiln_rt_launch
        block = tuple(int(b) for b in loaded.block)
        func, shared = loaded._function, int(loaded.shared)
        raw = host_time(lambda: entry(b"cuda", func, 1, 1, 1, *block, 1, shared, stream, buf,
                                      plan.size, plan.c_offsets, plan.count), calls)
        rows.append(("  kiln_rt_launch alone (ctypes, buffer packed)", raw))
        nothing = _runtime._lib.kiln_rt_api_version
        rows.append(("  a ctypes call that does nothing", host_time(nothing, calls)))
    rows += python_paths(x, y, o, calls)
    rows += bundle_path(x, y, o, calls)
    for what, us in rows:
        print(f"  {what:48s} {us:6.2f} us")


def bundle_path(x, y, o, calls):
    """The same kernel from an AOT bundle (kiln.aot.compile_bundle, then
    kiln.runtime.bundle.load_bundle), launched warm as bundle[key][grid](...)."""
    import tempfile
    import kiln.aot
    from kiln.runtime import bundle
    major, minor = torch.cuda.get_device_capability()
    target = f"cuda:sm_{major}{minor}{'a' if major == 9 else ''}"
    layout = kl.BlockedLayout([4], [32], [4], [0])
    with tempfile.TemporaryDirectory() as d:
        kiln.aot.compile_bundle(d, [{
            "fn": add, "signature": {"x": "*fp32:16", "y": "*fp32:16", "out": "*fp32:16",
                                     "n": "i32"},
            "constexprs": {"BLOCK": 1024, "layout": layout}, "num_warps": 4,
            "target": target, "key": "add"}])
        k = bundle.load_bundle(d)["add"]
        o.zero_()
        k[(1,)](x, y, o, 1024)
        torch.testing.assert_close(o, x + y)
        loaded = k.loaded()
        return [("AOT bundle: bundle[key][grid](...)", host_time(lambda: k[(1,)](x, y, o, 1024),
                                                                calls)),
                ("  its generic launch() (the path before)",
                 host_time(lambda: loaded.launch((1,), [x, y, o, 1024]), calls))]


def python_paths(x, y, o, calls):
    """The same launch with the C launcher turned off, on a fresh copy of the kernel (the
    generated Python launcher: checks, a struct pack and a ctypes call)."""
    from kiln.runtime import launcher
    layout = kl.BlockedLayout([4], [32], [4], [0])
    saved, launcher._fastlaunch = launcher._fastlaunch, None
    try:
        copy = kiln.jit(add.fn)

        def call():
            copy[(1,)](x, y, o, 1024, BLOCK=1024, layout=layout, num_warps=4)
        return [("launcher in Python (kernel[grid])", host_time(call, calls))]
    finally:
        launcher._fastlaunch = saved


def hopper_gemm(calls):
    for p in (_ROOT, os.path.join(_ROOT, "bench")):
        if p not in sys.path:
            sys.path.insert(0, p)
    from examples import hopper
    M = N = K = 256
    a = torch.randn((M, K), device="cuda", dtype=torch.bfloat16)
    b = torch.randn((N, K), device="cuda", dtype=torch.bfloat16)
    run, c = hopper.kiln_matmul_launcher(a, b)
    run()
    torch.testing.assert_close(c.float(), a.float() @ b.float().T, rtol=2e-2, atol=2e-1)
    print(f"kiln hopper gemm_kernel warm launch (3 descriptors): {host_time(run, calls):.2f} us "
          f"per call (host)")
    try:
        import gluon_hopper
        grun, _ = gluon_hopper.gluon_matmul_launcher(a, b)
        print(f"gluon hopper gemm_kernel warm launch (3 descriptors): "
              f"{host_time(grun, calls):.2f} us per call (host)")
    except Exception as e:  # no triton / gluon: Kiln's number alone
        print(f"gluon: not measured ({type(e).__name__}: {e})")
    profile(run, calls)


def keywords_tuple_none(calls):
    tests = os.path.join(_ROOT, "test", "Python")
    if tests not in sys.path:
        sys.path.insert(0, tests)
    from launch_kernels import attn_like  # fla's AttnRes launch shape, shared with the tests
    N, L, BLOCK, NW = 4096, 4, 256, 4
    q, w, o = (torch.randn(N, device="cuda") for _ in range(3))
    srcs = tuple(torch.randn(N, device="cuda") for _ in range(L))
    grid = ((N + BLOCK - 1) // BLOCK,)

    def by_name():
        attn_like[grid](q=q, res=srcs, w=w, ow=None, o=o, o_pre=None, N=N, L=L, BLOCK=BLOCK,
                        HAS_OW=False, SAVE=False, NW=NW, num_warps=NW)

    def positional():
        attn_like[grid](q, srcs, w, None, o, None, N, L, BLOCK, False, False, NW,
                        num_warps=NW)

    kw, pos = host_time(by_name, calls), host_time(positional, calls)
    torch.testing.assert_close(o, (q + sum(srcs)) * w)
    print(f"kiln keyword + tuple + None launch: {kw:.2f} us per call (host); the same kernel "
          f"positionally: {pos:.2f} us ({kw / pos:.2f}x)")
    profile(by_name, calls)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--hopper", action="store_true",
                    help="also the Hopper TMA GEMM launch (3 tensor descriptors)")
    ap.add_argument("--keywords", action="store_true",
                    help="also a launch by keyword with a tuple of tensors and None arguments "
                         "(flash-linear-attention's AttnRes forward shape)")
    args = ap.parse_args()
    vector_add(args.calls)
    if args.hopper:
        hopper_gemm(args.calls)
    if args.keywords:
        keywords_tuple_none(args.calls)


if __name__ == "__main__":
    main()
