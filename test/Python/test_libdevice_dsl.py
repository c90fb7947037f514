"""Every signature of Gluon's ``extra.libdevice`` (NVIDIA) compiles for sm_90a: the calls are
tile.extern_elementwise ops of the signature's libdevice symbol, the CUDA toolkit's bitcode is
linked, and ptxas accepts the result; no ``__nv_`` function is left undefined."""

import collections
import re

import pytest

import kiln
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
    assert len(names) == 197 and set(libdevice.__all__) == names


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
