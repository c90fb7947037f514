"""tile-allocate-shared-memory in warp_specialize regions, checked by brute force.

Random kernels allocate buffers before a warp_specialize and inside its regions (the default
region and two worker partitions), each used by loads at random later points of its region
(a buffer from before the op by a load in one region). The pass's offsets must keep apart
every two buffers that can hold live data at the same time, by a model that shares nothing
with the pass: the regions run at the same time, so two buffers of different regions (or one
of them from before the op) are live together; inside one region the ops run in order, so two
of its buffers are live together when their spans, from the allocation to the last use,
meet. Reuse must also happen (the check is not vacuous): some buffers of one region share
bytes."""

from __future__ import annotations

import os
import random
import re
import subprocess

import pytest

from remarks import KILN_OPT

SEED = int(os.environ.get("KILN_PARTITION_ALLOC_SEED", "20261201"))
CASES = 120

pytestmark = pytest.mark.skipif(not os.path.exists(KILN_OPT), reason="kiln-opt not built")

HEADER = """\
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#l4 = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#l1 = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
"""


def make_case(rng, idx):
    """(module text, buffers: {name: (region or None for before the op, alloc position,
    last use position, elements)}) -- positions count ops within the buffer's region."""
    bufs = {}
    lines = []
    outer = []
    for j in range(rng.randrange(0, 3)):
        n = rng.choice([64, 128, 256])
        name = f"o{j}"
        outer.append((name, n))
        lines.append(f"    %{name} = tile.local_alloc : () -> !tile.memdesc<{n}xf32, #sh, mutable>")
    regions = []
    for r, lay in enumerate(["#l4", "#l1", "#l1"]):
        body, live, pos = [], [], 0
        for step in range(rng.randrange(2, 9)):
            if live and rng.random() < 0.5:
                name, n = rng.choice(live)
                body.append(f"      %u{r}_{step} = tile.local_load %{name} : "
                            f"!tile.memdesc<{n}xf32, #sh, mutable> -> tensor<{n}xf32, {lay}>")
                if name in bufs:
                    reg, a, _, elems = bufs[name]
                    bufs[name] = (reg, a, pos, elems)
                else:  # a buffer from before the op, used in this region
                    bufs.setdefault(name, (None, 0, 0, n))
            else:
                n = rng.choice([64, 128, 256, 512])
                name = f"b{r}_{step}"
                body.append(f"      %{name} = tile.local_alloc : () -> "
                            f"!tile.memdesc<{n}xf32, #sh, mutable>")
                bufs[name] = (r, pos, pos, n)
                live.append((name, n))
            pos += 1
            if outer and rng.random() < 0.15:
                name, n = rng.choice(outer)
                body.append(f"      %w{r}_{step} = tile.local_load %{name} : "
                            f"!tile.memdesc<{n}xf32, #sh, mutable> -> tensor<{n}xf32, {lay}>")
                bufs.setdefault(name, (None, 0, 0, n))
                pos += 1
        regions.append(body)
    text = [HEADER, "module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {",
            f"  func.func @case{idx}() {{", *lines,
            "    tile.warp_specialize partition_num_warps = [1, 1] {", *regions[0],
            "      tile.warp_yield", "    } partitions {", *regions[1], "      tile.warp_yield",
            "    }, {", *regions[2], "      tile.warp_yield", "    }", "    return", "  }", "}"]
    return "\n".join(text), bufs


def live_together(x, y):
    rx, ax, lx, _ = x
    ry, ay, ly, _ = y
    if rx is None or ry is None or rx != ry:
        return True
    return ax <= ly and ay <= lx


def test_buffers_live_at_once_never_share_bytes(tmp_path):
    rng = random.Random(SEED)
    cases = [make_case(rng, i) for i in range(CASES)]
    path = tmp_path / "ws.mlir"
    path.write_text("\n// -----\n".join(t for t, _ in cases))
    r = subprocess.run([KILN_OPT, str(path), "-split-input-file", "--tile-allocate-shared-memory"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    funcs = re.split(r"(?=func\.func @case)", r.stdout)[1:]
    assert len(funcs) == CASES
    shared_in_region = 0
    for (src, bufs), out in zip(cases, funcs):
        # kiln-opt renames values (each region counts from %0): the allocations in order
        offsets = [int(m) for m in re.findall(
            r"tile\.local_alloc \{tile\.scratch_offset = (\d+) : i32\}", out)]
        src_names = re.findall(r"%(\w+) = tile\.local_alloc", src)
        assert len(src_names) == len(offsets), out
        off = dict(zip(src_names, offsets))
        names = [n for n in src_names if n in bufs]
        for i, x in enumerate(names):
            for y in names[i + 1:]:
                bx, by = bufs[x], bufs[y]
                lo_x, hi_x = off[x], off[x] + 4 * bx[3]
                lo_y, hi_y = off[y], off[y] + 4 * by[3]
                overlap = lo_x < hi_y and lo_y < hi_x
                if live_together(bx, by):
                    assert not overlap, (f"{x} {bx} at {lo_x} and {y} {by} at {lo_y} are live "
                                         f"at once but share bytes:\n{src}")
                elif overlap:
                    shared_in_region += 1
    assert shared_in_region >= CASES // 4, shared_in_region  # reuse happens
