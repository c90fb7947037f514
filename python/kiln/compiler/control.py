"""Python control flow in kernels.

* ``if`` on a runtime scalar -> ``scf.if`` whose results are the variables either branch
  reassigns; ``if`` on a compile-time value is resolved by the code generator.
* ``for`` over ``range``/``kl.range`` -> ``scf.for``; variables the body reassigns that exist
  before the loop become ``iter_args``. The body is first compiled once into a scratch block
  (a dry run) to find those variables and their types.
* ``for`` over ``kl.static_range`` or a compile-time tuple -> unrolled.
* ``while`` on a runtime condition -> ``scf.while`` (no ``break``/``continue``).

A variable must keep its type across branches and iterations; otherwise the error cites both
assignments.
"""

from __future__ import annotations

import ast
import builtins
import operator

from .. import language as kl
from ..language._core import _unwrap, shared_memory_descriptor, tensor
from ._values import MAX_STATIC_UNROLL, _has_tensor, _same, _site_str, _type_str
from .structs import Mismatch, from_leaves, leaf_types, merge, parts_of, to_leaves
from .errors import CompilationError, UnsupportedLanguageConstruct
from .ir import Block
from .returns import RETURN_VALUE


def _is_number(v) -> bool:
    v = _unwrap(v)
    return isinstance(v, (bool, int, float)) and not isinstance(v, tensor)


class _BufferChoice(Exception):
    """Two different shared-memory buffers where one value is expected."""


def _leaf_type(cg, a, b):
    """The merged type of two values not made of parts: None (equal compile-time values), a
    type, or Mismatch."""
    a, b = _unwrap(a), _unwrap(b)
    if isinstance(a, tensor) and isinstance(b, tensor):
        if a.type == b.type:
            return a.type
    elif not isinstance(a, tensor) and not isinstance(b, tensor):
        if _same(a, b):
            return None
        if _is_number(a) and _is_number(b):  # e.g. a counter: becomes a runtime value
            sem = cg.sem
            return sem.promote(sem.default_dtype(a), sem.default_dtype(b), "merge")
    else:
        t, other = (a, b) if isinstance(a, tensor) else (b, a)
        if not t.type.is_block and _is_number(other) and not (
                t.dtype.is_int() and isinstance(_unwrap(other), float)):
            return t.type  # a Python number adopts the scalar type
    if isinstance(a, shared_memory_descriptor) and isinstance(b, shared_memory_descriptor):
        if a.type == b.type:
            return a.type  # a buffer chosen at run time: a memdesc-typed result / argument
        raise _BufferChoice()
    raise Mismatch(f"{_type_str(a)} and {_type_str(b)}")


def reconcile(cg, what, name, a, a_site, a_desc, b, b_site, b_desc, primary):
    """The common type of ``name`` at two sites: None where nothing runtime differs, a tensor
    type, or a Struct for a tuple / aggregate whose runtime parts differ (see .structs)."""
    try:
        return merge(lambda x, y: _leaf_type(cg, x, y), a, b)
    except _BufferChoice:
        other = a_site if primary is b_site else b_site
        site = primary or (None, None, None)
        # A buffer chosen at run time is one value of one memdesc type: the two must agree
        # in element type, shape, layout, mutability and allocation shape.
        notes = [(f"'{name}' is assigned here", *other)] if other else []
        ta, tb = _unwrap(a).type, _unwrap(b).type
        raise CompilationError(
            f"{what} '{name}' is a shared-memory buffer of type {ta.to_ir()} {a_desc} "
            f"({_site_str(a_site)}) and one of type {tb.to_ir()} {b_desc} "
            f"({_site_str(b_site)}): a buffer chosen at run time (by an if, or carried "
            f"through a loop) must have one type on every path -- the same element type, "
            f"shape, layout and allocation shape",
            *site, notes=notes) from None
    except Mismatch as e:
        detail = str(e)
    other = a_site if primary is b_site else b_site
    site = primary or (None, None, None)
    if parts_of(a) is None and parts_of(b) is None:
        message = (f"{what} '{name}' has type {_type_str(a)} {a_desc} ({_site_str(a_site)}) "
                   f"but type {_type_str(b)} {b_desc} ({_site_str(b_site)})")
        notes = [(f"'{name}' is assigned here with type "
                  f"{_type_str(a if other is a_site else b)}", *other)] if other else []
    else:
        message = (f"{what} '{name}' {a_desc} ({_site_str(a_site)}) and {b_desc} "
                   f"({_site_str(b_site)}) differ in structure: {detail}")
        notes = [(f"'{name}' is assigned here", *other)] if other else []
    raise CompilationError(message, *site, notes=notes)


