"""Soundness of the axis analysis (contiguity / divisibility / constancy), by brute force.

Random index expressions of the kinds kernels write (arange, expand_dims, broadcast, splat,
add/sub/mul by constants and by unknown scalars with and without divisibility hints, compares,
selects, extensions, truncations, division, remainder and shifts by constants, pointers with and without ``:16``) are printed as tile IR, one op a line.
``kiln-opt --test-print-axis-info`` reports what the analysis claims for every value; this file
evaluates every expression on many concrete argument values with numpy (wrapping at each
integer's width, pointers as byte addresses) and fails on any claim that does not hold. It
shares no arithmetic with the analysis: the checker only knows the definitions in
include/kiln/Analysis/AxisInfo.h.
"""

from __future__ import annotations

import os
import random
import re
import subprocess
from dataclasses import dataclass, field

import numpy as np
import pytest

from remarks import KILN_OPT, remarks_by_line

R, C = 16, 32          # rows x columns of the 2-D values
NUM_FUNCS = 400        # random expressions per run
OPS_PER_FUNC = 14
ASSIGNMENTS = 12       # concrete argument values per expression
SEED = int(os.environ.get("KILN_SOUNDNESS_SEED", "20261122"))

HEADER = """\
#l2 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#row = #tile.slice<{dim = 1, parent = #l2}>
#col = #tile.slice<{dim = 0, parent = #l2}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
"""

SHAPES = {"s": (), "row": (R,), "col": (C,), "rowx": (R, 1), "colx": (1, C), "2d": (R, C)}
ENC = {"row": "#row", "col": "#col", "rowx": "#l2", "colx": "#l2", "2d": "#l2"}
WIDTH = {"i1": 1, "i32": 32, "i64": 64}


def ty(kind: str, elem: str) -> str:
    if kind == "s":
        return elem
    dims = "x".join(str(n) for n in SHAPES[kind])
    return f"tensor<{dims}x{elem}, {ENC[kind]}>"


def wrap(x, width):
    x = np.asarray(x, dtype=object)
    if width == 1:
        return np.vectorize(lambda v: int(v) & 1, otypes=[object])(x) if x.shape else int(x) & 1
    m = 1 << width
    f = lambda v: ((int(v) + (m >> 1)) % m) - (m >> 1)
    return np.vectorize(f, otypes=[object])(x) if x.shape else f(x)


@dataclass
class Val:
    name: str
    kind: str
    elem: str            # "i1", "i32", "i64" or "ptr"
    line: int = 0        # line of the defining op (0 for arguments)


@dataclass
class Func:
    name: str
    args: list = field(default_factory=list)      # (Val, hint or None)
    ops: list = field(default_factory=list)       # (Val, text, evaluator)


