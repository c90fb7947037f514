"""kiln.compile stages, the on-disk cache (keys, corruption, write failures, concurrent
writers), the @kiln.jit launch path and AOT bundles.

Most tests use a fake ``kiln._compiler`` (so they run without the C++ build and count
compilations); the ones marked ``needs_compiler`` use the real extension.
"""

import errno
import importlib.util
import linecache
import multiprocessing
import os
import subprocess
import sys
import textwrap

import pytest

import kiln
import kiln.language as kl
from kiln.compiler import cache as cache_mod
from kiln.compiler import compiler as compiler_mod
from kiln.compiler.cache import CacheWarning, DiskCache

from fakes import FAKE_TARGETS

import compiled

real_compiler = compiled.compiler
needs_compiler = compiled.needs_compiler
PYTHON_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python")

L = kl.BlockedLayout([4], [32], [4], [0])


class FakeCompiler:
    """Stands in for kiln._compiler; counts parse/verify runs (= compilations)."""

    class CompilationError(Exception):
        def __init__(self, msg, diagnostics=()):
            super().__init__(msg)
            self.diagnostics = list(diagnostics)

    def __init__(self, version="fake-1.0"):
        self._version = version
        self.compiles = 0
        self.pipelines = []

    def version(self):
        return self._version

    def default_target(self):
        return "cuda:sm_90a"


    def known_targets(self):
        return [dict(t) for t in FAKE_TARGETS]

    def run_pipeline(self, ir, pipeline, source_name="kernel"):
        self.pipelines.append(pipeline)
        if pipeline == "builtin.module()":
            self.compiles += 1
            return ir
        return "module attributes {tile.shared = 384 : i32} {\n  llvm.func @k()\n}\n"

    def run_pipeline_with_info(self, ir, pipeline, source_name="kernel"):
        return {"text": self.run_pipeline(ir, pipeline, source_name),
                "info": {"shared": 384, "num_warps": None, "target": None, "kernels": ["k"]}}

    def translate(self, text, target, emit):
        if emit in ("cubin", "hsaco"):
            return b"\x7fELF\x00binary-" + emit.encode()
        return f"; {emit} for {target}\n".encode()


@pytest.fixture
def fake(monkeypatch, tmp_path):
    fc = FakeCompiler()
    monkeypatch.setattr(compiler_mod, "load_compiler", lambda: fc)
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path / "cache"))
    return fc


@kiln.jit
def add(x, y, out, n, BLOCK: kl.constexpr):
    offs = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK, L)
    m = offs < n
    kl.store(out + offs, kl.load(x + offs, mask=m) + kl.load(y + offs, mask=m), mask=m)


SIG = {"x": "*fp32:16", "y": "*fp32:16", "out": "*fp32:16", "n": "i32"}


def entries(tmp_path):
    return sorted(p for p in (tmp_path / "cache").rglob("*") if p.is_file())


# --- compile, stages, metadata ------------------------------------------------------------------


def test_compile_stages_metadata_and_replay(fake, tmp_path):
    k = kiln.compile(add, SIG, {"BLOCK": 512}, target="cuda:sm_90a", num_warps=4)
    assert list(k.asm) == ["tile", "llvm_dialect", "llir", "ptx", "cubin"]
    assert k.asm["cubin"].startswith(b"\x7fELF") and isinstance(k.asm["ptx"], str)
    assert '"tile.arange"() {start = 0 : i32, end = 512 : i32}' in k.asm["tile"]
    assert fake.pipelines[1] == "builtin.module(kiln-to-llvm{target=cuda:sm_90a num-warps=4})"
    assert k.pipeline == ('kiln-opt --kiln-to-llvm="target=cuda:sm_90a num-warps=4" '
                          'kernel.tile.mlir | kiln-translate --target=cuda:sm_90a --emit=ptx')
    md = k.metadata
    assert md["name"] == "add" and md["target"] == "cuda:sm_90a" and md["num_warps"] == 4
    assert md["threads_per_warp"] == 32 and md["shared"] == 384
    assert md["params"] == [{"name": "x", "type": "*fp32", "divisibility": 16},
                            {"name": "y", "type": "*fp32", "divisibility": 16},
                            {"name": "out", "type": "*fp32", "divisibility": 16},
                            {"name": "n", "type": "i32"}]
    assert md["constexprs"] == {"BLOCK": 512} and len(md["key"]) == 64
    files = k.write_stages(tmp_path / "stages")
    names = sorted(p.name for p in (tmp_path / "stages").iterdir())
    assert names == ["kernel.cubin", "kernel.ll", "kernel.llvm.mlir", "kernel.ptx",
                     "kernel.tile.mlir", "metadata.json", "replay.sh"]
    assert files["cubin"].read_bytes() == k.asm["cubin"]


def test_hip_stages(fake):
    @kiln.jit
    def k(out, LAYOUT: kl.constexpr):
        kl.store(out + kl.arange(0, 256, LAYOUT), 1.0)
    ck = kiln.compile(k, {"out": "*fp32"}, {"LAYOUT": kl.BlockedLayout([1], [64], [4], [0])},
                      target="hip:gfx942")
    assert list(ck.asm) == ["tile", "llvm_dialect", "llir", "amdgcn", "hsaco"]
    assert ck.metadata["threads_per_warp"] == 64 and ck.binary.endswith(b"hsaco")
    assert ck.pipeline.endswith("--emit=amdgcn")


