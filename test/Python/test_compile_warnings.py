"""C++ warnings and remarks of a compile that succeeds reach the user as Python warnings
(kiln.CompilationWarning / kiln.CompilationRemark) at the user's file and line, once each,
again when the kernel comes from the disk cache; a correct kernel compiles silently.

The pytest suites turn an unexpected kiln.CompilationWarning into an error (conftest.py);
the tests here expect theirs with pytest.warns."""

from __future__ import annotations

import os
import pickle
import types
import warnings

import pytest

import kiln
import kiln.language as kl
from kiln.compiler import compiler as compiler_mod
from kiln.compiler import errors as errors_mod
from kiln.language.amd.cdna4 import async_copy as acp
from kiln.language.nvidia.ampere import async_copy as ampere_copy
import amdgcn_waits

import compiled  # examples/ on sys.path
import located
from fakes import FAKE_TARGETS
from kernels import amd_stream_ring  # examples/kernels.py

HERE = __file__
L = kl.BlockedLayout([1], [64], [4], [0])
SH = kl.SwizzledSharedLayout(1, 1, 1, [0])
SIG = {"x": "*fp32:16", "y": "*fp32:16", "i": "i32", "j": "i32"}
RELAXED_MESSAGE = "this relaxed shared-memory load reads bytes an async copy may still be writing"


@kiln.jit
def relaxed_in_flight(x, y, i, j):
    # wait_group(1) leaves the only group, the copy into slot i, in flight: reading slot j reads
    # bytes it may still be writing (when i == j). Not certain, so no compile error
    # (tile-check-async-safety reports only certain races) but a warning, as
    # load_shared_relaxed asserts that no copy into them is in flight.
    offs = kl.arange(0, 256, L)
    bufs = kl.allocate_shared_memory(kl.float32, [2, 256], SH)
    acp.global_load_to_shared(bufs.index(i), x + offs)  # W:copy
    acp.commit_group()
    acp.wait_group(1)
    v = acp.load_shared_relaxed(bufs.index(j), L)  # W:relaxed
    kl.store(y + offs, v)


RING_SIG = {"a": "*fp32:16", "c": "*fp32:16", "n_tiles": "i32"}


def _ring(target):
    spt = 4 if target.endswith("gfx950") else 1
    return dict(BLOCK=1024, NBUF=3, L=kl.BlockedLayout([spt], [64], [4], [0]), SH=SH,
                BUFFER_COPY=True, RELAXED=True, STORE=True)


@kiln.jit
def add(x, y, out, BLOCK: kl.constexpr, LAYOUT: kl.constexpr):
    offs = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK, LAYOUT)
    kl.store(out + offs, kl.load(x + offs) + kl.load(y + offs))


@pytest.fixture
def racy_kernels_allowed(monkeypatch):
    """The kernels here read bytes a copy may still be writing on purpose: conftest's vmcnt
    simulator (which fails any such AMD compile) is switched off for this test."""
    init = compiler_mod.CompiledKernel.__init__
    monkeypatch.setattr(compiler_mod.CompiledKernel, "__init__",
                        getattr(init, "unchecked", init))


def _compile_relaxed(**kwargs):
    return kiln.compile(relaxed_in_flight, SIG, target="hip:gfx942", **kwargs)


def _assert_relaxed_warning(record):
    """The one warning of relaxed_in_flight: at the load_shared_relaxed line, with a note at
    the copy."""
    ours = [r for r in record if issubclass(r.category, kiln.CompilationWarning)]
    assert len(ours) == 1, [str(r.message) for r in ours]
    (r,) = ours
    w = r.message
    line, col = located.where(HERE, "W:relaxed", "acp.load_shared_relaxed")
    assert r.category is kiln.CompilationWarning
    assert (r.filename, r.lineno) == (HERE, line)
    assert (w.file, w.line) == (HERE, line)
    assert w.severity == "warning" and w.message.startswith(RELAXED_MESSAGE)
    copy_line, _ = located.where(HERE, "W:copy", "acp.global_load_to_shared")
    assert [(n[0], n[1], n[2]) for n in w.notes] == [("the copy", HERE, copy_line)]
    text = str(w).splitlines()
    assert text[0] == f"{HERE}:{line}:{w.col}: warning: {w.message}"
    assert text[1] == "    v = acp.load_shared_relaxed(bufs.index(j), L)  # W:relaxed"
    assert text[2].strip() == "^"
    assert text[3].startswith(f"{HERE}:{copy_line}:") and text[3].endswith("note: the copy")
    return w


