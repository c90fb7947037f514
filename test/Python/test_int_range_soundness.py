"""Soundness of the integer ranges behind buffer-resource copies, by brute force.

Random i32 index expressions of the kinds kernels write (aranges, program ids, grid sizes,
unknown arguments, constants, a loop with constant bounds; add/sub/mul, signed and unsigned
division and remainder, min/max, bitwise ops, shifts, compare-and-select; splat, expand_dims,
broadcast, convert_layout, reshape) are printed as tile IR, one op a line.

* ``kiln-opt --test-print-int-ranges`` reports the range kiln::IntRanges claims for every
  value; each claim is checked against the values numpy computes for many concrete inputs
  (arguments, program ids up to the grid limit, every iteration of the loop), wrapping at 32
  bits as the IR does.
* Half the functions promise something about ``%arg`` (``tile.assume`` of a comparison with a
  constant, the form Kiln's ranges read); their concrete inputs keep the promise.
* Each function also copies through ``splat(base) + offsets`` (its last value) as a masked,
  pipelined direct-to-LDS copy on gfx942; ``--tile-amd-pipeline-buffer-copies`` must convert
  it only where every concrete offset is within the buffer resource ([0, (2^31 - 2) / 4 - 1]
  f32 elements), and must convert the ones whose claimed range is inside that interval.

The checker shares no arithmetic with the analysis: it only evaluates the ops' definitions.
"""

from __future__ import annotations

import os
import random
import re
import subprocess

import numpy as np
import pytest

from remarks import KILN_OPT, remarks_by_line

NUM_FUNCS = 300
OPS_PER_FUNC = 10
ASSIGNMENTS = 8
MAX_F32_OFFSET = (2**31 - 2) // 4 - 1
SEED = int(os.environ.get("KILN_SOUNDNESS_SEED", "20261123"))

HEADER = """\
#l1 = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]}>
#l2 = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
#l2t = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 8], warpsPerCTA = [1, 1], order = [0, 1]}>
#row = #tile.slice<{dim = 1, parent = #l2}>
#col = #tile.slice<{dim = 0, parent = #l2}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 1 : i32, tile.target = "hip:gfx942", tile.threads_per_warp = 64 : i32} {
"""

TYPES = {"s": "i32", "t": "tensor<64xi32, #l1>", "row": "tensor<8xi32, #row>",
         "col": "tensor<8xi32, #col>", "rowx": "tensor<8x1xi32, #l2>",
         "colx": "tensor<1x8xi32, #l2>", "2d": "tensor<8x8xi32, #l2>"}
SHAPES = {"s": (), "t": (64,), "row": (8,), "col": (8,), "rowx": (8, 1), "colx": (1, 8),
          "2d": (8, 8)}
INT_MIN, INT_MAX = -2**31, 2**31 - 1
CONSTS = [0, 1, 2, 3, 4, 7, 8, 16, 31, 64, 100, 255, 256, 1024, 4096, 65536, 2**20,
          MAX_F32_OFFSET - 63, MAX_F32_OFFSET - 62, 2**30, INT_MAX, -1, -2, -8, -256, INT_MIN]


ASSUME_PREDS = {
    "sge": lambda a, c: a >= c, "sgt": lambda a, c: a > c, "sle": lambda a, c: a <= c,
    "slt": lambda a, c: a < c, "eq": lambda a, c: a == c,
    "uge": lambda a, c: a % 2**32 >= c % 2**32, "ugt": lambda a, c: a % 2**32 > c % 2**32,
    "ule": lambda a, c: a % 2**32 <= c % 2**32, "ult": lambda a, c: a % 2**32 < c % 2**32,
}
ASSUME_ARGS = [0, 1, -1, 5, 1000, 2**20, 2**30, 2**31 - 1, -2**31, -12345]


def wrap(x):
    x = np.asarray(x, dtype=np.int64)
    return ((x + 2**31) & 0xFFFFFFFF) - 2**31


def u32(x):
    return np.asarray(x, dtype=np.int64) & 0xFFFFFFFF


def tdiv(a, b):  # C division: toward zero
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) ^ (b < 0), -q, q)


