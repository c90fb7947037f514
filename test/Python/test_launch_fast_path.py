"""The warm launch fast path (kiln.jit's generated per-call-shape launchers, the launcher's
generated kernel launchers, kiln._runtime.fast_struct): what it hands the native entry point is
byte for byte what the general path hands it, switching argument kinds between calls still
specializes as the general path does, and every error is the general path's own.

Kernels compile with the fake compiler of test_cache; the driver is a kiln.runtime.Driver on
the real kiln._runtime whose native launch entry is a ctypes callback recording its arguments
(a C-callable function, so the fast path's call without argtypes is exercised too)."""

import ctypes
import math
import os
import struct
import sys

import pytest

import kiln
import kiln.language as kl
import kiln.runtime
from kiln.compiler import compiler as compiler_mod

JIT = sys.modules["kiln.jit"]

from launch_kernels import attn_like  # noqa: E402
from test_cache import FakeCompiler  # noqa: E402

try:
    from kiln import _runtime
except ImportError:  # the runtime library is not built
    _runtime = None

pytestmark = pytest.mark.skipif(_runtime is None, reason="libkiln_runtime.so is not built")

L = kl.BlockedLayout([4], [32], [4], [0])
GLOBAL_LAYOUT = kl.BlockedLayout([4], [32], [4], [0])


@kiln.jit
def add(x, y, out, n, BLOCK: kl.constexpr):
    offs = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK, L)
    m = offs < n
    kl.store(out + offs, kl.load(x + offs, mask=m) + kl.load(y + offs, mask=m), mask=m)


@kiln.jit
def scale(x, out, s, n, flag, BLOCK: kl.constexpr):
    offs = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK, GLOBAL_LAYOUT)
    m = offs < n
    kl.store(out + offs, kl.load(x + offs, mask=m) * s, mask=m)


@kiln.jit
def copy_desc(in_desc, out_desc, n):
    pass


@kiln.jit
def touch(x, y, out, n):
    pass


@kiln.jit
def nothing():
    pass


@kiln.jit
def only_constexprs(A: kl.constexpr, num_warps: kl.constexpr, stream):
    pass


class Device:
    def __init__(self, type_):
        self.type = type_


class Tensor:
    def __init__(self, ptr, dtype="float32", device="cuda", nbytes=4096, shape=(32, 32)):
        self.ptr, self.dtype, self.device = ptr, dtype, Device(device)
        self.nbytes, self.shape = nbytes, shape

    def data_ptr(self):
        return self.ptr

    def stride(self):
        return (self.shape[1], 1)


class Recorder:
    """kiln_rt_launch as a ctypes callback: records each call's arguments and the buffer."""

    def __init__(self):
        self.calls = []
        self.rc = 0
        real = _runtime._lib.kiln_rt_launch
        self.fn = ctypes.CFUNCTYPE(ctypes.c_int, *real.argtypes)(self._record)

    def _record(self, backend, func, gx, gy, gz, bx, by, bz, cluster, shared, stream, args,
                size, offsets, count):
        self.calls.append({"backend": backend, "func": func, "grid": (gx, gy, gz),
                           "block": (bx, by, bz), "cluster": cluster, "shared": shared,
                           "stream": stream, "buf": ctypes.string_at(args, size),
                           "offsets": [offsets[i] for i in range(count)]})
        return self.rc


class StubDriver(kiln.runtime.Driver):
    def __init__(self, target="cuda:sm_90a"):
        super().__init__("cuda" if target.startswith("cuda") else "hip", _runtime)
        self.target = target

    def current_target(self):
        return self.target

    def max_shared_bytes(self):
        return 232448

    def load_module(self, image):
        return 1

    def get_function(self, module, name, shared_bytes):
        return 0x5000

    def function_resources(self, func):
        return 32, 0

    def encode_tensor_map(self, dtype, address, dims, strides, box, element_strides=None,
                          swizzle_bytes=0, oob_nan=False):
        return bytes([address % 251]) * 128


@pytest.fixture
def native(monkeypatch, tmp_path):
    """(recorder, driver, general-path counter); every kernel starts cold."""
    fc = FakeCompiler()
    monkeypatch.setattr(compiler_mod, "load_compiler", lambda: fc)
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path / "cache"))
    rec, driver = Recorder(), StubDriver()
    monkeypatch.setattr(_runtime._lib, "kiln_rt_launch", rec.fn)
    monkeypatch.setattr(sys.modules["kiln.jit"], "_driver", lambda: driver)
    general = []
    real_run = JIT.JITFunction._run

    def counted(self, *a):
        general.append(self.__name__)
        return real_run(self, *a)
    monkeypatch.setattr(JIT.JITFunction, "_run", counted)
    for fn in (add, scale, copy_desc, touch, nothing, only_constexprs):
        _reset(fn)
    fc.driver, fc.recorder, fc.general = driver, rec, general
    yield fc
    for fn in (add, scale, copy_desc, touch, nothing, only_constexprs):
        _reset(fn)


def _reset(fn):
    fn._kernels.clear()
    fn._launches.clear()
    fn._warm.clear()
    fn._variants.clear()
    fn._range_limits = ()
    fn._globals_ok = JIT._stale_globals


def _expected(fn, args, kwargs):
    """What the general path hands the driver for this launch: (loaded kernel, buffer)."""
    arguments, options = fn._bind(args, kwargs)
    entry, _ = fn._compile(arguments, options)
    loaded = entry[1]
    values = loaded.prepare_args(_runtime_values(arguments, entry[2]))
    return loaded, _runtime.pack_args(loaded.arg_types, values)[0]


def _runtime_values(arguments, runtime):
    """The values a kernel's runtime parameters take (a tuple's elements one by one)."""
    return [arguments[n] if type(n) is str else JIT._element(arguments, n) for n in runtime]


