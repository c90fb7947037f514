"""The F2-linear form of #tile.swizzled_shared against the swizzle formula, over random layouts.

C++ turns a swizzled shared layout into a map offset -> coordinates (``kiln-opt
--test-print-linear-layout`` prints it for memdesc arguments). Here the map is checked with
different arithmetic: integer division and modulo, as the layout is documented, for every
element of every buffer. An element (..., row, col) with phase = (row // perPhase) % maxPhase
is stored at

    offset = stack(...) * R * C + row * C + ((col // vec) ^ phase) % (C // vec) * vec + col % vec

(C = the length of dimension order[0], R of order[1]; no swizzle when vec >= C).
"""

from __future__ import annotations

import ast
import itertools
import os
import random
import re

import pytest

from remarks import KILN_OPT, remarks_by_line

SEED = int(os.environ.get("KILN_SHARED_SEED", "20261122"))
CASES = 300

needs_tool = pytest.mark.skipif(not os.path.exists(KILN_OPT), reason="kiln-opt not built")


def random_case(rng):
    rank = rng.choice([1, 2, 2, 2, 3])
    order = list(range(rank))
    rng.shuffle(order)
    shape = [2 ** rng.randrange(0, 6) for _ in range(rank)]
    while 1 << sum(s.bit_length() - 1 for s in shape) > 4096:
        shape[rng.randrange(rank)] //= 2
    vec, per_phase, max_phase = (2 ** rng.randrange(0, 4) for _ in range(3))
    return vec, per_phase, max_phase, order, shape


def expected_offset(coords, vec, per_phase, max_phase, order, shape):
    col_dim = order[0]
    cols = shape[col_dim]
    col = coords[col_dim]
    if len(order) == 1:
        return col
    row_dim = order[1]
    rows, row = shape[row_dim], coords[row_dim]
    phase = (row // per_phase) % max_phase
    if vec < cols:
        groups = cols // vec
        stored = ((col // vec) ^ phase) % groups * vec + col % vec
    else:
        stored = col
    offset = row * cols + stored
    stride = rows * cols
    for dim in order[2:]:
        offset += coords[dim] * stride
        stride *= shape[dim]
    return offset


def apply(bases, offset, rank):
    out = [0] * rank
    bit = 0
    while offset:
        if offset & 1:
            out = [a ^ b for a, b in zip(out, bases[bit])]
        offset >>= 1
        bit += 1
    return out


@needs_tool
def test_swizzled_shared_linear_form_matches_the_formula():
    rng = random.Random(SEED)
    cases = [random_case(rng) for _ in range(CASES)]
    lines = ["module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {"]
    for i, (vec, pp, mp, order, shape) in enumerate(cases):
        layout = (f"#tile.swizzled_shared<{{vec = {vec}, perPhase = {pp}, maxPhase = {mp}, "
                  f"order = [{', '.join(map(str, order))}]}}>")
        dims = "x".join(map(str, shape))
        lines.append(f"func.func @f{i}(%a: !tile.memdesc<{dims}xf16, {layout}>) {{ return }}")
    lines.append("}")
    got = remarks_by_line("\n".join(lines) + "\n", "test-print-linear-layout")
    checked = 0
    for i, (vec, pp, mp, order, shape) in enumerate(cases):
        remark = got.get(i + 2)
        assert remark is not None, f"no remark for case {i}"
        bases = ast.literal_eval(re.search(r"register = (\[.*?\]), lane", remark).group(1))
        numel = 1
        for s in shape:
            numel *= s
        assert len(bases) == numel.bit_length() - 1, (i, remark)
        seen = set()
        for coords in itertools.product(*(range(s) for s in shape)):
            offset = expected_offset(list(coords), vec, pp, mp, order, shape)
            assert 0 <= offset < numel and offset not in seen, (i, coords, offset)
            seen.add(offset)
            assert apply(bases, offset, len(shape)) == list(coords), \
                (i, (vec, pp, mp, order, shape), coords, offset, remark)
            checked += 1
    # Not vacuous: many elements, and layouts that do move columns.
    assert checked > 50_000
    assert any(mp > 1 and len(o) > 1 and v < s[o[0]] and s[o[1]] > pp
               for v, pp, mp, o, s in cases)


@needs_tool
def test_dsl_swizzled_shared_layout_prints_what_cpp_parses():
    import subprocess
    import kiln.language as kl
    layout = kl.SwizzledSharedLayout(8, 2, 4, [1, 0])
    assert layout.rank == 2 and layout == kl.SwizzledSharedLayout(8, 2, 4, (1, 0))
    text = ("module {\n  func.func @f(%a: !tile.memdesc<16x64xf16, " + layout.to_ir()
            + ", mutable>) { return }\n}\n")
    out = subprocess.run([KILN_OPT, "-"], input=text, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "#tile.swizzled_shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>" \
        in out.stdout
    for bad, match in [((3, 1, 1, [0]), "vec must be a power of 2"),
                       ((1, 1, 1, [0, 0]), "order must be a permutation"),
                       ((1, 0, 1, [0]), "per_phase must be a power of 2")]:
        with pytest.raises(ValueError, match=match):
            kl.SwizzledSharedLayout(*bad)