class Gen:
    """Builds one random function and the numpy evaluator of each of its values."""

    def __init__(self, rng: random.Random, idx: int):
        self.rng = rng
        self.f = Func(f"f{idx}")
        self.n = 0
        self.vals: list[Val] = []
        for i in range(3):
            hint = rng.choice([None, None, 2, 4, 8, 16, 32])
            v = Val(f"%a{i}", "s", "i32")
            self.f.args.append((v, hint))
            self.vals.append(v)
        self.ptr_hint = rng.choice([None, 16])
        self.ptr = Val("%p", "s", "ptr")
        self.f.args.append((self.ptr, self.ptr_hint))

    def fresh(self, kind, elem):
        self.n += 1
        return Val(f"%v{self.n}", kind, elem)

    def pick(self, kinds=None, elems=("i32",)):
        cands = [v for v in self.vals if v.elem in elems and (kinds is None or v.kind in kinds)]
        return self.rng.choice(cands) if cands else None

    def emit(self, v, text, ev):
        self.f.ops.append((v, text, ev))
        self.vals.append(v)
        return v

    def const(self):
        rng = self.rng
        c = rng.choice([0, 1, 1, 2, 3, 4, 7, 16, 33, 48, 64, -1, -16, 1 << 20, (1 << 31) - 1,
                        -(1 << 31), rng.randrange(-1000, 1000)])
        kind = rng.choice(["s", "s", "row", "col", "2d"])
        v = self.fresh(kind, "i32")
        lit = str(c) if kind == "s" else f"dense<{c}>"
        shape = SHAPES[kind]
        return self.emit(v, f"{v.name} = arith.constant {lit} : {ty(kind, 'i32')}",
                         lambda env, c=c, shape=shape: np.full(shape, c, dtype=object) if shape else c)

    def arange(self):
        rng = self.rng
        kind = rng.choice(["row", "col"])
        n = SHAPES[kind][0]
        start = rng.choice([0, 0, 0, 1, 3, 4, 16, 48, 64, -16, -5, 1 << 20, (1 << 31) - 1 - n])
        v = self.fresh(kind, "i32")
        return self.emit(v, f"{v.name} = tile.arange {start}, {start + n} : {ty(kind, 'i32')}",
                         lambda env, s=start, n=n: np.arange(s, s + n, dtype=object))

    def splat(self):
        src = self.pick(["s"], ("i32",))
        kind = self.rng.choice(["row", "col", "rowx", "colx", "2d"])
        v = self.fresh(kind, "i32")
        shape = SHAPES[kind]
        return self.emit(v, f"{v.name} = tile.splat {src.name} : {ty(kind, 'i32')}",
                         lambda env, s=src.name, shape=shape: np.full(shape, env[s], dtype=object))

    def expand(self):
        src = self.pick(["row", "col"], ("i32", "i64"))
        if src is None:
            return None
        axis, kind = (1, "rowx") if src.kind == "row" else (0, "colx")
        v = self.fresh(kind, src.elem)
        return self.emit(
            v, f"{v.name} = tile.expand_dims {src.name} {{axis = {axis} : i32}} : "
               f"{ty(src.kind, src.elem)} -> {ty(kind, src.elem)}",
            lambda env, s=src.name, a=axis: np.expand_dims(env[s], a))

    def bcast(self):
        src = self.pick(["rowx", "colx"], ("i32", "i64"))
        if src is None:
            return None
        v = self.fresh("2d", src.elem)
        return self.emit(
            v, f"{v.name} = tile.broadcast {src.name} : {ty(src.kind, src.elem)} -> {ty('2d', src.elem)}",
            lambda env, s=src.name: np.broadcast_to(env[s], (R, C)).copy())

    def binop(self):
        a = self.pick(None, ("i32", "i64"))
        b = self.pick([a.kind], (a.elem,))
        op = self.rng.choice(["addi", "addi", "subi", "muli"])
        if self.rng.random() < 0.5:
            a, b = b, a
        v = self.fresh(a.kind, a.elem)
        w = WIDTH[a.elem]
        fn = {"addi": lambda x, y: x + y, "subi": lambda x, y: x - y, "muli": lambda x, y: x * y}[op]
        return self.emit(v, f"{v.name} = arith.{op} {a.name}, {b.name} : {ty(a.kind, a.elem)}",
                         lambda env, a=a.name, b=b.name: wrap(fn(env[a], env[b]), w))

    def cmp(self):
        a = self.pick(None, ("i32",))
        b = self.pick([a.kind], ("i32",))
        pred = self.rng.choice(["slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge", "eq", "ne"])
        v = self.fresh(a.kind, "i1")

        def ev(env, a=a.name, b=b.name, pred=pred):
            x, y = env[a], env[b]
            if pred[0] == "u":
                x, y = np.vectorize(lambda t: int(t) % (1 << 32), otypes=[object])(np.asarray(x, dtype=object)), \
                    np.vectorize(lambda t: int(t) % (1 << 32), otypes=[object])(np.asarray(y, dtype=object))
            r = {"lt": x < y, "le": x <= y, "gt": x > y, "ge": x >= y,
                 "eq": x == y, "ne": x != y}[pred[-2:]]
            return np.asarray(r).astype(object) * 1 if np.ndim(r) else int(bool(r))
        return self.emit(v, f"{v.name} = arith.cmpi {pred}, {a.name}, {b.name} : {ty(a.kind, 'i32')}", ev)

    def logic(self):
        a = self.pick(None, ("i1",))
        if a is None:
            return None
        b = self.pick([a.kind], ("i1",))
        op = self.rng.choice(["andi", "ori"])
        v = self.fresh(a.kind, "i1")
        fn = (lambda x, y: x & y) if op == "andi" else (lambda x, y: x | y)
        return self.emit(v, f"{v.name} = arith.{op} {a.name}, {b.name} : {ty(a.kind, 'i1')}",
                         lambda env, a=a.name, b=b.name: fn(env[a], env[b]))

    def select(self):
        c = self.pick(None, ("i1",))
        if c is None:
            return None
        a = self.pick([c.kind], ("i32",))
        b = self.pick([c.kind], ("i32",))
        if a is None or b is None:
            return None
        v = self.fresh(c.kind, "i32")
        return self.emit(
            v, f"{v.name} = arith.select {c.name}, {a.name}, {b.name} : {ty(c.kind, 'i1')}, {ty(c.kind, 'i32')}",
            lambda env, c=c.name, a=a.name, b=b.name: np.where(np.asarray(env[c], dtype=object) == 1,
                                                               env[a], env[b]) if np.ndim(env[a])
            else (env[a] if env[c] == 1 else env[b]))

    def ext(self):
        a = self.pick(None, ("i32",))
        op = self.rng.choice(["extsi", "extui"])
        v = self.fresh(a.kind, "i64")
        if op == "extsi":
            fn = lambda x: x
        else:
            fn = lambda x: wrap(np.vectorize(lambda t: int(t) % (1 << 32), otypes=[object])(
                np.asarray(x, dtype=object)) if np.ndim(x) else int(x) % (1 << 32), 64)
        return self.emit(v, f"{v.name} = arith.{op} {a.name} : {ty(a.kind, 'i32')} to {ty(a.kind, 'i64')}",
                         lambda env, a=a.name: fn(env[a]))

    def divrem(self):
        """x (op) m for a constant m: signed and unsigned division and remainder, shifts."""
        a = self.pick(None, ("i32",))
        op = self.rng.choice(["divsi", "divui", "remsi", "remui", "shrsi", "shrui", "shli"])
        if op.startswith("sh"):
            m = self.rng.choice([0, 1, 2, 4, 5, 31])
        else:
            m = self.rng.choice([1, 2, 4, 16, 32, 64, 3, 6, -4])
        k = self.fresh(a.kind, "i32")
        lit = str(m) if a.kind == "s" else f"dense<{m}>"
        self.emit(k, f"{k.name} = arith.constant {lit} : {ty(a.kind, 'i32')}",
                  lambda env, m=m, shape=SHAPES[a.kind]:
                  np.full(shape, m, dtype=object) if shape else m)
        v = self.fresh(a.kind, "i32")
        u = lambda t: int(t) % (1 << 32)

        def one(x, m=m, op=op):
            x = int(x)
            if op == "divsi":
                q = abs(x) // abs(m)
                return q if (x >= 0) == (m > 0) else -q
            if op == "remsi":
                q = abs(x) // abs(m)
                q = q if (x >= 0) == (m > 0) else -q
                return x - q * m
            if op == "divui":
                return u(x) // u(m)
            if op == "remui":
                return u(x) % u(m)
            if op == "shrsi":
                return x >> m
            if op == "shrui":
                return u(x) >> m
            return x << m

        def ev(env, a=a.name):
            x = env[a]
            f = lambda t: wrap(one(t), 32)
            return np.vectorize(f, otypes=[object])(np.asarray(x, dtype=object)) \
                if np.ndim(x) else f(x)
        return self.emit(v, f"{v.name} = arith.{op} {a.name}, {k.name} : {ty(a.kind, 'i32')}", ev)

    def trunc(self):
        a = self.pick(None, ("i64",))
        if a is None:
            return None
        v = self.fresh(a.kind, "i32")
        return self.emit(v, f"{v.name} = arith.trunci {a.name} : {ty(a.kind, 'i64')} to "
                            f"{ty(a.kind, 'i32')}", lambda env, a=a.name: wrap(env[a], 32))

    def addptr(self):
        off = self.pick(None, ("i32", "i64"))
        if off.kind == "s":
            base = self.ptr
        else:
            base = self.fresh(off.kind, "ptr")
            self.emit(base, f"{base.name} = tile.splat %p : {ty(off.kind, '!tile.ptr<f32>')}",
                      lambda env, shape=SHAPES[off.kind]: np.full(shape, env["%p"], dtype=object))
        v = self.fresh(off.kind, "ptr")
        return self.emit(
            v, f"{v.name} = tile.addptr {base.name}, {off.name} : {ty(off.kind, '!tile.ptr<f32>')}, "
               f"{ty(off.kind, off.elem)}",
            lambda env, b=base.name, o=off.name: env[b] + np.asarray(env[o], dtype=object) * 4
            if np.ndim(env[o]) else env[b] + env[o] * 4)

    def row_pattern(self):
        """The user guide's 2-D indexing: r[:, None] * stride + c[None, :]."""
        r = self.arange_of("row")
        c = self.arange_of("col")
        stride = self.rng.choice([v for v, _ in self.f.args if v.elem == "i32"])
        re_ = self.fresh("rowx", "i32")
        self.emit(re_, f"{re_.name} = tile.expand_dims {r.name} {{axis = 1 : i32}} : "
                       f"{ty('row', 'i32')} -> {ty('rowx', 'i32')}",
                  lambda env, s=r.name: np.expand_dims(env[s], 1))
        st = self.fresh("rowx", "i32")
        self.emit(st, f"{st.name} = tile.splat {stride.name} : {ty('rowx', 'i32')}",
                  lambda env, s=stride.name: np.full((R, 1), env[s], dtype=object))
        m = self.fresh("rowx", "i32")
        self.emit(m, f"{m.name} = arith.muli {re_.name}, {st.name} : {ty('rowx', 'i32')}",
                  lambda env, a=re_.name, b=st.name: wrap(env[a] * env[b], 32))
        rb = self.fresh("2d", "i32")
        self.emit(rb, f"{rb.name} = tile.broadcast {m.name} : {ty('rowx', 'i32')} -> {ty('2d', 'i32')}",
                  lambda env, s=m.name: np.broadcast_to(env[s], (R, C)).copy())
        ce = self.fresh("colx", "i32")
        self.emit(ce, f"{ce.name} = tile.expand_dims {c.name} {{axis = 0 : i32}} : "
                      f"{ty('col', 'i32')} -> {ty('colx', 'i32')}",
                  lambda env, s=c.name: np.expand_dims(env[s], 0))
        cb = self.fresh("2d", "i32")
        self.emit(cb, f"{cb.name} = tile.broadcast {ce.name} : {ty('colx', 'i32')} -> {ty('2d', 'i32')}",
                  lambda env, s=ce.name: np.broadcast_to(env[s], (R, C)).copy())
        o = self.fresh("2d", "i32")
        return self.emit(o, f"{o.name} = arith.addi {rb.name}, {cb.name} : {ty('2d', 'i32')}",
                         lambda env, a=rb.name, b=cb.name: wrap(env[a] + env[b], 32))

    def arange_of(self, kind):
        while True:
            v = self.arange()
            if v.kind == kind:
                return v

    def build(self, nops):
        rng = self.rng
        makers = [self.const, self.arange, self.arange, self.splat, self.splat, self.expand,
                  self.expand, self.bcast, self.bcast, self.binop, self.binop, self.binop,
                  self.cmp, self.logic, self.select, self.ext, self.trunc, self.divrem,
                  self.divrem, self.addptr, self.addptr]
        if rng.random() < 0.3:
            self.row_pattern()
        while len(self.f.ops) < nops:
            rng.choice(makers)()
        return self.f