def _launch_and_check(native, fn, grid, args, kwargs, fast):
    before = len(native.general)
    fn[grid](*args, **kwargs)
    assert (len(native.general) == before) == fast, "fast path taken" if not fast else "not"
    call = native.recorder.calls[-1]
    loaded, buf = _expected(fn, args, kwargs)
    assert call["buf"] == buf
    assert call["offsets"] == list(_runtime.pack_args(loaded.arg_types,
                                                      loaded.prepare_args(
                                                          _runtime_args(fn, args, kwargs)))[1])
    assert call["func"] == 0x5000 and call["block"] == loaded.block
    assert call["shared"] == loaded.shared and call["cluster"] == 1
    want = tuple(grid) + (1,) * (3 - len(grid))
    assert call["grid"] == want
    return loaded


def _runtime_args(fn, args, kwargs):
    arguments, options = fn._bind(args, kwargs)
    entry, _ = fn._compile(arguments, options)
    return _runtime_values(arguments, entry[2])


def test_warm_launches_take_the_fast_path_and_pack_as_the_general_path(native):
    x, y, o = Tensor(0x10000), Tensor(0x20000), Tensor(0x30000)
    _launch_and_check(native, add, (4,), (x, y, o, 1000), {"BLOCK": 256}, fast=False)
    for grid in [(4,), (3, 2), (1, 2, 3), [5]]:
        _launch_and_check(native, add, grid, (x, y, o, 1000), {"BLOCK": 256}, fast=True)
    assert native.compiles == 1
    # Another call shape (n by name, an option): its own fast path after one general launch.
    _launch_and_check(native, add, (4,), (x, y, o), {"n": 77, "BLOCK": 256, "num_warps": 4},
                      fast=False)
    _launch_and_check(native, add, (4,), (x, y, o), {"n": 77, "BLOCK": 256, "num_warps": 4},
                      fast=True)
    assert native.compiles == 1
    add[(4,)](x, y, o, 1000, BLOCK=256, stream=1234)  # a stream given: passed as is
    assert native.recorder.calls[-1]["stream"] == 1234
    add[(4,)](x, y, o, 1000, BLOCK=256, stream=1234)
    assert native.recorder.calls[-1]["stream"] == 1234 and native.general[-1] == "add"
    before = len(native.general)
    add[(4,)](x, y, o, 1000, BLOCK=256, stream=2**63 + 5)  # 64-bit streams survive the call
    assert native.recorder.calls[-1]["stream"] == 2**63 + 5 and len(native.general) == before
    assert native.recorder.calls[-1]["backend"] == b"cuda"


def test_switching_argument_kinds_specializes_as_the_general_path(native):
    x, y = Tensor(0x10000), Tensor(0x20000)
    o, o_odd, o16 = Tensor(0x30000), Tensor(0x30004), Tensor(0x30000, "float16")
    cases = [
        ((x, y, o, 1000), 1), ((x, y, o, 1000), 1),
        ((x, y, o_odd, 1000), 2), ((x, y, o, 1000), 2), ((x, y, o_odd, 1000), 2),
        ((x, y, o, 1), 3), ((x, y, o, 1000), 3), ((x, y, o, 1), 3),
        ((x, y, o, 2**40), 4), ((x, y, o, 2**63 + 1), 5), ((x, y, o, -7), 5),
        ((x, y, o, 1008), 6), ((x, y, o, -32), 6), ((x, y, o, 1000), 6),
        ((x, y, o16, 1000), 7), ((x, y, o, 1000), 7),
    ]
    for args, compiles in cases:
        add[(2,)](*args, BLOCK=128)
        assert native.compiles == compiles, args
        loaded, buf = _expected(add, args, {"BLOCK": 128})
        assert native.recorder.calls[-1]["buf"] == buf, args
    # Every one of them again: all warm now, all fast, the same bytes.
    before = len(native.general)
    for args, _ in cases:
        add[(2,)](*args, BLOCK=128)
        assert native.recorder.calls[-1]["buf"] == _expected(add, args, {"BLOCK": 128})[1]
    assert len(native.general) == before and native.compiles == 7


def test_int_then_float_then_bool_in_one_position(native):
    x, o = Tensor(0x10000), Tensor(0x20000)
    seq = [(2.5, 100, True), (3, 100, False), (2.5, 100, True), (0.0, 2**31, True),
           (float("inf"), 100, False), (1e300, 100, True), (True, 16, True), (7, 100, 5)]
    for s, n, flag in seq * 2:
        scale[(1,)](x, o, s, n, flag, BLOCK=128)
        loaded, buf = _expected(scale, (x, o, s, n, flag), {"BLOCK": 128})
        assert native.recorder.calls[-1]["buf"] == buf, (s, n, flag)
        types = [p["type"] for p in loaded.params]
        assert types[2] == ("fp32" if isinstance(s, float) else "i1" if isinstance(s, bool)
                            else "i32")
    # 1e300 is inf in float32, as the general path packs it (struct alone would refuse it).
    assert struct.unpack("<f", native.recorder.calls[5]["buf"][16:20])[0] == math.inf


def _error(call):
    with pytest.raises(Exception) as ei:
        call()
    return type(ei.value), str(ei.value)


def _both_paths(fn, call, warm_up):
    """The error of ``call`` with the fast path warm, and with no fast path at all."""
    warm_up()
    assert fn._warm, "the fast path was not learnt"
    fast = _error(call)
    fn._warm.clear()
    fn._variants.clear()
    general = _error(call)
    return fast, general


