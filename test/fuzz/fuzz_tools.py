#!/usr/bin/env python3
"""Mutation fuzzer for kiln-opt and kiln-translate.

Takes the lit inputs under test/ (split on ``// -----`` like
``-split-input-file`` does, comment lines dropped), applies seeded mutations
and runs every mutant through the tools. A run must end in exit code 0 or in
a *located* error (``file:line:col: error:`` or an MLIR ``loc(...)``
location) with exit code 1. Anything else is a failure:

  crash      killed by a signal / exit code > 128, or output containing
             ``LLVM ERROR``, ``Assertion``, ``Stack dump``,
             ``PLEASE submit a bug report`` or ``UNREACHABLE``
  timeout    the run took longer than --timeout seconds
  exit:N     another exit code
  unlocated  exit code 1, but no diagnostic carries a source location

Mutations
  token level      delete / swap / duplicate a token, change a number (0, 1,
                   -1, 2^31, 2^63, huge, random), truncate the file, delete /
                   duplicate / swap lines, splice in a line of another input,
                   stray characters, deep nesting
  type consistent  replace an element type throughout the file (f32, f16,
                   bf16, tf32, i1, i3, i7, i64, f8E4M3FN, f4E2M1FN, ...),
                   also switching arith ops between float and int forms;
                   rewrite #tile.blocked lists (sizePerThread, threadsPerWarp
                   with tile.threads_per_warp, warpsPerCTA with
                   tile.num_warps, order, rank), #tile.linear bases (register
                   counts, values, ranks), #tile.slice dims and parents,
                   tensor shapes, module attributes (tile.num_warps,
                   tile.threads_per_warp, tile.target), address spaces
                   (!tile.ptr<T, N>, !llvm.ptr<N>), divisibility, axes,
                   arange bounds, op names within a family, layout aliases,
                   NVVM/ROCDL snippets in LLVM-dialect inputs

What runs (each chain stops at the first step that does not exit 0):
  tile-dialect inputs   kiln-opt M | kiln-opt -
                        kiln-opt M --kiln-to-llvm="target=cuda:sm_90a num-warps=4"
                            | kiln-translate --target=cuda:sm_90a --emit=ptx -
                        kiln-opt M --kiln-to-llvm="target=hip:gfx942 num-warps=4"
                            | kiln-translate --target=hip:gfx942 --emit=amdgcn -
                        (a quarter of the mutants leave out num-warps=4 so the
                        module's tile.num_warps decides; the lowering chains
                        are skipped when plain kiln-opt already reports a
                        located error, since they would parse the same way)
  LLVM-dialect inputs   kiln-translate --target=cuda:sm_90a|sm_80 --emit=ptx M
  (test/Target/*.mlir)  kiln-translate --target=hip:gfx942|gfx950|gfx90a|gfx908 --emit=amdgcn|hsaco M

Mutant number i of seed S is generated from random.Random("S/i") and an input
picked by weighted rendezvous hashing of (S, i, input file + content), so a
mutant is reproducible from (seed, index) whatever the job count, the time
budget or the tools' behaviour; edits to other inputs under test/ leave it
alone (only mutants whose own input changed, or that a new input wins, differ).

Usage (from the repository root, Debian's python):

  # quick run (the campaign test/Python/test_fuzz.py runs)
  /usr/bin/python3 test/fuzz/fuzz_tools.py --count 400 --seed 1 --no-minimize

  # long run: minimizes one input per crash signature and writes everything
  /usr/bin/python3 test/fuzz/fuzz_tools.py --count 20000 --seed 1 --out /tmp/kiln-fuzz

  # replay some mutants of a run, or print one
  /usr/bin/python3 test/fuzz/fuzz_tools.py --seed 1 --only 17,230
  /usr/bin/python3 test/fuzz/fuzz_tools.py --seed 1 --print-mutant 17

  # re-run the saved reproducers (first line "// CMD: ...") and list which still fail
  /usr/bin/python3 test/fuzz/fuzz_tools.py --recheck test/fuzz/crashes

  # minimize such a reproducer in place
  /usr/bin/python3 test/fuzz/fuzz_tools.py --minimize-file test/fuzz/crashes/NAME.mlir

The exit status is 1 when any run failed (or any reproducer still fails).
"""