def materialize(cg, value, ty) -> tensor:
    value = _unwrap(value)
    if isinstance(value, (tensor, shared_memory_descriptor)):
        return value
    return cg.sem.scalar_constant(value, ty)


def _leaves(cg, value, ty):
    """The IR values that carry ``value`` of merged type ``ty`` (one unless it is a Struct)."""
    return to_leaves(lambda v, t: materialize(cg, v, t), value, ty)


def _flat_types(types):
    return [t for ty in types for t in leaf_types(ty)]


def _rebuild(types, names):
    """Values of merged types ``types`` from the flat list of IR value names."""
    it = iter(names)
    return [from_leaves(ty, it) for ty in types]


def _run_block(cg, stmts, scope, sites, loop=None, prelude=None, args=()):
    """Compile ``stmts`` into a new block (with arguments ``args``) starting from a copy of
    ``scope``."""
    frame = cg.frame
    frame.scope, frame.sites = dict(scope), dict(sites)
    blk = Block(args)
    frame.cf_depth += 1
    if loop:
        frame.loops.append(loop)
    try:
        with cg.b.insertion(blk):
            if prelude:
                prelude()
            cg.visit_body(stmts)
    finally:
        frame.cf_depth -= 1
        if loop:
            frame.loops.pop()
    return blk, frame.scope, frame.sites


# ---------------------------------------------------------------------------------------------
# if
# ---------------------------------------------------------------------------------------------


# What map_elementwise's function may not do in a branch or a loop on its values (those run for
# every element): write memory, print, assert, or use a vendor's operations.
_SIDE_EFFECTS = ('"tile.store"', '"tile.atomic', '"tile.print"', '"tile.assert"',
                 '"tile.local_store"', '"tile.async', '"tile_nv.', '"tile_amd.')


def converted_if(cg, node, cond):
    """An ``if`` on a tensor in map_elementwise's function (Gluon runs that function on each
    element, so it may branch on a value): both branches are emitted, in order, and each
    variable they assign is merged with ``where(cond, then, else)``; a loop on values in a
    branch iterates only for the elements that take it. A branch that stores, prints or calls
    out would run for every element, so it is refused."""
    sem, frame = cg.sem, cg.frame
    scope, sites = dict(frame.scope), dict(frame.sites)
    blk = cg.b.block
    start = len(blk.lines)
    out = []
    masks = sem.map_loop_masks
    taken = cond if cond.dtype == kl.int1 else sem.compare("ne", cond, 0)
    for body, mask in ((node.body, taken), (node.orelse, sem.unary("not", taken))):
        frame.scope, frame.sites = dict(scope), dict(sites)
        # a loop in a branch iterates only for the elements that take the branch
        masks.append(sem.binary("and", mask, masks[-1]) if masks else mask)
        try:
            cg.visit_body(body)
        finally:
            masks.pop()
        out.append((frame.scope, frame.sites))
    for line in blk.lines[start:]:
        if any(op in line for op in _SIDE_EFFECTS):
            raise cg.error(node, "an if on a value in map_elementwise's function runs both "
                           "branches for every element, so its branches may not store, print "
                           "or call out; compute values and select them",
                           UnsupportedLanguageConstruct)
    (t_scope, t_sites), (e_scope, e_sites) = out
    frame.scope, frame.sites = dict(scope), dict(sites)
    changed = []
    for branch in (t_scope, e_scope):
        for n, v in branch.items():
            if n not in changed and not (n in scope and scope[n] is v):
                changed.append(n)
    for n in changed:
        if n not in t_scope or n not in e_scope:
            frame.dropped[n] = (f"it is assigned in only one branch of the if at line "
                                f"{frame.src.position(node)[1]}")
            continue
        tv, ev = _unwrap(t_scope[n]), _unwrap(e_scope[n])
        if not isinstance(tv, tensor) and not isinstance(ev, tensor):
            if tv != ev:
                raise cg.error(node, f"'{n}' is assigned different compile-time values in the "
                               f"branches of an if on a value", UnsupportedLanguageConstruct)
            frame.scope[n] = t_scope[n]
        else:
            frame.scope[n] = sem.where(cond, tv, ev)
        frame.sites[n] = t_sites.get(n) or e_sites.get(n)