@pytest.mark.parametrize("bad", [
    lambda x, y, o: ((x, y, o, "many"), {}),
    lambda x, y, o: ((x, y, o, 2**64), {}),
    lambda x, y, o: ((x, y, Tensor(0x30000, device="cpu"), 1000), {}),
    lambda x, y, o: ((x, y, Tensor(0x30000, dtype="complex64"), 1000), {}),
    lambda x, y, o: ((x, y, object(), 1000), {}),
    lambda x, y, o: ((x, y, o), {}),
    lambda x, y, o: ((x, y, o, 1000, 5), {}),
    lambda x, y, o: ((x, y, o, 1000), {"bogus": 1}),
    lambda x, y, o: ((x, y, o, 1000), {"stream": "s"}),
])
def test_argument_errors_are_the_general_paths(native, bad):
    x, y, o = Tensor(0x10000), Tensor(0x20000), Tensor(0x30000)
    args, kwargs = bad(x, y, o)

    def warm_up():
        for _ in range(2):
            add[(2,)](x, y, o, 1000, BLOCK=128)
            add[(2,)](x, y, o, 1000, BLOCK=128, stream=5)
    fast, general = _both_paths(add, lambda: add[(2,)](*args, BLOCK=128, **kwargs), warm_up)
    assert fast == general


@pytest.mark.parametrize("grid", [(0,), (2**31,), (1, 65536), (1, 1, 1, 1), (), ("4",),
                                  (4.0,), 4, None, [0], (1, -1)])
def test_grid_errors_are_the_general_paths(native, grid):
    x, y, o = Tensor(0x10000), Tensor(0x20000), Tensor(0x30000)
    fast, general = _both_paths(add, lambda: add[grid](x, y, o, 1000, BLOCK=128),
                                lambda: [add[(2,)](x, y, o, 1000, BLOCK=128) for _ in "ab"])
    assert fast == general and fast[0] is ValueError


def test_callable_grid_and_numpy_like_grid(native):
    x, y, o = Tensor(0x10000), Tensor(0x20000), Tensor(0x30000)
    seen = []

    def grid(meta):
        seen.append(dict(meta))
        return ((meta["n"] + meta["BLOCK"] - 1) // meta["BLOCK"],)
    for _ in range(3):
        add[grid](x, y, o, 1024, BLOCK=128)
        assert native.recorder.calls[-1]["grid"] == (8, 1, 1)
    add[grid](x, y, o, 1, BLOCK=128)  # n == 1: a constexpr, as the grid sees it
    add[grid](x, y, o, 1, BLOCK=128)
    assert native.recorder.calls[-1]["grid"] == (1, 1, 1)
    assert len(native.general) == 2 and len(seen) == 5
    assert seen[0] == seen[1] == seen[2] == {"x": x, "y": y, "out": o, "n": 1024, "BLOCK": 128,
                                             "num_warps": 4}
    assert seen[3] == seen[4] and seen[4]["n"] == 1
    for bad in [lambda meta: (0,), lambda meta: 7, lambda meta: (1.5,)]:
        fast = _error(lambda: add[bad](x, y, o, 1024, BLOCK=128))
        add._warm.clear()
        add._variants.clear()
        assert fast == _error(lambda: add[bad](x, y, o, 1024, BLOCK=128))
        add[(2,)](x, y, o, 1024, BLOCK=128)
        assert add._warm

    class Index:
        def __index__(self):
            return 3
    add[(Index(),)](x, y, o, 1000, BLOCK=128)
    assert native.recorder.calls[-1]["grid"] == (3, 1, 1)


def test_a_rebound_global_raises_on_the_fast_path(native):
    x, o = Tensor(0x10000), Tensor(0x20000)
    g = scale.fn.__globals__
    scale[(1,)](x, o, 2.0, 100, True, BLOCK=128)
    scale[(1,)](x, o, 2.0, 100, True, BLOCK=128)
    assert scale._globals_ok is not None and scale._globals_ok()
    before = len(native.general)
    scale[(1,)](x, o, 2.0, 100, True, BLOCK=128)
    assert len(native.general) == before
    old, kl_module = g["GLOBAL_LAYOUT"], g["kl"]
    try:
        g["GLOBAL_LAYOUT"] = kl.BlockedLayout([4], [32], [4], [0])  # equal: still fine
        scale[(1,)](x, o, 2.0, 100, True, BLOCK=128)  # (the general path: not the same object)
        before = len(native.general)
        scale[(1,)](x, o, 2.0, 100, True, BLOCK=128)  # and fast again
        scale[(1,)](x, o, 2.0, 100, True, BLOCK=128)
        assert len(native.general) == before
        g["GLOBAL_LAYOUT"] = kl.BlockedLayout([2], [32], [4], [0])
        fast = _error(lambda: scale[(1,)](x, o, 2.0, 100, True, BLOCK=128))
        scale._warm.clear()
        scale._variants.clear()
        general = _error(lambda: scale[(1,)](x, o, 2.0, 100, True, BLOCK=128))
        assert fast == general and fast[0] is kiln.GlobalChangedError
        assert "global 'GLOBAL_LAYOUT'" in fast[1]
        g["kl"] = None  # a module the kernel reads, rebound
        g["GLOBAL_LAYOUT"] = old
        assert not scale._globals_ok()
    finally:
        g["GLOBAL_LAYOUT"] = old
        g["kl"] = kl_module
    assert scale._globals_ok()


def test_a_new_specialization_keeps_the_fast_path_of_the_earlier_ones(native):
    x, o = Tensor(0x10000), Tensor(0x20000)
    scale[(1,)](x, o, 2.0, 100, True, BLOCK=128)
    scale.warmup(x, o, 2.0, 100, True, BLOCK=256)  # compiles: the globals check is stale
    before = len(native.general)
    for _ in range(3):
        scale[(1,)](x, o, 2.0, 100, True, BLOCK=128)
    assert len(native.general) == before + 1 and native.compiles == 2


def test_driver_errors_are_the_general_paths(native):
    x, y, o = Tensor(0x10000), Tensor(0x20000), Tensor(0x30000)
    add[(2,)](x, y, o, 1000, BLOCK=128)
    add[(2,)](x, y, o, 1000, BLOCK=128)
    native.recorder.rc = 1
    fast = _error(lambda: add[(2,)](x, y, o, 1000, BLOCK=128))
    add._warm.clear()
    add._variants.clear()
    general = _error(lambda: add[(2,)](x, y, o, 1000, BLOCK=128))
    assert fast == general and fast[0] is _runtime.DriverError


def test_descriptors_take_the_fast_path_and_a_new_kind_specializes_anew(native):
    from kiln.nvidia.hopper import TensorDescriptor
    layout = kl.NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16, rank=2)
    a = Tensor(0x100000, "bfloat16", shape=(256, 128))
    b = Tensor(0x200000, "bfloat16", shape=(256, 128))
    d1 = TensorDescriptor(a, [256, 128], [128, 1], [64, 64], layout)
    d2 = TensorDescriptor(b, [256, 128], [128, 1], [64, 64], layout)
    d3 = TensorDescriptor(b, [256, 128], [128, 1], [32, 64], layout)  # another kind
    _launch_and_check(native, copy_desc, (2,), (d1, d2, 256), {}, fast=False)
    _launch_and_check(native, copy_desc, (2,), (d2, d1, 512), {}, fast=True)
    assert native.compiles == 1
    _launch_and_check(native, copy_desc, (2,), (d1, d3, 256), {}, fast=False)
    assert native.compiles == 2
    _launch_and_check(native, copy_desc, (2,), (d1, d3, 256), {}, fast=True)
    _launch_and_check(native, copy_desc, (2,), (d1, d2, 256), {}, fast=True)
    assert native.compiles == 2
    # Not a descriptor where one was: the general path's error.
    fast = _error(lambda: copy_desc[(2,)](d1, object(), 256))
    copy_desc._warm.clear()
    copy_desc._variants.clear()
    assert fast == _error(lambda: copy_desc[(2,)](d1, object(), 256))
    assert fast[0] is TypeError


