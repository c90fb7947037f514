"""Random Kiln DSL kernels for the software pipeliner, a numpy oracle and a runner (issue 40).

``generate(seed)``: 1-3 ``kl.range(lo, hi, step, num_stages=1..5)`` loops, sequential or nested;
bounds literal, constexpr, runtime i32 or the outer induction variable; trip counts 0, 1, 2-7,
up to 40; one CTA, fp32 blocks of 128..1024, 4 warps. Bodies: loads from read-only ``a``/``b``
(block-aligned or element windows) and read-write ``x`` (block-aligned: each element stays with
its thread), loop-carried accumulators and pointers, stores feeding later loads
(``x[i + step] = x[i] + 1``), runtime ``if``s with loads used only inside, outer loads around
inner loops, masks with ``other`` 0 or 1. Small integers in fp32, adds only: results are exact
in any order, so the GPU must match ``reference`` (the same source run by numpy) bit for bit.

``compile_kernel`` compiles as a launch would and classifies: ``ok`` (per loop ``pipelined``,
``remark: why``, ``stages<2`` or ``folded``: constant trip count <= 1), ``internal`` (the
message names an MLIR op, tile.stage, an assertion...), ``error`` (a user-facing error),
``crash``; ``silent``: loops left unpipelined without a remark (the PTX has fewer
``cp.async.commit_group`` than S per pipelined loop). Users: test/Python/test_pipeline_fuzz_compile.py
(compile-only), test/gpu/test_pipeline_fuzz.py (GPU; a script too).
"""

from __future__ import annotations

import collections
import dataclasses
import hashlib
import importlib.util
import os
import random
import re
import tempfile
import warnings
from dataclasses import dataclass, field
from typing import Dict, List, Optional

import numpy as np

BLOCKS = (128, 256, 512, 1024)
PTR_TYPE = "*fp32:16"
EXACT_LIMIT = 2 ** 22  # |value| below this: every fp32 sum of the program is exact


# --- Generator -------------------------------------------------------------------------------

@dataclass
class Loop:
    index: int
    var: str
    parent: Optional["Loop"]
    stages: int
    trips: int             # the trip count the generator aimed at (per entry)
    lo: str = ""
    hi: str = ""
    step: str = ""
    const_trips: Optional[int] = None  # known at compile time (after int specialization)
    carried: str = ""      # a pointer tensor carried around the loop, advanced by step blocks
    line: int = 0          # line of the `for` in the generated file
    children: List["Loop"] = field(default_factory=list)

    @property
    def depth(self):
        return 0 if self.parent is None else self.parent.depth + 1


@dataclass
class Kernel:
    seed: int
    name: str
    source: str                       # the whole module
    args: Dict[str, object]           # runtime arguments: "ptr" for pointers, ints for i32
    constexprs: Dict[str, int]
    loops: List[Loop]
    features: set
    block: int


def _paren(expr):
    return f"({expr})" if " " in expr else expr


