"""Every signature of Gluon's ``extra.libdevice`` (NVIDIA) compiles for sm_90a: the calls are
tile.extern_elementwise ops of the signature's libdevice symbol, the CUDA toolkit's bitcode is
linked, and ptxas accepts the result; no ``__nv_`` function is left undefined."""

import collections
import re

import pytest

import kiln
import kiln.language as kl
from kiln.language.extra import libdevice
from kiln.language.nvidia._libdevice_signatures import SIGNATURES

import libdevice_kernels as K

_PTR = {"fp32": "*fp32", "fp64": "*fp64", "int32": "*i32", "int64": "*i64",
        "uint32": "*u32", "uint64": "*u64"}


def _groups():
    """(argument dtypes, result dtype) -> [(name, symbol)]."""
    out = collections.defaultdict(list)
    for line in SIGNATURES.splitlines():
        name, rest = line.split(": ")
        args, result = rest.split(" -> ")
        symbol, ret = result.split()
        out[(tuple(args.split(",")), ret)].append((name, symbol))
    return out


GROUPS = _groups()


def test_every_gluon_name_is_there():
    names = {line.split(":")[0] for line in SIGNATURES.splitlines()}
    # and fast_tanhf, which only Gluon's AMD libdevice has (third_party/amd/test/python/
    # test_amd_libdevice.py)
    assert len(names) == 197 and set(libdevice.__all__) == names | {"fast_tanhf"}


@pytest.mark.parametrize("key", sorted(GROUPS), ids=lambda k: ",".join(k[0]) + "->" + k[1])
def test_every_signature_links_and_assembles(key):
    args, ret = key
    names = tuple(n for n, _ in GROUPS[key])
    ptrs = [_PTR[a] for a in args] + [_PTR[args[-1]]] * (4 - len(args))
    sig = dict(zip("abcd", ptrs), out=_PTR[ret])
    k = kiln.compile(K.apply, sig, dict(NAMES=names, ARITY=len(args), N=128),
                     target="cuda:sm_90a", cache=False)
    tile = k.asm["tile"]
    for _, symbol in GROUPS[key]:
        assert f'tile.extern_elementwise "{symbol}"' in tile, symbol
    ptx = k.asm["ptx"]
    # Libdevice's own helpers may stay functions (the fp64 trigonometric reductions), but
    # every one is defined in the PTX: nothing is left for a linker to find.
    called = set(re.findall(r"call\.uni[^,]*,\s*\n?\s*(\w+)", ptx)) | set(
        re.findall(r"call(?:\.uni)?\s+(?:\([^)]*\),\s*)?(\w+)", ptx))
    for fn in called:
        assert re.search(rf"\.func\s+(\([^)]*\)\s*)?{fn}\b", ptx), fn
    assert "cubin" in k.asm


@kiln.jit
def _inferred_and_scalar(x, y, n, L: kl.constexpr):
    offs = kl.arange(0, 128, kl.AutoLayout())
    v = libdevice.tanh(kl.load(x + offs))  # the layout comes from the set_auto_layout below
    kl.store(y + kl.arange(0, 128, L), kl.set_auto_layout(v, L))
    kl.store(y, libdevice.pow(kl.load(x), n))  # scalars: fp32, int32 -> __nv_powif


def test_inferred_layouts_and_scalars():
    """An AutoLayout operand takes the layout the rest of the kernel gives the call's result
    (the op shares one layout among operands and result), and scalar arguments make one call."""
    k = kiln.compile(_inferred_and_scalar, {"x": "*fp32", "y": "*fp32", "n": "i32"},
                     dict(L=kl.BlockedLayout([1], [32], [4], [0])), target="cuda:sm_90a",
                     cache=False)
    tile = k.asm["tile"]
    assert re.search(r'tile.extern_elementwise "__nv_tanhf", %\S+ : \(tensor<128xf32, '
                     r'#tile.auto>\)', tile), tile  # resolved later: it lowered, per register
    assert k.asm["llvm_dialect"].count("llvm.call @__nv_tanhf") == 1  # 128 in 128 threads
    assert re.search(r'tile.extern_elementwise "__nv_powif", %\S+, %\S+ : \(f32, i32\) -> f32',
                     tile), tile
    assert "__nv_" not in k.asm["ptx"]
