"""``associative_scan`` (Gluon's): an inclusive scan along one axis, for any register layout.

``tile.scan`` scans the tensor in its own layout, as Triton does: within each thread's
registers, across lanes with shuffles and across warps through shared memory (the lowering
doubles the scanned block one position bit at a time, each bit placed by a register, lane or
warp of the layout). A layout in which one basis moves along the axis and another dimension
at once (a linear layout can) is converted to one that keeps the whole axis in each thread
first, and back. The combine is applied with the earlier partial result on the left, so it
only has to be associative. A tuple of tensors (up to 64 bits an element together) is
scanned as one packed integer tensor, as ``reduce`` of a tuple.
"""

from __future__ import annotations

from ._core import _unwrap, builtin, distributed_type, tensor
from ._layouts import BlockedLayout, SliceLayout, is_inferred, to_linear_layout

__all__ = ["associative_scan"]

_MAX_REGISTERS = 1024


def scan_layout(shape, axis, warp_size, num_warps):
    """A layout of ``shape`` whose lanes and warps never move along ``axis``: a slice of a
    blocked layout with one more (size-one) dimension that takes what the others cannot."""
    rank = len(shape)
    others = [d for d in reversed(range(rank)) if d != axis]
    spt, tpw, wpc = [1] * (rank + 1), [1] * (rank + 1), [1] * (rank + 1)
    spt[axis] = shape[axis]
    lanes, warps = warp_size, num_warps
    for d in others:
        tpw[d] = min(shape[d], lanes)
        lanes //= tpw[d]
    for d in others:
        wpc[d] = min(max(shape[d] // tpw[d], 1), warps)
        warps //= wpc[d]
    tpw[rank], wpc[rank] = lanes, warps
    order = [axis] + [d for d in reversed(range(rank + 1)) if d != axis]
    return SliceLayout(rank, BlockedLayout(spt, tpw, wpc, order))


def scans_in_place(layout, shape, axis) -> bool:
    """Whether tile.scan lowers ``layout`` as it is: every basis that moves along ``axis``
    moves by a power of two and along no other dimension."""
    try:
        ll = to_linear_layout(layout, tuple(shape))
    except Exception:  # noqa: BLE001 -- no linear form here: convert
        return False
    seen = set()
    for bases in (ll.reg_bases, ll.lane_bases, ll.warp_bases):
        for b in bases:
            a = b[axis]
            if a == 0:
                continue
            if any(v for d, v in enumerate(b) if d != axis) or a & (a - 1) or a in seen:
                return False
            seen.add(a)
    return True


def scan(sem, x, axis, combine_fn, reverse=False):
    if isinstance(x, (tuple, list)):
        if not x:
            raise ValueError("associative_scan of an empty tuple")
        if len(x) == 1:
            return (scan(sem, x[0], axis, combine_fn, reverse),)
        from ._tuple_reduce import tuple_combine
        xs, combine = tuple_combine(sem, x, combine_fn, "associative_scan")
        return tuple(scan_tensors(sem, xs, axis, combine, reverse))
    x = sem.as_tensor(_unwrap(x))
    fn = _unwrap(combine_fn)
    builtin_combine = getattr(fn, "__kiln_combine__", False)  # cumsum's, cumprod's
    if not builtin_combine and not getattr(fn, "__kiln_jit__", False):
        what = getattr(fn, "__qualname__", None) or type(fn).__name__
        raise TypeError(f"associative_scan: combine_fn must be a @kiln.jit function of two "
                        f"scalars, got {what}")
    if sem.codegen is None:
        raise RuntimeError("associative_scan needs the code generator")

    def combine(a, b):
        out = fn(a[0], b[0]) if builtin_combine else sem.codegen.call_combine(fn, a[0], b[0])
        if isinstance(out, (tuple, list)) and len(out) == 1:
            out = out[0]
        return [out]
    return scan_tensors(sem, [x], axis, combine, reverse)[0]


def scan_tensors(sem, xs, axis, combine, reverse):
    """One ``tile.scan`` of the tensors ``xs`` (one shape and layout); ``combine(a, b)``
    emits the combine region's body for two lists of scalars and returns a list."""
    if sem.combine_depth:
        raise TypeError("a scan inside a combine function is not supported")
    for x in xs:
        if not x.type.is_block:
            raise TypeError("associative_scan needs a tensor, got a scalar")
        sem.reject_fp8("a scan of {}", x)
    x = xs[0]
    shape, layout = list(x.type.shape), x.type.layout
    rank = len(shape)
    if not isinstance(axis, int) or isinstance(axis, bool):
        raise TypeError(f"associative_scan axis must be a constexpr int, got {axis!r}")
    if axis < 0:
        axis += rank
    if not 0 <= axis < rank:
        raise ValueError(f"associative_scan axis {axis} is out of range for rank {rank}")
    if is_inferred(layout) or getattr(layout, "cga_bases", None):
        raise ValueError(f"associative_scan needs a tensor in a distributed layout of one CTA, "
                         f"got {layout!r}")
    if scans_in_place(layout, shape, axis):
        inner, ys = layout, xs
    else:
        threads = sem.warp_size * sem.num_warps
        others = 1
        for d, e in enumerate(shape):
            others *= e if d != axis else 1
        per_thread = shape[axis] * -(-others // threads) * len(xs)
        if per_thread > _MAX_REGISTERS:
            raise ValueError(
                f"associative_scan of {layout!r}, whose bases move along axis {axis} and "
                f"another dimension at once, holds the whole axis in each thread: "
                f"{per_thread} elements a thread for shape {tuple(shape)} is more than Kiln "
                f"scans ({_MAX_REGISTERS}); convert it to a blocked layout first")
        inner = scan_layout(shape, axis, sem.warp_size, sem.num_warps)
        ys = [sem.convert_layout(y, inner) for y in xs]
    elts = [y.dtype for y in xs]
    from ._tuple_reduce import combine_block
    body = combine_block(sem, elts, combine, "tile.scan_return", "associative_scan")
    rts = [distributed_type(elt, tuple(shape), inner) for elt in elts]
    names = sem.b.create("tile.scan", ys, rts,
                         {"axis": sem.b.int_attr(axis),
                          "reverse": "true" if reverse else "false"}, [body])
    outs = [tensor(n, rt) for n, rt in zip(names, rts)]
    return outs if inner is layout else [sem.convert_layout(o, layout) for o in outs]


@builtin
def associative_scan(input, axis, combine_fn, reverse=False, _semantic=None):
    """Inclusive scan of ``input`` along ``axis`` with ``combine_fn``, a ``@kiln.jit``
    function of two scalars made of elementwise operations (the earlier partial result first);
    ``reverse`` scans from the end (Gluon's ``associative_scan``). ``input`` may be a tuple
    of tensors, ``combine_fn`` then taking the elements of two tuples."""
    req = _semantic.require_constexpr
    return scan(_semantic, input, req(axis, "associative_scan axis"), combine_fn,
                bool(req(reverse, "reverse")))
