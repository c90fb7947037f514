"""Gluon's ``inline_asm_elementwise`` (the target's inline assembly over the elements of
tensors, ``tile.inline_asm_elementwise``) and ``inline_asm`` (after Triton 3.8: one statement
per thread over all its registers, ``tile.inline_asm``)."""

from __future__ import annotations

import re

from ._core import (_unwrap, builtin, distributed_type, dtype as dtype_cls,
                    shared_memory_descriptor, target_hook, tensor)
from ._layouts import is_inferred, to_linear_layout

__all__ = ["inline_asm_elementwise", "inline_asm"]


@builtin
def inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack, _semantic=None):
    """Run ``asm`` (the target's assembly language) over the elements of ``args`` (broadcast
    to one shape and layout), ``pack`` elements per statement; ``constraints`` lists the
    outputs first, then the inputs (LLVM's syntax). Elements narrower than 32 bits are packed
    into 32-bit registers. ``dtype`` is the result's dtype, or a tuple of dtypes for several
    results (then a tuple is returned). ``is_pure`` lets an unused statement be dropped
    (Gluon's ``inline_asm_elementwise``)."""
    sem = _semantic
    req = sem.require_constexpr
    asm, constraints = req(asm, "asm"), req(constraints, "constraints")
    is_pure, pack = req(is_pure, "is_pure"), req(pack, "pack")
    if not isinstance(asm, str) or not isinstance(constraints, str):
        raise TypeError("inline_asm_elementwise: asm and constraints must be strings")
    if not isinstance(pack, int) or isinstance(pack, bool) or pack < 1 or pack & (pack - 1):
        raise ValueError(f"inline_asm_elementwise: pack must be a power of 2, got {pack!r}")
    dtypes = _unwrap(dtype)
    single = not isinstance(dtypes, (list, tuple))
    dtypes = [dtypes] if single else [_unwrap(d) for d in dtypes]
    if not dtypes or not all(isinstance(d, dtype_cls) and d.primitive_bitwidth for d in dtypes):
        raise TypeError(f"inline_asm_elementwise: dtype must be a dtype or a non-empty tuple "
                        f"of dtypes, got {dtype!r}")
    if any(isinstance(_unwrap(a), shared_memory_descriptor) for a in _unwrap(args)):
        return _elementwise_with_views(sem, asm, constraints, _unwrap(args), dtypes, single,
                                       is_pure, pack)
    values = [sem.as_tensor(_unwrap(a)) for a in _unwrap(args)]
    if not any(v.type.is_block for v in values):
        raise TypeError("inline_asm_elementwise needs at least one tensor argument")
    values = sem.broadcast_all(values, "inline_asm_elementwise")
    shape, layout = values[0].type.shape, values[0].type.layout
    if is_inferred(layout):
        raise ValueError("inline_asm_elementwise needs its arguments in a distributed layout "
                         "(convert them first)")
    regs = 1 << len(to_linear_layout(layout, shape).reg_bases)
    if regs % pack:
        raise ValueError(f"inline_asm_elementwise: each thread holds {regs} elements of "
                         f"{layout!r}, which pack {pack} does not divide")
    rts = [distributed_type(d, shape, layout) for d in dtypes]
    attrs = {"asm_string": sem.b.str_attr(asm), "constraints": sem.b.str_attr(constraints),
             "pure": "true" if is_pure else "false", "pack": sem.b.int_attr(pack)}
    names = sem.b.create("tile.inline_asm_elementwise", values, rts, attrs)
    outs = [tensor(n, t) for n, t in zip(names, rts)]
    return outs[0] if single else tuple(outs)


def _registers(what, t) -> int:
    """Operands a value of type ``t`` passes: every register of a tensor (replicated ones
    included), one for a scalar."""
    if not isinstance(t, distributed_type):
        return 1
    if t.layout is None or is_inferred(t.layout):
        raise ValueError(f"{what} needs explicit distributed tensor layouts, got "
                         f"{t.layout!r} (convert the tensor to a BlockedLayout or another "
                         f"distributed layout first)")
    return 1 << len(to_linear_layout(t.layout, t.shape).reg_bases)


