#!/usr/bin/env python3
"""TMA copy bandwidth only: Kiln's ``examples.hopper.kiln_tma_copy`` against Gluon's
``gluon_tma_copy`` (bench/gluon_hopper.py) and torch's ``y.copy_(x)``, in GB/s ((bytes read +
written) / median time). The copy table of bench/hopper_gemm.py, run alone:

    python3 bench/tma_copy.py [--copy-shapes 8192x8192:bf16,16384x8192:fp32] [--quick]
        [--json PATH]

JSON goes to --json, else $OUT/tma_copy.json when $OUT is set. See bench/hopper_gemm.py for
how results are checked and timed.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import hopper_gemm  # noqa: E402  (bench/hopper_gemm.py)

if __name__ == "__main__":
    sys.exit(hopper_gemm.main(["--only", "copy"] + sys.argv[1:], json_name="tma_copy.json"))
