"""Shared-memory loads and stores with ldmatrix / stmatrix for every layout whose lanes and
registers have their shape (Gluon's test_ldstmatrix_register_order cases, after Triton 3.8),
without a GPU: 8-, 16- and 32-bit elements (a lane's 32-bit word), the word's elements and
the matrices on any register bits, one, two or four matrices an instruction, transposed
16-bit ones; the PTX's instruction counts are Gluon's. test/gpu/test_ldstmatrix.py checks
the data on a GPU."""

from __future__ import annotations

import re

import pytest

import kiln
import kiln.language as kl

import compiled

pytestmark = compiled.needs_compiler


@kiln.jit
def round_trip(inp, out, N: kl.constexpr, store_layout: kl.constexpr,
               load_layout: kl.constexpr, shared_layout: kl.constexpr):
    offsets = kl.arange(0, N, layout=store_layout)
    values = kl.load(inp + offsets)
    smem = kl.allocate_shared_memory(inp.dtype.element_ty, [N], shared_layout)
    smem.store(values)
    values = smem.load(load_layout)
    offsets = kl.arange(0, N, layout=load_layout)
    kl.store(out + offsets, values)


CASES = [
    pytest.param("fp16", True, [8], [16, 32, 1, 2, 4], id="b16-transpose-x1"),
    pytest.param("fp16", True, [64, 32, 128, 256], [8, 16, 1, 2, 4], id="b16-transpose-bank"),
    pytest.param("i8", False, [128, 1, 2, 256, 512], [4, 8, 16, 32, 64], id="b8-packed"),
    pytest.param("fp16", False, [64, 1, 128, 256], [2, 4, 8, 16, 32], id="b16"),
    pytest.param("fp32", False, [32, 64, 128], [1, 2, 4, 8, 16], id="b32"),
    pytest.param("fp16", False, [1, 64], [2, 4, 8, 16, 32], id="b16-x2"),
]
BYTES = {"i8": 1, "fp16": 2, "fp32": 4}


def layouts(reg_bases, lane_bases):
    size = 32 << len(reg_bases)
    shared_bases = [[1 << i] for i in range(size.bit_length() - 1)]
    if size > 512:
        shared_bases[9][0] ^= 16
    return size, kl.SharedLinearLayout(shared_bases), kl.DistributedLinearLayout(
        reg_bases=[[b] for b in reg_bases], lane_bases=[[b] for b in lane_bases],
        warp_bases=[], block_bases=[], shape=[size])


@pytest.mark.parametrize("op", ["ld", "st"])
@pytest.mark.parametrize("dt,trans,reg_bases,lane_bases", CASES)
def test_matrix_instructions(op, dt, trans, reg_bases, lane_bases):
    size, shared, layout = layouts(reg_bases, lane_bases)
    blocked = kl.BlockedLayout([1], [32], [1], [0])
    store, load = (layout, blocked) if op == "st" else (blocked, layout)
    k = kiln.compile(round_trip, {"inp": f"*{dt}", "out": f"*{dt}"},
                     {"N": size, "store_layout": store, "load_layout": load,
                      "shared_layout": shared}, target="cuda:sm_90a", num_warps=1, cache=False)
    total = size * BYTES[dt]
    count = min(total, 512) // 128
    t = r"\.trans" if trans else ""
    found = re.findall(rf"{op}matrix\.sync\.aligned\.(?:m8n8\.x{count}|x{count}\.m8n8){t}"
                       rf"\.shared\.b16", k.asm["ptx"])
    assert len(found) == total // (128 * count), k.asm["ptx"]
