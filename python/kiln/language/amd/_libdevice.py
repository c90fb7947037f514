"""``extra.libdevice`` on AMD targets: the names Gluon's AMD libdevice has (57, with Triton
3.6's argument dtypes), as calls of the ROCm device libraries' ``__ocml_*`` functions
(``tile.extern_elementwise``), which the AMD backend links from the machine's ROCm
installation (``KILN_ROCM_DEVICE_LIBS`` names another ``amdgcn/bitcode`` directory).

Five of them are not ocml's in Triton either, and Kiln computes them itself: ``abs`` (also
integers), ``fast_expf``, ``fast_dividef``, ``fast_tanhf`` (ocml's ``tanh``) and ``llrint``
(ocml's ``rint``, then to int64). Where no ROCm device libraries are installed, the names
Kiln's own math covers (``exp``, ``log``, ``sqrt``, ``erf``, ...) are computed by it; the
others are an error at the call that says what to install.
"""

from __future__ import annotations

import os

from .. import _core as core
from .._extern import extern_call, match_signature, parse_signatures

# name: argument dtypes -> ocml symbol, result dtype (one line per signature).
SIGNATURES = """\
floor: fp32 -> __ocml_floor_f32 fp32
floor: fp64 -> __ocml_floor_f64 fp64
rsqrt: fp32 -> __ocml_rsqrt_f32 fp32
rsqrt: fp64 -> __ocml_rsqrt_f64 fp64
ceil: fp32 -> __ocml_ceil_f32 fp32
ceil: fp64 -> __ocml_ceil_f64 fp64
trunc: fp32 -> __ocml_trunc_f32 fp32
trunc: fp64 -> __ocml_trunc_f64 fp64
exp2: fp32 -> __ocml_exp2_f32 fp32
exp2: fp64 -> __ocml_exp2_f64 fp64
exp: fp32 -> __ocml_exp_f32 fp32
exp: fp64 -> __ocml_exp_f64 fp64
sqrt: fp32 -> __ocml_sqrt_f32 fp32
sqrt: fp64 -> __ocml_sqrt_f64 fp64
rint: fp32 -> __ocml_rint_f32 fp32
rint: fp64 -> __ocml_rint_f64 fp64
nearbyint: fp32 -> __ocml_nearbyint_f32 fp32
nearbyint: fp64 -> __ocml_nearbyint_f64 fp64
isnan: fp32 -> __ocml_isnan_f32 int32
isnan: fp64 -> __ocml_isnan_f64 int32
signbit: fp32 -> __ocml_signbit_f32 int32
signbit: fp64 -> __ocml_signbit_f64 int32
copysign: fp32,fp32 -> __ocml_copysign_f32 fp32
copysign: fp64,fp64 -> __ocml_copysign_f64 fp64
isinf: fp32 -> __ocml_isinf_f32 int32
isinf: fp64 -> __ocml_isinf_f64 int32
nextafter: fp32,fp32 -> __ocml_nextafter_f32 fp32
nextafter: fp64,fp64 -> __ocml_nextafter_f64 fp64
sin: fp32 -> __ocml_sin_f32 fp32
sin: fp64 -> __ocml_sin_f64 fp64
cos: fp32 -> __ocml_cos_f32 fp32
cos: fp64 -> __ocml_cos_f64 fp64
tan: fp32 -> __ocml_tan_f32 fp32
tan: fp64 -> __ocml_tan_f64 fp64
log2: fp32 -> __ocml_log2_f32 fp32
log2: fp64 -> __ocml_log2_f64 fp64
cosh: fp32 -> __ocml_cosh_f32 fp32
cosh: fp64 -> __ocml_cosh_f64 fp64
sinh: fp32 -> __ocml_sinh_f32 fp32
sinh: fp64 -> __ocml_sinh_f64 fp64
tanh: fp32 -> __ocml_tanh_f32 fp32
tanh: fp64 -> __ocml_tanh_f64 fp64
atan2: fp32,fp32 -> __ocml_atan2_f32 fp32
atan2: fp64,fp64 -> __ocml_atan2_f64 fp64
atan: fp32 -> __ocml_atan_f32 fp32
atan: fp64 -> __ocml_atan_f64 fp64
asin: fp32 -> __ocml_asin_f32 fp32
asin: fp64 -> __ocml_asin_f64 fp64
acos: fp32 -> __ocml_acos_f32 fp32
acos: fp64 -> __ocml_acos_f64 fp64
log: fp32 -> __ocml_log_f32 fp32
log: fp64 -> __ocml_log_f64 fp64
log10: fp32 -> __ocml_log10_f32 fp32
log10: fp64 -> __ocml_log10_f64 fp64
log1p: fp32 -> __ocml_log1p_f32 fp32
log1p: fp64 -> __ocml_log1p_f64 fp64
acosh: fp32 -> __ocml_acosh_f32 fp32
acosh: fp64 -> __ocml_acosh_f64 fp64
asinh: fp32 -> __ocml_asinh_f32 fp32
asinh: fp64 -> __ocml_asinh_f64 fp64
atanh: fp32 -> __ocml_atanh_f32 fp32
atanh: fp64 -> __ocml_atanh_f64 fp64
expm1: fp32 -> __ocml_expm1_f32 fp32
expm1: fp64 -> __ocml_expm1_f64 fp64
hypot: fp32,fp32 -> __ocml_hypot_f32 fp32
hypot: fp64,fp64 -> __ocml_hypot_f64 fp64
j0: fp32 -> __ocml_j0_f32 fp32
j0: fp64 -> __ocml_j0_f64 fp64
j1: fp32 -> __ocml_j1_f32 fp32
j1: fp64 -> __ocml_j1_f64 fp64
y0: fp32 -> __ocml_y0_f32 fp32
y0: fp64 -> __ocml_y0_f64 fp64
y1: fp32 -> __ocml_y1_f32 fp32
y1: fp64 -> __ocml_y1_f64 fp64
cyl_bessel_i0: fp32 -> __ocml_i0_f32 fp32
cyl_bessel_i0: fp64 -> __ocml_i0_f64 fp64
cyl_bessel_i1: fp32 -> __ocml_i1_f32 fp32
cyl_bessel_i1: fp64 -> __ocml_i1_f64 fp64
erf: fp32 -> __ocml_erf_f32 fp32
erf: fp64 -> __ocml_erf_f64 fp64
erfinv: fp32 -> __ocml_erfinv_f32 fp32
erfinv: fp64 -> __ocml_erfinv_f64 fp64
erfc: fp32 -> __ocml_erfc_f32 fp32
erfc: fp64 -> __ocml_erfc_f64 fp64
erfcx: fp32 -> __ocml_erfcx_f32 fp32
erfcx: fp64 -> __ocml_erfcx_f64 fp64
lgamma: fp32 -> __ocml_lgamma_f32 fp32
lgamma: fp64 -> __ocml_lgamma_f64 fp64
ldexp: fp32,int32 -> __ocml_ldexp_f32 fp32
ldexp: fp64,int32 -> __ocml_ldexp_f64 fp64
fmod: fp32,fp32 -> __ocml_fmod_f32 fp32
fmod: fp64,fp64 -> __ocml_fmod_f64 fp64
fma: fp32,fp32,fp32 -> __ocml_fma_f32 fp32
fma: fp64,fp64,fp64 -> __ocml_fma_f64 fp64
pow: fp32,int32 -> __ocml_pown_f32 fp32
pow: fp64,int32 -> __ocml_pown_f64 fp64
pow: fp32,fp32 -> __ocml_pow_f32 fp32
pow: fp64,fp64 -> __ocml_pow_f64 fp64
ilogb: fp32 -> __ocml_ilogb_f32 int32
ilogb: fp64 -> __ocml_ilogb_f64 int32
round: fp32 -> __ocml_round_f32 fp32
round: fp64 -> __ocml_round_f64 fp64
finitef: fp32 -> __ocml_isfinite_f32 int32
isfinited: fp64 -> __ocml_isfinite_f64 int32
"""


