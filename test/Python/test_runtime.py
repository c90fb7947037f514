"""kiln.runtime and kiln._runtime without a GPU: driver discovery, argument
packing, launch validation and AOT bundles. Build the extension first:
bash scripts/build-runtime.sh"""

import json
import re
import os
import struct

import numpy as np
import pytest

import kiln.runtime as rt
from kiln import _runtime
from kiln.runtime import driver as driver_mod
from kiln.runtime.errors import KilnRuntimeError, NoDeviceError, OutOfResources

NO_DRIVER = (_runtime.load_error("cuda") is not None
             and _runtime.load_error("hip") is not None)
needs_no_driver = pytest.mark.skipif(
    not NO_DRIVER, reason="a GPU driver library is installed here")


# --- driver discovery -------------------------------------------------------

def test_import_has_public_api():
    for name in ("get_driver", "LoadedKernel", "write_bundle", "load_bundle",
                 "NoDeviceError", "OutOfResources", "validate_grid"):
        assert hasattr(rt, name)
    assert issubclass(_runtime.DriverError, RuntimeError)
    assert issubclass(NoDeviceError, KilnRuntimeError)


@needs_no_driver
def test_no_backends_available():
    assert _runtime.available_backends() == []


@needs_no_driver
def test_driver_calls_raise_driver_error_naming_library():
    with pytest.raises(_runtime.DriverError, match=r"libcuda\.so\.1 not found"):
        _runtime.device_info("cuda")
    with pytest.raises(_runtime.DriverError, match=r"libamdhip64\.so not found"):
        _runtime.load_module("hip", b"\0")


def test_unknown_backend():
    with pytest.raises(ValueError, match="unknown backend 'metal'"):
        _runtime.device_count("metal")


@needs_no_driver
def test_get_driver_without_gpu_raises_no_device_error():
    driver_mod.get_driver.cache_clear()
    with pytest.raises(NoDeviceError) as info:
        rt.get_driver()
    msg = str(info.value)
    assert msg.startswith("no GPU driver found: neither libcuda.so.1 nor "
                          "libamdhip64.so could be loaded")
    assert "cannot open shared object file" in msg


class FakeNative:
    """Stands in for kiln._runtime: per-backend load errors / device counts."""
    DriverError = _runtime.DriverError

    def __init__(self, counts, info=None):
        self.counts = counts  # backend -> int, exception, or None (no library)
        self.info = info or {}

    def load_error(self, backend):
        return None if self.counts.get(backend) is not None else "not found"

    def device_count(self, backend):
        c = self.counts[backend]
        if isinstance(c, Exception):
            raise c
        return c

    def device_info(self, backend):
        return self.info


def test_select_backend_prefers_cuda_then_hip():
    assert driver_mod.select_backend(FakeNative({"cuda": 1, "hip": 1})) == "cuda"
    assert driver_mod.select_backend(FakeNative({"cuda": None, "hip": 2})) == "hip"
    err = _runtime.DriverError("cuInit failed: CUDA_ERROR_NO_DEVICE")
    assert driver_mod.select_backend(FakeNative({"cuda": err, "hip": 1})) == "hip"


def test_select_backend_library_but_no_device():
    err = _runtime.DriverError("cuInit failed: CUDA_ERROR_NO_DEVICE")
    with pytest.raises(NoDeviceError, match=r"no GPU device present \(cuda: "
                       r"cuInit failed: CUDA_ERROR_NO_DEVICE"):
        driver_mod.select_backend(FakeNative({"cuda": err}))
    with pytest.raises(NoDeviceError, match="reports 0 devices"):
        driver_mod.select_backend(FakeNative({"cuda": 0}))


@pytest.mark.parametrize("backend,info,target", [
    ("cuda", {"major": 9, "minor": 0}, "cuda:sm_90a"),
    ("cuda", {"major": 8, "minor": 6}, "cuda:sm_80"),
    ("hip", {"arch": "gfx942:sramecc+:xnack-"}, "hip:gfx942"),
    ("hip", {"arch": "gfx950"}, "hip:gfx950"),
])
def test_current_target(backend, info, target):
    info = dict(info, name="gpu", max_shared_per_block_optin=232448)
    d = rt.Driver(backend, FakeNative({}, info))
    assert d.current_target() == target
    assert d.max_shared_bytes() == 232448