def arg_value(rng: random.Random, hint, is_ptr):
    if is_ptr:
        base = rng.randrange(1 << 20, 1 << 40)
        return base * 16 if hint else base * 4 + rng.choice([0, 0, 1, 2, 3])
    h = hint or 1
    lim = (1 << 31) // h
    q = rng.choice([0, 1, 2, 3, -1, -2, lim - 1, -lim, rng.randrange(-lim, lim), rng.randrange(-64, 64)])
    return q * h


def _func_header(f):
    """The `func.func` line of `f`, its arguments with their divisibility hints."""
    params = []
    for v, hint in f.args:
        t = "!tile.ptr<f32>" if v.elem == "ptr" else "i32"
        attr = f" {{tile.divisibility = {hint} : i32}}" if hint else ""
        params.append(f"{v.name}: {t}{attr}")
    return f"func.func public @{f.name}({', '.join(params)}) {{"


def render(funcs):
    lines = HEADER.splitlines()
    for f in funcs:
        lines.append(_func_header(f))
        for v, text, _ in f.ops:
            lines.append("  " + text)
            v.line = len(lines)
        lines.append("  return")
        lines.append("}")
    lines.append("}")
    return "\n".join(lines) + "\n"


REMARK = re.compile(r"contiguity = \[([^\]]*)\], divisibility = \[([^\]]*)\], "
                    r"constancy = \[([^\]]*)\](?:, constant = (-?\d+))?$")


