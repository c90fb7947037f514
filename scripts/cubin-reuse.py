#!/usr/bin/env python3
"""Operand-reuse flags in an sm_90 cubin, counted without a disassembler: for each kernel
(.text.* section), the instructions, how many carry a reuse flag, and the same for one
opcode (FFMA by default). ptxas sets a reuse flag where an instruction reads the register
its predecessor read in the same operand slot; how many FFMAs carry one is what separated
ptxas 12.8's code for the FP8 block-scaled GEMMs from 13.0's (docs/results-wild.md), so this lets a
PTX or ptxas-option change be judged on a machine with ptxas and no GPU:

    ptxas --gpu-name=sm_90a kernel.ptx -o kernel.cubin
    python3 scripts/cubin-reuse.py kernel.cubin [--opcode 0x223]

Each sm_90 instruction is 16 bytes, little-endian; the reuse flags are bits 122-125 (bits
58-61 of the second 8 bytes) and the opcode the low 12 bits (FFMA with register operands:
0x223). Checked against nvdisasm's `.reuse` marks on a kernel of this repository.
"""

from __future__ import annotations

import argparse
import struct


def text_sections(data: bytes):
    """(name, bytes) of each .text.* section of an ELF64 little-endian file."""
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
               for i in range(shnum)]
    names = headers[shstrndx][4]
    for h in headers:
        name = data[names + h[0]:data.index(b"\0", names + h[0])].decode()
        if name.startswith(".text."):
            yield name[len(".text."):], data[h[4]:h[4] + h[5]]


def count(text: bytes, opcode: int):
    total = flagged = op = op_flagged = 0
    for i in range(0, len(text) - 15, 16):
        lo, hi = struct.unpack_from("<QQ", text, i)
        reuse = (hi >> 58) & 0xF != 0
        total += 1
        flagged += reuse
        if lo & 0xFFF == opcode:
            op += 1
            op_flagged += reuse
    return total, flagged, op, op_flagged


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cubins", nargs="+")
    ap.add_argument("--opcode", default="0x223", help="the opcode to count apart (FFMA: 0x223)")
    args = ap.parse_args(argv)
    opcode = int(args.opcode, 0)
    for path in args.cubins:
        with open(path, "rb") as f:
            data = f.read()
        if data[:4] != b"\x7fELF":
            raise SystemExit(f"{path}: not an ELF file")
        for name, text in text_sections(data):
            total, flagged, op, op_flagged = count(text, opcode)
            print(f"{path} {name}: {total} instructions, {flagged} with a reuse flag; "
                  f"opcode {opcode:#x}: {op}, {op_flagged} with a reuse flag")


if __name__ == "__main__":
    main()
