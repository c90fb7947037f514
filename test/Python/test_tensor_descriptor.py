"""Hopper TMA tensor descriptors on the host, without a GPU: kiln.nvidia.hopper's checks and
box rule, the launcher's "tensordesc" parameters (a fake driver encodes), packing of mixed-size
launch arguments, AOT bundles, and the native encoder (against no libcuda, and against a stub
libcuda built here when a C compiler is present)."""

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap

import pytest

import kiln.language as kl
import test_runtime
import kiln.runtime as rt
from kiln.nvidia import hopper
from kiln.nvidia.hopper import TensorDescriptor, tma_box
from kiln.runtime.errors import KilnRuntimeError

try:
    from kiln import _runtime
except ImportError:  # the runtime library is not built: the native tests skip
    _runtime = None

PYTHON_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python")
needs_runtime = pytest.mark.skipif(_runtime is None, reason="libkiln_runtime.so is not built")
NO_CUDA = _runtime is not None and _runtime.load_error("cuda") is not None


# --- stand-ins ----------------------------------------------------------------------------

class Layout:
    """Stands in for kl.NVMMASharedLayout: the attributes a TensorDescriptor reads."""

    def __init__(self, swizzle_byte_width=128, element_bitwidth=16, rank=2, transposed=False,
                 fp4_padded=False):
        self.swizzle_byte_width = swizzle_byte_width
        self.element_bitwidth = element_bitwidth
        self.rank = rank
        self.transposed = transposed
        self.fp4_padded = fp4_padded


class TorchDtype:
    """Prints like torch's dtypes (torch.bfloat16), which is what the JIT reads."""

    def __init__(self, name):
        self.name = name

    def __str__(self):
        return f"torch.{self.name}"

    __repr__ = __str__


class Tensor:
    """A contiguous device tensor: data_ptr(), dtype, device, shape, stride()."""

    def __init__(self, shape, dtype="bfloat16", ptr=0x7f0000000000, device="cuda"):
        self.shape = tuple(shape)
        self.dtype = TorchDtype(dtype) if isinstance(dtype, str) else dtype
        self.ptr = ptr
        self.device = type("Device", (), {"type": device})()
        self.is_cuda = device == "cuda"

    def data_ptr(self):
        return self.ptr

    def stride(self):
        out, step = [], 1
        for d in reversed(self.shape):
            out.append(step)
            step *= d
        return tuple(reversed(out))


class FakeDriver(test_runtime.FakeDriver):
    """test_runtime's stand-in driver, plus an encoder that returns a recognisable map and
    counts encodes; launches record (args, packed buffer and offsets)."""

    def __init__(self, backend="cuda"):
        super().__init__()
        self.backend = backend
        self.encodes = []

    def encode_tensor_map(self, *args):
        self.encodes.append(args)
        return bytes([len(self.encodes)]) * 128

    def launch(self, func, grid, block, shared, stream, arg_types, args):
        packed = _runtime.pack_args(arg_types, args) if _runtime else None
        self.launches.append((list(args), packed))


def desc(**over):
    """A valid 256x512 bf16 descriptor with 64x64 blocks and 128-byte swizzle, changed by
    `over` (base, shape, strides, block_shape, layout, padding)."""
    base = over.pop("base", None) or Tensor((256, 512))
    kw = dict(shape=[256, 512], strides=[512, 1], block_shape=[64, 64], layout=Layout())
    kw.update(over)
    return TensorDescriptor(base, kw.pop("shape"), kw.pop("strides"), kw.pop("block_shape"),
                            kw.pop("layout"), **kw)


# --- construction -------------------------------------------------------------------------

def test_from_tensor_and_attributes():
    t = Tensor((128, 256), "float16")
    layout = Layout(swizzle_byte_width=64)
    d = TensorDescriptor.from_tensor(t, [32, 64], layout)
    assert d.base is t and d.layout is layout
    assert d.dtype == kl.float16
    assert (d.shape, d.strides, d.block_shape, d.padding) == ([128, 256], [256, 1], [32, 64],
                                                              "zero")
    assert "fp16" in repr(d) and "block_shape=[32, 64]" in repr(d)


@pytest.mark.parametrize("dtype,bits,want", [
    ("float16", 16, kl.float16), ("bfloat16", 16, kl.bfloat16), ("float32", 32, kl.float32),
    ("float64", 64, kl.float64), ("int8", 8, kl.int8), ("uint8", 8, kl.uint8),
    ("int16", 16, kl.int16), ("int32", 32, kl.int32), ("int64", 64, kl.int64),
    ("float8_e4m3fn", 8, kl.float8e4nv), ("float8_e5m2", 8, kl.float8e5),
    (kl.bfloat16, 16, kl.bfloat16), (kl.int8, 8, kl.int8),
])
def test_dtype_from_base(dtype, bits, want):
    inner = 128 * 8 // bits  # one 128-byte swizzle row
    t = Tensor((64, 256), dtype)
    d = TensorDescriptor.from_tensor(t, [8, inner], Layout(element_bitwidth=bits))
    assert d.dtype == want


def test_rank_one_and_five():
    d1 = TensorDescriptor(Tensor((1024,)), [1024], [1], [128],
                          Layout(swizzle_byte_width=0, rank=1))
    assert d1.block_shape == [128]
    t5 = Tensor((2, 3, 4, 8, 64))
    d5 = TensorDescriptor.from_tensor(t5, [1, 1, 2, 8, 64], Layout(rank=5))
    assert d5.strides == [6144, 2048, 512, 64, 1]