@compiled.needs_compiler
def test_relaxed_load_of_bytes_in_flight_warns_at_the_call(racy_kernels_allowed):
    with pytest.warns(kiln.CompilationWarning, match=RELAXED_MESSAGE) as record:
        k = _compile_relaxed(cache=False)
    w = _assert_relaxed_warning(record)
    assert k.warnings == [w]
    # The compile went through, the relaxed load keeping the user's assertion; the
    # independent vmcnt simulator agrees the read may meet the copy in flight.
    assert "tile.synced_via_wait" in k.asm["tile"] and isinstance(k.asm["hsaco"], bytes)
    assert any(r.violations for r in amdgcn_waits.check(k.asm["amdgcn"]))


@compiled.needs_compiler
def test_warm_disk_cache_warns_again(racy_kernels_allowed, monkeypatch, tmp_path):
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path / "cache"))
    with pytest.warns(kiln.CompilationWarning, match=RELAXED_MESSAGE) as record:
        cold = _compile_relaxed()
    first = _assert_relaxed_warning(record)
    assert list((tmp_path / "cache").rglob("*.kiln")), "the compile was not cached"

    # From here no C++ stage may run: the kernel and its warning come from the cache.
    real = compiled.compiler

    def no_stage(*args, **kwargs):
        raise AssertionError("compiled again instead of loading the cache entry")

    cached_only = types.SimpleNamespace(
        **{n: getattr(real, n) for n in dir(real) if not n.startswith("__")})
    cached_only.run_pipeline = cached_only.run_pipeline_with_info = no_stage
    cached_only.translate = cached_only.translate_all = no_stage
    monkeypatch.setattr(compiler_mod, "load_compiler", lambda: cached_only)
    with pytest.warns(kiln.CompilationWarning, match=RELAXED_MESSAGE) as record:
        warm = _compile_relaxed()
    again = _assert_relaxed_warning(record)
    assert again.to_dict() == first.to_dict()
    assert warm.asm == cold.asm and warm.warnings == [again]


@compiled.needs_compiler
def test_correct_kernels_compile_without_any_warning(tmp_path, monkeypatch):
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path / "cache"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # Where ptxas is missing, the CUDA compile says so: the machine's, not the kernel's.
        warnings.simplefilter("ignore", kiln.MissingToolWarning)
        # The AMD ring reading each slot with load_shared_relaxed after the wait that covers
        # its copies, on both chips.
        for target in ("hip:gfx942", "hip:gfx950"):
            k = kiln.compile(amd_stream_ring, RING_SIG, _ring(target), target=target)
            assert k.warnings == [] and "tile.synced_via_wait" in k.asm["tile"]
        for target in ("cuda:sm_90a", "hip:gfx942"):
            warp = 32 if target.startswith("cuda") else 64
            k = kiln.compile(add, {"x": "*fp32", "y": "*fp32", "out": "*fp32"},
                             dict(BLOCK=1024, LAYOUT=kl.BlockedLayout([4], [warp], [4], [0])),
                             target=target)
            assert k.warnings == []
        # And from the cache, still silent.
        assert kiln.compile(amd_stream_ring, RING_SIG, _ring("hip:gfx942"),
                            target="hip:gfx942").warnings == []


