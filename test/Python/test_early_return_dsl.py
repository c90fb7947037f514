"""Early returns from an ``if`` (issue 24, item 5; Triton's test_2d_tensor_early_return):
in an inlined @kiln.jit helper, with a value, and in a kernel (``if pid >= n: return``),
compiled structured; a return inside ``kl.static_range`` (unrolled first, as Triton does);
returns inside runtime loops stay an error at the user's line."""

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
                           r"return inside a runtime for loop is not supported \(only inside "
                           r"kl.static_range or a compile-time tuple, which are unrolled\); "
                           r"assign to a variable and return after the loop",
                           kiln.UnsupportedLanguageConstruct)


@kiln.jit
def return_in_while(y, n):
    while n > 0:
        if n > 3:
            return  # E:while
        n -= 1
    kl.store(y, 1.0)


def test_return_inside_a_while_loop_is_an_error_at_the_line():
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(return_in_while, {"y": "*fp32", "n": "i32"}, {}, target="cuda:sm_90a",
                     cache=False)
    located.assert_located(ei.value, HERE, "E:while", "return",
                           r"return inside a while loop is not supported; assign to a "
                           r"variable and return after the loop",
                           kiln.UnsupportedLanguageConstruct)


@kiln.jit
def doubles_until_over(x, out, limit, W: kl.constexpr):
    # a third-party radix top-k's shape: `for p in static_range(3): ... if <runtime>: ...
    # return` (Triton unrolls static_range first, so the return is an ordinary early return)
    L: kl.constexpr = kl.BlockedLayout([1], [W], [1], [0])
    offs = kl.arange(0, W, L)
    acc = kl.load(x + offs)
    for p in kl.static_range(3):
        s = kl.sum(acc, axis=0)
        if s > limit:
            kl.store(out + offs, acc + p)
            return
        acc = acc * 2.0
    kl.store(out + offs, acc - 1.0)


def test_return_inside_static_range_unrolls():
    k = kiln.compile(doubles_until_over, {"x": "*fp32", "out": "*fp32", "limit": "fp32"},
                     {"W": 32}, target="cuda:sm_90a", num_warps=1, cache=False)
    tile = k.asm["tile"]
    # three trips, each an if that stores and returns or goes on to the next trip; the
    # store after the loop only where no trip returned
    assert tile.count("scf.if") == 3, tile
    assert tile.count("tile.store") == 4, tile


@kiln.jit
def first_step_over(v, limit, STEPS: kl.constexpr):
    for i in kl.static_range(STEPS):
        if v * (i + 1) > limit:
            return i
    return -1


@kiln.jit
def first_step_kernel(x, out, limit, STEPS: kl.constexpr, SCALES: kl.constexpr):
    pid = kl.program_id(0)
    v = kl.load(x + pid)
    r = first_step_over(v, limit, STEPS)
    for s in SCALES:  # a compile-time tuple, with a return in no trip: unrolled as before
        r = r * s
    kl.store(out + pid, r)


def test_a_helper_returns_its_trip_from_static_range():
    k = kiln.compile(first_step_kernel, {"x": "*fp32", "out": "*i32", "limit": "fp32"},
                     {"STEPS": 4, "SCALES": (1, 1)}, target="cuda:sm_90a", num_warps=1,
                     cache=False)
    tile = k.asm["tile"]
    assert tile.count("scf.if") == 4, tile
    # the trips' constants merged into one i32 result
    assert re.search(r"scf\.if .*-> \(i32\)", tile), tile


@kiln.jit
def returns_over_tuple(x, out, OFFS: kl.constexpr):
    v = kl.load(x)
    for o in OFFS:
        if v > o:
            kl.store(out, v - o)
            return
    kl.store(out, v)


def test_return_inside_a_loop_over_a_compile_time_tuple():
    k = kiln.compile(returns_over_tuple, {"x": "*fp32", "out": "*fp32"}, {"OFFS": (4.0, 2.0)},
                     target="cuda:sm_90a", num_warps=1, cache=False)
    tile = k.asm["tile"]
    assert tile.count("scf.if") == 2 and tile.count("tile.store") == 3, tile


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


@kiln.jit
def retyped_after_early_return(x, y, n):
    # aiter's paged-attention decode: an early return, then the accumulator converted to the
    # output type before it is stored -- a name that changes type after the if that returns
    pid = kl.program_id(0)
    acc = kl.load(x + pid * 128 + kl.arange(0, 128, L1))
    if pid * 128 >= n:
        return
    acc = acc * 2.0
    acc = acc.to(kl.bfloat16)
    kl.store(y + pid * 128 + kl.arange(0, 128, L1), acc)


def test_a_name_may_change_type_after_an_early_return():
    # Only the return value is read after the if the early return becomes; the branch that
    # goes on may convert `acc` (Triton accepts this kernel). It was an error: "'acc' has
    # type fp32 before the if but type bf16 in the else branch".
    k = kiln.compile(retyped_after_early_return, {"x": "*fp32", "y": "*bf16", "n": "i32"}, {},
                     target="cuda:sm_90a", cache=False)
    tile = k.asm["tile"]
    assert "scf.if" in tile and "tile.store" in tile
    assert re.search(r"arith\.truncf .* to tensor<128xbf16", tile), tile


@kiln.jit
def early_return_value_types_differ(x, n):
    if n > 0:
        return x  # E:ret
    return x.to(kl.float16)


@kiln.jit
def calls_mixed_returns(x_ptr, y_ptr, n):
    x = kl.load(x_ptr + kl.arange(0, 128, L1))
    kl.store(y_ptr + kl.arange(0, 128, L1), early_return_value_types_differ(x, n))


def test_return_values_of_different_types_are_still_an_error():
    # the return value itself is still merged: two types for it is an error
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(calls_mixed_returns, {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32"}, {},
                     target="cuda:sm_90a", cache=False)
    assert "<return value>" in str(ei.value)


@kiln.jit
def scaled_or_zero(x, n):
    # in a helper that returns a value: `x` is retyped in the branch that goes on, and an
    # early return sits inside a nested if
    if n <= 0:
        return kl.zeros([128], kl.float16, L1)
    x = x * 2.0
    if n > 100:
        if n > 1000:
            return x.to(kl.float16)
        x = x + 1.0
    x = x.to(kl.float16)
    return x


@kiln.jit
def calls_scaled_or_zero(x_ptr, y_ptr, n):
    x = kl.load(x_ptr + kl.arange(0, 128, L1))
    kl.store(y_ptr + kl.arange(0, 128, L1), scaled_or_zero(x, n))


def test_retyped_names_in_a_helper_with_nested_early_returns():
    k = kiln.compile(calls_scaled_or_zero, {"x_ptr": "*fp32", "y_ptr": "*fp16", "n": "i32"}, {},
                     target="cuda:sm_90a", cache=False)
    tile = k.asm["tile"]
    # three returns merged into one value: nested scf.ifs yielding f16 tensors
    assert tile.count("scf.if") >= 3
    assert re.search(r"scf\.if .*-> \(tensor<128xf16", tile), tile
