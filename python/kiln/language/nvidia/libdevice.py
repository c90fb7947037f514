"""Gluon's ``language.extra.libdevice``: every function of NVIDIA's libdevice that Gluon
names (197, with Triton 3.6's argument dtypes: ``_libdevice_signatures.py``), as calls of the
library's ``__nv_*`` functions (``tile.extern_elementwise``) that the NVIDIA backend links from
the CUDA toolkit's ``libdevice.10.bc`` (``KILN_LIBDEVICE`` names another file).

Arguments are tensors of one shape and layout (broadcast as an elementwise op's) or scalars;
Python numbers take the other arguments' dtype. Several arguments of different dtypes are
promoted to one first, as Triton does; then the dtypes must be one of the function's
signatures (an error at the call lists them). fp16/bf16 arguments are not converted: as in
Triton, convert them to fp32 first.

On AMD targets the names of Gluon's AMD libdevice call the ROCm device libraries
(``kiln.language.amd._libdevice``); the functions Kiln lowers itself (the ``fast_*`` forms,
``exp``, ``exp2``, ``log``, ``log2``, ``sqrt``, ``rsqrt``, ``sin``, ``cos``, ``floor``,
``ceil``, ``fabs``, ``abs``, ``fma``, ``erf``, ``fast_dividef``, ``div_rn``) compute the same
math where those libraries are not installed, or the name is not AMD's; any other name is an
error at the call.
"""

from __future__ import annotations

from .. import _math
from .._core import _unwrap, builtin
from .._extern import extern_call, match_signature, parse_signatures
from ._libdevice_signatures import SIGNATURES

# Installed as kiln.language.extra.libdevice (Gluon's name): its functions are no vendor
# builtins (an AMD target takes the names Kiln's math covers).
_MODULE = "kiln.language.extra.libdevice"


_TABLE = parse_signatures(SIGNATURES)

# The functions Kiln's own math lowers on every target (used where libdevice is not linked).
_OWN = {
    "fast_expf": _math.exp, "fast_exp2f": _math.exp2, "fast_logf": _math.log,
    "fast_log2f": _math.log2, "fast_sinf": _math.sin, "fast_cosf": _math.cos,
    "exp": _math.exp, "exp2": _math.exp2, "log": _math.log, "log2": _math.log2,
    "sqrt": _math.sqrt, "rsqrt": _math.rsqrt, "sin": _math.sin, "cos": _math.cos,
    "floor": _math.floor, "ceil": _math.ceil, "abs": _math.abs, "fabs": _math.abs,
    "fma": _math.fma, "erf": _math.erf,
}


# Another vendor's libdevice, by target prefix ("hip:"): (names, call(name, args, sem,
# fallback)), registered by that vendor's package (kiln.language.amd).
_TARGET_LIBRARIES = {}


def register_target_library(prefix, names, call):
    """Route ``libdevice.<name>`` on targets starting with ``prefix`` to ``call`` for
    ``names`` (and make each such name a function of this module)."""
    _TARGET_LIBRARIES[prefix] = (frozenset(names), call)
    for name in names:
        if name not in globals():
            globals()[name] = _make(name)
            __all__.append(name)
            __all__.sort()


def _own_math(name, values, sem):
    """``name`` computed by Kiln's own math (any target), or None when it has no such
    function."""
    own = _OWN.get(name)
    if own is not None:
        return own(*values, _semantic=sem)
    if name in ("fast_dividef", "div_rn"):
        return sem.binary("truediv", _unwrap(values[0]), _unwrap(values[1]))
    return None


def _call(name, args, sem):
    target = str(sem.target)
    if not target.startswith("cuda:"):
        lib = next((v for p, v in _TARGET_LIBRARIES.items() if target.startswith(p)), None)
        if lib is not None and name in lib[0]:
            return lib[1](name, args, sem, lambda n, vals: _own_math(n, vals, sem))
        out = _own_math(name, [_unwrap(a) for a in args], sem)
        if out is not None:
            return out
        raise TypeError(f"libdevice.{name} calls NVIDIA's libdevice, which is not linked for "
                        f"{sem.target}" + (f"; this target's libdevice has: "
                                           f"{', '.join(sorted(lib[0]))}" if lib else ""))
    if name not in _TABLE:
        raise TypeError(f"libdevice.{name} is in Gluon's AMD libdevice only (NVIDIA's "
                        f"libdevice has no such function)")
    values, key = match_signature(f"libdevice.{name}", args, _TABLE[name], sem)
    symbol, ret = _TABLE[name][key]
    return extern_call(symbol, values, ret, sem)


def _make(name):
    def fn(*args, _semantic=None):
        return _call(name, args, _semantic)
    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = _MODULE
    fn.__doc__ = (f"libdevice's {name} ("
                  + ", ".join(f"{'/'.join(k)} -> {v[0]}" for k, v in _TABLE[name].items())
                  + ")." if name in _TABLE else f"libdevice's {name} (AMD targets).")
    return builtin(fn)


__all__ = sorted(_TABLE)
for _name in __all__:
    globals()[_name] = _make(_name)
del _name
