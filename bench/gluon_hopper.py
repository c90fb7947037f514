"""The Gluon peers of examples/hopper.py's Hopper (sm_90a) kernels, under the ``gluon_*``
names that bench/hopper_gemm.py, bench/tma_copy.py, bench/launch_overhead.py and
bench/hopper_inspect.py use. The kernels are not a second copy: bench/gluon_port.py builds
them from examples/hopper.py's own text with the Kiln imports swapped for Triton 3.6's
``triton.experimental.gluon`` ones, so the two compilers always get the same kernel text.

* ``gemm_kernel`` / ``persistent_gemm_kernel`` / ``tma_copy_kernel``: the kernels.
* ``gluon_matmul``, ``gluon_persistent_matmul``, ``gluon_tma_copy`` and their ``*_launcher``
  forms (descriptors built once, a launch-only callable returned): the example's
  ``kiln_*`` host wrappers, running Gluon's kernels.
* ``gemm_descriptors(a, b, c, BM, BN, BK)``: Gluon tensor descriptors for the GEMM.

Importable only where triton (with Gluon) is installed; the bench scripts import it lazily
and report why when it cannot.
"""

from __future__ import annotations

from gluon_port import gluon_module

_twin = gluon_module("hopper")

gemm_kernel = _twin.gemm_kernel
persistent_gemm_kernel = _twin.persistent_gemm_kernel
tma_copy_kernel = _twin.tma_copy_kernel
gemm_descriptors = _twin.gemm_descriptors
gluon_matmul = _twin.kiln_matmul
gluon_matmul_launcher = _twin.kiln_matmul_launcher
gluon_persistent_matmul = _twin.kiln_persistent_matmul
gluon_persistent_matmul_launcher = _twin.kiln_persistent_matmul_launcher
gluon_tma_copy = _twin.kiln_tma_copy
gluon_tma_copy_launcher = _twin.kiln_tma_copy_launcher

__all__ = ["gemm_kernel", "persistent_gemm_kernel", "tma_copy_kernel", "gluon_matmul",
           "gluon_matmul_launcher", "gluon_persistent_matmul", "gluon_persistent_matmul_launcher",
           "gluon_tma_copy", "gluon_tma_copy_launcher", "gemm_descriptors"]
