"""The host half of TMA tensor descriptors on a Hopper GPU, without the compiler: a
hand-written PTX kernel with a ``tensordesc`` parameter (a 128-byte ``.param .align 64``
byval tensor map, then the tensor's shape (u32) and strides (u64) that kernels read as
``desc.shape`` / ``desc.strides``, then more scalars) launched through
kiln.runtime.LoadedKernel with a kiln.nvidia.hopper.TensorDescriptor. It copies the map's bytes
and the shape and strides back (the launch passes them unchanged, at their own offsets) and
TMA-loads one block as ``tma_box`` boxes, one per
swizzle-wide column chunk, which the test unswizzles and compares with the tensor, padding
included."""

import subprocess
import sys

import pytest

from kiln.nvidia.hopper import TensorDescriptor, tma_box

ROWS, COLS = 64, 128

# (u64 out, tensordesc desc [+ u32 shape0, shape1, u64 stride0, stride1], u32 row0, u32 nchunks,
#  u32 chunk_cols, u32 chunk_bytes, u64 echo)
PTX = r"""
.version 8.0
.target sm_90a
.address_size 64

.visible .entry tma_test(
	.param .u64 tma_test_param_0,
	.param .align 64 .b8 tma_test_param_1[128],
	.param .u32 tma_test_shape0,
	.param .u32 tma_test_shape1,
	.param .u64 tma_test_stride0,
	.param .u64 tma_test_stride1,
	.param .u32 tma_test_param_2,
	.param .u32 tma_test_param_3,
	.param .u32 tma_test_param_4,
	.param .u32 tma_test_param_5,
	.param .u64 tma_test_param_6
)
{
	.reg .pred %p<4>;
	.reg .b32 %r<24>;
	.reg .b64 %rd<20>;
	.shared .align 1024 .b8 smem[4096];
	.shared .align 8 .b64 bar;

	mov.u32 %r1, %tid.x;
	setp.ne.s32 %p1, %r1, 0;
	@%p1 bra DONE;
	ld.param.u64 %rd1, [tma_test_param_0];
	cvta.to.global.u64 %rd1, %rd1;
	mov.b64 %rd2, tma_test_param_1;
	cvta.param.u64 %rd3, %rd2;
	ld.param.u32 %r2, [tma_test_param_2];
	ld.param.u32 %r3, [tma_test_param_3];
	ld.param.u32 %r9, [tma_test_param_4];
	ld.param.u32 %r10, [tma_test_param_5];
	ld.param.u64 %rd10, [tma_test_param_6];
	cvta.to.global.u64 %rd10, %rd10;

	mov.u32 %r11, 0;
ECHO:
	cvt.u64.u32 %rd11, %r11;
	add.s64 %rd12, %rd3, %rd11;
	ld.u32 %r12, [%rd12];
	add.s64 %rd13, %rd10, %rd11;
	st.global.u32 [%rd13], %r12;
	add.s32 %r11, %r11, 4;
	setp.lt.u32 %p2, %r11, 128;
	@%p2 bra ECHO;
	ld.param.u32 %r12, [tma_test_shape0];
	st.global.u32 [%rd10+128], %r12;
	ld.param.u32 %r12, [tma_test_shape1];
	st.global.u32 [%rd10+132], %r12;
	ld.param.u64 %rd16, [tma_test_stride0];
	st.global.u64 [%rd10+136], %rd16;
	ld.param.u64 %rd16, [tma_test_stride1];
	st.global.u64 [%rd10+144], %rd16;

	mov.u32 %r4, smem;
	mov.u32 %r5, bar;
	mbarrier.init.shared::cta.b64 [%r5], 1;
	fence.proxy.async.shared::cta;
	mul.lo.u32 %r6, %r3, %r10;
	mbarrier.arrive.expect_tx.shared::cta.b64 %rd4, [%r5], %r6;
	mov.u32 %r7, 0;
	mov.u32 %r8, 0;
	mov.u32 %r13, %r4;
LOOP:
	cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r13], [%rd3, {%r8, %r2}], [%r5];
	add.s32 %r13, %r13, %r10;
	add.s32 %r8, %r8, %r9;
	add.s32 %r7, %r7, 1;
	setp.lt.u32 %p2, %r7, %r3;
	@%p2 bra LOOP;
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r5], 0;
	@!%p3 bra WAIT;

	mov.u32 %r14, 0;
COPY:
	add.s32 %r15, %r4, %r14;
	ld.shared.u32 %r16, [%r15];
	cvt.u64.u32 %rd14, %r14;
	add.s64 %rd15, %rd1, %rd14;
	st.global.u32 [%rd15], %r16;
	add.s32 %r14, %r14, 4;
	setp.lt.u32 %p2, %r14, %r6;
	@%p2 bra COPY;
DONE:
	ret;
}
"""


class Layout:
    """The NVMMASharedLayout attributes a TensorDescriptor reads."""

    def __init__(self, swizzle_byte_width, element_bitwidth=16, rank=2):
        self.swizzle_byte_width = swizzle_byte_width
        self.element_bitwidth = element_bitwidth
        self.rank = rank
        self.transposed = False
        self.fp4_padded = False


def _param(block, swizzle):
    return {"name": "desc", "type": "tensordesc", "dtype": "fp16", "block_shape": block,
            "layout": {"swizzle_byte_width": swizzle, "element_bitwidth": 16, "rank": 2,
                       "transposed": False, "fp4_padded": False}}


