"""Instruction counts of the innermost loop of AMDGCN assembly, for comparing compilers.

``python3 third_party/amd/tools/amdgcn_stats.py FILE.s`` prints, for every kernel of an
assembly text, what its main loop (a GEMM's K loop: see ``loop_body``) issues per iteration: ``v_mfma`` instructions, direct-to-LDS copies
(``buffer_load ... lds``, ``global_load_lds_*``), other vector-memory instructions, LDS reads
and writes, ``s_waitcnt`` vmcnt / lgkmcnt values and ``s_barrier`` s. Text only: it shares
nothing with the compiler, so the same numbers come from Kiln's and Triton's assembly.
"""

from __future__ import annotations

import re
import sys

__all__ = ["kernels", "loop_body", "loop_stats"]


def kernels(text):
    """{kernel name: [instruction lines]} of an assembly text."""
    out, name = {}, None
    for raw in text.splitlines():
        line = raw.split(";")[0].strip()
        m = re.match(r"^([A-Za-z_.$][\w.$]*):$", line)
        if m and not m.group(1).startswith("."):
            name = m.group(1)
            out[name] = []
            continue
        if name is not None and line and (not line.startswith(".") or line.endswith(":")):
            out[name].append(line)
        if line.startswith(".Lfunc_end"):
            name = None
    return {k: v for k, v in out.items() if any(not l.endswith(":") for l in v)}


def loop_body(lines):
    """The instructions of the kernel's main loop, label to backward branch: of the backward
    branches, the one whose body holds the most ``v_mfma``, then the longest (out-of-line
    blocks also branch backward); [] if none."""
    labels = {l[:-1]: i for i, l in enumerate(lines) if l.endswith(":")}
    best, key = [], (-1, -1)
    for i, l in enumerate(lines):
        m = re.match(r"^s_(?:cbranch\w*|branch)\s+(\.L\w+)", l)
        if m and m.group(1) in labels and labels[m.group(1)] < i:
            body = lines[labels[m.group(1)]:i + 1]
            k = (sum(x.startswith("v_mfma") for x in body), len(body))
            if k > key:
                best, key = body, k
    return best


def loop_stats(text, kernel=None):
    """Counts per iteration of the loop of ``kernel`` (the only kernel when None)."""
    ks = kernels(text)
    lines = ks[kernel] if kernel else next(iter(ks.values()))
    body = [l for l in loop_body(lines) if not l.endswith(":")]
    ops = [l.split()[0] for l in body]
    vm = [o for o in ops if re.match(r"(global|buffer|flat|scratch)_", o)]
    lds_dma = [l for l in body if re.match(r"(buffer_load\w*\s.*\blds\b|global_load_lds_)", l)]
    waits = [l for l in body if l.startswith("s_waitcnt")]
    return {
        "instructions": len(body),
        "v_mfma": sum(o.startswith("v_mfma") for o in ops),
        "lds_copies": len(lds_dma),
        "other_vmem": len(vm) - len(lds_dma),
        "lds_reads": sum(bool(re.match(r"ds_(read|load)", o)) for o in ops),
        "lds_writes": sum(bool(re.match(r"ds_(write|store)", o)) for o in ops),
        "vmcnt": [int(x) for w in waits for x in re.findall(r"vmcnt\((\d+)\)", w)],
        "lgkmcnt": [int(x) for w in waits for x in re.findall(r"lgkmcnt\((\d+)\)", w)],
        "barriers": sum(o == "s_barrier" for o in ops),
    }


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    text = sys.stdin.read() if argv[0] == "-" else open(argv[0]).read()
    for name in kernels(text):
        print(name, loop_stats(text, name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
