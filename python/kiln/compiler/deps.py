"""What a kernel's code generation reads besides its arguments.

Code generation reads the kernel's source, the ``@kiln.jit`` functions it inlines, and the
globals (and closure variables) those functions name: constexprs, layouts, dtypes, numbers,
``@kl.constexpr_function`` helpers and whatever those helpers read in turn. :class:`Dependencies`
walks all of it once per compile and produces

* a fingerprint (part of the on-disk cache key): values are hashed by value (layouts, dtypes,
  numbers, tuples …), Python functions by source, transitively;
* the list of globals that were read (:class:`UsedGlobal`), so that a ``@kiln.jit`` function
  can tell, on its next launch, that one of them was rebound after the kernel was compiled.

Modules of Kiln itself and of the Python standard library are identified by name (Kiln's own
sources are covered by the frontend hash, the standard library does not change under a
running interpreter).
"""

from __future__ import annotations

import ast
import enum
import hashlib
import inspect
import sys
import textwrap
import types
from typing import Dict, Iterable, List, Tuple

from ..language._core import constexpr, dtype, pointer_type
from ..language._layouts import DistributedLayout, SharedLayout
from ..language.aggregates import aggregate_fields, aggregate_token
from .triton_interop import to_kiln

__all__ = ["Dependencies", "UsedGlobal", "GlobalChangedError", "value_token", "MISSING"]

_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ())) | {"builtins"}


class _Missing:
    def __repr__(self):
        return "<undefined>"


MISSING = _Missing()


class GlobalChangedError(RuntimeError):
    """A global that a compiled kernel read was rebound afterwards (like Triton, Kiln does not
    silently keep running the kernel compiled for the old value)."""


def _library_name(name) -> bool:
    """True for modules of Kiln or of the standard library (identified by name)."""
    top = str(name or "").partition(".")[0]
    return top == "kiln" or top in _STDLIB


def _short_repr(value, limit=120) -> str:
    try:
        text = repr(value)
    except Exception:  # pragma: no cover - a broken __repr__
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[:limit - 3] + "..."


# ---------------------------------------------------------------------------------------------
# reading a function: the dotted names it uses and the names it binds
# ---------------------------------------------------------------------------------------------


def _walk_code(tree):
    """``ast.walk`` over what runs when the function is compiled: a function's decorators are
    left out (they ran when it was defined; an autotuner's config list is not kernel code)."""
    if isinstance(tree, (ast.FunctionDef, ast.AsyncFunctionDef)):
        roots = [tree.args, *tree.body] + ([tree.returns] if tree.returns else [])
        for root in roots:
            yield from ast.walk(root)
    else:
        yield from ast.walk(tree)


def name_chains(tree) -> List[Tuple[str, ...]]:
    """Every ``a`` and ``a.b.c`` the tree reads (a function's decorators aside), sorted."""
    chains = set()
    for node in _walk_code(tree):
        if isinstance(node, ast.Attribute):
            parts, cur = [], node
            while isinstance(cur, ast.Attribute):
                parts.append(cur.attr)
                cur = cur.value
            if isinstance(cur, ast.Name):
                chains.add(tuple([cur.id] + parts[::-1]))
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            chains.add((node.id,))
    return sorted(chains)


def bound_names(fdef) -> frozenset:
    """Names the function binds itself (arguments and assignment targets): they are locals,
    not globals, whatever a module-level name of the same spelling holds."""
    names = set()
    for node in ast.walk(fdef):
        if isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) \
                and node is not fdef:
            names.add(node.name)
    return frozenset(names)


def _closure_cells(pyfn) -> Dict[str, object]:
    cells = {}
    if getattr(pyfn, "__closure__", None):
        for name, cell in zip(pyfn.__code__.co_freevars, pyfn.__closure__):
            cells[name] = cell
    return cells


def _cell_value(cell):
    try:
        return cell.cell_contents
    except ValueError:
        return MISSING


def _step(obj, attr):
    """``getattr`` through modules and classes (the objects whose attributes are program
    entities); MISSING when ``obj`` is something else or lacks ``attr``."""
    if not isinstance(obj, (types.ModuleType, type)):
        return MISSING
    try:
        return getattr(obj, attr, MISSING)
    except Exception:
        return MISSING