def test_missing_extension_is_reported_at_compile_time(monkeypatch):
    monkeypatch.setattr(compiler_mod, "load_compiler", lambda: None)
    with pytest.raises(kiln.ExtensionNotBuilt, match="Kiln's compiler extension is not built"):
        kiln.compile(add, SIG, {"BLOCK": 512})
    # The target table lives in C++ (the backends), so IR cannot be made without it either.
    with pytest.raises(kiln.ExtensionNotBuilt, match="Kiln's compiler extension is not built"):
        compiler_mod.make_ir(add, SIG, {"BLOCK": 512})


def test_compiler_diagnostics_become_located_errors(fake, monkeypatch):
    def fail(ir, pipeline, source_name="kernel"):
        raise FakeCompiler.CompilationError("boom", [
            {"severity": "error", "message": "load: bad", "file": __file__,
             "line": 5, "col": 1}])
    monkeypatch.setattr(fake, "run_pipeline", fail)
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(add, SIG, {"BLOCK": 512})
    assert (ei.value.file, ei.value.line, ei.value.col) == (__file__, 5, 1)
    assert str(ei.value).startswith(f"{__file__}:5:1: error: load: bad")


# --- disk cache -----------------------------------------------------------------------------------


def test_disk_cache_hit_skips_compilation(fake, tmp_path):
    k1 = kiln.compile(add, SIG, {"BLOCK": 512})
    assert fake.compiles == 1 and len(entries(tmp_path)) == 1
    k2 = kiln.compile(add, SIG, {"BLOCK": 512})
    assert fake.compiles == 1
    assert k2.asm == k1.asm and k2.metadata == k1.metadata and k2.pipeline == k1.pipeline
    kiln.compile(add, SIG, {"BLOCK": 512}, cache=False)
    assert fake.compiles == 2


def test_key_covers_specialization_options_and_version(fake, monkeypatch):
    def key(sig=SIG, cx={"BLOCK": 512}, target="cuda:sm_90a", nw=4, version="fake-1.0"):
        params = compiler_mod.parse_signature(add, sig, cx)
        return compiler_mod.cache_key(add, params, target, nw, version)
    base = key()
    assert base == key()
    variants = [key(cx={"BLOCK": 1024}), key(nw=8), key(target="hip:gfx942"),
                key(version="fake-2.0"), key(sig=dict(SIG, n="i32:16")),
                key(sig=dict(SIG, x="*fp16:16")), key(sig=dict(SIG, x="*fp32")),
                key(cx={"BLOCK": 512, "n": 1}, sig={k: v for k, v in SIG.items() if k != "n"})]
    assert len({base, *variants}) == len(variants) + 1


def test_key_covers_layout_constexprs(fake):
    @kiln.jit
    def k(out, LAYOUT: kl.constexpr):
        kl.store(out + kl.arange(0, 128, LAYOUT), 1.0)
    keys = set()
    for layout in (kl.BlockedLayout([1], [32], [4], [0]), kl.BlockedLayout([2], [32], [4], [0]),
                   kl.to_linear_layout(kl.BlockedLayout([1], [32], [4], [0]), [128])):
        params = compiler_mod.parse_signature(k, {"out": "*fp32"}, {"LAYOUT": layout})
        keys.add(compiler_mod.cache_key(k, params, "cuda:sm_90a", 4, "v"))
    assert len(keys) == 3


MODULE = '''
import kiln
import kiln.language as kl
G = kl.constexpr({g})

@kiln.jit
def helper(v):
    return v + {helper}

@kiln.jit
def middle(v):
    return helper(v)

@kiln.jit
def kern(x):
    offs = kl.arange(0, 128, kl.BlockedLayout([1], [32], [4], [0]))
    kl.store(x + offs, middle(offs) + G)
'''


def load_module(path, name, g=3, helper="1"):
    path.write_text(textwrap.dedent(MODULE.format(g=g, helper=helper)))
    linecache.clearcache()
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def kern_key(mod):
    params = compiler_mod.parse_signature(mod.kern, {"x": "*i32"}, {})
    return compiler_mod.cache_key(mod.kern, params, "cuda:sm_90a", 4, "v")


def test_key_covers_transitive_dependencies_and_globals(tmp_path):
    path = tmp_path / "kmod.py"
    base = kern_key(load_module(path, "kmod_a"))
    assert kern_key(load_module(path, "kmod_b")) == base
    assert kern_key(load_module(path, "kmod_c", helper="1 + 1")) != base  # source 2 calls away
    mod = load_module(path, "kmod_d")
    assert kern_key(mod) == base
    mod.G = kl.constexpr(4)  # a constexpr global the kernel reads
    assert kern_key(mod) != base


