"""Kiln against Triton 3.6 (Gluon) on AMD, instruction by instruction, without an AMD GPU.

``python3 bench/amd_gemm_vs_gluon.py`` compiles examples/amd_gemm.py's direct-to-LDS mfma GEMM
for gfx942 and gfx950 with Kiln (the hand-written ring and the auto-pipelined loop) and the same
kernel text with its imports swapped for Gluon's (bench/gluon_port.py) with Triton 3.6, and
prints what each main loop issues per iteration (third_party/amd/tools/amdgcn_stats.py: v_mfma,
direct-to-LDS copies, LDS reads, s_waitcnt vmcnt values, barriers) and the independent vmcnt
checker's verdict on each assembly (violations, slack, vmcnt(0) in the loop). Run it where
Triton is installed (the GPU machine); a compiler that fails prints why.
"""

from __future__ import annotations

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
sys.path.insert(0, ROOT)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "examples"))
sys.path.insert(0, os.path.join(ROOT, "third_party", "amd", "tools"))

import amd_gemm  # noqa: E402
import amdgcn_stats  # noqa: E402
import amdgcn_waits  # noqa: E402

TARGETS = ("hip:gfx942", "hip:gfx950")


def gluon_asm(mod, target, stages):
    """Triton 3.6's assembly of the Gluon twin's lds_gemm_kernel."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource
    cfg = amd_gemm.config(target)
    fn = mod.lds_gemm_kernel
    # The Gluon twin's own layout objects (its config builds gl.amd.AMDMFMALayout).
    gcfg = mod.config(target)
    consts = dict(BM=cfg["BM"], BN=cfg["BN"], BK=cfg["BK"], NBUF=stages, ACC=gcfg["ACC"],
                  KW=cfg["KW"], VEC=cfg["VEC"], RELU=True, num_warps=cfg["num_warps"])
    sig, attrs = {}, {}
    for i, name in enumerate(fn.arg_names):
        if name in consts:
            sig[name] = "constexpr"
            continue
        kind = amd_gemm.SIG[name]
        base, _, div = kind.partition(":")
        sig[name] = base
        if div:
            attrs[(i,)] = [["tt.divisibility", int(div)]]
    src = GluonASTSource(fn=fn, signature=sig, constexprs=consts, attrs=attrs)
    k = triton.compile(src, target=GPUTarget("hip", target.split(":")[1], 64),
                       options={"num_warps": cfg["num_warps"]})
    return k.asm["amdgcn"]


def row(label, asm):
    st = amdgcn_stats.loop_stats(asm)
    reports = amdgcn_waits.check(asm)
    bad = sum(len(r.violations) for r in reports)
    verdict = "; ".join(r.summary().split(": ", 1)[1] for r in reports)
    zero = 0 in st["vmcnt"]
    return (f"| {label} | {st['v_mfma']} | {st['lds_copies']} | {st['lds_reads']} | "
            f"{st['lds_writes']} | {st['vmcnt']} | {'yes' if zero else 'no'} | "
            f"{st['barriers']} | {st['instructions']} | {bad} | {verdict} |")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--stages", type=int, default=3)
    args = ap.parse_args(argv)
    print("| target / compiler | v_mfma | LDS-DMA copies | LDS reads | LDS writes | loop vmcnt "
          "| vmcnt(0) in loop | barriers | loop instructions | checker violations | checker |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    try:
        from gluon_port import gluon_module
        gmod = gluon_module("amd_gemm")
    except Exception as e:  # noqa: BLE001 - reported, the Kiln rows still print
        gmod, gerr = None, f"{type(e).__name__}: {e}"
    for target in TARGETS:
        for form in ("hand", "auto"):
            k = amd_gemm.compile_gemm(form, target, stages=args.stages)
            print(row(f"{target} Kiln {form}", k.asm["amdgcn"]))
        if gmod is None:
            print(f"| {target} Triton 3.6 Gluon | failed: {gerr} |")
            continue
        try:
            print(row(f"{target} Triton 3.6 Gluon", gluon_asm(gmod, target, args.stages)))
        except Exception as e:  # noqa: BLE001
            msg = str(e).strip().splitlines()
            print(f"| {target} Triton 3.6 Gluon | failed: {type(e).__name__}: "
                  f"{msg[-1] if msg else ''} |")


if __name__ == "__main__":
    main()