def claims_of(text):
    ints = lambda s: [int(x) for x in s.split(",")] if s.strip() else []
    out = {}
    for line, remark in remarks_by_line(text, "test-print-axis-info").items():
        m = REMARK.match(remark)
        if m:
            out[line] = (ints(m.group(1)), ints(m.group(2)), ints(m.group(3)),
                         None if m.group(4) is None else int(m.group(4)))
    return out


def check_claim(value, elem, claim):
    """Every way `claim` can be false for `value`; empty when it holds."""
    cont, div, const, constant = claim
    arr = np.asarray(value, dtype=object)
    if arr.ndim == 0:
        arr = arr.reshape(1)
    step = 4 if elem == "ptr" else 1
    mod = None if elem == "ptr" else 1 << WIDTH[elem]
    errors = []
    if constant is not None:
        want = constant % mod if mod else constant
        if any((int(x) % mod if mod else int(x)) != want for x in arr.flat):
            errors.append(f"constant {constant} but values {sorted(set(arr.flat))[:4]}")
    for d in range(arr.ndim):
        n = arr.shape[d]
        moved = np.moveaxis(arr, d, 0)
        for i in range(n):
            here = moved[i:i + 1]
            if i % cont[d] == 0:
                for x in here.flat:
                    v = int(x) if mod is None else int(x) % mod
                    if v % div[d] != 0:
                        errors.append(f"dim {d}: divisibility {div[d]} but element {int(x)} at {i}")
                        break
            c0 = i - i % cont[d]
            diff = here - moved[c0:c0 + 1]
            want = (i - c0) * step
            for x in np.asarray(diff).flat:
                if (int(x) - want) % (mod or (1 << 80)) != 0:
                    errors.append(f"dim {d}: contiguity {cont[d]} broken at {i}")
                    break
            k0 = i - i % const[d]
            for x, y in zip(here.flat, moved[k0:k0 + 1].flat):
                if (int(x) - int(y)) % (mod or (1 << 80)) != 0:
                    errors.append(f"dim {d}: constancy {const[d]} broken at {i}")
                    break
    return errors


def nontrivial(claim):
    cont, div, const, constant = claim
    return sum(1 for x in cont + div + const if x > 1)


def run_campaign(seed, nfuncs):
    rng = random.Random(seed)
    funcs = [Gen(rng, i).build(OPS_PER_FUNC) for i in range(nfuncs)]
    text = render(funcs)
    claims = claims_of(text)
    failures, checked, strong = [], 0, 0
    for f in funcs:
        for trial in range(ASSIGNMENTS):
            env = {}
            for v, hint in f.args:
                env[v.name] = arg_value(rng, hint, v.elem == "ptr")
            for v, op_text, ev in f.ops:
                env[v.name] = ev(env)
                claim = claims.get(v.line)
                assert claim is not None, f"no claim printed for {op_text}"
                errs = check_claim(env[v.name], v.elem, claim)
                checked += 1
                strong += nontrivial(claim)
                if errs:
                    failures.append((f.name, op_text, claim, errs[0], dict(env)))
    return funcs, text, failures, checked, strong


