"""MLIR's JIT runner for tests that run lowered kernels on this machine's CPU
(test_fp8_conversions.py, test_convert_layout_cpu.py): where the tools are, and the skip
marker for a machine without them."""

from __future__ import annotations

import os

import pytest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
KILN_OPT = os.path.join(ROOT, "build", "bin", "kiln-opt")
RUNNER = "/usr/lib/llvm-22/bin/mlir-runner"
UTILS = "/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so"

needs_runner = pytest.mark.skipif(
    not all(os.path.exists(p) for p in (KILN_OPT, RUNNER, UTILS)),
    reason="needs build/bin/kiln-opt, mlir-runner and libmlir_c_runner_utils (mlir-22-tools)")
