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
import gluon_later_kernels as K

pytestmark = compiled.needs_compiler


BYTES = {"i8": 1, "fp16": 2, "fp32": 4}


@pytest.mark.parametrize("op", ["ld", "st"])
@pytest.mark.parametrize("dt,trans,reg_bases,lane_bases", K.MATRIX_CASES, ids=K.MATRIX_IDS)
def test_matrix_instructions(op, dt, trans, reg_bases, lane_bases):
    size, shared, layout = K.matrix_layouts(reg_bases, lane_bases)
    blocked = kl.BlockedLayout([1], [32], [1], [0])
    store, load = (layout, blocked) if op == "st" else (blocked, layout)
    k = kiln.compile(K.matrix_round_trip, {"inp": f"*{dt}", "out": f"*{dt}"},
                     {"N": size, "store_layout": store, "load_layout": load,
                      "shared_layout": shared}, target="cuda:sm_90a", num_warps=1, cache=False)
    total = size * BYTES[dt]
    count = min(total, 512) // 128
    t = r"\.trans" if trans else ""
    found = re.findall(rf"{op}matrix\.sync\.aligned\.(?:m8n8\.x{count}|x{count}\.m8n8){t}"
                       rf"\.shared\.b16", k.asm["ptx"])
    assert len(found) == total // (128 * count), k.asm["ptx"]
