"""Early returns from an ``if`` (issue 24, item 5; Triton's test_2d_tensor_early_return):
in an inlined @kiln.jit helper, with a value, and in a kernel (``if pid >= n: return``),
compiled structured; returns inside loops stay an error at the user's line."""

import os
import re

import pytest

import kiln
import kiln.language as kl

import compiled
import located

pytestmark = compiled.needs_compiler

HERE = os.path.abspath(__file__)
L2 = kl.BlockedLayout([1, 1], [1, 32], [1, 4], [1, 0])
L1 = kl.BlockedLayout([1], [32], [4], [0])


@kiln.jit
def early_return_helper(x):
    if x.sum(0).sum(0):
        return x
    x = x + x
    return x


@kiln.jit
def doubles_until_nonzero(N, out):
    x0 = kl.arange(0, 32, kl.SliceLayout(1, L2))
    x1 = kl.arange(0, 32, kl.SliceLayout(0, L2))
    x = x0[:, None] * x1[None, :]
    for i in range(N):
        x += early_return_helper(x)
    kl.store(out + kl.arange(0, 32, kl.SliceLayout(0, L2)), x.sum(0))


def test_early_return_in_a_helper_compiles_to_one_function():
    k = kiln.compile(doubles_until_nonzero, {"N": "i32", "out": "*i32"}, {},
                     target="cuda:sm_90a", cache=False)
    assert k.asm["llir"].count("define") == 1
    assert "scf.if" in k.asm["tile"] or "scf.if" in k.source_ir


@kiln.jit
def guarded_kernel(x, y, n):
    pid = kl.program_id(0)
    if pid * 128 >= n:
        return
    offs = pid * 128 + kl.arange(0, 128, L1)
    kl.store(y + offs, kl.load(x + offs) * 2.0)


def test_early_return_in_a_kernel():
    k = kiln.compile(guarded_kernel, {"x": "*fp32", "y": "*fp32", "n": "i32"}, {},
                     target="cuda:sm_90a", cache=False)
    tile = k.asm["tile"]
    assert "scf.if" in tile and "tile.store" in tile


@kiln.jit
def return_in_loop(x, y, n):
    for i in range(n):
        if i > 3:
            return  # E:loop
    kl.store(y, 1.0)


def test_return_inside_a_loop_is_still_an_error_at_the_line():
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(return_in_loop, {"x": "*fp32", "y": "*fp32", "n": "i32"}, {},
                     target="cuda:sm_90a", cache=False)
    located.assert_located(ei.value, HERE, "E:loop", "return",
                           r"return inside a runtime if/for/while is not supported; assign "
                           r"to a variable and return at the end",
                           kiln.UnsupportedLanguageConstruct)


@kiln.jit
def mismatched(x, flag):
    if flag > 0:
        return x
    return 1.5


@kiln.jit
def calls_mismatched(x, y, n):
    offs = kl.arange(0, 128, L1)
    kl.store(y + offs, mismatched(kl.load(x + offs), n))


def test_returns_of_different_types_name_the_return_value():
    with pytest.raises(kiln.CompilationError, match=re.escape("'<return value>'")):
        kiln.compile(calls_mismatched, {"x": "*fp32", "y": "*fp32", "n": "i32"}, {},
                     target="cuda:sm_90a", cache=False)
