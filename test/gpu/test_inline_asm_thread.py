"""kl.inline_asm (Gluon's, after Triton 3.8: one statement per thread) on an NVIDIA GPU,
against torch on fresh random inputs: a row sum over 128 registers into a result of another
layout, replicated registers, a shared view read and written through its address, and the
statement counted once per thread (and per partition under warp_specialize). Skips cleanly
without torch or a GPU."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

import kiln  # noqa: E402
import kiln.language as kl  # noqa: E402
import gluon_later_kernels as K  # noqa: E402


def _nvidia(target):
    if not target.startswith("cuda"):
        pytest.skip("the statements are PTX")


def test_many_registers(target):
    _nvidia(target)
    x = torch.randint(-100, 100, (128, 128), dtype=torch.int32, device="cuda")
    y = torch.empty(128, dtype=torch.int32, device="cuda")
    K.many_kernel[(1,)](x, y)
    torch.cuda.synchronize()
    assert torch.equal(y, x.sum(dim=1).to(torch.int32))


@kl.constexpr_function
def plus_bias(outputs, inputs):
    out, = outputs
    values, bias = inputs
    return "\n".join(f"add.u32 {d}, {s}, {bias[0]};" for d, s in zip(out, values))


@kiln.jit
def replicated_kernel(x_ptr, y_ptr, bias):
    layout: kl.constexpr = kl.DistributedLinearLayout(
        reg_bases=[[0], [1]], lane_bases=[[2], [4], [8], [16], [32]],
        warp_bases=[[64], [128]], block_bases=[], shape=[256])
    offs = kl.arange(0, 256, layout=layout)
    x = kl.load(x_ptr + offs)
    y = kl.inline_asm(plus_bias, ("=&r", "r", "r"), [x, bias], x.type, is_pure=True)
    kl.store(y_ptr + offs, y)


def test_replicated_registers(target):
    _nvidia(target)
    x = torch.randint(-1000, 1000, (256,), dtype=torch.int32, device="cuda")
    y = torch.empty_like(x)
    replicated_kernel[(1,)](x, y, 17)
    torch.cuda.synchronize()
    assert torch.equal(y, x + 17)


def test_shared_view_address(target):
    _nvidia(target)
    x = torch.randn((128, 64), device="cuda")
    y = torch.empty((128, 32), device="cuda")
    K.view_kernel[(1,)](x, y, True, 1, K.shared_loads, ("=&f", "r", "r"))
    torch.cuda.synchronize()
    assert torch.equal(y, x[:, 32:])


@kiln.jit
def view_store_kernel(out):
    layout: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    parent = kl.allocate_shared_memory(kl.int32, [256], kl.SwizzledSharedLayout(1, 1, 1, [0]),
                                       kl.full([256], 0, kl.int32, layout))
    view = parent.slice(128, 128)
    offsets = kl.arange(0, 128, layout=layout)
    kl.barrier()
    kl.inline_asm("{ .reg .u32 a; add.u32 a, $0, $1; st.shared.u32 [a], $2; }", "r,r,r",
                  [view, offsets * 4, offsets + 1])
    kl.barrier()
    load_layout: kl.constexpr = kl.BlockedLayout([2], [32], [4], [0])
    kl.store(out + kl.arange(0, 256, layout=load_layout), parent.load(load_layout))


def test_shared_view_store(target):
    _nvidia(target)
    out = torch.full((256,), -1, dtype=torch.int32, device="cuda")
    view_store_kernel[(1,)](out)
    torch.cuda.synchronize()
    expected = torch.cat((torch.zeros(128, dtype=torch.int32, device="cuda"),
                          torch.arange(1, 129, dtype=torch.int32, device="cuda")))
    assert torch.equal(out, expected)


@pytest.mark.parametrize("ws", [False, True])
def test_once_per_thread(target, ws):
    _nvidia(target)
    out = torch.zeros(2 if ws else 1, dtype=torch.int32, device="cuda")
    K.count_kernel[(3,)](out, ws, num_warps=4)
    torch.cuda.synchronize()
    assert torch.equal(out, torch.full_like(out, 3 * 128))



@pytest.mark.parametrize("pack", [1, 4])
def test_elementwise_with_a_shared_view(target, pack):
    _nvidia(target)
    asm, cons = K.shared_loads_statement(pack)
    x = torch.randn((128, 64), device="cuda")
    y = torch.empty((128, 32), device="cuda")
    K.view_kernel[(1,)](x, y, False, pack, asm, cons)
    torch.cuda.synchronize()
    assert torch.equal(y, x[:, 32:])
