#!/usr/bin/env python3
"""``bank_conflicts`` against the hardware: for each case a kernel stores a register tensor
into a shared buffer (``allocate_shared_memory(value=...)``) and loads it back with the same
layout; Nsight Compute counts each direction's shared-memory wavefronts and bank conflicts
(``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{st,ld}``,
``l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{st,ld}``), and the measured conflicts per
conflict-free wavefront, conflicts / (wavefronts - conflicts), are printed beside
``kl.bank_conflicts`` (which the kernel writes to memory, so the count is the compiled one).
A direction the compiler moved with 8x8 matrix instructions (ldmatrix / stmatrix, which the
count does not describe) is shown as such. Run on a GPU machine with the wheel installed:

    python3 bench/bank_conflicts.py            # runs itself under ncu
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import subprocess
import sys

import kiln
import kiln.language as kl

B, SW, NV, PAD = (kl.BlockedLayout, kl.SwizzledSharedLayout, kl.NVMMASharedLayout,
                  kl.PaddedSharedLayout)
ROW_MAJOR = SW(1, 1, 1, [1, 0])
COLUMNS = B([1, 1], [32, 1], [1, 4], [0, 1])

# (register layout, shared layout, [M, N], dtype): conflicting and conflict-free, vectors of
# 1 to 16 bytes, swizzled, padded and NVMMA buffers.
CASES = [
    (B([1, 4], [8, 4], [4, 1], [1, 0]), ROW_MAJOR, [64, 64], kl.float32),
    (B([1, 4], [1, 32], [4, 1], [1, 0]), ROW_MAJOR, [64, 128], kl.float32),
    (COLUMNS, ROW_MAJOR, [32, 32], kl.float32),
    (COLUMNS, ROW_MAJOR, [32, 64], kl.float16),
    (COLUMNS, ROW_MAJOR, [32, 128], kl.int8),
    (COLUMNS, SW(1, 1, 32, [1, 0]), [32, 32], kl.float32),
    (COLUMNS, SW(2, 1, 16, [1, 0]), [32, 64], kl.float16),
    (COLUMNS, SW(4, 1, 8, [1, 0]), [32, 64], kl.float32),
    (COLUMNS, PAD.with_identity_for([[32, 1]], [32, 32], [1, 0]), [32, 32], kl.float32),
    (B([1, 8], [32, 1], [4, 1], [1, 0]), NV(0, 16, rank=2), [128, 64], kl.float16),
    (B([1, 8], [32, 1], [4, 1], [1, 0]), NV(128, 16, rank=2), [128, 64], kl.float16),
    (B([1, 4], [4, 8], [4, 1], [1, 0]), NV(128, 32, rank=2), [64, 32], kl.float32),
    (B([1, 2], [4, 8], [4, 1], [1, 0]), ROW_MAJOR, [64, 16], kl.float32),
    (B([2, 1], [4, 8], [1, 4], [0, 1]), ROW_MAJOR, [32, 32], kl.float64),
]

TYPE_NAMES = {kl.float32: "fp32", kl.float16: "fp16", kl.int8: "i8", kl.float64: "fp64"}

METRICS = ["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
           "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
           "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
           "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"]


@kiln.jit
def roundtrip(x_ptr, out_ptr, count_ptr, REG: kl.constexpr, SHARED: kl.constexpr,
              M: kl.constexpr, N: kl.constexpr):
    rows = kl.arange(0, M, kl.SliceLayout(1, REG))
    cols = kl.arange(0, N, kl.SliceLayout(0, REG))
    offs = rows[:, None] * N + cols[None, :]
    x = kl.load(x_ptr + offs)
    buf = kl.allocate_shared_memory(x_ptr.dtype.element_ty, [M, N], SHARED, value=x)
    kl.thread_barrier()  # keeps the code generator from forwarding each thread's own stores
    y = buf.load(REG)
    kl.store(out_ptr + offs, y)
    count: kl.constexpr = kl.bank_conflicts(x.type, buf.type)
    kl.store(count_ptr, count)


def child():
    """Launch every case once (ncu profiles each launch); print the predicted counts and
    which directions use matrix instructions, one line per case."""
    import torch
    torch_dtype = {kl.float32: torch.float32, kl.float16: torch.float16,
                   kl.int8: torch.int8, kl.float64: torch.float64}
    major, minor = torch.cuda.get_device_capability()
    target = f"cuda:sm_{major}{minor}{'a' if major == 9 else ''}"
    for i, (reg, shared, shape, dtype) in enumerate(CASES):
        x = torch.arange(shape[0] * shape[1], device="cuda").remainder(100).to(torch_dtype[dtype])
        out = torch.empty_like(x)
        count = torch.full((1,), -1, device="cuda", dtype=torch.int32)
        roundtrip[(1,)](x, out, count, REG=reg, SHARED=shared, M=shape[0], N=shape[1],
                        num_warps=4)
        torch.cuda.synchronize()
        assert torch.equal(out, x), f"case {i}: the round trip changed the data"
        ty = TYPE_NAMES[dtype]
        ptx = kiln.compile(roundtrip, {"x_ptr": f"*{ty}:16", "out_ptr": f"*{ty}:16",
                                       "count_ptr": "*i32:16"},
                           dict(REG=reg, SHARED=shared, M=shape[0], N=shape[1]),
                           target=target, num_warps=4).asm["ptx"]
        print(f"CASE {i} predicted={int(count.item())} stmatrix={'stmatrix' in ptx} "
              f"ldmatrix={'ldmatrix' in ptx}", flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--ncu", default="ncu")
    args = ap.parse_args(argv)
    if args.child:
        return child()
    run = subprocess.run([args.ncu, "--csv", "--metrics", ",".join(METRICS), "-k",
                          "roundtrip", sys.executable, os.path.abspath(__file__), "--child"],
                         capture_output=True, text=True)
    lines = run.stdout.splitlines()
    cases = {}
    for line in lines:
        if line.startswith("CASE "):
            fields = dict(f.split("=") for f in line.split()[2:])
            cases[int(line.split()[1])] = fields
    table = [l for l in lines if l.startswith('"')]
    if run.returncode or not table:
        print(run.stdout[-3000:], run.stderr[-3000:])
        raise SystemExit(f"ncu failed (rc {run.returncode})")
    values = {}
    for row in csv.DictReader(io.StringIO("\n".join(table))):
        values.setdefault(int(row["ID"]), {})[row["Metric Name"]] = \
            float(row["Metric Value"].replace(",", ""))
    print(f"{'case':>4} {'dtype':>8} {'shape':>9}  {'predicted':>9}  {'store':>16}  {'load':>16}")
    agree = checked = 0
    for i, (reg, shared, shape, dtype) in enumerate(CASES):
        m, info = values[i], cases[i]
        cells = []
        for op, matrix in (("st", info["stmatrix"] == "True"), ("ld", info["ldmatrix"] == "True")):
            waves = m[f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum"]
            conflicts = m[f"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{op}.sum"]
            measured = conflicts / max(waves - conflicts, 1)
            if matrix:
                cells.append(f"{measured:6.2f} (matrix)")
                continue
            checked += 1
            agree += abs(measured - int(info["predicted"])) < 0.05
            cells.append(f"{measured:6.2f} {'ok' if abs(measured - int(info['predicted'])) < 0.05 else 'DIFF':>4}   ")
        print(f"{i:>4} {str(dtype):>8} {'x'.join(map(str, shape)):>9}  {info['predicted']:>9}  "
              f"{cells[0]:>16}  {cells[1]:>16}")
    print(f"{agree} of {checked} element-wise directions measure the predicted count")


if __name__ == "__main__":
    main()