def test_key_is_stable_across_processes(tmp_path):
    path = tmp_path / "kmod.py"
    here = kern_key(load_module(path, "kmod_p"))
    code = (f"import sys; sys.path.insert(0, {PYTHON_DIR!r}); sys.path.insert(0, "
            f"{str(tmp_path)!r})\n"
            "import kmod\nfrom kiln.compiler import compiler as c\n"
            "p = c.parse_signature(kmod.kern, {'x': '*i32'}, {})\n"
            "print(c.cache_key(kmod.kern, p, 'cuda:sm_90a', 4, 'v'))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, env=dict(os.environ, PYTHONHASHSEED="123"))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == here


@pytest.mark.parametrize("damage", ["truncate", "garbage", "empty", "flip", "other_key"])
def test_corrupted_entry_is_a_miss(fake, tmp_path, damage):
    kiln.compile(add, SIG, {"BLOCK": 512})
    (path,) = entries(tmp_path)
    data = path.read_bytes()
    if damage == "truncate":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "garbage":
        path.write_bytes(os.urandom(300))
    elif damage == "empty":
        path.write_bytes(b"")
    elif damage == "flip":  # valid header, payload altered
        i = data.index(b'"name"')
        path.write_bytes(data[:i] + b'"nAme"' + data[i + 6:])
    else:  # a valid entry of another key stored under this name
        other = DiskCache(path.parent.parent)
        other.put("f" * 64, {"asm": {}, "metadata": {}, "name": "x", "pipeline": ""})
        os.replace(other.path("f" * 64), path)
    k = kiln.compile(add, SIG, {"BLOCK": 512})
    assert fake.compiles == 2 and k.asm["cubin"].startswith(b"\x7fELF")
    # the entry was rewritten and is valid again
    assert DiskCache().get(k.metadata["key"]) is not None
    kiln.compile(add, SIG, {"BLOCK": 512})
    assert fake.compiles == 2


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EACCES, errno.EROFS])
def test_write_failure_warns_and_continues(fake, tmp_path, monkeypatch, code):
    def fail(*a, **kw):
        raise OSError(code, os.strerror(code))
    monkeypatch.setattr(cache_mod.os, "replace", fail)
    with pytest.warns(CacheWarning, match=os.strerror(code)):
        k = kiln.compile(add, SIG, {"BLOCK": 512})
    assert k.binary.startswith(b"\x7fELF")
    assert entries(tmp_path) == []  # no entry, no leftover temporary file
    with pytest.warns(CacheWarning):
        kiln.compile(add, SIG, {"BLOCK": 512})
    assert fake.compiles == 2


