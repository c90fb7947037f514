"""tile-check-async-safety judged by an independent brute-force oracle.

`kiln-opt --test-async-race-oracle` (test/lib/Analysis/TestAsyncRaceOracle.cpp) shares nothing
with the check's analysis: it runs each function on every combination of branches, trip
counts 0-3 and partition orders, with ring indices evaluated as numbers, and remarks every
op at which some execution reads or writes bytes still in flight. Every race the check
reports must be witnessed there (no false alarm), on the check's lit corpus and on a few
thousand random cp.async ring kernels; on straight-line kernels (everything decidable) the
two must agree exactly.
"""

import os
import random
import re
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KILN_OPT = os.path.join(ROOT, "build", "bin", "kiln-opt")
CORPUS = [os.path.join(ROOT, "test", "Dialect", "Tile", "Transforms",
                       "tile-check-async-safety.mlir"),
          os.path.join(ROOT, "test", "Dialect", "Tile", "Transforms",
                       "tile-check-async-safety-chosen.mlir"),
          os.path.join(ROOT, "third_party", "nvidia", "test", "Transforms",
                       "tile-check-async-safety.mlir")]

pytestmark = pytest.mark.skipif(not os.path.exists(KILN_OPT), reason="kiln-opt is not built")
# KILN_ORACLE_SEED_SCALE=N runs N times as many seeds of each random generator (a deeper check
# before changing the walk or the ring slots; 10 takes about a minute on 2 cores).
SCALE = max(1, int(os.environ.get("KILN_ORACLE_SEED_SCALE", "1")))

# The check's race messages (its barrier-lifecycle and byte-count errors are another
# matter: the oracle does not model phases).
_RACE = re.compile(r"may still be (writing|reading)|reads shared memory asynchronously|"
                   r"the kernel can end while")
_DIAG = re.compile(r"^(?:[^:\n]*):(\d+):(\d+): (error|remark|warning): (.*)$", re.M)


def _run(text, flags):
    proc = subprocess.run([KILN_OPT, "-", "--split-input-file", "-o", "/dev/null",
                           "--mlir-print-op-on-diagnostic=false", *flags],
                          input=text, capture_output=True, text=True, timeout=600)
    return proc.stderr


def _split_offsets(text):
    """The first line of each --split-input-file chunk, to turn chunk-relative lines back
    into file lines."""
    starts, line = [1], 1
    for l in text.splitlines():
        line += 1
        if l.strip() == "// -----":
            starts.append(line)
    return starts


def claims(text):
    """(check's race errors, oracle's witnesses) as sets of (line, col)."""
    check = _run(text, ["--tile-insert-wait-counts", "--tile-check-async-safety"])
    oracle = _run(text, ["--tile-insert-wait-counts", "--test-async-race-oracle"])
    # (kiln-opt checks `expected-error` comments of a lit file by itself: not claims.)
    errors = {(int(l), int(c)) for l, c, sev, msg in _DIAG.findall(check)
              if sev == "error" and _RACE.search(msg) and not msg.startswith("expected ")}
    seen = {(int(l), int(c)) for l, c, sev, msg in _DIAG.findall(oracle)
            if sev == "remark" and msg.startswith("oracle: race witnessed")}
    assert "oracle:" in oracle and "executions" in oracle, oracle[-2000:]
    return errors, seen


@pytest.mark.parametrize("path", CORPUS, ids=os.path.basename)
def test_every_race_the_check_reports_is_witnessed_on_its_lit_corpus(path):
    text = open(path).read()
    errors, seen = claims(text)
    assert errors, "the corpus has race errors"
    assert errors <= seen, f"reported but never witnessed: {sorted(errors - seen)}"


# --- random ring kernels -----------------------------------------------------------------

HEADER = """#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
!p = tensor<128x!tile.ptr<f32>, #l>
!ring = !tile.memdesc<NBUFx128xf32, #sh, mutable>
!slot = !tile.memdesc<128xf32, #sh, mutable, NBUFx128>
!t = tensor<128xf32, #l>
"""


