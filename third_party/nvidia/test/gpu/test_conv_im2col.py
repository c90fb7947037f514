"""examples/conv_im2col.py on a Hopper GPU against torch's conv2d on fresh random inputs:
Gluon tutorial 13's shapes (batches 1 and 4, 16 x 16 images, 64 and 96 channels, 3x3 and 1x1
filters, stride 1 and 2, padding 0 and 1) and ragged ones (channels not a multiple of BK,
odd image sizes, more output channels than one program's). Skips cleanly without torch, a
driver or sm_90."""

from __future__ import annotations

import os
import sys

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                ".."))
from examples import conv_im2col  # noqa: E402


@pytest.fixture
def sm90(target):
    if target != "cuda:sm_90a":
        pytest.skip(f"TMA im2col needs sm_90a; this device's target is {target}")
    return target


def _reference(x, w, stride, padding):
    return torch.nn.functional.conv2d(x.permute(0, 3, 1, 2).float(),
                                      w.permute(0, 3, 1, 2).float(), stride=stride,
                                      padding=padding).permute(0, 2, 3, 1)


@pytest.mark.parametrize("N", [1, 4])
@pytest.mark.parametrize("Ci,Co", [(64, 64), (96, 96)])
@pytest.mark.parametrize("R", [3, 1])
@pytest.mark.parametrize("stride", [1, 2])
@pytest.mark.parametrize("padding", [0, 1])
def test_tutorial_shapes(sm90, N, Ci, Co, R, stride, padding):
    x = torch.randn(N, 16, 16, Ci, device="cuda", dtype=torch.float16)
    w = torch.randn(Co, R, R, Ci, device="cuda", dtype=torch.float16)
    got = conv_im2col.conv2d_im2col(x, w, stride, padding)
    torch.testing.assert_close(got.float(), _reference(x, w, stride, padding), atol=0.25,
                               rtol=2e-2)


@pytest.mark.parametrize("shape", [(2, 17, 9, 40, 136, 3, 2, 2, 1), (3, 7, 30, 128, 64, 5, 3, 1, 2),
                                   (1, 32, 32, 16, 32, 3, 3, 1, 1)])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("cfg", [dict(), dict(BM=64, BN=128, BK=32, STAGES=4),
                                 dict(BN=128, num_warps=8)])
def test_ragged(sm90, shape, dtype, cfg):
    N, H, W, Ci, Co, R, S, stride, padding = shape
    x = torch.randn(N, H, W, Ci, device="cuda", dtype=dtype)
    w = torch.randn(Co, R, S, Ci, device="cuda", dtype=dtype)
    got = conv_im2col.conv2d_im2col(x, w, stride, padding, **cfg)
    tol = 0.25 if dtype == torch.float16 else 1.0
    torch.testing.assert_close(got.float(), _reference(x, w, stride, padding), atol=tol,
                               rtol=2e-2)
