"""tile-check-async-safety's early-release rule against the independent barrier oracle on a
grid of warp-specialized wgmma rings (no GPU): ring depth 2 or 3; the consumer releasing its
slot before the wgmma's wait, after a wait for all, the previous step's slot after a wait
leaving one in flight (from the second step on), or its own slot after such a wait (early);
the release's index the same value as the read's or computed again; the loader's refill under
an `if` or not. The check must refuse exactly the early releases, each refusal must be a race
`kiln-opt --test-barrier-oracle` witnesses (every execution and warp schedule, the hardware's
mbarrier phases; shares nothing with the check), and every kernel it accepts must race in no
execution there."""

from __future__ import annotations

import itertools
import os
import subprocess

import pytest

from remarks import KILN_OPT

pytestmark = pytest.mark.skipif(not os.path.exists(KILN_OPT), reason="kiln-opt not built")

MODES = {  # mode: (the consumer's lines after its wgmma, an early release)
    "before": ("tile_nv.mbarrier_arrive %rel, 1 : !bar\n"
               "        %w = tile_nv.warpgroup_dot_wait %dot {pendings = 0 : i32} : (!acc) -> !acc",
               True),
    "after0": ("%w = tile_nv.warpgroup_dot_wait %dot {pendings = 0 : i32} : (!acc) -> !acc\n"
               "        tile_nv.mbarrier_arrive %rel, 1 : !bar", False),
    "prev": ("%w = tile_nv.warpgroup_dot_wait %dot {pendings = 1 : i32} : (!acc) -> !acc\n"
             "        %pos = arith.cmpi sgt, %i, %c0 : i32\n"
             "        tile_nv.mbarrier_arrive %rel, 1, %pos : !bar", False),
    "same1": ("%w = tile_nv.warpgroup_dot_wait %dot {pendings = 1 : i32} : (!acc) -> !acc\n"
              "        tile_nv.mbarrier_arrive %rel, 1 : !bar", True),
}


