"""tile-nv-pipeline-tma's rings and tile-insert-barriers judged by an independent oracle.

`kiln-opt --test-barrier-oracle` (test/lib/Analysis/TestBarrierOracle.cpp) shares nothing with
the barrier model: it plays every execution of a function on the kernel's warps under three
schedules and one per warp in which that warp is slow, with vector clocks and the hardware's
mbarrier phases, and remarks every op at which
a barrier-completed write (a TMA load) is not ordered after the reads of its bytes, a read is
not ordered after the write, or the warps hang. Random `num_stages` TMA loops (4 or 8 warps,
2-4 stages, one or two buffers, local loads or synchronous wgmmas reading them, 1-2 readers)
are pipelined and given their barriers; no execution may race or hang. The kernels have one
ring loop, two in a row, or one inside an outer loop. Then each kernel is
mutated the way a wrong pass would leave it (a CTA barrier, a refill's wait or the warps'
arrivals deleted): wherever the mutation changed the kernel, the oracle must see it.
"""

import os
import random
import re
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))))
KILN_OPT = os.path.join(ROOT, "build", "bin", "kiln-opt")

pytestmark = pytest.mark.skipif(not os.path.exists(KILN_OPT), reason="kiln-opt is not built")

PIPELINE = ["--tile-nv-pipeline-tma", "--tile-nv-insert-proxy-fences", "--tile-nv-pipeline-wgmma",
            "--tile-allocate-shared-memory", "--tile-insert-barriers"]

_HEADER = """#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#nvt = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true>
#sh = #tile.swizzled_shared<{{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}}>
#l = #tile.blocked<{{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [{w}, 1], order = [1, 0]}}>
#acc = #tile_nv.nvmma<{{versionMajor = 3, versionMinor = 0, warpsPerCTA = [{w}, 1], instrShape = [16, 64, 16]}}>
!desc = !tile.tensordesc<tensor<64x64xbf16, #nv>>
!bar = !tile.memdesc<1xi64, #sh, mutable>
!buf = !tile.memdesc<64x64xbf16, #nv, mutable>
!t = tensor<64x64xbf16, #l>
!a = tensor<64x64xf32, #acc>
"""


def _ring(rng, sfx, nbufs, readers, stages, indent):
    """One ring loop (its own barrier and buffers, names ending in `sfx`): expect, TMA copies
    into 1-2 buffers, a wait, and the readers (a local load, or a synchronous wgmma of one
    buffer and another transposed), accumulated into loop-carried values."""
    p = " " * indent
    lines = [f"{p}%bar{sfx} = tile.local_alloc : () -> !bar",
             f"{p}tile_nv.mbarrier_init %bar{sfx}, 1 : !bar"]
    lines += [f"{p}%b{sfx}_{i} = tile.local_alloc : () -> !buf" for i in range(nbufs)]
    inits = ", ".join(f"%x{sfx}_{k} = {'%zt' if r == 'load' else '%za'}"
                      for k, r in enumerate(readers))
    types = ", ".join("!t" if r == "load" else "!a" for r in readers)
    lines.append(f"{p}%r{sfx}:{len(readers) + 1} = scf.for %i{sfx} = %c0 to %n step %c1 "
                 f"iter_args({inits}, %ph{sfx} = %c0) -> ({types}, i32) : i32 {{")
    q = p + "  "
    lines.append(f"{q}%row{sfx} = arith.muli %i{sfx}, %c64 : i32")
    lines.append(f"{q}tile_nv.mbarrier_expect %bar{sfx}, {8192 * nbufs} : !bar")
    for i in range(nbufs):
        lines.append(f"{q}tile_nv.async_tma_copy_global_to_local %d[%row{sfx}, %c0], %bar{sfx}, "
                     f"%b{sfx}_{i} : !desc, !bar, !buf")
    lines.append(f"{q}tile_nv.mbarrier_wait %bar{sfx}, %ph{sfx} : !bar, i32")
    outs = []
    for k, r in enumerate(readers):
        src = f"%b{sfx}_{rng.randrange(nbufs)}"
        if r == "load":
            lines.append(f"{q}%v{sfx}_{k} = tile.local_load {src} : !buf -> !t")
            lines.append(f"{q}%y{sfx}_{k} = arith.addf %x{sfx}_{k}, %v{sfx}_{k} : !t")
        else:
            other = f"%b{sfx}_{rng.randrange(nbufs)}"
            lines.append(f"{q}%p{sfx}_{k} = tile.memdesc_permute {other} "
                         "{order = array<i32: 1, 0>} : !buf -> "
                         "!tile.memdesc<64x64xbf16, #nvt, mutable>")
            lines.append(f"{q}%y{sfx}_{k} = tile_nv.warpgroup_dot {src}, %p{sfx}_{k}, "
                         f"%x{sfx}_{k} : !buf, !tile.memdesc<64x64xbf16, #nvt, mutable> -> !a")
        outs.append(f"%y{sfx}_{k}")
    lines.append(f"{q}%next{sfx} = arith.xori %ph{sfx}, %c1 : i32")
    lines.append(f"{q}scf.yield {', '.join(outs)}, %next{sfx} : {types}, i32")
    lines.append(f"{p}}} {{tile.num_stages = {stages} : i32}}")
    lines.append(f"{p}tile_nv.mbarrier_invalidate %bar{sfx} : !bar")
    return lines


