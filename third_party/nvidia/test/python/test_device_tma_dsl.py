"""Device-side TMA descriptors (Gluon's ``tma.make_tensor_descriptor``): built by one thread in
the kernel's global scratch with tensormap.replace, released to and acquired by the tensor-map
proxy; the launch allocates the scratch (``kiln.set_allocator`` or torch). Compiled here;
third_party/nvidia/test/gpu/test_device_tma.py launches the kernels against torch."""

import os
import re

import pytest

import kiln
import kiln.language as kl
from kiln.compiler.errors import CompilationError
from kiln.language.nvidia.hopper import fence_async_shared, mbarrier, tma

import compiled
import located

pytestmark = compiled.needs_compiler

SMEM = kl.NVMMASharedLayout(swizzle_byte_width=32, element_bitwidth=16, rank=2)
BL = kl.BlockedLayout([1, 2], [4, 8], [4, 1], [1, 0])


@kiln.jit
def copy_rows(src, dst, M, N, stride, dst_stride, BM: kl.constexpr, BN: kl.constexpr,
              S: kl.constexpr, PAD: kl.constexpr):
    # Program p copies rows p*BM.. of an M x N tensor (row strides `stride` and `dst_stride`,
    # multiples of 16 bytes as TMA needs) through TMA with descriptors made here, the
    # source's based at the program's first row; the block past the tensor's edge reads the
    # padding and is stored back clipped.
    p = kl.program_id(0)
    src_desc = tma.make_tensor_descriptor(src + p * BM * stride, shape=[M - p * BM, N],
                                          strides=[stride, 1], block_shape=[BM, BN], layout=S,
                                          padding_option=PAD)
    dst_desc = tma.make_tensor_descriptor(dst, shape=[M, N], strides=[dst_stride, 1],
                                          block_shape=[BM, BN], layout=S)
    smem = kl.allocate_shared_memory(kl.float16, [BM, BN], S)
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    mbarrier.expect(bar, src_desc.block_type.nbytes)
    tma.async_copy_global_to_shared(src_desc, [0, 0], bar, smem)
    mbarrier.wait(bar, 0)
    mbarrier.invalidate(bar)
    v = smem.load(BL)
    out = kl.allocate_shared_memory(kl.float16, [BM, BN], S, v + 1.0)
    fence_async_shared()  # the stores above, seen by the TMA store (async proxy)
    tma.async_copy_shared_to_global(dst_desc, [p * BM, 0], out)
    tma.store_wait(0)


SIG = {"src": "*fp16", "dst": "*fp16", "M": "i32", "N": "i32", "stride": "i32",
       "dst_stride": "i32"}


def compile_copy(pad="zero"):
    return kiln.compile(copy_rows, SIG, {"BM": 16, "BN": 16, "S": SMEM, "PAD": pad},
                        target="cuda:sm_90a", cache=False)


def test_descriptors_are_built_in_global_scratch():
    k = compile_copy()
    # Two descriptors of 128 bytes per CTA, written through a hidden last argument.
    assert k.metadata["global_scratch"] == 256
    ptx = k.asm["ptx"]
    assert ptx.count("tensormap.replace.tile.global_address.global.b1024.b64") == 2
    assert ptx.count("fence.proxy.tensormap::generic.release.gpu") == 2
    assert ptx.count("fence.proxy.tensormap::generic.acquire.gpu") == 2
    assert "copy_rows_param_6" in ptx and "copy_rows_param_7" not in ptx
    # 32-byte swizzle, f16, 16 x 16 boxes.
    assert "tensormap.replace.tile.swizzle_mode.global.b1024.b32 [%rd" in ptx
    assert "tensormap.replace.tile.elemtype.global.b1024.b32" in ptx
    nan = compile_copy("nan")
    assert "tensormap.replace.tile.fill_mode.global.b1024.b32" in nan.asm["ptx"]
    assert nan.asm["ptx"] != ptx


