"""TMA im2col loads (Gluon's ``tma.async_load_im2col`` / ``async_copy_global_to_shared_im2col``
and ``kiln.nvidia.hopper.TensorDescriptorIm2Col``) without a GPU: kernels compile for sm_90a to
``cp.async.bulk.tensor.<N>d...im2col`` with the coordinates and offsets innermost first (and
ptxas takes them), argument mistakes are refused at the user's line, the host descriptor
checks cuTensorMapEncodeIm2col's limits by name and encodes what the driver takes, and the
launcher passes the tensor's shape and strides (its rank, not the block's).
third_party/nvidia/test/gpu/test_tma_im2col.py runs them against torch."""

from __future__ import annotations

import os
import re

import pytest

import kiln
import kiln.language as kl
import kiln.runtime as rt
from kiln.language.nvidia.hopper import mbarrier, tma
from kiln.nvidia.hopper import TensorDescriptor, TensorDescriptorIm2Col

import compiled
import located
from test_tensor_descriptor import FakeDriver, Tensor, needs_runtime

HERE = os.path.abspath(__file__)
F32_SW32 = kl.NVMMASharedLayout(swizzle_byte_width=32, element_bitwidth=32, rank=2)
F16_SW128 = kl.NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16, rank=2)


def _im2col(block, rank=4, dtype=kl.float32, layout=F32_SW32):
    return tma.tensor_descriptor_im2col_type(dtype, list(block), layout, rank)


def _tiled(block, dtype=kl.float32, layout=F32_SW32):
    return kl.tensor_descriptor_type(dtype, list(block), layout)


def _insns(ptx):
    return [line.strip() for line in ptx.splitlines() if "cp.async.bulk.tensor" in line]


# Gluon's test_tma_im2col kernel (python/test/gluon/test_core.py), names swapped.
@kiln.jit
def gluon_im2col_kernel(in_desc, out_desc):
    smem = kl.allocate_shared_memory(in_desc.dtype, in_desc.block_shape, in_desc.layout)
    bar = mbarrier.allocate_mbarrier()
    mbarrier.init(bar, count=1)
    mbarrier.expect(bar, in_desc.block_type.nbytes)
    tma.async_copy_global_to_shared_im2col(in_desc, [0, 0, 0, 0], [0, 0], bar, smem)
    mbarrier.wait(bar, phase=0)
    mbarrier.invalidate(bar)
    tma.async_copy_shared_to_global(out_desc, [0, 0], smem)
    tma.store_wait(pendings=0)


@kiln.jit
def shifted_kernel(in_desc, out_ptr, n, h, w, c, oh, ow, BLOCK_P: kl.constexpr,
                   BLOCK_C: kl.constexpr):
    smem = kl.allocate_shared_memory(in_desc.dtype, in_desc.block_shape, in_desc.layout)
    bar = mbarrier.allocate_mbarrier()
    mbarrier.init(bar, count=1)
    mbarrier.expect(bar, in_desc.block_type.nbytes)
    tma.async_load_im2col(in_desc, [n, h, w, c], [oh, ow], bar, smem)
    mbarrier.wait(bar, phase=0)
    mbarrier.invalidate(bar)
    layout: kl.constexpr = kl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
    rows = kl.arange(0, BLOCK_P, layout=kl.SliceLayout(1, layout))
    cols = kl.arange(0, BLOCK_C, layout=kl.SliceLayout(0, layout))
    offs = rows[:, None] * BLOCK_C + cols[None, :]
    kl.store(out_ptr + offs, smem.load(layout))


@kiln.jit
def ranked_kernel(in_desc, RANK: kl.constexpr):
    smem = kl.allocate_shared_memory(in_desc.dtype, in_desc.block_shape, in_desc.layout)
    bar = mbarrier.allocate_mbarrier()
    mbarrier.init(bar, count=1)
    mbarrier.expect(bar, in_desc.block_type.nbytes)
    if RANK == 3:
        tma.async_load_im2col(in_desc, [0, 1, 0], [40000], bar, smem)
    else:
        tma.async_load_im2col(in_desc, [0, 1, 2, 3, 0], [1, 2, 31], bar, smem)
    mbarrier.wait(bar, phase=0)
    mbarrier.invalidate(bar)


pytestmark = compiled.needs_compiler


