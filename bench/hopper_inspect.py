#!/usr/bin/env python3
"""What the Hopper GEMM compiles to, Kiln beside Gluon (same kernel text), for profiling.

    python3 bench/hopper_inspect.py --dump DIR          # PTX and SASS of both gemm_kernels
    python3 bench/hopper_inspect.py --run kiln|gluon [--size 4096] [--persistent]

``--dump`` compiles examples/hopper.py's ``gemm_kernel`` (Kiln) and bench/gluon_hopper.py's
(Gluon) for BM=128 BN=256 BK=64 STAGES=3 num_warps=8 by launching each once at 1024^3, writes
``{kiln,gluon}_gemm.{ptx,sass}`` to DIR (SASS through ``cuobjdump -sass``) and prints a table of
instruction counts (HGMMA, BAR.SYNC, shared stores/loads, STSM, local memory, registers).
``--run``: two launches of one side's kernel at --size^3, then a synchronize: the program to put
under ``ncu --launch-skip 1 --launch-count 1`` (GPU machine with torch and triton 3.6).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for _p in (os.path.join(_ROOT, "bench"), _ROOT):
    if _p not in sys.path:
        sys.path.insert(0, _p)

TILE = dict(BM=128, BN=256, BK=64, STAGES=3, num_warps=8)


def launchers(persistent=False):
    import gluon_hopper
    from examples import hopper
    if persistent:
        return {"kiln": hopper.kiln_persistent_matmul_launcher,
                "gluon": gluon_hopper.gluon_persistent_matmul_launcher}
    return {"kiln": hopper.kiln_matmul_launcher, "gluon": gluon_hopper.gluon_matmul_launcher}


def inputs(size):
    import torch
    a = torch.randn((size, size), device="cuda", dtype=torch.bfloat16)
    b = torch.randn((size, size), device="cuda", dtype=torch.bfloat16)
    return a, b


def sass_of(cubin: bytes) -> str:
    with tempfile.NamedTemporaryFile(suffix=".cubin", delete=False) as f:
        f.write(cubin)
    try:
        return subprocess.run(["cuobjdump", "-sass", f.name], check=True, capture_output=True,
                              text=True).stdout
    finally:
        os.unlink(f.name)


def counts(sass: str) -> dict:
    ops = re.findall(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", sass)
    def n(prefix):
        return sum(1 for o in ops if o.startswith(prefix))
    return {"instructions": len(ops), "HGMMA": n("HGMMA"), "BAR.SYNC": n("BAR.SYNC"),
            "STS": n("STS"), "STSM": n("STSM"), "LDS": n("LDS"), "LDL/STL": n("LDL") + n("STL"),
            "SYNCS": n("SYNCS"), "UTMALDG": n("UTMALDG"), "UTMASTG": n("UTMASTG"),
            "F2FP": n("F2FP"), "WARPGROUP": n("WARPGROUP")}


def dump(out_dir, persistent):
    import torch
    import gluon_hopper
    from examples import hopper
    import kiln.language as kl
    os.makedirs(out_dir, exist_ok=True)
    a, b = inputs(1024)
    results = {}
    # Kiln: the compiled kernel of the launch's specialization.
    run, _ = launchers(persistent)["kiln"](a, b, **TILE)
    run()
    kernel = hopper.persistent_gemm_kernel if persistent else hopper.gemm_kernel
    t = kl.tensor_descriptor_type
    lay = kl.NVMMASharedLayout.get_default_for([128, 64], kl.bfloat16)
    c_lay = kl.NVMMASharedLayout.get_default_for([128, 256], kl.bfloat16)
    k = kernel.warmup(t(kl.bfloat16, [128, 64], lay), t(kl.bfloat16, [256, 64], lay),
                      t(kl.bfloat16, [128, 256], c_lay), 1024, 1024, 1024, STAGES=3, GROUP_M=8,
                      num_warps=8, grid=(1,))
    results["kiln"] = (k.asm["ptx"], k.binary, k.metadata.get("shared"))
    # Gluon: the kernel object a launch returns.
    import triton  # noqa: F401
    M = N = K = 1024
    c = torch.empty((M, N), device="cuda", dtype=torch.bfloat16)
    descs = gluon_hopper.gemm_descriptors(a, b, c, 128, 256, 64)
    g_kernel = gluon_hopper.persistent_gemm_kernel if persistent else gluon_hopper.gemm_kernel
    grid = (8 * 4,) if not persistent else (32,)
    compiled = g_kernel[grid](*descs, M, N, K, STAGES=3, GROUP_M=8, num_warps=8)
    results["gluon"] = (compiled.asm["ptx"], compiled.asm["cubin"],
                        compiled.metadata.shared)
    torch.cuda.synchronize()
    rows = {}
    for side, (ptx, cubin, shared) in results.items():
        sass = sass_of(cubin)
        tag = f"{side}_{'persistent_' if persistent else ''}gemm"
        with open(os.path.join(out_dir, tag + ".ptx"), "w") as f:
            f.write(ptx)
        with open(os.path.join(out_dir, tag + ".sass"), "w") as f:
            f.write(sass)
        regs = re.search(r"\.maxnreg\s+(\d+)", ptx)
        row = counts(sass)
        row["shared"] = shared
        row["maxnreg"] = regs.group(1) if regs else "-"
        rows[side] = row
    keys = list(rows["kiln"])
    print(f"{'':12}" + "".join(f"{s:>10}" for s in rows))
    for key in keys:
        print(f"{key:12}" + "".join(f"{str(rows[s][key]):>10}" for s in rows))


def run_side(side, size, persistent):
    import torch
    a, b = inputs(size)
    run, _ = launchers(persistent)[side](a, b, **TILE)
    run()
    run()
    torch.cuda.synchronize()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dump", metavar="DIR")
    ap.add_argument("--run", choices=("kiln", "gluon"))
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--persistent", action="store_true")
    args = ap.parse_args()
    if args.dump:
        dump(args.dump, args.persistent)
    if args.run:
        run_side(args.run, args.size, args.persistent)


if __name__ == "__main__":
    main()