TABLE = parse_signatures(SIGNATURES)
#: Gluon's AMD libdevice names Kiln computes without the libraries, and their dtypes.
OWN = {"abs": ("int32", "int64", "fp32", "fp64"), "fast_expf": ("fp32",),
       "fast_dividef": ("fp32",), "fast_tanhf": ("fp32",), "llrint": ("fp32", "fp64")}
#: Every name of Gluon's libdevice on AMD targets.
NAMES = sorted(set(TABLE) | set(OWN))

# Where the AMD backend (DeviceLibs.cpp) looks for ocml.bc, in its order.
_SYSTEM_DIRS = ("/opt/rocm", "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib")


def device_libs_dir():
    """The ROCm device libraries' bitcode directory the AMD backend links from, or None:
    ``$KILN_ROCM_DEVICE_LIBS`` (as given), else ``$ROCM_PATH``, ``/opt/rocm`` and the
    distribution's paths, each with ``amdgcn/bitcode`` below it, holding ocml.bc."""
    user = os.environ.get("KILN_ROCM_DEVICE_LIBS")
    if user:
        return user if os.path.isfile(os.path.join(user, "ocml.bc")) else None
    roots = ([os.environ["ROCM_PATH"]] if os.environ.get("ROCM_PATH") else []) + \
        list(_SYSTEM_DIRS)
    for root in roots:
        d = os.path.join(root, "amdgcn", "bitcode")
        if os.path.isfile(os.path.join(d, "ocml.bc")):
            return d
    return None


