#!/usr/bin/env python3
"""Host time of a warm ``kernel[grid](...)`` call through Kiln's real launch path
(kiln.jit.JITFunction.run -> LoadedKernel.launch -> kiln._runtime.launch), without a GPU.

    PYTHONPATH=python python3 bench/launch_path.py [--calls 20000] [--profile]

The kernels are compiled for real (kiln._compiler, target cuda:sm_90a; no device needed), the
driver is a kiln.runtime.Driver whose module loading and tensor-map encoding are stand-ins, and
the native launch entry point ``kiln._runtime._lib.kiln_rt_launch`` is replaced by a C function
that does nothing (built here with the C compiler, called through ctypes with the real entry's
argtypes, so the ctypes conversions are still paid; a Python stand-in when there is no C
compiler). Tensors are plain Python objects with data_ptr() / dtype / device / shape / stride()
/ untyped_storage(). So the numbers are the Python side of the launch path on this machine's
CPU, the GPU driver's own work excluded (bench/launch_overhead.py measures the whole of it on
the GPU machine).

Cases: a 4-argument vector add (3 tensors + an int; BLOCK and a layout as constexprs,
num_warps=4) and examples/hopper.py's gemm_kernel on three prebuilt TensorDescriptors
(+ M, N, K; STAGES, GROUP_M, num_warps as constexprs), each as bench/launch_overhead.py calls it.
"""

from __future__ import annotations

import argparse
import cProfile
import ctypes
import os
import pstats
import subprocess
import sys
import tempfile
import time

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for _p in (os.path.join(_ROOT, "python"), _ROOT):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import kiln  # noqa: E402
import kiln.language as kl  # noqa: E402
from kiln import _runtime  # noqa: E402
from kiln import runtime as kiln_runtime  # noqa: E402
from kiln.runtime.driver import Driver  # noqa: E402

_NOOP_C = r"""
#include <stdint.h>
#include <stddef.h>
int kiln_rt_launch(const char *backend, uint64_t func, unsigned gx, unsigned gy, unsigned gz,
                   unsigned bx, unsigned by, unsigned bz, unsigned cluster, unsigned shared,
                   uint64_t stream, void *args, size_t size, uint32_t *offsets, size_t count) {
    return 0;
}
"""


def _noop_launch():
    """A C function with kiln_rt_launch's signature that returns 0, with the real entry's
    argtypes; a Python function when no C compiler works."""
    real = _runtime._lib.kiln_rt_launch
    folder = tempfile.mkdtemp(prefix="kiln-launch-path-")
    src, lib = os.path.join(folder, "noop.c"), os.path.join(folder, "noop.so")
    with open(src, "w") as f:
        f.write(_NOOP_C)
    try:
        subprocess.run([os.environ.get("CC", "cc"), "-O2", "-shared", "-fPIC", src, "-o", lib],
                       check=True, capture_output=True)
        fn = ctypes.CDLL(lib).kiln_rt_launch
        fn.argtypes, fn.restype = real.argtypes, real.restype
        return fn, "C no-op through ctypes"
    except (OSError, subprocess.CalledProcessError):
        return (lambda *a: 0), "Python no-op (no C compiler)"


class StubDriver(Driver):
    """kiln.runtime.Driver for 'cuda' on kiln._runtime, with no device behind it: only
    ``launch`` (inherited) goes through kiln._runtime (to the stubbed native entry)."""

    def __init__(self):
        super().__init__("cuda", _runtime)

    def current_target(self):
        return "cuda:sm_90a"

    def max_shared_bytes(self):
        return 232448

    def load_module(self, image):
        return 1

    def get_function(self, module, name, shared_bytes):
        return 0x1000

    def function_resources(self, func):
        return 40, 0

    def encode_tensor_map(self, dtype, global_address, dims, strides_bytes, box,
                          element_strides=None, swizzle_bytes=0, oob_nan=False):
        return bytes(128)


class Device:
    type = "cuda"
    index = 0


class Storage:
    def __init__(self, nbytes):
        self._nbytes = nbytes

    def size(self):
        return self._nbytes


class DType:
    """Reads as torch's dtype does (str: 'torch.float32')."""

    def __init__(self, name, size):
        self.name, self.itemsize = name, size

    def __str__(self):
        return f"torch.{self.name}"

    __repr__ = __str__


