"""TMA im2col loads on a Hopper GPU (Gluon's ``tma.async_load_im2col`` with
``kiln.nvidia.hopper.TensorDescriptorIm2Col``), against a torch reference that walks the pixel
box by explicit indexing: from the first pixel's coordinates, W fastest then H, D and N, each
spatial coordinate stepping by its element stride and wrapping at the box's upper end
(shape - 1 + upper corner) to its lower corner; each pixel read at its coordinates plus the
offsets, zero outside the tensor (channels past C too). Gluon's own test_tma_im2col shapes
run too (its kernel verbatim where Kiln's tiled TMA store takes the block: 256 rows at most).
Skips cleanly without torch, a driver or an sm_90 device."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

import kiln  # noqa: E402
import kiln.language as kl  # noqa: E402
from kiln.language.nvidia.hopper import mbarrier, tma  # noqa: E402
from kiln.nvidia.hopper import TensorDescriptor, TensorDescriptorIm2Col  # noqa: E402


@pytest.fixture
def sm90(target):
    if target != "cuda:sm_90a":
        pytest.skip(f"TMA im2col needs sm_90a; this device's target is {target}")
    return target


def reference(inp, coord, offsets, pixels, channels, lower, upper, element_strides):
    """The [pixels, channels] block an im2col load gathers, computed pixel by pixel."""
    rank = inp.dim()
    spatial = rank - 2
    dims = list(inp.shape)
    hi = [dims[1 + i] - 1 + upper[i] for i in range(spatial)]
    cur = [coord[0]] + list(coord[1:1 + spatial])
    c0 = coord[-1]
    out = torch.zeros(pixels, channels, dtype=inp.dtype)
    src = inp.cpu()
    for p in range(pixels):
        at = [cur[0]] + [cur[1 + i] + offsets[i] for i in range(spatial)]
        if all(0 <= at[i] < dims[i] for i in range(rank - 1)):
            lo_c, hi_c = max(c0, 0), min(c0 + channels, dims[-1])
            if lo_c < hi_c:
                out[p, lo_c - c0:hi_c - c0] = src[tuple(at)][lo_c:hi_c]
        # The next pixel: W first; past the box's end, back to its start and carry.
        for i in reversed(range(spatial)):
            cur[1 + i] += element_strides[1 + i]
            if cur[1 + i] <= hi[i]:
                break
            cur[1 + i] = lower[i]
        else:
            cur[0] += element_strides[0]
    return out


@kiln.jit
def im2col_gather(in_desc, out_ptr, n, d, h, w, c, od, oh, ow, RANK: kl.constexpr,
                  WARPS: kl.constexpr):
    P: kl.constexpr = in_desc.block_type.shape[0]
    CH: kl.constexpr = in_desc.block_type.shape[1]
    smem = kl.allocate_shared_memory(in_desc.dtype, in_desc.block_shape, in_desc.layout)
    bar = mbarrier.allocate_mbarrier()
    mbarrier.init(bar, count=1)
    mbarrier.expect(bar, in_desc.block_type.nbytes)
    if RANK == 3:
        tma.async_load_im2col(in_desc, [n, w, c], [ow], bar, smem)
    elif RANK == 4:
        tma.async_load_im2col(in_desc, [n, h, w, c], [oh, ow], bar, smem)
    else:
        tma.async_load_im2col(in_desc, [n, d, h, w, c], [od, oh, ow], bar, smem)
    mbarrier.wait(bar, phase=0)
    mbarrier.invalidate(bar)
    layout: kl.constexpr = kl.BlockedLayout([1, 4], [4, 8], [WARPS, 1], [1, 0])
    rows = kl.arange(0, P, layout=kl.SliceLayout(1, layout))
    cols = kl.arange(0, CH, layout=kl.SliceLayout(0, layout))
    kl.store(out_ptr + rows[:, None] * CH + cols[None, :], smem.load(layout))


# (name, dtype, shape, block, swizzle, lower, upper, element_strides, coord, offsets)
CASES = [
    # Gluon's tutorial examples 1-3: a 4x4 image, plain, padded box, box moved back.
    ("tutorial-plain", torch.float32, (1, 4, 4, 32), (16, 32), 128, [0, 0], [0, 0],
     [1, 1, 1, 1], [0, 0, 0, 0], [0, 0]),
    ("tutorial-padded", torch.float32, (1, 4, 4, 32), (16, 32), 128, [-1, -1], [-1, -1],
     [1, 1, 1, 1], [0, -1, -1, 0], [0, 0]),
    ("tutorial-offset", torch.float32, (1, 4, 4, 32), (16, 32), 128, [-1, -1], [-1, -1],
     [1, 1, 1, 1], [0, -1, -1, 0], [1, 1]),
    # A 3x3 convolution's box (pad 1: lower -1, upper 1 - 2), tap (1, 2), across two images.
    ("conv3x3-tap", torch.float16, (2, 10, 12, 64), (128, 64), 128, [-1, -1], [-1, -1],
     [1, 1, 1, 1], [0, -1, -1, 0], [1, 2]),
    # Channels from 32 of 96 (two 128-byte boxes), and from 64 (past C: zeros).
    ("channels-from-32", torch.float16, (1, 8, 8, 96), (64, 64), 64, [0, 0], [0, 0],
     [1, 1, 1, 1], [0, 0, 0, 32], [0, 0]),
    ("channels-past-c", torch.float16, (1, 8, 8, 96), (64, 64), 128, [0, 0], [0, 0],
     [1, 1, 1, 1], [0, 0, 0, 64], [0, 0]),
    # A stride-2 convolution: the box walked by twos, four images.
    ("stride-2", torch.float32, (4, 8, 8, 32), (64, 32), 128, [-1, -1], [-1, -1],
     [1, 2, 2, 1], [0, -1, -1, 0], [1, 0]),
    # Rank 3 (NWC) with a wide box, and rank 5 (NDHWC).
    ("nwc", torch.float16, (2, 40, 32), (64, 32), 64, [-2], [-3], [1, 1, 1], [0, -2, 0], [3]),
    ("ndhwc", torch.float32, (1, 4, 4, 4, 16), (64, 16), 64, [0, -1, -1], [0, -1, -1],
     [1, 1, 1, 1, 1], [0, 0, -1, -1, 0], [0, 1, 1]),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_im2col_matches_reference(sm90, case):
    _, dtype, shape, block, swizzle, lower, upper, estr, coord, offsets = case
    torch.manual_seed(0)
    inp = torch.randn(shape, device="cuda").to(dtype)
    rank = len(shape)
    bits = torch.finfo(dtype).bits
    layout = kl.NVMMASharedLayout(swizzle_byte_width=swizzle, element_bitwidth=bits, rank=2)
    desc = TensorDescriptorIm2Col.from_tensor(inp, list(block), layout, element_strides=estr,
                                              pixel_box_lower_corner=lower,
                                              pixel_box_upper_corner=upper)
    out = torch.full(block, float("nan"), device="cuda", dtype=dtype)
    spatial = [0, 0, 0]
    spatial[3 - (rank - 2):] = coord[1:-1]
    offs = [0, 0, 0]
    offs[3 - (rank - 2):] = offsets
    im2col_gather[(1,)](desc, out, coord[0], *spatial, coord[-1], *offs, RANK=rank, WARPS=4,
                        num_warps=4)
    want = reference(inp, coord, offsets, block[0], block[1], lower, upper, estr)
    torch.testing.assert_close(out.cpu(), want, atol=0, rtol=0)


# Gluon's test_tma_im2col (python/test/gluon/test_core.py), the kernel as Gluon writes it.
@kiln.jit
def tma_im2col_kernel(in_desc, out_desc):
    smem = kl.allocate_shared_memory(in_desc.dtype, in_desc.block_shape, in_desc.layout)
    bar = mbarrier.allocate_mbarrier()
    mbarrier.init(bar, count=1)
    mbarrier.expect(bar, in_desc.block_type.nbytes)
    tma.async_copy_global_to_shared_im2col(in_desc, [0, 0, 0, 0], [0, 0], bar, smem)
    mbarrier.wait(bar, phase=0)
    mbarrier.invalidate(bar)
    tma.async_copy_shared_to_global(out_desc, [0, 0], smem)
    tma.store_wait(pendings=0)


@pytest.mark.parametrize("pixels_per_column", [32, 256, 512, 1024])
def test_gluon_tma_im2col(sm90, pixels_per_column):
    channels_per_pixel, swizzle_byte_width = 32, 32
    inp = torch.arange(pixels_per_column * channels_per_pixel, device="cuda",
                       dtype=torch.float32)
    inp = inp.reshape(1, 1, pixels_per_column, channels_per_pixel)
    out = torch.zeros(pixels_per_column, channels_per_pixel, device="cuda",
                      dtype=torch.float32)
    block_shape = [pixels_per_column, channels_per_pixel]
    layout = kl.NVMMASharedLayout(swizzle_byte_width=swizzle_byte_width, element_bitwidth=32,
                                  rank=2, transposed=False, fp4_padded=False)
    in_desc = TensorDescriptorIm2Col(base=inp, shape=list(inp.shape),
                                     strides=list(inp.stride()), block_shape=block_shape,
                                     layout=layout, padding="zero",
                                     element_strides=[1, 1, 1, 1],
                                     pixel_box_lower_corner=[0, 0],
                                     pixel_box_upper_corner=[0, 0])
    if pixels_per_column <= 256:
        out_desc = TensorDescriptor.from_tensor(out, block_shape, layout)
        tma_im2col_kernel[(1,)](in_desc, out_desc, num_warps=1)
    else:
        # Kiln's tiled TMA boxes have at most 256 rows (Triton splits bigger ones): the
        # block goes back through registers.
        im2col_gather[(1,)](in_desc, out, 0, 0, 0, 0, 0, 0, 0, 0, RANK=4, WARPS=8,
                            num_warps=8)
    torch.testing.assert_close(out, inp.reshape(pixels_per_column, channels_per_pixel),
                               atol=0, rtol=0)
