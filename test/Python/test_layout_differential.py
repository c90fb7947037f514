"""The DSL's layout math against C++'s, over random layouts.

The Python frontend converts layouts to their F2-linear form (``to_linear_layout``), moves a
layout through a reshape (``reshape_linear``) and decides whether a ``convert_layout`` is
trivial (``is_trivial_conversion``); the C++ dialect and lowering do the same independently.
Random blocked and slice layouts on random shapes are printed as tile IR;
``kiln-opt --test-print-linear-layout`` reports what C++ computes, and every answer must agree.
"""

from __future__ import annotations

import os
import random
import re

import pytest

import kiln.language as kl
from kiln.language import _layouts
from kiln.language._layouts import is_trivial_conversion, reshape_linear, to_linear_layout

from remarks import KILN_OPT, remarks_by_line
SEED = int(os.environ.get("KILN_LAYOUT_SEED", "20261122"))
CASES = 300
NUM_WARPS = 4

needs_tool = pytest.mark.skipif(not os.path.exists(KILN_OPT), reason="kiln-opt not built")


def _factor(rng, total, n):
    """`total` (a power of two) split into `n` power-of-two factors."""
    out = [1] * n
    while total > 1:
        out[rng.randrange(n)] *= 2
        total //= 2
    return out


def random_blocked(rng, rank, lanes):
    size = [rng.choice([1, 1, 2, 4, 8]) for _ in range(rank)]
    order = list(range(rank))
    rng.shuffle(order)
    return kl.BlockedLayout(size, _factor(rng, lanes, rank), _factor(rng, NUM_WARPS, rank), order)


def random_shape(rng, rank, limit=4096):
    while True:
        shape = [2 ** rng.randrange(0, 9) for _ in range(rank)]
        n = 1
        for d in shape:
            n *= d
        if n <= limit:
            return shape


def random_layout(rng, rank, lanes):
    """A blocked layout of `rank`, or a slice of a blocked layout of rank + 1."""
    if rank < 3 and rng.random() < 0.35:
        parent = random_blocked(rng, rank + 1, lanes)
        return kl.SliceLayout(rng.randrange(rank + 1), parent)
    return random_blocked(rng, rank, lanes)


def ty(shape, layout):
    return f"tensor<{'x'.join(map(str, shape))}xi32, {layout.to_ir()}>"


def bases_of(linear):
    return {"register": [list(b) for b in linear.reg_bases],
            "lane": [list(b) for b in linear.lane_bases],
            "warp": [list(b) for b in linear.warp_bases]}


LL_RE = r"\{register = (\[.*?\]), lane = (\[.*?\]), warp = (\[.*?\])\}"
REMARK = re.compile(r"layout = " + LL_RE + r"(?:; move = (\w+); source = " + LL_RE + r")?$")


def parse_bases(text):
    return [list(map(int, b.split(","))) if b.strip() else [] for b in re.findall(r"\[([^\[\]]*)\]", text)] \
        if text != "[]" else []


def run_kiln_opt(text):
    out = {}
    for line, remark in remarks_by_line(text, "test-print-linear-layout").items():
        m = REMARK.match(remark)
        if not m:
            continue
        g = m.groups()
        entry = {"layout": {"register": parse_bases(g[0]), "lane": parse_bases(g[1]),
                            "warp": parse_bases(g[2])}}
        if g[3]:
            entry["move"] = g[3]
            entry["source"] = {"register": parse_bases(g[4]), "lane": parse_bases(g[5]),
                               "warp": parse_bases(g[6])}
        out[line] = entry
    return out