# Every Python-side check, with the field its message names.
@pytest.mark.parametrize("over,exc,match", [
    (dict(shape=[], strides=[], block_shape=[]), ValueError, r"rank \(len\(shape\) = 0\)"),
    (dict(shape=[2] * 6, strides=[1] * 6, block_shape=[1] * 6), ValueError,
     r"rank \(len\(shape\) = 6\) must be 1 to 5"),
    (dict(strides=[512]), ValueError, r"len\(strides\) = 1 does not match the rank 2"),
    (dict(block_shape=[64, 64, 1]), ValueError, r"len\(block_shape\) = 3 does not match"),
    (dict(layout=Layout(rank=3)), ValueError, r"layout\.rank = 3 does not match the rank 2"),
    (dict(shape=[256, 0]), ValueError, r"shape\[1\] = 0 is out of range \[1, 2\*\*32\]"),
    (dict(shape=[2**32 + 1, 512]), ValueError, r"shape\[0\] = 4294967297 is out of range"),
    (dict(strides=[512, 2]), ValueError, r"strides\[1\] = 2: the last dimension must be "
     r"contiguous"),
    (dict(strides=[500, 1]), ValueError, r"strides\[0\] = 500 \(1000 bytes of bf16\) must be "
     r"a positive multiple of 16 bytes"),
    (dict(strides=[0, 1]), ValueError, r"strides\[0\] = 0 .* positive multiple of 16"),
    (dict(strides=[2**39, 1]), ValueError, r"strides\[0\] = 549755813888 \(1099511627776 "
     r"bytes\) must be less than 2\*\*40"),
    (dict(block_shape=[64, 512]), ValueError, r"block_shape\[1\] = 512 must be a power of "
     r"two in \[1, 256\]"),
    (dict(block_shape=[48, 64]), ValueError, r"block_shape\[0\] = 48 must be a power of two"),
    (dict(block_shape=[0, 64]), ValueError, r"block_shape\[0\] = 0 must be a power of two"),
    (dict(block_shape=[64, 4], layout=Layout(swizzle_byte_width=0)), ValueError,
     r"block_shape\[1\] = 4 elements of bf16 is 8 bytes; the innermost block dimension must "
     r"be a multiple of 16 bytes"),
    (dict(base=Tensor((256, 512), ptr=0x7f0000000008)), ValueError,
     r"base\.data_ptr\(\) = 0x7f0000000008 is not 16-byte aligned"),
    (dict(layout=Layout(element_bitwidth=32)), ValueError,
     r"layout\.element_bitwidth = 32 does not match base\.dtype bf16 \(16 bits\)"),
    (dict(layout=Layout(transposed=True)), ValueError,
     r"layout\.transposed = True: TMA writes a block in global memory's order .*"
     r"buffer\.permute\(\(1, 0\)\)"),
    (dict(layout=Layout(fp4_padded=True)), ValueError,
     r"layout\.fp4_padded = True: fp4-padded layouts are not supported for TMA descriptors "
     r"yet"),
    (dict(layout=Layout(swizzle_byte_width=16)), ValueError,
     r"layout\.swizzle_byte_width = 16 must be 0, 32, 64 or 128"),
    (dict(padding="inf"), ValueError, r"padding must be 'zero' or 'nan', got 'inf'"),
    (dict(base=Tensor((256, 512), "int16"), padding="nan"), ValueError,
     r"padding='nan' needs a float dtype \(fp16, bf16, fp32, fp64\), got i16"),
    (dict(base=Tensor((256, 512), "float8_e4m3fn"), layout=Layout(element_bitwidth=8),
          padding="nan"), ValueError, r"padding='nan' needs a float dtype .*got fp8e4nv"),
    (dict(base=Tensor((256, 512), "bool")), ValueError,
     r"base\.dtype i1 is not supported by TMA descriptors"),
    (dict(base=Tensor((256, 512), "complex64")), TypeError,
     r"base\.dtype torch\.complex64 is not a tensor dtype Kiln knows"),
    (dict(base=Tensor((256, 512), device="cpu")), ValueError, r"base is a CPU tensor"),
    (dict(base=12345), TypeError, r"base must be a device tensor \(an object with "
     r"data_ptr\(\) and dtype\), got int"),
    (dict(layout=kl.SwizzledSharedLayout(1, 1, 1, [1, 0])), TypeError,
     r"layout must be an NVMMASharedLayout \(with swizzle_byte_width, element_bitwidth, "
     r"rank, transposed, fp4_padded\), got SwizzledSharedLayout \(no swizzle_byte_width, "
     r"element_bitwidth, transposed, fp4_padded\)"),
    (dict(shape=[256, 512.0]), TypeError, r"shape\[1\] must be an int, got 512\.0"),
    (dict(block_shape=[64, True]), TypeError, r"block_shape\[1\] must be an int, got True"),
    (dict(strides=5), TypeError, r"strides must be a sequence of ints, got int"),
])
def test_checks_name_the_field(over, exc, match):
    with pytest.raises(exc, match=r"^TensorDescriptor: " + match):
        desc(**over)


def test_nan_padding_for_floats():
    d = desc(padding="nan")
    assert d.padding == "nan"
    d = desc(base=Tensor((256, 512), "float32"), block_shape=[64, 32],
             layout=Layout(element_bitwidth=32), padding="nan")
    assert d.dtype == kl.float32