def test_current_target_unsupported_chip():
    d = rt.Driver("cuda", FakeNative({}, {"name": "Tesla V100", "major": 7,
                                          "minor": 0}))
    with pytest.raises(KilnRuntimeError, match=r"'Tesla V100' \(compute "
                       r"capability 7.0\)"):
        d.current_target()
    d = rt.Driver("hip", FakeNative({}, {"name": "Radeon RX 7900", "arch": "gfx1100"}))
    with pytest.raises(KilnRuntimeError, match=r"gfx1100"):
        d.current_target()
    assert rt.Driver("hip", FakeNative({}, {"name": "MI100", "arch": "gfx908"})) \
        .current_target() == "hip:gfx908"


# --- argument packing (native) ----------------------------------------------

def slots(types, args):
    """Scalar and pointer arguments: one 8-byte slot each, back to back."""
    buf, offsets = _runtime.pack_args(types, args)
    assert offsets == tuple(range(0, 8 * len(types), 8)) and len(buf) == 8 * len(types)
    return struct.unpack(f"<{len(types)}Q", buf)


def test_pack_integers_and_pointers():
    got = slots(["i32", "i64", "i8", "u8", "u64", "i1", "*fp32", "*bf16", "u32"],
                [-1, -2, -128, 255, 2**64 - 1, True, 0x7f0000001000, None, 7])
    assert got == (0xffffffff, 2**64 - 2, 0x80, 255, 2**64 - 1, 1,
                   0x7f0000001000, 0, 7)


def test_pack_floats():
    vals = [1.5, -2.0, 65504.0, 1e-7, 70000.0, 0.1, 3]
    for v in vals:  # 70000 overflows fp16 to inf, as numpy says too
        (h,) = slots(["fp16"], [v])
        with np.errstate(over="ignore"):
            ref = np.array(v, np.float32).astype(np.float16)
        assert h == int(ref.view(np.uint16))
        (f,) = slots(["fp32"], [v])
        assert f == int(np.array(v, np.float32).view(np.uint32))
        (d,) = slots(["fp64"], [v])
        assert d == int(np.array(v, np.float64).view(np.uint64))
    # bf16: round to nearest even of the float32 value, nans stay nan.
    assert slots(["bf16"], [1.0]) == (0x3f80,)
    assert slots(["bf16"], [-2.5]) == (0xc020,)
    assert slots(["bf16"], [1.00390625]) == (0x3f80,)  # tie -> even
    assert slots(["bf16"], [1.01171875]) == (0x3f82,)  # tie -> even (up)
    (n,) = slots(["bf16"], [float("nan")])
    assert n & 0x7f80 == 0x7f80 and n & 0x7f
    (n,) = slots(["fp16"], [float("inf")])
    assert n == 0x7c00


@pytest.mark.parametrize("ty,value", [
    ("i32", 2**40), ("i32", 2**31), ("i32", -2**31 - 1), ("i8", 128),
    ("i16", -40000), ("i64", 2**63), ("u8", -1), ("u16", 65536),
    ("u32", 2**32), ("u64", 2**64), ("i1", 2), ("*fp32", -1), ("*i8", 2**64),
])
def test_pack_range_errors(ty, value):
    with pytest.raises(ValueError, match=rf"argument 1 \({re.escape(ty)}\): "
                       r".*out of range"):
        _runtime.pack_args(["i32", ty], [0, value])


def test_pack_type_errors():
    with pytest.raises(TypeError, match=r"argument 0 \(i32\) expects an int, "
                       r"got float"):
        _runtime.pack_args(["i32"], [1.5])
    with pytest.raises(TypeError, match=r"argument 0 \(fp32\) expects a float, "
                       r"got str"):
        _runtime.pack_args(["fp32"], ["x"])
    with pytest.raises(TypeError, match="argument 0: unknown type 'f32'"):
        _runtime.pack_args(["f32"], [1.0])
    with pytest.raises(TypeError, match="expected 2 arguments, got 1"):
        _runtime.pack_args(["i32", "i32"], [1])


def test_launch_validates_args_before_touching_driver():
    # Packing happens first, so a bad argument is a ValueError even here.
    with pytest.raises(ValueError, match=r"argument 0 \(i32\)"):
        _runtime.launch("cuda", 0, (1, 1, 1), (32, 1, 1), 0, 0, ["i32"], [2**40])