needs_tool = pytest.mark.skipif(not os.path.exists(KILN_OPT), reason="kiln-opt not built")


@needs_tool
def test_axis_info_is_sound_on_random_expressions():
    funcs, text, failures, checked, strong = run_campaign(SEED, NUM_FUNCS)
    if failures:
        lines = []
        for name, op_text, claim, err, env in failures[:10]:
            args = {k: v for k, v in env.items() if k.startswith("%a") or k == "%p"}
            lines.append(f"@{name}: {op_text}\n    claim {claim}\n    {err}\n    args {args}")
        path = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"axis-info-unsound-{SEED}.mlir")
        with open(path, "w") as fh:
            fh.write(text)
        pytest.fail(f"{len(failures)} false claims (module in {path}):\n" + "\n".join(lines))
    # The check is not vacuous: thousands of values, many claims stronger than "nothing known".
    assert checked >= NUM_FUNCS * OPS_PER_FUNC * ASSIGNMENTS
    assert strong >= 10 * NUM_FUNCS


@needs_tool
def test_checker_catches_a_false_claim():
    """The old expand_dims rule (row starts r[:, None] claimed 2^30-divisible along the new
    axis) must be reported as false by the checker."""
    r = np.arange(0, R, dtype=object).reshape(R, 1)
    assert check_claim(r, "i32", ([R, 1], [1 << 30, 1], [1, 1], None)) == []
    bad = check_claim(r, "i32", ([R, 1], [1 << 30, 1 << 30], [1, 1], None))
    assert bad and "divisibility" in bad[0]
    assert check_claim(np.arange(8, dtype=object) * 2, "i32", ([2], [2], [1], None))


ROWS = HEADER + """\
func.func public @rows(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %stride: i32STRIDE_HINT) {
  %r = tile.arange 0, 16 : tensor<16xi32, #row>
  %c = tile.arange 0, 32 : tensor<32xi32, #col>
  %re = tile.expand_dims %r {axis = 1 : i32} : tensor<16xi32, #row> -> tensor<16x1xi32, #l2>
  %ss = tile.splat %stride : tensor<16x1xi32, #l2>
  %rs = arith.muli %re, %ss : tensor<16x1xi32, #l2>
  %rb = tile.broadcast %rs : tensor<16x1xi32, #l2> -> tensor<16x32xi32, #l2>
  %ce = tile.expand_dims %c {axis = 0 : i32} : tensor<32xi32, #col> -> tensor<1x32xi32, #l2>
  %cb = tile.broadcast %ce : tensor<1x32xi32, #l2> -> tensor<16x32xi32, #l2>
  %o = arith.addi %rb, %cb : tensor<16x32xi32, #l2>
  %xs = tile.splat %x : tensor<16x32x!tile.ptr<f32>, #l2>
  %xp = tile.addptr %xs, %o : tensor<16x32x!tile.ptr<f32>, #l2>, tensor<16x32xi32, #l2>
  return
}
}
"""


@needs_tool
def test_row_starts_are_not_claimed_aligned():
    """The issue's reproducer: x + r[:, None] * stride + c[None, :]. With an unknown stride
    the row starts are only element-aligned (4 bytes), so no vector access may be formed; a
    stride known to divide 16 gives 16-element runs starting 16-byte aligned."""
    claims = claims_of(ROWS.replace("STRIDE_HINT", ""))
    cont, div, const, _ = claims[max(claims)]
    assert div == [4, 4] and const == [1, 1], claims[max(claims)]
    claims = claims_of(ROWS.replace("STRIDE_HINT", " {tile.divisibility = 16 : i32}"))
    cont, div, const, _ = claims[max(claims)]
    assert cont[1] == 16 and div[1] == 16, claims[max(claims)]


# ---------------------------------------------------------------------------------------------
# Values carried around a loop: an scf.for iter_arg (or, once scf is lowered to cf, a block
# argument that branches pass values to) gets the claims of a fixed point over its initial
# value and what the body yields. Random loops, run for a few trips, every value checked on
# every trip, in both forms.

LOOP_FUNCS = 150
TRIPS = 5


def _observer_ops(g, x, name):
    """Op tuples (a zero, then `name` + 0) whose last value equals `name`, a value like x: its
    claims are checked where a block argument's or a loop result's are not printed."""
    z = g.fresh(x.kind, "i32")
    shape = SHAPES[x.kind]
    lit = "0" if x.kind == "s" else "dense<0>"
    zero = (z, f"{z.name} = arith.constant {lit} : {ty(x.kind, 'i32')}",
            lambda env, shape=shape: np.full(shape, 0, dtype=object) if shape else 0)
    o = g.fresh(x.kind, x.elem)
    if x.elem == "ptr":
        text = (f"{o.name} = tile.addptr {name}, {z.name} : "
                f"{ty(x.kind, '!tile.ptr<f32>')}, {ty(x.kind, 'i32')}")
    else:
        text = f"{o.name} = arith.addi {name}, {z.name} : {ty(x.kind, x.elem)}"
    return [zero, (o, text, lambda env, s=name: env[s])]


