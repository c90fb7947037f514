"""kiln.language.amd.cdna4.compute_efficient_padded_shared_layout (Gluon's helper after Triton
3.6): the same interval, padding and offset bases as Gluon for the cases its own frontend test
pins (an fp16 A operand, K contiguous; an fp8 B operand), None where the choice does not apply,
every layout it gives a bijection onto the buffer (PaddedSharedLayout checks), and a kernel
that allocates with it and reads an mfma operand from it compiles for gfx950."""

from __future__ import annotations

import itertools

import pytest

import kiln
import kiln.language as kl
from kiln.language.amd import cdna4

import compiled

MFMA16 = kl.amd.AMDMFMALayout(version=4, instr_shape=[16, 16, 32], transposed=True,
                              warps_per_cta=[2, 2])


def _bases(layout):
    return [list(b) for b in layout.offset_bases]


def test_fp16_a_operand_as_gluon():
    layout = cdna4.compute_efficient_padded_shared_layout(
        kl.DotOperandLayout(0, MFMA16, 8), [128, 64], kl.float16)
    assert layout.interval_padding_pairs == ((512, 16),)
    assert _bases(layout) == [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [16, 0],
                              [32, 0], [64, 0], [1, 0], [2, 0], [4, 0], [8, 0]]


def test_fp8_b_operand_as_gluon():
    mfma = kl.amd.AMDMFMALayout(version=4, instr_shape=[16, 16, 128], transposed=True,
                                warps_per_cta=[2, 2])
    layout = cdna4.compute_efficient_padded_shared_layout(
        kl.DotOperandLayout(1, mfma, 16), [128, 128], kl.float8e4nv)
    assert layout.interval_padding_pairs == ((1024, 32),)
    assert _bases(layout) == [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [64, 0],
                              [0, 16], [0, 32], [0, 64], [0, 1], [0, 2], [0, 4], [0, 8]]


def test_none_where_it_does_not_apply():
    dot = kl.DotOperandLayout(0, MFMA16, 8)
    assert cdna4.compute_efficient_padded_shared_layout(
        kl.DotOperandLayout(0, MFMA16, 2), [128, 64], kl.float16) is None  # k_width 2
    assert cdna4.compute_efficient_padded_shared_layout(dot, [128, 64], kl.float32) is None
    assert cdna4.compute_efficient_padded_shared_layout(dot, [8, 64], kl.float16) is None


@pytest.mark.parametrize("op,k_width,instr,dtype,k_contig,shape", [
    c for c in itertools.product([0, 1], [4, 8, 16], [16, 32], [kl.float16, kl.uint8],
                                 [True, False], [[128, 64], [64, 128], [256, 256], [32, 64]])])
def test_every_layout_is_a_bijection(op, k_width, instr, dtype, k_contig, shape):
    mfma = kl.amd.AMDMFMALayout(version=4, instr_shape=[instr, instr, 32], transposed=True,
                                warps_per_cta=[2, 2])
    layout = cdna4.compute_efficient_padded_shared_layout(
        kl.DotOperandLayout(op, mfma, k_width), shape, dtype, is_k_contig=k_contig)
    if layout is None:
        return
    # PaddedSharedLayout refuses bases that do not reach each element once; check it here too.
    seen = set()
    for o in range(shape[0] * shape[1]):
        r = c = 0
        for bit, (br, bc) in enumerate(layout.offset_bases):
            if o >> bit & 1:
                r ^= br
                c ^= bc
        seen.add((r, c))
    assert len(seen) == shape[0] * shape[1]
    interval, padding = layout.interval_padding_pairs[0]
    assert interval == 64 * (16 // max(dtype.primitive_bitwidth // 8, 1))


@kiln.jit
def read_operand(x, out, SHARED: kl.constexpr, DOT: kl.constexpr):
    rows = kl.arange(0, 128, kl.SliceLayout(1, DOT))[:, None]
    cols = kl.arange(0, 64, kl.SliceLayout(0, DOT))[None, :]
    buf = kl.allocate_shared_memory(kl.float16, [128, 64], SHARED)
    buf.store(kl.load(x + rows * 64 + cols))
    kl.store(out + rows * 64 + cols, buf.load(DOT))


@compiled.needs_compiler
def test_a_kernel_uses_it():
    dot = kl.DotOperandLayout(0, MFMA16, 8)
    shared = cdna4.compute_efficient_padded_shared_layout(dot, [128, 64], kl.float16)
    k = kiln.compile(read_operand, {"x": "*fp16", "out": "*fp16"},
                     {"SHARED": shared, "DOT": dot}, target="hip:gfx950", num_warps=4,
                     cache=False)
    assert "ds_read_b128" in k.asm["amdgcn"]
