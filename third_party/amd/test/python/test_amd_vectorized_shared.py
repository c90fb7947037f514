"""Byte tensors moved through shared memory by 64-lane warps (a convert_layout's scratch, as
the dot operands of aiter's fp8/int8 kernels take) reach the code generator as vector
accesses: Serialize runs LLVM's load-store vectorizer and then instcombine after the
optimizer on AMD (Backend::vectorizesMemoryAccesses). Left to the code generator's own
vectorizer, the accesses merged only after the values had been taken apart byte by byte, and
the byte repacking kept whole operands live across loops (aiter's fp8 MQA-logits kernel:
128 VGPRs, 80 with the pass; docs/results-wild.md)."""

from __future__ import annotations

import re

import pytest

import kiln
import kiln.language as kl

import compiled

pytestmark = compiled.needs_compiler


@kiln.jit
def transpose_bytes(x, y):
    A: kl.constexpr = kl.BlockedLayout([1, 16], [16, 4], [4, 1], [1, 0])
    B: kl.constexpr = kl.BlockedLayout([16, 1], [4, 16], [1, 4], [0, 1])
    r = kl.arange(0, 64, kl.SliceLayout(1, A))
    c = kl.arange(0, 64, kl.SliceLayout(0, A))
    v = kl.load(x + r[:, None] * 64 + c[None, :])
    w = kl.convert_layout(v, B)
    r2 = kl.arange(0, 64, kl.SliceLayout(1, B))
    c2 = kl.arange(0, 64, kl.SliceLayout(0, B))
    kl.store(y + r2[:, None] * 64 + c2[None, :], w)


@pytest.mark.parametrize("target", ["hip:gfx942", "hip:gfx950"])
def test_scratch_stores_are_vectors(target):
    k = kiln.compile(transpose_bytes, {"x": "*i8", "y": "*i8"}, {}, target=target,
                     num_warps=4, cache=False)
    ll = k.asm["llir"]
    assert not re.search(r"store i8 %\w+, ptr addrspace\(3\)", ll), ll
    assert re.search(r"store <\d+ x i8> %\w+, ptr addrspace\(3\)", ll), ll
