"""Launch options and small language names Gluon kernels use: ``maxnreg`` (a per-thread register
cap: NVIDIA's .maxnreg, part of the kernel's cache key) and ``kl.to_tensor``."""

import re

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


@kiln.must_use_result("(it returns the new state)")
@kiln.jit
def next_state(x):
    return x + 1


@kiln.must_use_result
@kiln.jit
def plain(x):
    return x * 2


@kiln.jit
def drops(x):
    next_state(kl.load(x))  # E:drop


@kiln.jit
def drops_plain(x):
    plain(kl.load(x))


@kiln.jit
def keeps(x):
    kl.store(x, next_state(kl.load(x)) + plain(kl.load(x)))


def test_must_use_result():
    kiln.compile(keeps, {"x": "*i32"}, {}, target="cuda:sm_90a", cache=False)
    with pytest.raises(CompilationError) as info:
        kiln.compile(drops, {"x": "*i32"}, {}, target="cuda:sm_90a", cache=False)
    assert "the result of next_state() is not used (it returns the new state)" in str(info.value)
    assert "# E:drop" in (info.value.source_line or str(info.value))
    with pytest.raises(CompilationError, match=r"the result of plain\(\) is not used"):
        kiln.compile(drops_plain, {"x": "*i32"}, {}, target="cuda:sm_90a", cache=False)


@kiln.jit
def _ws_default(x):
    kl.store(x, kl.to_tensor(1))


@kiln.jit
def _ws_worker(x):
    kl.store(x + 1, kl.to_tensor(2))


@kiln.jit
def ws_with_regs(x):
    kl.warp_specialize([(_ws_default, (x,)), (_ws_worker, (x,))], [1], [24])


def test_maxnreg_is_the_pool_of_register_reallocation():
    # The CTA starts with maxnreg registers per thread: the kernel's warps take what the
    # worker group leaves of 128 * 256 (232), not of the whole register file (which would
    # be no setmaxnreg.inc at all at 256 and a hang for larger kernels).
    k = ws_with_regs.warmup("*i32", grid=(1,), target="cuda:sm_90a", maxnreg=128)
    ptx = k.asm["ptx"]
    assert ".maxnreg 128" in ptx and "setmaxnreg.inc.sync.aligned.u32 \t232;" in ptx
    assert "setmaxnreg.dec.sync.aligned.u32 \t24;" in ptx
    with pytest.raises(CompilationError, match=r"partition_num_regs need at least 24 "
                       r"registers per thread to start from, but the kernel's maxnreg is 16"):
        ws_with_regs.warmup("*i32", grid=(1,), target="cuda:sm_90a", maxnreg=16)


@kiln.jit
def ws_sized(x, W: kl.constexpr, R: kl.constexpr):
    kl.warp_specialize([(_ws_default, (x,)), (_ws_worker, (x,))], [W], [R])


def _pool_check(ptx, num_warps, worker_warps):
    """Independent of the planner: read .maxnreg, .maxntid and the setmaxnreg counts from
    the PTX and check that what the warp groups end up holding fits the pool the CTA
    started with (.maxnreg registers for each launched thread)."""
    cap = int(re.search(r"\.maxnreg (\d+)", ptx).group(1))
    threads = int(re.search(r"\.maxntid (\d+)", ptx).group(1))
    # In program order: the kernel's warps' own count first (absent when they keep
    # .maxnreg), then one per worker warp group.
    sets = [int(n) for n in
            re.findall(r"setmaxnreg\.(?:inc|dec)\.sync\.aligned\.u32 \t?(\d+);", ptx)]
    padded = threads // 32 - num_warps
    groups = padded // 4
    assert padded % 4 == 0 and padded >= worker_warps and len(sets) in (groups, groups + 1)
    default = sets[0] if len(sets) == groups + 1 else cap
    worker = sets[len(sets) - groups:]
    held = default * num_warps * 32 + sum(worker) * 4 * 32
    assert held <= cap * threads, (cap, threads, sets)


@pytest.mark.parametrize("num_warps", [4, 8])
@pytest.mark.parametrize("W,R", [(1, 24), (2, 80), (4, 160)])
@pytest.mark.parametrize("maxnreg", [None, 64, 128, 200])
def test_register_reallocation_fits_the_pool(num_warps, W, R, maxnreg):
    try:
        k = ws_sized.warmup("*i32", W, R, grid=(1,), target="cuda:sm_90a",
                            num_warps=num_warps, maxnreg=maxnreg)
    except CompilationError as e:
        # A plan that cannot fit is refused before lowering, never emitted.
        assert re.search(r"partition_num_regs (leave the kernel's|need at least)", str(e)), e
        return
    _pool_check(k.asm["ptx"], num_warps, W)
