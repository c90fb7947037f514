"""fpsan.embed / unembed (Gluon's, after Triton 3.8) on a GPU: the payloads of random bit
patterns of every float type (NaNs, infinities, zeros and subnormals included) against the
formula computed in Python, and unembed(embed(x)) equal to x bit for bit. Skips cleanly
without torch or a GPU."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

import kiln  # noqa: E402
import kiln.language as kl  # noqa: E402
from kiln.language import fpsan  # noqa: E402
from gluon_later_kernels import reference_embed as reference  # noqa: E402


@kiln.jit
def round_trip(x_ptr, p_ptr, y_ptr, DT: kl.constexpr, WARP: kl.constexpr):
    offs = kl.arange(0, 8 * WARP, kl.BlockedLayout([2], [WARP], [4], [0]))
    x = kl.load(x_ptr + offs)
    p = fpsan.embed(x)
    kl.store(p_ptr + offs, p)
    kl.store(y_ptr + offs, fpsan.unembed(p, DT))


TYPES = [(torch.float32, torch.int32, kl.float32), (torch.float16, torch.int16, kl.float16),
         (torch.bfloat16, torch.int16, kl.bfloat16), (torch.float64, torch.int64, kl.float64),
         (torch.float8_e4m3fn, torch.int8, kl.float8e4nv),
         (torch.float8_e5m2, torch.int8, kl.float8e5)]


@pytest.mark.parametrize("ft,it,dt", TYPES, ids=[str(t[0]) for t in TYPES])
def test_payloads_and_round_trip(target, ft, it, dt):
    warp = 64 if target.startswith("hip") else 32
    n = 8 * warp
    w = dt.primitive_bitwidth
    bits = torch.randint(-(1 << (w - 1)), (1 << (w - 1)) - 1, (n,), dtype=torch.int64)
    bits[:4] = torch.tensor([0, -(1 << (w - 1)), 1, -1])  # +0, -0, and two tiny magnitudes
    x = bits.to(it).view(ft).cuda()
    p = torch.empty(n, dtype=it, device="cuda")
    y = torch.empty(n, dtype=ft, device="cuda")
    round_trip[(1,)](x, p, y, dt, warp, num_warps=4)
    torch.cuda.synchronize()
    mask = (1 << w) - 1
    want = [reference(int(b) & mask, dt) for b in bits.tolist()]
    got = [int(v) & mask for v in p.cpu().to(torch.int64).tolist()]
    assert got == want
    assert torch.equal(y.view(it).cpu(), x.view(it).cpu())