# --- grid validation --------------------------------------------------------

def test_validate_grid_ok():
    assert rt.validate_grid((4,)) == (4, 1, 1)
    assert rt.validate_grid([2, 3]) == (2, 3, 1)
    assert rt.validate_grid((np.int64(5), 1, 65535)) == (5, 1, 65535)
    assert rt.validate_grid((2**31 - 1,)) == (2**31 - 1, 1, 1)


@pytest.mark.parametrize("grid,match", [
    (4, "must be a tuple"), ((), "1 to 3 dimensions"),
    ((1, 1, 1, 1), "1 to 3 dimensions"), ((0,), r"grid\[0\] = 0"),
    ((-3,), r"grid\[0\] = -3"), ((1, 65536), r"grid\[1\] = 65536"),
    ((1, 1, 70000), r"grid\[2\]"), ((2**31,), r"grid\[0\] = 2147483648"),
    ((1.0,), r"grid\[0\] must be an int"), ((True,), "must be an int"),
])
def test_validate_grid_errors(grid, match):
    with pytest.raises(ValueError, match=match):
        rt.validate_grid(grid)


# --- LoadedKernel with a fake driver ----------------------------------------

class FakeDriver:
    backend = "cuda"

    def __init__(self, max_shared=232448):
        self.max_shared = max_shared
        self.loads = 0
        self.launches = []

    def max_shared_bytes(self):
        return self.max_shared

    def current_target(self):
        return "cuda:sm_90a"

    def load_module(self, image):
        self.loads += 1
        return 0x1000

    def get_function(self, module, name, shared):
        return 0x2000

    def unload_module(self, module):
        pass

    def launch(self, func, grid, block, shared, stream, arg_types, args):
        # Real packing, so native errors travel the same way as on a GPU.
        _runtime.pack_args(arg_types, args)
        self.launches.append((func, grid, block, shared, stream, list(args)))


class FakeTensor:
    def __init__(self, ptr, device="cuda"):
        self.ptr = ptr
        self.device = type("Device", (), {"type": device})()
        self.is_cuda = device == "cuda"

    def data_ptr(self):
        return self.ptr


def metadata(**over):
    md = {"name": "add_kernel", "target": "cuda:sm_90a", "num_warps": 4,
          "threads_per_warp": 32, "shared": 1024,
          "params": [{"name": "x", "type": "*fp32", "divisibility": 16},
                     {"name": "out", "type": "*fp32"},
                     {"name": "n", "type": "i32"}]}
    md.update(over)
    return md


def test_loaded_kernel_launch_and_lazy_load():
    drv = FakeDriver()
    k = rt.LoadedKernel(drv, b"cubin", metadata())
    assert drv.loads == 0
    k[(3,)](FakeTensor(0x10000), 0x10004, 100)
    k.launch((2, 2), [0x10010, FakeTensor(0x10008), 5], stream=77)
    assert drv.loads == 1
    assert drv.launches[0] == (0x2000, (3, 1, 1), (128, 1, 1), 1024, 0,
                               [0x10000, 0x10004, 100])
    assert drv.launches[1][1] == (2, 2, 1) and drv.launches[1][4] == 77
    k.launch(lambda meta: (meta["num_warps"],), [0, 0, 1])
    assert drv.launches[2][1] == (4, 1, 1)


def test_loaded_kernel_argument_errors():
    k = rt.LoadedKernel(FakeDriver(), b"", metadata())
    with pytest.raises(TypeError, match=r"takes 3 arguments \(x: \*fp32, "
                       r"out: \*fp32, n: i32\), got 2"):
        k.launch((1,), [0, 0])
    with pytest.raises(ValueError, match="argument 'out' is a CPU tensor"):
        k.launch((1,), [0, FakeTensor(0x100, "cpu"), 1])
    with pytest.raises(ValueError, match=r"argument 'x' = 0x1008 is not a "
                       r"multiple of 16"):
        k.launch((1,), [FakeTensor(0x1008), 0, 1])
    with pytest.raises(TypeError, match="argument 'x' must be a device pointer"):
        k.launch((1,), ["0x10", 0, 1])
    with pytest.raises(ValueError, match=r"argument 2 \(i32\).*out of range.*"
                       r"\[parameter 'n'\]"):
        k.launch((1,), [0, 0, 2**40])
    with pytest.raises(ValueError, match=r"grid\[0\] = 0"):
        k.launch((0,), [0, 0, 1])