def test_attributes_are_read_only_but_the_block():
    d = desc()
    with pytest.raises(AttributeError):
        d.shape = [128, 64]
    d.shape.append(7)  # a copy: the descriptor (and its cached map) stay as they were
    assert d.shape == [256, 512]


def test_block_shape_and_layout_can_be_assigned_as_a_pre_hook_does():
    """Triton's autotuning tutorials set a descriptor's block per config in a pre_hook; the
    new pair is checked at the next use (either may be set first), the cached map is
    encoded again, and the kernel specialization follows."""
    drv = FakeDriver()
    d = desc(base=Tensor((256, 512), ptr=0x7f0000001000))
    first = d._tensor_map(drv)
    d.block_shape = [32, 32]        # 64-byte rows: too narrow for the 128-byte swizzle...
    assert d.block_shape == [32, 32]
    d.layout = Layout(swizzle_byte_width=64)   # ...until the layout follows
    assert d._param_spec()["block_shape"] == [32, 32]
    assert d._param_spec()["layout"]["swizzle_byte_width"] == 64
    d._tensor_map(drv)
    assert len(drv.encodes) == 2 and list(drv.encodes[1][4]) == [32, 32]
    d.block_shape = [16, 16]        # stays wrong: an error at the use, naming the field
    with pytest.raises(ValueError, match=r"block_shape\[1\] = 16"):
        d._param_spec()
    with pytest.raises(ValueError):  # still checked, not silently accepted
        d._tensor_map(drv)
    d.block_shape, d.layout = [64, 64], Layout()
    d._tensor_map(drv)
    assert len(drv.encodes) == 3 and list(drv.encodes[2][4]) == [64, 64]
    assert first == bytes([1]) * 128


def test_with_kiln_language_layout():
    layout = kl.NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16, rank=2)
    d = TensorDescriptor.from_tensor(Tensor((256, 512)), [64, 64], layout)
    assert d._param_spec()["layout"] == {"swizzle_byte_width": 128, "element_bitwidth": 16,
                                         "rank": 2, "transposed": False, "fp4_padded": False}


# --- the box rule ---------------------------------------------------------------------------

@pytest.mark.parametrize("block,swizzle,bits,box", [
    ([64, 64], 128, 16, [64, 64]),      # 128-byte rows, 128-byte swizzle: the block
    ([64, 128], 128, 16, [64, 64]),     # 256-byte rows: one 128-byte chunk per box
    ([128, 256], 64, 8, [128, 64]),     # fp8, 64-byte swizzle
    ([16, 64], 32, 32, [16, 8]),        # fp32, 32-byte swizzle
    ([64, 128], 0, 16, [64, 128]),      # no swizzle: the block, whatever its width
    ([64, 16], 128, 16, [64, 16]),      # narrower than the swizzle: the block
    ([4, 8, 256], 128, 8, [4, 8, 128]),  # only the innermost dimension changes
    ([256], 64, 64, [8]),
])
def test_tma_box(block, swizzle, bits, box):
    assert tma_box(block, swizzle, bits) == box
    assert tma_box(tuple(block), swizzle, bits) == box  # any sequence; a new list


def test_tensor_map_encodes_innermost_first_with_the_box():
    drv = FakeDriver()
    d = desc(base=Tensor((256, 512), ptr=0x7f0000001000), block_shape=[32, 128])
    first = d._tensor_map(drv)
    assert first == bytes([1]) * 128
    (call,) = drv.encodes
    dtype, address, dims, strides, box, elem_strides, swizzle, nan = call
    assert (dtype, address, swizzle, nan) == ("bf16", 0x7f0000001000, 128, False)
    assert list(dims) == [512, 256]
    assert list(strides) == [1024]       # bytes: 512 bf16
    assert list(box) == [64, 32]         # 256-byte rows under a 128-byte swizzle
    assert elem_strides is None          # all ones
    # Cached per backend: a second launch does not encode again; another backend does.
    assert d._tensor_map(drv) is first and len(drv.encodes) == 1
    assert d._tensor_map(FakeDriver("other")) == bytes([1]) * 128


def test_tensor_map_rank3_strides_and_nan():
    t = Tensor((4, 64, 32), "float32")
    d = TensorDescriptor(t, [4, 64, 32], [4096, 64, 1], [2, 16, 32],
                         Layout(swizzle_byte_width=64, element_bitwidth=32, rank=3),
                         padding="nan")
    drv = FakeDriver()
    d._tensor_map(drv)
    _, _, dims, strides, box, _, swizzle, nan = drv.encodes[0]
    assert list(dims) == [32, 64, 4]
    assert list(strides) == [256, 16384]  # strides of dims 1, 2 in bytes, innermost first
    assert list(box) == [16, 16, 2] and swizzle == 64 and nan is True


def test_round_f32_to_tf32_encodes_a_tf32_map():
    """Gluon's round_f32_to_tf32: the same float32 tensor and kernel spec, a TFLOAT32 map
    (TMA rounds each loaded element to tf32); other dtypes are refused."""
    t = Tensor((64, 64), "float32")
    layout = Layout(swizzle_byte_width=128, element_bitwidth=32, rank=2)
    plain = TensorDescriptor(t, [64, 64], [64, 1], [32, 32], layout)
    rounded = TensorDescriptor(t, [64, 64], [64, 1], [32, 32], layout, round_f32_to_tf32=True)
    assert rounded.round_f32_to_tf32 and not plain.round_f32_to_tf32
    assert rounded._param_spec() == plain._param_spec()  # the kernel reads fp32 either way
    drv = FakeDriver()
    plain._tensor_map(drv)
    rounded._tensor_map(drv)
    assert [call[0] for call in drv.encodes] == ["fp32", "tf32"]
    with pytest.raises(ValueError, match="round_f32_to_tf32=True needs a float32 tensor, got "
                                         "bf16"):
        desc(round_f32_to_tf32=True)
    with pytest.raises(TypeError, match="round_f32_to_tf32 must be a bool"):
        desc(round_f32_to_tf32=1)


