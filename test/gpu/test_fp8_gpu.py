"""fp8 in registers against torch's float8 types, every code and fresh random values:
conversions both ways (round to nearest even; saturation where torch gives NaN or inf is
checked against the format's largest finite value), f16 / bf16 sources, toward-zero rounding,
and arithmetic by promotion. Kernels: test/Python/fp8_kernels.py.

On sm_90 (an H200) the OCP formats (float8e4nv, float8e5) convert with the packed cvt
instructions and the FNUZ ones by Kiln's integer emulation: test_the_instructions_are_used pins
which, and the exhaustive sweeps below (every code up to f32 / f16 / bf16, every f16 and bf16
down, every f32 whose low 16 bits are 0x0000, 0x0001, 0x8000 or 0xFFFF down) compare the
hardware's results with the table-search reference of test/Python/test_fp8_conversions.py, done
here in torch: the nearest finite value, ties to the even code, saturating; a NaN result is
checked only to be a NaN (its bits are the instruction's, not necessarily the emulation's)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

import kiln  # noqa: E402
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


# kiln dtype name -> (torch dtype name, FNUZ: no negative zero, the only NaN 0x80)
_FNUZ = {"float8e4nv": False, "float8e5": False, "float8e4b8": True, "float8e5b16": True}


def test_the_instructions_are_used(nvidia):
    """The kernels the sweeps launch convert with cvt on sm_90a for the OCP formats (each
    instruction converts two values), and never for the FNUZ ones or on sm_80."""
    for kiln_name, fnuz in _FNUZ.items():
        fmt = getattr(kl, kiln_name)
        name = "e4m3x2" if kiln_name == "float8e4nv" else "e5m2x2"
        hw = nvidia == "cuda:sm_90a" and not fnuz
        down = kiln.compile(K.f32_to_codes, {"X": "*fp32", "Out": "*u8", "n": "i32"},
                            {"FMT": fmt, "RTZ": False, "BLOCK": 1024}, target=nvidia,
                            num_warps=4, cache=False).asm["ptx"]
        half = kiln.compile(K.from_half, {"X": "*fp16", "Out": "*u8", "n": "i32"},
                            {"FMT": fmt, "BLOCK": 1024}, target=nvidia, num_warps=4,
                            cache=False).asm["ptx"]
        up = kiln.compile(K.codes_to, {"Codes": "*u8", "Out": "*fp16"},
                          {"FMT": fmt, "DST": kl.float16, "N": 256}, target=nvidia,
                          num_warps=4, cache=False).asm["ptx"]
        rtz = kiln.compile(K.f32_to_codes, {"X": "*fp32", "Out": "*u8", "n": "i32"},
                           {"FMT": fmt, "RTZ": True, "BLOCK": 1024}, target=nvidia,
                           num_warps=4, cache=False).asm["ptx"]
        assert (f"cvt.rn.satfinite.{name}.f32" in down) == hw, kiln_name
        assert (f"cvt.rn.satfinite.{name}.f16x2" in half) == hw, kiln_name
        assert (f"cvt.rn.f16x2.{name}" in up) == hw, kiln_name
        assert "satfinite" not in rtz, kiln_name


def _reference_codes(x, tdt, fnuz):
    """(codes, NaN mask) of f32 tensor `x` rounded to `tdt`: the nearest finite value found in
    the format's sorted table (torch's own decoding of the 128 non-negative codes), ties to the
    even code, saturating past the largest finite value and for infinities."""
    codes = torch.arange(128, dtype=torch.uint8, device=x.device)
    vals = codes.view(tdt).double()
    keep = vals.isfinite()
    vals, codes = vals[keep], codes[keep].long()
    vals, order = vals.sort()
    codes = codes[order]
    a = x.abs().double()
    nan = x.isnan()
    a = torch.where(nan, torch.zeros_like(a), a)
    i = (torch.searchsorted(vals, a, right=True) - 1).clamp(0, len(vals) - 2)
    lo, hi = vals[i], vals[i + 1]
    up = ((hi - a) < (a - lo)) | (((hi - a) == (a - lo)) & (codes[i] % 2 == 1))
    code = torch.where(up, codes[i + 1], codes[i])
    code = torch.where(a >= vals[-1], codes[-1], code)
    sign = x.signbit() & ~(fnuz & (code == 0))
    return code | (sign.long() << 7), nan


def _check_codes(got_u8, x, tdt, fnuz, what):
    want, nan = _reference_codes(x, tdt, fnuz)
    got = got_u8.long()
    assert got[nan].to(torch.uint8).view(tdt).float().isnan().all(), what
    bad = (got != want) & ~nan
    assert not bad.any(), (f"{what}: {int(bad.sum())} wrong, e.g. inputs "
                           f"{[hex(v) for v in x[bad][:4].view(torch.int32).tolist()]} got "
                           f"{[hex(v) for v in got[bad][:4].tolist()]} want "
                           f"{[hex(v) for v in want[bad][:4].tolist()]}")


@pytest.mark.parametrize("kiln_name,torch_name,maxv,limit", FORMATS)
def test_f32_sweep_against_the_table(nvidia, kiln_name, torch_name, maxv, limit):
    """Every f32 whose low 16 bits are 0x0000, 0x0001, 0x8000 or 0xFFFF (each rounding boundary
    of each binade, the ties and their neighbours, subnormals, infinities, NaNs, both signs)."""
    tdt = _tdt(torch_name)
    hi = torch.arange(1 << 16, dtype=torch.int64, device="cuda") << 16
    bits = torch.cat([hi | low for low in (0x0000, 0x0001, 0x8000, 0xFFFF)])
    bits = torch.where(bits >= 1 << 31, bits - (1 << 32), bits)  # as int32, no overflow
    x = bits.to(torch.int32).view(torch.float32)
    out = torch.empty(x.numel(), dtype=torch.uint8, device="cuda")
    n = x.numel()
    K.f32_to_codes[((n + 1023) // 1024,)](x, out, n, FMT=getattr(kl, kiln_name), RTZ=False,
                                          BLOCK=1024)
    _check_codes(out, x, tdt, _FNUZ[kiln_name], f"{kiln_name} from f32 on {nvidia}")


@pytest.mark.parametrize("kiln_name,torch_name,maxv,limit", FORMATS)
@pytest.mark.parametrize("half", ["float16", "bfloat16"])
def test_every_half_against_the_table(nvidia, kiln_name, torch_name, maxv, limit, half):
    """All 65,536 f16 or bf16 bit patterns (infinities and NaNs too) to fp8: one rounding of the
    exact value, as from f32."""
    tdt = _tdt(torch_name)
    x = torch.arange(-(1 << 15), 1 << 15, dtype=torch.int32, device="cuda").to(torch.int16)
    x = x.view(getattr(torch, half))
    out = torch.empty(x.numel(), dtype=torch.uint8, device="cuda")
    n = x.numel()
    K.from_half[((n + 1023) // 1024,)](x, out, n, FMT=getattr(kl, kiln_name), BLOCK=1024)
    _check_codes(out, x.float(), tdt, _FNUZ[kiln_name], f"{kiln_name} from {half} on {nvidia}")


@pytest.mark.parametrize("kiln_name,torch_name,maxv,limit", FORMATS)
@pytest.mark.parametrize("half", ["float16", "bfloat16"])
def test_every_code_to_half(nvidia, kiln_name, torch_name, maxv, limit, half):
    """All 256 codes to f16 and bf16, exactly (NaN codes to a NaN)."""
    codes = torch.arange(256, dtype=torch.uint8, device="cuda")
    hdt = getattr(torch, half)
    out = torch.full((256,), 12345.0, device="cuda", dtype=hdt)
    K.codes_to[(1,)](codes, out, FMT=getattr(kl, kiln_name), DST=getattr(kl, half), N=256)
    ref = codes.view(_tdt(torch_name)).to(hdt)
    torch.testing.assert_close(out, ref, rtol=0, atol=0, equal_nan=True)


@pytest.mark.parametrize("kiln_name,torch_name,maxv,limit", FORMATS)
def test_abs_of_every_code(nvidia, kiln_name, torch_name, maxv, limit):
    """abs of every code: the value's magnitude, NaN staying NaN (FNUZ's only NaN is 0x80)."""
    codes = torch.arange(256, dtype=torch.uint8, device="cuda")
    out = torch.zeros(256, dtype=torch.uint8, device="cuda")
    K.codes_abs[(1,)](codes, out, FMT=getattr(kl, kiln_name), N=256)
    tdt = _tdt(torch_name)
    got = out.view(tdt).float()
    ref = codes.view(tdt).float().abs()
    torch.testing.assert_close(got, ref, rtol=0, atol=0, equal_nan=True)
    # The bits too: a positive code keeps its bits.
    pos = codes.view(tdt).float() > 0
    assert torch.equal(out[pos], codes[pos])


def _e4b15_model_from_f16_bits(bits):
    """Triton's f16 -> fp8e4b15 on int32 tensors of f16 bits (test_fp8e4b15.py checks this
    formula against a value-level model)."""
    mag = torch.clamp(bits & 0x7FFF, max=0x3F00)
    return (((mag * 2 + 0x80) | (bits & 0x8000)) >> 8) & 0xFF


def _triton_e4b15(x):
    """Triton's own conversion of x (f16 or f32) to fp8e4b15 codes, or None without Triton."""
    try:
        import triton
        import triton.language as tl
    except ImportError:
        return None

    @triton.jit
    def conv(X, Out, n, BLOCK: tl.constexpr):
        o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        v = tl.load(X + o, mask=o < n)
        tl.store(Out + o, v.to(tl.float8e4b15).to(tl.uint8, bitcast=True), mask=o < n)
    out = torch.zeros(x.numel(), dtype=torch.uint8, device="cuda")
    conv[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
    return out


def test_e4b15_every_code_up(nvidia):
    codes = torch.arange(256, dtype=torch.uint8, device="cuda")
    o16 = torch.zeros(256, dtype=torch.float16, device="cuda")
    o32 = torch.zeros(256, dtype=torch.float32, device="cuda")
    K.e4b15_codes_up[(1,)](codes, o16, o32, N=256)
    import test_fp8e4b15 as M
    ref = torch.tensor([M.e4b15_value(c) for c in range(256)], device="cuda")
    assert torch.equal(o32, ref) and torch.equal(o16.float(), ref)
    assert torch.equal(o16.view(torch.int16)[128:], (ref[128:].half()).view(torch.int16))


def test_e4b15_every_f16_down(nvidia):
    bits = torch.arange(1 << 16, dtype=torch.int32, device="cuda")
    x = bits.to(torch.int16).view(torch.float16)
    out = torch.zeros(1 << 16, dtype=torch.uint8, device="cuda")
    K.e4b15_down[(128,)](x, out, 1 << 16, BLOCK=512)
    assert torch.equal(out.int(), _e4b15_model_from_f16_bits(bits))
    tri = _triton_e4b15(x)
    if tri is not None:
        assert torch.equal(out, tri), "differs from Triton's conversion"


def test_e4b15_f32_down(nvidia):
    g = torch.Generator(device="cuda").manual_seed(7)
    x = torch.cat([torch.randn(1 << 16, device="cuda", generator=g),
                   torch.randn(1 << 14, device="cuda", generator=g) * 2.0 ** -12,
                   torch.tensor([0.0, -0.0, 1.75, -1.8125, 1.8125, 2.0, float("inf"),
                                 float("-inf"), float("nan"), 1e-30], device="cuda")])
    out = torch.zeros(x.numel(), dtype=torch.uint8, device="cuda")
    K.e4b15_down[(triton_cdiv(x.numel(), 512),)](x, out, x.numel(), BLOCK=512)
    # Triton rounds f32 to f16 toward zero first.
    h = x.half()
    h = torch.where(h.float().abs() > x.abs(), torch.nextafter(h, torch.zeros_like(h)), h)
    bits = h.view(torch.int16).int() & 0xFFFF
    assert torch.equal(out.int(), _e4b15_model_from_f16_bits(bits))
    tri = _triton_e4b15(x)
    if tri is not None:
        assert torch.equal(out, tri), "differs from Triton's conversion"


def triton_cdiv(a, b):
    return (a + b - 1) // b
