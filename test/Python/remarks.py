"""Run a kiln-opt test pass that reports facts as remarks, and collect them by line.

Shared by the soundness and differential tests (test_axis_info_soundness.py,
test_layout_differential.py): each prints IR one op a line, runs its pass and reads the
remarks back keyed by the line of the op that produced them. Also the errors of a check by
function, for the brute-force tests of tile-check-async-safety (test_guard_segments_soundness.py,
test_min_trips_soundness.py), and the header their random ring kernels share.
"""

import itertools
import os
import re
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KILN_OPT = os.path.join(ROOT, "build", "bin", "kiln-opt")

_LINE = re.compile(r"^[^:]*:(\d+):\d+: remark: (.*)$")


def remarks_by_line(text, flag):
    """{line: remark text} from `kiln-opt - --<flag>` on `text`; fails if kiln-opt does."""
    proc = subprocess.run([KILN_OPT, "-", f"--{flag}", "-o", "/dev/null",
                           "--mlir-print-op-on-diagnostic=false"],
                          input=text, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = {}
    for line in proc.stderr.splitlines():
        m = _LINE.match(line)
        if m:
            out[int(m.group(1))] = m.group(2)
    return out


RING_HEADER = """\
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
!p = tensor<256x!tile.ptr<f32>, #l>
"""


def ring_types(n):
    """The memdesc types of RING_HEADER's ring of `n` 256-float slots, and of one slot."""
    return (f"!tile.memdesc<{n}x256xf32, #sh, mutable>",
            f"!tile.memdesc<256xf32, #sh, mutable, {n}x256>")


def namer(idx):
    """SSA-name suffixes unique within kernel `idx`: v{idx}_1, v{idx}_2, ..."""
    count = itertools.count(1)
    return lambda: f"v{idx}_{next(count)}"


def refused_cases(path, starts, *flags):
    """The indexes of the functions of `path` (split at `// -----`; `starts`: the line each
    function starts on) that tile-check-async-safety reports an error in, run with `flags`."""
    r = subprocess.run([KILN_OPT, str(path), "-split-input-file", "-o", "/dev/null",
                        "--mlir-print-op-on-diagnostic=false", *flags,
                        "--tile-check-async-safety"],
                       capture_output=True, text=True, timeout=600)
    assert "error: " in r.stderr or r.returncode == 0, r.stderr[-2000:]
    refused = set()
    for m in re.finditer(r":(\d+):\d+: error: ", r.stderr):
        line = int(m.group(1))
        refused.add(max(i for i, s in enumerate(starts) if s <= line))
    return refused


def verdicts_with_and_without(texts, tmp_path, flag):
    """The functions tile-check-async-safety refuses among `texts` (one function each, written
    as one split file), as it runs and with the testing flag `flag` that turns a rule off."""
    path = tmp_path / "cases.mlir"
    text = "\n// -----\n".join(texts)
    path.write_text(text)
    starts = [text.count("\n", 0, m.start()) + 1
              for m in re.finditer(r"func\.func @case", text)]
    return refused_cases(path, starts), refused_cases(path, starts, flag)