@pytest.mark.parametrize("pixels", [32, 256])
def test_gluon_kernel_compiles_to_im2col_boxes(pixels):
    """Gluon's test: 32 f32 channels under a 32-byte swizzle are four 8-channel boxes."""
    k = kiln.compile(gluon_im2col_kernel, {"in_desc": _im2col([pixels, 32]),
                                           "out_desc": _tiled([pixels, 32])}, {},
                     target="cuda:sm_90a", num_warps=1, cache=False)
    assert k.asm.get("cubin")  # ptxas accepted it
    loads = [i for i in _insns(k.asm["ptx"]) if "shared::cluster.global" in i]
    assert len(loads) == 4, loads
    for insn in loads:
        assert re.search(r"cp\.async\.bulk\.tensor\.4d\.shared::cluster\.global\.im2col\."
                         r"mbarrier::complete_tx::bytes \[%r?d?\d+\], \[%rd\d+, "
                         r"\{[^}]*\}\], \[%r\d+\], \{%rs\d+, %rs\d+\};", insn), insn
    # The descriptor's shape and strides follow it as the tensor's four dimensions.
    params = {p["name"]: p for p in k.metadata["params"]}
    assert params["in_desc"]["im2col"] == {"rank": 4}
    assert params["in_desc"]["block_shape"] == [pixels, 32]
    assert "im2col" not in params["out_desc"]
    # The map (param 0), 4 i32 shape entries, 4 i64 strides, then out_desc's (2 and 2).
    kinds = {int(i): t for t, i in re.findall(r"\.param \.(\w+) gluon_im2col_kernel_param_"
                                               r"(\d+)", k.asm["ptx"])}
    assert [kinds[i] for i in range(1, 9)] == ["u32"] * 4 + ["u64"] * 4
    assert [kinds[i] for i in range(10, 14)] == ["u32"] * 2 + ["u64"] * 2


def test_runtime_coordinates_and_offsets_innermost_first():
    sig = {"in_desc": _im2col([64, 64], dtype=kl.float16, layout=F16_SW128), "out_ptr": "*fp16",
           "n": "i32", "h": "i32", "w": "i32", "c": "i32", "oh": "i32", "ow": "i32"}
    k = kiln.compile(shifted_kernel, sig, {"BLOCK_P": 64, "BLOCK_C": 64}, target="cuda:sm_90a",
                     cache=False)
    assert k.asm.get("cubin")
    (insn,) = _insns(k.asm["ptx"])  # 64 f16 channels: one 128-byte box
    m = re.search(r"\{(%r\d+), (%r\d+), (%r\d+), (%r\d+)\}\], \[%r\d+\], \{(%rs\d+), "
                  r"(%rs\d+)\};", insn)
    assert m, insn
    # The offsets are the i32 parameters truncated to 16 bits.
    assert len(set(m.groups()[4:])) == 2


# Offsets go innermost first ([D, H, W] as W, H, D), 16-bit registers.
@pytest.mark.parametrize("rank,offsets", [(3, r"\{%rs\d+\}"), (5, r"\{%rs\d+, %rs\d+, %rs\d+\}")])
def test_rank_3_and_5(rank, offsets):
    block = [32, 64]
    k = kiln.compile(ranked_kernel, {"in_desc": _im2col(block, rank, kl.float16, F16_SW128)},
                     {"RANK": rank}, target="cuda:sm_90a", cache=False)
    assert k.asm.get("cubin")
    (insn,) = _insns(k.asm["ptx"])
    assert f"cp.async.bulk.tensor.{rank}d.shared::cluster.global.im2col." in insn and \
        re.search(rf", {offsets};$", insn), insn


@kiln.jit
def taps_loop(d, out, K):
    smem = kl.allocate_shared_memory(d.dtype, d.block_shape, d.layout)
    bar = mbarrier.allocate_mbarrier()
    mbarrier.init(bar, count=1)
    L: kl.constexpr = kl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
    acc = kl.zeros([64, 64], kl.float32, L)
    phase = 0
    for r in kl.range(K, num_stages=3):
        mbarrier.expect(bar, d.block_type.nbytes)
        tma.async_load_im2col(d, [0, 0, 0, 0], [r, 0], bar, smem)
        mbarrier.wait(bar, phase)
        phase ^= 1
        acc += smem.load(L).to(kl.float32)
    mbarrier.invalidate(bar)
    rows = kl.arange(0, 64, layout=kl.SliceLayout(1, L))
    cols = kl.arange(0, 64, layout=kl.SliceLayout(0, L))
    kl.store(out + rows[:, None] * 64 + cols[None, :], acc)


