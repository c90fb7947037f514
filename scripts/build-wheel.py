#!/usr/bin/env python3
"""Builds Kiln's wheel: dist/kiln-<version>-py3-none-manylinux_2_36_x86_64.whl.

    python3 scripts/build-wheel.py [--library build/standalone/libkiln.so]
                                   [--runtime python/kiln/libkiln_runtime.so] [--out dist]

The wheel holds the pure-Python package (python/kiln), the self-contained compiler library
(LLVM, MLIR and lld linked in; built by setup.sh with KILN_STANDALONE_LIBRARY=ON) and the
runtime library. Both libraries are C APIs loaded with ctypes, so the one wheel serves every
Python 3; its platform tag states the glibc it needs (Debian 12's, 2.36). Prints what takes
the space.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import os
import re
import sys
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TAG = "py3-none-manylinux_2_36_x86_64"
# Development builds that the wheel replaces or leaves out.
SKIP = re.compile(r"(__pycache__|\.pyc$|^kiln/libkiln(_runtime)?\.so$|\.so\.tmp$)")


def version() -> str:
    text = open(os.path.join(ROOT, "python", "kiln", "__init__.py")).read()
    return re.search(r'^__version__ = "([^"]+)"', text, re.M).group(1)


def record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--library", default=os.path.join(ROOT, "build", "standalone", "libkiln.so"))
    ap.add_argument("--runtime", default=os.path.join(ROOT, "python", "kiln",
                                                       "libkiln_runtime.so"))
    ap.add_argument("--fastlaunch", default=os.path.join(ROOT, "python", "kiln",
                                                          "_fastlaunch.abi3.so"),
                    help="the warm launch in C (CPython's stable ABI); left out when absent")
    ap.add_argument("--out", default=os.path.join(ROOT, "dist"))
    args = ap.parse_args()
    for path, what in ((args.library, "the self-contained compiler library "
                        "(bash scripts/setup.sh builds it)"),
                       (args.runtime, "the runtime library (scripts/build-runtime.sh)")):
        if not os.path.isfile(path):
            print(f"build-wheel: missing {path}: {what}", file=sys.stderr)
            return 1

    ver = version()
    files = {}  # archive name -> bytes
    pkg = os.path.join(ROOT, "python")
    for folder, dirs, names in os.walk(os.path.join(pkg, "kiln")):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for n in sorted(names):
            rel = os.path.relpath(os.path.join(folder, n), pkg).replace(os.sep, "/")
            if not SKIP.search(rel) and not n.endswith(".so"):
                files[rel] = open(os.path.join(folder, n), "rb").read()
    files["kiln/libkiln.so"] = open(args.library, "rb").read()
    files["kiln/libkiln_runtime.so"] = open(args.runtime, "rb").read()
    if os.path.isfile(args.fastlaunch):  # optional: without it, launches run in Python
        files["kiln/_fastlaunch.abi3.so"] = open(args.fastlaunch, "rb").read()
    else:
        print(f"build-wheel: note: no {args.fastlaunch} (Python headers were missing); the "
              f"wheel launches through Python alone", file=sys.stderr)

    info = f"kiln-{ver}.dist-info"
    files[f"{info}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: kiln\nVersion: {ver}\n"
        "Summary: An MLIR-based GPU tile-language compiler with a Gluon-style Python DSL\n"
        "Requires-Python: >=3.9\n").encode()
    files[f"{info}/WHEEL"] = (
        f"Wheel-Version: 1.0\nGenerator: kiln build-wheel.py\nRoot-Is-Purelib: false\n"
        f"Tag: {TAG}\n").encode()
    files[f"{info}/top_level.txt"] = b"kiln\n"
    record = [record_line(n, d) for n, d in files.items()] + [f"{info}/RECORD,,"]
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()

    os.makedirs(args.out, exist_ok=True)
    wheel = os.path.join(args.out, f"kiln-{ver}-{TAG}.whl")
    tmp = wheel + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for name, data in files.items():
            zi = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            zi.external_attr = (0o755 if name.endswith(".so") else 0o644) << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, data, compresslevel=9)
    os.replace(tmp, wheel)

    with zipfile.ZipFile(wheel) as z:
        sizes = sorted(((i.compress_size, i.file_size, i.filename) for i in z.infolist()),
                       reverse=True)
    total = os.path.getsize(wheel)
    print(f"wrote {wheel}: {total / 2**20:.1f} MiB ({len(sizes)} files)")
    py = sum(c for c, _, n in sizes if n.endswith(".py"))
    for c, u, n in sizes[:2]:
        print(f"  {c / 2**20:6.1f} MiB  ({u / 2**20:.1f} MiB unpacked)  {n}")
    print(f"  {py / 2**20:6.2f} MiB  Python sources "
          f"({sum(1 for _, _, n in sizes if n.endswith('.py'))} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