def test_unwritable_cache_dir_warns(fake, tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("KILN_CACHE_DIR", str(blocker / "cache"))
    with pytest.warns(CacheWarning, match="could not write the kernel cache entry"):
        kiln.compile(add, SIG, {"BLOCK": 512})


def _writer(root, barrier, payload):
    barrier.wait()
    for _ in range(20):
        DiskCache(root).put("ab" * 32, payload)


def test_concurrent_writers_leave_one_valid_entry(tmp_path):
    payload = {"name": "k", "asm": {"tile": "x" * 20000, "cubin": b"\x00" * 50000},
               "metadata": {"key": "ab" * 32}, "pipeline": "p"}
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(4)
    procs = [ctx.Process(target=_writer, args=(str(tmp_path), barrier, payload))
             for _ in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    got = DiskCache(tmp_path).get("ab" * 32)
    assert got["asm"] == payload["asm"]
    assert [p.name for p in tmp_path.rglob("*") if p.is_file()] == [f"{'ab' * 32}.kiln"]


# --- entries with a valid checksum but a wrong shape ------------------------------------------


def _rewrite_entry(path, mutate):
    """Re-encode the entry at ``path`` after ``mutate(payload)``: the checksum stays valid."""
    payload = cache_mod._decode(path.read_bytes())
    payload.pop("format")
    mutate(payload)
    path.write_bytes(cache_mod._encode(payload))


@pytest.mark.parametrize("mutate", [
    lambda p: p.pop("name"),
    lambda p: p.update(name=7),
    lambda p: p.pop("metadata"),
    lambda p: p["metadata"].pop("shared"),
    lambda p: p["metadata"].update(num_warps="4"),
    lambda p: p["metadata"].update(params="x: *fp32"),
    lambda p: p["metadata"]["params"][0].pop("type"),
    lambda p: p["metadata"]["params"][0].update(divisibility="16"),
    lambda p: p["asm"].pop("cubin"),
    lambda p: p["asm"].update(cubin="not bytes"),
    lambda p: p.update(pipeline=None),
], ids=["no-name", "name-int", "no-metadata", "no-shared", "num_warps-str", "params-str",
        "param-no-type", "divisibility-str", "no-binary", "binary-text", "pipeline-none"])
def test_entry_with_missing_or_mistyped_fields_is_dropped_and_recompiled(fake, tmp_path, mutate):
    """A well-formed, correctly checksummed entry that lacks a field the loader reads (or has
    it with the wrong type) must not break every later compile: it is removed and the kernel
    recompiled, and the fresh entry replaces it."""
    kiln.compile(add, SIG, {"BLOCK": 512})
    (path,) = entries(tmp_path)
    _rewrite_entry(path, mutate)
    k = kiln.compile(add, SIG, {"BLOCK": 512})
    assert fake.compiles == 2
    assert k.name == "add" and k.binary.startswith(b"\x7fELF")
    assert k.metadata["num_warps"] == 4 and k.metadata["params"][0]["type"] == "*fp32"
    assert compiler_mod.valid_payload(DiskCache().get(k.metadata["key"]))  # replaced
    kiln.compile(add, SIG, {"BLOCK": 512})
    assert fake.compiles == 2  # and used again


def test_get_with_a_validator_removes_rejected_entries(tmp_path):
    disk = DiskCache(tmp_path)
    disk.put("ab" * 32, {"name": "k", "asm": {}, "metadata": {}, "pipeline": ""})
    assert disk.get("ab" * 32) is not None
    assert disk.get("ab" * 32, validate=lambda p: False) is None
    assert not disk.path("ab" * 32).exists()


# --- everything code generation reads is part of the key ---------------------------------------

GLOBALS_MODULE = """
import kiln
import kiln.language as kl

LG = kl.BlockedLayout([{spt}], [32], [4], [0])
DT = kl.{dt}
BASE = {base}
L1 = kl.BlockedLayout([1], [32], [4], [0])


@kl.constexpr_function
def scale():
    return {scale}


def _plus_one(v):
    return v + 1


@kl.constexpr_function
def offset():
    return _plus_one(BASE)


@kiln.jit
def k_layout(x):
    offs = kl.arange(0, 512, LG)
    kl.store(x + offs, kl.load(x + offs) + 1.0)


@kiln.jit
def k_dtype(x):
    offs = kl.arange(0, 128, L1)
    kl.store(x + offs, kl.load(x + offs).to(DT).to(kl.float32))


@kiln.jit
def k_helper(x):
    offs = kl.arange(0, 128, L1)
    kl.store(x + offs, kl.load(x + offs) * scale())


@kiln.jit
def k_transitive(x):
    offs = kl.arange(0, 128, L1)
    kl.store(x + offs, kl.load(x + offs) + offset())


@kiln.jit
def k_plain(x):
    offs = kl.arange(0, 128, L1)
    LG = 3  # a local, not the global
    kl.store(x + offs, kl.load(x + offs) + LG)
"""

GLOBALS_DEFAULTS = {"spt": 1, "dt": "float16", "scale": "2.0", "base": 10}

# One "process": import the module, compile every kernel against the disk cache (with a
# stand-in for kiln._compiler that records which kernels it compiled), print the results.
NEXT_PROCESS = """
import json, sys
sys.path[:0] = [{python!r}, {folder!r}]
import kiln
from kiln.compiler import compiler as c

class Fake:
    class CompilationError(Exception):
        pass
    compiled = []
    def version(self):
        return "fake-1.0"
    def default_target(self):
        return "cuda:sm_90a"

    def known_targets(self):
        return [{{"name": "cuda:sm_90a", "vendor": "nvidia", "warp_size": 32,
                 "max_threads_per_block": 1024, "assembly": "ptx", "binary": "cubin",
                 "tool_environment": ["KILN_PTXAS"]}}]
    def run_pipeline(self, ir, pipeline, source_name="kernel"):
        if pipeline == "builtin.module()":
            Fake.compiled.append(ir)
            return ir
        return "module {{}}"
    def run_pipeline_with_info(self, ir, pipeline, source_name="kernel"):
        return {{"text": self.run_pipeline(ir, pipeline, source_name),
                "info": {{"shared": 0, "num_warps": None, "target": None, "kernels": []}}}}
    def translate(self, text, target, emit):
        return b"\\x7fELF" if emit == "cubin" else b"; text"

c.load_compiler = lambda: Fake()
import {module} as m
out = {{}}
for name in ("k_layout", "k_dtype", "k_helper", "k_transitive", "k_plain"):
    before = len(Fake.compiled)
    k = kiln.compile(getattr(m, name), {{"x": "*fp32"}}, target="cuda:sm_90a")
    out[name] = {{"tile": k.asm["tile"], "compiled": len(Fake.compiled) > before}}
print(json.dumps(out))
"""


def _write_globals_module(folder, name, **values):
    (folder / f"{name}.py").write_text(GLOBALS_MODULE.format(**dict(GLOBALS_DEFAULTS, **values)))


def _next_process(folder, module, cache_dir):
    import json
    code = NEXT_PROCESS.format(python=PYTHON_DIR, folder=str(folder), module=module)
    env = dict(os.environ, KILN_CACHE_DIR=str(cache_dir), PYTHONDONTWRITEBYTECODE="1")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_changed_globals_and_helpers_are_not_served_stale_by_the_next_process(tmp_path):
    """A module-level layout, dtype, constexpr_function body, or a global that a helper
    reads, changed between two processes: the second process must compile again (and see
    the new value) instead of loading the first process's binary. Kernels that read none of
    them keep hitting the cache."""
    cache_dir = tmp_path / "cache"
    _write_globals_module(tmp_path, "kglobals")
    first = _next_process(tmp_path, "kglobals", cache_dir)
    assert all(r["compiled"] for r in first.values())
    assert "sizePerThread = [1]" in first["k_layout"]["tile"]
    assert "f16" in first["k_dtype"]["tile"] and "2.000000e+00" in first["k_helper"]["tile"]
    assert "1.100000e+01" in first["k_transitive"]["tile"]

    again = _next_process(tmp_path, "kglobals", cache_dir)  # nothing changed: all cached
    assert not any(r["compiled"] for r in again.values())

    _write_globals_module(tmp_path, "kglobals", spt=4, dt="bfloat16", scale="3.0", base=20)
    second = _next_process(tmp_path, "kglobals", cache_dir)
    assert second["k_layout"]["compiled"] and "sizePerThread = [4]" in second["k_layout"]["tile"]
    assert second["k_dtype"]["compiled"] and "bf16" in second["k_dtype"]["tile"]
    assert second["k_helper"]["compiled"] and "3.000000e+00" in second["k_helper"]["tile"]
    assert second["k_transitive"]["compiled"]
    assert "2.100000e+01" in second["k_transitive"]["tile"]
    assert not second["k_plain"]["compiled"]  # reads none of them (its LG is a local)


def test_key_covers_values_and_helper_sources(tmp_path):
    """The same, one kind at a time, on the key itself."""
    def key(**values):
        name = "kkey_" + "_".join(f"{k}{v}" for k, v in sorted(values.items())).replace(
            ".", "p")
        _write_globals_module(tmp_path, "kkey", **values)  # one file, as across processes
        linecache.clearcache()
        spec = importlib.util.spec_from_file_location(name, tmp_path / "kkey.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return {n: compiler_mod.cache_key(getattr(mod, n), compiler_mod.parse_signature(
            getattr(mod, n), {"x": "*fp32"}, {}), "cuda:sm_90a", 4, "v")
            for n in ("k_layout", "k_dtype", "k_helper", "k_transitive", "k_plain")}
    base = key()
    assert key() == base
    for change, kernel in [({"spt": 2}, "k_layout"), ({"dt": "bfloat16"}, "k_dtype"),
                           ({"scale": "2.5"}, "k_helper"), ({"base": 11}, "k_transitive")]:
        changed = key(**change)
        assert changed[kernel] != base[kernel], change
        assert changed["k_plain"] == base["k_plain"], change