# --- the kernel launcher's fast function, directly ------------------------------------------

def _loaded(driver, params, **md):
    from kiln.runtime import launcher
    meta = {"name": "k", "target": "cuda:sm_90a", "num_warps": 4, "threads_per_warp": 32,
            "shared": 64, "params": params}
    meta.update(md)
    return launcher.LoadedKernel(driver, b"", meta)


def test_kernel_fast_launcher_errors_are_launchs(native):
    """A misaligned address for a ':16' parameter, a tensor beyond its ':range32' limit, an
    int out of range, a CPU tensor: launch()'s own errors (and the driver sees nothing)."""
    params = [{"name": "x", "type": "*fp32", "divisibility": 16, "pointer_range_bytes": 1000},
              {"name": "n", "type": "i32", "divisibility": 16}]
    k = _loaded(native.driver, params)
    fast = k.fast_launcher([("x", "tensor"), ("n", "int")], ["x", "n"])
    ok = Tensor(0x1000, nbytes=512)
    fast(1, 1, 1, None, ok, ok.data_ptr(), 32)  # loads the module through launch()
    fast(1, 1, 1, None, ok, ok.data_ptr(), 32)
    assert len(native.recorder.calls) == 2
    assert native.recorder.calls[-1]["buf"] == _runtime.pack_args(k.arg_types, [0x1000, 32])[0]
    for arg, n in [(Tensor(0x1004), 32), (Tensor(0x1000, nbytes=4096), 32),
                   (Tensor(0x1000, device="cpu"), 32), (ok, 31), (ok, 2**31 + 16),
                   (Tensor(-16), 32), (Tensor(2**64), 32)]:
        want = _error(lambda: k.launch((1,), [arg, n]))
        got = _error(lambda: fast(1, 1, 1, None, arg, arg.data_ptr(), n))
        assert got == want, (arg.ptr, n)
    assert len(native.recorder.calls) == 2
    got = _error(lambda: fast(1, 1, 1, "stream", ok, ok.data_ptr(), 32))
    assert got == _error(lambda: k.launch((1,), [ok, 32], stream="stream"))


def test_kernel_fast_launcher_defers_what_it_does_not_know(native):
    """Kernels with clusters, scratch memory or 16-bit float arguments, and drivers that are
    not kiln.runtime.Driver on kiln._runtime, launch through launch() itself."""
    from kiln.runtime import launcher
    calls = []

    class Other(StubDriver):
        def launch(self, *a, **kw):
            calls.append(a)
    for driver, params in [(Other(), [{"name": "n", "type": "i32"}]),
                           (native.driver, [{"name": "h", "type": "fp16"}])]:
        k = _loaded(driver, params)
        fast = k.fast_launcher([(params[0]["name"], "float" if "h" in params[0]["name"]
                                 else "int")], [params[0]["name"]])
        assert "K.launch(" in fast.code and "raw(" not in fast.code
        fast(2, 1, 1, None, 1.5 if params[0]["type"] == "fp16" else 7)
    assert len(calls) == 1 and calls[0][-1] == [7]
    assert native.recorder.calls[-1]["buf"] == _runtime.pack_args(["fp16"], [1.5])[0]


# --- kiln._runtime.fast_struct ---------------------------------------------------------------

