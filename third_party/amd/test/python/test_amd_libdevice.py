"""Gluon's ``extra.libdevice`` on AMD targets: every signature of its 57 names compiles for
gfx942 (and a sample for gfx950) as tile.extern_elementwise ops of ocml's symbols, the ROCm
device libraries' bitcode is linked and inlined (no call is left undefined) and lld links the
code object. Without the libraries the names Kiln's own math covers still compile and the
others are an error at the user's call; a broken library is an error, not a crash."""

import collections
import os
import subprocess

import pytest

import kiln
import kiln.language as kl
from kiln.language.amd import _libdevice as amd_libdevice
from kiln.language.extra import libdevice

import compiled
import located

pytestmark = compiled.needs_compiler
HERE = os.path.abspath(__file__)
LIBS = amd_libdevice.device_libs_dir()
needs_libs = pytest.mark.skipif(LIBS is None, reason="no ROCm device libraries (ocml.bc): "
                                "scripts/setup.sh installs Debian's rocm-device-libs")
L = kl.BlockedLayout([1], [64], [4], [0])
_PTR = {"fp32": "*fp32", "fp64": "*fp64", "int32": "*i32", "int64": "*i64"}


@kiln.jit
def apply(a, b, c, out, NAMES: kl.constexpr, ARITY: kl.constexpr, N: kl.constexpr):
    """out[i * N + j] = NAMES[i](a[j], b[j], ...) for the first ARITY inputs."""
    offs = kl.arange(0, N, L)
    w = kl.load(a + offs)
    x = kl.load(b + offs)
    y = kl.load(c + offs)
    for i in kl.static_range(len(NAMES)):
        f = getattr(libdevice, NAMES[i])
        if ARITY == 1:
            r = f(w)
        elif ARITY == 2:
            r = f(w, x)
        else:
            r = f(w, x, y)
        kl.store(out + i * N + offs, r)


def _groups():
    """(argument dtypes, result dtype) -> [(name, ocml symbol or None)]."""
    out = collections.defaultdict(list)
    for name, sigs in amd_libdevice.TABLE.items():
        for args, (symbol, ret) in sigs.items():
            out[(args, ret)].append((name, symbol))
    for name, dtypes in amd_libdevice.OWN.items():
        for d in dtypes:
            arity = 2 if name == "fast_dividef" else 1
            ret = "int64" if name == "llrint" else d
            out[((d,) * arity, ret)].append((name, None))
    return out


GROUPS = _groups()


def test_the_names_are_gluons_amd_libdevice():
    assert len(amd_libdevice.NAMES) == 57
    assert set(amd_libdevice.NAMES) <= set(libdevice.__all__)


def _compile(key, target, names=None):
    args, ret = key
    names = names or tuple(n for n, _ in GROUPS[key])
    ptrs = [_PTR[a] for a in args] + [_PTR[args[-1]]] * (3 - len(args))
    sig = dict(zip("abc", ptrs), out=_PTR[ret])
    return kiln.compile(apply, sig, dict(NAMES=names, ARITY=len(args), N=256), target=target,
                        num_warps=4, cache=False)


@needs_libs
@pytest.mark.parametrize("key", sorted(GROUPS), ids=lambda k: ",".join(k[0]) + "->" + k[1])
def test_every_signature_links(key):
    k = _compile(key, "hip:gfx942")
    for _, symbol in GROUPS[key]:
        if symbol:
            assert f'tile.extern_elementwise "{symbol}"' in k.asm["tile"], symbol
    llir = k.asm["llir"]
    # linked, internal and inlined: the kernel is the module's only function
    assert "declare" not in "".join(l for l in llir.splitlines() if "@__o" in l), llir[:2000]
    assert llir.count("define ") == 1
    assert "s_swappc" not in k.asm["amdgcn"] and k.asm["hsaco"]


@needs_libs
def test_gfx950_and_erf_from_ocml():
    k = _compile((("fp32",), "fp32"), "hip:gfx950", names=("erf", "lgamma", "tanh"))
    assert k.asm["hsaco"]
    # kl.erf on AMD computes with ocml's erf too, as Triton
    erf = _compile((("fp32",), "fp32"), "hip:gfx942", names=("erf",))
    assert '"__ocml_erf_f32"' in erf.asm["tile"]