# --- a global changed after the kernel was compiled, in the same process -----------------------


def _load_globals_module(tmp_path, name):
    _write_globals_module(tmp_path, name)
    linecache.clearcache()
    spec = importlib.util.spec_from_file_location(name, tmp_path / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("kernel,rebind,label", [
    ("k_layout", lambda m: setattr(m, "LG", kl.BlockedLayout([2], [32], [4], [0])), "LG"),
    ("k_dtype", lambda m: setattr(m, "DT", kl.bfloat16), "DT"),
    ("k_helper", lambda m: setattr(m, "scale", kl.constexpr_function(lambda: 5.0)), "scale"),
    ("k_transitive", lambda m: setattr(m, "BASE", 11), "BASE"),
])
def test_global_changed_after_compile_is_an_error(fake, tmp_path, kernel, rebind, label):
    """Like Triton: the in-memory cache would keep running the kernel compiled for the old
    value, so the next launch/warmup raises, naming the global."""
    mod = _load_globals_module(tmp_path, f"kinproc_{kernel}")
    fn = getattr(mod, kernel)
    fn.warmup("*fp32", target="cuda:sm_90a")
    fn.warmup("*fp32", target="cuda:sm_90a")  # unchanged: fine, and cached
    assert fake.compiles == 1
    rebind(mod)
    with pytest.raises(RuntimeError, match=rf"global '{label}' \(read by .*\) changed after "
                       rf"kernel '{kernel}' was compiled: it was .* and is now .*") as ei:
        fn.warmup("*fp32", target="cuda:sm_90a")
    assert isinstance(ei.value, kiln.GlobalChangedError)
    with pytest.raises(RuntimeError, match=f"global '{label}'"):  # also for a new specialization
        fn.warmup("*fp16", target="cuda:sm_90a")


def test_unchanged_or_unrelated_globals_are_not_an_error(fake, tmp_path):
    mod = _load_globals_module(tmp_path, "kinproc_ok")
    mod.k_layout.warmup("*fp32", target="cuda:sm_90a")
    mod.k_plain.warmup("*fp32", target="cuda:sm_90a")
    mod.LG = kl.BlockedLayout([1], [32], [4], [0])  # a new object, equal value
    mod.DT = kl.bfloat16  # read by other kernels only
    mod.k_layout.warmup("*fp32", target="cuda:sm_90a")
    mod.k_plain.warmup("*fp32", target="cuda:sm_90a")  # k_plain's LG is a local
    assert fake.compiles == 2


# --- @kiln.jit launch path --------------------------------------------------------------------


class FakeTensor:
    def __init__(self, addr, dtype="float32"):
        self.addr, self.dtype = addr, dtype

    def data_ptr(self):
        return self.addr


def test_jit_launch_path(fake, monkeypatch):
    runtime = pytest.importorskip("kiln.runtime.launcher")
    launches = []

    class FakeDriver:
        def current_target(self):
            return "cuda:sm_90a"

    class FakeLoaded:
        def __init__(self, driver, binary, metadata):
            self.metadata = dict(metadata)  # as LoadedKernel: its own copy
            assert binary.startswith(b"\x7fELF")

        def launch(self, grid, args, stream=None, grid_checked=False):
            launches.append((grid, args, self.metadata["params"]))
            self.metadata.update(n_regs=32, n_spills=0)  # what loading learns

    monkeypatch.setattr(sys.modules["kiln.jit"], "_driver", lambda: FakeDriver())
    monkeypatch.setattr(runtime, "LoadedKernel", FakeLoaded)
    x, y, out = FakeTensor(4096), FakeTensor(4096), FakeTensor(4100)
    seen = {}

    def grid(meta):
        seen.update(meta)
        return (kiln.cdiv(meta["n"], meta["BLOCK"]),)
    add[grid](x, y, out, 1000, BLOCK=256)
    assert seen["BLOCK"] == 256 and seen["n"] == 1000 and seen["num_warps"] == 4
    assert launches[-1][0] == (4, 1, 1) and launches[-1][1] == [x, y, out, 1000]
    assert launches[-1][2][2] == {"name": "out", "type": "*fp32"}  # unaligned: no divisibility
    handle = add[(2,)](x, y, out, 1000, BLOCK=256)
    assert fake.compiles == 1  # in-memory cache
    # The launch returns the compiled kernel, as Gluon's does (asm by stage, metadata that
    # reads as attributes), from the warm path as from the first launch.
    from kiln.compiler.compiler import CompiledKernel
    assert isinstance(handle, CompiledKernel) and handle.metadata.num_warps == 4
    assert handle.metadata.n_regs == 32 and handle.metadata.n_spills == 0
    assert add[grid](x, y, out, 1000, BLOCK=256) is handle
    add[(2,)](x, y, out, 1, BLOCK=256)  # n == 1 is specialized away
    assert fake.compiles == 2 and launches[-1][1] == [x, y, out]
    add[(2, 3)](x, y, out, 1000, BLOCK=512)
    assert fake.compiles == 3 and launches[-1][0] == (2, 3, 1)
    with pytest.raises(ValueError, match="grid dimension 0 must be positive"):
        add[(0,)](x, y, out, 1000, BLOCK=256)
    with pytest.raises(TypeError, match="missing a required argument: 'n'"):
        add[(1,)](x, y, out, BLOCK=256)


@kiln.jit
def add_warm(x, y, out, n, BLOCK: kl.constexpr):
    offs = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK, L)
    m = offs < n
    kl.store(out + offs, kl.load(x + offs, mask=m) + kl.load(y + offs, mask=m), mask=m)