def _advance_op(g, rng, x, d):
    """The op tuple advancing x by d (a value of x's kind): `ptrs + d`, or x +, -, * d."""
    n = g.fresh(x.kind, x.elem)
    if x.elem == "ptr":
        return (n, f"{n.name} = tile.addptr {x.name}, {d.name} : "
                   f"{ty(x.kind, '!tile.ptr<f32>')}, {ty(x.kind, 'i32')}",
                lambda env, a=x.name, b=d.name: env[a] + np.asarray(env[b], dtype=object) * 4
                if np.ndim(env[b]) else env[a] + env[b] * 4)
    op = rng.choice(["addi", "addi", "subi", "muli"])
    fn = {"addi": lambda p, q: p + q, "subi": lambda p, q: p - q, "muli": lambda p, q: p * q}[op]
    return (n, f"{n.name} = arith.{op} {x.name}, {d.name} : {ty(x.kind, 'i32')}",
            lambda env, a=x.name, b=d.name, fn=fn: wrap(fn(env[a], env[b]), 32))


def _loop_func(rng: random.Random, idx: int):
    g = Gen(rng, idx)
    g.build(6)
    prefix = list(g.f.ops)
    cands = [v for v in g.vals if v.elem in ("i32", "ptr") and v.name != "%p"]
    inits = rng.sample(cands, min(len(cands), rng.randint(1, 3)))
    lb, step = rng.choice([0, 0, 3, 16, -8]), rng.choice([1, 1, 4, 16, 64, 3])
    iv = Val("%iv", "s", "i32")
    g.vals.append(iv)
    carried = []
    for k, init in enumerate(inits):
        x = Val(f"%x{k}", init.kind, init.elem)
        carried.append((x, init))
        g.vals.append(x)

    def observe(x, out_name):
        ops = _observer_ops(g, x, out_name)
        for op in ops:
            g.emit(*op)
        return ops[-1][0]

    def advances():
        return _advances(g, rng, carried)

    body_start = len(g.f.ops)
    # Half the loops advance their carried values first, so the analysis is first asked
    # about a value inside the cycle (`ptrs + BK`) rather than about the iter_arg.
    advance_first = rng.random() < 0.5
    if advance_first:
        nexts = advances()
    observers = [observe(iv, "%iv").name] + [observe(x, x.name).name for x, _ in carried]
    makers = [g.const, g.splat, g.expand, g.bcast, g.binop, g.binop, g.binop, g.cmp, g.select,
              g.addptr]
    while len(g.f.ops) < body_start + 10 + len(carried):
        rng.choice(makers)()
    if not advance_first:
        nexts = advances()
    body = g.f.ops[body_start:]
    post_start = len(g.f.ops)
    for k, (x, _) in enumerate(carried):
        observe(x, f"%lp#{k}")
    post = g.f.ops[post_start:]
    return dict(f=g.f, prefix=prefix, body=body, post=post, carried=carried, nexts=nexts,
                lb=lb, step=step, observers=observers)


def _advances(g, rng, carried):
    nexts = []
    for x, _ in carried:
        same = [v for v in g.vals if v.kind == x.kind and v.elem == x.elem and v is not x]
        d = g.pick([x.kind], ("i32",))
        if d is not None and rng.random() < 0.75:
            nexts.append(g.emit(*_advance_op(g, rng, x, d)))
        else:
            nexts.append(rng.choice(same) if same else x)
    return nexts


