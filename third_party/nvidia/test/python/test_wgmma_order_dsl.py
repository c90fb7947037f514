"""tile-nv-check-wgmma-order from the DSL: a ``warpgroup_mma_wait(num_outstanding=1)`` that
retires a wgmma issued in the previous loop iteration (its accumulator carried around the
loop) while a newer one stays in flight, and whose result is then read outside wgmma, is a
warning at the wait's line with notes at the carried wgmma, the newer one and the read. The
independent check is ptxas itself: it reports that kernel's wgmmas serialized (C7514) and
none of the three neighbours Kiln does not warn about (the same wgmmas issued in one
iteration; the carried result only fed to the next wgmma; a wait for all)."""

import shutil
import warnings

import pytest

import kiln
import kiln.language as kl
from kiln.language.nvidia.hopper import warpgroup_mma, warpgroup_mma_wait

import compiled
import located

HERE = __file__
pytestmark = compiled.needs_compiler
PTXAS = shutil.which("ptxas") or shutil.which("/usr/local/cuda/bin/ptxas")


@kiln.jit
def overlapped(out, n, SHAPE: kl.constexpr):
    acc_l: kl.constexpr = kl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                     instr_shape=[16, 64, 16])
    sl: kl.constexpr = kl.NVMMASharedLayout.get_default_for([64, 64], kl.float16)
    blocked: kl.constexpr = kl.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])
    a = kl.allocate_shared_memory(kl.float16, [64, 64], sl)
    b = kl.allocate_shared_memory(kl.float16, [64, 64], sl)
    a.store(kl.full([64, 64], 1.0, kl.float16, blocked))
    b.store(kl.full([64, 64], 1.0, kl.float16, blocked))
    zero = kl.zeros([64, 64], kl.float32, acc_l)
    total = zero
    x = warpgroup_mma(a, b, zero, is_async=True)
    if SHAPE != "carried" and SHAPE != "carried_no_read":
        x = warpgroup_mma_wait(num_outstanding=0, deps=(x,))
    for i in range(n):
        if SHAPE == "carried":
            y = warpgroup_mma(a, b, zero, is_async=True)  # E:newer
            x = warpgroup_mma_wait(num_outstanding=1, deps=(x,))  # E:wait
            total = total + x  # E:read
            y = warpgroup_mma_wait(num_outstanding=0, deps=(y,))
            x = warpgroup_mma(a, b, y, is_async=True)  # E:carried
        elif SHAPE == "carried_no_read":
            y = warpgroup_mma(a, b, zero, is_async=True)
            x = warpgroup_mma_wait(num_outstanding=1, deps=(x,))
            x = warpgroup_mma(a, b, x, is_async=True)
            y, x = warpgroup_mma_wait(num_outstanding=0, deps=(y, x))
            x = warpgroup_mma(a, b, y + x, is_async=True)
        elif SHAPE == "same_iteration":
            x = warpgroup_mma(a, b, x, is_async=True)
            y = warpgroup_mma(a, b, zero, is_async=True)
            x = warpgroup_mma_wait(num_outstanding=1, deps=(x,))
            total = total + x
            x = warpgroup_mma_wait(num_outstanding=0, deps=(y,))
        else:  # "wait_all": the carried shape, waiting for both
            y = warpgroup_mma(a, b, zero, is_async=True)
            x = warpgroup_mma(a, b, x, is_async=True)
            x, y = warpgroup_mma_wait(num_outstanding=0, deps=(x, y))
            total = total + x
            x = y
    if SHAPE == "carried" or SHAPE == "carried_no_read":
        x = warpgroup_mma_wait(num_outstanding=0, deps=(x,))
    rows = kl.arange(0, 64, kl.SliceLayout(1, acc_l))
    cols = kl.arange(0, 64, kl.SliceLayout(0, acc_l))
    kl.store(out + rows[:, None] * 64 + cols[None, :], x + total)


def _compile(shape, target):
    """The kernel and its compile warnings (kept with it, so a cached compile has them)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", kiln.CompilationWarning)
        k = overlapped.warmup("*fp32", "i32", SHAPE=shape, num_warps=4, grid=(1,),
                              target=target)
    return k, list(k.warnings)


def test_carried_wait_warns_at_the_wait():
    _, found = _compile("carried", "cuda:sm_90a")
    ours = [w for w in found if not w.message.startswith("ptxas:")]
    assert len(ours) == 1, [str(w) for w in found]
    w = ours[0]
    line, col = located.where(HERE, "E:wait", "warpgroup_mma_wait")
    assert (w.file, w.line, w.col) == (HERE, line, col), str(w)
    assert "retires a wgmma of the previous loop iteration" in w.message
    assert "(remark C7514)" in w.message and "num_outstanding=0" in w.message
    notes = {n[0]: (n[2], n[3]) for n in w.notes}
    assert notes["the carried wgmma"] == located.where(HERE, "E:carried", "warpgroup_mma")
    assert notes["the wgmma in flight"] == located.where(HERE, "E:newer", "warpgroup_mma")
    assert notes["the read"] == located.where(HERE, "E:read", "total + x")


@pytest.mark.parametrize("shape", ["same_iteration", "carried_no_read", "wait_all"])
def test_neighbours_do_not_warn(shape):
    _, found = _compile(shape, "cuda:sm_90a")
    assert not [w for w in found if "previous loop iteration" in w.message], \
        [str(w) for w in found]


@pytest.mark.skipif(PTXAS is None, reason="needs ptxas (CUDA toolkit) to read its report")
@pytest.mark.parametrize("shape", ["carried", "same_iteration", "carried_no_read", "wait_all"])
def test_ptxas_agrees(shape):
    """ptxas's own report (a compile warning 'ptxas: (C7514) ...' at the kernel) is there
    exactly where Kiln warns."""
    _, found = _compile(shape, "cuda:sm_90a")
    serialized = [w for w in found if w.message.startswith("ptxas:") and "serialized" in
                  w.message]
    assert bool(serialized) == (shape == "carried"), [str(w) for w in found]