def test_warm_launches_reuse_the_specialization_and_keep_its_checks(fake, monkeypatch,
                                                                    tmp_path):
    """The warm path (a cheap key of the arguments) launches the kernel the full path chose:
    a new alignment, dtype, n == 1 or option still specializes anew, and a rebound global
    still raises."""
    runtime = pytest.importorskip("kiln.runtime.launcher")
    launches = []

    class FakeDriver:
        def current_target(self):
            return "cuda:sm_90a"

    class FakeLoaded:
        def __init__(self, driver, binary, metadata):
            self.metadata = metadata

        def launch(self, grid, args, stream=None, grid_checked=False):
            launches.append((self.metadata["params"], args, stream))

    monkeypatch.setattr(sys.modules["kiln.jit"], "_driver", lambda: FakeDriver())
    monkeypatch.setattr(runtime, "LoadedKernel", FakeLoaded)
    x, y = FakeTensor(4096), FakeTensor(8192)
    add_warm[(1,)](x, y, FakeTensor(4100), 1000, BLOCK=256)
    add_warm[(1,)](x, y, FakeTensor(4104), 1000, BLOCK=256, stream=7)  # warm: same key
    assert fake.compiles == 1 and len(launches) == 2 and launches[-1][2] == 7
    assert [a.addr for a in launches[-1][1][:3]] == [4096, 8192, 4104]
    add_warm[(1,)](x, y, FakeTensor(4112), 1000, BLOCK=256)  # out now 16-byte aligned
    assert fake.compiles == 2 and launches[-1][0][2] == {"name": "out", "type": "*fp32",
                                                         "divisibility": 16}
    add_warm[(1,)](x, y, FakeTensor(4112, "float16"), 1000, BLOCK=256)
    assert fake.compiles == 3 and launches[-1][0][2]["type"] == "*fp16"
    add_warm[(1,)](x, y, FakeTensor(4112), 1, BLOCK=256)
    assert fake.compiles == 4 and len(launches[-1][1]) == 3  # n == 1 specialized away
    add_warm[(1,)](x, y, FakeTensor(4112), 1000, BLOCK=512)
    assert fake.compiles == 5
    add_warm[(1,)](x, y, FakeTensor(4112), 1000, BLOCK=256)  # back to an earlier one: no compile
    assert fake.compiles == 5 and len(add_warm._launches) == 5

    mod = _load_globals_module(tmp_path, "kwarm_layout")
    mod.k_layout[(1,)](FakeTensor(4096))
    mod.k_layout[(1,)](FakeTensor(4096))
    mod.LG = kl.BlockedLayout([2], [32], [4], [0])
    with pytest.raises(kiln.GlobalChangedError, match="global 'LG'"):
        mod.k_layout[(1,)](FakeTensor(4096))