import argparse
import concurrent.futures
import dataclasses
import hashlib
import json
import math
import os
import random
import re
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TEST_DIR = REPO / "test"
DEFAULT_BIN = REPO / "build" / "bin"
SPLIT_MARKER = re.compile(r"^// -----\s*$", re.M)
# The lit inputs; the fuzzer's own folder and the GPU / pytest folders are not.
CORPUS_EXCLUDE = ("fuzz", "gpu", "Python", "Inputs")

# --------------------------------------------------------------------------------------
# Corpus


@dataclasses.dataclass
class Seed:
    name: str      # "test/Dialect/Tile/ops.mlir#0"
    text: str
    kind: str      # "tile" (through kiln-opt) or "llvm" (through kiln-translate)
    weight: float

    @property
    def key(self):
        """Identity for picking seeds: the file and the chunk's content, not its position."""
        return self.name.split("#")[0] + "@" + hashlib.sha1(self.text.encode()).hexdigest()[:12]


def pick_seed(seed_value, index, corpus):
    """Weighted rendezvous hashing: each input draws an exponential race time from a
    hash of (seed, index, input) and the fastest wins. Adding, removing or editing
    other inputs under test/ leaves most mutants of a seed exactly as they were."""
    best, best_t = None, None
    for s in corpus:
        h = hashlib.sha256(f"{seed_value}/{index}/{s.key}".encode()).digest()
        u = (int.from_bytes(h[:8], "big") + 1) / (2**64 + 1)
        t = -math.log(u) / s.weight
        if best_t is None or t < best_t:
            best, best_t = s, t
    return best


def load_corpus(test_dir=TEST_DIR):
    """Every chunk of every lit input, comment-only lines removed."""
    files = sorted(p for p in Path(test_dir).rglob("*.mlir")
                   if not any(part in CORPUS_EXCLUDE for part in p.relative_to(test_dir).parts[:-1]))
    seeds = []
    for path in files:
        rel = path.relative_to(Path(test_dir).parent).as_posix()
        kind = "llvm" if path.parent.name == "Target" else "tile"
        chunks = SPLIT_MARKER.split(path.read_text(errors="replace"))
        kept = []
        for chunk in chunks:
            lines = [ln for ln in chunk.splitlines() if not ln.strip().startswith("//")]
            text = "\n".join(lines).strip("\n")
            if text.strip():
                # Inputs written to be rejected take mutants further when they are
                # valid to begin with: favour those.
                invalid = "expected-error" in chunk or path.stem == "parse-error"
                kept.append((text + "\n", 0.25 if invalid else 1.0))
        for i, (text, w) in enumerate(kept):
            # A file with many chunks (invalid.mlir) should not drown the others.
            seeds.append(Seed(f"{rel}#{i}", text, kind, w / len(kept) ** 0.5))
    return seeds


from mutations import mutate, tokens  # noqa: E402  (the mutation catalogue)

# --------------------------------------------------------------------------------------
# Running


@dataclasses.dataclass
class Chain:
    name: str
    steps: list   # argv lists; "{input}" is the mutant's path; later steps read stdin


@dataclasses.dataclass
class Mutant:
    index: int
    seed: Seed
    text: str
    mutations: list
    chains: list
    pipeline_warps: bool


