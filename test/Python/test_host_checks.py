"""Host checks of kiln.nvidia.hopper.TensorDescriptor that need no GPU and no compiler: a
swizzled block the kernel's shared buffer could not hold (rows narrower than the swizzle) and
a from_tensor argument that is not a tensor are refused when the descriptor is made, with an
error naming the field and the numbers; blocks of fewer rows than a swizzle atom are not."""

import re

import numpy as np
import pytest

import kiln.language as kl
from kiln.nvidia.hopper import SWIZZLE_ROWS, TensorDescriptor
from test_tensor_descriptor import Tensor as DeviceTensor, TorchDtype  # CUDA tensor stand-ins


def nvmma(swizzle, bits=16, rank=2):
    return kl.NVMMASharedLayout(swizzle_byte_width=swizzle, element_bitwidth=bits, rank=rank)


# --- 1. a swizzled block needs rows one swizzle wide (any number of them) -----------------------

@pytest.mark.parametrize("block,dtype,swizzle", [
    ([4, 64], "bfloat16", 128),
    ([1, 64], "bfloat16", 128),
    ([2, 32], "float32", 64),
    ([4, 32], "int8", 32),
    ([2, 4, 64], "bfloat16", 128),       # the rows are the second-to-last dimension
    ([8, 1, 128], "float16", 128),       # whatever the leading dimensions hold
])
def test_fewer_rows_than_a_swizzle_atom_are_accepted(block, dtype, swizzle):
    """TMA swizzles by address, so a block of fewer than 8 rows continues the pattern in its
    later boxes (Kiln's layout does the same); Gluon accepts these blocks too."""
    rank = len(block)
    t = DeviceTensor([64] * (rank - 1) + [256], dtype)
    bits = {"bfloat16": 16, "float16": 16, "float32": 32, "int8": 8}[dtype]
    d = TensorDescriptor.from_tensor(t, block, nvmma(swizzle, bits, rank))
    assert d.block_shape == block


def test_a_block_smaller_than_its_split_wraps():
    """A descriptor's dimension smaller than the CTAs that split it (Gluon's tests make a
    [1, N] descriptor from a layout split 4 ways along the rows): each CTA's box holds all of
    it, as Gluon wraps it; a buffer of that shape and layout is an error."""
    cga = kl.make_cga_layout([4, 2], [4, 2], [1, 0])
    layout = kl.NVMMASharedLayout.get_default_for([256, 64], kl.float32, cga_layout=cga)
    d = TensorDescriptor.from_tensor(DeviceTensor((256, 64), "float32"), [1, 64], layout)
    assert d.block_shape == [1, 64]
    assert layout.per_cta_shape([1, 64], wrap=True) == (1, 32)
    with pytest.raises(ValueError, match=r"dimension 0 of size 1 cannot be split among 4 CTAs; "
                                         r"a buffer is split into equal parts"):
        layout.per_cta_shape([1, 64])


@pytest.mark.parametrize("block,dtype,bits,swizzle,elems", [
    ([64, 32], "bfloat16", 16, 128, 64),     # 64-byte rows, 128-byte swizzle
    ([64, 16], "bfloat16", 16, 64, 32),      # 32-byte rows, 64-byte swizzle
    ([64, 4], "float32", 32, 32, 8),         # 16-byte rows, 32-byte swizzle
    ([64, 64], "int8", 8, 128, 128),
])
def test_rows_narrower_than_the_swizzle(block, dtype, bits, swizzle, elems):
    row_bytes = block[-1] * bits // 8
    dname = {"bfloat16": "bf16", "float32": "fp32", "int8": "i8"}[dtype]
    with pytest.raises(ValueError) as ei:
        TensorDescriptor.from_tensor(DeviceTensor((256, 512), dtype), block, nvmma(swizzle, bits))
    assert str(ei.value) == (
        f"TensorDescriptor: block_shape[1] = {block[-1]} elements of {dname} is {row_bytes} "
        f"bytes, narrower than the {swizzle}-byte swizzle (layout.swizzle_byte_width = "
        f"{swizzle}), which needs rows of at least {elems} elements; use a smaller swizzle "
        f"(NVMMASharedLayout.get_default_for picks one that fits)")


@pytest.mark.parametrize("block,dtype,bits,swizzle", [
    ([8, 64], "bfloat16", 16, 128),          # exactly one atom
    ([8, 128], "bfloat16", 16, 128),         # wider than the swizzle: several boxes
    ([4, 64], "bfloat16", 16, 0),            # unswizzled: any number of rows
    ([1, 8], "bfloat16", 16, 0),
    ([8, 8], "float32", 32, 32),
    ([2, 1, 8, 64], "bfloat16", 16, 128),    # one row of leading dimensions, 8 rows
])
def test_blocks_that_fit_are_accepted(block, dtype, bits, swizzle):
    rank = len(block)
    t = DeviceTensor([64] * (rank - 1) + [256], dtype)
    d = TensorDescriptor.from_tensor(t, block, nvmma(swizzle, bits, rank))
    assert d.block_shape == block


