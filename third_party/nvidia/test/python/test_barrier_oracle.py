"""tile-nv-pipeline-tma's rings and tile-insert-barriers judged by an independent oracle.

`kiln-opt --test-barrier-oracle` (test/lib/Analysis/TestBarrierOracle.cpp) shares nothing with
the barrier model: it plays every execution of a function on the kernel's warps under three
schedules, with vector clocks and the hardware's mbarrier phases, and remarks every op at which
a barrier-completed write (a TMA load) is not ordered after the reads of its bytes, a read is
not ordered after the write, or the warps hang. Random `num_stages` TMA loops (4 or 8 warps,
2-4 stages, one or two buffers, local loads or synchronous wgmmas reading them, 1-2 readers)
are pipelined and given their barriers; no execution may race or hang. Then each kernel is
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


def random_kernel(rng, name):
    """One module: a num_stages loop of expect, TMA copies into 1-2 buffers, a wait, and
    1-2 reads of them (a local load, or a synchronous wgmma of buffer 0 and buffer 1 or 0
    transposed), accumulated into loop-carried values."""
    warps = rng.choice([4, 8])
    stages = rng.choice([2, 3, 4])
    nbufs = rng.choice([1, 2])
    readers = [rng.choice(["load", "dot"]) for _ in range(rng.choice([1, 2]))]
    lines = [_HEADER.format(w=warps),
             f'module attributes {{tile.target = "cuda:sm_90a", tile.num_warps = {warps} : i32, '
             'tile.threads_per_warp = 32 : i32} {',
             f"  func.func @{name}(%d: !desc, %n: i32) -> ("
             + ", ".join("!t" if r == "load" else "!a" for r in readers) + ") {",
             "    %bar = tile.local_alloc : () -> !bar",
             "    tile_nv.mbarrier_init %bar, 1 : !bar"]
    lines += [f"    %b{i} = tile.local_alloc : () -> !buf" for i in range(nbufs)]
    lines += ["    %c0 = arith.constant 0 : i32", "    %c1 = arith.constant 1 : i32",
              "    %c64 = arith.constant 64 : i32",
              "    %zt = arith.constant dense<0.0> : !t", "    %za = arith.constant dense<0.0> : !a"]
    inits = ", ".join(f"%x{k} = {'%zt' if r == 'load' else '%za'}" for k, r in enumerate(readers))
    types = ", ".join("!t" if r == "load" else "!a" for r in readers)
    lines.append(f"    %r:{len(readers) + 1} = scf.for %i = %c0 to %n step %c1 iter_args({inits}, "
                 f"%ph = %c0) -> ({types}, i32) : i32 {{")
    lines.append("      %row = arith.muli %i, %c64 : i32")
    lines.append(f"      tile_nv.mbarrier_expect %bar, {8192 * nbufs} : !bar")
    for i in range(nbufs):
        lines.append(f"      tile_nv.async_tma_copy_global_to_local %d[%row, %c0], %bar, %b{i} "
                     ": !desc, !bar, !buf")
    lines.append("      tile_nv.mbarrier_wait %bar, %ph : !bar, i32")
    outs = []
    for k, r in enumerate(readers):
        src = f"%b{rng.randrange(nbufs)}"
        if r == "load":
            lines.append(f"      %v{k} = tile.local_load {src} : !buf -> !t")
            lines.append(f"      %y{k} = arith.addf %x{k}, %v{k} : !t")
        else:
            other = f"%b{rng.randrange(nbufs)}"
            lines.append(f"      %p{k} = tile.memdesc_permute {other} {{order = array<i32: 1, 0>}}"
                         " : !buf -> !tile.memdesc<64x64xbf16, #nvt, mutable>")
            lines.append(f"      %y{k} = tile_nv.warpgroup_dot {src}, %p{k}, %x{k} : !buf, "
                         "!tile.memdesc<64x64xbf16, #nvt, mutable> -> !a")
        outs.append(f"%y{k}")
    lines.append("      %next = arith.xori %ph, %c1 : i32")
    lines.append(f"      scf.yield {', '.join(outs)}, %next : {types}, i32")
    lines.append(f"    }} {{tile.num_stages = {stages} : i32}}")
    lines.append("    tile_nv.mbarrier_invalidate %bar : !bar")
    lines.append("    return " + ", ".join(f"%r#{k}" for k in range(len(readers)))
                 + f" : {types}")
    lines += ["  }", "}"]
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
        built, _ = _opt(text, PIPELINE)
        assert _witnessed(built) == 0, built
        lines = built.splitlines()
        # A wrong pass: a CTA barrier in the loop, a refill's wait, or the warps' arrivals
        # left out. Each changes what orders a refill after the reads of its slot.
        in_loop = False
        for i, line in enumerate(lines):
            in_loop = in_loop or "scf.for" in line
            mutant = None
            if in_loop and line.strip() == "tile.barrier":
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