def kernel(n, mode, fresh_index, under_if):
    lines, early = MODES[mode]
    if mode == "prev":  # the previous step's slot: (i + n - 1) % n
        rel = (f"%pi = arith.addi %i, %cm : i32\n"
               f"        %ps = arith.remsi %pi, %cn : i32\n"
               f"        %rel = tile.memdesc_index %empty[%ps] : !bars -> !bar")
    elif fresh_index:  # the same slot, its index computed again
        rel = ("%s2 = arith.remsi %i, %cn : i32\n"
               "        %rel = tile.memdesc_index %empty[%s2] : !bars -> !bar")
    else:
        rel = "%rel = tile.memdesc_index %empty[%s] : !bars -> !bar"
    refill = ("tile_nv.mbarrier_expect %r, 16384 : !bar\n"
              "        tile_nv.async_tma_copy_global_to_local %d[%i, %c0], %r, %as : !desc, !bar, !slot\n"
              "        tile_nv.async_tma_copy_global_to_local %d[%c0, %i], %r, %bs : !desc, !bar, !slot")
    if under_if:
        refill = ("%go = arith.cmpi sgt, %n, %c0 : i32\n        scf.if %go {\n        "
                  + refill + "\n        }")
    inits = "\n".join(
        f"    %r{k} = tile.memdesc_index %ready[%k{k}] : !bars -> !bar\n"
        f"    %e{k} = tile.memdesc_index %empty[%k{k}] : !bars -> !bar\n"
        f"    tile_nv.mbarrier_init %r{k}, 1 : !bar\n    tile_nv.mbarrier_init %e{k}, 1 : !bar"
        for k in range(n))
    consts = "\n".join(f"    %k{k} = arith.constant {k} : i32" for k in range(n))
    text = f"""#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#nvt = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true>
#sh = #tile.swizzled_shared<{{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}}>
#accl = #tile_nv.nvmma<{{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}}>
!acc = tensor<64x64xf32, #accl>
!desc = !tile.tensordesc<tensor<64x64xbf16, #nv>>
!ring = !tile.memdesc<{n}x64x64xbf16, #nv, mutable>
!slot = !tile.memdesc<64x64xbf16, #nv, mutable, {n}x64x64>
!slotT = !tile.memdesc<64x64xbf16, #nvt, mutable, {n}x64x64>
!bars = !tile.memdesc<{n}x1xi64, #sh, mutable>
!bar = !tile.memdesc<1xi64, #sh, mutable, {n}x1>
module attributes {{tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32, tile.target = "cuda:sm_90a"}} {{
  func.func @ring(%d: !desc, %n: i32) {{
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %cn = arith.constant {n} : i32
    %cm = arith.constant {n - 1} : i32
{consts}
    %a = tile.local_alloc : () -> !ring
    %b = tile.local_alloc : () -> !ring
    %ready = tile.local_alloc : () -> !bars
    %empty = tile.local_alloc : () -> !bars
{inits}
    tile.warp_specialize partition_num_warps = [1] {{
      %z = arith.constant dense<0.0> : !acc
      %acc = scf.for %i = %c0 to %n step %c1 iter_args(%c = %z) -> (!acc) : i32 {{
        %s = arith.remsi %i, %cn : i32
        %ph = arith.divsi %i, %cn : i32
        %p = arith.andi %ph, %c1 : i32
        %r = tile.memdesc_index %ready[%s] : !bars -> !bar
        %as = tile.memdesc_index %a[%s] : !ring -> !slot
        %bs = tile.memdesc_index %b[%s] : !ring -> !slot
        %bt = tile.memdesc_permute %bs {{order = array<i32: 1, 0>}} : !slot -> !slotT
        tile_nv.mbarrier_wait %r, %p : !bar, i32
        %dot = tile_nv.warpgroup_dot %as, %bt, %c {{isAsync}} : !slot, !slotT -> !acc
        {rel}
        {lines}
        scf.yield %w : !acc
      }}
      %fin = tile_nv.warpgroup_dot_wait %acc {{pendings = 0 : i32}} : (!acc) -> !acc
      tile.warp_yield
    }} partitions {{
      scf.for %i = %c0 to %n step %c1 : i32 {{
        %s = arith.remsi %i, %cn : i32
        %ph = arith.divsi %i, %cn : i32
        %p = arith.andi %ph, %c1 : i32
        %q = arith.xori %p, %c1 : i32
        %r = tile.memdesc_index %ready[%s] : !bars -> !bar
        %e = tile.memdesc_index %empty[%s] : !bars -> !bar
        %as = tile.memdesc_index %a[%s] : !ring -> !slot
        %bs = tile.memdesc_index %b[%s] : !ring -> !slot
        tile_nv.mbarrier_wait %e, %q : !bar, i32
        {refill}
      }}
      tile.warp_yield
    }}
    return
  }}
}}
"""
    return text, early


def _run(text, flag):
    proc = subprocess.run([KILN_OPT, "-", "--tile-insert-wait-counts", flag, "-o", "/dev/null",
                           "--mlir-print-op-on-diagnostic=false"],
                          input=text, capture_output=True, text=True, timeout=300)
    return proc.stderr


# (The previous step's slot is indexed by a value of its own in either form: one of them.)
CASES = [c for c in itertools.product([2, 3], MODES, [False, True], [False, True])
         if not (c[1] == "prev" and c[2])]


@pytest.mark.parametrize("n,mode,fresh,under_if", CASES,
                         ids=[f"n{n}-{m}-{'fresh' if f else 'same'}-{'if' if u else 'plain'}"
                              for n, m, f, u in CASES])
def test_check_against_the_barrier_oracle(n, mode, fresh, under_if):
    text, early = kernel(n, mode, fresh, under_if)
    check = _run(text, "--tile-check-async-safety")
    oracle = _run(text, "--test-barrier-oracle")
    assert "barrier oracle:" in oracle and "executions" in oracle, oracle[-2000:]
    assert "error:" not in oracle, oracle[-2000:]
    refused = "releases a ring slot that the asynchronous read" in check
    witnessed = "witnessed (write-after-read)" in oracle
    assert refused == early, check[-2000:]
    assert witnessed == early, oracle[-2000:]
