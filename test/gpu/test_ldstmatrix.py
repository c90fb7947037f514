"""ldmatrix / stmatrix for any layout of their shape (Gluon's test_ldstmatrix_register_order
cases, after Triton 3.8) on an NVIDIA GPU: a round trip through shared memory gives back every
element, against torch on fresh random inputs (test/Python/test_ldstmatrix_dsl.py checks the
instructions). Skips cleanly without torch or a GPU."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

import kiln.language as kl  # noqa: E402
import gluon_later_kernels as K  # noqa: E402


DTYPES = {"fp16": torch.float16, "i8": torch.int8, "fp32": torch.float32}


@pytest.mark.parametrize("op", ["ld", "st"])
@pytest.mark.parametrize("dt,trans,reg_bases,lane_bases", K.MATRIX_CASES, ids=K.MATRIX_IDS)
def test_round_trip(target, op, dt, trans, reg_bases, lane_bases):
    if not target.startswith("cuda"):
        pytest.skip("ldmatrix / stmatrix are NVIDIA's")
    if op == "st" and torch.cuda.get_device_capability()[0] < 9:
        pytest.skip("stmatrix needs sm_90")
    dtype = DTYPES[dt]
    size, shared, layout = K.matrix_layouts(reg_bases, lane_bases)
    blocked = kl.BlockedLayout([1], [32], [1], [0])
    store, load = (layout, blocked) if op == "st" else (blocked, layout)
    inp = torch.randint(-100, 100, (size,), dtype=torch.int32, device="cuda").to(dtype)
    out = torch.empty_like(inp)
    K.matrix_round_trip[(1,)](inp, out, size, store, load, shared, num_warps=1)
    torch.cuda.synchronize()
    assert torch.equal(out, inp)