@kiln.jit
def add_at(x: "*fp32", y: kl.pointer_type(kl.float32), out: "*fp32", n, BLOCK: kl.constexpr):
    offs = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK, L)
    m = offs < n
    kl.store(out + offs, kl.load(x + offs, mask=m) + kl.load(y + offs, mask=m), mask=m)


def test_jit_launch_with_integer_addresses(fake, monkeypatch):
    """The documented int-address form: arguments annotated as pointers take plain ints."""
    runtime = pytest.importorskip("kiln.runtime.launcher")
    real_loaded = runtime.LoadedKernel
    launches = []

    class FakeDriver:
        def current_target(self):
            return "cuda:sm_90a"

    class FakeLoaded:
        def __init__(self, driver, binary, metadata):
            self.metadata = metadata

        def launch(self, grid, args, stream=None, grid_checked=False):
            # what the real launcher packs for these parameters
            packed = real_loaded(driver, b"", self.metadata).prepare_args(args)
            launches.append((packed, self.metadata["params"]))

    driver = FakeDriver()

    monkeypatch.setattr(sys.modules["kiln.jit"], "_driver", lambda: FakeDriver())
    monkeypatch.setattr(runtime, "LoadedKernel", FakeLoaded)
    add_at[(4,)](0x7f0000001000, 0x7f0000002000, 0x7f0000003004, 1000, BLOCK=256)
    args, params = launches[-1]
    assert args == [0x7f0000001000, 0x7f0000002000, 0x7f0000003004, 1000]
    assert params == [{"name": "x", "type": "*fp32", "divisibility": 16},
                      {"name": "y", "type": "*fp32", "divisibility": 16},
                      {"name": "out", "type": "*fp32"}, {"name": "n", "type": "i32"}]


def test_warmup_with_type_strings(fake):
    ck = add.warmup("*fp32:16", "*fp32", "*fp32", "i32", BLOCK=128, target="cuda:sm_90a")
    assert [p.get("divisibility") for p in ck.metadata["params"]] == [16, None, None, None]
    assert ck.metadata["constexprs"] == {"BLOCK": 128}


# --- AOT ------------------------------------------------------------------------------------------


def test_aot_bundle(fake, tmp_path):
    bundle = pytest.importorskip("kiln.runtime.bundle")
    import kiln.aot
    kernels = kiln.aot.compile_bundle(tmp_path / "bundle", [
        {"fn": add, "signature": SIG, "constexprs": {"BLOCK": 512}, "num_warps": 4,
         "target": "cuda:sm_90a", "key": "add_512"},
        {"fn": add, "signature": SIG, "constexprs": {"BLOCK": 1024}, "num_warps": 4,
         "target": "cuda:sm_90a"},
    ])
    assert [k.metadata["key"] for k in kernels] == ["add_512", "add_cuda_sm_90a"]
    loaded = bundle.load_bundle(str(tmp_path / "bundle"))
    assert list(loaded) == ["add_512", "add_cuda_sm_90a"]
    entry = loaded["add_512"]
    assert entry.binary == kernels[0].binary
    assert entry.metadata["params"] == kernels[0].metadata["params"]
    assert loaded["add_cuda_sm_90a"].metadata["constexprs"] == {"BLOCK": 1024}
    with pytest.raises(ValueError, match="unknown field"):
        kiln.aot.compile_entries([{"fn": add, "target": "cuda:sm_90a", "grid": 1}])


# --- with the real extension -------------------------------------------------------------------


@needs_compiler
def test_real_compile_and_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path / "cache"))
    k1 = kiln.compile(add, SIG, {"BLOCK": 512}, target="cuda:sm_90a")
    assert "llvm.func" in k1.asm["llvm_dialect"] and "define" in k1.asm["llir"]
    assert ".entry add" in k1.asm["ptx"] or ".visible .entry" in k1.asm["ptx"]
    assert isinstance(k1.asm["cubin"], bytes) and len(k1.asm["cubin"]) > 0
    calls = []
    real_run = real_compiler.run_pipeline

    class Counting:
        library_path = real_compiler.library_path  # the same build: same cache key
        CompilationError = real_compiler.CompilationError
        version = staticmethod(real_compiler.version)
        known_targets = staticmethod(real_compiler.known_targets)
        translate = staticmethod(real_compiler.translate)

        @staticmethod
        def run_pipeline(*a):
            calls.append(a[1])
            return real_run(*a)

        @staticmethod
        def run_pipeline_with_info(*a):
            calls.append(a[1])
            return real_compiler.run_pipeline_with_info(*a)
    monkeypatch.setattr(compiler_mod, "load_compiler", lambda: Counting)
    k2 = kiln.compile(add, SIG, {"BLOCK": 512}, target="cuda:sm_90a")
    assert calls == [] and k2.asm == k1.asm
    (path,) = [p for p in (tmp_path / "cache").rglob("*.kiln")]
    path.write_bytes(path.read_bytes()[:100])
    k3 = kiln.compile(add, SIG, {"BLOCK": 512}, target="cuda:sm_90a")
    assert len(calls) == 2 and k3.asm["ptx"] == k1.asm["ptx"]