def test_param_spec():
    d = desc(base=Tensor((256, 512), "int8"), block_shape=[64, 128],
             layout=Layout(element_bitwidth=8))
    spec = d._param_spec()
    assert spec == {"dtype": "i8", "block_shape": [64, 128],
                    "layout": {"swizzle_byte_width": 128, "element_bitwidth": 8, "rank": 2,
                               "transposed": False, "fp4_padded": False}}
    json.dumps(spec)  # it goes into kernel metadata as is
    spec["block_shape"].append(1)  # a copy each time
    assert d._param_spec()["block_shape"] == [64, 128]


# --- the launcher -----------------------------------------------------------------------------

def tensordesc_param(name="a_desc", **over):
    p = {"name": name, "type": "tensordesc", "dtype": "bf16", "block_shape": [64, 64],
         "layout": {"swizzle_byte_width": 128, "element_bitwidth": 16, "rank": 2,
                    "transposed": False, "fp4_padded": False}}
    p.update(over)
    return p


def metadata(*params):
    return {"name": "tma_kernel", "target": "cuda:sm_90a", "num_warps": 4,
            "threads_per_warp": 32, "shared": 16384,
            "params": list(params) or [{"name": "n", "type": "i32"}, tensordesc_param(),
                                       {"name": "out", "type": "*bf16"}]}


@needs_runtime
def test_launch_passes_the_encoded_map():
    drv = FakeDriver()
    k = rt.LoadedKernel(drv, b"cubin", metadata())
    d = desc()
    k[(2,)](7, d, 0x10000)
    k[(2,)](8, d, 0x10000)
    assert len(drv.encodes) == 1  # encoded once, by the first launch
    args, (buf, offsets) = drv.launches[0]
    # The map, then the tensor's shape (i32) and strides (i64) that Gluon kernels read as
    # desc.shape / desc.strides, then the next parameter.
    assert args == [7, bytes([1]) * 128, 256, 512, 512, 1, 0x10000]
    assert offsets == (0, 64, 192, 200, 208, 216, 224) and len(buf) == 232
    assert buf[64:192] == bytes([1]) * 128 and buf[8:64] == bytes(56)
    assert buf[192:224] == b"".join(v.to_bytes(8, "little") for v in (256, 512, 512, 1))


def test_int_dtype_spellings_match():
    # The compiler may record "int8" or "i8"; either matches an int8 descriptor.
    for spelling in ("i8", "int8"):
        drv = FakeDriver()
        md = metadata(tensordesc_param(dtype=spelling, block_shape=[64, 128],
                                       layout=dict(tensordesc_param()["layout"],
                                                   element_bitwidth=8)))
        k = rt.LoadedKernel(drv, b"", md)
        d = desc(base=Tensor((256, 512), "int8"), block_shape=[64, 128],
                 layout=Layout(element_bitwidth=8))
        assert k.prepare_args([d]) == [bytes([1]) * 128, 256, 512, 512, 1]


@pytest.mark.parametrize("arg,exc,match", [
    (0x1000, TypeError, r"argument 'a_desc' must be a kiln\.nvidia\.hopper\.TensorDescriptor, "
     r"got int"),
    (bytes(128), TypeError, r"argument 'a_desc' must be a kiln\.nvidia\.hopper\."
     r"TensorDescriptor, got bytes"),
    (None, TypeError, r"must be a kiln\.nvidia\.hopper\.TensorDescriptor, got NoneType"),
    (lambda: desc(base=Tensor((256, 512), "float16")), ValueError,
     r"argument 'a_desc': kernel 'tma_kernel' was compiled for a tensor descriptor with dtype "
     r"bf16, got one with fp16"),
    (lambda: desc(block_shape=[128, 64]), ValueError,
     r"argument 'a_desc': kernel 'tma_kernel' was compiled for a tensor descriptor with "
     r"block_shape \[64, 64\], got one with \[128, 64\]"),
    (lambda: desc(layout=Layout(swizzle_byte_width=64), block_shape=[64, 32]), ValueError,
     r"with block_shape \[64, 64\], got one with \[64, 32\]"),
    (lambda: desc(layout=Layout(swizzle_byte_width=64)), ValueError,
     r"with layout \{'swizzle_byte_width': 128, .*\}, got one with "
     r"\{'swizzle_byte_width': 64, "),
])
def test_launch_rejects(arg, exc, match):
    drv = FakeDriver()
    k = rt.LoadedKernel(drv, b"", metadata())
    with pytest.raises(exc, match=match):
        k.launch((1,), [1, arg() if callable(arg) else arg, 0])
    assert drv.encodes == [] and drv.launches == []