class UsedGlobal:
    """One name a kernel's code generation read: ``root`` (a globals dict or a closure cell)
    ``[key]``, then ``path`` attributes through modules/classes; ``value`` as compiled."""

    __slots__ = ("owner", "root", "key", "path", "value", "token")

    def __init__(self, owner: str, root, key: str, path: Tuple[str, ...], value, token: str):
        self.owner, self.root, self.key, self.path = owner, root, key, path
        self.value, self.token = value, token

    @property
    def label(self) -> str:
        return ".".join((self.key,) + self.path)

    def current(self):
        if isinstance(self.root, dict):
            obj = self.root.get(self.key, MISSING)
        else:
            obj = _cell_value(self.root)
        for attr in self.path:
            if obj is MISSING:
                break
            obj = _step(obj, attr)
        return obj

    def changed(self) -> Tuple[bool, object]:
        """(whether the value differs from the compiled one, the current value)."""
        new = self.current()
        if new is self.value and not isinstance(new, (list, dict, set, bytearray)):
            return False, new
        if new is MISSING:
            return True, new
        try:
            return value_token(new) != self.token, new
        except Exception:  # pragma: no cover - defensive: treat as changed
            return True, new

    def error(self, kernel_name: str, new) -> GlobalChangedError:
        return GlobalChangedError(
            f"global '{self.label}' (read by {self.owner}) changed after kernel "
            f"'{kernel_name}' was compiled: it was {_short_repr(self.value)} and is now "
            f"{_short_repr(new)}. Kiln does not recompile a kernel when a global it read is "
            f"rebound; restart the process after changing it, or pass the value as a "
            f"constexpr argument instead.")


# ---------------------------------------------------------------------------------------------
# fingerprints
# ---------------------------------------------------------------------------------------------

_SOURCE_CACHE: Dict[tuple, tuple] = {}


def _function_source(pyfn):
    """-> (source text or None, parsed FunctionDef or None) of a plain Python function."""
    code = pyfn.__code__
    key = (code, code.co_filename)
    hit = _SOURCE_CACHE.get(key)
    if hit is not None:
        return hit
    text, fdef = None, None
    try:
        text = inspect.getsource(pyfn)
        tree = ast.parse(textwrap.dedent(text))
        fdef = next((n for n in tree.body
                     if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))), None)
    except (OSError, TypeError, SyntaxError, IndentationError):
        fdef = None
    result = (text, fdef)
    _SOURCE_CACHE[key] = result
    return result


def _code_token(code) -> str:
    """A deterministic text for a code object (used when the source is not available)."""
    parts = [code.co_name, code.co_code.hex(), ",".join(code.co_names),
             ",".join(code.co_varnames)]
    for const in code.co_consts:
        parts.append(_code_token(const) if isinstance(const, types.CodeType) else
                     f"{type(const).__name__}:{const!r}")
    return "|".join(parts)


def _code_names(code) -> set:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _code_names(const)
    return names


