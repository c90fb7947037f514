#!/usr/bin/env python3
"""Why a wild-corpus kernel is slower on one side: runs a case's launch (test/wild/cases) a few
times with Triton or with Kiln, for ncu to profile, and prints the kernels' resource use.

    ncu --section SpeedOfLight --section LaunchStats --section Occupancy \\
        --section WarpStateStats python3 bench/wild_profile.py CASE SIDE

SIDE is ``triton`` (the restored original) or ``kiln`` (the import-swapped copy); run on the GPU
machine from the repository root after ``python3 scripts/wild-corpus.py restore``.
"""

from __future__ import annotations

import importlib
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    case_name, side = sys.argv[1], sys.argv[2]
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


if __name__ == "__main__":
    main()