def make_mutant(seed_value, index, corpus, ctx, tools):
    rng = random.Random(f"{seed_value}/{index}")
    seed = pick_seed(seed_value, index, corpus)
    text, descs = mutate(rng, seed, ctx)
    opt, tr = str(tools["kiln-opt"]), str(tools["kiln-translate"])
    nw = re.search(r"tile\.num_warps\s*=\s*(-?\d+)", text)
    warps = rng.random() < (0.75 if nw is None or nw.group(1) == "4" else 0.3)
    if seed.kind == "tile":
        nw = " num-warps=4" if warps else ""
        chains = [
            Chain("opt", [[opt, "{input}"], [opt, "-"]]),
            Chain("lower-cuda", [[opt, "{input}", f"--kiln-to-llvm=target=cuda:sm_90a{nw}"],
                                 [tr, "--target=cuda:sm_90a", "--emit=ptx", "-"]]),
            Chain("lower-hip", [[opt, "{input}", f"--kiln-to-llvm=target=hip:gfx942{nw}"],
                                [tr, "--target=hip:gfx942", "--emit=amdgcn", "-"]]),
        ]
    else:
        nv = rng.choice(["cuda:sm_90a", "cuda:sm_90a", "cuda:sm_80"])
        amd = rng.choice(["hip:gfx942", "hip:gfx942", "hip:gfx950", "hip:gfx90a", "hip:gfx908"])
        emit = rng.choice(["amdgcn", "amdgcn", "hsaco"])
        chains = [
            Chain("translate-nv", [[tr, f"--target={nv}", "--emit=ptx", "{input}"]]),
            Chain("translate-amd", [[tr, f"--target={amd}", f"--emit={emit}", "{input}"]]),
        ]
    return Mutant(index, seed, text, descs, chains, warps)


CRASH_MARKERS = ["LLVM ERROR", "Assertion", "Stack dump", "PLEASE submit a bug report",
                 "UNREACHABLE"]
LOCATED_RE = re.compile(r"(^|\n)[^\n]*?\S:\d+:\d+: error:|loc\([^\n]*error|error:[^\n]*loc\(")
FRAME_RE = re.compile(r"^\s*#\d+ 0x[0-9a-fA-F]+ ?(.*)$")
SKIP_FRAME = re.compile(r"llvm::sys::|SignalHandler|RunSignalHandlers|PrintStackTrace|^abort|"
                        r"^raise|^gsignal|pthread_kill|__assert|report_fatal_error|"
                        r"llvm_unreachable_internal|reportFatal|__libc_|__GI_|std::terminate|"
                        r"__cxa_|__gnu_cxx|CrashRecoveryContext|^_start|^main$|^__restore_rt")


def _limits():
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    try:
        lim = 4 << 30
        resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
    except (ValueError, OSError):
        pass
    os.setsid()


@dataclasses.dataclass
class StepResult:
    argv: list
    rc: object          # int, or None after a time-out
    out: str            # stderr (then stdout's last part when the step failed)
    stdout: bytes
    seconds: float


def run_step(argv, stdin_bytes, timeout):
    start = time.monotonic()
    for attempt in range(40):                   # tolerate a tool being relinked
        try:
            p = subprocess.Popen(argv, stdin=subprocess.PIPE if stdin_bytes is not None else subprocess.DEVNULL,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 preexec_fn=_limits, env=_ENV)
            break
        except OSError:
            if attempt == 39:
                raise
            time.sleep(3)
    try:
        out, err = p.communicate(stdin_bytes, timeout=timeout)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
        out, err = p.communicate()
        rc = None
    return StepResult(argv, rc, err.decode("utf-8", "replace"), out, time.monotonic() - start)


_ENV = dict(os.environ, LC_ALL="C")
_ENV.pop("LLVM_DISABLE_SYMBOLIZATION", None)


def _clean_frame(sym):
    sym = re.sub(r"\s+\(/[^)]*\+0x[0-9a-f]+\)\s*$", "", sym)        # "(/path/lib.so+0x12)"
    sym = re.sub(r"\s+\S+\.(?:cpp|h|inc|c):\d+:\d+$", "", sym)      # "File.cpp:0:0"
    sym = sym.replace("(anonymous namespace)::", "")
    prev = None
    while prev != sym:                                                # template arguments
        prev, sym = sym, re.sub(r"<[^<>]*>", "", sym)
    sym = sym.split("(", 1)[0].strip()
    sym = re.sub(r"\s+const$", "", sym)
    return sym


def _norm(line):
    line = re.sub(r"/\S*/", "", line)                    # paths
    line = re.sub(r"0x[0-9a-fA-F]+|\d+", "N", line)
    line = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", line) if "Assertion" not in line else line
    return line.strip()[:160]


