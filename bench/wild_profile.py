#!/usr/bin/env python3
"""Why a wild-corpus kernel is slower on one side: runs a case's launch (test/wild/cases) a few
times with Triton or with Kiln, for ncu to profile, and prints the kernels' resource use.

    ncu --section SpeedOfLight --section LaunchStats --section Occupancy \\
        --section WarpStateStats python3 bench/wild_profile.py CASE SIDE
    python3 bench/wild_profile.py CASE SIDE --dump DIR    # also write the kernels' code

``--dump DIR`` writes the code of every kernel the case compiled: Kiln's PTX and cubin from
its in-memory kernels, Triton's from the TRITON_CACHE_DIR this script points at a fresh
folder under DIR; ``cuobjdump -sass`` reads either cubin.

SIDE is ``triton`` (the restored original) or ``kiln`` (the import-swapped copy); run on the GPU
machine from the repository root after ``python3 scripts/wild-corpus.py restore``.
"""

from __future__ import annotations

import importlib
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def dump_kiln(mod, out):
    """The PTX and cubin of every Kiln kernel ``mod`` (and the modules it imported from the
    case's project) compiled."""
    JITFunction = importlib.import_module("kiln.jit").JITFunction
    seen = set()
    root = os.path.join(ROOT, "build", "wild", "kiln")
    for m in list(sys.modules.values()):
        if not (getattr(m, "__file__", None) or "").startswith(root):
            continue  # only the case's project: torch's lazy modules answer any name
        for v in list(vars(m).values()):
            fn = v
            for _ in range(3):  # under heuristics/autotune wrappers
                if isinstance(fn, JITFunction):
                    break
                try:
                    fn = getattr(fn, "fn", None)
                except Exception:  # noqa: BLE001 -- a module global of any kind
                    fn = None
            if not isinstance(fn, JITFunction) or id(fn) in seen:
                continue
            seen.add(id(fn))
            for i, entry in enumerate(fn._kernels.values()):
                kernel = entry[0]
                for stage, code in kernel.asm.items():
                    name = f"{kernel.name}.{i}.{stage}"
                    mode = "wb" if isinstance(code, bytes) else "w"
                    with open(os.path.join(out, name), mode) as f:
                        f.write(code)


def main():
    args = sys.argv[1:]
    dump = None
    if "--dump" in args:
        i = args.index("--dump")
        dump = os.path.abspath(args[i + 1])
        del args[i:i + 2]
        os.makedirs(dump, exist_ok=True)
        os.environ["TRITON_CACHE_DIR"] = os.path.join(dump, "triton-cache")
    case_name, side = args[0], args[1]
    wild = os.path.join(ROOT, "test", "wild")
    sys.path[:0] = [wild, os.path.join(wild, "cases")]
    import harness
    case = harness.load_case(case_name)
    sys.path.insert(0, os.path.join(ROOT, "build", "wild", "src" if side == "triton" else "kiln",
                                    case.PROJECT))
    import torch
    mod = importlib.import_module(case.MODULE)
    launch, check = case.setup(mod)
    for _ in range(3):
        launch()
    torch.cuda.synchronize()
    ok, err, note = check()
    print(f"{case_name} {side}: ok={ok} max_error={err:.3g}")
    if dump and side == "kiln":
        dump_kiln(mod, dump)


if __name__ == "__main__":
    main()