_VALUES = {
    "i32": [0, 1, -1, 2**31 - 1, -2**31, 2**31, -2**31 - 1, True, 2**40],
    "u32": [0, 2**32 - 1, 2**32, -1],
    "i64": [0, -1, 2**63 - 1, -2**63, 2**63, -2**63 - 1],
    "u64": [0, 2**64 - 1, 2**64, -1],
    "i1": [True, False],
    "fp32": [0.0, -0.0, 1.5, 3.4028234663852886e38, 3.4028235677973366e38, 1e39, -1e39,
             float("inf"), float("-inf"), float("nan"), 1e-45, 1e-46, 2.5],
    "fp64": [0.0, -0.0, 1e300, float("nan"), float("-inf"), 5e-324],
    "*fp32": [0, 0x7F0000001000, 2**64 - 1, 2**64, -16],
    "tensordesc": [bytes(range(128))],  # (the launcher checks the length: struct pads)
}


@pytest.mark.parametrize("ty", sorted(_VALUES))
def test_fast_struct_packs_as_pack_args(ty):
    types = ["i32", ty, "i64"]
    packer = _runtime.fast_struct(types)
    assert packer.size == len(_runtime.pack_args(types, [1, _VALUES[ty][0], 2])[0])
    for v in _VALUES[ty]:
        try:
            want = _runtime.pack_args(types, [1, v, 2])[0]
        except (TypeError, ValueError):
            want = None
        try:
            got = packer.pack(1, v, 2)
        except (struct.error, OverflowError):
            got = None  # the fast path then takes the general one, which raises
        if want is not None and got is None:  # struct refuses only what the packer rounds
            assert ty == "fp32" and math.isfinite(v) and abs(v) > 3.4e38
            continue
        assert got == want, (ty, v)


def test_fast_struct_of_types_without_a_code():
    assert _runtime.fast_struct(["fp16"]) is None and _runtime.fast_struct(["i8"]) is None
    assert _runtime.fast_struct([]).size == 0


# --- default_stream with torch -----------------------------------------------------------------

def test_default_stream_asks_torch_in_two_calls_once_initialized(monkeypatch):
    from kiln.runtime import launcher
    state = {"init": False, "bad_fork": False, "device": 1, "calls": 0}

    class C:
        @staticmethod
        def _cuda_getCurrentRawStream(device):
            state["calls"] += 1
            return 1000 + device

        @staticmethod
        def _cuda_getDevice():
            return state["device"]

        @staticmethod
        def _cuda_isInBadFork():
            return state["bad_fork"]

    class Cuda:
        @staticmethod
        def is_initialized():
            return state["init"] and not state["bad_fork"]

        @staticmethod
        def current_device():
            return state["device"]

    torch = type(sys)("torch")
    torch._C, torch.cuda = C, Cuda
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setattr(launcher, "_TORCH_STREAM", None)
    assert launcher.default_stream() == 0 and launcher._TORCH_STREAM is None
    state["init"] = True
    assert launcher.default_stream() == 1001
    assert launcher._TORCH_STREAM is not None
    state["device"] = 3
    assert launcher.default_stream() == 1003
    state["bad_fork"] = True  # a forked child: torch's CUDA is no longer initialized there
    assert launcher.default_stream() == 0


def test_torch_tensors_are_asked_is_cpu(native, monkeypatch):
    """For torch.Tensor itself the launcher reads is_cpu (a C getter) instead of a device
    object's type name; a CPU tensor still gets _pointer's error."""
    class TorchTensor(Tensor):
        reads = []

        @property
        def is_cpu(self):
            TorchTensor.reads.append("is_cpu")
            return self.device.type == "cpu"

    torch = type(sys)("torch")
    torch.Tensor = TorchTensor
    torch.cuda = type("cuda", (), {"is_initialized": staticmethod(lambda: False)})
    monkeypatch.setitem(sys.modules, "torch", torch)
    x, y, o = TorchTensor(0x10000), TorchTensor(0x20000), TorchTensor(0x30000)
    for _ in range(3):
        add[(2,)](x, y, o, 1000, BLOCK=128)
    assert len(native.general) == 1 and TorchTensor.reads.count("is_cpu") == 6
    assert native.recorder.calls[-1]["buf"] == _expected(add, (x, y, o, 1000),
                                                         {"BLOCK": 128})[1]
    cpu = TorchTensor(0x30000, device="cpu")
    fast = _error(lambda: add[(2,)](x, y, cpu, 1000, BLOCK=128))
    assert fast[0] is ValueError and "'out' is a CPU tensor" in fast[1]


def test_the_descriptor_memo_keeps_nothing_alive(native):
    import gc
    import weakref
    from kiln.nvidia.hopper import TensorDescriptor
    layout = kl.NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16, rank=2)

    def desc(address, rows=256):
        return TensorDescriptor(Tensor(address, "bfloat16", shape=(rows, 128)), [rows, 128],
                                [128, 1], [64, 64], layout)
    d1, d2 = desc(0x100000), desc(0x200000)
    for _ in range(2):
        copy_desc[(1,)](d1, d2, 8)
    gone = weakref.ref(d2)
    del d2
    gc.collect()
    assert gone() is None
    for rows in (256, 512, 256):  # a new object of the same kind each time: fresh fields
        d3 = desc(0x300000 + rows * 256, rows)
        copy_desc[(1,)](d1, d3, 8)
        assert native.recorder.calls[-1]["buf"] == _expected(copy_desc, (d1, d3, 8), {})[1]
    assert native.compiles == 1
    from kiln.runtime import launcher
    if launcher._fastlaunch is not None:  # the descriptors were packed by the C launcher
        hits = [h for vs in copy_desc._variants.values() for v in vs for h in v.table.values()]
        assert {type(h[0]).__name__ for h in hits} == {"Launcher"}