def classify(step):
    """None when the step is fine, else (kind, signature key, key line, top frame)."""
    out = step.out
    if step.rc is None:
        return "timeout", "", f"no result after {step.seconds:.1f}s", ""
    rc = step.rc
    crashed = rc < 0 or rc > 128 or any(mk in out for mk in CRASH_MARKERS)
    if crashed:
        signo = -rc if rc < 0 else rc - 128 if rc > 128 else None
        try:
            kind = f"crash:{signal.Signals(signo).name}" if signo else "crash"
        except ValueError:
            kind = f"crash:signal{signo}"
        lines = out.splitlines()
        msg = ""
        for pat in (r"LLVM ERROR:.*", r"Assertion `.*' failed.*", r".*UNREACHABLE executed.*",
                    r"terminate called .*", r".*(?:error|what\(\)):.*"):
            hit = next((ln for ln in lines if re.search(pat, ln)), None)
            if hit:
                msg = hit.strip()
                break
        frames = [_clean_frame(m.group(1)) for m in map(FRAME_RE.match, lines) if m]
        useful = [f for f in frames if f and not f.startswith("/") and not SKIP_FRAME.search(f)]
        counts = {f: useful.count(f) for f in useful}
        recursive = sorted(f for f, n in counts.items() if n >= 8)
        if len(frames) >= 200 and recursive:
            # Stack overflow: the innermost frame varies from run to run, the
            # recursion does not.
            msg = "stack overflow in recursion through " + ", ".join(recursive[:3])
            return kind, msg, msg, recursive[0]
        top = useful[0] if useful else ""
        kiln_frame = next((f for f in useful if "kiln" in f.lower() or "Pass::" in f
                           or "Conversion::" in f or "Pattern" in f), "")
        key_parts = [_norm(msg) if msg else ""] + [top] + ([kiln_frame] if kiln_frame != top else [])
        keyline = msg or (f"{kind} in {top}" if top else kind)
        return kind, " | ".join(p for p in key_parts if p), keyline, top
    if rc == 0:
        return None
    if rc != 1:
        return f"exit:{rc}", "", (out.strip().splitlines() or [""])[0], ""
    if LOCATED_RE.search(out):
        return None
    first = next((ln for ln in out.splitlines() if "error" in ln), (out.strip().splitlines() or ["<no output>"])[0])
    return "unlocated", _norm(first), first.strip(), ""


@dataclasses.dataclass
class Failure:
    index: int
    seed_name: str
    mutations: list
    chain: str
    steps: list          # argv lists up to and including the failing step
    kind: str
    key: str
    keyline: str
    output: str
    text: str
    frame: str = ""      # innermost useful stack frame
    path: str = ""       # reproducer written to the output folder

    @property
    def tool(self):
        return os.path.basename(self.steps[-1][0])

    @property
    def signature(self):
        return f"{self.tool} {self.kind} {self.key}".strip()

    def command(self, path=None, rel_tools=True):
        parts = []
        for argv in self.steps:
            argv = [(path or self.path or "MUTANT.mlir") if a == "{input}" else a for a in argv]
            if rel_tools:
                argv = [_rel(argv[0])] + argv[1:]
            parts.append(shlex.join(argv))
        return " | ".join(parts)


BOILERPLATE = re.compile(r"PLEASE submit a bug report|^Stack dump:|^\s*\d+\.\s+Program arguments:")


def interesting_lines(output, n):
    """The first n lines of a tool's output that say something: no crash-report
    boilerplate, no signal-handler or libc frames."""
    out = []
    for ln in output.splitlines():
        if not ln.strip() or BOILERPLATE.search(ln):
            continue
        m = FRAME_RE.match(ln)
        if m:
            f = _clean_frame(m.group(1))
            if not f or f.startswith("/") or SKIP_FRAME.search(f):
                continue
        out.append(ln.rstrip())
        if len(out) >= n:
            break
    return out


def _rel(p):
    try:
        return os.path.relpath(p, REPO) if Path(p).is_relative_to(REPO) else p
    except ValueError:
        return p


def run_chain(chain, path, timeout):
    """(failing step index, classification, results) or None when all steps are fine."""
    data = None
    results = []
    for i, argv in enumerate(chain.steps):
        argv = [path if a == "{input}" else a for a in argv]
        r = run_step(argv, data, timeout)
        results.append(r)
        c = classify(r)
        if c is not None:
            return i, c, results
        if r.rc != 0:
            return None, None, results
        data = r.stdout
    return None, None, results