BINARY = {
    "addi": lambda a, b: wrap(a + b),
    "subi": lambda a, b: wrap(a - b),
    "muli": lambda a, b: wrap(a * b),
    "minsi": np.minimum, "maxsi": np.maximum,
    "minui": lambda a, b: np.where(u32(a) <= u32(b), a, b),
    "maxui": lambda a, b: np.where(u32(a) >= u32(b), a, b),
    "andi": lambda a, b: wrap(a & b), "ori": lambda a, b: wrap(a | b),
    "xori": lambda a, b: wrap(a ^ b),
}
# By a constant only (no division by zero, no INT_MIN / -1, shifts below 32).
BY_CONST = {
    "divsi": (lambda a, c: wrap(tdiv(a, c)), [1, 2, 3, 8, 16, 256, 1000, -4]),
    "remsi": (lambda a, c: wrap(a - c * tdiv(a, c)), [2, 3, 8, 16, 256, 1000, -7]),
    "divui": (lambda a, c: wrap(u32(a) // c), [1, 2, 8, 256, 4096]),
    "remui": (lambda a, c: wrap(u32(a) % c), [2, 3, 16, 256, 1 << 20]),
    "shrsi": (lambda a, c: wrap(a >> c), [1, 4, 8, 31]),
    "shrui": (lambda a, c: wrap(u32(a) >> c), [1, 4, 8, 20, 31]),
    "shli": (lambda a, c: wrap(a << c), [1, 2, 4, 8]),
}
PREDICATES = {"slt": np.less, "sge": np.greater_equal,
              "ult": lambda a, b: u32(a) < u32(b), "uge": lambda a, b: u32(a) >= u32(b)}


class Gen:
    def __init__(self, rng, idx):
        self.rng, self.idx, self.n = rng, idx, 0
        self.lines = []     # (text, value name or None, kind)
        self.evals = {}     # name -> f(env) -> array
        self.kinds = {}     # name -> kind
        self.loop = rng.random() < 0.4
        # A promise about %arg (tile.assume of a comparison with a constant), kept when some
        # argument value satisfies it: the checker then tries only those values.
        self.assume = None
        if rng.random() < 0.5:
            pred = rng.choice(list(ASSUME_PREDS))
            c = rng.choice(CONSTS)
            ok = [a for a in ASSUME_ARGS + [c - 1, c, c + 1]
                  if INT_MIN <= a <= INT_MAX and ASSUME_PREDS[pred](a, c)]
            if ok:
                self.assume = (pred, c, sorted(set(ok)))
        if self.loop:
            lo = rng.choice([0, 0, 1, -4, 100])
            self.iv = (lo, lo + rng.choice([1, 4, 16, 64]), rng.choice([1, 1, 2, 3]))

    def fresh(self):
        self.n += 1
        return f"%v{self.n}"

    def emit(self, text, kind, ev):
        name = self.fresh()

        def cached(env):  # each value once per input assignment
            if name not in env:
                env[name] = ev(env)
            return env[name]
        self.lines.append((f"{name} = {text}", name))
        self.evals[name], self.kinds[name] = cached, kind
        return name

    def const(self, kind, c):
        ty = TYPES[kind]
        lit = f"dense<{c}> : {ty}" if kind != "s" else f"{c} : i32"
        shape = SHAPES[kind]
        return self.emit(f"arith.constant {lit}", kind, lambda env: np.full(shape, c, np.int64))

    def leaf(self, kind):
        r = self.rng
        choice = r.choice(["const", "const", "arg", "pid", "nprog", "arange", "arange", "iv"])
        if kind != "s" and kind in ("row", "col", "t") and choice in ("arange",):
            n = SHAPES[kind][0]
            start = r.choice([0, 0, 0, -1, -n, 16, 1000, MAX_F32_OFFSET - 63, INT_MAX - n])
            return self.emit(f"tile.arange {start}, {start + n} : {TYPES[kind]}", kind,
                             lambda env, s=start, n=n: np.arange(s, s + n, dtype=np.int64))
        if kind != "s":
            return self.splat(self.leaf("s"), kind)
        if choice == "const" or choice == "arange":
            return self.const("s", r.choice(CONSTS))
        if choice == "arg":
            return "%arg"
        if choice == "pid":
            return self.emit(f"tile.program_id {r.choice([0, 1, 2])}", "s",
                             lambda env: np.int64(env["pid"]))
        if choice == "nprog":
            return self.emit(f"tile.num_programs {r.choice([0, 1, 2])}", "s",
                             lambda env: np.int64(env["nprog"]))
        return "%iv" if self.loop else self.const("s", r.choice(CONSTS))

    def splat(self, s, kind):
        if kind in ("rowx", "colx", "2d"):  # through expand_dims / broadcast of 1-D values
            if kind == "2d":
                base = self.splat(s, self.rng.choice(["rowx", "colx"]))
                return self.broadcast(base)
            part = "row" if kind == "rowx" else "col"
            src = self.leaf(part) if self.rng.random() < 0.7 else self.splat(s, part)
            return self.expand(src)
        shape = SHAPES[kind]
        ev = self.evals[s] if s in self.evals else (lambda env, s=s: np.int64(env[s]))
        return self.emit(f"tile.splat {s} : {TYPES[kind]}", kind,
                         lambda env: np.full(shape, ev(env), np.int64))

    def expand(self, v):
        k = self.kinds[v]
        to, axis = ("rowx", 1) if k == "row" else ("colx", 0)
        ev = self.evals[v]
        return self.emit(f"tile.expand_dims {v} {{axis = {axis} : i32}} : {TYPES[k]} -> "
                         f"{TYPES[to]}", to, lambda env: np.expand_dims(ev(env), axis))

    def broadcast(self, v):
        ev = self.evals[v]
        return self.emit(f"tile.broadcast {v} : {TYPES[self.kinds[v]]} -> {TYPES['2d']}", "2d",
                         lambda env: np.broadcast_to(ev(env), (8, 8)).copy())

    def get(self, name):
        return self.evals[name] if name in self.evals else (lambda env: np.int64(env[name]))

    def value(self, kind):
        pool = [v for v, k in self.kinds.items() if k == kind]
        if pool and self.rng.random() < 0.6:
            return self.rng.choice(pool)
        return self.leaf(kind)

    def step(self, kind):
        r = self.rng
        op = r.choice(["bin"] * 5 + ["const"] * 3 + ["select", "shape"])
        ty = TYPES[kind]
        if op == "bin":
            name = r.choice(list(BINARY))
            a, b = self.value(kind), self.value(kind)
            fa, fb, f = self.get(a), self.get(b), BINARY[name]
            return self.emit(f"arith.{name} {a}, {b} : {ty}", kind,
                             lambda env: f(fa(env), fb(env)))
        if op == "const":
            name = r.choice(list(BY_CONST))
            f, cs = BY_CONST[name]
            c = r.choice(cs)
            a = self.value(kind)
            k = self.const(kind, c)
            fa = self.get(a)
            return self.emit(f"arith.{name} {a}, {k} : {ty}", kind, lambda env: f(fa(env), c))
        if op == "select":
            pred = r.choice(list(PREDICATES))
            a, b = self.value(kind), self.value(kind)
            x, y = self.value(kind), self.value(kind)
            fa, fb, fx, fy, p = self.get(a), self.get(b), self.get(x), self.get(y), \
                PREDICATES[pred]
            types = f"{ty.replace('xi32', 'xi1')}, {ty}" if kind != "s" else ty
            cname = self.fresh()
            self.lines.append((f"{cname} = arith.cmpi {pred}, {a}, {b} : {ty}", None))
            return self.emit(f"arith.select {cname}, {x}, {y} : {types}", kind,
                             lambda env: np.where(p(fa(env), fb(env)), fx(env), fy(env)))
        # A shape op: 2-D through a convert_layout round trip, or 2-D to 1-D.
        if kind == "2d":
            v = self.value("2d")
            fv = self.get(v)
            t = self.fresh()
            self.lines.append((f"{t} = tile.convert_layout {v} : {TYPES['2d']} -> "
                               f"tensor<8x8xi32, #l2t>", None))
            self.evals[t] = fv  # not checked (its own layout), but defined
            return self.emit(f"tile.convert_layout {t} : tensor<8x8xi32, #l2t> -> "
                             f"{TYPES['2d']}", "2d", fv)
        if kind == "t":
            v = self.value("2d") if r.random() < 0.5 else self.step("2d")
            fv = self.get(v)
            return self.emit(f"tile.reshape {v} : {TYPES['2d']} -> {TYPES['t']}", "t",
                             lambda env: fv(env).reshape(64))
        return self.value(kind)

    def build(self):
        kind = self.rng.choice(["t", "t", "2d", "s"])
        last = None
        for _ in range(OPS_PER_FUNC):
            last = self.step(self.rng.choice([kind, kind, "s"]))
        last = self.step(kind) if self.kinds.get(last) != kind else last
        # The copy's offsets: a 64-element tensor in #l1.
        if kind == "s":
            last = self.splat(last, "t")
        elif kind == "2d":
            fv = self.get(last)
            last = self.emit(f"tile.reshape {last} : {TYPES['2d']} -> {TYPES['t']}", "t",
                             lambda env: fv(env).reshape(64))
        self.offsets = last


def render(gens):
    out, lines_of = [HEADER], {}
    line = HEADER.count("\n")
    for g in gens:
        out.append(f"  func.func public @f{g.idx}(%base: !tile.ptr<f32>, %arg: i32) {{\n")
        line += 1
        if g.assume:
            pred, c, _ = g.assume
            out.append(f"    %acst = arith.constant {c} : i32\n"
                       f"    %acmp = arith.cmpi {pred}, %arg, %acst : i32\n"
                       f"    tile.assume %acmp : i1\n")
            line += 3
        indent = "    "
        if g.loop:
            lo, hi, st = g.iv
            out.append(f"    %lo = arith.constant {lo} : i32\n    %hi = arith.constant {hi} : i32\n"
                       f"    %st = arith.constant {st} : i32\n"
                       f"    scf.for %iv = %lo to %hi step %st : i32 {{\n")
            line += 4
            indent = "      "
        for text, name in g.lines:
            line += 1
            if name is not None:
                lines_of[(g.idx, name)] = line
            out.append(f"{indent}{text}\n")
        out.append(
            f"{indent}%bs = tile.splat %base : tensor<64x!tile.ptr<f32>, #l1>\n"
            f"{indent}%p = tile.addptr %bs, {g.offsets} : tensor<64x!tile.ptr<f32>, #l1>, "
            f"{TYPES['t']}\n"
            f"{indent}%m = arith.constant dense<true> : tensor<64xi1, #l1>\n"
            f"{indent}%buf = tile.local_alloc : () -> !tile.memdesc<64xf32, #sh, mutable>\n"
            f"{indent}%tok = tile.async_copy_global_to_local %p, %buf, %m "
            f"{{tile.pipeline_part = \"kernel\"}} : tensor<64x!tile.ptr<f32>, #l1> -> "
            f"!tile.memdesc<64xf32, #sh, mutable>\n")
        if g.loop:
            out.append("    }\n")
        out.append("    return\n  }\n")
        line += 5 + g.loop + 2
    out.append("}\n")
    return "".join(out), lines_of


def assignments(rng, g):
    pids = [0, 1, 2, 7, 1000, 2**16, 2**31 - 2]
    nprogs = [1, 2, 8, 65535, 2**31 - 1]
    args = [0, 1, -1, 5, 1000, 2**20, 2**30, INT_MAX, INT_MIN, -12345]
    ivs = list(range(*g.iv)) if g.loop else [0]
    if len(ivs) > 8:  # the first and last iterations, and a few between
        ivs = ivs[:3] + rng.sample(ivs[3:-3], 2) + ivs[-3:]
    out = []
    for i in range(ASSIGNMENTS):
        out.append({"pid": rng.choice(pids), "nprog": rng.choice(nprogs),
                    "%arg": rng.choice(g.assume[2] if g.assume else args)})
    # Every iteration of the loop, with the extreme inputs too.
    return [dict(a, **{"%iv": iv}) for a in out for iv in ivs]


_RANGE = re.compile(r"range = \[(-?\d+), (-?\d+)\]")


@pytest.mark.skipif(not os.path.exists(KILN_OPT), reason="kiln-opt is not built")
def test_ranges_and_conversions_hold_on_concrete_values():
    rng = random.Random(SEED)
    gens = []
    for i in range(NUM_FUNCS):
        g = Gen(rng, i)
        g.build()
        gens.append(g)
    text, lines_of = render(gens)
    claims = remarks_by_line(text, "test-print-int-ranges")
    proc = subprocess.run([KILN_OPT, "-", "--tile-amd-pipeline-buffer-copies",
                           "--mlir-print-op-on-diagnostic=false"],
                          input=text, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    converted = {int(m.group(1)) for m in re.finditer(
        r"func\.func public @f(\d+)\((?:(?!func\.func).)*?tile_amd\.buffer_load_to_local",
        proc.stdout, re.S)}
    checked = bounded = n_converted = 0
    for g in gens:
        envs = assignments(rng, g)
        for name, ev in g.evals.items():
            line = lines_of.get((g.idx, name))
            claim = claims.get(line) if line else None
            if claim is None or claim == "range unknown":
                continue
            lo, hi = map(int, _RANGE.fullmatch(claim).groups())
            for env in envs:
                v = ev(env)
                assert lo <= np.min(v) and np.max(v) <= hi, (
                    f"f{g.idx} {name}: claimed {claim}, got values in "
                    f"[{np.min(v)}, {np.max(v)}] for {env}\n" + text.splitlines()[line - 1])
                checked += 1
            bounded += lo > INT_MIN or hi < INT_MAX
        offs = g.offsets
        lo_hi = _RANGE.fullmatch(claims.get(lines_of[(g.idx, offs)], "") or "x")
        proven = lo_hi and 0 <= int(lo_hi[1]) and int(lo_hi[2]) <= MAX_F32_OFFSET
        if g.idx in converted:
            n_converted += 1
            for env in envs:
                v = g.evals[offs](env)
                assert 0 <= np.min(v) and np.max(v) <= MAX_F32_OFFSET, (
                    f"f{g.idx} converted, but offsets reach [{np.min(v)}, {np.max(v)}] for "
                    f"{env}")
        else:
            assert not proven, f"f{g.idx}: offsets proven {lo_hi[0]} but not converted"
    # The test must exercise both outcomes and many bounded claims.
    assert checked > 1000 and bounded > 200
    assert 20 < n_converted < NUM_FUNCS - 20, n_converted