def test_range32_on_a_target_with_pointer_ranges(native, monkeypatch):
    """hip:gfx942 (pointer_range_bytes 2**31 - 2): a tensor that fits gets ':range32', one
    that does not a kernel without it; both fast once warm, each with its own bytes."""
    driver = StubDriver("hip:gfx942")
    monkeypatch.setattr(sys.modules["kiln.jit"], "_driver", lambda: driver)
    x, y = Tensor(0x10000), Tensor(0x20000)
    small, big = Tensor(0x30000, nbytes=4096), Tensor(0x30000, nbytes=2**31)
    for out in (small, small, big, big, small, big):
        touch[(2,)](x, y, out, 1000)
        loaded, buf = _expected(touch, (x, y, out, 1000), {})
        assert native.recorder.calls[-1]["buf"] == buf
        assert native.recorder.calls[-1]["backend"] == b"hip"
        assert ("pointer_range_bytes" in loaded.params[2]) == (out is small)
    assert native.compiles == 2 and len(native.general) == 2


def test_kernels_without_runtime_arguments_and_arguments_by_name(native):
    for _ in range(3):
        nothing[(3,)]()
        assert native.recorder.calls[-1]["buf"] == b"" and native.recorder.calls[-1]["grid"] \
            == (3, 1, 1)
    assert native.general == ["nothing"]
    # A parameter named like an option is both: by name, and positionally too (Gluon's
    # `num_warps: constexpr` is the launch's warps); `stream` given positionally is only the
    # parameter.
    for _ in range(2):
        only_constexprs[(1,)](A=3, num_warps=8, stream=77)
        assert native.recorder.calls[-1]["stream"] == 77
        assert native.recorder.calls[-1]["block"] == (256, 1, 1)
        only_constexprs[(1,)](3, 8, 77)
        assert native.recorder.calls[-1]["stream"] == 0
        assert native.recorder.calls[-1]["block"] == (256, 1, 1)
        only_constexprs[(1,)](3, 2, 77)
        assert native.recorder.calls[-1]["block"] == (64, 1, 1)
        only_constexprs[(1,)](3, num_warps=8, stream=5)
        assert native.recorder.calls[-1]["stream"] == 5
    assert native.general.count("only_constexprs") == 4
    x, y, o = Tensor(0x10000), Tensor(0x20000), Tensor(0x30000)
    for _ in range(2):
        add[(1,)](out=o, n=10, BLOCK=128, y=y, x=x)
        add[(1,)](x, y, o, BLOCK=128, n=10)
    assert native.recorder.calls[-1]["buf"] == _expected(add, (x, y, o, 10), {"BLOCK": 128})[1]
    assert native.general.count("add") == 2 and native.compiles == 4


@kiln.jit
def pair_copy(ptrs, n, BLOCK: kl.constexpr):
    layout: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    o = kl.arange(0, BLOCK, layout)
    kl.store(ptrs[1] + o, kl.load(ptrs[0] + o, mask=o < n) * ptrs[2], mask=o < n)


def test_tuple_arguments_launch_warm_without_specializing_again(native, monkeypatch):
    """A tuple of tensors (one kernel argument per element) keys the warm launch by its
    elements' kinds: the same kinds launch the kernel compiled first, other kinds (an
    unaligned pointer, a different scalar kind) specialize again."""
    _reset(pair_copy)
    compiles = []
    real = JIT.JITFunction._compile

    def counted(self, arguments, options):
        compiles.append(self.__name__)
        return real(self, arguments, options)
    monkeypatch.setattr(JIT.JITFunction, "_compile", counted)
    x, y = Tensor(0x10000), Tensor(0x20000)
    pair_copy[(1,)]((x, y, 2.0), 100, BLOCK=128)
    first = len(compiles)
    buf = native.recorder.calls[-1]["buf"]
    pair_copy[(1,)]((Tensor(0x40000), Tensor(0x50000), 3.0), 100, BLOCK=128)
    assert len(compiles) == first  # warm: no specialization, no compile lookup
    assert native.recorder.calls[-1]["buf"] != buf  # the new addresses and scale
    assert struct.unpack_from("<Q", native.recorder.calls[-1]["buf"], 0)[0] == 0x40000
    pair_copy[(1,)]((Tensor(0x60004), y, 2.0), 100, BLOCK=128)  # not 16-byte aligned
    assert len(compiles) == first + 1
    pair_copy[(1,)]((x, y, 2), 100, BLOCK=128)  # an int where a float was
    assert len(compiles) == first + 2
    _reset(pair_copy)