def run_mutant(mutant, workdir, timeout):
    path = os.path.join(workdir, f"mutant-{mutant.index}.mlir")
    with open(path, "w", encoding="utf-8", errors="surrogatepass") as f:
        f.write(mutant.text)
    failures = []
    nruns = 0
    outcomes = []
    for ci, chain in enumerate(mutant.chains):
        i, c, results = run_chain(chain, path, timeout)
        nruns += len(results)
        if c is not None:
            outcomes.append(f"{chain.name}:FAIL@{i}")
        elif all(r.rc == 0 for r in results) and len(results) == len(chain.steps):
            outcomes.append(f"{chain.name}:ok")
        else:
            outcomes.append(f"{chain.name}:error@{len(results) - 1}")
        if c is not None:
            kind, key, keyline, frame = c
            failures.append(Failure(mutant.index, mutant.seed.name, mutant.mutations, chain.name,
                                    chain.steps[:i + 1], kind, key, keyline, results[-1].out,
                                    mutant.text, frame))
        # The lowering chains parse exactly like plain kiln-opt: skip them when that
        # already ended in a (located) error.
        if ci == 0 and mutant.seed.kind == "tile" and c is None and results and results[0].rc == 1:
            break
    os.unlink(path)
    return failures, nruns, outcomes


# --------------------------------------------------------------------------------------
# Minimization


def _still_fails(text, failure, workdir, timeout):
    path = os.path.join(workdir, "min.mlir")
    with open(path, "w", encoding="utf-8", errors="surrogatepass") as f:
        f.write(text)
    i, c, _ = run_chain(Chain(failure.chain, failure.steps), path, timeout)
    return c is not None and i == len(failure.steps) - 1 and (c[0], c[1]) == (failure.kind, failure.key)


