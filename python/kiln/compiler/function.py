"""A Python function as the compiler sees it: its parsed source, its constexpr arguments and
the globals its code generation reads (the cache identity).

:class:`kiln.jit.JITFunction` (``@kiln.jit``) subclasses :class:`KernelFunction` with
specialization and launches; :func:`kiln.compile` wraps a plain function in a
:class:`KernelFunction`. Keeping this here, below kiln.jit, lets the compiler handle functions
without importing kiln.jit (which imports the compiler).
"""

from __future__ import annotations

import functools
import inspect
import types
from typing import Dict

from ..language._core import constexpr
from .codegen import FunctionSource
from .triton_interop import is_constexpr_annotation, set_helper_factory
from .deps import MISSING as _MISSING, Dependencies, bound_names, name_chains

__all__ = ["KernelFunction", "as_kernel_function"]


def _is_constexpr_annotation(ann) -> bool:
    return is_constexpr_annotation(ann)  # kl.constexpr, tl.constexpr or a string


class KernelFunction:
    """A function kernels are compiled from (or inline): ``fn``, its ``signature``,
    ``arg_names``, ``constexpr_names``, parsed ``src`` and dependency fingerprint."""

    __kiln_jit__ = True

    def __init__(self, fn):
        self.fn = fn
        functools.update_wrapper(self, fn)
        self.signature = inspect.signature(fn)
        self.arg_names = list(self.signature.parameters)
        self.constexpr_names = {n for n, p in self.signature.parameters.items()
                                if _is_constexpr_annotation(p.annotation)}
        self._src = None
        self._dep_names = None
        self._local_names = None
        self._used_globals: Dict[tuple, object] = {}
        self._globals_same: tuple = ()  # (globals dict, name, object): checked by identity
        self._globals_by_value = False  # some used global needs UsedGlobal.changed()

    @property
    def src(self):
        if self._src is None:
            self._src = FunctionSource(self.fn)
        return self._src

    def __repr__(self):
        return f"{type(self).__name__}({self.fn.__module__}:{self.fn.__qualname__})"

    # -- cache identity ------------------------------------------------------------------------

    def dependency_names(self):
        """Names (and attribute chains) the body reads that may resolve to globals."""
        if self._dep_names is None:
            self._dep_names = name_chains(self.src.fdef)
        return self._dep_names

    def local_names(self):
        """Arguments and names the body assigns: never globals."""
        if self._local_names is None:
            self._local_names = bound_names(self.src.fdef)
        return self._local_names

    def dependencies(self):
        """Walk everything this function's code generation reads (see
        :mod:`kiln.compiler.deps`): ``.jit_fingerprint(self)`` was computed, ``.used`` lists
        the globals read."""
        deps = Dependencies()
        deps.jit_fingerprint(self)
        return deps

    def cache_fingerprint(self) -> str:
        """Hash of this function's file, position and source and of every global it reads,
        transitively: @kiln.jit callees and Python helpers by source, values (constexprs,
        layouts, dtypes, numbers, tuples) by value."""
        return self.dependencies().jit_fingerprint(self)

    def _check_globals(self):
        """Raise if a global read when compiling an earlier specialization was rebound."""
        # Names still bound to the very object compiled against (modules, functions) are
        # unchanged: one dict lookup each. The rest compare by value.
        for root, key, value in self._globals_same:
            if root.get(key, _MISSING) is not value:
                break
        else:
            if not self._globals_by_value:
                return
        for used in self._used_globals.values():
            changed, new = used.changed()
            if changed:
                raise used.error(self.__name__, new)

    def _record_globals(self, deps):
        for ident, used in deps.used.items():
            self._used_globals.setdefault(ident, used)
        same, by_value = [], False
        for used in self._used_globals.values():
            if (isinstance(used.root, dict) and not used.path
                    and isinstance(used.value, (types.ModuleType, types.FunctionType, type))):
                same.append((used.root, used.key, used.value))
            else:
                by_value = True
        self._globals_same = tuple(same)
        self._globals_by_value = by_value


def as_kernel_function(fn) -> KernelFunction:
    """``fn`` itself if it is a @kiln.jit function (or another :class:`KernelFunction`), a
    :class:`KernelFunction` wrapping it if it is a plain Python function."""
    if getattr(fn, "__kiln_jit__", False):
        return fn
    if inspect.isfunction(fn):
        return KernelFunction(fn)
    raise TypeError(f"kiln.compile expects a @kiln.jit function, got {fn!r}")


set_helper_factory(KernelFunction)  # a @triton.jit helper compiles as one of these