def test_get_default_for_blocks_are_accepted():
    """get_default_for never picks a swizzle the descriptor refuses (2-D blocks)."""
    for rows in (1, 2, 4, 8, 16, 64, 256):
        for cols in (8, 16, 32, 64, 128, 256):
            layout = kl.NVMMASharedLayout.get_default_for([rows, cols], kl.bfloat16)
            d = TensorDescriptor.from_tensor(DeviceTensor((512, 512)), [rows, cols], layout)
            assert d.layout is layout
    assert SWIZZLE_ROWS == 8


def test_rank_one_has_no_rows_to_check():
    class Layout1:  # rank-1 layouts exist on the host only (kl.NVMMASharedLayout is 2-D+)
        swizzle_byte_width, element_bitwidth, rank = 128, 16, 1
        transposed = fp4_padded = False
    d = TensorDescriptor(DeviceTensor((1024,)), [1024], [1], [128], Layout1())
    assert d.block_shape == [128]


# --- 2. from_tensor needs a tensor ------------------------------------------------------------

WANT = (r"TensorDescriptor.from_tensor: tensor must be a device tensor (an object with "
        r"data_ptr(), shape, stride() and dtype, e.g. a torch tensor), got ")


class NoStride(DeviceTensor):
    stride = None  # an attribute, but not callable


@pytest.mark.parametrize("value,got", [
    ([[1.0, 2.0], [3.0, 4.0]], "list (no data_ptr(), shape, stride(), dtype)"),
    (np.zeros((64, 64), np.float16), "ndarray (no data_ptr(), stride())"),
    (None, "NoneType (no data_ptr(), shape, stride(), dtype)"),
    (7, "int (no data_ptr(), shape, stride(), dtype)"),
    ((64, 64), "tuple (no data_ptr(), shape, stride(), dtype)"),
    (NoStride((64, 64)), "NoStride (no stride())"),
])
def test_from_tensor_of_a_non_tensor_is_a_type_error(value, got):
    with pytest.raises(TypeError) as ei:
        TensorDescriptor.from_tensor(value, [64, 64], nvmma(128))
    assert str(ei.value) == WANT + got
    assert not isinstance(ei.value, AttributeError)


def test_from_tensor_checks_before_reading_anything():
    class Exploding:
        """Has every attribute, but data_ptr is not a method."""
        data_ptr = 0x7f0000000000
        shape = (64, 64)
        dtype = TorchDtype("bfloat16")

        def stride(self):
            raise AssertionError("stride() must not be called")
    with pytest.raises(TypeError, match=re.escape(WANT + "Exploding (no data_ptr())")):
        TensorDescriptor.from_tensor(Exploding(), [64, 64], nvmma(128))


# --- the host accepts exactly the blocks the kernel accepts ----------------------------------

try:
    from kiln import _compiler  # noqa: F401  (compiling needs it)
    _NO_COMPILER = None
except ImportError as e:  # pragma: no cover - depends on the build
    _NO_COMPILER = str(e)

_DTYPES = {"bfloat16": (kl.bfloat16, 16), "float32": (kl.float32, 32), "int8": (kl.int8, 8)}
_BLOCKS = [[1, 64], [2, 64], [4, 64], [8, 64], [16, 32], [8, 16], [64, 8], [8, 256], [32, 128],
           [2, 4, 64], [8, 1, 128], [4, 8, 64], [2, 2, 8, 32]]


@pytest.mark.skipif(_NO_COMPILER is not None, reason=f"kiln._compiler is not built "
                                                      f"({_NO_COMPILER})")
@pytest.mark.parametrize("swizzle", [0, 32, 64, 128])
@pytest.mark.parametrize("dtype", list(_DTYPES))
def test_host_agrees_with_the_kernel(dtype, swizzle):
    """For every block of _BLOCKS that passes the descriptor's other checks, the descriptor is
    made exactly when a kernel with a tensordesc parameter of that block and layout compiles
    (cuda:sm_90a, compile only); both errors name the same numbers."""
    import kiln

    @kiln.jit
    def takes_desc(d, x):
        pass

    kl_dtype, bits = _DTYPES[dtype]
    compared = 0
    for block in _BLOCKS:
        if block[-1] * bits // 8 % 16:
            continue  # the 16-byte innermost rule, which the kernel does not see
        layout = nvmma(swizzle, bits, len(block))
        t = DeviceTensor([64] * (len(block) - 1) + [256], dtype)
        try:
            TensorDescriptor.from_tensor(t, block, layout)
            host = None
        except ValueError as e:
            host = str(e)
        sig = {"d": kl.tensor_descriptor_type(kl_dtype, block, layout), "x": "*fp32"}
        try:
            kiln.compile(takes_desc, sig, {}, target="cuda:sm_90a", cache=False)
            kernel = None
        except kiln.CompilationError as e:
            kernel = e.message
        assert (host is None) == (kernel is None), (block, swizzle, host, kernel)
        if host:
            assert f"narrower than the {swizzle}-byte swizzle" in host, (host, kernel)
            assert f"rows of {block[-1]} elements" in kernel, kernel
        compared += 1
    assert compared >= 8