def build_cases(rng, lanes):
    """Lines of IR with what Python expects for each."""
    lines, expect = [], []
    n = 0
    while len(expect) < CASES:
        rank = rng.choice([1, 2, 2, 3])
        shape = random_shape(rng, rank)
        src = random_layout(rng, rank, lanes)
        try:
            src_linear = to_linear_layout(src, shape)
        except ValueError:
            continue  # e.g. more registers per thread than allowed
        if len(src_linear.reg_bases) > 9:
            continue
        n += 1
        lines.append(f"  %c{n} = arith.constant dense<0> : {ty(shape, src)}")
        expect.append((len(lines), "layout", bases_of(src_linear), None))
        kind = rng.choice(["convert", "reshape", "none"])
        if kind == "convert":
            dst = rng.choice([random_layout(rng, rank, lanes), src])
            try:
                dst_linear = to_linear_layout(dst, shape)
            except ValueError:
                continue
            if len(dst_linear.reg_bases) > 9:
                continue
            lines.append(f"  %v{n} = tile.convert_layout %c{n} : {ty(shape, src)} -> "
                         f"{ty(shape, dst)}")
            expect.append((len(lines), "convert", bases_of(dst_linear),
                           is_trivial_conversion(src, dst, shape)))
        elif kind == "reshape":
            total = 1
            for d in shape:
                total *= d
            new_rank = rng.choice([1, 2, 3])
            dst_shape = [2 ** e for e in _factor_exponents(rng, total.bit_length() - 1, new_rank)]
            dst = random_blocked(rng, new_rank, lanes)
            try:
                dst_linear = to_linear_layout(dst, dst_shape)
            except ValueError:
                continue
            if len(dst_linear.reg_bases) > 9:
                continue
            lines.append(f"  %r{n} = tile.reshape %c{n} : {ty(shape, src)} -> "
                         f"{ty(dst_shape, dst)}")
            expect.append((len(lines), "reshape", bases_of(dst_linear),
                           bases_of(reshape_linear(src, shape, dst_shape))))
    return lines, expect


def _factor_exponents(rng, bits, n):
    out = [0] * n
    for _ in range(bits):
        out[rng.randrange(n)] += 1
    return out


@pytest.fixture
def pure_python_layouts(monkeypatch):
    """The DSL's own layout math, with C++'s oracle (installed by compiles) switched off."""
    monkeypatch.setattr(_layouts, "_layout_oracle", None)
    yield
    _layouts._oracle_bases.cache_clear()


@needs_tool
@pytest.mark.parametrize("lanes", [32, 64])
def test_python_and_cpp_layout_math_agree(lanes, pure_python_layouts):
    rng = random.Random(SEED + lanes)
    body, expect = build_cases(rng, lanes)
    header = [f"module attributes {{tile.num_warps = {NUM_WARPS} : i32, "
              f"tile.threads_per_warp = {lanes} : i32}} {{",
              "func.func @f() {"]
    text = "\n".join(header + body + ["  return", "}", "}"]) + "\n"
    got = run_kiln_opt(text)
    mismatches, moves = [], {"identity": 0, "permute": 0, "shared": 0}
    for line, kind, layout, extra in expect:
        entry = got.get(line + len(header))
        assert entry is not None, f"no remark for line {line}: {body[line - 1]}"
        if entry["layout"] != layout:
            mismatches.append(f"{body[line - 1].strip()}\n  python {layout}\n  c++    {entry['layout']}")
        if kind == "convert":
            moves[entry["move"]] += 1
            trivial = entry["move"] in ("identity", "permute")
            if trivial != extra:
                mismatches.append(f"{body[line - 1].strip()}\n  python trivial={extra}, "
                                  f"c++ move={entry['move']}")
        if kind == "reshape" and entry["source"] != extra:
            mismatches.append(f"{body[line - 1].strip()}\n  python source {extra}\n"
                              f"  c++ source    {entry['source']}")
    assert not mismatches, f"{len(mismatches)} disagreements:\n" + "\n".join(mismatches[:8])
    # Not vacuous: conversions of each kind were compared.
    assert moves["shared"] > 5 and moves["identity"] + moves["permute"] > 5, moves


def test_the_compiler_answers_layout_math_when_present():
    """Once the extension is loaded the DSL asks C++; the answers are the Python ones."""
    from kiln.compiler import compiler as compiler_mod
    ext = compiler_mod.load_compiler()
    if ext is None:
        pytest.skip("kiln/libkiln.so is not built (bash scripts/setup.sh builds it)")
    rng = random.Random(SEED)
    layouts = [(random_layout(rng, rank, 32), random_shape(rng, rank, limit=512))
               for rank in (1, 2, 3) for _ in range(40)]
    saved = _layouts._layout_oracle
    try:
        _layouts.set_layout_oracle(None)
        python = [to_linear_layout(layout, shape) for layout, shape in layouts]
        calls = []

        def oracle(text, shape):
            calls.append(text)
            return ext.linear_layout(text, shape)
        _layouts.set_layout_oracle(oracle)
        cpp = [to_linear_layout(layout, shape) for layout, shape in layouts]
    finally:
        _layouts.set_layout_oracle(saved)
    # One C++ call per distinct (layout, shape); repeats come from the cache.
    assert len(calls) == len({(layout, tuple(shape)) for layout, shape in layouts})
    assert cpp == python
    # What C++ cannot place (a layout text it rejects) falls back to Python's error.
    assert ext.linear_layout("#tile.nonsense", [4]) is None