@builtin
def inline_asm(asm, constraints="", args=(), result_types=(), is_pure=False, _semantic=None):
    """Run ``asm`` (the target's assembly language) once per thread (Gluon's ``inline_asm``).

    A tensor in ``args`` passes every register the thread holds of it, in its layout's
    register order (replicated ones included), each its own operand; a scalar passes one; a
    shared-memory view passes its 32-bit shared address (then ``is_pure`` must be false, and
    the caller orders the accesses: nothing synchronizes them). Elements narrower than 32
    bits are not packed. ``result_types``: a ``distributed_type`` (a tensor result, one output
    operand per register), a dtype (a scalar result, uniform across threads), a sequence of
    them (a tuple is returned) or empty (nothing is returned). Operands are numbered outputs
    first. ``constraints`` is the whole constraint string, or a tuple of one constraint per
    result and then per argument, repeated for each of its registers. ``asm`` may be a
    ``constexpr_function`` called with ``(outputs, inputs)``, tuples per result and per
    argument of the ``"$N"`` names of their operands, that returns the assembly text."""
    sem = _semantic
    what = "inline_asm"
    asm = _unwrap(asm)
    constraints = sem.require_constexpr(constraints, "constraints")
    is_pure = sem.require_constexpr(is_pure, "is_pure")
    if not isinstance(is_pure, bool):
        raise TypeError(f"inline_asm: is_pure must be a constexpr bool, got {is_pure!r}")
    values = []
    for a in _unwrap(args) or ():
        a = _unwrap(a)
        if isinstance(a, shared_memory_descriptor):
            if is_pure:
                raise ValueError("inline_asm with a shared-memory operand must not be pure "
                                 "(is_pure=False): the statement touches memory")
            values.append(a)
        else:
            values.append(sem.as_tensor(a))
    rts = _unwrap(result_types)
    single = rts is not None and not isinstance(rts, (list, tuple))
    rts = [] if rts is None else [rts] if single else [_unwrap(t) for t in rts]
    for t in rts:
        if not isinstance(t, (distributed_type, dtype_cls)) or (
                isinstance(t, dtype_cls) and not t.primitive_bitwidth):
            raise TypeError(f"inline_asm: result_types holds dtypes and distributed_types, "
                            f"got {t!r}")
    if not rts and is_pure:
        raise ValueError("inline_asm without results must not be pure (it would do nothing)")
    outs = [_registers(what, t) for t in rts]
    ins = [1 if isinstance(v, shared_memory_descriptor) else _registers(what, v.type)
           for v in values]
    names, k = [], 0
    for n in outs + ins:
        names.append(tuple(f"${k + i}" for i in range(n)))
        k += n
    out_names, in_names = tuple(names[:len(outs)]), tuple(names[len(outs):])
    if callable(asm):
        text = asm(out_names, in_names)
        text = _unwrap(text)
        if not isinstance(text, str):
            raise TypeError(f"inline_asm: asm must be a string or a constexpr_function "
                            f"returning a string, got {type(text).__name__} from "
                            f"{getattr(asm, '__name__', asm)!r}")
        asm = text
    if not isinstance(asm, str):
        raise TypeError(f"inline_asm: asm must be a string or a constexpr_function returning "
                        f"a string, got {asm!r}")
    if isinstance(constraints, (list, tuple)):
        groups = len(outs) + len(ins)
        if len(constraints) != groups or not all(isinstance(c, str) for c in constraints):
            raise ValueError(f"inline_asm: constraints as a tuple needs one constraint per "
                             f"output and input group ({len(outs)} results + {len(ins)} "
                             f"arguments = {groups}), got {constraints!r}")
        constraints = ",".join(c for c, n in zip(constraints, outs + ins) for _ in range(n))
    elif not isinstance(constraints, str):
        raise TypeError(f"inline_asm: constraints must be a string or a tuple of strings, "
                        f"got {constraints!r}")
    attrs = {"asm_string": sem.b.str_attr(asm), "constraints": sem.b.str_attr(constraints),
             "pure": "true" if is_pure else "false"}
    handles = sem.b.create("tile.inline_asm", values, rts, attrs)
    results = [tensor(h, t) for h, t in zip(handles, rts)]
    if not results:
        return None
    return results[0] if single else tuple(results)


