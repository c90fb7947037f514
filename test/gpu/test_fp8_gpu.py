"""fp8 in registers against torch's float8 types, every code and fresh random values:
conversions both ways (round to nearest even; saturation where torch gives NaN or inf is
checked against the format's largest finite value), f16 / bf16 sources, toward-zero rounding,
and arithmetic by promotion. Kernels: test/Python/fp8_kernels.py."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

import kiln.language as kl  # noqa: E402
import fp8_kernels as K  # noqa: E402

# kiln dtype name, torch dtype name, largest finite value, first value torch does not round to a
# finite one (past it torch gives NaN or inf where Kiln saturates)
FORMATS = [("float8e4nv", "float8_e4m3fn", 448.0, 464.0),
           ("float8e5", "float8_e5m2", 57344.0, 61440.0),
           ("float8e4b8", "float8_e4m3fnuz", 240.0, 248.0),
           ("float8e5b16", "float8_e5m2fnuz", 57344.0, 61440.0)]



def _tdt(name):
    dt = getattr(torch, name, None)
    if dt is None:
        pytest.skip(f"this torch has no {name}")
    return dt


@pytest.mark.parametrize("kiln_name,torch_name,maxv,limit", FORMATS)
def test_every_code_to_f32(nvidia, kiln_name, torch_name, maxv, limit):
    codes = torch.arange(256, dtype=torch.uint8, device="cuda")
    out = torch.full((256,), 12345.0, device="cuda")
    K.codes_to_f32[(1,)](codes, out, FMT=getattr(kl, kiln_name), N=256)
    ref = codes.view(_tdt(torch_name)).float()
    torch.testing.assert_close(out, ref, rtol=0, atol=0, equal_nan=True)


def _values(maxv, n=1 << 16):
    g = torch.Generator(device="cuda").manual_seed(1234)
    x = torch.randn(n, device="cuda", generator=g) * maxv / 8
    tiny = torch.randn(n // 4, device="cuda", generator=g) * 2.0 ** -8
    edges = torch.tensor([0.0, -0.0, maxv, -maxv, maxv * 1.03, float("inf"), float("-inf"),
                          float("nan"), 1e-30, -1e-30], device="cuda")
    return torch.cat([x, tiny, edges])


@pytest.mark.parametrize("kiln_name,torch_name,maxv,limit", FORMATS)
def test_f32_to_fp8_nearest_even_saturating(nvidia, kiln_name, torch_name, maxv, limit):
    tdt = _tdt(torch_name)
    x = _values(maxv)
    out = torch.empty(x.numel(), dtype=torch.uint8, device="cuda")
    n = x.numel()
    K.f32_to_codes[((n + 1023) // 1024,)](x, out, n, FMT=getattr(kl, kiln_name), RTZ=False,
                                          BLOCK=1024)
    got = out.view(tdt).float()
    inside = x.abs() < limit
    torch.testing.assert_close(got[inside], x[inside].to(tdt).float(), rtol=0, atol=0)
    big = (x.abs() >= limit) & ~x.isnan()
    assert big.any()
    torch.testing.assert_close(got[big], maxv * x[big].sign(), rtol=0, atol=0)
    assert got[x.isnan()].isnan().all()


@pytest.mark.parametrize("kiln_name,torch_name,maxv,limit", FORMATS[:2])
@pytest.mark.parametrize("half", ["float16", "bfloat16"])
def test_half_to_fp8(nvidia, kiln_name, torch_name, maxv, limit, half):
    tdt = _tdt(torch_name)
    x = (_values(maxv)[:-4]).to(getattr(torch, half))  # finite values
    x = x[x.float().abs() < limit]
    out = torch.empty(x.numel(), dtype=torch.uint8, device="cuda")
    n = x.numel()
    K.from_half[((n + 1023) // 1024,)](x, out, n, FMT=getattr(kl, kiln_name), BLOCK=1024)
    torch.testing.assert_close(out.view(tdt).float(), x.float().to(tdt).float(), rtol=0,
                               atol=0)


@pytest.mark.parametrize("kiln_name,torch_name,maxv,limit", FORMATS)
def test_toward_zero(nvidia, kiln_name, torch_name, maxv, limit):
    tdt = _tdt(torch_name)
    x = _values(maxv)
    x = x[x.isfinite() & (x.abs() < maxv)]
    out = torch.empty(x.numel(), dtype=torch.uint8, device="cuda")
    n = x.numel()
    K.f32_to_codes[((n + 1023) // 1024,)](x, out, n, FMT=getattr(kl, kiln_name), RTZ=True,
                                          BLOCK=1024)
    got = out.view(tdt).float()
    # Toward zero: never larger in magnitude, and the next code up is past |x|.
    assert (got.abs() <= x.abs()).all()
    nxt = (out.to(torch.int32) + 1).clamp(max=255).to(torch.uint8).view(tdt).float()
    pos = x > 0
    assert (nxt[pos] > x[pos]).all()


@pytest.mark.parametrize("kiln_name,torch_name,maxv,limit", FORMATS)
def test_arithmetic_by_promotion(nvidia, kiln_name, torch_name, maxv, limit):
    tdt = _tdt(torch_name)
    g = torch.Generator(device="cuda").manual_seed(7)
    a = (torch.randn(1024, device="cuda", generator=g) * 3).to(tdt)
    b = (torch.randn(1024, device="cuda", generator=g) * 3).to(tdt)
    out = torch.empty(1024, dtype=torch.uint8, device="cuda")
    cmp = torch.empty(1024, dtype=torch.int8, device="cuda")
    K.fp8_arith[(1,)](a.view(torch.uint8), b.view(torch.uint8), out, cmp,
                      FMT=getattr(kl, kiln_name), N=1024)
    af, bf = a.float(), b.float()
    r = ((af * bf).to(tdt).float() + 1.0).to(tdt).float()
    r = torch.maximum(r, -af)
    torch.testing.assert_close(out.view(tdt).float(), r, rtol=0, atol=0)
    want = (af < bf).to(torch.int8) + 2 * (af * 0.5 > bf).to(torch.int8)
    assert torch.equal(cmp, want)