def _lanes_layout(warp_size, warps_first):
    # 512 elements over 4 warps, each warp's lanes on consecutive elements; the warp and
    # register bases in either order (the same elements on other waves).
    lanes = [[1 << i] for i in range(warp_size.bit_length() - 1)]
    rest = [[warp_size << i] for i in range((512 // warp_size).bit_length() - 1)]
    warp, reg = (rest[:2], rest[2:]) if warps_first else (rest[-2:], rest[:-2])
    return kl.DistributedLinearLayout(reg, lanes, warp, [], [512])


@kiln.jit
def copy_over_copy(src, out, NV: kl.constexpr, L1: kl.constexpr, L2: kl.constexpr):
    # Two copies into slot 0, the first still in flight (wait_group(1) would leave it), no
    # read in between: on AMD, copies of one kind land in issue order; on NVIDIA (cp.async)
    # they do not; a copy spread over other waves (another layout) writes bytes the first
    # one's lanes also write, unordered.
    offs = kl.arange(0, 512, L1)
    offs2 = kl.arange(0, 512, L2)
    ring = kl.allocate_shared_memory(kl.float32, [2, 512], SH)
    if NV:
        ampere_copy.async_copy_global_to_shared(ring.index(0), src + offs)
        ampere_copy.commit_group()
        ampere_copy.async_copy_global_to_shared(ring.index(0), src + 512 + offs2)  # E:second nv
        ampere_copy.commit_group()
        ampere_copy.wait_group(0)
    else:
        acp.global_load_to_shared(ring.index(0), src + offs)
        acp.commit_group()
        acp.global_load_to_shared(ring.index(0), src + 512 + offs2)  # E:second amd
        acp.commit_group()
        acp.wait_group(0)
    kl.store(out + offs, ring.index(0).load(L1))


@pytest.mark.parametrize("target,other,refused", [
    ("hip:gfx950", False, False), ("hip:gfx942", False, False),
    ("hip:gfx950", True, True), ("cuda:sm_90a", False, True)])
def test_a_copy_over_an_earlier_copy_in_flight(target, other, refused):
    sig = {"src": "*fp32:16", "out": "*fp32:16"}
    nv = target.startswith("cuda")
    first = _lanes_layout(32 if nv else 64, True)
    cx = {"NV": nv, "L1": first, "L2": _lanes_layout(32 if nv else 64, not other)}
    if not refused:
        assert kiln.compile(copy_over_copy, sig, cx, target=target, cache=False).warnings == []
        return
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(copy_over_copy, sig, cx, target=target, cache=False)
    assert "may still be writing" in str(ei.value), str(ei.value)
    mark = "# E:second nv" if nv else "# E:second amd"
    line = next(i for i, t in enumerate(open(HERE).read().splitlines(), 1) if mark in t)
    assert ei.value.line == line, str(ei.value)


def test_a_copy_over_an_unread_copy_of_the_same_op_compiles():
    # two_slot_ring's top-only form (Triton compiles it): a check that named the
    # twice-advanced counters without the copy-order rule refused it ("writes shared memory
    # that the async copy ... may still be writing"), a porting regression.
    with warnings.catch_warnings():
        warnings.simplefilter("error", kiln.CompilationWarning)
        k = kiln.compile(two_slot_ring, {"src": "*fp32:16", "out": "*fp32:16", "n": "i32"},
                         {"TRIPS": 5, "BOTTOM": True}, target="hip:gfx950", cache=False)
    assert k.warnings == [] and k.asm["amdgcn"]


@kiln.jit
def _ring_stage(top, bot, ptrs, load, BOTTOM: kl.constexpr):
    """One stage: the top half into slot load % 2 (one commit group), and with BOTTOM the
    bottom half into its own ring (another group)."""
    acp.global_load_to_shared(top.index(load % 2), ptrs + load * 512)
    acp.commit_group()
    if BOTTOM:
        acp.global_load_to_shared(bot.index(load % 2), ptrs + load * 512 + 256)
        acp.commit_group()
    return load + 1


@kiln.jit
def two_slot_ring(src, out, n, TRIPS: kl.constexpr, BOTTOM: kl.constexpr):
    # A two-slot ring driven by a loop unrolled by hand (a third-party MoE GEMM's pipeline):
    # counters `load` / `use` advanced twice a trip, each half refilling slot load % 2 and
    # reading slot use % 2 (= (load + 1) % 2) after the wait that leaves only the copies just
    # issued in flight. With BOTTOM (its top-only form), each stage also copies a bottom half
    # nobody reads, one commit group of its own, and the wait leaves 3 groups, so the
    # previous bottom copy into the same slot may still be in flight when the next is issued.
    # Race-free either way (copies of one kind land in issue order on AMD), with a constant
    # trip count (TRIPS) or a run-time one (TRIPS = 0: n).
    offs = kl.arange(0, 256, L)
    top = kl.allocate_shared_memory(kl.float32, [2, 256], SH)
    bot = kl.allocate_shared_memory(kl.float32, [2, 256], SH)
    acc = kl.zeros([256], kl.float32, L)
    load = 0
    use = 0
    for _ in kl.static_range(2):
        load = _ring_stage(top, bot, src + offs, load, BOTTOM)
    acp.wait_group(3 if BOTTOM else 1)
    x = acp.load_shared_relaxed(top.index(use % 2), L)
    use += 1
    trips = TRIPS if TRIPS > 0 else n
    for _ in range(0, trips):
        for _half in kl.static_range(2):
            kl.barrier()
            load = _ring_stage(top, bot, src + offs, load, BOTTOM)
            acc += x
            acp.wait_group(3 if BOTTOM else 1)
            x = acp.load_shared_relaxed(top.index(use % 2), L)
            use += 1
    acc += x
    acp.wait_group(0)
    acc += acp.load_shared_relaxed(top.index(use % 2), L)
    kl.store(out + offs, acc)


@pytest.mark.parametrize("trips", [0, 5])
def test_a_ring_unrolled_by_hand_compiles_without_a_warning(trips):
    # With TRIPS = 5 the loop's trip count is a constant; the counters advanced by 2 a trip
    # were not named then, and each in-loop read warned against the copy just issued.
    with warnings.catch_warnings():
        warnings.simplefilter("error", kiln.CompilationWarning)
        k = kiln.compile(two_slot_ring, {"src": "*fp32:16", "out": "*fp32:16", "n": "i32"},
                         {"TRIPS": trips, "BOTTOM": False}, target="hip:gfx950", cache=False)
    assert k.warnings == []
    assert k.asm["tile"].count("tile.synced_via_wait") >= 4




# -- where a warning goes, with a stand-in compiler ------------------------------------------


@kiln.jit
def small(x, n):  # W:def
    offs = kl.arange(0, 128, kl.BlockedLayout([1], [32], [4], [0]))
    kl.store(x + offs, 1.0, mask=offs < n)  # W:store


class _Warning:
    """A compiler whose stages succeed with the diagnostics given per stage."""

    class CompilationError(Exception):
        def __init__(self, msg, diagnostics=()):
            super().__init__(msg)
            self.diagnostics = list(diagnostics)

    def __init__(self, parse=(), lower=(), translate=()):
        self.parse, self.lower, self.translated = list(parse), list(lower), list(translate)
        self.translate_calls = 0

    def version(self):
        return "fake-warnings"

    def default_target(self):
        return "cuda:sm_90a"

    def known_targets(self):
        return [dict(t) for t in FAKE_TARGETS]

    def run_pipeline(self, ir, pipeline, source_name="kernel", diagnostics=None):
        if diagnostics is not None:
            diagnostics.extend(self.parse)
        return ir

    def run_pipeline_with_info(self, ir, pipeline, source_name="kernel"):
        return {"text": ir, "diagnostics": list(self.lower),
                "info": {"shared": 0, "num_warps": None, "target": None, "kernels": []}}

    def translate_all(self, text, target, emits, seconds=None, diagnostics=None):
        self.translate_calls += 1
        if diagnostics is not None:
            diagnostics.extend(self.translated)
        return [b"\x7fELF" if e in ("cubin", "hsaco") else b"; text" for e in emits]


def _diag(severity, message, file, line, col):
    return {"severity": severity, "message": message, "file": file, "line": line, "col": col,
            "facts": {}}


def _compile_small(monkeypatch, tmp_path, fake, cache=False):
    monkeypatch.setattr(compiler_mod, "load_compiler", lambda: fake)
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path / "cache"))
    return kiln.compile(small, {"x": "*fp32", "n": "i32"}, target="cuda:sm_90a", cache=cache)


def test_every_stage_warns_once_at_the_users_line_or_the_def(monkeypatch, tmp_path):
    store_line, store_col = located.where(HERE, "W:store", "kl.store")
    def_line, def_col = located.where(HERE, "W:def", "def small")
    fake = _Warning(
        parse=[_diag("warning", "verifier says", HERE, store_line, store_col),
               _diag("note", "see here", HERE, def_line, 1)],
        lower=[_diag("remark", "pass remark", HERE, store_line, store_col),
               _diag("warning", "in generated IR", "kernel.tile.mlir", 7, 3),
               # The same warning from a second run of a pass: emitted once.
               _diag("warning", "verifier says", HERE, store_line, store_col),
               _diag("note", "see here", HERE, def_line, 1)],
        translate=[_diag("warning", "backend says", "<llvm-dialect>", 1, 1),
                   _diag("warning", "no location", None, None, None)])
    with pytest.warns(kiln.CompilationWarning) as record:
        k = _compile_small(monkeypatch, tmp_path, fake)
    got = [(r.category, r.filename, r.lineno, r.message.message) for r in record]
    assert got == [
        (kiln.CompilationWarning, HERE, store_line, "verifier says"),
        (kiln.CompilationRemark, HERE, store_line, "pass remark"),
        (kiln.CompilationWarning, HERE, def_line,
         "in generated IR (the kiln-to-llvm stage reported it at kernel.tile.mlir:7:3)"),
        (kiln.CompilationWarning, HERE, def_line,
         "backend says (the translate to llvm, ptx, cubin stage reported it at "
         "<llvm-dialect>:1:1)"),
        (kiln.CompilationWarning, HERE, def_line,
         "no location (reported by the translate to llvm, ptx, cubin stage)"),
    ]
    first = record[0].message
    assert first.notes == [("see here", HERE, def_line, 1)]
    assert str(first).splitlines()[:4] == [
        f"{HERE}:{store_line}:{store_col}: warning: verifier says",
        "    kl.store(x + offs, 1.0, mask=offs < n)  # W:store",
        "    ^",
        f"{HERE}:{def_line}:1: note: see here"]
    remark = record[1].message
    assert isinstance(remark, kiln.CompilationWarning) and remark.severity == "remark"
    assert str(remark).splitlines()[0] == f"{HERE}:{store_line}:{store_col}: remark: pass remark"
    at_def = str(record[2].message).splitlines()
    assert at_def[0].startswith(f"{HERE}:{def_line}:{def_col}: warning: in generated IR")
    assert at_def[1] == "    def small(x, n):  # W:def"
    assert [w.to_dict() for w in k.warnings] == [r.message.to_dict() for r in record]


def test_cache_entry_keeps_the_warnings(monkeypatch, tmp_path):
    store_line, store_col = located.where(HERE, "W:store", "kl.store")
    fake = _Warning(lower=[_diag("remark", "pass remark", HERE, store_line, store_col),
                           _diag("note", "because", "kernel.tile.mlir", 3, 4)])
    with pytest.warns(kiln.CompilationRemark) as cold:
        _compile_small(monkeypatch, tmp_path, fake, cache=True)
    assert fake.translate_calls == 1
    with pytest.warns(kiln.CompilationRemark) as warm:
        k = _compile_small(monkeypatch, tmp_path, fake, cache=True)
    assert fake.translate_calls == 1, "not from the cache"
    assert [(r.category, r.filename, r.lineno, str(r.message)) for r in warm] == \
        [(r.category, r.filename, r.lineno, str(r.message)) for r in cold]
    assert k.warnings[0].notes == [("because", "kernel.tile.mlir", 3, 4)]


def test_a_warning_is_an_error_under_the_test_suites_filter(monkeypatch, tmp_path,
                                                            pytestconfig):
    """conftest.py's filter: an unexpected warning fails the test."""
    assert "error::kiln.CompilationWarning" in pytestconfig.getini("filterwarnings")
    store_line, store_col = located.where(HERE, "W:store", "kl.store")
    fake = _Warning(parse=[_diag("warning", "unexpected", HERE, store_line, store_col)])
    with pytest.raises(kiln.CompilationWarning, match="unexpected"):
        _compile_small(monkeypatch, tmp_path, fake)


def test_payload_warnings_are_optional_but_checked():
    k = compiler_mod.CompiledKernel(
        "k", {"tile": "module {}", "cubin": b"\x7fELF"},
        {"name": "k", "target": "cuda:sm_90a", "key": "abc", "num_warps": 4,
         "threads_per_warp": 32, "shared": 0, "params": []}, "replay",
        warnings=[kiln.CompilationRemark("r", HERE, 3, 1, notes=[("n", None, None, None)])])
    payload = k.to_payload()
    assert compiler_mod.valid_payload(payload)
    back = compiler_mod.CompiledKernel.from_payload(payload).warnings
    assert [type(w) for w in back] == [kiln.CompilationRemark]
    assert back[0].to_dict() == k.warnings[0].to_dict()
    old = dict(payload)
    del old["warnings"]  # an entry written before warnings were kept
    assert compiler_mod.valid_payload(old)
    assert compiler_mod.CompiledKernel.from_payload(old).warnings == []
    good = payload["warnings"][0]
    for bad in ({}, [good, "x"], "x", [dict(good, message=3)], [dict(good, line="3")],
                [dict(good, file=3)], [dict(good, severity=None)], [dict(good, col=-1)],
                [dict(good, notes="n")], [dict(good, notes=[["n", None, None]])],
                [dict(good, notes=[[1, None, None, None]])],
                [dict(good, notes=[["n", None, 1.5, None]])]):
        assert not compiler_mod.valid_payload(dict(payload, warnings=bad)), bad


def test_warning_classes():
    assert issubclass(kiln.CompilationWarning, UserWarning)
    assert issubclass(kiln.CompilationRemark, kiln.CompilationWarning)
    assert errors_mod.CompilationWarning is kiln.CompilationWarning
    assert kiln.compiler.CompilationRemark is kiln.CompilationRemark
    line, col = located.where(HERE, "W:store", "kl.store")
    w = kiln.CompilationWarning("careful", HERE, line, col, notes=[("why", HERE, line, 9)])
    assert pickle.loads(pickle.dumps(w)).to_dict() == w.to_dict()
    assert str(w) == (f"{HERE}:{line}:{col}: warning: careful\n"
                      f"    kl.store(x + offs, 1.0, mask=offs < n)  # W:store\n"
                      f"    ^\n"
                      f"{HERE}:{line}:9: note: why\n"
                      f"    kl.store(x + offs, 1.0, mask=offs < n)  # W:store\n"
                      f"        ^")
    assert str(kiln.CompilationRemark("r")) == "remark: r"


def test_ptxas_performance_advisories_are_warnings(monkeypatch, tmp_path):
    """ptxas's "Potential Performance Loss" lines (wgmma serialized, setmaxnreg ignored) are
    warnings of the compile, at the kernel's def; its other output is not. A wrapper in
    KILN_PTXAS runs the real assembler and adds the lines."""
    import shutil
    real = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    if not os.path.exists(real):
        pytest.skip("no ptxas on this machine")
    advisory = ("ptxas info    : (C7515) Potential Performance Loss: wgmma.mma_async "
                "instructions are serialized due to non wgmma instructions defining "
                "accumulator registers of a wgmma between start and end of the pipeline "
                "stage in the function 'small'")
    wrapper = tmp_path / "ptxas"
    wrapper.write_text(f"#!/bin/sh\n{real} \"$@\" || exit $?\n"
                       f"echo 'ptxas info    : Used 8 registers' >&2\n"
                       f"echo \"{advisory}\" >&2\n")
    wrapper.chmod(0o755)
    monkeypatch.setenv("KILN_PTXAS", str(wrapper))
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path / "cache"))
    def_line, _ = located.where(HERE, "W:def", "def small")
    with pytest.warns(kiln.CompilationWarning) as record:
        k = kiln.compile(small, {"x": "*fp32", "n": "i32"}, target="cuda:sm_90a", cache=False)
    got = [(r.filename, r.lineno, r.message.message) for r in record]
    assert len(got) == 1, got
    assert got[0][:2] == (HERE, def_line)
    assert got[0][2] == "ptxas: " + advisory.split(" : ", 1)[1], got[0][2]
    assert k.asm.get("cubin")