def test_checked_kind_is_remembered_and_a_new_kind_is_checked_again():
    # Value-hashed layouts (kl.NVMMASharedLayout) give descriptors of one kind one interned
    # id: after the first check a launch only compares ids, and a descriptor of another kind
    # on the same parameter is still checked (and refused) in full.
    lay = kl.NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16, rank=2)
    k = rt.LoadedKernel(FakeDriver(), b"", metadata(tensordesc_param()))
    first, second = desc(layout=lay), desc(layout=lay, base=Tensor((256, 512), ptr=0x7f0000100000))
    assert first._spec_id is not None and first._spec_id == second._spec_id
    # Each descriptor is encoded (its own map, not the first one's) on the fast path too.
    assert k.prepare_args([first])[0] != k.prepare_args([second])[0]
    assert k._desc_ids == {0: first._spec_id}
    other = desc(layout=lay, block_shape=[64, 128])
    assert other._spec_id != first._spec_id
    with pytest.raises(ValueError, match=r"block_shape \[64, 64\], got one with \[64, 128\]"):
        k.prepare_args([other])
    # A plain object's layout can change under its identity: no id, always checked.
    assert desc()._spec_id is None


def test_extra_layout_keys_are_compared_with_the_layout_object():
    # A key the kernel records beyond the five (a later NVMMASharedLayout field) is read
    # from the descriptor's layout object.
    layout = dict(tensordesc_param()["layout"], cta_split_num=[1, 1])
    k = rt.LoadedKernel(FakeDriver(), b"", metadata(tensordesc_param(layout=layout)))
    lay = Layout()
    lay.cta_split_num = (1, 1)
    assert len(k.prepare_args([desc(layout=lay)])[0]) == 128
    lay.cta_split_num = (2, 1)
    with pytest.raises(ValueError, match=r"'cta_split_num': \[2, 1\]"):
        k.prepare_args([desc(layout=lay)])


@pytest.mark.parametrize("param,match", [
    (tensordesc_param(dtype=None), r"tensordesc parameter 'a_desc': dtype must be a type "
     r"name such as 'bf16', got None"),
    ({"name": "a_desc", "type": "tensordesc"}, r"tensordesc parameter 'a_desc' lacks dtype, "
     r"block_shape, layout"),
    (tensordesc_param(layout={"swizzle_byte_width": 128}), r"tensordesc parameter 'a_desc': "
     r"layout must be an object with swizzle_byte_width, element_bitwidth, rank, transposed, "
     r"fp4_padded, got \{'swizzle_byte_width': 128\}"),
    (tensordesc_param(block_shape="64x64"), r"tensordesc parameter 'a_desc': block_shape must "
     r"be a list of ints, got '64x64'"),
    (tensordesc_param(block_shape=[]), r"tensordesc parameter 'a_desc': block_shape must be a "
     r"list of ints, got \[\]"),
])
def test_tensordesc_metadata_is_checked(param, match):
    with pytest.raises(KilnRuntimeError, match=r"kernel 'tma_kernel': " + match):
        rt.LoadedKernel(FakeDriver(), b"", metadata(param))


@needs_runtime
def test_bundle_keeps_tensordesc_params(tmp_path):
    md = metadata()
    rt.write_bundle(str(tmp_path), [(md, b"cubin")])
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["kernels"][0]["params"][1] == tensordesc_param()
    k = rt.load_bundle(str(tmp_path))["tma_kernel"]
    assert k.metadata["params"] == md["params"]
    drv = FakeDriver()
    k.loaded(drv)
    k[(1,)](3, desc(), 0)
    args, (buf, offsets) = drv.launches[0]
    assert args[1] == bytes([1]) * 128 and offsets == (0, 64, 192, 200, 208, 216, 224)
    with pytest.raises(ValueError, match=r"argument 'a_desc'.*block_shape \[64, 64\], got "
                       r"one with \[32, 64\]"):
        k[(1,)](3, desc(block_shape=[32, 64]), 0)


def test_bundle_with_bad_tensordesc_param_does_not_load(tmp_path):
    rt.write_bundle(str(tmp_path), [(metadata(), b"cubin")])
    path = tmp_path / "manifest.json"
    m = json.loads(path.read_text())
    del m["kernels"][0]["params"][1]["layout"]
    path.write_text(json.dumps(m))
    with pytest.raises(KilnRuntimeError, match=r"kernel #0: tensordesc parameter 'a_desc' "
                       r"lacks layout"):
        rt.load_bundle(str(tmp_path))
    m["kernels"][0]["params"] = [{"name": "x"}]
    path.write_text(json.dumps(m))
    with pytest.raises(KilnRuntimeError, match=r"'params' must be a list of objects with name "
                       r"and type"):
        rt.load_bundle(str(tmp_path))


def test_driver_pass_through():
    calls = []

    class Native:
        def encode_tensor_map(self, *args):
            calls.append(args)
            return bytes(128)

    d = rt.Driver("cuda", Native())
    assert d.encode_tensor_map("bf16", 0x1000, [64], [], [64]) == bytes(128)
    assert calls == [("cuda", "bf16", 0x1000, [64], [], [64], None, 0, False)]


# --- argument packing (native) ----------------------------------------------------------------

@needs_runtime
@pytest.mark.parametrize("types,offsets,size", [
    (["tensordesc"], (0,), 128),
    (["i32", "tensordesc"], (0, 64), 192),
    (["tensordesc", "i32"], (0, 128), 136),
    (["*fp16", "tensordesc", "tensordesc", "i64"], (0, 64, 192, 320), 328),
    (["i8"] * 9 + ["tensordesc"], tuple(range(0, 72, 8)) + (128,), 256),
    ([], (), 0),
])
def test_pack_mixed_sizes(types, offsets, size):
    args = [bytes([i + 1]) * 128 if t == "tensordesc" else i + 1 for i, t in enumerate(types)]
    buf, got = _runtime.pack_args(types, args)
    assert got == offsets and len(buf) == size
    covered = bytearray(size)
    for i, (t, off) in enumerate(zip(types, offsets)):
        if t == "tensordesc":
            assert off % 64 == 0 and buf[off:off + 128] == args[i]
            covered[off:off + 128] = b"\1" * 128
        else:
            assert off % 8 == 0 and int.from_bytes(buf[off:off + 8], "little") == i + 1
            covered[off:off + 8] = b"\1" * 8
    assert all(b == 0 for b, c in zip(buf, covered) if not c)  # padding is zero