def test_keyword_tuple_and_none_launches_take_the_fast_path(native, monkeypatch):
    """fla's AttnRes forward launch shape: every argument by name, a tuple of tensors, None
    for the optional pointers, constexprs by name and num_warps. Once warm, such a launch
    (and the same launch positionally, and each variation below once seen) is the fast
    path's: no specialization, no compile lookup, and the bytes the general path packs."""
    _reset(attn_like)
    specialized = []
    real = JIT.JITFunction.specialize

    def counted(self, *a, **k):
        specialized.append(self.__name__)
        return real(self, *a, **k)
    monkeypatch.setattr(JIT.JITFunction, "specialize", counted)
    q, w, o, ow, o_pre = (Tensor(0x10000 * i) for i in range(1, 6))
    srcs = tuple(Tensor(0x100000 + 0x10000 * i) for i in range(3))
    base = dict(q=q, res=srcs, w=w, ow=None, o=o, o_pre=None, N=1000, L=3, BLOCK=128,
                HAS_OW=False, SAVE=False, NW=4, num_warps=4)
    positional = tuple(base[n] for n in attn_like.arg_names)
    cases = [
        ((), base),
        ((), dict(base, res=tuple(Tensor(0x200000 + 0x10000 * i) for i in range(3)))),
        ((), dict(base, ow=ow, HAS_OW=True)),  # a tensor where None was
        ((), dict(base, o_pre=o_pre, SAVE=True, NW=8, num_warps=8)),
        ((), dict(base, res=list(srcs))),  # a list
        ((), dict(base, res=srcs[:2], L=2)),  # another length
        ((), dict(base, res=(srcs[0], Tensor(0x300004), srcs[2]))),  # an unaligned element
        ((), dict(base, res=(srcs[0], Tensor(0x300000, "float16"), srcs[2]))),  # a dtype
        ((), dict(base, N=1)),  # N == 1: a constexpr
        (positional, {"num_warps": 4}),
    ]
    for args, kwargs in cases:
        attn_like[(4,)](*args, **kwargs)
        before = (len(native.general), len(specialized), native.compiles)
        attn_like[(4,)](*args, **kwargs)  # warm: the fast path
        assert (len(native.general), len(specialized), native.compiles) == before, kwargs
        assert native.recorder.calls[-1]["buf"] == _expected(attn_like, args, kwargs)[1]
        assert native.recorder.calls[-1]["block"] == (32 * kwargs["num_warps"], 1, 1)
    compiles = native.compiles
    assert compiles == 7  # the new addresses, the list and the positional launch: the first
    before = (len(native.general), len(specialized))
    for _ in range(3):
        for args, kwargs in cases:
            attn_like[(4,)](*args, **kwargs)
            assert native.recorder.calls[-1]["buf"] == \
                _expected(attn_like, args, kwargs)[1], kwargs
    assert native.compiles == compiles
    # (_expected specializes, through the general path's own functions, once a call.)
    assert len(native.general) == before[0]
    assert len(specialized) == before[1] + 3 * len(cases)
    # Tuple elements of another kind than learnt: the general path, and its own error.
    fast = _error(lambda: attn_like[(4,)](**dict(base, res=(srcs[0], object(), srcs[2]))))
    attn_like._warm.clear()
    attn_like._variants.clear()
    assert fast == _error(lambda: attn_like[(4,)](**dict(base, res=(srcs[0], object(),
                                                                    srcs[2]))))
    _reset(attn_like)


# --- kiln._fastlaunch: the warm launch in C --------------------------------------------------

def _c_launcher(fast):
    from kiln.runtime import launcher
    if launcher._fastlaunch is None:
        if os.environ.get("CI"):  # scripts/setup.sh installs the headers: CI always has it
            pytest.fail("kiln/_fastlaunch.abi3.so is not built in CI")
        pytest.skip("kiln/_fastlaunch.abi3.so is not built (no Python headers)")
    assert type(fast).__name__ == "Launcher", "the fast launcher is not the C one"
    return fast


@pytest.mark.parametrize("ty", sorted(t for t in _VALUES if t not in ("tensordesc", "u32")))
def test_c_launcher_packs_each_value_as_pack_args(native, ty):
    """Every value of every scalar and pointer type the fast path takes (a Python int for a
    u32 parameter takes the general path): the C launcher hands the entry point the bytes
    pack_args makes, or, for what it refuses, the general path raises its own error."""
    params = [{"name": "a", "type": "i32"}, {"name": "v", "type": ty},
              {"name": "b", "type": "i64"}]
    k = _loaded(native.driver, params)
    want = "tensor" if ty.startswith("*") else {"i1": "bool", "fp32": "float",
                                                 "fp64": "float"}.get(ty, "int")
    fast = _c_launcher(k.fast_launcher([("a", "int"), ("v", want), ("b", "int")],
                                       ["a", "v", "b"]))
    for v in _VALUES[ty]:
        values = (Tensor(v), v) if want == "tensor" else (v,)
        arg = values[0]
        try:
            expected = _runtime.pack_args(k.arg_types, k.prepare_args([1, arg, 2]))[0]
        except Exception:
            expected = None
        before = len(native.recorder.calls)
        if expected is None:
            assert _error(lambda: fast(1, 1, 1, None, 1, *values, 2)) == \
                _error(lambda: k.launch((1,), [1, arg, 2])), (ty, v)
            assert len(native.recorder.calls) == before
            continue
        fast(3, 2, 1, None, 1, *values, 2)
        call = native.recorder.calls[-1]
        assert len(native.recorder.calls) == before + 1
        assert call["buf"] == expected, (ty, v)
        assert call["grid"] == (3, 2, 1) and call["block"] == k.block
        assert call["offsets"] == list(_runtime.pack_args(k.arg_types, k.prepare_args(
            [1, arg, 2]))[1])


def test_c_launcher_reads_torch_stream_and_defers_to_python(native, monkeypatch):
    """The stream: torch's current raw stream (through the getters the launcher remembered;
    after a fork, default_stream()), or the caller's int; what it cannot call (an entry
    point that is not a ctypes function) goes to the Python launcher."""
    from kiln.runtime import launcher
    k = _loaded(native.driver, [{"name": "n", "type": "i32"}])
    fast = _c_launcher(k.fast_launcher([("n", "int")], ["n"]))
    fast(1, 1, 1, None, 5)  # loads the module through the fallback
    state = {"bad": False, "calls": 0}

    def raw(device):
        state["calls"] += 1
        return 4000 + device
    monkeypatch.setattr(launcher, "_TORCH_STREAM", (raw, lambda: 2, lambda: state["bad"]))
    fast(1, 1, 1, None, 5)
    assert native.recorder.calls[-1]["stream"] == 4002 and state["calls"] == 1
    state["bad"] = True  # a forked child: default_stream() decides (no torch here: 0)
    monkeypatch.setattr(launcher, "default_stream", lambda: 0)
    fast(1, 1, 1, None, 5)
    assert native.recorder.calls[-1]["stream"] == 0 and state["calls"] == 1
    fast(1, 1, 1, 77, 6)
    assert native.recorder.calls[-1]["stream"] == 77
    assert native.recorder.calls[-1]["buf"] == _runtime.pack_args(["i32"], [6])[0]
    seen = []
    monkeypatch.setattr(_runtime._lib, "kiln_rt_launch", lambda *a: seen.append(a) or 0)
    fast(1, 1, 1, 9, 7)  # not a ctypes function: the Python launcher calls it
    assert len(seen) == 1 and seen[0][10] == 9


