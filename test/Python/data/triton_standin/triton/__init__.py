"""A stand-in for the parts of Triton 3.6's Python package whose objects a Gluon kernel hands
to Kiln (classes, attributes and module names as Triton defines them; no compiler). Used by
test_triton_interop.py on machines without Triton; test/gpu/test_triton_interop_gpu.py runs the
same kernels with the real Triton."""

from .runtime.jit import JITFunction, constexpr_function, jit  # noqa: F401
from . import language  # noqa: F401


@constexpr_function
def cdiv(x: int, y: int):
    return (x + y - 1) // y


@constexpr_function
def next_power_of_2(n: int):
    return 1 << (n - 1).bit_length()
