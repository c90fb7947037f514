#!/usr/bin/env python3
"""Register pressure of the loops of an AMDGCN assembly file (Kiln's or Triton's build of a
kernel), to see where two builds of one kernel differ:

    python3 scripts/amdgcn-live.py KERNEL.s [--top N]

For each loop (a backward branch to a label above it), walking its instructions backwards:
the registers (v and a) live at its top and at its peak, with the instruction at the peak,
counting only what the loop itself reads; and the accumulation registers written before the
loop and read only after it (values held across a loop that does not use them). The walk
treats the loop's body as straight-line code and an instruction's first operand as what it
writes (stores, scalar instructions and comparisons write no vector register), which is how
the VALU, LDS, buffer and MFMA instructions of a kernel's loop read; it is an estimate for
comparing builds, not a register allocator's exact count."""

from __future__ import annotations

import argparse
import re
import sys

_REG = re.compile(r"\b([va])\[(\d+):(\d+)\]|\b([va])(\d+)\b")
_NO_VECTOR_DEF = ("s_", "ds_write", "ds_store", "buffer_store", "global_store", "flat_store",
                  "scratch_store", "v_cmp", "v_cmpx", "buffer_atomic", "global_atomic")
_LABEL = re.compile(r"^(\.LBB\d+_\d+):")
_BRANCH = re.compile(r"^\s*s_(?:cbranch_\w+|branch)\s+(\.LBB\d+_\d+)")


def registers(text: str) -> list[str]:
    out = []
    for m in _REG.finditer(text):
        if m.group(1):
            out += [f"{m.group(1)}{i}" for i in range(int(m.group(2)), int(m.group(3)) + 1)]
        else:
            out.append(f"{m.group(4)}{m.group(5)}")
    return out


def parse(lines):
    """(instruction text, registers written, registers read) per instruction line."""
    insts = []
    for line in lines:
        text = line.split(";")[0].strip()
        if not text or text.startswith(".") or text.endswith(":"):
            continue
        op, _, rest = text.partition(" ")
        operands = [o.strip() for o in re.split(r",(?![^\[]*\])", rest)] if rest else []
        if op.startswith(_NO_VECTOR_DEF) or not operands:
            writes, reads = [], registers(rest)
        else:
            writes, reads = registers(operands[0]), registers(",".join(operands[1:]))
        insts.append((text, writes, reads))
    return insts


def loops(lines):
    """(label, first line, branch line) of each loop: a branch back to a label above it."""
    where = {}
    found = []
    for i, line in enumerate(lines):
        m = _LABEL.match(line)
        if m:
            where[m.group(1)] = i
        b = _BRANCH.match(line)
        if b and b.group(1) in where:
            found.append((b.group(1), where[b.group(1)], i))
    return found


def pressure(insts):
    """(live at the top, peak, index of the peak's instruction) of straight-line code."""
    live, peak, at = set(), 0, 0
    for k in range(len(insts) - 1, -1, -1):
        _, writes, reads = insts[k]
        live -= set(writes)
        live |= set(reads)
        if len(live) > peak:
            peak, at = len(live), k
    return len(live), peak, at


def held_across(lines, first, last):
    """Accumulation registers written before line `first`, read after line `last`, and not
    read or written between them."""
    before, inside, after = set(), set(), set()
    for i, line in enumerate(lines):
        text = line.split(";")[0]
        if "v_accvgpr_write" in text and i < first:
            before.update(registers(text.split(",")[0]))
        elif first <= i <= last:
            inside.update(r for r in registers(text) if r.startswith("a"))
        elif i > last and "v_accvgpr_read" in text:
            after.update(r for r in registers(text.split(",", 1)[1]) if r.startswith("a"))
    return sorted(before & after - inside, key=lambda r: int(r[1:]))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("asm", help="an AMDGCN .s file")
    ap.add_argument("--top", type=int, default=0, help="also print the instruction at the peak")
    args = ap.parse_args(argv)
    lines = open(args.asm).read().split("\n")
    counts = {k: re.search(rf"^\s+\.{k}:\s+(\d+)", "\n".join(lines), re.M)
              for k in ("vgpr_count", "agpr_count", "vgpr_spill_count")}
    print(" ".join(f"{k} {m.group(1)}" for k, m in counts.items() if m))
    for label, first, last in loops(lines):
        insts = parse(lines[first:last + 1])
        top, peak, at = pressure(insts)
        held = held_across(lines, first, last)
        print(f"loop {label} (lines {first + 1}-{last + 1}, {len(insts)} instructions): "
              f"{top} registers live at its top, {peak} at its peak; "
              f"{len(held)} accumulation registers held across it")
        if args.top:
            print(f"    peak at: {insts[at][0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
