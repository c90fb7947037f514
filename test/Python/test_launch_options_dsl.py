"""Launch options and small language names Gluon kernels use: ``maxnreg`` (a per-thread register
cap: NVIDIA's .maxnreg, part of the kernel's cache key) and ``kl.to_tensor``."""

import pytest

import kiln
import kiln.language as kl
from kiln.compiler.errors import CompilationError, InvalidOption

import compiled

pytestmark = compiled.needs_compiler


@kiln.jit
def fill(x, v):
    kl.store(x, kl.to_tensor(3) + v)


def test_maxnreg_caps_the_kernel():
    capped = fill.warmup("*i32", "i32", grid=(1,), target="cuda:sm_90a", maxnreg=128)
    assert ".maxnreg 128" in capped.asm["ptx"] and capped.metadata["maxnreg"] == 128
    free = fill.warmup("*i32", "i32", grid=(1,), target="cuda:sm_90a")
    assert ".maxnreg" not in free.asm["ptx"] and "maxnreg" not in free.metadata
    assert capped.metadata["key"] != free.metadata["key"]


@pytest.mark.parametrize("value,target,error,message", [
    (300, "cuda:sm_90a", InvalidOption, "maxnreg must be an int between 16 and 255"),
    (True, "cuda:sm_90a", InvalidOption, "maxnreg must be an int between 16 and 255"),
    (128, "hip:gfx942", CompilationError, "hip:gfx942 has no per-kernel register cap"),
])
def test_maxnreg_is_checked(value, target, error, message):
    with pytest.raises(error, match=message):
        fill.warmup("*i32", "i32", grid=(1,), target=target, maxnreg=value)


def test_to_tensor_makes_a_scalar():
    k = fill.warmup("*i32", "i32", grid=(1,), target="cuda:sm_90a")
    assert "arith.constant 3 : i32" in k.asm["tile"]