def test_loaded_kernel_out_of_resources():
    k = rt.LoadedKernel(FakeDriver(max_shared=49152), b"",
                        metadata(shared=100000))
    with pytest.raises(OutOfResources) as info:
        k.launch((1,), [0, 0, 1])
    assert (info.value.required, info.value.limit) == (100000, 49152)
    assert info.value.name == "shared memory"


def test_loaded_kernel_vendor_mismatch_and_bad_metadata():
    k = rt.LoadedKernel(FakeDriver(), b"", metadata(target="hip:gfx942"))
    with pytest.raises(KilnRuntimeError, match="compiled for hip:gfx942"):
        k.launch((1,), [0, 0, 1])
    with pytest.raises(KilnRuntimeError, match="lacks shared"):
        md = metadata()
        del md["shared"]
        rt.LoadedKernel(FakeDriver(), b"", md)
    with pytest.raises(KilnRuntimeError, match="2048 threads"):
        rt.LoadedKernel(FakeDriver(), b"", metadata(num_warps=64))


def test_default_stream_without_torch_is_zero(monkeypatch):
    import sys
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    assert rt.default_stream() == 0


# --- bundles ----------------------------------------------------------------

def test_bundle_round_trip(tmp_path):
    a = metadata()
    b = metadata(name="mfma_kernel", target="hip:gfx942", key="mfma/v2",
                 threads_per_warp=64)
    rt.write_bundle(str(tmp_path), [(a, b"\x7fELF cubin"), (b, b"hsaco!")])
    files = sorted(os.listdir(tmp_path))
    assert files == ["add_kernel.cubin", "manifest.json", "mfma_v2.hsaco"]
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["format"] == "kiln-bundle" and manifest["version"] == 1
    assert manifest["kernels"][0]["binary"] == "add_kernel.cubin"

    bundle = rt.load_bundle(str(tmp_path))
    assert list(bundle.kernels) == ["add_kernel", "mfma/v2"]
    k = bundle["add_kernel"]
    assert k.binary == b"\x7fELF cubin" and k.metadata["params"] == a["params"]
    assert bundle["mfma/v2"].metadata["threads_per_warp"] == 64
    with pytest.raises(KeyError, match="has add_kernel, mfma/v2"):
        bundle["nope"]

    # Launch through the bundle with a fake driver.
    drv = FakeDriver()
    k.loaded(drv)
    k[(2,)](0x100000, 0x200000, 9)
    assert drv.launches[0][1] == (2, 1, 1)


def test_bundle_write_errors(tmp_path):
    with pytest.raises(ValueError, match="duplicate kernel key 'add_kernel'"):
        rt.write_bundle(str(tmp_path), [(metadata(), b""), (metadata(), b"")])
    with pytest.raises(ValueError, match="unknown target 'metal:m3'"):
        rt.write_bundle(str(tmp_path), [(metadata(target="metal:m3"), b"")])
    assert not any(f.startswith(".tmp") for f in os.listdir(tmp_path))


@needs_no_driver
def test_bundle_launch_without_gpu(tmp_path):
    driver_mod.get_driver.cache_clear()
    rt.write_bundle(str(tmp_path), [(metadata(), b"cubin")])
    k = rt.load_bundle(str(tmp_path))["add_kernel"]
    with pytest.raises(ValueError, match=r"grid\[0\]"):
        k[(0,)](0, 0, 1)
    with pytest.raises(NoDeviceError):
        k[(1,)](0, 0, 1)


def _bundle(tmp_path):
    rt.write_bundle(str(tmp_path), [(metadata(), b"cubin")])
    return tmp_path / "manifest.json"