def random_kernel(rng, name):
    """One module with 4 or 8 warps and one of three shapes: a ring loop; two ring loops one
    after the other (each its own buffers and barrier); or a ring loop inside an outer loop
    (its barrier initialized and invalidated in each outer iteration, so its phases start
    over). Each ring has 2-4 stages, 1-2 buffers and 1-2 readers."""
    warps = rng.choice([4, 8])
    shape = rng.choice(["one", "two", "nested"])

    def ring(sfx, indent):
        return _ring(rng, sfx, rng.choice([1, 2]),
                     [rng.choice(["load", "dot"]) for _ in range(rng.choice([1, 2]))],
                     rng.choice([2, 3, 4]), indent)

    lines = [_HEADER.format(w=warps),
             f'module attributes {{tile.target = "cuda:sm_90a", tile.num_warps = {warps} : i32, '
             'tile.threads_per_warp = 32 : i32} {',
             f"  func.func @{name}(%d: !desc, %n: i32, %m: i32) {{",
             "    %c0 = arith.constant 0 : i32", "    %c1 = arith.constant 1 : i32",
             "    %c64 = arith.constant 64 : i32",
             "    %zt = arith.constant dense<0.0> : !t", "    %za = arith.constant dense<0.0> : !a"]
    if shape == "one":
        lines += ring("A", 4)
    elif shape == "two":
        lines += ring("A", 4) + ring("B", 4)
    else:
        lines.append("    scf.for %o = %c0 to %m step %c1 : i32 {")
        lines += ring("A", 6)
        lines.append("    }")
    lines += ["    return", "  }", "}"]
    return "\n".join(lines)


def _opt(text, flags):
    proc = subprocess.run([KILN_OPT, "-", "--split-input-file", "-o", "-",
                           "--mlir-print-op-on-diagnostic=false", *flags],
                          input=text, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout, proc.stderr


def _witnessed(text):
    """The functions (by name) in which the oracle witnessed something."""
    _, err = _opt(text, ["--test-barrier-oracle"])
    assert "barrier oracle:" in err, err
    return len(re.findall(r"barrier oracle: witnessed", err))


@pytest.mark.parametrize("seed", range(6))
def test_random_rings_never_race_and_mutations_are_seen(seed):
    rng = random.Random(seed)
    kernels = [random_kernel(rng, f"k{seed}_{i}") for i in range(8)]
    seen_mutations = 0
    for text in kernels:
        wgmma_4 = "tile_nv.warpgroup_dot" in text and "warpsPerCTA = [4, 1]" in text
        built, _ = _opt(text, PIPELINE)
        assert _witnessed(built) == 0, built
        lines = built.splitlines()
        # A wrong pass: the CTA barrier before a refill, a refill's wait, or the warps'
        # arrivals left out. Each changes what orders a refill after the reads of its slot.
        # With 4 warps and a wgmma reading a ring, the barrier before its refill is not needed
        # (Kiln keeps it): the warpgroup's wgmma has finished its reads, and every warp has
        # passed its earlier waits, once the refilling thread's wait for it returns, since a
        # wgmma runs only when the whole warpgroup has issued it (the oracle plays that); such
        # modules' barrier mutations are not asserted (which ring a barrier serves is not
        # followed here).
        # (Other barriers the pass adds, such as the one before a ring's barriers are
        # initialized again in an outer loop's next iteration, order what the oracle does
        # not judge: they are not mutated.)
        for i, line in enumerate(lines):
            mutant = None
            refill = i + 1 < len(lines) and 'pipeline_part = "kernel"' in lines[i + 1] and (
                "async_tma_copy_global_to_local" in lines[i + 1]
                or "mbarrier_expect" in lines[i + 1])
            if line.strip() == "tile.barrier" and refill and not wgmma_4:
                mutant = lines[:i] + lines[i + 1:]
            elif "elected_warp" in line and 'pipeline_part = "kernel"' in line:
                mutant = lines[:i] + lines[i + 1:]
            elif "{per_warp" in line:
                mutant = lines[:i] + lines[i + 1:]
            if mutant is not None:
                assert _witnessed("\n".join(mutant)) > 0, (line, built)
                seen_mutations += 1
    # The corpus exercises the mutations at all (4-warp rings have a barrier, 8-warp ones
    # their waits and arrivals).
    assert seen_mutations > 0