def test_pipeliner_rings_im2col_loads():
    """tile-nv-pipeline-tma takes an im2col load as any barrier-completed TMA load: three
    slots, two loads issued ahead and one in the loop."""
    k = kiln.compile(taps_loop, {"d": _im2col([64, 64], dtype=kl.float16, layout=F16_SW128),
                                 "out": "*fp32", "K": "i32"}, {}, target="cuda:sm_90a",
                     cache=False)
    assert k.asm.get("cubin")
    assert len(_insns(k.asm["ptx"])) == 3
    assert k.metadata["shared"] >= 3 * 64 * 64 * 2


@kiln.jit
def wrong_coords(d):
    bar = mbarrier.allocate_mbarrier()
    buf = kl.allocate_shared_memory(d.dtype, d.block_shape, d.layout)
    tma.async_load_im2col(d, [0, 0], [0, 0], bar, buf)  # E:coords


@kiln.jit
def wrong_offsets(d):
    bar = mbarrier.allocate_mbarrier()
    buf = kl.allocate_shared_memory(d.dtype, d.block_shape, d.layout)
    tma.async_copy_global_to_shared_im2col(d, [0, 0, 0, 0], [0], bar, buf)  # E:noffsets


@kiln.jit
def offset_range(d):
    bar = mbarrier.allocate_mbarrier()
    buf = kl.allocate_shared_memory(d.dtype, d.block_shape, d.layout)
    tma.async_load_im2col(d, [0, 0, 0, 0], [1, 256], bar, buf)  # E:range


@kiln.jit
def offset_negative(d):
    bar = mbarrier.allocate_mbarrier()
    buf = kl.allocate_shared_memory(d.dtype, d.block_shape, d.layout)
    tma.async_load_im2col(d, [0, 0, 0], [-1], bar, buf)  # E:negative


@kiln.jit
def tiled_to_im2col(d):
    bar = mbarrier.allocate_mbarrier()
    buf = kl.allocate_shared_memory(d.dtype, d.block_shape, d.layout)
    tma.async_load_im2col(d, [0, 0], [], bar, buf)  # E:tiled


@kiln.jit
def im2col_to_tiled(d):
    bar = mbarrier.allocate_mbarrier()
    buf = kl.allocate_shared_memory(d.dtype, d.block_shape, d.layout)
    tma.async_load(d, [0, 0, 0, 0], bar, buf)  # E:notiled


@kiln.jit
def im2col_store(d):
    buf = kl.allocate_shared_memory(d.dtype, d.block_shape, d.layout)
    tma.async_copy_shared_to_global(d, [0, 0, 0, 0], buf)  # E:store


@kiln.jit
def wrong_buffer(d):
    bar = mbarrier.allocate_mbarrier()
    buf = kl.allocate_shared_memory(d.dtype, [16, 32], d.layout)
    tma.async_load_im2col(d, [0, 0, 0, 0], [0, 0], bar, buf)  # E:buffer


ERRORS = [
    (wrong_coords, _im2col([32, 32]), "E:coords", "tma.async_load_im2col",
     r"tma.async_load_im2col: the im2col descriptor's tensor has rank 4, so coord takes 4 "
     r"coordinates \(N, spatial, C\), got 2"),
    (wrong_offsets, _im2col([32, 32]), "E:noffsets", "tma.async_copy_global_to_shared_im2col",
     r"tma.async_copy_global_to_shared_im2col: a rank-4 im2col tensor takes 2 offsets \(one "
     r"per spatial dimension\), got 1"),
    (offset_range, _im2col([32, 32]), "E:range", "tma.async_load_im2col",
     r"tma.async_load_im2col: offsets\[1\] = 256 is outside \[0, 255\], the range PTX gives "
     r"the offsets of a rank-4 im2col tensor"),
    (offset_negative, _im2col([32, 32], rank=3), "E:negative", "tma.async_load_im2col",
     r"tma.async_load_im2col: offsets\[0\] = -1 is outside \[0, 65535\], .*"),
    (tiled_to_im2col, _tiled([32, 32]), "E:tiled", "tma.async_load_im2col",
     r"tma.async_load_im2col: tensor_desc must be an im2col tensor descriptor \(a kernel "
     r"parameter passed a kiln.nvidia.hopper.TensorDescriptorIm2Col\), got .*"),
    (im2col_to_tiled, _im2col([32, 32]), "E:notiled", "tma.async_load",
     r"tma.async_load: tensor_desc is an im2col descriptor, which only "
     r"tma.async_load_im2col takes"),
    (im2col_store, _im2col([32, 32]), "E:store", "tma.async_copy_shared_to_global",
     r"tma.async_copy_shared_to_global: tensor_desc is an im2col descriptor, which only "
     r"tma.async_load_im2col takes"),
    (wrong_buffer, _im2col([32, 32]), "E:buffer", "tma.async_load_im2col",
     r"tma.async_load_im2col: result is \[16, 32\] x fp32, the descriptor's block \[32, 32\] "
     r"x fp32"),
]