FLOAT32, BFLOAT16 = DType("float32", 4), DType("bfloat16", 2)


class Tensor:
    """What the launch path reads of a torch tensor."""

    device = Device()
    is_cuda = True

    def __init__(self, address, shape, dtype):
        self._address, self.shape, self.dtype = address, tuple(shape), dtype
        n = 1
        for d in shape:
            n *= d
        self._nbytes = n * dtype.itemsize
        strides, s = [], 1
        for d in reversed(shape):
            strides.insert(0, s)
            s *= d
        self._strides = tuple(strides)

    def data_ptr(self):
        return self._address

    def stride(self):
        return self._strides

    def untyped_storage(self):
        return Storage(self._nbytes)

    def dim(self):
        return len(self.shape)


@kiln.jit
def add(x, y, out, n, BLOCK: kl.constexpr, layout: kl.constexpr):
    offs = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK, layout)
    m = offs < n
    kl.store(out + offs, kl.load(x + offs, mask=m) + kl.load(y + offs, mask=m), mask=m)


def vector_add_call():
    x = Tensor(0x7F0000000000, [1024], FLOAT32)
    y = Tensor(0x7F0000001000, [1024], FLOAT32)
    o = Tensor(0x7F0000002000, [1024], FLOAT32)
    layout = kl.BlockedLayout([4], [32], [4], [0])

    def call():
        add[(1,)](x, y, o, 1024, BLOCK=1024, layout=layout, num_warps=4)
    return call


def hopper_gemm_call():
    from examples import hopper
    from kiln.nvidia.hopper import TensorDescriptor
    M = N = K = 256
    BM, BN, BK = 128, 256, 64
    a = Tensor(0x7F0000000000, [M, K], BFLOAT16)
    b = Tensor(0x7F0000100000, [N, K], BFLOAT16)
    c = Tensor(0x7F0000200000, [M, N], BFLOAT16)

    def desc(t, block):
        layout = kl.NVMMASharedLayout.get_default_for(list(block), kl.bfloat16)
        return TensorDescriptor(t, list(t.shape), list(t.stride()), list(block), layout)
    a_desc, b_desc, c_desc = desc(a, (BM, BK)), desc(b, (BN, BK)), desc(c, (BM, BN))
    grid = (((M + BM - 1) // BM) * ((N + BN - 1) // BN),)
    gemm = hopper.gemm_kernel

    def call():
        gemm[grid](a_desc, b_desc, c_desc, M, N, K, STAGES=3, GROUP_M=8, num_warps=8)
    return call


def per_call_us(call, calls, repeats=5):
    """Best of ``repeats`` loops of the mean time of one call, in us."""
    for _ in range(200):
        call()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            call()
        best = min(best, (time.perf_counter() - start) / calls)
    return best * 1e6


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=20000)
    ap.add_argument("--profile", action="store_true", help="also print a cProfile of each case")
    args = ap.parse_args()

    launches = []
    noop, how = _noop_launch()

    def counting(*a):
        launches.append(a)
        return noop(*a)
    driver = StubDriver()
    kiln_runtime.get_driver = lambda: driver  # what kiln.jit asks for the driver
    _runtime._lib.kiln_rt_launch = counting
    cases = [("vector add (3 tensors + int)", vector_add_call()),
             ("hopper gemm (3 TensorDescriptors + 3 ints)", hopper_gemm_call())]
    for _, call in cases:  # compile, load; check that launches reach the native entry
        call()
        assert len(launches) == 1, "the launch did not reach kiln_rt_launch"
        launches.clear()
    _runtime._lib.kiln_rt_launch = noop
    print(f"kiln_rt_launch stand-in: {how}; {args.calls} warm calls per loop, best of 5")
    for name, call in cases:
        print(f"{name:45s} {per_call_us(call, args.calls):7.2f} us per warm call")
    if args.profile:
        for name, call in cases:
            print(f"--- {name}")
            prof = cProfile.Profile()
            prof.enable()
            for _ in range(args.calls):
                call()
            prof.disable()
            pstats.Stats(prof).sort_stats("tottime").print_stats(20)


if __name__ == "__main__":
    main()
