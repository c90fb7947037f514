"""Gluon's ``language.extra.libdevice``: every function of NVIDIA's libdevice that Gluon
names (197, with Triton 3.6's argument dtypes: ``_libdevice_signatures.py``), as calls of the
library's ``__nv_*`` functions (``tile.extern_elementwise``) that the NVIDIA backend links from
the CUDA toolkit's ``libdevice.10.bc`` (``KILN_LIBDEVICE`` names another file).

Arguments are tensors of one shape and layout (broadcast as an elementwise op's) or scalars;
Python numbers take the other arguments' dtype. Several arguments of different dtypes are
promoted to one first, as Triton does; then the dtypes must be one of the function's
signatures (an error at the call lists them). fp16/bf16 arguments are not converted: as in
Triton, convert them to fp32 first.

On AMD targets the library is not linked: the functions Kiln lowers itself (the ``fast_*``
forms, ``exp``, ``exp2``, ``log``, ``log2``, ``sqrt``, ``rsqrt``, ``sin``, ``cos``,
``floor``, ``ceil``, ``fabs``, ``abs``, ``fma``, ``fast_dividef``, ``div_rn``) compute the
same math there; any other name is an error at the call.
"""

from __future__ import annotations

from .. import _math
from .._core import _unwrap, builtin, distributed_type, tensor
from ._libdevice_signatures import SIGNATURES

# Installed as kiln.language.extra.libdevice (Gluon's name): its functions are no vendor
# builtins (an AMD target takes the names Kiln's math covers).
_MODULE = "kiln.language.extra.libdevice"


def _table():
    out = {}
    for line in SIGNATURES.splitlines():
        name, rest = line.split(": ", 1)
        args, result = rest.split(" -> ")
        symbol, ret = result.split()
        out.setdefault(name, {})[tuple(args.split(","))] = (symbol, ret)
    return out


_TABLE = _table()

# The functions Kiln's own math lowers on every target (used where libdevice is not linked).
_OWN = {
    "fast_expf": _math.exp, "fast_exp2f": _math.exp2, "fast_logf": _math.log,
    "fast_log2f": _math.log2, "fast_sinf": _math.sin, "fast_cosf": _math.cos,
    "exp": _math.exp, "exp2": _math.exp2, "log": _math.log, "log2": _math.log2,
    "sqrt": _math.sqrt, "rsqrt": _math.rsqrt, "sin": _math.sin, "cos": _math.cos,
    "floor": _math.floor, "ceil": _math.ceil, "abs": _math.abs, "fabs": _math.abs,
    "fma": _math.fma,
}


def _dtype(name):
    from .._core import dtype
    return dtype(name)


def _call(name, args, sem):
    signatures = _TABLE[name]
    if not str(sem.target).startswith("cuda:"):
        own = _OWN.get(name)
        if own is not None:
            return own(*args, _semantic=sem)
        if name in ("fast_dividef", "div_rn"):
            return sem.binary("truediv", _unwrap(args[0]), _unwrap(args[1]))
        raise TypeError(f"libdevice.{name} calls NVIDIA's libdevice, which is not linked for "
                        f"{sem.target}")
    values = [_unwrap(a) for a in args]
    typed = [v for v in values if isinstance(v, tensor)]
    if not typed:
        values = [sem.as_tensor(v) for v in values]
    else:
        values = [v if isinstance(v, tensor) else sem.literal_like(v, typed[0]) for v in values]
    key = tuple(v.dtype.name for v in values)
    if key not in signatures and len(values) > 1:
        common = values[0].dtype
        for v in values[1:]:
            common = sem.promote(common, v.dtype, f"libdevice.{name}")
        values = [v if v.dtype == common else sem.cast(v, common) for v in values]
        key = tuple(v.dtype.name for v in values)
    if key not in signatures:
        expected = "; ".join("(" + ", ".join(k) + ")" for k in signatures)
        raise TypeError(f"libdevice.{name}: no signature takes ({', '.join(key)}); "
                        f"it takes {expected}")
    symbol, ret = signatures[key]
    values = sem.broadcast_all(values, f"libdevice.{name}")
    ret = _dtype(ret)
    first = values[0].type
    rt = distributed_type(ret, first.shape, first.layout) if first.is_block else ret
    return sem._op("tile.extern_elementwise", values, rt, {"symbol": sem.b.str_attr(symbol)})


def _make(name):
    def fn(*args, _semantic=None):
        return _call(name, args, _semantic)
    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = _MODULE
    fn.__doc__ = (f"libdevice's {name} ("
                  + ", ".join(f"{'/'.join(k)} -> {v[0]}" for k, v in _TABLE[name].items())
                  + ").")
    return builtin(fn)


__all__ = sorted(_TABLE)
for _name in __all__:
    globals()[_name] = _make(_name)
del _name