@needs_compiler
def test_replay_command_reproduces_the_ptx(tmp_path, monkeypatch):
    bin_dir = os.path.join(PYTHON_DIR, "..", "build", "bin")
    if not all(os.path.exists(os.path.join(bin_dir, t)) for t in ("kiln-opt", "kiln-translate")):
        pytest.skip("kiln-opt / kiln-translate are not built in build/bin")
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path / "cache"))
    k = kiln.compile(add, SIG, {"BLOCK": 512}, target="cuda:sm_90a")
    k.write_stages(tmp_path / "stages")
    env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ["PATH"])
    for cwd in (tmp_path / "stages", tmp_path):  # beside it, and from another folder
        out = subprocess.run(["sh", str(tmp_path / "stages" / "replay.sh")], cwd=cwd,
                             capture_output=True, env=env, timeout=120)
        assert out.returncode == 0, out.stderr.decode()
        assert out.stdout.decode() == k.asm["ptx"]


def test_compiler_fingerprint_covers_the_build_and_tool_overrides(tmp_path, monkeypatch):
    """A rebuilt extension with the same version string must not reuse old entries."""
    class Ext:
        def __init__(self, path):
            self.__file__ = str(path)

        @staticmethod
        def version():
            return "kiln-0.1.0 llvm-22.1.8"

        @staticmethod
        def known_targets():
            return [{"name": "cuda:sm_90a", "tool_environment": ["KILN_PTXAS"]},
                    {"name": "hip:gfx942", "tool_environment": ["KILN_LLD"]}]

    a, b = tmp_path / "a.so", tmp_path / "b.so"
    a.write_bytes(b"build one")
    b.write_bytes(b"build two")
    fa = compiler_mod.compiler_fingerprint(Ext(a))
    assert fa != compiler_mod.compiler_fingerprint(Ext(b))
    assert fa == compiler_mod.compiler_fingerprint(Ext(a))
    monkeypatch.setenv("KILN_PTXAS", "/opt/other/ptxas")
    assert fa != compiler_mod.compiler_fingerprint(Ext(a))


def test_a_frozen_dataclass_is_a_compile_time_value():
    """Gluon's tests pass a TensorMemoryLayout (a frozen dataclass) as a constexpr: its key is
    its class and fields, equal for equal values and different for different ones."""
    from kiln.compiler.cache import mangle_value
    from kiln.language.nvidia.blackwell import TensorMemoryLayout
    a = TensorMemoryLayout(block=(64, 32), col_stride=1)
    assert mangle_value(a) == mangle_value(TensorMemoryLayout(block=(64, 32), col_stride=1))
    assert mangle_value(a) != mangle_value(TensorMemoryLayout(block=(64, 32), col_stride=1,
                                                              two_ctas=True))
    assert "TensorMemoryLayout(block=(int:64,int:32)" in mangle_value(a)


def _torch_like_dtype(name):
    """Stands for torch.bfloat16 and its kind (type torch.dtype) where torch is absent."""
    cls = type("dtype", (), {"__module__": "torch", "__init__": lambda self, n: setattr(self, "n", n),
                             "__repr__": lambda self: f"torch.{self.n}",
                             "__eq__": lambda self, o: type(o) is type(self) and o.n == self.n,
                             "__hash__": lambda self: hash(self.n)})
    return cls(name)


def test_named_constexpr_values_are_cache_keys():
    """A torch dtype or an enum member passed as a constexpr (a third-party split-K GEMM
    passes torch.bfloat16 and compares it in the kernel) is keyed by its name; other objects
    are refused with the argument's name."""
    import enum

    class Mode(enum.Enum):
        FAST = 1
        SLOW = 2
    bf16, f16 = _torch_like_dtype("bfloat16"), _torch_like_dtype("float16")
    assert cache_mod.mangle_value(bf16) != cache_mod.mangle_value(f16)
    assert cache_mod.mangle_value(bf16) == cache_mod.mangle_value(_torch_like_dtype("bfloat16"))
    assert cache_mod.mangle_value(Mode.FAST) != cache_mod.mangle_value(Mode.SLOW)

    @kiln.jit
    def pick(out, WDT: kl.constexpr, WANT: kl.constexpr):
        L: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
        offs = kl.arange(0, 128, L)
        if WDT == WANT:
            kl.store(out + offs, offs)
    k = kiln.compile(pick, {"out": "*i32"}, {"WDT": bf16, "WANT": bf16}, target="cuda:sm_90a",
                     cache=False)
    assert "st.global" in k.asm["ptx"]
    k = kiln.compile(pick, {"out": "*i32"}, {"WDT": f16, "WANT": bf16}, target="cuda:sm_90a",
                     cache=False)
    assert "st.global" not in k.asm["ptx"]

    class Opaque:
        pass
    with pytest.raises(TypeError, match=r"constexpr argument 'WDT': unsupported compile-time "
                                        r"value .* a constexpr must be"):
        kiln.compile(pick, {"out": "*i32"}, {"WDT": Opaque(), "WANT": bf16},
                     target="cuda:sm_90a", cache=False)