def runtime_if(cg, node, cond):
    sem, b, frame = cg.sem, cg.b, cg.frame
    cond = _unwrap(cond)
    if cond.type.is_block and sem.map_depth:
        return converted_if(cg, node, cond)
    if cond.type.is_block:
        raise TypeError(f"if condition must be a scalar, got a tensor of shape "
                        f"{cond.type.shape}; use kl.where for elementwise selection")
    cond = sem.cast(cond, kl.int1)
    scope, sites = dict(frame.scope), dict(frame.sites)
    then_blk, t_scope, t_sites = _run_block(cg, node.body, scope, sites)
    else_blk, e_scope, e_sites = _run_block(cg, node.orelse, scope, sites)
    frame.scope, frame.sites = dict(scope), dict(sites)

    changed = []
    for branch in (t_scope, e_scope):
        for n, v in branch.items():
            if n not in changed and not (n in scope and scope[n] is v):
                changed.append(n)
    if getattr(node, "_kiln_tail", False):
        # an if that early returns made last (returns.py): only the return value is read
        # after it, so only that is merged; the others keep their value from before the if
        for n in changed:
            if n != RETURN_VALUE:
                frame.dropped[n] = (f"it is assigned in a branch of the if at line "
                                    f"{frame.src.position(node)[1]}, after which the function "
                                    f"returns")
        changed = [n for n in changed if n == RETURN_VALUE]
    results = []
    for n in changed:
        if n not in t_scope or n not in e_scope:
            frame.dropped[n] = (f"it is assigned in only one branch of the if at line "
                                f"{frame.src.position(node)[1]}")
            continue
        tv, ev = t_scope[n], e_scope[n]
        t_set = not (n in scope and scope[n] is tv)
        e_set = not (n in scope and scope[n] is ev)
        t_desc = "in the then branch" if t_set else "before the if"
        e_desc = "in the else branch" if e_set else "before the if"
        primary = e_sites.get(n) if e_set else t_sites.get(n)
        ty = reconcile(cg, "Variable", n, tv, t_sites.get(n), t_desc, ev, e_sites.get(n),
                       e_desc, primary)
        if ty is None:
            frame.scope[n], frame.sites[n] = tv, t_sites.get(n)
            continue
        results.append((n, ty, primary))

    for blk, branch in ((then_blk, t_scope), (else_blk, e_scope)):
        with b.insertion(blk):
            b.create("scf.yield", [v for n, ty, _ in results for v in _leaves(cg, branch[n], ty)])
    keep_else = results or len(else_blk.lines) > 1  # more than its scf.yield
    names = b.create("scf.if", [cond], _flat_types(ty for _, ty, _ in results),
                     regions=[then_blk, else_blk if keep_else else None])
    for (n, ty, site), v in zip(results, _rebuild([ty for _, ty, _ in results], names)):
        frame.scope[n], frame.sites[n] = v, site


# ---------------------------------------------------------------------------------------------
# for
# ---------------------------------------------------------------------------------------------


def loop_iterator(cg, node):
    """-> ("static", values) or ("runtime", (lb, ub, step), num_stages)."""
    try:
        return _loop_iterator_impl(cg, node)
    except (TypeError, ValueError) as e:
        raise cg.error(node.iter, str(e)) from e


def _num_stages(value):
    """kl.range's num_stages: None or a non-negative int (0 and 1 leave the loop as written)."""
    value = _unwrap(value)
    if value is None:
        return None
    try:
        n = None if isinstance(value, bool) else operator.index(value)
    except TypeError:
        n = None
    if n is None or n < 0:
        raise ValueError(f"kl.range(num_stages=...) must be a non-negative integer known at "
                         f"compile time, got {value!r}")
    # Past 65 the pipeliner leaves the loop as written and says so, with the number given
    # (an i64 attribute carries it when i32 cannot); only beyond i64 can it not be said.
    if n >= 2**63:
        raise ValueError(f"kl.range(num_stages=...) must be less than 2**63, got {n} (Kiln "
                         f"pipelines at most 65 stages)")
    return n