@pytest.mark.parametrize("corrupt,match", [
    (lambda m: m.write_text("{not json"), r"manifest\.json: cannot read"),
    (lambda m: m.unlink(), r"manifest\.json: file not found"),
    (lambda m: m.write_text("[]"), "not a 'kiln-bundle' manifest"),
    (lambda m: m.write_text('{"format": "kiln-bundle", "version": 9}'),
     "unsupported version 9"),
    (lambda m: m.write_text('{"format": "kiln-bundle", "version": 1}'),
     "'kernels' is not a list"),
    (lambda m: m.write_bytes(b"\xff\xfe"), r"manifest\.json: cannot read"),
])
def test_bundle_corrupt_manifest(tmp_path, corrupt, match):
    corrupt(_bundle(tmp_path))
    with pytest.raises(KilnRuntimeError, match=match):
        rt.load_bundle(str(tmp_path))


def _edit_kernel(manifest_path, **changes):
    m = json.loads(manifest_path.read_text())
    for k, v in changes.items():
        if v is None:
            del m["kernels"][0][k]
        else:
            m["kernels"][0][k] = v
    manifest_path.write_text(json.dumps(m))


def test_bundle_corrupt_entries(tmp_path):
    manifest = _bundle(tmp_path)
    (tmp_path / "add_kernel.cubin").write_bytes(b"tampered")
    with pytest.raises(KilnRuntimeError, match=r"add_kernel\.cubin: .*sha256"):
        rt.load_bundle(str(tmp_path))
    (tmp_path / "add_kernel.cubin").unlink()
    with pytest.raises(KilnRuntimeError, match=r"add_kernel\.cubin: cannot "
                       r"read kernel 'add_kernel' binary"):
        rt.load_bundle(str(tmp_path))
    _edit_kernel(manifest, binary="../etc/passwd")
    with pytest.raises(KilnRuntimeError, match="bad binary file name"):
        rt.load_bundle(str(tmp_path))
    _edit_kernel(manifest, params=None)
    with pytest.raises(KilnRuntimeError, match=r"kernel #0: lacks 'params'"):
        rt.load_bundle(str(tmp_path))


def test_pointer_accepts_numpy_int_and_none():
    drv = FakeDriver()
    k = rt.LoadedKernel(drv, b"", metadata())
    k.launch((1,), [np.uint64(0x1000), None, np.int32(3)])
    assert drv.launches[0][5] == [0x1000, None, 3]


def test_default_stream_follows_torch(monkeypatch):
    import sys
    import types
    cuda = types.SimpleNamespace(is_initialized=lambda: True,
                                 current_device=lambda: 0)
    fake = types.SimpleNamespace(
        cuda=cuda, _C=types.SimpleNamespace(
            _cuda_getCurrentRawStream=lambda dev: 0xabc0 + dev))
    monkeypatch.setitem(sys.modules, "torch", fake)
    assert rt.default_stream() == 0xabc0
    cuda.is_initialized = lambda: False
    assert rt.default_stream() == 0


# --- Gluon's launch handle (issue 24, item 6) --------------------------------------------

class ResourceDriver(FakeDriver):
    def function_resources(self, func):
        assert func == 0x2000
        return 40, 24  # registers, local bytes per thread


def test_loaded_kernel_reads_registers_and_spills_at_load():
    """n_regs / n_spills (4-byte words of local memory), as Gluon's metadata has them, come
    from the driver when the function is loaded; a driver that cannot tell leaves them out."""
    md = metadata()
    k = rt.LoadedKernel(ResourceDriver(), b"cubin", md)
    assert "n_regs" not in k.metadata
    k.launch((1,), [0, 0, 1])
    assert k.metadata["n_regs"] == 40 and k.metadata["n_spills"] == 6
    plain = rt.LoadedKernel(FakeDriver(), b"cubin", metadata())
    plain.launch((1,), [0, 0, 1])
    assert "n_regs" not in plain.metadata


def test_metadata_reads_as_attributes():
    from kiln.compiler.compiler import CompiledKernel
    k = CompiledKernel("k", {"ptx": ""}, metadata(), "kiln-opt ...")
    assert k.metadata.shared == 1024 and k.metadata.num_warps == 4
    assert k.metadata["shared"] == 1024 and isinstance(k.metadata, dict)
    with pytest.raises(AttributeError, match=r"kernel metadata has no field 'n_regs' "
                       r"\(fields: .*num_warps"):
        k.metadata.n_regs
    back = CompiledKernel.from_payload(k.to_payload())
    assert back.metadata.shared == 1024