@needs_runtime
def test_pack_tensordesc_accepts_bytes_like():
    for value in (bytes(range(128)), bytearray(range(128)), memoryview(bytes(range(128)))):
        buf, _ = _runtime.pack_args(["tensordesc"], [value])
        assert buf == bytes(range(128))


@needs_runtime
@pytest.mark.parametrize("value,exc,match", [
    (bytes(64), ValueError, r"argument 1 \(tensordesc\): an encoded tensor map is 128 bytes, "
     r"got 64"),
    (bytes(129), ValueError, r"is 128 bytes, got 129"),
    ("x" * 128, TypeError, r"argument 1 \(tensordesc\) expects an encoded 128-byte tensor "
     r"map \(bytes; a TensorDescriptor's is passed by kiln\.runtime\), got str"),
    (0, TypeError, r"argument 1 \(tensordesc\) expects an encoded 128-byte tensor map.*got "
     r"int"),
])
def test_pack_tensordesc_errors(value, exc, match):
    with pytest.raises(exc, match=match):
        _runtime.pack_args(["i32", "tensordesc"], [0, value])


@needs_runtime
def test_launch_names_the_parameter_of_a_bad_map():
    class Bad:  # a descriptor whose encoder went wrong: the packer still refuses it
        layout = Layout()
        shape, strides = [256, 512], [512, 1]

        def _param_spec(self):
            return desc()._param_spec()

        def _tensor_map(self, driver):
            return bytes(100)

    k = rt.LoadedKernel(FakeDriver(), b"", metadata())
    with pytest.raises(ValueError, match=r"kernel 'tma_kernel': argument 1 \(tensordesc\): "
                       r"an encoded tensor map is 128 bytes, got 100 \[parameter 'a_desc'\]"):
        k.launch((1,), [1, Bad(), 0])


# --- the native encoder ---------------------------------------------------------------------

@needs_runtime
def test_api_version():
    assert _runtime.API_VERSION == 5 == _runtime._lib.kiln_rt_api_version()


@needs_runtime
@pytest.mark.skipif(not NO_CUDA, reason="libcuda is installed here")
def test_encode_without_libcuda_is_a_driver_error():
    with pytest.raises(_runtime.DriverError, match=r"libcuda\.so\.1 not found"):
        _runtime.encode_tensor_map("cuda", "bf16", 0x10000, [64, 64], [128], [64, 64],
                                   swizzle_bytes=128)
    with pytest.raises(_runtime.DriverError, match=r"libcuda\.so\.1 not found"):
        desc()._tensor_map(rt.Driver("cuda"))


@needs_runtime
@pytest.mark.parametrize("backend,kw,match", [
    ("hip", {}, r"the hip backend has no tensor maps"),
    ("metal", {}, r"unknown backend 'metal'"),
    ("cuda", {"dtype": "fp4"}, r"tensor map: unsupported element type 'fp4'"),
    ("cuda", {"swizzle_bytes": 16}, r"swizzle must be 0, 32, 64 or 128 bytes, got 16"),
    ("cuda", {"dtype": "i32", "oob_nan": True}, r"NaN padding needs a 16, 32 or 64-bit float "
     r"element type, got 'i32'"),
])
def test_encode_rejections_in_the_library(backend, kw, match):
    args = dict(dtype="bf16", global_address=0x10000, dims=[64, 64], strides_bytes=[128],
                box=[64, 64])
    args.update(kw)
    with pytest.raises(_runtime.DriverError, match=match):
        _runtime.encode_tensor_map(backend, **args)


@needs_runtime
@pytest.mark.parametrize("kw,exc,match", [
    ({"dims": []}, ValueError, r"tensor map: rank must be 1 to 5, got 0"),
    ({"dims": [1] * 6, "strides_bytes": [16] * 5, "box": [1] * 6}, ValueError,
     r"rank must be 1 to 5, got 6"),
    ({"strides_bytes": []}, ValueError, r"strides_bytes needs 1 entries for rank 2, got 0"),
    ({"box": [64]}, ValueError, r"box needs 2 entries for rank 2, got 1"),
    ({"element_strides": [1]}, ValueError, r"element_strides needs 2 entries"),
    ({"box": [64, -1]}, ValueError, r"tensor map: box: -1 is out of range \[0, 2\*\*32\)"),
    ({"dims": [64, 2**64]}, ValueError, r"dims: 18446744073709551616 is out of range"),
    ({"global_address": -16}, ValueError, r"global_address: -16 is out of range"),
    ({"dims": [64, 64.0]}, TypeError, r"tensor map: dims must be ints, got float"),
])
def test_encode_argument_checks(kw, exc, match):
    args = dict(dtype="bf16", global_address=0x10000, dims=[64, 64], strides_bytes=[128],
                box=[64, 64])
    args.update(kw)
    with pytest.raises(exc, match=match):
        _runtime.encode_tensor_map("cuda", **args)