class _Gen:
    def __init__(self, seed):
        self.r = random.Random(f"kiln-pipeline-fuzz/{seed}")
        self.block = self.r.choice(BLOCKS)
        self.args: Dict[str, object] = {}
        self.cx: Dict[str, int] = {"BLOCK": self.block}
        self.features = set()
        self.accs: List[str] = []
        self.loops: List[Loop] = []
        self.count = collections.Counter()

    # -- names and values ---------------------------------------------------------------------
    def ptr(self, name):
        self.args.setdefault(name, "ptr")
        return name

    def fresh(self, prefix):
        self.count[prefix] += 1
        return f"{prefix}{self.count[prefix] - 1}"

    def scalar(self, value, prefix="n"):
        """``value`` as a literal, a constexpr or a runtime i32 argument; (source, constant?)."""
        kind = self.r.choices(["lit", "cx", "rt"], [4, 2, 3])[0]
        if kind == "lit" or value < 0 and kind == "cx":
            return (str(value) if value >= 0 else f"({value})"), True
        if kind == "cx":
            name = self.fresh(prefix.upper())
            self.cx[name] = value
            self.features.add("constexpr bound")
            return name, True
        self.features.add("runtime bound")
        return self.runtime(prefix, value), value == 1  # kiln.jit makes a 1 a constant

    def trips(self, nested, has_children):
        """0, 1, small (2-7) or larger (up to 40; less for nested loops)."""
        top = 8 if has_children else (10 if nested else 40)
        return self.r.choices([0, 1, self.r.randint(2, 7), self.r.randint(8, top)],
                              [1, 1.5, 4.5, 3])[0]

    # -- structure ----------------------------------------------------------------------------
    def make_loops(self):
        for index in range(self.r.choices([1, 2, 3], [3, 4, 3])[0]):
            parent = self.r.choice(self.loops) if index and self.r.random() < 0.45 else None
            parent = parent if parent and parent.depth < 2 else None
            loop = Loop(index, "ijk"[index], parent, self.r.randint(1, 5), 0)
            if parent:
                parent.children.append(loop)
            self.loops.append(loop)
        for loop in self.loops:
            loop.trips = self.trips(loop.parent is not None, bool(loop.children))
            self.bounds(loop)
        if any(l.parent for l in self.loops):
            self.features.add("nested")
        if sum(l.parent is None for l in self.loops) > 1:
            self.features.add("sequential")

    def bounds(self, loop):
        r = self.r
        step = r.choices([1, 2, 3, 4], [6, 2, 1, 1])[0]
        loop.step, step_const = self.scalar(step, "s")
        extent = (loop.trips - 1) * step + r.randint(1, step) if loop.trips else -r.randint(0, 2)
        if loop.parent is not None and r.random() < 0.3:
            # Triangular: starts at the enclosing loop's induction variable.
            loop.lo = loop.parent.var
            k, k_const = self.scalar(extent, "n")
            loop.hi = f"{loop.parent.var} + {k}"
            self.features.add("bound from outer variable")
            known = k_const and (step_const or not loop.trips)  # hi <= lo: 0 whatever the step
            loop.const_trips = loop.trips if known else None
            return
        lo = r.choice([0, 0, 0, 1, 2, 3, 5])
        loop.lo, lo_const = self.scalar(lo, "n")
        loop.hi, hi_const = self.scalar(lo + extent, "n")
        if lo_const and hi_const and (step_const or not loop.trips):
            loop.const_trips = loop.trips

    # -- expressions --------------------------------------------------------------------------
    def runtime(self, prefix, value):
        name = self.fresh(prefix)
        self.args[name] = value
        return name

    def slot(self, loop):
        """A non-negative block index of the induction variables in scope."""
        v, outer = loop.var, loop.parent
        forms = [v, v, f"{v} + {self.r.randint(1, 3)}", f"2 * {v}"]
        while outer is not None:
            forms.append(f"{v} + {outer.var}")
            outer = outer.parent
        return self.r.choice(forms)

    def mask(self, loop):
        self.features.add("masked load")
        m = self.r.choice([lambda: self.runtime("lim", self.r.randint(0, self.block)),
                           lambda: "BLOCK // 2", lambda: f"{loop.var} * 16"])()
        return f", mask=offs < {m}, other={self.r.choices(['0.0', '1.0'], [4, 1])[0]}"

    def load(self, loop, ptr=None):
        r = self.r
        ptr = ptr or r.choices(["a", "b", "x"], [4, 2, 2])[0]
        self.ptr(ptr)
        slot = self.slot(loop)
        if ptr != "x" and r.random() < 0.3:
            # Element-granular window (read-only pointers only: a written pointer is
            # always accessed block-aligned, so each element stays with its thread).
            idx = f"{_paren(slot)} * {r.choice([1, 3, 4, 32])}"
            self.features.add("unaligned window")
        else:
            idx = f"{_paren(slot)} * BLOCK"
        mask = self.mask(loop) if r.random() < 0.3 else ""
        return f"kl.load({ptr} + {idx} + offs{mask})"

    def acc_for(self, locals_):
        if locals_ and self.r.random() < 0.6:
            return self.r.choice(locals_)
        if not self.accs or (len(self.accs) < 3 and self.r.random() < 0.4):
            self.accs.append(f"acc{len(self.accs)}")
        return self.r.choice(self.accs)

    # -- statements ---------------------------------------------------------------------------
    def action(self, loop, locals_, kinds):
        r = self.r
        kind = r.choices(kinds, [{"acc": 5, "acc2": 1, "chain": 2, "if": 2, "store": 1}[k]
                                 for k in kinds])[0]
        if kind in ("acc", "acc2"):
            acc = self.acc_for(locals_)
            terms = " + ".join(self.load(loop) for _ in range(1 if kind == "acc" else 2))
            self.features.add("accumulate")
            return [f"{acc} = {acc} + {terms}"]
        if kind == "store":
            dst = r.choice(["out", "x"])
            self.ptr(dst)
            self.features.add("store")
            base = "8 + " if dst == "out" else ""  # out's blocks 0..7 hold the accumulators
            return [f"kl.store({dst} + ({base}{self.slot(loop)}) * BLOCK + offs, "
                    f"{self.load(loop, r.choice(['a', 'b']))} + 2.0)"]
        if kind == "chain":
            # x[v + d] = x[v] + ...: iteration v + d must see this store.
            self.ptr("x")
            v = loop.var
            d = r.choices([loop.step, f"2 * {loop.step}", "0"], [4, 1, 1])[0]
            self.features.add("store feeds later load" if d != "0" else "store same slot")
            tmp = self.fresh("t")
            out = [f"{tmp} = kl.load(x + {v} * BLOCK + offs)"]
            if r.random() < 0.5:
                acc = self.acc_for(locals_)
                out.append(f"{acc} = {acc} + {tmp}")
            out.append(f"kl.store(x + ({v} + {d}) * BLOCK + offs, {tmp} + 1.0)")
            return out
        # A runtime if; its loads are used only inside.
        form = r.randrange(3)
        self.features.add("if on scalar" if form == 0 else "if on induction variable")
        cond = [lambda: f"{self.runtime('flag', r.randint(0, 3))} > 0",
                lambda: f"{loop.var} % 2 == 0",
                lambda: f"{loop.var} < {self.runtime('m', r.randint(0, 12))}"][form]()
        inner = ["acc", "acc2", "chain", "store"]
        then = [s for _ in range(r.randint(1, 2)) for s in self.action(loop, locals_, inner)]
        orelse = self.action(loop, locals_, inner) if r.random() < 0.25 else []
        return [("if", cond, then, orelse)]

    def body(self, loop, locals_):
        r = self.r
        kinds = ["acc", "acc2", "chain", "if", "store"]
        stmts = [s for _ in range(r.randint(1, 3)) for s in self.action(loop, locals_, kinds)]
        if not loop.children:
            return stmts
        head, tail = [], []
        if r.random() < 0.5:  # outer loads around the inner loop
            tmp = self.fresh("t")
            head.append(f"{tmp} = {self.load(loop)}")
            acc = self.acc_for(locals_)
            tail.append(f"{acc} = {acc} + {tmp}")
            self.features.add("outer load around inner loop")
        inner_locals = list(locals_)
        if r.random() < 0.4:  # a per-iteration accumulator for the inner loops
            loc = self.fresh("loc")
            head.append(f"{loc} = kl.zeros([BLOCK], kl.float32, layout)")
            inner_locals.append(loc)
            self.ptr("out")
            tail.insert(0, f"kl.store(out + (16 + {loop.var}) * BLOCK + offs, {loc})")
            self.features.add("per-iteration accumulator")
        children = [s for c in loop.children for s in self.loop(c, inner_locals)]
        cut = r.randint(0, len(stmts))
        return head + stmts[:cut] + children + stmts[cut:] + tail

    def loop(self, loop, locals_):
        """The loop statement, after the set-up of its carried pointer if it has one."""
        pre = []
        if self.r.random() < 0.2:
            loop.carried = self.fresh("p")
            ptr = self.ptr(self.r.choice(["a", "b", "x"]))
            pre.append(f"{loop.carried} = {ptr} + {_paren(loop.lo)} * BLOCK + offs")
            self.features.add("carried pointer")
        body = self.body(loop, locals_)
        if loop.carried:
            acc = self.acc_for(locals_)
            mask = self.mask(loop) if self.r.random() < 0.3 else ""
            body.insert(self.r.randint(0, len(body)),
                        f"{acc} = {acc} + kl.load({loop.carried}{mask})")
            body.append(f"{loop.carried} = {loop.carried} + {_paren(loop.step)} * BLOCK")
        return pre + [("for", loop, body)]


