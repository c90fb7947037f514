#!/usr/bin/env python3
"""Compare the layouts Gluon and Kiln infer for AutoLayout / CoalescedLayout, on the GPU machine.

    python3 scripts/layout-compare.py build/gluon-tests/test_core.py -k "coalesced or auto_layout"

Runs the selected tests twice, as written (Triton's Gluon) and with their Gluon imports swapped
for Kiln's (scripts/gluon_swap.py), each into an empty compiler cache; then reads, for every
kernel compiled, the layout of each global load and store (Triton: the ``tt.load`` /
``tt.store`` pointer types in its TTGIR; Kiln: the same ops after ``tile-resolve-layouts``,
run on the cached ``tile`` stage) and the vector width of the PTX's global loads and stores,
and prints them side by side. A row whose sizePerThread, order or vector widths differ is
marked ``DIFF``; the exit status is 1 when any row differs.
"""

from __future__ import annotations

import argparse
import collections
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gluon_swap import swap_imports  # noqa: E402

_ALIAS = re.compile(r"^(#[\w.]+) = (#\w+\.blocked<\{.*\}>)", re.M)
_ACCESS = re.compile(r"\b(tt\.load|tt\.store|tile\.load|tile\.store)\b[^\n]*?"
                     r"tensor<([0-9x]+)x!(?:tt|tile)\.ptr<[^>]*>, (#[\w.]+(?:<\{[^}]*\}>)?)>")
_FIELDS = re.compile(r"sizePerThread = \[([^\]]*)\].*?order = \[([^\]]*)\]")
_VEC = re.compile(r"\b(ld|st)\.global(?:\.[a-z]+)*?(?:\.v(\d))?\.(?:b|f|u|s)(\d+)\b")


def _layouts(ir: str):
    """[(op, shape, 'spt=[..] order=[..]')] for each global load / store of ``ir``."""
    aliases = dict(_ALIAS.findall(ir))
    out = []
    for op, shape, enc in _ACCESS.findall(ir):
        text = aliases.get(enc, enc)
        m = _FIELDS.search(text)
        desc = f"spt=[{m.group(1)}] order=[{m.group(2)}]" if m else text[:60]
        out.append((op.split(".")[1], shape, desc))
    return out


def _vectors(ptx: str):
    """Counter of 'ld.v4.b32'-like global access forms in ``ptx``."""
    c = collections.Counter()
    for kind, vec, bits in _VEC.findall(ptx):
        c[f"{kind}.v{vec or 1}x{bits}"] += 1
    return dict(sorted(c.items()))


def triton_kernels(cache: str):
    found = {}
    for ttgir in glob.glob(os.path.join(cache, "**", "*.ttgir"), recursive=True):
        name = os.path.splitext(os.path.basename(ttgir))[0]
        ptx = ttgir[:-len(".ttgir")] + ".ptx"
        ir = open(ttgir).read()
        found.setdefault(name, []).append(
            (_layouts(ir), _vectors(open(ptx).read()) if os.path.exists(ptx) else {}))
    return found


def kiln_kernels(cache: str):
    from kiln.compiler.cache import _decode
    from kiln.compiler.compiler import load_compiler
    compiler = load_compiler()
    found = {}
    for path in glob.glob(os.path.join(cache, "**", "*"), recursive=True):
        if not os.path.isfile(path):
            continue
        try:
            payload = _decode(open(path, "rb").read())
        except Exception:  # noqa: BLE001  (not an entry: a memo, a lock)
            payload = None
        if not payload or "tile" not in payload.get("asm", {}):
            continue
        resolved = compiler.run_pipeline(payload["asm"]["tile"],
                                         "builtin.module(tile-resolve-layouts)", "kernel")
        ptx = payload["asm"].get("ptx", "")
        found.setdefault(payload["name"], []).append(
            (_layouts(resolved), _vectors(ptx if isinstance(ptx, str) else "")))
    return found


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("test_file")
    ap.add_argument("-k", default="coalesced or auto_layout", help="pytest -k selection")
    args = ap.parse_args(argv)
    src = os.path.abspath(args.test_file)
    folder = os.path.dirname(src)
    kiln_copy = os.path.join(folder, "_layout_compare_kiln.py")
    with open(src) as f, open(kiln_copy, "w") as g:
        g.write(swap_imports(f.read()))
    conftest = os.path.join(folder, "conftest.py")
    if not os.path.exists(conftest):
        with open(conftest, "w") as f:
            f.write("import pytest\n\n\n@pytest.fixture\ndef device():\n    return \"cuda\"\n")
    tcache, kcache = tempfile.mkdtemp(), tempfile.mkdtemp()
    for path, env in ((src, {"TRITON_CACHE_DIR": tcache, "TRITON_ALWAYS_COMPILE": "1"}),
                      (kiln_copy, {"KILN_CACHE_DIR": kcache})):
        r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                            "-p", "no:randomly", "-k", args.k, path],
                           cwd=folder, env=dict(os.environ, **env), capture_output=True,
                           text=True, timeout=900)
        print(f"{os.path.basename(path)}: {r.stdout.strip().splitlines()[-1:]}")
    t, k = triton_kernels(tcache), kiln_kernels(kcache)
    differ = 0
    for name in sorted(set(t) | set(k)):
        tv = sorted(map(json.dumps, t.get(name, [])))
        kv = sorted(map(json.dumps, k.get(name, [])))
        same = tv == kv
        differ += not same
        print(f"\n{name}: {'same' if same else 'DIFF'}")
        for side, rows in (("gluon", t.get(name, [])), ("kiln ", k.get(name, []))):
            for layouts, vectors in rows:
                print(f"  {side} {vectors}")
                for op, shape, desc in layouts:
                    print(f"        {op:5} {shape:10} {desc}")
    print(f"\n{differ} kernel(s) differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