# --- against a stub libcuda -----------------------------------------------------------------

STUB = r"""
#include <stdint.h>
#include <string.h>
typedef int CUresult;
static unsigned char last[8 + 128 + 4 + 8];
#define OK(name, ...) CUresult name(__VA_ARGS__) { return 0; }
OK(cuInit, unsigned f)
CUresult cuDeviceGetCount(int *n) { *n = 1; return 0; }
CUresult cuDeviceGet(int *d, int i) { *d = i; return 0; }
CUresult cuDeviceGetName(char *s, int n, int d) { strncpy(s, "stub", n); return 0; }
CUresult cuDeviceGetAttribute(int *v, int a, int d) { *v = 0; return 0; }
CUresult cuCtxGetCurrent(void **c) { *c = (void *)0x10; return 0; }
OK(cuCtxSetCurrent, void *c)
OK(cuCtxSynchronize, void)
CUresult cuDevicePrimaryCtxRetain(void **c, int d) { *c = (void *)0x10; return 0; }
CUresult cuModuleLoadData(void **m, const void *i) { *m = (void *)0x20; return 0; }
OK(cuModuleUnload, void *m)
CUresult cuModuleGetFunction(void **f, void *m, const char *n) { *f = (void *)0x30; return 0; }
OK(cuFuncSetAttribute, void *f, int a, int v)
CUresult cuGetErrorName(CUresult r, const char **s) { *s = "CUDA_ERROR_INVALID_VALUE"; return 0; }
CUresult cuGetErrorString(CUresult r, const char **s) { *s = "invalid argument"; return 0; }
/* The test kernel's parameters: (u64 out, tensor map, i32 n). */
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned shared, void *stream,
                        void **params, void **extra) {
  memcpy(last, params[0], 8);
  memcpy(last + 8, params[1], 128);
  memcpy(last + 136, params[2], 4);
  uint64_t misalign = (uintptr_t)params[1] % 64;
  memcpy(last + 140, &misalign, 8);
  return 0;
}
void stub_last_launch(unsigned char *out) { memcpy(out, last, sizeof last); }
#ifdef WITH_ENCODE
/* Writes what it was given into the map. */
CUresult cuTensorMapEncodeTiled(uint64_t *map, int dtype, unsigned rank, void *address,
                                const uint64_t *dims, const uint64_t *strides,
                                const uint32_t *box, const uint32_t *estr, int interleave,
                                int swizzle, int l2, int oob) {
  if (dims[0] == 12345) return 1;
  memset(map, 0, 128);
  map[0] = (uint64_t)dtype | (uint64_t)rank << 8 | (uint64_t)interleave << 16 |
           (uint64_t)swizzle << 24 | (uint64_t)l2 << 32 | (uint64_t)oob << 40 |
           (uint64_t)((uintptr_t)map % 64) << 48;
  map[1] = (uint64_t)(uintptr_t)address;
  for (unsigned i = 0; i < rank; ++i) {
    map[2 + i] = dims[i];
    ((uint32_t *)(map + 11))[i] = box[i];
    ((uint32_t *)(map + 11))[5 + i] = estr[i];
  }
  for (unsigned i = 0; i + 1 < rank; ++i) map[7 + i] = strides[i];
  return 0;
}
#endif
"""

# Runs in a subprocess whose LD_LIBRARY_PATH finds the stub as libcuda.so.1.
STUB_CLIENT = r"""
import ctypes, json, struct, sys
from kiln import _runtime
from kiln.runtime import Driver
sys.path.insert(0, sys.argv[1])
from test_tensor_descriptor import Layout, Tensor
from kiln.nvidia.hopper import TensorDescriptor

out = {"load_error": _runtime.load_error("cuda")}
try:
    maps = []
    for dtype, bits, swizzle, padding in [("bfloat16", 16, 128, "nan"), ("float16", 16, 64, "zero"),
                                          ("float32", 32, 32, "zero"), ("int8", 8, 0, "zero"),
                                          ("float8_e5m2", 8, 128, "zero"), ("int64", 64, 128, "zero"),
                                          ("float64", 64, 128, "zero"), ("int32", 32, 0, "zero"),
                                          ("uint8", 8, 0, "zero"), ("int16", 16, 0, "zero")]:
        t = Tensor((8, 64, 512), dtype, ptr=0x7f0000010000)
        d = TensorDescriptor(t, t.shape, t.stride(), [2, 8, 256 * 8 // bits],
                             Layout(swizzle, bits, 3), padding)
        m = d._tensor_map(Driver("cuda"))
        w = struct.unpack("<16Q", m)
        maps.append({"dtype": dtype, "code": w[0] & 0xff, "rank": (w[0] >> 8) & 0xff,
                     "interleave": (w[0] >> 16) & 0xff, "swizzle": (w[0] >> 24) & 0xff,
                     "l2": (w[0] >> 32) & 0xff, "oob": (w[0] >> 40) & 0xff,
                     "misaligned": w[0] >> 48, "address": w[1], "dims": list(w[2:5]),
                     "strides": list(w[7:9]), "box": list(struct.unpack("<3I", m[88:100])),
                     "estr": list(struct.unpack("<3I", m[108:120]))})
    out["maps"] = maps
    try:
        _runtime.encode_tensor_map("cuda", "bf16", 0x10000, [12345, 4], [32768], [64, 4])
    except _runtime.DriverError as e:
        out["refused"] = str(e)
    _runtime.launch("cuda", 0x30, (1, 1, 1), (128, 1, 1), 0, 0, ["*fp32", "tensordesc", "i32"],
                    [0x1234, bytes(range(128)), -5])
    last = ctypes.create_string_buffer(148)
    ctypes.CDLL("libcuda.so.1").stub_last_launch(last)
    out["launch"] = {"out": struct.unpack("<Q", last.raw[:8])[0],
                     "map": list(last.raw[8:136]), "n": struct.unpack("<i", last.raw[136:140])[0],
                     "misaligned": struct.unpack("<Q", last.raw[140:148])[0]}
except _runtime.DriverError as e:
    out["error"] = str(e)
print(json.dumps(out))
"""


