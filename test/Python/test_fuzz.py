"""Mutation fuzzing of kiln-opt and kiln-translate (test/fuzz/fuzz_tools.py).

A fixed-seed campaign over mutants of the lit inputs: every tool run must end
in exit code 0 or a located error, never a crash, an LLVM ERROR / assertion,
or a time-out. On failure the message lists each failing mutant with its
command, the reproducer file (kept in a temp folder) and the first lines of
the crash output.

Knobs (environment): KILN_FUZZ_SEED (default 1), KILN_FUZZ_COUNT (default
400), KILN_FUZZ_JOBS (default 2), KILN_FUZZ_TIMEOUT (per run, default 10 s),
KILN_BIN_DIR (default build/bin). A longer run with minimization:

    /usr/bin/python3 test/fuzz/fuzz_tools.py --count 20000 --seed 1 --out /tmp/kiln-fuzz
"""

import os
import shutil
import sys
import tempfile

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fuzz"))

import fuzz_tools  # noqa: E402

TOOLS, MISSING = fuzz_tools.find_tools()

pytestmark = pytest.mark.skipif(bool(MISSING), reason="tools not built: " + ", ".join(MISSING))

SEED = int(os.environ.get("KILN_FUZZ_SEED", "1"))
COUNT = int(os.environ.get("KILN_FUZZ_COUNT", "400"))
JOBS = int(os.environ.get("KILN_FUZZ_JOBS", "2"))
TIMEOUT = float(os.environ.get("KILN_FUZZ_TIMEOUT", "10"))


def test_mutants_are_deterministic():
    corpus = fuzz_tools.load_corpus()
    ctx = fuzz_tools.corpus_context(corpus)
    for i in (0, 7, 123):
        a = fuzz_tools.make_mutant(SEED, i, corpus, ctx, TOOLS)
        b = fuzz_tools.make_mutant(SEED, i, corpus, ctx, TOOLS)
        assert (a.text, a.mutations, a.seed.name) == (b.text, b.mutations, b.seed.name)


def test_classifier():
    def step(rc, out):
        return fuzz_tools.StepResult(["kiln-opt"], rc, out, b"", 0.1)
    assert fuzz_tools.classify(step(0, "")) is None
    assert fuzz_tools.classify(step(1, "/tmp/a.mlir:3:5: error: bad\n")) is None
    assert fuzz_tools.classify(step(1, "<stdin>:1:1: error: bad\n")) is None
    assert fuzz_tools.classify(step(1, "error: bad\n"))[0] == "unlocated"
    assert fuzz_tools.classify(step(-11, ""))[0] == "crash:SIGSEGV"
    assert fuzz_tools.classify(step(134, ""))[0] == "crash:SIGABRT"
    assert fuzz_tools.classify(step(1, "LLVM ERROR: out of memory\n"))[0] == "crash"
    assert fuzz_tools.classify(step(None, ""))[0] == "timeout"
    assert fuzz_tools.classify(step(2, "x"))[0] == "exit:2"


def test_fuzz_campaign_has_no_crashes():
    out = tempfile.mkdtemp(prefix=f"kiln-fuzz-seed{SEED}-")
    report = fuzz_tools.run_campaign(seed=SEED, count=COUNT, jobs=JOBS, timeout=TIMEOUT,
                                     out=out, tools=TOOLS, minimize_crashes=False)
    print(report.summary())
    assert not report.harness_errors, "\n".join(report.harness_errors)
    assert report.ran == COUNT
    if not report.failures:
        shutil.rmtree(out, ignore_errors=True)
    else:
        pytest.fail(
            report.format_failures(lines_per=4)
            + "\n\nreproducers (mutant-N-CHAIN.mlir, with .txt holding the full output): "
            + f"{out}/reproducers"
            + f"\nreplay: /usr/bin/python3 test/fuzz/fuzz_tools.py --seed {SEED} --only "
            + ",".join(str(i) for i in sorted({f.index for f in report.failures})),
            pytrace=False)


CRASHES = os.path.join(HERE, "..", "fuzz", "crashes")


@pytest.mark.parametrize("name", sorted(f for f in os.listdir(CRASHES) if f.endswith(".mlir"))
                         if os.path.isdir(CRASHES) else [])
def test_saved_crash_reproducer(name):
    """Each minimized reproducer under test/fuzz/crashes must now end in exit 0 or a located error."""
    path = os.path.join(CRASHES, name)
    steps, header, _ = fuzz_tools.load_reproducer(path)
    for argv in steps:                      # honour KILN_BIN_DIR
        argv[0] = str(TOOLS.get(os.path.basename(argv[0]), argv[0]))
    i, c, results = fuzz_tools.run_chain(fuzz_tools.Chain("repro", steps), os.path.abspath(path), TIMEOUT)
    if c is not None:
        cmd = header.splitlines()[0][len("// CMD: "):]
        pytest.fail(f"{name} still fails: {c[0]}: {c[2]}\n  $ {cmd}\n"
                    + "\n".join("  | " + ln for ln in fuzz_tools.interesting_lines(results[-1].out, 4)),
                    pytrace=False)
