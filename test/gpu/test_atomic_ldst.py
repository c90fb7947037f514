"""kl.atomic_load / atomic_store / atomic_poll (Gluon's, after Triton 3.8) on an NVIDIA GPU:
masked round trips of every width against torch on fresh random inputs, a flag handed from
one CTA to another (release store, acquire poll: the data written before the flag is what
the poller reads), and the poll's timeout. Skips cleanly without torch or a GPU."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

import kiln  # noqa: E402
import kiln.language as kl  # noqa: E402


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
        pytest.skip("atomic_load / atomic_store are NVIDIA-only in Kiln")
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
        pytest.skip("atomic_poll is NVIDIA-only in Kiln")
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
        pytest.skip("atomic_poll is NVIDIA-only in Kiln")
    flag = torch.full((1,), -3, device="cuda", dtype=dtype)
    res = torch.full((1,), 7, device="cuda", dtype=torch.int32)
    poll_timeout_kernel[(1,)](flag, res, -3, 0, num_warps=1)  # the value is there: true
    torch.cuda.synchronize()
    assert res.item() == 1
    poll_timeout_kernel[(1,)](flag, res, 5, 20_000, num_warps=1)  # never: false after 20 us
    torch.cuda.synchronize()
    assert res.item() == 0
