# Triton writes these in its language itself (``@jit`` functions of triton.language).
from ..runtime.jit import jit
from . import core, math


@jit
def sigmoid(x):
    return 1 / (1 + math.exp(-x))


@jit
def cdiv(x, div):
    return (x + div - 1) // div


@jit
def _sum_combine(a, b):
    return a + b


@jit
def sum(input, axis=None, keep_dims=False):
    return core.reduce(input, axis, _sum_combine)