def _elementwise_with_views(sem, asm, constraints, args, dtypes, single, is_pure, pack):
    """inline_asm_elementwise with shared-memory views among ``args`` (Gluon's newest): each
    view is one operand of every statement, its 32-bit address. Lowered as one
    ``tile.inline_asm`` per thread whose text is the statement once per group of ``pack``
    registers, its ``$N`` renumbered onto the thread's operands (outputs, then every
    register of each tensor, then each view's address)."""
    what = "inline_asm_elementwise"
    if is_pure:
        raise ValueError(f"{what} with a shared-memory operand must not be pure "
                         f"(is_pure=False): the statement touches memory")
    views = [isinstance(a, shared_memory_descriptor) for a in args]
    tensors = [sem.as_tensor(a) for a, v in zip(args, views) if not v]
    if not any(t.type.is_block for t in tensors):
        raise TypeError(f"{what} needs at least one tensor argument")
    tensors = sem.broadcast_all(tensors, what)
    shape, layout = tensors[0].type.shape, tensors[0].type.layout
    if is_inferred(layout):
        raise ValueError(f"{what} needs its arguments in a distributed layout (convert them "
                         f"first)")
    narrow = [t.dtype for t in tensors if t.dtype.primitive_bitwidth < 32] + \
        [d for d in dtypes if d.primitive_bitwidth < 32]
    if narrow and pack > 1:
        raise TypeError(f"{what}: with a shared-memory operand, elements narrower than 32 "
                        f"bits are not packed in Kiln (got {narrow[0]} with pack {pack}); "
                        f"use pack=1")
    regs = 1 << len(to_linear_layout(layout, shape).reg_bases)
    if regs % pack:
        raise ValueError(f"{what}: each thread holds {regs} elements of {layout!r}, which "
                         f"pack {pack} does not divide")
    entries = [c.strip() for c in constraints.split(",")] if constraints.strip() else []
    clobbers = [c for c in entries if c.startswith("~")]
    entries = [c for c in entries if not c.startswith("~")]
    # One statement's operands: the results' pack registers, then each argument's (a view:
    # one); and where each sits among the thread's operands, for group g.
    nres = len(dtypes)
    stmt_ops = nres * pack + sum(1 if v else pack for v in views)
    if len(entries) != stmt_ops:
        raise ValueError(f"{what}: constraints name {len(entries)} operands, but each "
                         f"statement has {nres * pack} outputs and "
                         f"{stmt_ops - nres * pack} inputs (pack per tensor, one per "
                         f"shared-memory view)")
    starts, k = [], nres * regs
    for v in views:
        starts.append(k)
        k += 1 if v else regs

    def thread_index(i, g):
        if i < nres * pack:
            r, e = divmod(i, pack)
            return r * regs + g * pack + e
        i -= nres * pack
        for a, v in enumerate(views):
            n = 1 if v else pack
            if i < n:
                return starts[a] + (0 if v else g * pack + i)
            i -= n
        raise AssertionError(i)

    total = k
    cons = [None] * total
    for g in range(regs // pack):
        for i, c in enumerate(entries):
            j = thread_index(i, g)
            if c.isdigit():  # a tie to an output of the same statement
                c = str(thread_index(int(c), g))
            if cons[j] is None:
                cons[j] = c
    # Each statement in its own scope where the target's assembly has scopes (its own
    # register declarations may then repeat).
    scope = target_hook(sem.target, "asm_scope") or (lambda text: text)
    texts = []
    for g in range(regs // pack):
        text = re.sub(r"\$(\d+)", lambda m: f"${thread_index(int(m.group(1)), g)}", asm)
        texts.append(scope(text))
    ordered, it = [], iter(tensors)
    for a, v in zip(args, views):
        ordered.append(a if v else next(it))
    rts = [distributed_type(d, shape, layout) for d in dtypes]
    attrs = {"asm_string": sem.b.str_attr("\n".join(texts)),
             "constraints": sem.b.str_attr(",".join(cons + clobbers)), "pure": "false"}
    names = sem.b.create("tile.inline_asm", ordered, rts, attrs)
    outs = [tensor(n, t) for n, t in zip(names, rts)]
    return outs[0] if single else tuple(outs)