@pytest.mark.parametrize("fn,desc,marker,anchor,message", ERRORS, ids=[e[2] for e in ERRORS])
def test_errors_point_at_the_call(fn, desc, marker, anchor, message):
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(fn, {"d": desc}, {}, target="cuda:sm_90a", cache=False)
    located.assert_located(ei.value, HERE, marker, anchor, message, kiln.CompilationError)


def test_kernel_type():
    t = _im2col([64, 32], rank=5)
    assert t.rank == t.tensor_rank == 5 and t.block_shape == (64, 32)
    assert t.to_ir().endswith(", im2col = 5>")
    assert t != _im2col([64, 32], rank=4) and t != _tiled([64, 32])
    assert t.mangle() != _im2col([64, 32], rank=4).mangle()
    with pytest.raises(ValueError, match=r"im2col tensors have rank 3 to 5, got 2"):
        _im2col([64, 32], rank=2)
    with pytest.raises(ValueError, match=r"the block is \[pixels, channels\]"):
        _im2col([8, 64, 32])


# --- the host descriptor ----------------------------------------------------------------------

class Layout:
    """Stands in for kl.NVMMASharedLayout (hashable, as the real one)."""

    def __init__(self, swizzle_byte_width=32, element_bitwidth=32, rank=2):
        self.swizzle_byte_width = swizzle_byte_width
        self.element_bitwidth = element_bitwidth
        self.rank = rank
        self.transposed = False
        self.fp4_padded = False


def host(shape=(2, 8, 8, 32), block=(64, 32), dtype="float32", **kw):
    kw.setdefault("pixel_box_lower_corner", [0] * (len(shape) - 2))
    kw.setdefault("pixel_box_upper_corner", [0] * (len(shape) - 2))
    layout = kw.pop("layout", F32_SW32 if dtype == "float32" else F16_SW128)
    return TensorDescriptorIm2Col.from_tensor(Tensor(shape, dtype), list(block), layout, **kw)


def test_host_encodes_what_cuTensorMapEncodeIm2col_takes():
    d = host(element_strides=[1, 2, 1, 1], pixel_box_lower_corner=[-1, -2],
             pixel_box_upper_corner=[1, 0], padding="nan")
    assert d.mode == "im2col" and d.block_shape == [64, 32]
    assert d.element_strides == [1, 2, 1, 1]
    assert (d.pixel_box_lower_corner, d.pixel_box_upper_corner) == ([-1, -2], [1, 0])
    # Innermost first: C, W, H, N; the corners W first; 8 channels a box (32-byte swizzle).
    assert d._encode_args() == ["fp32", 0x7f0000000000, (32, 8, 8, 2), [128, 1024, 8192],
                                (-2, -1), (0, 1), 8, 64, (1, 1, 2, 1), 32, True]
    drv = FakeDriver()
    drv.encode_im2col_tensor_map = lambda *a: drv.encodes.append(a) or bytes(128)
    assert d._tensor_map(drv) == bytes(128) and d._tensor_map(drv) == bytes(128)
    assert len(drv.encodes) == 1  # cached
    assert d._param_spec()["im2col"] == {"rank": 4}
    assert d._kernel_type() == _im2col([64, 32])


def test_gluon_signature_and_defaults():
    t = Tensor((1, 1, 32, 32), "float32")
    d = TensorDescriptorIm2Col(base=t, shape=list(t.shape), strides=list(t.stride()),
                               block_shape=[32, 32], layout=F32_SW32, padding="zero",
                               element_strides=[1, 1, 1, 1], pixel_box_lower_corner=[0, 0],
                               pixel_box_upper_corner=[0, 0])
    assert d.padding == "zero" and d.round_f32_to_tf32 is False
    assert host().element_strides == [1, 1, 1, 1]


