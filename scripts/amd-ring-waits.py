#!/usr/bin/env python3
"""Compile-only proof of the AMD direct-to-LDS ring (issue: AMD buffer ops and wait counts).

Compiles examples/kernels.py's ``amd_stream_ring`` (NBUF=3) for gfx942 (4-byte copies) and
gfx950 (16-byte), with buffer_load_to_shared or global_load_to_shared, read back with
load_shared_relaxed or a plain ``.load()``, with and without buffer stores in the loop; prints
each variant's steady-state loop waits and the verdict of third_party/amd/tools/amdgcn_waits.py (the
independent vmcnt simulator) on its assembly. Exits 1 if any loop has a vmcnt(0) or the check
fails. No GPU needed."""

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "examples"))
sys.path.insert(0, os.path.join(HERE, "..", "third_party", "amd", "tools"))

import kiln  # noqa: E402
import kiln.language as kl  # noqa: E402
import amdgcn_waits  # noqa: E402
from kernels import amd_stream_ring  # noqa: E402


def compile_variant(target, buffer_copy, relaxed, store, nbuf=3):
    spt = 4 if target.endswith("gfx950") else 1
    constexprs = dict(BLOCK=1024, NBUF=nbuf, L=kl.BlockedLayout([spt], [64], [4], [0]),
                      SH=kl.SwizzledSharedLayout(1, 1, 1, [0]), BUFFER_COPY=buffer_copy,
                      RELAXED=relaxed, STORE=store)
    return kiln.compile(amd_stream_ring, {"a": "*fp32:16", "c": "*fp32:16", "n_tiles": "i32"},
                        constexprs, target=target, cache=False)


def loop_waits(asm):
    """The s_waitcnt lines of each loop (a label some later branch jumps back to)."""
    lines = [l.strip() for l in asm.splitlines()]
    labels = {l[:-1]: i for i, l in enumerate(lines) if re.match(r"^\.LBB\w+:$", l)}
    loops = []
    for i, l in enumerate(lines):
        m = re.match(r"^s_(?:c)?branch\w*\s+(\.LBB\w+)", l)
        if m and m.group(1) in labels and labels[m.group(1)] < i:
            body = lines[labels[m.group(1)]:i + 1]
            loops.append([x for x in body if x.startswith("s_waitcnt")])
    return loops


def main():
    failed = False
    print("| target | copy | read | stores | loop waits | vmcnt(0) in loop | check |")
    print("|---|---|---|---|---|---|---|")
    for target in ("hip:gfx942", "hip:gfx950"):
        for buffer_copy in (True, False):
            for relaxed in (True, False):
                for store in (False, True):
                    k = compile_variant(target, buffer_copy, relaxed, store)
                    asm = k.asm["amdgcn"]
                    loops = loop_waits(asm)
                    waits = "; ".join(", ".join(w.replace("s_waitcnt ", "") for w in lp)
                                      for lp in loops)
                    zeros = sum(1 for lp in loops for w in lp if re.search(r"vmcnt\(0\)", w))
                    reports = amdgcn_waits.check(asm)
                    ok = bool(reports) and not any(r.violations for r in reports) and \
                        zeros == 0 and bool(loops)
                    failed |= not ok
                    print(f"| {target[4:]} | {'buffer' if buffer_copy else 'global'} | "
                          f"{'relaxed' if relaxed else 'plain'} | {'yes' if store else 'no'} | "
                          f"{waits} | {zeros} | {'; '.join(r.summary().split(': ', 2)[-1] for r in reports)} |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
