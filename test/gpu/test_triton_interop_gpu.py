"""Kiln kernels that use ``triton`` and ``triton.language`` beside Kiln's names
(test/Python/triton_interop_kernels.py: ``tl.constexpr`` annotations, a ``tl`` dtype as a
constexpr argument, ``triton.cdiv``, ``tl.*`` calls, ``@triton.jit`` helpers), run with the real
Triton against torch on fresh random inputs. Skips cleanly without Triton, torch or a GPU."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")
triton = pytest.importorskip("triton", reason="these kernels import Triton's language")
tl = pytest.importorskip("triton.language")

import triton_interop_kernels as K  # noqa: E402  (test/Python is on sys.path)



@pytest.mark.parametrize("n", [1, 1000, 4096, 5000])
@pytest.mark.parametrize("out_dtype", ["bfloat16", "float16", "float32"])
def test_scale_kernel(nvidia, n, out_dtype):
    x = torch.randn(n, device="cuda")
    y = torch.full((n,), float("nan"), device="cuda", dtype=getattr(torch, out_dtype))
    block = 1024
    K.scale_kernel[(triton.cdiv(n, block),)](x, y, n, BLOCK=block,
                                             OUT_DTYPE=getattr(tl, out_dtype), SLOPE=0.25)
    ref = torch.where(x > 0, x, 0.25 * x).to(y.dtype)
    torch.testing.assert_close(y, ref)


@pytest.mark.parametrize("n", [1, 300, 512])
def test_sum_kernel_with_a_triton_helper(nvidia, n):
    x = torch.randn(n, device="cuda")
    out = torch.full((1,), float("nan"), device="cuda")
    K.sum_kernel[(1,)](x, out, n, BLOCK=512)
    torch.testing.assert_close(out[0], x.sum(), rtol=1e-5, atol=1e-4)


def test_tl_dot_is_an_error_at_the_line(nvidia):
    import kiln
    x = torch.zeros(1, device="cuda")
    with pytest.raises(kiln.CompilationError, match=r"'tl.dot' has no meaning in a Kiln kernel"):
        K.dot_kernel[(1,)](x)


def test_project_builtin_helper(nvidia):
    x = torch.randn(3, 512, device="cuda")
    out = torch.full((512,), float("nan"), device="cuda")
    K.tuple_builtin_kernel[(1,)](x, out, N=512, W=3)
    torch.testing.assert_close(out, x[0] + 2 * x[1] + 3 * x[2])


def test_triton_aggregate_and_constexpr_value(nvidia):
    out = torch.zeros(2, dtype=torch.int32, device="cuda")
    K.aggregate_kernel[(2,)](out, N=1000)
    assert out.tolist() == [32, 32]
    f = torch.zeros(1, device="cuda")
    K.none_constexpr_kernel[(1,)](f)
    assert f.item() == 1.0
    K.none_constexpr_kernel[(1,)](f, P=3)
    assert f.item() == 2.0


@pytest.mark.parametrize("grid", [16, 13])
def test_type_of_a_folded_number(nvidia, grid):
    out = torch.full((4,), -1, dtype=torch.int32, device="cuda")
    K.remap_kernel[(4,)](out, GRID=grid)
    tall = grid % 8 or 8
    assert out.tolist() == [p % 8 + tall for p in range(4)]