def generate(seed: int) -> Kernel:
    """The kernel of ``seed`` (deterministic: the same seed gives the same source)."""
    g = _Gen(seed)
    g.make_loops()
    top = [s for l in g.loops if l.parent is None for s in g.loop(l, [])]
    if g.accs:
        g.ptr("out")
    name = f"pipefuzz_{seed}"
    spt = g.r.choice(sorted({1, g.block // 128}))
    args = {p: "ptr" for p in ("a", "b", "x", "out") if p in g.args}
    args.update((n, v) for n, v in g.args.items() if v != "ptr")
    params = list(args) + [f"{c}: kl.constexpr" for c in g.cx]
    lines = ["import kiln", "import kiln.language as kl", "", "",
             f"# seed {seed}: python3 test/gpu/test_pipeline_fuzz.py --seed {seed} --n 1 --show",
             "@kiln.jit",
             f"def {name}({', '.join(params)}):",
             f"    layout: kl.constexpr = kl.BlockedLayout([{spt}], [32], [4], [0])",
             "    offs = kl.arange(0, BLOCK, layout)"]
    lines += [f"    {a} = kl.zeros([BLOCK], kl.float32, layout)" for a in g.accs]

    def emit(stmts, indent):
        pad = "    " * indent
        for s in stmts:
            if isinstance(s, str):
                lines.append(pad + s)
            elif s[0] == "for":
                loop = s[1]
                lines.append(f"{pad}for {loop.var} in kl.range({loop.lo}, {loop.hi}, "
                             f"{loop.step}, num_stages={loop.stages}):")
                loop.line = len(lines)
                emit(s[2], indent + 1)
            else:
                lines.append(f"{pad}if {s[1]}:")
                emit(s[2], indent + 1)
                if s[3]:
                    lines.append(pad + "else:")
                    emit(s[3], indent + 1)

    emit(top, 1)
    lines += [f"    kl.store(out + {n} * BLOCK + offs, {a})" for n, a in enumerate(g.accs)]
    return Kernel(seed, name, "\n".join(lines) + "\n", args, g.cx, g.loops, g.features,
                  g.block)


# --- numpy oracle: the same source, run sequentially -----------------------------------------

class _Buf:
    def __init__(self, data=None):
        self.data = data
        self.top = -1  # the highest element touched

    def touch(self, idx):
        if idx.size:
            if idx.min() < 0:
                raise IndexError("negative element index")
            self.top = max(self.top, int(idx.max()))
            if self.data is not None and self.top >= self.data.size:
                raise IndexError(f"element {self.top} past the buffer ({self.data.size})")


class _Ptrs:
    def __init__(self, buf, off):
        self.buf, self.off = buf, off

    def __add__(self, other):
        if isinstance(other, np.ndarray):
            other = other.astype(np.int64)
        return _Ptrs(self.buf, self.off + other)


class _NumpyKl:
    """The part of kiln.language the generated kernels use, over numpy."""
    constexpr = object
    float32 = np.float32
    BlockedLayout = staticmethod(lambda *args: None)
    arange = staticmethod(lambda lo, hi, layout=None: np.arange(lo, hi, dtype=np.int64))
    zeros = staticmethod(lambda shape, dtype, layout=None: np.zeros(shape, np.float32))
    range = staticmethod(lambda lo, hi, step=1, num_stages=None: range(lo, hi, step))

    @staticmethod
    def _lanes(ptrs, mask):
        m = np.broadcast_to(True if mask is None else mask, ptrs.off.shape)
        ptrs.buf.touch(ptrs.off[m])
        return m

    @classmethod
    def load(cls, ptrs, mask=None, other=None):
        m = cls._lanes(ptrs, mask)
        out = np.full(ptrs.off.shape, 0.0 if other is None else other, np.float32)
        if ptrs.buf.data is not None:
            out[m] = ptrs.buf.data[ptrs.off[m]]
        return out

    @classmethod
    def store(cls, ptrs, value, mask=None):
        m = cls._lanes(ptrs, mask)
        if ptrs.buf.data is not None:
            ptrs.buf.data[ptrs.off[m]] = np.broadcast_to(value, ptrs.off.shape)[m]


class _NumpyKiln:
    jit = staticmethod(lambda fn: fn)


def _function(kernel):
    """The kernel's Python function with kl bound to numpy (same line numbers)."""
    text = kernel.source.replace("import kiln.language as kl", "").replace("import kiln", "")
    scope = {"kiln": _NumpyKiln, "kl": _NumpyKl}
    exec(compile(text, f"<{kernel.name} on numpy>", "exec"), scope)
    return scope[kernel.name]


def _call(fn, kernel, bufs):
    args = {n: (_Ptrs(bufs[n], 0) if v == "ptr" else v) for n, v in kernel.args.items()}
    fn(**args, **kernel.constexprs)


def inputs(kernel):
    """{pointer: initial fp32 array of small integers}, each as long as the program touches
    (untouched elements in between must keep their values)."""
    fn = _function(kernel)
    sizing = {p: _Buf() for p, v in kernel.args.items() if v == "ptr"}
    _call(fn, kernel, sizing)
    rng = np.random.default_rng(kernel.seed)
    return {p: rng.integers(-4, 5, max(b.top + 1, 1)).astype(np.float32)
            for p, b in sizing.items()}


def reference(kernel, initial):
    """{pointer: final fp32 array} of running the kernel sequentially on copies of
    ``initial``."""
    bufs = {p: _Buf(a.copy()) for p, a in initial.items()}
    _call(_function(kernel), kernel, bufs)
    for p, b in bufs.items():
        if np.abs(b.data).max(initial=0) >= EXACT_LIMIT:
            raise ValueError(f"{p} leaves the exact range of fp32 sums")
    return {p: b.data for p, b in bufs.items()}


# --- Compiling and classifying ---------------------------------------------------------------

# A CompilationError text that means the compiler, not the kernel, went wrong.
INTERNAL = re.compile(r"'[a-z_]+\.[a-z_.]+'|tile\.stage|internal|LLVM ERROR|[Aa]ssert"
                      r"|UNREACHABLE|Stack dump|left inconsistent|stage reported it at"
                      r"|failed to legalize|verif")


@dataclass
class Outcome:
    seed: int
    target: str
    status: str                  # ok | internal | error | crash
    message: str = ""
    loops: Dict[int, str] = field(default_factory=dict)  # loop index -> state
    silent: List[int] = field(default_factory=list)       # BUG: unpipelined, no remark
    remarks: List[str] = field(default_factory=list)
    commits: int = 0
    compiled: object = None

    @property
    def bug(self):
        return self.status in ("internal", "crash") or bool(self.silent)

    def klass(self):
        """The failure class: the message with locations, numbers and types masked."""
        if self.status == "ok":
            return "unpipelined loop without remark" if self.silent else "ok"
        first = self.message.strip().splitlines()[0] if self.message.strip() else ""
        first = re.sub(r"^\S*:\d+:\d+: ", "", first)
        first = re.sub(r"<[^<>]*(<[^<>]*>[^<>]*)*>", "<T>", first)
        return f"{self.status}: " + re.sub(r"\d+", "N", first)[:160]


_MODULES: Dict[str, object] = {}


def workdir():
    """Where the generated kernel files go (named by their content: a kernel keeps its path,
    and so its disk-cache key, from run to run)."""
    path = os.path.join(tempfile.gettempdir(), f"kiln-pipeline-fuzz-{os.getuid()}")
    os.makedirs(path, exist_ok=True)
    return path


def load(kernel):
    """The @kiln.jit function of ``kernel``, imported from a file of its own (kiln reads the
    source through inspect, which needs one)."""
    if kernel.source not in _MODULES:
        name = f"{kernel.name}_{hashlib.sha1(kernel.source.encode()).hexdigest()[:12]}"
        path = os.path.join(workdir(), f"{name}.py")
        if not os.path.exists(path):
            with open(f"{path}.{os.getpid()}", "w") as f:
                f.write(kernel.source)
            os.replace(f"{path}.{os.getpid()}", path)
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _MODULES[kernel.source] = module
    return getattr(_MODULES[kernel.source], kernel.name)


def _folded(loop):
    """Whether canonicalization may remove the loop (constant trip count 0 or 1, or inside
    one of 0): nothing left to pipeline or to remark on."""
    while loop is not None:
        if loop.const_trips is not None and loop.const_trips <= 1:
            return True
        loop = loop.parent
    return False


def classify_compiled(kernel, outcome, remarks, path):
    """Each loop's state from the remarks at its line, and the commit-group check."""
    at = {l.line: l.index for l in kernel.loops}
    refused = {at[w.line]: w.message for w in remarks
               if "loop not pipelined" in w.message and w.file == path and w.line in at}
    expected = 0
    for loop in kernel.loops:
        if loop.stages < 2:
            state = "stages<2"
        elif loop.index in refused:
            state = "remark: " + re.sub(r"\d+", "N", refused[loop.index].split(": ", 1)[1])[:90]
        elif _folded(loop):
            state = "folded"
        else:
            state = "pipelined"
            expected += loop.stages
        outcome.loops[loop.index] = state
    ptx = outcome.compiled.asm.get("ptx", "")
    outcome.commits = ptx.count("cp.async.commit_group")
    if outcome.commits < expected:
        # Fewer commit groups than S per pipelined loop: some loop was left as written
        # without saying so. Which one is a guess; all candidates are listed.
        outcome.silent = [l.index for l in kernel.loops if outcome.loops[l.index] == "pipelined"]
        for i in outcome.silent:
            outcome.loops[i] = "pipelined?"


def compile_kernel(kernel, target, num_warps=4) -> Outcome:
    """Compile ``kernel`` for ``target`` as a launch with its arguments would (kiln.jit's
    integer specialization included). Raises only kiln.ExtensionNotBuilt."""
    import kiln
    out = Outcome(kernel.seed, target, "ok")
    try:
        fn = load(kernel)
        args = {n: (PTR_TYPE if v == "ptr" else v) for n, v in kernel.args.items()}
        with warnings.catch_warnings(record=True) as records:
            warnings.simplefilter("always")
            try:
                out.compiled = fn.warmup(**args, **kernel.constexprs, grid=(1,), target=target,
                                         num_warps=num_warps)
            finally:
                kept = [w.message for w in records
                        if isinstance(w.message, kiln.CompilationWarning)]
                out.remarks = [f"{w.line}: {w.message}" for w in kept]
        classify_compiled(kernel, out, kept, fn.src.file)
    except kiln.ExtensionNotBuilt:
        raise  # no compiler here: nothing to classify
    except kiln.CompilationError as e:
        out.message = str(e)
        out.status = "internal" if INTERNAL.search(out.message) else "error"
    except Exception as e:  # noqa: BLE001 - a crash of the compiler's Python side
        out.status, out.message = "crash", f"{type(e).__name__}: {e}"
    return out


# --- The GPU oracle --------------------------------------------------------------------------

def run_on_gpu(kernel, num_warps=4):
    """Launch ``kernel`` on grid (1,) over torch tensors holding ``inputs(kernel)`` and compare
    every buffer with ``reference`` bit for bit; a list of differences (empty: equal)."""
    import torch
    initial = inputs(kernel)
    expected = reference(kernel, initial)
    tensors = {p: torch.from_numpy(a.copy()).cuda() for p, a in initial.items()}
    args = {n: (tensors[n] if v == "ptr" else v) for n, v in kernel.args.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # remarks were classified by compile_kernel
        load(kernel)[(1,)](**args, **kernel.constexprs, num_warps=num_warps)
    torch.cuda.synchronize()
    diffs = []
    for p, want in expected.items():
        got = tensors[p].cpu().numpy()
        bad = np.flatnonzero(got.view(np.int32) != want.view(np.int32))
        if bad.size:
            i = bad[0]
            diffs.append(f"{p}: {bad.size} of {want.size} elements differ; first {p}[{i}] "
                         f"(block {i // kernel.block}) = {got[i]}, expected {want[i]}")
    return diffs


Mismatch = collections.namedtuple("Mismatch", "seed diffs")


def campaign(seeds, targets, launch_target=None, progress=None):
    """Compile every seed's kernel for each of ``targets`` and, with ``launch_target``,
    launch those that compiled for it. (outcomes, mismatches)."""
    targets = list(targets) + ([launch_target] if launch_target not in (None, *targets) else [])
    outcomes, mismatches = [], []
    for n, seed in enumerate(seeds):
        kernel = generate(seed)
        for target in targets:
            outcome = compile_kernel(kernel, target)
            outcomes.append(outcome)
            if target == launch_target and outcome.status == "ok":
                try:
                    diffs = run_on_gpu(kernel)
                except Exception as e:  # noqa: BLE001 - a fault poisons the context: stop
                    mismatches.append(Mismatch(seed, [f"launch failed: {type(e).__name__}: {e}"]))
                    return outcomes, mismatches
                if diffs:
                    mismatches.append(Mismatch(seed, diffs))
            outcome.compiled = None  # keep the campaign's memory flat
        _MODULES.clear()
        if progress:
            progress(n, seed, outcomes, mismatches)
    return outcomes, mismatches


# --- Campaigns and reports -------------------------------------------------------------------

def summarize(outcomes, mismatches=()):
    """Counts for the summary table."""
    loops = [s for o in outcomes for s in o.loops.values()]
    return collections.OrderedDict([
        ("kernels", len(outcomes)),
        ("compiled", sum(o.status == "ok" for o in outcomes)),
        ("loops with num_stages>=2", sum(s != "stages<2" for s in loops)),
        ("pipelined loops", loops.count("pipelined")),
        ("loops refused with a remark", sum(s.startswith("remark") for s in loops)),
        ("loops folded (constant trips <= 1)", loops.count("folded")),
        ("loops unpipelined without remark", sum(len(o.silent) for o in outcomes)),
        ("internal errors", sum(o.status == "internal" for o in outcomes)),
        ("crashes", sum(o.status == "crash" for o in outcomes)),
        ("other compile errors", sum(o.status == "error" for o in outcomes)),
        ("GPU mismatches", len(mismatches)),
    ])


def table(counts):
    width = max(len(k) for k in counts)
    return "\n".join(f"  {k:<{width}}  {v}" for k, v in counts.items())


def group(outcomes):
    """{failure class: [outcome, ...]} of the outcomes that are bugs or errors."""
    out = collections.defaultdict(list)
    for o in outcomes:
        if o.bug or o.status == "error":
            out[o.klass()].append(o)
    return dict(sorted(out.items(), key=lambda kv: -len(kv[1])))


def report(outcomes):
    """The failure classes, each with its seeds, and the message and source of its smallest
    kernel."""
    lines = []
    for klass, items in group(outcomes).items():
        seeds = sorted({o.seed for o in items})
        o = min(items, key=lambda o: len(generate(o.seed).source))
        lines.append(f"== {klass}\n   {len(items)} compile(s), seeds {seeds[:40]}"
                     f"{' ...' if len(seeds) > 40 else ''}\n   seed {o.seed} ({o.target}):")
        lines += ["     | " + l for l in (o.message or "\n".join(o.remarks)).splitlines()[:12]]
        lines += ["     > " + l for l in generate(o.seed).source.splitlines()[5:]]
    return "\n".join(lines)


def minimize(kernel, fails):
    """A smaller kernel for which ``fails(kernel)`` still holds: statements (with what they
    hold) are deleted while it does, then the parameters the body no longer names."""
    lines = kernel.source.splitlines()
    first = next(n for n, l in enumerate(lines) if l.startswith("def ")) + 3

    def variant(ls):
        return dataclasses.replace(kernel, source="\n".join(ls) + "\n")

    changed = True
    while changed:
        changed = False
        n = len(lines) - 1
        while n >= first:
            indent = len(lines[n]) - len(lines[n].lstrip())
            end = n + 1
            while end < len(lines) and len(lines[end]) - len(lines[end].lstrip()) > indent:
                end += 1
            trial = lines[:n] + lines[end:]
            if fails(variant(trial)):
                lines, changed = trial, True
            n -= 1
    body = "\n".join(lines[first - 2:])
    keep = {a: v for a, v in kernel.args.items() if re.search(rf"\b{a}\b", body)}
    cx = {c: v for c, v in kernel.constexprs.items() if re.search(rf"\b{c}\b", body)}
    d = next(n for n, l in enumerate(lines) if l.startswith("def "))
    lines[d] = f"def {kernel.name}({', '.join(list(keep) + [f'{c}: kl.constexpr' for c in cx])}):"
    small = dataclasses.replace(variant(lines), args=keep, constexprs=cx)
    return small if fails(small) else variant(lines)