class Gen:
    """One random function: a prologue of copies into constant slots, a loop that waits,
    reads slot (k + r) % NBUF and refills slot (k + q) % NBUF, an epilogue; commits, waits
    and branches dropped or moved at random so that some kernels race and some do not."""

    def __init__(self, rng, straight):
        self.rng, self.straight, self.lines, self.n = rng, straight, [], 0

    def v(self):
        self.n += 1
        return f"%v{self.n}"

    def emit(self, s, indent=2):
        self.lines.append("  " * indent + s)

    def const(self, c, indent=2):
        name = self.v()
        self.emit(f"{name} = arith.constant {c} : i32", indent)
        return name

    def slot(self, idx, indent):
        name = self.v()
        self.emit(f"{name} = tile.memdesc_index %r[{idx}] : !ring -> !slot", indent)
        return name

    def copy(self, idx, indent):
        s = self.slot(idx, indent)
        self.emit(f"{self.v()} = tile.async_copy_global_to_local %p, {s} : !p -> !slot", indent)

    def commit(self, indent):
        if self.rng.random() < 0.9:
            self.emit(f"{self.v()} = tile.async_commit_group", indent)

    def wait(self, indent, most):
        n = self.rng.randint(0, most)
        if self.rng.random() < 0.15 and not self.straight:
            self.emit("scf.if %flag {", indent)
            self.emit(f"{self.v()} = tile.async_wait {{num = {n} : i32}}", indent + 1)
            self.emit("}", indent)
        elif self.rng.random() < 0.9:
            self.emit(f"{self.v()} = tile.async_wait {{num = {n} : i32}}", indent)

    def read(self, idx, indent):
        s = self.slot(idx, indent)
        if self.rng.random() < 0.8:
            self.emit(f"{self.v()} = tile.local_load {s} : !slot -> !t", indent)
        else:
            self.emit(f"tile.local_store %x, {s} : !t -> !slot", indent)

    def function(self, name):
        rng, nbuf = self.rng, self.rng.randint(1, 4)
        self.emit(f"func.func @{name}(%p: !p, %x: !t, %n: i32, %flag: i1) {{", 1)
        consts = {c: self.const(c) for c in range(0, 5)}
        self.emit(f"%r = tile.local_alloc : () -> !ring")
        for s in range(rng.randint(0, nbuf)):
            self.copy(consts[s % nbuf], 2)
            self.commit(2)
        if self.straight:
            for _ in range(rng.randint(1, 4)):
                self.wait(2, 3)
                self.read(consts[rng.randrange(nbuf)], 2)
                if rng.random() < 0.7:
                    self.copy(consts[rng.randrange(nbuf)], 2)
                    self.commit(2)
        else:
            trips = rng.choice(["%n", consts[2], consts[3]])
            self.emit(f"scf.for %k = {consts[0]} to {trips} step {consts[1]} : i32 {{")
            nb = self.const(nbuf, 3)
            r, q = rng.randrange(nbuf), rng.randrange(nbuf)
            self.wait(3, 3)
            cur = self.v()
            self.emit(f"{cur}a = arith.addi %k, {consts[r]} : i32", 3)
            self.emit(f"{cur} = arith.remsi {cur}a, {nb} : i32", 3)
            self.read(cur, 3)
            nxt = self.v()
            self.emit(f"{nxt}a = arith.addi %k, {consts[q]} : i32", 3)
            self.emit(f"{nxt} = arith.remsi {nxt}a, {nb} : i32", 3)
            self.copy(nxt, 3)
            self.commit(3)
            self.emit("}")
            if rng.random() < 0.5:
                self.wait(2, 1)
                self.read(consts[rng.randrange(nbuf)], 2)
        self.emit("return")
        self.emit("}", 1)
        return nbuf


