"""kl.atomic_load / atomic_store / atomic_poll (Gluon's, after Triton 3.8) on an NVIDIA GPU:
masked round trips of every width against torch on fresh random inputs (vectorized ones too),
a flag handed from
one CTA to another (release store, acquire poll: the data written before the flag is what
the poller reads), and the poll's timeout. Skips cleanly without torch or a GPU."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

import kiln  # noqa: E402
import kiln.language as kl  # noqa: E402
import gluon_later_kernels as K  # noqa: E402


@kiln.jit
def copy_kernel(src, dst, n, N: kl.constexpr):
    offs = kl.program_id(0) * N + kl.arange(0, N, kl.BlockedLayout([1], [32], [4], [0]))
    m = offs < n
    v = kl.atomic_load(src + offs, mask=m, sem="acquire", scope="gpu")
    kl.atomic_store(dst + offs, v, mask=m, sem="release", scope="gpu")


DTYPES = [torch.bool, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16,
          torch.bfloat16, torch.float32, torch.float64]


def _random(n, dtype):
    if dtype == torch.bool:
        return torch.rand(n, device="cuda") < 0.5
    if dtype.is_floating_point:
        return torch.randn(n, device="cuda").to(dtype)
    info = torch.iinfo(dtype)
    return torch.randint(info.min, info.max, (n,), device="cuda", dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_masked_round_trip(target, dtype):
    if not target.startswith("cuda"):
        pytest.skip("Kiln refuses atomic_load / atomic_store on AMD targets at the call (a stated "
                    "difference: docs/gluon-coverage-later.md)")
    n = 1000
    src = _random(n + 24, dtype)
    dst = _random(n + 24, dtype)
    keep = dst.clone()
    copy_kernel[((n + 127) // 128,)](src, dst, n, 128, num_warps=4)
    torch.cuda.synchronize()
    assert torch.equal(dst[:n], src[:n])
    assert torch.equal(dst[n:], keep[n:])


@kiln.jit
def handoff_kernel(data, flag, out, ok, N: kl.constexpr):
    layout: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    offs = kl.arange(0, N, layout)
    if kl.program_id(0) == 1:
        kl.store(data + offs, offs * 3 + 1)  # plain stores, published by the release
        kl.atomic_store(flag, 1, sem="release")
    else:
        seen = kl.atomic_poll(flag, 1, timeout_ns=2_000_000_000)
        kl.store(ok, seen.to(kl.int32))
        kl.store(out + offs, kl.load(data + offs))


@pytest.mark.parametrize("rep", range(3))
def test_release_store_acquire_poll(target, rep):
    if not target.startswith("cuda"):
        pytest.skip("Kiln refuses atomic_poll on AMD targets at the call (a stated difference: "
                    "docs/gluon-coverage-later.md)")
    N = 1024
    data = torch.zeros(N, device="cuda", dtype=torch.int32)
    flag = torch.zeros(1, device="cuda", dtype=torch.int32)
    out = torch.full((N,), -1, device="cuda", dtype=torch.int32)
    ok = torch.zeros(1, device="cuda", dtype=torch.int32)
    handoff_kernel[(2,)](data, flag, out, ok, N, num_warps=4)
    torch.cuda.synchronize()
    assert ok.item() == 1
    ref = torch.arange(N, device="cuda", dtype=torch.int32) * 3 + 1
    assert torch.equal(out, ref)


@kiln.jit
def poll_timeout_kernel(flag, res, expect, t):
    kl.store(res, kl.atomic_poll(flag, expect, sem="relaxed", timeout_ns=t).to(kl.int32))


@pytest.mark.parametrize("dtype", [torch.int16, torch.int32, torch.int64], ids=str)
def test_poll_timeout(target, dtype):
    if not target.startswith("cuda"):
        pytest.skip("Kiln refuses atomic_poll on AMD targets at the call (a stated difference: "
                    "docs/gluon-coverage-later.md)")
    flag = torch.full((1,), -3, device="cuda", dtype=dtype)
    res = torch.full((1,), 7, device="cuda", dtype=torch.int32)
    poll_timeout_kernel[(1,)](flag, res, -3, 0, num_warps=1)  # the value is there: true
    torch.cuda.synchronize()
    assert res.item() == 1
    poll_timeout_kernel[(1,)](flag, res, 5, 20_000, num_warps=1)  # never: false after 20 us
    torch.cuda.synchronize()
    assert res.item() == 0


@pytest.mark.parametrize("store", [False, True])
@pytest.mark.parametrize("dtype", [torch.bool, torch.int8, torch.int16, torch.int32,
                                   torch.int64, torch.float16, torch.float32, torch.float64],
                         ids=str)
@pytest.mark.parametrize("stride,offset,group", [(1, 0, 0), (1, 0, 16), (1, 0, 8), (1, 0, 4),
                                                 (1, 0, 2), (1, 0, 1), (1, 1, 16), (2, 0, 16)])
def test_vector_accesses_move_the_right_elements(target, store, dtype, stride, offset, group):
    # Vectors of up to 16 bytes (see test/Python/test_atomic_ldst_dsl.py): every element in
    # its place, masked-off ones untouched, against torch on fresh random data.
    if not target.startswith("cuda"):
        pytest.skip("Kiln refuses atomic_load / atomic_store on AMD targets at the call (a stated "
                    "difference: docs/gluon-coverage-later.md)")
    src = _random(1026, dtype)
    out = _random(1026 if store else 512, dtype)
    x = torch.arange(512, device="cuda")
    mask = x // group % 2 == 0 if group else torch.ones_like(x, dtype=torch.bool)
    expected = out.clone()
    if store:
        expected[x[mask] * stride + offset] = src[x[mask]]
    else:
        expected = torch.where(mask, src[x * stride + offset], out)
    K.vector_kernel[(1,)](src, out, stride, offset, group, store, num_warps=1)
    torch.cuda.synchronize()
    assert torch.equal(out, expected)


@kiln.jit
def poll_tensor_kernel(flags, out, BLOCK: kl.constexpr, TIMEOUT: kl.constexpr,
                       layout: kl.constexpr):
    offs = kl.arange(0, BLOCK, layout=layout)
    matched = kl.atomic_poll(flags + offs, offs + 1, timeout_ns=TIMEOUT)
    kl.store(out + offs, matched)


@pytest.mark.parametrize("block", [1, 16, 128, 512])
@pytest.mark.parametrize("num_warps", [4, 8])
@pytest.mark.parametrize("timeout", [None, 0])
def test_poll_over_a_tensor(target, block, num_warps, timeout):
    if not target.startswith("cuda"):
        pytest.skip("Kiln refuses atomic_poll on AMD targets at the call (a stated difference: "
                    "docs/gluon-coverage-later.md)")
    expected = torch.arange(1, block + 1, dtype=torch.int32, device="cuda")
    flags = expected.clone()
    if timeout is not None:
        flags[::2] = 0  # never matched: false after one read
    out = torch.empty(block, dtype=torch.bool, device="cuda")
    layout = kl.BlockedLayout([1], [32], [num_warps], [0])
    poll_tensor_kernel[(1,)](flags, out, block, timeout, layout, num_warps=num_warps)
    torch.cuda.synchronize()
    assert torch.equal(out, flags == expected)


@kiln.jit
def poll_handoff_kernel(flags, payload, out, BLOCK: kl.constexpr):
    offs = kl.arange(0, BLOCK, layout=kl.BlockedLayout([1], [32], [4], [0]))
    if kl.program_id(0) == 0:
        matched = kl.atomic_poll(flags + offs, 1, scope="gpu")
        values = kl.where(matched, kl.load(payload + offs), -1)
        kl.store(out + offs, values)
    else:
        kl.store(payload + offs, offs + 1)
        kl.atomic_xchg(flags + offs, 1, sem="release", scope="gpu")


@pytest.mark.parametrize("block", [16, 128, 512])
def test_poll_over_a_tensor_acquires(target, block):
    if not target.startswith("cuda"):
        pytest.skip("Kiln refuses atomic_poll on AMD targets at the call (a stated difference: "
                    "docs/gluon-coverage-later.md)")
    flags = torch.zeros(block, dtype=torch.int32, device="cuda")
    payload = torch.zeros_like(flags)
    out = torch.zeros_like(flags)
    poll_handoff_kernel[(2,)](flags, payload, out, block, num_warps=4)
    torch.cuda.synchronize()
    assert torch.equal(out, torch.arange(1, block + 1, dtype=torch.int32, device="cuda"))