def _stub_run(tmp_path, with_encode):
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        pytest.skip("no C compiler to build the stub libcuda")
    src = tmp_path / "stub.c"
    src.write_text(STUB)
    lib = tmp_path / "libcuda.so.1"
    flags = ["-DWITH_ENCODE"] if with_encode else []
    subprocess.run([cc, "-shared", "-fPIC", "-O1", *flags, str(src), "-o", str(lib)],
                   check=True, capture_output=True)
    env = dict(os.environ, LD_LIBRARY_PATH=str(tmp_path),
               PYTHONPATH=os.pathsep.join([PYTHON_DIR, os.path.dirname(__file__)]))
    proc = subprocess.run([sys.executable, "-c", STUB_CLIENT, os.path.dirname(__file__)],
                          env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


# CUtensorMapDataType values (cuda.h) per element type, and CUtensorMapSwizzle per width.
CU_DTYPE = {"bfloat16": 9, "float16": 6, "float32": 7, "int8": 0, "float8_e5m2": 0,
            "int64": 5, "float64": 8, "int32": 3, "uint8": 0, "int16": 1}
CU_SWIZZLE = {0: 0, 32: 1, 64: 2, 128: 3}


@needs_runtime
def test_stub_libcuda_encode_and_launch(tmp_path):
    out = _stub_run(tmp_path, with_encode=True)
    assert out["load_error"] is None and "error" not in out, out
    for m in out["maps"]:
        bits = {"bfloat16": 16, "float16": 16, "float32": 32, "int8": 8, "float8_e5m2": 8,
                "int64": 64, "float64": 64, "int32": 32, "uint8": 8, "int16": 16}[m["dtype"]]
        swizzle = {"bfloat16": 128, "float16": 64, "float32": 32}.get(
            m["dtype"], 0 if m["dtype"] in ("int8", "int32", "uint8", "int16") else 128)
        assert m["code"] == CU_DTYPE[m["dtype"]], m
        assert (m["rank"], m["interleave"], m["l2"]) == (3, 0, 2), m  # L2 promotion 128B
        assert m["swizzle"] == CU_SWIZZLE[swizzle], m
        assert m["oob"] == (1 if m["dtype"] == "bfloat16" else 0), m
        assert m["misaligned"] == 0 and m["address"] == 0x7f0000010000
        assert m["dims"] == [512, 64, 8]
        assert m["strides"] == [512 * bits // 8, 512 * 64 * bits // 8]
        inner = 256 * 8 // bits  # a 256-byte block row: boxes of one swizzle width
        want_inner = swizzle * 8 // bits if swizzle else inner
        assert m["box"] == [want_inner, 8, 2] and m["estr"] == [1, 1, 1], m
    assert re.search(r"cuTensorMapEncodeTiled\(rank 2, address 0x10000, dims \[12345, 4\], "
                     r"byte strides \[32768\], box \[64, 4\], swizzle 0B\) failed: "
                     r"CUDA_ERROR_INVALID_VALUE", out["refused"])
    launch = out["launch"]
    assert launch == {"out": 0x1234, "map": list(range(128)), "n": -5, "misaligned": 0}


@needs_runtime
def test_stub_libcuda_without_encode_still_loads(tmp_path):
    out = _stub_run(tmp_path, with_encode=False)
    assert out["load_error"] is None
    assert out["error"] == ("CUDA driver library lacks cuTensorMapEncodeTiled (tensor maps "
                            "need a CUDA 12 driver)")


def test_hopper_module_exports():
    assert hopper.__all__ == ["TensorDescriptor", "TensorDescriptorIm2Col", "tma_box"]


def test_same_fields_again_share_the_checks_and_the_encoded_map():
    """Projects build descriptors for every call: a descriptor of fields seen before (with a
    layout hashed by value) reuses the checks and the encoded map; any field changed is checked
    again."""
    layout = kl.NVMMASharedLayout(128, 16)
    bf16 = TorchDtype("bfloat16")  # torch's dtypes are singletons
    drv = FakeDriver()
    a = TensorDescriptor.from_tensor(Tensor((256, 512), bf16, ptr=0x7f0000040000), [64, 64], layout)
    t = Tensor((256, 512), bf16, ptr=0x7f0000040000)
    b = TensorDescriptor.from_tensor(t, [64, 64], layout)
    assert b.base is t and b.shape == [256, 512] and b.block_shape == [64, 64]
    assert a._tensor_map(drv) is b._tensor_map(drv) and len(drv.encodes) == 1
    c = TensorDescriptor.from_tensor(Tensor((256, 512), bf16, ptr=0x7f0000080000), [64, 64], layout)
    c._tensor_map(drv)
    assert len(drv.encodes) == 2  # another address: its own map
    with pytest.raises(ValueError, match=r"strides\[0\] = 3"):
        TensorDescriptor(t, [256, 512], [3, 1], [64, 64], layout)