class CounterGen(Gen):
    """A loop over a ring indexed by a counter it carries (from a constant, advanced by d =
    1, 2, 3 or NBUF a trip, as one add or a chain of +1, once or twice in the body, as a loop
    unrolled by hand does), reading and refilling slots (s + r) % NBUF, then an epilogue on
    the counter the loop returns."""

    def function(self, name):
        rng, nbuf = self.rng, self.rng.randint(2, 4)
        self.emit(f"func.func @{name}(%p: !p, %x: !t, %n: i32, %flag: i1) {{", 1)
        consts = {c: self.const(c) for c in range(0, 9)}
        self.emit("%r = tile.local_alloc : () -> !ring")
        c0 = rng.randrange(nbuf)
        for s in range(rng.randint(0, nbuf)):
            self.copy(consts[(c0 + s) % nbuf], 2)
            self.commit(2)
        nb = self.const(nbuf, 2)
        trips = rng.choice(["%n", consts[2], consts[3], consts[5]])
        self.emit(f"%res = scf.for %k = {consts[0]} to {trips} step {consts[1]} "
                  f"iter_args(%s0 = {consts[c0]}) -> (i32) : i32 {{")
        cur = "%s0"
        for _half in range(rng.choice([1, 2])):
            for what in rng.sample(["wait", "read", "copy"], 3):
                if what == "wait":
                    self.wait(3, 3)
                    continue
                idx = self.v()
                self.emit(f"{idx}a = arith.addi {cur}, {consts[rng.randrange(nbuf)]} : i32", 3)
                self.emit(f"{idx} = arith.remsi {idx}a, {nb} : i32", 3)
                if what == "read":
                    self.read(idx, 3)
                else:
                    self.copy(idx, 3)
                    self.commit(3)
            d = rng.choice([1, 1, 2, 3, nbuf])
            if rng.random() < 0.5:
                for _ in range(d):
                    nxt = self.v()
                    self.emit(f"{nxt} = arith.addi {cur}, {consts[1]} : i32", 3)
                    cur = nxt
            else:
                nxt = self.v()
                self.emit(f"{nxt} = arith.addi {cur}, {consts[d]} : i32", 3)
                cur = nxt
        self.emit(f"scf.yield {cur} : i32", 3)
        self.emit("}")
        for _ in range(rng.randint(0, 2)):
            self.wait(2, 2)
            idx = self.v()
            self.emit(f"{idx}a = arith.addi %res, {consts[rng.randrange(nbuf)]} : i32")
            self.emit(f"{idx} = arith.remsi {idx}a, {nb} : i32")
            if rng.random() < 0.5:
                self.read(idx, 2)
            else:
                self.copy(idx, 2)
                self.commit(2)
        self.emit("return")
        self.emit("}", 1)
        return nbuf


def random_module(seed, straight, count=20, gen=None):
    rng = random.Random(seed)
    chunks = []
    for i in range(count):
        g = (gen or Gen)(rng, straight)
        nbuf = g.function(f"f{i}")
        chunks.append(HEADER.replace("NBUF", str(nbuf)) +
                      "module attributes {tile.num_warps = 1 : i32, "
                      "tile.threads_per_warp = 32 : i32} {\n" + "\n".join(g.lines) + "\n}\n")
    return "\n// -----\n".join(chunks)