@kiln.jit
def uses_erf_and_pow(x, y, out, POW: kl.constexpr):
    offs = kl.arange(0, 256, L)
    v = kl.erf(kl.load(x + offs))
    if POW:
        v = libdevice.pow(v, kl.load(y + offs))  # E:pow
    kl.store(out + offs, v)


@kiln.jit
def nvidia_only(x, out):
    offs = kl.arange(0, 256, L)
    kl.store(out + offs, libdevice.popc(kl.load(x + offs)))  # E:popc


def test_without_the_libraries(monkeypatch, tmp_path):
    monkeypatch.setenv("KILN_ROCM_DEVICE_LIBS", str(tmp_path))
    sig = {"x": "*fp32", "y": "*fp32", "out": "*fp32"}
    k = kiln.compile(uses_erf_and_pow, sig, {"POW": False}, target="hip:gfx942", cache=False)
    assert "math.erf" in k.asm["tile"]  # Kiln's own polynomial
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(uses_erf_and_pow, sig, {"POW": True}, target="hip:gfx942", cache=False)
    located.assert_located(ei.value, HERE, "E:pow", "libdevice.pow",
                           rf"libdevice.pow on hip:gfx942 calls the ROCm device libraries, and "
                           rf"KILN_ROCM_DEVICE_LIBS={tmp_path} holds no ocml.bc: install them "
                           rf"\(ROCm, or Debian's rocm-device-libs\) or set "
                           rf"KILN_ROCM_DEVICE_LIBS to their amdgcn/bitcode directory",
                           kiln.CompilationError)


def test_names_of_one_vendor_only():
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(nvidia_only, {"x": "*i32", "out": "*i32"}, {}, target="hip:gfx942",
                     cache=False)
    located.assert_located(ei.value, HERE, "E:popc", "libdevice.popc",
                           r"libdevice.popc calls NVIDIA's libdevice, which is not linked for "
                           r"hip:gfx942; this target's libdevice has: abs, acos, .*",
                           kiln.CompilationError)


def _bitcode(tmp_path, text):
    """``text`` (LLVM IR) assembled into tmp_path/ocml.bc."""
    tool = os.path.join(os.environ.get("KILN_LLVM_BIN", "/usr/lib/llvm-22/bin"), "llvm-as")
    if not os.path.exists(tool):
        pytest.skip("llvm-as is not installed")
    src = tmp_path / "ocml.ll"
    src.write_text(text)
    subprocess.run([tool, str(src), "-o", str(tmp_path / "ocml.bc")], check=True)


@pytest.mark.parametrize("content,message", [
    (None, r"'.*ocml.bc' is not LLVM bitcode this Kiln reads: .*"),
    ('target triple = "amdgcn-amd-amdhsa"\n'
     'define float @__ocml_erf_f32(float %x) {\n  ret float %x\n}\n',
     r"'.*ocml.bc' defines no function '__ocml_pow_f32'"),
    ('target triple = "amdgcn-amd-amdhsa"\n@__oclc_mystery = external addrspace(4) constant i8\n'
     'define float @__ocml_pow_f32(float %x, float %y) {\n  %m = load i8, ptr addrspace(4) '
     '@__oclc_mystery\n  %b = icmp ne i8 %m, 0\n  %r = select i1 %b, float %x, float %y\n'
     '  ret float %r\n}\n'
     'define float @__ocml_erf_f32(float %x) {\n  ret float %x\n}\n',
     r"the ROCm device libraries in '.*' read '__oclc_mystery', a control constant Kiln "
     r"does not define"),
], ids=["not-bitcode", "missing-function", "unknown-control-constant"])
def test_a_broken_library_is_an_error(monkeypatch, tmp_path, content, message):
    if content is None:
        (tmp_path / "ocml.bc").write_bytes(b"not bitcode")
    else:
        _bitcode(tmp_path, content)
    monkeypatch.setenv("KILN_ROCM_DEVICE_LIBS", str(tmp_path))
    with pytest.raises(kiln.CompilationError, match=message):
        kiln.compile(uses_erf_and_pow, {"x": "*fp32", "y": "*fp32", "out": "*fp32"},
                     {"POW": True}, target="hip:gfx942", cache=False)