def test_kernels_without_device_descriptors_have_no_scratch():
    from test_tma_slice_dsl import copy_through_second_half, _desc
    d = _desc(8, 128)
    k = copy_through_second_half.warmup(d, d, 8, 128, grid=(1,), target="cuda:sm_90a")
    assert "global_scratch" not in k.metadata


@kiln.jit
def bad_stride(src, S: kl.constexpr):
    tma.make_tensor_descriptor(src, shape=[16, 16], strides=[1, 16],  # E:stride
                               block_shape=[16, 16], layout=S)


def test_last_stride_must_be_one():
    with pytest.raises(CompilationError) as info:
        kiln.compile(bad_stride, {"src": "*fp16"}, {"S": SMEM}, target="cuda:sm_90a",
                     cache=False)
    located.assert_located(info.value, os.path.abspath(__file__), "E:stride",
                           "tma.make_tensor_descriptor",
                           r"tma.make_tensor_descriptor: the last stride must be the constant "
                           r"1 \(TMA reads rows contiguously\), got 16", CompilationError)


@kiln.jit
def strided(src, ROW: kl.constexpr, S: kl.constexpr):
    tma.make_tensor_descriptor(src, shape=[16, 16], strides=[ROW, 1],  # E:rowstride
                               block_shape=[16, 16], layout=S)


@pytest.mark.parametrize("row,message", [
    (100, r"strides\[0\] = 100 \(200 bytes of fp16\) must be 16-byte aligned \(a positive "
          r"multiple of 16 bytes\)"),
    (0, r"strides\[0\] = 0 \(0 bytes of fp16\) must be 16-byte aligned \(a positive multiple "
        r"of 16 bytes\)"),
    (-8, r"strides\[0\] = -8 \(-16 bytes of fp16\) must be 16-byte aligned \(a positive "
         r"multiple of 16 bytes\)"),
    (2**39, r"strides\[0\] = 549755813888 \(1099511627776 bytes\) must be less than 2\*\*40 "
            r"bytes"),
], ids=["200B", "0", "negative", "2**40B"])
def test_constant_strides_are_checked_as_on_the_host(row, message):
    # What the host-side TensorDescriptor refuses (TMA byte strides are multiples of 16 bytes
    # under 2**40), refused at the call when the stride is a compile-time int. A runtime
    # stride is not checked (Gluon checks only the last stride): copy_rows above compiles.
    with pytest.raises(CompilationError) as info:
        kiln.compile(strided, {"src": "*fp16"}, {"ROW": row, "S": SMEM},
                     target="cuda:sm_90a", cache=False)
    located.assert_located(info.value, os.path.abspath(__file__), "E:rowstride",
                           "tma.make_tensor_descriptor",
                           r"tma.make_tensor_descriptor: " + message, CompilationError)


def test_transposed_layouts_are_refused_as_in_gluon():
    # TMA fills a block in global memory's order; Gluon's verifier refuses a transposed
    # descriptor layout too. The message says what to do instead.
    t = kl.NVMMASharedLayout(swizzle_byte_width=32, element_bitwidth=16, rank=2,
                             transposed=True)
    with pytest.raises(CompilationError) as info:
        kiln.compile(strided, {"src": "*fp16"}, {"ROW": 16, "S": t}, target="cuda:sm_90a",
                     cache=False)
    located.assert_located(info.value, os.path.abspath(__file__), "E:rowstride",
                           "tma.make_tensor_descriptor",
                           r"tma.make_tensor_descriptor: layout.transposed = True: TMA writes "
                           r"a block in global memory's order .*permute\(\(1, 0\)\).*",
                           CompilationError)


def test_a_constant_stride_of_16_bytes_compiles():
    k = kiln.compile(strided, {"src": "*fp16"}, {"ROW": 8, "S": SMEM}, target="cuda:sm_90a",
                     cache=False)
    assert "tensormap.replace.tile.global_stride" in k.asm["ptx"]