class PingPongGen(Gen):
    """One random function over buffers chosen at run time: two or three allocations, one
    picked by an if, and a loop that permutes them (a swap or a rotation) with copies, commits,
    waits and accesses on its arguments in random order, then an access to a buffer the loop
    leaves. The check follows them by naming each (SpecializeChosenBuffers.cpp); the oracle by
    running each choice."""

    def access(self, buf, indent):
        r = self.rng.random()
        if r < 0.4:
            self.emit(f"{self.v()} = tile.async_copy_global_to_local %p, {buf} : !p -> !m",
                      indent)
            self.commit(indent)
        elif r < 0.75:
            self.emit(f"{self.v()} = tile.local_load {buf} : !m -> !t", indent)
        else:
            self.emit(f"tile.local_store %x, {buf} : !t -> !m", indent)

    def function(self, name):
        rng = self.rng
        nb = rng.choice([2, 3])
        self.emit(f"func.func @{name}(%p: !p, %x: !t, %n: i32, %flag: i1) {{", 1)
        consts = {c: self.const(c) for c in range(0, 5)}
        bufs = [f"%a{i}" for i in range(nb)]
        for b in bufs:
            self.emit(f"{b} = tile.local_alloc : () -> !m")
        for _ in range(rng.randint(0, 2)):
            self.access(rng.choice(bufs), 2)
        if rng.random() < 0.5:
            self.emit("%s = scf.if %flag -> !m {")
            self.emit(f"scf.yield {bufs[0]} : !m", 3)
            self.emit("} else {")
            self.emit(f"scf.yield {bufs[1]} : !m", 3)
            self.emit("}")
            for _ in range(rng.randint(1, 2)):
                self.wait(2, 2)
                self.access("%s", 2)
        trips = rng.choice(["%n", consts[2], consts[3]])
        order = list(range(nb))
        rng.shuffle(order)
        args = [f"%b{i}" for i in range(nb)]
        inits = ", ".join(f"{a} = {bufs[o]}" for a, o in zip(args, order))
        types = ", ".join(["!m"] * nb)
        self.emit(f"%res:{nb} = scf.for %k = {consts[0]} to {trips} step {consts[1]} "
                  f"iter_args({inits}) -> ({types}) : i32 {{")
        for _ in range(rng.randint(2, 5)):
            if rng.random() < 0.4:
                self.wait(3, 3)
            else:
                self.access(rng.choice(args), 3)
        perm = args[1:] + args[:1] if rng.random() < 0.5 or nb == 2 else \
            [args[1], args[0]] + args[2:]
        self.emit(f"scf.yield {', '.join(perm)} : {types}", 3)
        self.emit("}")
        if rng.random() < 0.7:
            self.wait(2, 1)
            self.access(f"%res#{rng.randrange(nb)}", 2)
        self.emit("return")
        self.emit("}", 1)


PING_PONG_HEADER = HEADER.replace("!t = ", "!m = !tile.memdesc<128xf32, #sh, mutable>\n!t = ")


@pytest.mark.parametrize("seed", range(30 * SCALE))
def test_random_ping_pong_kernels_never_contradict_the_oracle(seed):
    """Buffers chosen by an if or permuted by a loop: every race the check reports (through
    its named copy of the kernel) is one some execution shows."""
    rng = random.Random(9000 + seed)
    chunks = []
    for i in range(20):
        g = PingPongGen(rng, straight=False)
        g.function(f"f{i}")
        chunks.append(PING_PONG_HEADER.replace("NBUF", "2") +
                      "module attributes {tile.num_warps = 1 : i32, "
                      "tile.threads_per_warp = 32 : i32} {\n" + "\n".join(g.lines) + "\n}\n")
    errors, seen = claims("\n// -----\n".join(chunks))
    assert errors <= seen, f"seed {seed}: reported but never witnessed at {sorted(errors - seen)}"


@pytest.mark.parametrize("seed", range(40 * SCALE))
def test_random_ring_kernels_never_contradict_the_oracle(seed):
    text = random_module(1000 + seed, straight=False)
    errors, seen = claims(text)
    assert errors <= seen, f"seed {seed}: reported but never witnessed at {sorted(errors - seen)}"


@pytest.mark.parametrize("seed", range(24 * SCALE))
def test_random_counter_ring_kernels_never_contradict_the_oracle(seed):
    """Rings indexed by counters the loop carries and advances by 1, 2, 3 or NBUF a trip
    (RingSlot names (s + c) % N of them, a constant slot where N divides the stride)."""
    text = random_module(7000 + seed, straight=False, gen=CounterGen)
    errors, seen = claims(text)
    assert errors <= seen, f"seed {seed}: reported but never witnessed at {sorted(errors - seen)}"


@pytest.mark.parametrize("seed", range(20 * SCALE))
def test_straight_line_kernels_agree_exactly(seed):
    """Without loops or branches every race is decidable: the check reports exactly the
    accesses the oracle witnesses."""
    text = random_module(5000 + seed, straight=True)
    errors, seen = claims(text)
    assert errors == seen, (f"seed {seed}: missed {sorted(seen - errors)}, "
                            f"false {sorted(errors - seen)}")