def _loop_iterator_impl(cg, node):
    it = node.iter
    if isinstance(it, ast.Call):
        fn = _unwrap(cg.visit(it.func))
        if fn is builtins.range or fn is kl.range or fn is kl.static_range:
            args = cg._elements(it.args)
            kwargs = {kw.arg: _unwrap(cg.visit(kw.value)) for kw in it.keywords}
            if fn is builtins.range and kwargs:
                raise TypeError("range() takes no keyword arguments")
            obj = None
            if fn is builtins.range:
                raw = args
            else:
                obj = fn(*args, **kwargs)
                raw = [a for a in obj.args if _unwrap(a) is not None]
            bounds = [_unwrap(x) for x in raw]
            if not 1 <= len(bounds) <= 3:
                raise TypeError(f"range expects 1 to 3 arguments, got {len(bounds)}")
            if fn is kl.static_range:
                if _has_tensor(bounds):
                    raise TypeError("static_range bounds must be constexpr, got a runtime value")
                return "static", builtins.range(*bounds), None
            if len(bounds) == 1:
                bounds = [0] + bounds
            lb, ub, step = (bounds + [1])[:3]
            return "runtime", (lb, ub, step), _num_stages(getattr(obj, "num_stages", None))
    value = _unwrap(cg.visit(it))
    if isinstance(value, (tuple, list)):
        return "static", value, None
    raise cg.error(it, "for loops in kernels can iterate over range(), kl.range(), "
                   "kl.static_range() or a compile-time tuple", UnsupportedLanguageConstruct)


def _static_for(cg, node, values):
    frame = cg.frame
    if len(values) > MAX_STATIC_UNROLL:
        raise ValueError(f"static loop of {len(values)} iterations exceeds the unroll limit "
                         f"({MAX_STATIC_UNROLL})")
    frame.loops.append("static")
    try:
        for v in values:
            cg.bind(node.target, v, node)
            cg.visit_body(node.body)
            if frame.returned:
                break
    finally:
        frame.loops.pop()


def find_carried(cg, body, scope, sites, loop, bind_iv, skip):
    """Dry-run ``body`` to find the loop-carried variables: [(name, type, site)].

    Iterates to a fixed point because a compile-time number that the body changes becomes a
    runtime value, which can change what the body does."""
    frame = cg.frame
    forced = {}
    for _ in range(4):
        placeholders = {n: from_leaves(ty, iter([cg.b.fresh() for _ in leaf_types(ty)]))
                        for n, ty in forced.items()}

        def prelude():
            if bind_iv:
                bind_iv()
            frame.scope.update(placeholders)
        start = dict(scope, **placeholders)
        _, body_scope, body_sites = _run_block(cg, body, scope, sites, loop, prelude)
        frame.scope, frame.sites = dict(scope), dict(sites)
        found = {}
        for n, v in body_scope.items():
            if n == skip or n not in scope or start[n] is v:
                continue
            ty = reconcile(cg, "Loop-carried variable", n, start[n], sites.get(n),
                           "before the loop", v, body_sites.get(n),
                           "at the end of the loop body", body_sites.get(n))
            if ty is not None:
                found[n] = (ty, body_sites.get(n))
        for n, ty in forced.items():
            found.setdefault(n, (ty, sites.get(n)))
        types = {n: ty for n, (ty, _) in found.items()}
        if types == forced:
            return [(n, ty, site) for n, (ty, site) in found.items()], body_scope
        forced = types
    raise ValueError("the types of the loop-carried variables do not settle")


def _bind(frame, carried, types, names):
    """Each loop-carried variable named by the IR values ``names`` (a block's arguments)."""
    for (n, _, _), v in zip(carried, _rebuild(types, names)):
        frame.scope[n] = v


def _drop_locals(frame, scope, body_scope, line):
    for n in body_scope:
        if n not in scope:
            frame.dropped[n] = f"it is assigned only inside the loop at line {line}"