HOST_ERRORS = [
    (dict(shape=(8, 32)), ValueError, r"im2col tensors have rank 3, 4 or 5 .*got shape \[8, "
     r"32\] of rank 2"),
    (dict(block=(2048, 32)), ValueError, r"block_shape\[0\] = 2048 pixels per column must be a "
     r"power of two in \[1, 1024\]"),
    (dict(block=(48, 32)), ValueError, r"block_shape\[0\] = 48 pixels"),
    (dict(shape=(2, 8, 8, 512), block=(64, 512)), ValueError,
     r"block_shape\[1\] = 512 channels per pixel must be a power of two in \[1, 256\]"),
    (dict(shape=(2, 8, 8, 8), block=(64, 2), layout=Layout(swizzle_byte_width=0)), ValueError,
     r"block_shape\[1\] = 2 channels of fp32 is 8 bytes; a pixel's channels must be a "
     r"multiple of 16 bytes"),
    (dict(block=(64, 32, 1)), ValueError, r"block_shape is \[pixels, channels\]"),
    (dict(pixel_box_lower_corner=None), ValueError, r"pixel_box_lower_corner is required"),
    (dict(pixel_box_upper_corner=[0]), ValueError, r"pixel_box_upper_corner has 1 entries; a "
     r"rank-4 tensor has 2 spatial dimensions"),
    (dict(pixel_box_lower_corner=[-129, 0]), ValueError, r"pixel_box_lower_corner\[0\] = -129 "
     r"is outside \[-128, 127\], the range of a rank-4 tensor's pixel box"),
    (dict(shape=(1, 4, 4, 4, 32), pixel_box_lower_corner=[0, 0, 0],
          pixel_box_upper_corner=[0, 16, 0]), ValueError,
     r"pixel_box_upper_corner\[1\] = 16 is outside \[-16, 15\]"),
    (dict(shape=(1, 64, 32), pixel_box_lower_corner=[-32769], pixel_box_upper_corner=[0]),
     ValueError, r"pixel_box_lower_corner\[0\] = -32769 is outside \[-32768, 32767\], .*"),
    (dict(pixel_box_lower_corner=[0, 4], pixel_box_upper_corner=[0, -4]), ValueError,
     r"the pixel box is empty along spatial dimension 1"),
    (dict(element_strides=[1, 1, 1]), ValueError, r"element_strides has 3 entries, the "
     r"tensor's rank is 4"),
    (dict(element_strides=[1, 9, 1, 1]), ValueError, r"element_strides\[1\] = 9 must be in "
     r"\[1, 8\]"),
    (dict(element_strides=[1, 0, 1, 1]), ValueError, r"element_strides\[1\] = 0"),
    (dict(element_strides=[1, 1, 1, 2]), ValueError, r"element_strides\[3\] = 2: the "
     r"channels are read contiguously"),
    (dict(padding="nan", dtype="int32", layout=Layout()), ValueError,
     r"padding='nan' needs a float dtype"),
]


@pytest.mark.parametrize("over,exc,message", HOST_ERRORS)
def test_host_checks(over, exc, message):
    with pytest.raises(exc, match="TensorDescriptorIm2Col: " + message):
        host(**over)


@needs_runtime
def test_launch_passes_the_tensor_rank_of_shape_and_strides():
    """The launcher passes an im2col descriptor's four shape and four stride entries, and
    refuses a tiled descriptor for an im2col parameter (and the reverse)."""
    spec = host()._param_spec()
    md = {"name": "k", "target": "cuda:sm_90a", "num_warps": 4, "threads_per_warp": 32,
          "shared": 16384, "params": [{"name": "d", "type": "tensordesc", **spec}]}
    drv = FakeDriver()
    drv.encode_im2col_tensor_map = lambda *a: drv.encodes.append(a) or bytes([7]) * 128
    k = rt.LoadedKernel(drv, b"", md)
    k[(1,)](host())
    args, _ = drv.launches[0]
    assert args == [bytes([7]) * 128, 2, 8, 8, 32, 2048, 256, 32, 1]
    tiled = TensorDescriptor(Tensor((64, 32), "float32"), [64, 32], [32, 1], [64, 32], F32_SW32)
    with pytest.raises(ValueError, match=r"compiled for a tensor descriptor that is an im2col "
                                         r"one of rank 4, got a tiled one"):
        rt.LoadedKernel(drv, b"", md)[(1,)](tiled)