def test_c_launcher_raises_the_drivers_error(native):
    k = _loaded(native.driver, [{"name": "n", "type": "i32"}])
    fast = _c_launcher(k.fast_launcher([("n", "int")], ["n"]))
    fast(1, 1, 1, None, 5)
    native.recorder.rc = 1
    with pytest.raises(_runtime.DriverError):
        fast(1, 1, 1, None, 5)



def test_loaded_kernel_launches_warm_by_argument_kinds(native):
    """A LoadedKernel (an AOT bundle's, or one launched directly) learns a launcher per
    combination of argument kinds once loaded: the same bytes as launch(), the same errors,
    anything else (a callable grid, None) through launch() itself."""
    params = [{"name": "x", "type": "*fp32", "divisibility": 16},
              {"name": "n", "type": "i32"}, {"name": "s", "type": "fp32"},
              {"name": "f", "type": "i1"}]
    k = _loaded(native.driver, params)
    x = Tensor(0x1000)
    for i in range(3):
        k[(2, 3)](x, 5 + i, 1.5, True)
        call = native.recorder.calls[-1]
        assert call["buf"] == _runtime.pack_args(k.arg_types, [0x1000, 5 + i, 1.5, True])[0]
        assert call["grid"] == (2, 3, 1)
    assert len(k._warm) == 1  # learnt after the first launch loaded the module
    (fast,) = k._warm.values()
    from kiln.runtime import launcher
    if launcher._fastlaunch is not None:
        assert type(fast).__name__ == "Launcher"
    for args in [(Tensor(0x1004), 5, 1.5, True), (Tensor(0x1000, device="cpu"), 5, 1.5, True),
                 (x, 2**31, 1.5, True), (x, 5, 1e39, True), (x, "5", 1.5, True),
                 (None, 5, 1.5, True)]:
        before = len(native.recorder.calls)
        try:
            k.launch((2,), list(args))
        except Exception as e:  # noqa: BLE001 -- compared below
            want = (type(e), str(e))
            assert _error(lambda: k[(2,)](*args)) == want, args
            assert len(native.recorder.calls) == before
            continue
        launched = native.recorder.calls[-1]["buf"]  # launch() takes it (fp32 1e39: inf)
        k[(2,)](*args)
        assert native.recorder.calls[-1]["buf"] == launched, args
    k[lambda meta: (4,)](x, 1, 2.0, False)  # a callable grid: launch() computes it
    assert native.recorder.calls[-1]["grid"] == (4, 1, 1)
    assert native.recorder.calls[-1]["buf"] == _runtime.pack_args(
        k.arg_types, [0x1000, 1, 2.0, False])[0]


def test_loaded_kernel_warm_launches_pack_descriptors(native):
    """An AOT-style launch (the LoadedKernel itself) of a kernel taking tensor descriptors:
    warm, the same bytes as kiln.jit's launch of the same arguments, a new descriptor
    read afresh."""
    from kiln.nvidia.hopper import TensorDescriptor
    layout = kl.NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16, rank=2)

    def desc(address, rows=256):
        return TensorDescriptor(Tensor(address, "bfloat16", shape=(rows, 128)), [rows, 128],
                                [128, 1], [64, 64], layout)
    d1, d2 = desc(0x100000), desc(0x200000)
    copy_desc[(1,)](d1, d2, 8)
    want = native.recorder.calls[-1]["buf"]
    (entry,) = [e for e in copy_desc._launches.values()]
    loaded = entry[1]
    for _ in range(3):
        loaded[(1,)](d1, d2, 8)
        assert native.recorder.calls[-1]["buf"] == want
    assert len(loaded._warm) == 1
    d3 = desc(0x300000, 512)
    loaded[(1,)](d1, d3, 8)
    copy_desc[(1,)](d1, d3, 8)
    assert native.recorder.calls[-1]["buf"] == native.recorder.calls[-2]["buf"] != want


def test_c_launcher_from_several_threads(native):
    """Four threads launching one kernel at once (the C launcher releases the GIL around the
    native call): every launch hands the entry point its own thread's bytes."""
    import threading
    x = Tensor(0x1000)
    add[(1,)](x, x, x, 1, BLOCK=128)  # compiled and warm before the threads start
    add[(1,)](x, x, x, 1, BLOCK=128)
    errors = []

    def work(t):
        try:
            a, b, o = Tensor(0x10000 * (t + 1)), Tensor(0x20000 * (t + 1)), Tensor(0x40000)
            for i in range(300):
                add[(t + 1,)](a, b, o, 16 * i + t, BLOCK=128)
        except Exception as e:  # noqa: BLE001 -- reported below
            errors.append(e)
    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    before = len(native.recorder.calls)
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors
    calls = native.recorder.calls[before:]
    assert len(calls) == 4 * 300
    for call in calls:
        t = call["grid"][0] - 1
        a, b, o = struct.unpack_from("<QQQ", call["buf"])
        assert (a, b, o) == (0x10000 * (t + 1), 0x20000 * (t + 1), 0x40000)
        # n == 1 is specialized into the kernel (no slot); any other n is passed
        n = struct.unpack_from("<i", call["buf"], 24)[0] if len(call["buf"]) > 24 else 1
        assert n % 16 == t
