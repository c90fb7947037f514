"""A stand-in for the parts of Triton 3.6's Python package whose objects a Gluon kernel hands
to Kiln (classes, attributes and module names as Triton defines them; no compiler), and of its
autotuner and heuristics that wrap a kernel (runtime/autotuner.py). Used by
test_triton_interop.py and test_triton_autotune.py on machines without Triton;
test/gpu/test_triton_interop_gpu.py and test/gpu/test_triton_autotune_gpu.py run the same
kernels with the real Triton."""

from .runtime.jit import JITFunction, KernelInterface, constexpr_function, jit  # noqa: F401
from .runtime.autotuner import Config, autotune, heuristics  # noqa: F401
from . import language  # noqa: F401
from . import testing  # noqa: F401


@constexpr_function
def cdiv(x: int, y: int):
    return (x + y - 1) // y


@constexpr_function
def next_power_of_2(n: int):
    return 1 << (n - 1).bit_length()