@kiln.jit
def make_only(src, S: kl.constexpr):
    tma.make_tensor_descriptor(src, shape=[16, 16], strides=[16, 1], block_shape=[16, 16],
                               layout=S)  # E:make


def test_device_descriptors_need_sm90():
    with pytest.raises(CompilationError, match="needs TMA \\(sm_90\\), which cuda:sm_80"):
        kiln.compile(make_only, {"src": "*fp16"}, {"S": SMEM}, target="cuda:sm_80",
                     cache=False)


def test_set_allocator_is_checked():
    with pytest.raises(TypeError, match="expected a callable or None"):
        kiln.set_allocator(42)
    kiln.set_allocator(None)


@kiln.jit
def shape_of_made(src, out, M, N, S: kl.constexpr):
    d = tma.make_tensor_descriptor(src, shape=[M, N], strides=[N, 1], block_shape=[16, 16],
                                   layout=S)
    kl.store(out, d.shape[0] * 1000 + d.shape[1] + d.strides[0].to(kl.int32) * 0)


@kiln.jit
def shape_of_argument(d, out):
    kl.store(out, d.shape[0] * 1000 + d.shape[1] + d.strides[0].to(kl.int32) * 7)


def test_shape_and_strides_of_descriptors():
    k = kiln.compile(shape_of_made, {"src": "*fp16", "out": "*i32", "M": "i32", "N": "i32"},
                     {"S": SMEM}, target="cuda:sm_90a", cache=False)
    assert "arith.muli" in k.asm["tile"]
    # A kernel argument's shape (i32) and strides (i64) follow it as parameters, as in Gluon,
    # and the kernel reads them (shape 0 and 1, stride 0).
    desc = kl.tensor_descriptor_type(kl.float16, [16, 16], SMEM)
    k = kiln.compile(shape_of_argument, {"d": desc, "out": "*i32"}, {}, target="cuda:sm_90a",
                     cache=False)
    sig = k.asm["tile"].split("func.func public @shape_of_argument(", 1)[1].split(") {", 1)[0]
    types = re.findall(r"%arg[1-9]\d*: ([^,]+?) loc\(", sig)
    assert sig.startswith("%arg0: !tile.tensordesc<") and types == [
        "i32", "i32", "i64", "i64", "!tile.ptr<i32>"], sig
    params = re.findall(r"\.param (\S+)(?: \S+)* shape_of_argument_param_(\d+)", k.asm["ptx"])
    used = set(re.findall(r"ld\.param\.\w+\s+%\w+, \[shape_of_argument_param_(\d+)\]",
                          k.asm["ptx"]))
    assert {"1", "2", "3"} <= used, used  # shape[0], shape[1], strides[0]
    assert len(params) == 6, params


@kiln.jit
def _load_by_worker(desc, smem, bar):
    mbarrier.expect(bar, desc.block_type.nbytes)
    tma.async_copy_global_to_shared(desc, [0, 0], bar, smem)


@kiln.jit
def _add_one(smem, bar, dst, p, N, dst_stride, BM: kl.constexpr, BN: kl.constexpr):
    mbarrier.wait(bar, 0)
    v = smem.load(BL)
    r = p * BM + kl.arange(0, BM, kl.SliceLayout(1, BL))
    c = kl.arange(0, BN, kl.SliceLayout(0, BL))
    kl.store(dst + r[:, None] * dst_stride + c[None, :], v + 1.0, mask=c[None, :] < N)


@kiln.jit
def copy_rows_by_a_worker(src, dst, M, N, stride, dst_stride, BM: kl.constexpr,
                          BN: kl.constexpr, S: kl.constexpr):
    # The descriptor is made by the kernel's warps and used by a loader partition: its address
    # reaches the worker through the warp_specialize's shared memory, and the worker acquires
    # it for the tensor-map proxy before its copy.
    p = kl.program_id(0)
    src_desc = tma.make_tensor_descriptor(src + p * BM * stride, shape=[M - p * BM, N],
                                          strides=[stride, 1], block_shape=[BM, BN], layout=S)
    smem = kl.allocate_shared_memory(kl.float16, [BM, BN], S)
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    kl.warp_specialize([(_add_one, (smem, bar, dst, p, N, dst_stride, BM, BN)),
                        (_load_by_worker, (src_desc, smem, bar))], [1], [24])


