"""Buffer-resource copies only where their offsets fit (tile-amd-pipeline-buffer-copies).

The pipeliner's masked direct-to-LDS copies become buffer-resource copies (exact vmcnt waits)
only where every offset is proven within [0, 2 GiB) of the base: by range analysis, or by the
``":range32"`` signature marker (``tile.pointer_range = 32``) that kiln.jit puts on a tensor
under 2 GiB for targets with ``pointer_range_bytes``. Without either the copy stays a global
direct-to-LDS load with ``vmcnt(0)`` in the loop and a remark at the user's load says why.
The launcher refuses a bigger tensor for a marked parameter. No GPU: compile only, fake
drivers and fake tensors."""

import os
import re
import sys

import pytest

import kiln
import kiln.language as kl
from kiln.compiler.errors import CompilationRemark

import compiled

pytestmark = compiled.needs_compiler

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
from examples import pipelined  # noqa: E402

LIMIT = 2**31 - 2  # the AMD targets' pointer_range_bytes (a buffer resource's numRecords)
ROW_SUM = dict(BR=16, BC=256, STAGES=3, num_warps=4, WARP=64, VEC=1)


def row_sum_signature(marker):
    return {"x_ptr": "*fp32:16" + marker, "out_ptr": "*fp32:16" + marker, "R": "i32",
            "C": "i32", "stride_r": "i32"}


def loop_of(asm):
    lines = asm.splitlines()
    back = next(i for i, l in enumerate(lines) if re.match(r"\s*s_cbranch_scc1 \.LBB0_2$", l))
    return "\n".join(lines[lines.index(".LBB0_2:"):back + 1])


def test_marker_gives_buffer_copies_and_exact_waits():
    k = kiln.compile(pipelined.row_sum_kernel, row_sum_signature(":range32"), ROW_SUM,
                     target="hip:gfx942", num_warps=4, cache=False)
    loop = loop_of(k.asm["amdgcn"])
    assert loop.count("buffer_load_dword") == 16 and "global_load_lds" not in loop
    assert re.findall(r"s_waitcnt vmcnt\((\d+)\)", loop) == ["16"]
    assert not [w for w in k.warnings if "2 GiB" in w.message]
    assert "tile.pointer_range = 32 : i32" in k.asm["tile"]
    assert "pointer_range" not in k.asm["llvm_dialect"]  # LLVM has no such attribute
    params = {p["name"]: p for p in k.metadata["params"]}
    assert params["x_ptr"]["pointer_range_bytes"] == LIMIT
    assert "pointer_range_bytes" not in params["R"]


def test_without_marker_the_copy_stays_with_a_remark_at_the_load():
    with pytest.warns(CompilationRemark, match="not proven within"):
        k = kiln.compile(pipelined.row_sum_kernel, row_sum_signature(""), ROW_SUM,
                         target="hip:gfx942", num_warps=4, cache=False)
    asm = k.asm["amdgcn"]
    assert "buffer_load_dword" not in asm and "global_load_lds_dword" in asm
    assert set(re.findall(r"s_waitcnt vmcnt\((\d+)\)", asm)) == {"0"}
    (remark,) = {(os.path.realpath(w.file), w.line, w.message) for w in k.warnings
                 if "2 GiB" in w.message}
    src = open(pipelined.__file__).read().splitlines()
    load_line = next(i for i, t in enumerate(src, 1) if "acc += gl.load(x_ptr" in t)
    assert remark[:2] == (os.path.realpath(pipelined.__file__), load_line)
    assert "the pipelined copy keeps a global direct-to-LDS load" in remark[2]
    assert "no known bound" in remark[2] and "':range32'" in remark[2]
    params = {p["name"]: p for p in k.metadata["params"]}
    assert "pointer_range_bytes" not in params["x_ptr"]