def _render_loops(loops):
    lines = HEADER.splitlines()
    for L in loops:
        f = L["f"]
        lines.append(_func_header(f))

        def put(ops):
            for v, text, _ in ops:
                lines.append("  " + text)
                v.line = len(lines)
        put(L["prefix"])
        ub = L["lb"] + L["step"] * TRIPS
        lines.append(f"  %lb = arith.constant {L['lb']} : i32")
        lines.append(f"  %ub = arith.constant {ub} : i32")
        lines.append(f"  %st = arith.constant {L['step']} : i32")
        tys = [ty(x.kind, "!tile.ptr<f32>" if x.elem == "ptr" else x.elem) for x, _ in L["carried"]]
        iters = ", ".join(f"{x.name} = {i.name}" for x, i in L["carried"])
        lines.append(f"  %lp:{len(tys)} = scf.for %iv = %lb to %ub step %st iter_args({iters}) "
                     f"-> ({', '.join(tys)}) : i32 {{")
        put(L["body"])
        lines.append(f"    scf.yield {', '.join(n.name for n in L['nexts'])} : {', '.join(tys)}")
        lines.append("  }")
        put(L["post"])
        lines.append("  return")
        lines.append("}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _fail_on(failures, text, name):
    """Fails with the first false claims, the module kept in $TMPDIR/<name>."""
    if failures:
        path = os.path.join(os.environ.get("TMPDIR", "/tmp"), name)
        with open(path, "w") as fh:
            fh.write(text)
        pytest.fail(f"{len(failures)} false claims (module in {path}):\n" +
                    "\n".join(f"{w} {n}: claim {c}: {e}" for w, n, c, e in failures[:10]))


def _claims_after(text, passes):
    proc = subprocess.run([KILN_OPT, "-", *passes, "--test-print-axis-info", "-o", "/dev/null",
                           "--mlir-print-op-on-diagnostic=false"],
                          input=text, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    ints = lambda s: [int(x) for x in s.split(",")] if s.strip() else []  # noqa: E731
    out = {}
    for line in proc.stderr.splitlines():
        m = re.match(r"^[^:]*:(\d+):\d+: remark: (.*)$", line)
        r = m and REMARK.match(m.group(2))
        if r:
            out[int(m.group(1))] = (ints(r.group(1)), ints(r.group(2)), ints(r.group(3)),
                                    None if r.group(4) is None else int(r.group(4)))
    return out


@needs_tool
@pytest.mark.parametrize("form", ["scf", "cf"])
def test_axis_info_is_sound_on_loop_carried_values(form):
    rng = random.Random(SEED + (1 if form == "cf" else 0))
    loops = [_loop_func(rng, i) for i in range(LOOP_FUNCS)]
    text = _render_loops(loops)
    claims = _claims_after(text, ["--convert-scf-to-cf"] if form == "cf" else [])
    failures, checked, strong_carried = [], 0, 0

    def check(v, env, where):
        nonlocal checked
        claim = claims.get(v.line)
        assert claim is not None, f"no claim printed for {v.name} at line {v.line}"
        errs = check_claim(env[v.name], v.elem, claim)
        checked += 1
        if errs:
            failures.append((where, v.name, claim, errs[0]))
        return claim

    for L in loops:
        f = L["f"]
        observers = set(L["observers"])
        for trial in range(4):
            env = {v.name: arg_value(rng, hint, v.elem == "ptr") for v, hint in f.args}
            for v, _, ev in L["prefix"]:
                env[v.name] = ev(env)
                check(v, env, f"@{f.name} prefix")
            for x, init in L["carried"]:
                env[x.name] = env[init.name]
            for t in range(TRIPS):
                env["%iv"] = L["lb"] + t * L["step"]
                for v, _, ev in L["body"]:
                    env[v.name] = ev(env)
                    claim = check(v, env, f"@{f.name} trip {t}")
                    if v.name in observers and trial == 0 and t == 0:
                        strong_carried += nontrivial(claim)
                new = [env[n.name] for n in L["nexts"]]
                for (x, _), value in zip(L["carried"], new):
                    env[x.name] = value
            for k, (x, _) in enumerate(L["carried"]):
                env[f"%lp#{k}"] = env[x.name]
            for v, _, ev in L["post"]:
                env[v.name] = ev(env)
                check(v, env, f"@{f.name} after the loop")
    _fail_on(failures, text, f"axis-info-loops-{form}.mlir")
    # Not vacuous: the carried values and the induction variable get claims stronger than
    # "nothing known" (a pointer advanced by an aligned step stays aligned and contiguous).
    assert checked >= LOOP_FUNCS * 4 * TRIPS * 5
    assert strong_carried >= LOOP_FUNCS, strong_carried


def _nested_func(rng: random.Random, idx: int):
    """A loop whose body holds another loop (each with carried values) and an scf.if whose
    results merge two values (a block with two predecessors once lowered to cf)."""
    g = Gen(rng, idx)
    g.build(5)
    items = [("op", o) for o in g.f.ops]
    counter = [0]

    def observe(x, name, into):
        for op in _observer_ops(g, x, name):
            into.append(("op", op))
            g.vals.append(op[0])

    def ops(into, n):
        before = len(g.f.ops)
        makers = [g.const, g.splat, g.binop, g.binop, g.cmp, g.select, g.addptr, g.expand, g.bcast]
        while len(g.f.ops) < before + n:
            rng.choice(makers)()
        into.extend(("op", o) for o in g.f.ops[before:])

    def advance(x, into):
        op = _advance_op(g, rng, x, g.pick([x.kind], ("i32",)))
        into.append(("op", op))
        g.vals.append(op[0])
        return op[0]

    def loop(into, depth):
        counter[0] += 1
        tag = counter[0]
        cands = [v for v in g.vals if v.elem in ("i32", "ptr") and v.name != "%p"]
        inits = rng.sample(cands, min(len(cands), rng.randint(1, 2)))
        lb, step = rng.choice([0, 3, 16]), rng.choice([1, 4, 16, 3])
        outer = len(g.vals)  # what the body defines is out of scope after the loop
        iv = Val(f"%iv{tag}", "s", "i32")
        g.vals.append(iv)
        carried = [(Val(f"%x{tag}_{k}", i.kind, i.elem), i) for k, i in enumerate(inits)]
        g.vals.extend(x for x, _ in carried)
        body = []
        for x, _ in carried:
            observe(x, x.name, body)
        ops(body, 4)
        if depth == 0:
            loop(body, 1)
            # scf.if merging the carried value or its advance.
            for x, _ in carried[:1]:
                c = g.pick(["s"], ("i1",))
                if c is None:
                    continue
                n = advance(x, body)
                r = Val(f"%if{tag}", x.kind, x.elem)
                body.append(("if", (r, c, n, x)))
                g.vals.append(r)
                observe(r, r.name, body)
        nexts = [advance(x, body) if rng.random() < 0.8 else x for x, _ in carried]
        del g.vals[outer:]
        res = [Val(f"%lp{tag}#{k}", x.kind, x.elem) for k, (x, _) in enumerate(carried)]
        into.append(("loop", dict(tag=tag, iv=iv, lb=lb, step=step, carried=carried,
                                  body=body, nexts=nexts, res=res)))
        g.vals.extend(res)
        for r in res:
            observe(r, r.name, into)

    loop(items, 0)
    return g.f, items


def _vty(v):
    return ty(v.kind, "!tile.ptr<f32>" if v.elem == "ptr" else v.elem)


def _render_nested(funcs):
    lines = HEADER.splitlines()

    def put(items, ind):
        for kind, it in items:
            if kind == "op":
                v, text, _ = it
                lines.append(ind + text)
                v.line = len(lines)
            elif kind == "if":
                r, c, a, b = it
                lines.append(f"{ind}{r.name} = scf.if {c.name} -> ({_vty(r)}) {{")
                lines.append(f"{ind}  scf.yield {a.name} : {_vty(r)}")
                lines.append(f"{ind}}} else {{")
                lines.append(f"{ind}  scf.yield {b.name} : {_vty(r)}")
                lines.append(f"{ind}}}")
            else:
                L = it
                t = L["tag"]
                ub = L["lb"] + L["step"] * TRIPS
                lines.append(f"{ind}%lb{t} = arith.constant {L['lb']} : i32")
                lines.append(f"{ind}%ub{t} = arith.constant {ub} : i32")
                lines.append(f"{ind}%st{t} = arith.constant {L['step']} : i32")
                tys = [_vty(x) for x, _ in L["carried"]]
                iters = ", ".join(f"{x.name} = {i.name}" for x, i in L["carried"])
                lines.append(f"{ind}%lp{t}:{len(tys)} = scf.for {L['iv'].name} = %lb{t} to %ub{t} "
                             f"step %st{t} iter_args({iters}) -> ({', '.join(tys)}) : i32 {{")
                put(L["body"], ind + "  ")
                lines.append(f"{ind}  scf.yield {', '.join(n.name for n in L['nexts'])} : "
                             f"{', '.join(tys)}")
                lines.append(f"{ind}}}")

    for f, items in funcs:
        lines.append(_func_header(f))
        put(items, "  ")
        lines.append("  return")
        lines.append("}")
    lines.append("}")
    return "\n".join(lines) + "\n"


@needs_tool
@pytest.mark.parametrize("form", ["scf", "cf"])
def test_axis_info_is_sound_on_nested_loops_and_merges(form):
    rng = random.Random(SEED + (3 if form == "cf" else 2))
    funcs = [_nested_func(rng, i) for i in range(60)]
    text = _render_nested(funcs)
    claims = _claims_after(text, ["--convert-scf-to-cf"] if form == "cf" else [])
    failures, checked = [], [0]

    def run(items, env, fname):
        for kind, it in items:
            if kind == "op":
                v, _, ev = it
                env[v.name] = ev(env)
                claim = claims.get(v.line)
                assert claim is not None, f"no claim printed for {v.name} at line {v.line}"
                errs = check_claim(env[v.name], v.elem, claim)
                checked[0] += 1
                if errs:
                    failures.append((fname, v.name, claim, errs[0]))
            elif kind == "if":
                r, c, a, b = it
                env[r.name] = env[a.name] if env[c.name] == 1 else env[b.name]
            else:
                L = it
                for x, i in L["carried"]:
                    env[x.name] = env[i.name]
                for t in range(TRIPS):
                    env[L["iv"].name] = L["lb"] + t * L["step"]
                    run(L["body"], env, fname)
                    new = [env[n.name] for n in L["nexts"]]
                    for (x, _), value in zip(L["carried"], new):
                        env[x.name] = value
                for r, (x, _) in zip(L["res"], L["carried"]):
                    env[r.name] = env[x.name]

    for f, items in funcs:
        for _ in range(3):
            env = {v.name: arg_value(rng, hint, v.elem == "ptr") for v, hint in f.args}
            run(items, env, f.name)
    _fail_on([(f"@{w}", n, c, e) for w, n, c, e in failures], text,
             f"axis-info-nested-{form}.mlir")
    assert checked[0] >= 60 * 3 * TRIPS * TRIPS