def _map_for(cg, node, bounds):
    """``for i in range(...)`` with bounds that are values in map_elementwise's function (each
    element loops its own number of times): the while loop ``i = lb; while i < ub: ...;
    i += step`` (``>`` for a negative step), converted as :func:`converted_while`."""
    lb, ub, step = bounds
    if isinstance(step, tensor) or not isinstance(step, int) or step == 0:
        raise cg.error(node.iter, "a range over values in map_elementwise's function needs a "
                       "nonzero compile-time step", UnsupportedLanguageConstruct)
    frame = cg.frame
    n = len(frame.scope)
    names = {"i": f"_kiln_map_i{n}", "ub": f"_kiln_map_ub{n}"}
    frame.scope[names["i"]], frame.scope[names["ub"]] = lb, ub

    def at(x):
        return ast.copy_location(x, node)
    load = {k: at(ast.Name(id=v, ctx=ast.Load())) for k, v in names.items()}
    test = at(ast.Compare(left=load["i"], ops=[ast.Lt() if step > 0 else ast.Gt()],
                          comparators=[load["ub"]]))
    bind = at(ast.Assign(targets=[node.target], value=load["i"]))
    bump = at(ast.Assign(targets=[at(ast.Name(id=names["i"], ctx=ast.Store()))],
                         value=at(ast.BinOp(left=load["i"], op=ast.Add(),
                                            right=at(ast.Constant(value=step))))))
    for stmt in (bind, bump):
        ast.fix_missing_locations(stmt)
    loop = at(ast.While(test=test, body=[bind] + list(node.body) + [bump], orelse=[]))
    visit_while(cg, loop)
    for name in names.values():
        frame.scope.pop(name, None)
        frame.dropped.pop(name, None)


def visit_for(cg, node):
    if node.orelse:
        raise cg.error(node, "for ... else is not supported in kernels",
                       UnsupportedLanguageConstruct)
    kind, spec, num_stages = loop_iterator(cg, node)
    if kind == "static":
        return _static_for(cg, node, spec)
    cg.check_runtime_control_flow(node, "for loop")
    if not isinstance(node.target, ast.Name):
        raise cg.error(node.target, "the target of a runtime for loop must be a name",
                       UnsupportedLanguageConstruct)
    sem, b, frame = cg.sem, cg.b, cg.frame
    bounds = list(spec)
    if sem.map_depth and any(isinstance(v, tensor) and v.type.is_block for v in bounds):
        return _map_for(cg, node, bounds)
    for i, v in enumerate(bounds):
        if isinstance(v, tensor):
            if v.type.is_block or not v.dtype.is_int():
                raise cg.error(node.iter, f"range bounds must be integer scalars, got {v.type}")
        elif not isinstance(v, int):
            raise cg.error(node.iter, f"range bounds must be integers, got {v!r}")
    step = bounds[2]
    negative = False
    if not isinstance(step, tensor):
        if step == 0:
            raise cg.error(node.iter, "range step must not be zero")
        negative = step < 0
    wide = any(isinstance(v, tensor) and v.dtype.primitive_bitwidth == 64 for v in bounds) or \
        any(not isinstance(v, tensor) and not -2**31 <= v < 2**31 for v in bounds)
    ivty = kl.int64 if wide else kl.int32
    lb, ub, st = (sem.cast(v, ivty) if isinstance(v, tensor) else v for v in bounds)
    if negative:  # iterate -lb, -lb+|step|, ... < -ub and negate the induction variable
        lb, ub, st = (sem.unary("neg", v) if isinstance(v, tensor) else -v for v in (lb, ub, st))
    lb, ub, st = (v if isinstance(v, tensor) else sem.scalar_constant(v, ivty)
                  for v in (lb, ub, st))

    iv = b.fresh()
    target = node.target.id

    def bind_iv():
        v = tensor(iv, ivty)
        frame.scope[target] = sem.unary("neg", v) if negative else v
        frame.sites[target] = frame.src.position(node.target)

    scope, sites = dict(frame.scope), dict(frame.sites)
    carried, _ = find_carried(cg, node.body, scope, sites, "for", bind_iv, target)
    inits = [v for n, ty, _ in carried for v in _leaves(cg, scope[n], ty)]
    types = [ty for _, ty, _ in carried]
    flat = _flat_types(types)
    args = [b.fresh() for _ in flat]

    def prelude():
        bind_iv()
        _bind(frame, carried, types, args)

    body, body_scope, body_sites = _run_block(cg, node.body, scope, sites, "for", prelude,
                                              [(iv, ivty)] + list(zip(args, flat)))
    with b.insertion(body):
        values = []
        for n, ty, site in carried:
            try:
                leaves = _leaves(cg, body_scope[n], ty)
            except Mismatch:
                leaves = None
            if leaves is None or [v.type for v in leaves] != leaf_types(ty):
                reconcile(cg, "Loop-carried variable", n, scope[n], sites.get(n),
                          "before the loop", body_scope[n], body_sites.get(n),
                          "at the end of the loop body", body_sites.get(n))
            values.extend(leaves)
        b.create("scf.yield", values)
    frame.scope, frame.sites = dict(scope), dict(sites)

    attrs = None
    if num_stages:
        ty = "i32" if num_stages < 2**31 else "i64"
        attrs = {"tile.num_stages": b.int_attr(num_stages, ty)}
    names = b.create("scf.for", [lb, ub, st] + inits, flat, attrs, [body])
    for (n, ty, site), v in zip(carried, _rebuild(types, names)):
        frame.scope[n], frame.sites[n] = v, site
    _drop_locals(frame, scope, body_scope, frame.src.position(node)[1])