def test_signature_marker_spelling():
    ok = kiln.compile(pipelined.row_sum_kernel, {**row_sum_signature(""), "x_ptr":
                      "*fp32:range32:16"}, ROW_SUM, target="hip:gfx942", num_warps=4,
                      cache=False)
    assert "tile.divisibility = 16 : i32, tile.pointer_range = 32 : i32" in ok.asm["tile"]
    with pytest.raises(ValueError, match="':range32' applies to pointers"):
        kiln.compile(pipelined.row_sum_kernel, {**row_sum_signature(""), "R": "i32:range32"},
                     ROW_SUM, target="hip:gfx942", num_warps=4, cache=False)
    with pytest.raises(ValueError, match="unsupported specialization 'range64'"):
        kiln.compile(pipelined.row_sum_kernel, row_sum_signature(":range64"), ROW_SUM,
                     target="hip:gfx942", num_warps=4, cache=False)
    # A target without 32-bit-offset loads has no use for it.
    with pytest.raises(ValueError, match="which cuda:sm_80 does not have"):
        kiln.compile(pipelined.row_sum_kernel, row_sum_signature(":range32"),
                     dict(ROW_SUM, WARP=32), target="cuda:sm_80", num_warps=4, cache=False)


class Storage:
    def __init__(self, nbytes):
        self.nbytes_ = nbytes

    def size(self):  # torch's UntypedStorage.size(): bytes
        return self.nbytes_


class FakeTensor:
    """data_ptr(), dtype and untyped_storage(), as a torch tensor has."""

    def __init__(self, addr, nbytes, dtype="float32"):
        self.addr, self.dtype, self.storage = addr, dtype, Storage(nbytes)

    def data_ptr(self):
        return self.addr

    def untyped_storage(self):
        return self.storage


def test_jit_signature_marks_small_tensors_on_amd_only():
    fn = pipelined.row_sum_kernel
    args = {"x_ptr": FakeTensor(4096, 1 << 20), "out_ptr": FakeTensor(8192, LIMIT),
            "R": 100, "C": 1000, "stride_r": 1000}
    sig = fn.specialize(args, pointer_range_bytes=LIMIT)[0]
    assert sig["x_ptr"] == "*fp32:16:range32" and sig["out_ptr"] == "*fp32:16:range32"
    big = dict(args, x_ptr=FakeTensor(4096, LIMIT + 1))
    assert fn.specialize(big, pointer_range_bytes=LIMIT)[0]["x_ptr"] == "*fp32:16"
    # Without a storage size (a plain data_ptr object, an integer address): no marker.
    class Bare:
        dtype = "float32"

        def data_ptr(self):
            return 4096
    assert fn.specialize(dict(args, x_ptr=Bare()),
                         pointer_range_bytes=LIMIT)[0]["x_ptr"] == "*fp32:16"
    # Targets without pointer_range_bytes (NVIDIA): signatures and cache keys as before.
    assert fn.specialize(args)[0]["x_ptr"] == "*fp32:16"


def test_jit_launches_specialize_by_size_and_the_launcher_checks_it(monkeypatch, tmp_path):
    runtime = pytest.importorskip("kiln.runtime.launcher")
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path / "cache"))
    launches = []

    class FakeDriver:
        def current_target(self):
            return "hip:gfx942"

    real_loaded = runtime.LoadedKernel

    class FakeLoaded:  # the real argument checks, a fake launch
        def __init__(self, driver, binary, metadata):
            self.metadata = dict(metadata)
            self.real = real_loaded(driver, binary, metadata)

        def launch(self, grid, args, stream=None, grid_checked=False):
            launches.append((self.metadata["params"], self.real.prepare_args(args)))

    monkeypatch.setattr(sys.modules["kiln.jit"], "_driver", lambda: FakeDriver())
    monkeypatch.setattr(runtime, "LoadedKernel", FakeLoaded)
    fn = kiln.jit(pipelined.row_sum_kernel.fn)  # a fresh one: its own in-memory caches
    small, big = FakeTensor(4096, 1 << 20), FakeTensor(4096, 3 << 30)
    out = FakeTensor(8192, 1 << 12)
    cfg = dict(BR=16, BC=256, STAGES=3, WARP=64, VEC=1, num_warps=4)
    fn[(1,)](small, out, 100, 1000, 1000, **cfg)
    assert launches[-1][0][0]["pointer_range_bytes"] == LIMIT
    fn[(1,)](small, out, 100, 1000, 1000, **cfg)  # warm: the same kernel
    assert len(fn._kernels) == 1
    with pytest.warns(CompilationRemark, match="not proven within"):
        fn[(1,)](big, out, 100, 1000, 1000, **cfg)  # too big: a kernel without the marker
    assert len(fn._kernels) == 2 and "pointer_range_bytes" not in launches[-1][0][0]
    assert launches[-1][0][1]["pointer_range_bytes"] == LIMIT  # out is still small
    # A kernel specialized on the range, launched directly with a bigger tensor: refused.
    kernel = next(e[0] for e in fn._kernels.values()
                  if "pointer_range_bytes" in e[0].metadata["params"][0])
    loaded = real_loaded(FakeDriver(), kernel.binary, kernel.metadata)
    with pytest.raises(ValueError, match=r"argument 'x_ptr' spans 3221225472 bytes, but kernel "
                       r"'row_sum_kernel' was compiled for tensors of at most 2147483646 "
                       r"bytes there"):
        loaded.prepare_args([big, out, 100, 1000, 1000])
    assert loaded.prepare_args([small, out, 100, 1000, 1000])[0] == 4096
    # An integer address has no size: the caller vouches for it.
    assert loaded.prepare_args([4096, out, 100, 1000, 1000])[0] == 4096