def _ddmin(units, test, deadline):
    n = 2
    while len(units) >= 2 and time.monotonic() < deadline:
        size = max(1, len(units) // n)
        chunks = [units[i:i + size] for i in range(0, len(units), size)]
        reduced = False
        for k in range(len(chunks)):
            if time.monotonic() > deadline:
                break
            cand = [u for j, c in enumerate(chunks) if j != k for u in c]
            if cand and test(cand):
                units, n, reduced = cand, max(n - 1, 2), True
                break
        if not reduced:
            if n >= len(units):
                break
            n = min(2 * n, len(units))
    return units


def minimize(failure, workdir, timeout, budget_s=90.0):
    """Delta-debug the mutant by lines, then by tokens, keeping the crash signature."""
    deadline = time.monotonic() + budget_s
    text = failure.text
    if not _still_fails(text, failure, workdir, timeout):
        return text, False
    lines = _ddmin(text.splitlines(keepends=True),
                   lambda u: _still_fails("".join(u), failure, workdir, timeout), deadline)
    text = "".join(lines)
    # Tokens, each with the whitespace before it.
    pieces, last = [], 0
    for s, e in tokens(text):
        pieces.append(text[last:e])
        last = e
    if last < len(text):
        pieces.append(text[last:])
    pieces = _ddmin(pieces, lambda u: _still_fails("".join(u), failure, workdir, timeout), deadline)
    text = "".join(pieces)
    # Tidy whitespace if the crash survives it.
    tidy = re.sub(r"[ \t]+\n", "\n", re.sub(r"\n{2,}", "\n", text))
    if tidy != text and _still_fails(tidy, failure, workdir, timeout):
        text = tidy
    if not text.endswith("\n") and _still_fails(text + "\n", failure, workdir, timeout):
        text += "\n"
    return text, True


# --------------------------------------------------------------------------------------
# Campaign


@dataclasses.dataclass
class Report:
    seed: int
    requested: int
    ran: int = 0
    runs: int = 0
    seconds: float = 0.0
    failures: list = dataclasses.field(default_factory=list)
    out: str = ""
    stopped_by_budget: bool = False
    corpus_size: int = 0
    corpus_digest: str = ""
    outcomes: dict = dataclasses.field(default_factory=dict)
    harness_errors: list = dataclasses.field(default_factory=list)

    def signatures(self):
        by = {}
        for f in self.failures:
            by.setdefault(f.signature, []).append(f)
        return by

    def summary(self):
        s = (f"kiln fuzz: seed {self.seed}, {self.ran}/{self.requested} mutants, {self.runs} tool runs, "
             f"{self.seconds:.0f}s, corpus {self.corpus_size} inputs ({self.corpus_digest}); "
             f"{len({f.index for f in self.failures})} failing mutants, "
             f"{len(self.signatures())} distinct signatures")
        if self.stopped_by_budget:
            s += " [stopped by --time-budget]"
        if self.harness_errors:
            s += f" [{len(self.harness_errors)} HARNESS ERRORS]"
        if self.outcomes:
            s += "\n  chain outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(self.outcomes.items()))
        return s

    def format_failures(self, lines_per=4):
        out = [self.summary()]
        for sig, fs in sorted(self.signatures().items(), key=lambda kv: kv[1][0].index):
            out.append(f"\n== {sig}  ({len(fs)} runs; mutants {', '.join(str(f.index) for f in fs[:30])}"
                       + (" ..." if len(fs) > 30 else "") + ")")
            for f in fs:
                out.append(f"  mutant {f.index} [{f.seed_name}; {'; '.join(f.mutations) or 'unmutated'}]")
                out.append(f"    $ {f.command()}")
                out.append(f"    key: {f.keyline[:200]}")
                for ln in interesting_lines(f.output, lines_per):
                    out.append(f"    | {ln[:200]}")
        return "\n".join(out)


def find_tools(bin_dir=None):
    bin_dir = Path(bin_dir or os.environ.get("KILN_BIN_DIR") or DEFAULT_BIN)
    tools = {t: bin_dir / t for t in ("kiln-opt", "kiln-translate")}
    missing = [str(p) for p in tools.values() if not os.access(p, os.X_OK)]
    return tools, missing


def corpus_context(corpus):
    lines = {"tile": [], "llvm": []}
    for s in corpus:
        for ln in s.text.splitlines():
            if ln.strip() and len(ln) < 300:
                lines[s.kind].append(ln)
    return {"lines": lines}


def run_campaign(seed=1, count=300, jobs=2, timeout=10.0, time_budget=None, out=None,
                 minimize_crashes=False, min_budget=90.0, only=None, tools=None, log=None,
                 test_dir=TEST_DIR):
    if tools is None:
        tools, missing = find_tools()
        if missing:
            raise FileNotFoundError("tools not built: " + ", ".join(missing))
    corpus = load_corpus(test_dir)
    ctx = corpus_context(corpus)
    digest = hashlib.sha256("".join(s.name + s.text for s in corpus).encode()).hexdigest()[:12]
    indices = list(only) if only else list(range(count))
    report = Report(seed, len(indices), corpus_size=len(corpus), corpus_digest=digest)
    out = Path(out or tempfile.mkdtemp(prefix="kiln-fuzz-"))
    out.mkdir(parents=True, exist_ok=True)
    report.out = str(out)
    work = tempfile.mkdtemp(prefix="kiln-fuzz-work-")
    start = time.monotonic()
    lock = threading.Lock()
    pos = [0]
    results = {}

    def worker():
        wd = tempfile.mkdtemp(dir=work)
        while True:
            with lock:
                if pos[0] >= len(indices):
                    return
                if time_budget and time.monotonic() - start > time_budget:
                    report.stopped_by_budget = True
                    return
                idx = indices[pos[0]]
                pos[0] += 1
            try:
                m = make_mutant(seed, idx, corpus, ctx, tools)
                fails, nruns, outcomes = run_mutant(m, wd, timeout)
            except Exception:                       # a bug of the harness, not of the tools
                import traceback
                with lock:
                    report.harness_errors.append(f"mutant {idx}: {traceback.format_exc()}")
                    if log:
                        log(report.harness_errors[-1])
                continue
            with lock:
                for o in outcomes:
                    report.outcomes[o] = report.outcomes.get(o, 0) + 1
                results[idx] = fails
                report.ran += 1
                report.runs += nruns
                if log and (report.ran % 250 == 0 or fails):
                    for f in fails:
                        log(f"  mutant {idx}: {f.signature}")
                    if report.ran % 250 == 0:
                        log(f"  {report.ran} mutants, {time.monotonic() - start:.0f}s, "
                            f"{sum(len(v) for v in results.values())} failing runs")

    with concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as ex:
        for fut in [ex.submit(worker) for _ in range(max(1, jobs))]:
            fut.result()
    report.seconds = time.monotonic() - start
    report.failures = [f for i in sorted(results) for f in results[i]]

    # Reproducers: every failing mutant as it was generated.
    if report.failures:
        rdir = out / "reproducers"
        rdir.mkdir(exist_ok=True)
        for f in report.failures:
            p = rdir / f"mutant-{f.index}-{f.chain}.mlir"
            p.write_text(f.text, encoding="utf-8", errors="surrogatepass")
            f.path = str(p)
            (rdir / f"mutant-{f.index}-{f.chain}.txt").write_text(
                f"seed {seed} mutant {f.index} from {f.seed_name}\nmutations: {f.mutations}\n"
                f"signature: {f.signature}\n$ {f.command(rel_tools=False)}\n\n{f.output}",
                encoding="utf-8", errors="replace")
    if minimize_crashes and report.failures:
        mdir = out / "minimized"
        mdir.mkdir(exist_ok=True)
        summary = []
        for sig, fs in sorted(report.signatures().items(), key=lambda kv: kv[1][0].index):
            f = min(fs, key=lambda x: len(x.text))
            if log:
                log(f"minimizing mutant {f.index} ({len(f.text)} bytes): {sig}")
            text, ok = minimize(f, work, timeout, min_budget)
            name = slug(f)
            p = mdir / f"{name}.mlir"
            n = 2
            while p.exists():
                p, n = mdir / f"{name}-{n}.mlir", n + 1
            write_reproducer(p, f, text)
            summary.append({"signature": sig, "file": str(p), "mutant": f.index, "seed": seed,
                            "mutants": [x.index for x in fs], "minimized": ok,
                            "command": f.command(str(p)), "keyline": f.keyline})
            if log:
                log(f"  -> {p} ({len(text)} bytes{'' if ok else ', did not reproduce'})")
        (out / "minimized.json").write_text(json.dumps(summary, indent=2))
    (out / "report.txt").write_text(report.format_failures() + "\n", encoding="utf-8", errors="replace")
    shutil.rmtree(work, ignore_errors=True)
    return report


def slug(f):
    """A short file name for a failure: tool, kind and the innermost useful frame."""
    kind = f.kind.replace("crash:", "").replace("SIG", "").lower()
    if f.key.startswith("stack overflow"):
        kind = "stack-overflow"
    base = f.frame or (f.chain if f.kind == "timeout" else f.keyline)
    base = base.split("::")[-1] if "::" in base else base
    base = re.sub(r"[^A-Za-z0-9]+", "-", base).strip("-").lower()[:40]
    return "-".join(x for x in (f.tool, kind, base) if x)


def write_reproducer(path, failure, text):
    cmd = failure.command(_rel(str(Path(path).resolve())))
    Path(path).write_text(f"// CMD: {cmd}\n// {failure.signature[:300]}\n{text}",
                          encoding="utf-8", errors="surrogatepass")


def load_reproducer(path):
    """(steps, header, body) of a reproducer whose first line is "// CMD: <command>".
    In steps, the file's own path is "{input}" and tool paths are absolute."""
    path = Path(path).resolve()
    text = path.read_text(encoding="utf-8", errors="surrogateescape")
    lines = text.splitlines(keepends=True)
    if not lines or not lines[0].startswith("// CMD: "):
        return None
    n = 0
    while n < len(lines) and lines[n].startswith("//"):
        n += 1
    steps = []
    for part in lines[0][len("// CMD: "):].strip().split(" | "):
        argv = shlex.split(part)
        argv[0] = argv[0] if os.path.isabs(argv[0]) else str(REPO / argv[0])
        argv[1:] = ["{input}" if not a.startswith("-") and (REPO / a).resolve() == path else a
                    for a in argv[1:]]
        steps.append(argv)
    return steps, "".join(lines[:n]), "".join(lines[n:])


def recheck(folder, timeout=10.0):
    """Run every reproducer's "// CMD:" line; list those that still fail."""
    still = []
    for p in sorted(Path(folder).glob("*.mlir")):
        rep = load_reproducer(p)
        if rep is None:
            continue
        i, c, _ = run_chain(Chain("repro", rep[0]), str(p.resolve()), timeout)
        verdict = "ok (exit 0 or a located error)" if c is None else f"FAILS: {c[0]}: {c[2][:150]}"
        print(f"{_rel(str(p.resolve()))}: {verdict}")
        if c is not None:
            still.append(p)
    return still


def minimize_file(path, timeout=10.0, budget=120.0):
    """Minimize a reproducer in place (its "// CMD:" header is kept)."""
    steps, header, body = load_reproducer(path)
    i, c, results = run_chain(Chain("repro", steps), str(Path(path).resolve()), timeout)
    if c is None:
        print(f"{path}: does not fail")
        return False
    f = Failure(-1, str(path), [], "repro", steps[:i + 1], c[0], c[1], c[2], results[-1].out, body, c[3])
    work = tempfile.mkdtemp(prefix="kiln-fuzz-min-")
    text, ok = minimize(f, work, timeout, budget)
    shutil.rmtree(work, ignore_errors=True)
    Path(path).write_text(header + text, encoding="utf-8", errors="surrogateescape")
    print(f"{path}: {len(body)} -> {len(text)} bytes ({f.kind}: {f.keyline[:120]})")
    return ok


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=400, help="number of mutants (default 400)")
    ap.add_argument("--jobs", type=int, default=2, help="parallel workers (default 2)")
    ap.add_argument("--timeout", type=float, default=10.0, help="per tool run, seconds (default 10)")
    ap.add_argument("--time-budget", type=float, default=None, help="stop starting mutants after S seconds")
    ap.add_argument("--out", default=None, help="output folder (default: a new temp folder)")
    ap.add_argument("--no-minimize", action="store_true", help="do not minimize crashing inputs")
    ap.add_argument("--min-budget", type=float, default=90.0, help="seconds per signature to minimize")
    ap.add_argument("--only", default=None, help="comma-separated mutant indices to run")
    ap.add_argument("--print-mutant", type=int, default=None, help="print mutant N and its commands")
    ap.add_argument("--bin-dir", default=None, help="folder with kiln-opt and kiln-translate")
    ap.add_argument("--recheck", default=None, metavar="DIR", help="re-run saved reproducers in DIR")
    ap.add_argument("--minimize-file", default=None, metavar="FILE",
                    help="minimize a reproducer (first line '// CMD: ...') in place")
    a = ap.parse_args(argv)
    tools, missing = find_tools(a.bin_dir)
    if missing:
        print("tools not built: " + ", ".join(missing), file=sys.stderr)
        return 2
    if a.recheck:
        return 1 if recheck(a.recheck, a.timeout) else 0
    if a.minimize_file:
        minimize_file(a.minimize_file, a.timeout, a.min_budget)
        return 0
    if a.print_mutant is not None:
        corpus = load_corpus()
        m = make_mutant(a.seed, a.print_mutant, corpus, corpus_context(corpus), tools)
        print(f"// seed {a.seed} mutant {m.index} from {m.seed.name}")
        for d in m.mutations:
            print(f"//   {d}")
        for c in m.chains:
            print(f"// {c.name}: " + " | ".join(
                shlex.join([_rel(x[0])] + ["MUTANT.mlir" if a == "{input}" else a for a in x[1:]])
                for x in c.steps))
        sys.stdout.write(m.text)
        return 0
    only = [int(x) for x in a.only.split(",")] if a.only else None
    rep = run_campaign(seed=a.seed, count=a.count, jobs=a.jobs, timeout=a.timeout,
                       time_budget=a.time_budget, out=a.out, only=only, tools=tools,
                       minimize_crashes=not a.no_minimize, min_budget=a.min_budget,
                       log=lambda s: print(s, flush=True))
    print(rep.format_failures() if rep.failures else rep.summary())
    for e in rep.harness_errors:
        print(e)
    print(f"output: {rep.out}")
    return 1 if rep.failures or rep.harness_errors else 0


if __name__ == "__main__":
    sys.exit(main())