class Dependencies:
    """Walks what one compile reads. ``jit_fingerprint(fn)`` gives the fingerprint of a
    ``@kiln.jit`` function; ``used`` collects the globals read on the way."""

    def __init__(self):
        self.used: Dict[tuple, UsedGlobal] = {}
        self._done: Dict[int, str] = {}
        self._active = set()
        self._keep = []  # objects whose id() is a key of _done stay alive meanwhile
        self._depth = 0

    # -- values ---------------------------------------------------------------------------------

    def token(self, v) -> str:
        """A deterministic text for a compile-time value."""
        self._depth += 1
        try:
            if self._depth > 64:  # a container that holds itself
                return f"deep:{type(v).__qualname__}"
            return self._token(v)
        finally:
            self._depth -= 1

    def _token(self, v) -> str:
        v = to_kiln(v)  # a triton.language dtype or @triton.jit helper: as Kiln compiles it
        if isinstance(v, constexpr):
            return "constexpr:" + self.token(v.value)
        if v is None or isinstance(v, (bool, int, float, complex, str, bytes)):
            return f"{type(v).__name__}:{v!r}"
        if isinstance(v, (dtype, pointer_type, DistributedLayout, SharedLayout)):
            return v.mangle()
        if isinstance(v, (tuple, list)):
            inner = ",".join(self.token(x) for x in v)
            return f"({inner})" if isinstance(v, tuple) else f"[{inner}]"
        if isinstance(v, (set, frozenset)):
            return "{" + ",".join(sorted(self.token(x) for x in v)) + "}"
        if isinstance(v, dict):
            return "{" + ",".join(sorted(f"{self.token(k)}:{self.token(x)}"
                                         for k, x in v.items())) + "}"
        if getattr(v, "__kiln_jit__", False):
            return "jit:" + self.jit_fingerprint(v)
        if isinstance(v, enum.Enum):
            return f"enum:{type(v).__module__}.{type(v).__qualname__}.{v.name}"
        if isinstance(v, types.ModuleType):
            return "module:" + v.__name__
        if isinstance(v, type):
            if aggregate_fields(v) is not None:  # its methods are inlined through instances
                return aggregate_token(v, self.token)
            return f"type:{v.__module__}.{v.__qualname__}"
        if isinstance(v, types.FunctionType):
            return "pyfn:" + self.function_fingerprint(v)
        if isinstance(v, types.MethodType):
            return f"method:{self.token(v.__func__)}@{self.token(v.__self__)}"
        if isinstance(v, MISSING.__class__):
            return "missing"
        if callable(v) and hasattr(v, "__qualname__"):
            return f"fn:{getattr(v, '__module__', None)}.{v.__qualname__}"
        if hasattr(v, "__index__"):
            try:
                return f"int:{v.__index__()}"
            except Exception:
                pass
        mangle = getattr(v, "mangle", None)
        if callable(mangle):
            try:
                return f"{type(v).__qualname__}:{mangle()}"
            except Exception:
                pass
        # An object a kernel cannot use as a compile-time value (code generation rejects it);
        # its type is enough, and a repr could carry an address or be huge.
        return f"obj:{type(v).__module__}.{type(v).__qualname__}"

    # -- names ------------------------------------------------------------------------------------

    def _resolve(self, owner: str, pyfn, chain, record: bool = True):
        """The object ``chain`` names in ``pyfn``'s closure or globals (following attributes
        through modules and classes), recording it as used; MISSING if it names nothing."""
        cells = _closure_cells(pyfn)
        head = chain[0]
        if head in cells:
            root = cells[head]
            obj = _cell_value(root)
            if obj is MISSING:
                return MISSING
        else:
            root = pyfn.__globals__
            if head not in root:
                return MISSING
            obj = root[head]
        base = obj
        path = []
        for attr in chain[1:]:
            nxt = _step(obj, attr)
            if nxt is MISSING:
                break
            obj = nxt
            path.append(attr)
        if record:
            if isinstance(base, types.ModuleType) and _library_name(base.__name__):
                self._record(owner, root, head, (), base)  # Kiln/stdlib modules do not change
            else:
                self._record(owner, root, head, tuple(path), obj)
        return obj

    def _record(self, owner, root, key, path, value):
        ident = (id(root), key, path)
        if ident not in self.used:
            self.used[ident] = UsedGlobal(owner, root, key, path, value, self.token(value))

    # -- functions ----------------------------------------------------------------------------

    def jit_fingerprint(self, fn) -> str:
        """Hash of a ``@kiln.jit`` function's file, position and source and of everything its
        names resolve to (other jit functions and helpers transitively)."""
        ident = id(fn)
        if ident in self._done:
            return self._done[ident]
        h = hashlib.sha256()
        h.update(f"{fn.src.file}:{fn.src.first_line}\n".encode())
        h.update(fn.src.text.encode())
        if ident in self._active:  # recursion: the source identifies it
            return h.hexdigest()
        self._active.add(ident)
        try:
            owner = f"{fn.fn.__module__}.{fn.fn.__qualname__}"
            local = fn.local_names()
            for chain in fn.dependency_names():
                if chain[0] in local:
                    continue
                obj = self._resolve(owner, fn.fn, chain)
                if obj is MISSING:
                    continue
                h.update(f"{'.'.join(chain)}={self.token(obj)}\n".encode())
        finally:
            self._active.discard(ident)
        self._keep.append(fn)
        self._done[ident] = h.hexdigest()
        return self._done[ident]

    def function_fingerprint(self, pyfn) -> str:
        """Hash of a plain Python function (e.g. a ``@kl.constexpr_function``): its source,
        defaults, closure and the globals it reads, transitively. Functions of Kiln or of the
        standard library are identified by name."""
        module = getattr(pyfn, "__module__", None)
        if _library_name(module):
            return f"{module}.{pyfn.__qualname__}"
        ident = id(pyfn)
        if ident in self._done:
            return self._done[ident]
        h = hashlib.sha256()
        text, fdef = _function_source(pyfn)
        h.update((text if text is not None else _code_token(pyfn.__code__)).encode())
        if ident in self._active:
            return h.hexdigest()
        self._active.add(ident)
        try:
            h.update(f"defaults={self.token(pyfn.__defaults__)}\n".encode())
            h.update(f"kwdefaults={self.token(pyfn.__kwdefaults__)}\n".encode())
            owner = f"{module}.{pyfn.__qualname__}"
            if fdef is not None:
                local = bound_names(fdef) - set(_closure_cells(pyfn))
                chains: Iterable = (c for c in name_chains(fdef) if c[0] not in local)
            else:
                names = _code_names(pyfn.__code__) | set(pyfn.__code__.co_freevars)
                chains = ((n,) for n in sorted(names))
            for chain in chains:
                obj = self._resolve(owner, pyfn, chain)
                if obj is MISSING:
                    continue
                h.update(f"{'.'.join(chain)}={self.token(obj)}\n".encode())
        finally:
            self._active.discard(ident)
        self._keep.append(pyfn)
        self._done[ident] = h.hexdigest()
        return self._done[ident]


def value_token(value) -> str:
    """A deterministic text for ``value`` (see :meth:`Dependencies.token`)."""
    return Dependencies().token(value)