@kiln.jit
def _row_sum_carried(x_ptr, out_ptr, R, C, stride_r, BR: kl.constexpr, BC: kl.constexpr,
                     STAGES: kl.constexpr, VEC: kl.constexpr, num_warps: kl.constexpr):
    """examples/pipelined.py's row_sum_kernel written the textbook way: one pointer tensor
    carried around the loop and advanced by BC each iteration."""
    layout: kl.constexpr = kl.BlockedLayout([1, VEC], [1, 64], [num_warps, 1], [1, 0])
    C = C // VEC * VEC
    stride_r = stride_r // VEC * VEC
    rows = kl.program_id(0) * BR + kl.arange(0, BR, kl.SliceLayout(1, layout))
    cols = kl.arange(0, BC, kl.SliceLayout(0, layout))
    acc = kl.zeros([BR, BC], kl.float32, layout)
    ptrs = x_ptr + rows[:, None] * stride_r + cols[None, :]
    for c0 in kl.range(0, C, BC, num_stages=STAGES):
        acc += kl.load(ptrs, mask=(rows[:, None] < R) & (c0 + cols[None, :] < C), other=0.0)
        ptrs += BC
    kl.store(out_ptr + rows, kl.sum(acc, axis=1), mask=rows < R)


@pytest.mark.parametrize("target,vec,per_iteration", [("hip:gfx942", 1, 16),
                                                      ("hip:gfx950", 4, 4)])
def test_carried_pointers_get_buffer_copies_and_exact_waits(target, vec, per_iteration):
    """The kernel loop's copies read the carried pointers: from a ':range32' base the loop also
    carries their offsets, so those copies (not only the prologue's) go through the buffer
    resource and the wait is exact (one iteration of copies in flight), as for row_sum_kernel;
    the independent checker (conftest) finds no violation and slack 0."""
    k = kiln.compile(_row_sum_carried, row_sum_signature(":range32"),
                     dict(BR=16, BC=256, STAGES=3, VEC=vec, num_warps=4), target=target,
                     num_warps=4, cache=False)
    loop = loop_of(k.asm["amdgcn"])
    assert loop.count("buffer_load_dword") == per_iteration and "global_load_lds" not in loop
    assert re.findall(r"s_waitcnt vmcnt\((\d+)\)", loop) == [str(per_iteration)]
    (r,) = k.vmcnt_reports
    assert not r.violations and "max slack 0" in r.summary(), r.summary()
    assert not [w for w in k.warnings if "vmcnt(0)" in w.message]


def test_carried_pointers_without_marker_keep_the_copy_with_a_remark():
    with pytest.warns(CompilationRemark, match="carried around the loop from a base not "
                      "specialized as under 2 GiB") as record:
        k = kiln.compile(_row_sum_carried, row_sum_signature(""),
                         dict(BR=16, BC=256, STAGES=3, VEC=1, num_warps=4),
                         target="hip:gfx942", num_warps=4, cache=False)
    # At the user's load.
    here = os.path.abspath(__file__)
    line = next(i for i, l in enumerate(open(here).read().splitlines(), 1)
                if "acc += kl.load(ptrs" in l)
    assert any(r.filename == here and r.lineno == line and "carried around the loop" in
               str(r.message) for r in record), [(r.filename, r.lineno) for r in record]
    # The generic copies (masked: branched around by a wave whose lanes are all off) and the
    # conservative wait they need.
    asm = k.asm["amdgcn"]
    assert "global_load_lds" in asm and "buffer_load_dword" not in asm
    assert "s_waitcnt vmcnt(0)" in asm
