"""Calls of a device library's functions (``tile.extern_elementwise``), shared by the vendors'
``extra.libdevice``: signature tables in text form, Triton's argument matching (numbers take
the tensors' dtype, else their own; several dtypes promoted to one), and the op."""

from __future__ import annotations

from ._core import _unwrap, distributed_type, dtype, tensor


def parse_signatures(text: str) -> dict:
    """``name: dtype,dtype -> symbol result`` lines -> {name: {(dtypes): (symbol, result)}}."""
    out = {}
    for line in text.splitlines():
        name, rest = line.split(": ", 1)
        args, result = rest.split(" -> ")
        symbol, ret = result.split()
        out.setdefault(name, {})[tuple(args.split(","))] = (symbol, ret)
    return out


def match_signature(what: str, args, signatures, sem, where: str = ""):
    """``args`` as tensors whose dtypes are a key of ``signatures`` -> (values, key), as Triton
    matches them: a Python number takes the tensors' dtype (or, where no signature takes that,
    its own); arguments of several dtypes are promoted to one. A TypeError names ``what``
    (``libdevice.erf``) and the signatures when none fits."""
    values = [_unwrap(a) for a in args]
    typed = [v for v in values if isinstance(v, tensor)]
    if not typed:
        values = [sem.as_tensor(v) for v in values]
    else:
        values = [v if isinstance(v, tensor) else sem.literal_like(v, typed[0]) for v in values]
    key = tuple(v.dtype.name for v in values)
    if key not in signatures and typed:
        raw = [_unwrap(a) for a in args]
        alt = [sem.as_tensor(r) if not isinstance(r, tensor) else v for r, v in zip(raw, values)]
        if tuple(v.dtype.name for v in alt) in signatures:
            values, key = alt, tuple(v.dtype.name for v in alt)
    if key not in signatures and len(values) > 1:
        common = values[0].dtype
        for v in values[1:]:
            common = sem.promote(common, v.dtype, what)
        values = [v if v.dtype == common else sem.cast(v, common) for v in values]
        key = tuple(v.dtype.name for v in values)
    if key not in signatures:
        expected = "; ".join("(" + ", ".join(k) + ")" for k in signatures)
        raise TypeError(f"{what}: no signature takes ({', '.join(key)}){where}; it takes "
                        f"{expected}")
    return values, key


def extern_call(symbol: str, values, ret, sem):
    """``tile.extern_elementwise`` of ``symbol`` on ``values`` (broadcast to one shape, or
    scalars), returning ``ret`` (a dtype or its name) per element."""
    ret = ret if isinstance(ret, dtype) else dtype(ret)
    values = sem.broadcast_all(values, symbol)
    first = values[0].type
    rt = distributed_type(ret, first.shape, first.layout) if first.is_block else ret
    return sem._op("tile.extern_elementwise", values, rt, {"symbol": sem.b.str_attr(symbol)})