def _missing(name, sem):
    user = os.environ.get("KILN_ROCM_DEVICE_LIBS")
    where = (f"KILN_ROCM_DEVICE_LIBS={user} holds no ocml.bc" if user else
             "no ROCm device libraries were found (ocml.bc under $ROCM_PATH, /opt/rocm or "
             "/usr/lib/<arch>/amdgcn/bitcode)")
    return TypeError(f"libdevice.{name} on {sem.target} calls the ROCm device libraries, and "
                     f"{where}: install them (ROCm, or Debian's rocm-device-libs) or set "
                     f"KILN_ROCM_DEVICE_LIBS to their amdgcn/bitcode directory")


def _own(name, values, sem, fallback):
    x = values[0]
    if name == "abs":
        return sem.math1("abs", x)
    if name == "fast_expf":
        return sem.math1("exp", x)
    if name == "fast_dividef":
        return sem.binary("truediv", x, values[1])
    if name == "fast_tanhf":
        return call("tanh", [x], sem, fallback)
    # llrint: to nearest (ties to even), then to int64
    return sem.cast(call("rint", [x], sem, fallback), core.int64)


def call(name, args, sem, fallback=None):
    """Gluon's AMD ``libdevice.<name>(*args)``. ``fallback(name, args)`` computes a name with
    Kiln's own math where no ROCm device libraries are installed (None: it cannot)."""
    signatures = TABLE.get(name, {})
    if name in OWN:
        signatures = {(d,) * (2 if name == "fast_dividef" else 1): None for d in OWN[name]}
    values, key = match_signature(f"libdevice.{name}", args, signatures, sem,
                                  " on AMD targets")
    if name in OWN:
        return _own(name, values, sem, fallback)
    if device_libs_dir() is None:
        out = fallback(name, values) if fallback else None
        if out is None:
            raise _missing(name, sem)
        return out
    symbol, ret = signatures[key]
    return extern_call(symbol, values, ret, sem)


def library_erf(sem, x):
    """erf of an f32 tensor from ocml (as Triton on AMD), or None where the ROCm device
    libraries are not installed."""
    if device_libs_dir() is None:
        return None
    return extern_call("__ocml_erf_f32", [x], core.float32, sem)