# ---------------------------------------------------------------------------------------------
# while
# ---------------------------------------------------------------------------------------------


def _reject_jumps(cg, node):
    stack = list(node.body)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.Break, ast.Continue)):
            word = "break" if isinstance(n, ast.Break) else "continue"
            raise cg.error(n, f"while loops with {word} are not supported in kernels",
                           UnsupportedLanguageConstruct)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef,
                          ast.For, ast.While)):
            if isinstance(n, (ast.For, ast.While)):
                stack.extend(n.orelse)  # jumps in nested loops belong to those loops
            continue
        stack.extend(ast.iter_child_nodes(n))


def _any(sem, c):
    """Whether any element of the boolean tensor ``c`` is true: a runtime scalar, the same in
    every thread."""
    x = sem.cast(c, kl.int32)
    while x.type.is_block:
        x = sem.reduce(x, len(x.type.shape) - 1, lambda u, v: sem.binary("or", u, v))
    return sem.compare("ne", x, 0)


def converted_while(cg, node, cond):
    """A ``while`` on a tensor in map_elementwise's function (Gluon runs that function on each
    element, so each element loops until its own condition fails): one loop that runs while
    any element's condition holds; an iteration updates only the elements whose condition
    still holds (``where(cond, new, old)``), the others keep their values. A variable the
    loop carries starts as a tensor of the condition's shape (a number or scalar is
    broadcast). Inside another such loop only that loop's active elements iterate. The body
    may not store, print or call out: it runs for every element."""
    sem, b, frame = cg.sem, cg.b, cg.frame
    shape, layout = list(cond.type.shape), cond.type.layout
    masks = sem.map_loop_masks
    # Every number or scalar the body assigns becomes a tensor of the condition's shape first:
    # each element carries its own (this loop's and any loop nested in it).
    assigned = {t.id for st in node.body for t in ast.walk(st)
                if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store)}
    for n in sorted(assigned):
        v = _unwrap(frame.scope.get(n))
        if _is_number(v) or (isinstance(v, tensor) and not v.type.is_block):
            dt = v.dtype if isinstance(v, tensor) else sem.default_dtype(v)
            frame.scope[n] = sem.full(shape, v, dt, layout)
    scope, sites = dict(frame.scope), dict(frame.sites)
    carried, _ = find_carried(cg, node.body, scope, sites, "while", None, None)
    for n, ty, _ in carried:
        v = _unwrap(scope[n])
        if parts_of(v) is not None or isinstance(v, shared_memory_descriptor):
            raise cg.error(node, f"'{n}': a while loop on a value in map_elementwise's "
                           f"function carries tensors and numbers only",
                           UnsupportedLanguageConstruct)
    scope, sites = dict(frame.scope), dict(frame.sites)
    inits = [v for n, ty, _ in carried for v in _leaves(cg, scope[n], ty)]
    types = [ty for _, ty, _ in carried]
    tys = _flat_types(types)
    bargs = [b.fresh() for _ in tys]
    aargs = [b.fresh() for _ in tys]
    ctype = cond.type
    carg = b.fresh()

    before = Block(zip(bargs, tys))
    frame.scope = dict(scope)
    with b.insertion(before):
        _bind(frame, carried, types, bargs)
        c = _unwrap(cg.visit(node.test))
        if not isinstance(c, tensor) or c.type != ctype:
            raise cg.error(node.test, "the condition of a while loop on a value in "
                           "map_elementwise's function must keep its type",
                           UnsupportedLanguageConstruct)
        if masks:  # inside another such loop: only its active elements iterate
            c = sem.binary("and", c, masks[-1])
        b.create("scf.condition", [_any(sem, c), c] + [tensor(a, t) for a, t in zip(bargs, tys)])

    def prelude():
        _bind(frame, carried, types, aargs)

    active = tensor(carg, ctype)
    masks.append(active)
    try:
        after, body_scope, body_sites = _run_block(cg, node.body, scope, sites, "while",
                                                   prelude,
                                                   [(carg, ctype)] + list(zip(aargs, tys)))
    finally:
        masks.pop()
    for line in after.lines:
        if any(op in line for op in _SIDE_EFFECTS):
            raise cg.error(node, "a while loop on a value in map_elementwise's function runs "
                           "its body for every element until all are done, so the body may "
                           "not store, print or call out; compute values",
                           UnsupportedLanguageConstruct)
    with b.insertion(after):
        new = [v for n, ty, _ in carried for v in _leaves(cg, body_scope[n], ty)]
        b.create("scf.yield", [sem.where(active, nv, tensor(a, t))
                               for nv, a, t in zip(new, aargs, tys)])
    frame.scope, frame.sites = dict(scope), dict(sites)
    names = b.create("scf.while", inits, [ctype] + tys, regions=[before, after])
    for (n, ty, site), v in zip(carried, _rebuild(types, names[1:])):
        frame.scope[n], frame.sites[n] = v, site
    _drop_locals(frame, scope, body_scope, frame.src.position(node)[1])


