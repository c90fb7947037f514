"""Run a kiln-opt test pass that reports facts as remarks, and collect them by line.

Shared by the soundness and differential tests (test_axis_info_soundness.py,
test_layout_differential.py): each prints IR one op a line, runs its pass and reads the
remarks back keyed by the line of the op that produced them.
"""

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