def test_a_descriptor_made_in_the_kernel_reaches_a_worker():
    k = kiln.compile(copy_rows_by_a_worker, SIG, {"BM": 16, "BN": 16, "S": SMEM},
                     target="cuda:sm_90a", cache=False)
    ptx = k.asm["ptx"]
    # the kernel's warps acquire it after making it; the worker loads its address from shared
    # memory and acquires it before the copy that uses it
    loaded = re.search(r"ld\.shared\.b64\s+(%rd\d+), \[global_smem\+\d+\];", ptx)
    assert loaded, ptx
    rest = ptx[loaded.end():]
    fence = rest.index(f"fence.proxy.tensormap::generic.acquire.gpu [{loaded.group(1)}], 128;")
    assert fence < rest.index("cp.async.bulk.tensor.2d"), rest
    assert ptx.count("fence.proxy.tensormap::generic.acquire.gpu") == 2


@kiln.jit
def _make_and_load_by_worker(src, M, N, stride, p, smem, bar, BM: kl.constexpr,
                             BN: kl.constexpr, S: kl.constexpr):
    desc = tma.make_tensor_descriptor(src + p * BM * stride, shape=[M - p * BM, N],
                                      strides=[stride, 1], block_shape=[BM, BN], layout=S)
    mbarrier.expect(bar, desc.block_type.nbytes)
    tma.async_copy_global_to_shared(desc, [0, 0], bar, smem)


@kiln.jit
def copy_rows_made_by_a_worker(src, dst, M, N, stride, dst_stride, BM: kl.constexpr,
                               BN: kl.constexpr, S: kl.constexpr):
    # The loader partition makes its descriptor itself (its own slot of the kernel's global
    # scratch), writes it with its first thread, meets its own warps at its barrier and
    # acquires it before the copy.
    p = kl.program_id(0)
    smem = kl.allocate_shared_memory(kl.float16, [BM, BN], S)
    bar = kl.allocate_shared_memory(kl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    kl.warp_specialize([(_add_one, (smem, bar, dst, p, N, dst_stride, BM, BN)),
                        (_make_and_load_by_worker, (src, M, N, stride, p, smem, bar, BM, BN,
                                                    S))], [1], [24])


def test_a_descriptor_made_by_a_worker():
    k = kiln.compile(copy_rows_made_by_a_worker, SIG, {"BM": 16, "BN": 16, "S": SMEM},
                     target="cuda:sm_90a", cache=False)
    ptx = k.asm["ptx"]
    made = ptx.index("tensormap.replace.tile.global_address")
    # after the worker's register decrease, written by its first thread (thread 128: the
    # worker warp follows the kernel's 4), ordered by the worker's own named barrier (one
    # warp), acquired before its copy
    assert ptx.index("setmaxnreg.dec.sync.aligned.u32 \t24;") < made
    pred = re.search(r"@(%p\d+) tensormap\.replace", ptx).group(1)
    tid = re.search(rf"setp\.eq\.b32 \t{re.escape(pred)}, (%r\d+), 128;", ptx)
    assert tid and re.search(rf"mov\.u32 \t{tid.group(1)}, %tid\.x;", ptx), ptx
    rest = ptx[made:]
    assert rest.index("bar.sync \t2, 32;") < rest.index("fence.proxy.tensormap::generic.acquire")
    assert rest.index("fence.proxy.tensormap::generic.acquire") < rest.index(
        "cp.async.bulk.tensor.2d")
    assert "bar.sync \t0;" not in rest.split("cp.async.bulk.tensor.2d")[0]