def visit_while(cg, node):
    if node.orelse:
        raise cg.error(node, "while ... else is not supported in kernels",
                       UnsupportedLanguageConstruct)
    _reject_jumps(cg, node)
    sem, b, frame = cg.sem, cg.b, cg.frame
    scope, sites = dict(frame.scope), dict(frame.sites)
    with b.insertion(Block()):
        cond = _unwrap(cg.visit(node.test))
    never_ends = ValueError("while loop with a compile-time true condition never ends "
                            "(break is not supported)")
    if not isinstance(cond, tensor) and not cond:
        return
    if isinstance(cond, tensor) and cond.type.is_block and sem.map_depth:
        return converted_while(cg, node, cond)
    cg.check_runtime_control_flow(node, "while loop")

    def check_cond(c):
        c = _unwrap(c)
        if not isinstance(c, tensor):
            raise never_ends
        if c.type.is_block:
            raise cg.error(node.test, "the condition of a while loop must be a runtime scalar")
        return sem.cast(c, kl.int1)

    carried, _ = find_carried(cg, node.body, scope, sites, "while", None, None)
    if not isinstance(cond, tensor) and not carried:
        # True before the first iteration, and nothing the body changes can make it false
        # (`while j < n` with both compile-time values becomes a runtime loop once the body
        # changes j: j is carried, the condition read from it).
        raise never_ends
    inits = [v for n, ty, _ in carried for v in _leaves(cg, scope[n], ty)]
    types = [ty for _, ty, _ in carried]
    tys = _flat_types(types)
    bargs = [b.fresh() for _ in tys]
    aargs = [b.fresh() for _ in tys]

    before = Block(zip(bargs, tys))
    frame.scope = dict(scope)
    with b.insertion(before):
        _bind(frame, carried, types, bargs)
        c = check_cond(cg.visit(node.test))
        b.create("scf.condition", [c] + [tensor(a, t) for a, t in zip(bargs, tys)])

    def prelude():
        _bind(frame, carried, types, aargs)

    after, body_scope, body_sites = _run_block(cg, node.body, scope, sites, "while", prelude,
                                               list(zip(aargs, tys)))
    with b.insertion(after):
        b.create("scf.yield", [v for n, ty, _ in carried
                               for v in _leaves(cg, body_scope[n], ty)])
    frame.scope, frame.sites = dict(scope), dict(sites)
    names = b.create("scf.while", inits, tys, regions=[before, after])
    for (n, ty, site), v in zip(carried, _rebuild(types, names)):
        frame.scope[n], frame.sites[n] = v, site
    _drop_locals(frame, scope, body_scope, frame.src.position(node)[1])
