#!/usr/bin/env python3
"""Gluon's F2-linear form of its register layouts, captured where Triton is installed, so that
Kiln's can be compared with it where Triton is not (test/Python/test_gluon_linear_layouts.py).

    python3 scripts/gluon-layouts.py --capture OUT.json   # on the GPU machine (Triton 3.6)
    python3 scripts/gluon-layouts.py --list               # the cases, one per line

A case is a layout written as a Python expression over ``gl`` (Gluon's ``language`` package,
or Kiln's: the same text names the same layout in both) and a shape. The capture asks Triton's
own C++ (``GluonOpBuilder.to_linear_layout``, as Gluon's tutorial 09 does) for the register,
lane and warp bases; the test asks Kiln's ``to_linear_layout`` and wants the same bases in the
same order. A case Triton cannot convert is recorded with its error and not compared.
"""

from __future__ import annotations

import argparse
import json
import sys


def _mma(v, warps, instr):
    return f"gl.NVMMADistributedLayout(version={v}, warps_per_cta={warps}, instr_shape={instr})"


def _dot(parent, idx, kw):
    return f"gl.DotOperandLayout(parent={parent}, operand_index={idx}, k_width={kw})"


def _slice(dim, parent):
    return f"gl.SliceLayout(dim={dim}, parent={parent})"


def cases() -> list:
    """(layout expression, shape) pairs: every NVMMA form test_lowerings.py uses, and more."""
    out = []
    shapes2 = [[16, 16], [64, 64], [64, 128], [128, 32], [256, 256], [64, 1], [1, 64]]
    shapes3 = [[2, 16, 8], [8, 16, 32], [4, 64, 64], [1, 32, 16]]
    v2 = [[4, 1], [1, 4], [2, 2], [2, 8], [8, 2], [2, 4]]
    v3 = [([4, 1], [16, 32, 16]), ([4, 1], [16, 64, 16]), ([4, 1], [16, 128, 16]),
          ([1, 4], [16, 32, 32]), ([2, 8], [16, 64, 32]), ([8, 2], [16, 32, 32]),
          ([4, 2], [16, 128, 16]), ([8, 1], [16, 32, 16]), ([8, 4], [16, 64, 16])]
    for version in ([2, 0], [2, 1]):
        for w in v2:
            parent = _mma(version, w, [16, 8])
            for s in shapes2:
                out.append((parent, s))
                for d in (0, 1):
                    out.append((_slice(d, parent), s[:d] + s[d + 1:]))
            for idx in (0, 1):
                for kw in (1, 2, 4, 8):
                    for s in shapes2[:4]:
                        out.append((_dot(parent, idx, kw), s))
    for w, instr in v3:
        parent = _mma([3, 0], w, instr)
        for s in shapes2:
            out.append((parent, s))
            for d in (0, 1):
                out.append((_slice(d, parent), s[:d] + s[d + 1:]))
        for kw in (1, 2, 4):
            for s in shapes2[:4]:
                out.append((_dot(parent, 0, kw), s))
    for w in ([4, 1, 1], [1, 2, 2], [2, 2, 1], [1, 4, 1], [1, 1, 4]):
        parent = _mma([2, 0], w, [1, 16, 8])
        for s in shapes3:
            out.append((parent, s))
            for d in (0, 1, 2):
                out.append((_slice(d, parent), s[:d] + s[d + 1:]))
            for idx in (0, 1):
                for kw in (1, 2, 8):
                    out.append((_dot(parent, idx, kw), s))
                    out.append((_slice(1, _dot(parent, idx, kw)), s[:1] + s[2:]))
    for instr in ([16, 32, 16], [16, 64, 16]):  # rank-3 wgmma: only as an operand's parent
        parent = _mma([3, 0], [4, 1, 1], instr)
        for s in shapes3:
            for kw in (1, 2):
                out.append((_dot(parent, 0, kw), s))
                out.append((_slice(1, _dot(parent, 0, kw)), s[:1] + s[2:]))
    return out


def capture() -> dict:
    from triton._C.libtriton import gluon_ir, ir
    from triton.experimental.gluon import language as gl
    import triton
    context = ir.context()
    ir.load_dialects(context)
    builder = gluon_ir.GluonOpBuilder(context)
    records = []
    for expr, shape in cases():
        rec = {"layout": expr, "shape": shape}
        try:
            ll = builder.to_linear_layout(eval(expr, {"gl": gl})._to_ir(builder), shape)
            rec.update(reg=[list(b) for b in ll.reg_bases], lane=[list(b) for b in ll.lane_bases],
                       warp=[list(b) for b in ll.warp_bases])
        except Exception as e:  # recorded, not compared
            rec["error"] = f"{type(e).__name__}: {e}"
        records.append(rec)
    return {"source": "GluonOpBuilder.to_linear_layout of installed Triton",
            "triton_version": triton.__version__, "cases": records}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--capture", metavar="OUT.json")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    if args.list:
        for expr, shape in cases():
            print(shape, expr)
        return 0
    if args.capture:
        data = capture()
        with open(args.capture, "w") as f:
            json.dump(data, f, indent=0)
        errors = sum("error" in r for r in data["cases"])
        print(f"{len(data['cases'])} cases, {errors} that Triton could not convert")
        return 0
    ap.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