def _kernel(block, swizzle):
    from kiln.runtime import LoadedKernel, get_driver
    md = {"name": "tma_test", "target": "cuda:sm_90a", "num_warps": 1,
          "threads_per_warp": 32, "shared": 0,
          "params": [{"name": "out", "type": "*u8"}, _param(block, swizzle),
                     {"name": "row0", "type": "u32"}, {"name": "nchunks", "type": "u32"},
                     {"name": "chunk_cols", "type": "u32"},
                     {"name": "chunk_bytes", "type": "u32"}, {"name": "echo", "type": "*u8"}]}
    return LoadedKernel(get_driver(), PTX.encode(), md)


@pytest.fixture(scope="module")
def hopper(target):
    if target != "cuda:sm_90a":
        pytest.skip(f"TMA needs sm_90a, the device is {target}")
    import torch
    return torch


def _unswizzle(raw, swizzle):
    """Logical bytes of a chunk that TMA wrote with the given swizzle (16-byte units within a
    swizzle-wide row XOR the row index bits above 128 bytes)."""
    if not swizzle:
        return bytes(raw)
    mask = swizzle // 16 - 1
    return bytes(raw[o ^ (((o >> 7) & mask) << 4)] for o in range(len(raw)))


@pytest.mark.parametrize("swizzle,block,row0,padding", [
    (128, [8, 128], 8, "zero"),   # 256-byte rows: two 128-byte boxes
    (128, [8, 64], 16, "zero"),   # one box
    (64, [8, 128], 24, "zero"),   # four 64-byte boxes
    (32, [8, 64], 0, "zero"),     # four 32-byte boxes
    (0, [8, 128], 60, "zero"),    # rows 64..67 are out of bounds: zero
    (0, [8, 64], 60, "nan"),      # ... or NaN
    (128, [8, 128], 60, "nan"),
])
def test_tma_load_through_a_descriptor(hopper, swizzle, block, row0, padding):
    torch = hopper
    from kiln.runtime import get_driver
    x = torch.arange(ROWS * COLS, dtype=torch.int16, device="cuda").view(torch.float16)
    x = x.reshape(ROWS, COLS)
    d = TensorDescriptor(x, x.shape, x.stride(), block, Layout(swizzle), padding)
    box = tma_box(block, swizzle, 16)
    nchunks = block[-1] // box[-1]
    chunk_bytes = box[0] * box[1] * 2
    out = torch.zeros(4096, dtype=torch.uint8, device="cuda")
    echo = torch.zeros(152, dtype=torch.uint8, device="cuda")
    k = _kernel(block, swizzle)
    k[(1,)](out, d, row0, nchunks, box[-1], chunk_bytes, echo)
    torch.cuda.synchronize()
    echoed = bytes(echo.cpu().numpy())
    assert echoed[:128] == d._tensor_map(get_driver())
    assert [int.from_bytes(echoed[o:o + n], "little") for o, n in
            ((128, 4), (132, 4), (136, 8), (144, 8))] == [ROWS, COLS, COLS, 1]

    got = bytes(out[:nchunks * chunk_bytes].cpu().numpy())
    bits = x.view(torch.int16).cpu().numpy().astype("uint16")
    for c in range(nchunks):
        chunk = _unswizzle(got[c * chunk_bytes:(c + 1) * chunk_bytes], swizzle)
        for r in range(box[0]):
            row = row0 + r
            values = [int.from_bytes(chunk[(r * box[1] + i) * 2:(r * box[1] + i) * 2 + 2],
                                     "little") for i in range(box[1])]
            if row < ROWS:
                want = [int(v) for v in bits[row, c * box[1]:(c + 1) * box[1]]]
                assert values == want, (c, r)
            elif padding == "zero":
                assert values == [0] * box[1], (c, r)
            else:  # NaN: all-ones exponent, nonzero mantissa
                assert all(v & 0x7C00 == 0x7C00 and v & 0x3FF for v in values), (c, r, values)


def test_wrong_descriptor_is_refused_before_launch(hopper):
    torch = hopper
    x = torch.zeros(ROWS, COLS, dtype=torch.float16, device="cuda")
    d = TensorDescriptor.from_tensor(x, [8, 64], Layout(128))
    k = _kernel([8, 128], 128)
    with pytest.raises(ValueError, match=r"argument 'desc': kernel 'tma_test' was compiled for "
                       r"a tensor descriptor with block_shape \[8, 128\], got one with "
                       r"\[8, 64\]"):
        k[(1,)](x, d, 0, 1, 64, 1024, x)


def test_encode_needs_no_current_context(target):
    if not target.startswith("cuda:"):
        pytest.skip("tensor maps are CUDA's")
    # A fresh process: nothing has made a context current yet.
    code = ("from kiln import _runtime as r; "
            "m = r.encode_tensor_map('cuda', 'bf16', 0x7f0000000000, [64, 64], [128], "
            "[64, 64], swizzle_bytes=128); print(len(m), any(m))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["128", "True"]


def test_driver_refuses_what_python_would_have(target):
    if not target.startswith("cuda:"):
        pytest.skip("tensor maps are CUDA's")
    from kiln import _runtime
    # A byte stride that is not a multiple of 16: the driver's own refusal, with the request.
    with pytest.raises(_runtime.DriverError, match=r"cuTensorMapEncodeTiled\(rank 2, .*byte "
                       r"strides \[100\].*\) failed: CUDA_ERROR_INVALID_VALUE"):
        _runtime.encode_tensor_map("cuda", "fp16", 0x7f0000000000, [50, 64], [100], [8, 8])
