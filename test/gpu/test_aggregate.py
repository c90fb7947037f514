"""Aggregates, tuples through loops, warpgroup_mma_accumulator, a descriptor argument's shape
and 1-D TMA boxes on the GPU, against Python and torch on fresh random inputs; the kernels are
test/Python/aggregate_kernels.py's (Gluon's 07-persistence WGMMA wrapper and pipelined matmul
among them). With Triton installed, a class made by Triton's own aggregate decorator too."""


import os
import sys

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Python"))
import aggregate_kernels as K  # noqa: E402

import kiln  # noqa: E402
import kiln.language as kl  # noqa: E402
from kiln.nvidia.hopper import TensorDescriptor  # noqa: E402


def _counter_reference(n, num_buffers):
    index = phase = 0
    seq = []

    def step():
        nonlocal index, phase
        if index == num_buffers - 1:
            index, phase = 0, phase ^ 1
        else:
            index += 1
    for _ in range(n):
        step()
        seq.append(index * 2 + phase)
    for _ in range(n):
        step()
    seq.append(index * 2 + phase)
    for _ in range(2 if n > 2 else 1):
        step()
    seq.append(index * 2 + phase)
    return seq


@pytest.mark.parametrize("n,num_buffers", [(1, 2), (7, 3), (12, 4)])
def test_counter(target, n, num_buffers):
    out = torch.full((n + 2,), -1, dtype=torch.int32, device="cuda")
    K.counter_kernel[(1,)](out, n, num_buffers)
    assert out.cpu().tolist() == _counter_reference(n, num_buffers)


def test_pair(target):
    out = torch.zeros(2, dtype=torch.int32, device="cuda")
    K.pair_kernel[(1,)](out, 10)
    assert out.cpu().tolist() == [sum(i for i in range(10) if i % 3 == 0), 4]


def _hopper(target):
    if target != "cuda:sm_90a":
        pytest.skip(f"TMA and wgmma need sm_90a, the device is {target}")


@pytest.mark.parametrize("M,N,K_", [(300, 264, 328), (2000, 1000, 2000)])
@pytest.mark.parametrize("num_buffers", [2, 3, 4])
def test_tutorial_pipelined_matmul(target, M, N, K_, num_buffers):
    _hopper(target)
    BM, BN, BK = 128, 128, 64
    torch.manual_seed(M + num_buffers)
    a = torch.randn(M, K_, device="cuda", dtype=torch.float16)
    b = torch.randn(K_, N, device="cuda", dtype=torch.float16)  # [K, N] row-major
    c = torch.empty(M, N, device="cuda", dtype=torch.float16)
    lay = kl.NVMMASharedLayout.get_default_for
    a_desc = TensorDescriptor.from_tensor(a, [BM, BK], lay([BM, BK], kl.float16))
    b_desc = TensorDescriptor.from_tensor(b, [BK, BN], lay([BK, BN], kl.float16))
    c_desc = TensorDescriptor.from_tensor(c, [BM, BN], lay([BM, BN], kl.float16))
    grid = (triton_cdiv(M, BM), triton_cdiv(N, BN))
    K.matmul_pipelined_kernel[grid](a_desc, b_desc, c_desc, K.WGMMA, num_buffers, num_warps=4)
    torch.testing.assert_close(c.float(), a.float() @ b.float(), rtol=1e-2, atol=5e-2)


def triton_cdiv(a, b):
    return (a + b - 1) // b


@pytest.mark.parametrize("n", [256, 1000, 4104])
def test_one_d_tma(target, n):
    _hopper(target)
    x = torch.randn(n, device="cuda", dtype=torch.float16)
    y = torch.full((n,), 5.0, device="cuda", dtype=torch.float16)
    lay = kl.NVMMASharedLayout.get_default_for([256], kl.float16)
    xd = TensorDescriptor.from_tensor(x, [256], lay)
    yd = TensorDescriptor.from_tensor(y, [256], lay)
    K.copy_1d_kernel[(triton_cdiv(n, 256),)](xd, yd, 256)
    torch.testing.assert_close(y, x * 2)


def test_triton_aggregate_class(target):
    core = pytest.importorskip("triton.language.core", reason="Triton is not installed")

    @core._aggregate
    class Ring:
        index: kl.tensor
        size: kl.constexpr

        @kl.constexpr_function
        def __init__(self, index, size):
            self.index = index
            self.size = kl.constexpr(size)

        @kiln.jit
        def create(size: kl.constexpr):
            return Ring(kl.to_tensor(0), size)

        @kiln.jit
        def next(self):
            return Ring((self.index + 1) % self.size, self.size)

    @kiln.jit
    def ring_kernel(out, n):
        r = Ring.create(5)
        for i in range(n):
            r = r.next()
            kl.store(out + i, r.index)

    out = torch.full((13,), -1, dtype=torch.int32, device="cuda")
    ring_kernel[(1,)](out, 13)
    assert out.cpu().tolist() == [(i + 1) % 5 for i in range(13)]


def test_generated_constructor(target):
    out = torch.zeros(128, dtype=torch.int32, device="cuda")
    K.scaled_kernel[(1,)](out)
    i = torch.arange(128, dtype=torch.int32, device="cuda")
    assert torch.equal(out, (2 * i + i + 1) + (3 * i + i))


def test_aggregate_without_fields(target):
    out = torch.zeros(128, dtype=torch.int32, device="cuda")
    K.methods_kernel[(1,)](out)
    i = torch.arange(128, dtype=torch.int32, device="cuda")
    assert torch.equal(out, 2 * i + 5)


def test_aggregate_forwarding_and_constexpr_tuples(target):
    out = torch.zeros(128, dtype=torch.int32, device="cuda")
    K.forwarding_kernel[(1,)](out, (3, 4))
    i = torch.arange(128, dtype=torch.int32, device="cuda")
    assert torch.equal(out, 2 * i + 34)
