"""Early returns, made structured: a ``return`` inside an ``if`` (of a kernel or of an inlined
``@kiln.jit`` helper) is what Triton and Gluon accept and what the code generator cannot place
in an ``scf.if`` region. Before the body is compiled, an ``if`` one of whose branches returns
takes the statements after it into the branch that falls through, and every return becomes an
assignment to one hidden variable that the function returns at its end; the ``if`` then merges
that variable like any other, and only that: the other names its branches assign are not read
after it (so one may change type in the branch that goes on, as after Triton's early return).

A ``for`` whose body returns is left to the code generator with the statements after it
(``UnrollReturns``): once its iterator is known, a static loop (``kl.static_range``, a
compile-time tuple) is unrolled into its trips and the result folded as above, as Triton,
which unrolls ``static_range`` before it sees the return. Returns inside runtime loops stay
an error at the user's line."""

from __future__ import annotations

import ast
import copy
from typing import List

# Not a Python identifier: no user name can clash, and merge errors read "<return value>".
RETURN_VALUE = "<return value>"


def _returns_in(stmts) -> bool:
    """Whether a return is nested in ``stmts`` (not inside a nested function)."""
    todo = list(stmts)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Return):
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        todo.extend(ast.iter_child_nodes(node))
    return False


class UnrollReturns(ast.stmt):
    """A ``for`` whose body returns, and the statements after it (``rest``): unrolled by the
    code generator (``expand_unrolled``) once the loop's values are known."""
    _fields = ("loop", "rest")


class BindTrip(ast.stmt):
    """Binds an unrolled trip's loop target to its value (a compile-time value that need not
    be expressible as Python source)."""
    _fields = ("target",)


def _always_returns(stmts) -> bool:
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, ast.Return):
        return True
    if isinstance(last, ast.If):
        return _always_returns(last.body) and _always_returns(last.orelse)
    return False


def _fold(stmts: List[ast.stmt]) -> List[ast.stmt]:
    """The statements after an ``if`` that returns on some path go into its branches that
    do not always return."""
    out = []
    for i, st in enumerate(stmts):
        if isinstance(st, ast.For) and _returns_in(st.body):
            out.append(ast.copy_location(UnrollReturns(loop=st, rest=stmts[i + 1:]), st))
            return out
        if isinstance(st, ast.If) and (_returns_in(st.body) or _returns_in(st.orelse)):
            rest = stmts[i + 1:]
            body = st.body if _always_returns(st.body) else st.body + rest
            orelse = st.orelse if _always_returns(st.orelse) else st.orelse + rest
            new = ast.If(test=st.test, body=_fold(body), orelse=_fold(orelse))
            # Nothing but the return value is read after it (the statements after it went
            # into its branches): its branches merge only that (runtime_if).
            new._kiln_tail = True
            out.append(ast.copy_location(new, st))
            return out
        out.append(st)
    return out


def _assign_returns(stmts: List[ast.stmt]) -> List[ast.stmt]:
    """Tail returns (the only kind left after _fold, loops aside) become assignments."""
    out = list(stmts)
    if not out:
        return out
    last = out[-1]
    if isinstance(last, ast.Return):
        value = last.value if last.value is not None else ast.Constant(value=None)
        ast.copy_location(value, last)
        target = ast.copy_location(ast.Name(id=RETURN_VALUE, ctx=ast.Store()), last)
        out[-1] = ast.copy_location(ast.Assign(targets=[target], value=value), last)
    elif isinstance(last, ast.If):
        new = ast.If(test=last.test, body=_assign_returns(last.body),
                     orelse=_assign_returns(last.orelse))
        new._kiln_tail = getattr(last, "_kiln_tail", False)
        out[-1] = ast.copy_location(new, last)
    return out


def structured_body(fdef: ast.FunctionDef) -> List[ast.stmt]:
    """``fdef``'s body with early returns from ``if`` statements made structured (the body
    itself when it has none)."""
    cached = getattr(fdef, "_kiln_structured_body", None)
    if cached is not None:
        return cached
    body = fdef.body
    early = any(isinstance(st, (ast.If, ast.For)) and _returns_in([st]) for st in body)
    if early:
        if not _always_returns(body):  # falling off the end returns None
            body = body + [ast.copy_location(ast.Return(value=None), body[-1])]
        folded = _fold(body)
        end = folded[-1]
        body = _assign_returns(folded)
        load = ast.copy_location(ast.Name(id=RETURN_VALUE, ctx=ast.Load()), end)
        body.append(ast.copy_location(ast.Return(value=load), end))
    fdef._kiln_structured_body = body
    return body


def expand_unrolled(node: UnrollReturns, values) -> List[ast.stmt]:
    """``node``'s loop unrolled over ``values`` (each trip its target bound, then a fresh copy
    of the body), followed by the statements after the loop, with early returns folded."""
    loop = node.loop
    stmts: List[ast.stmt] = []
    for value in values:
        bind = ast.copy_location(BindTrip(target=loop.target), loop)
        bind.value = value
        stmts.append(bind)
        stmts.extend(copy.deepcopy(loop.body))
    stmts.extend(node.rest)
    return _assign_returns(_fold(stmts))


def first_return(stmts):
    """The first ``return`` nested in ``stmts`` (to point an error at)."""
    for node in stmts:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Return):
                return sub
    return None
