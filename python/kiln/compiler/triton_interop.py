"""Kiln's meaning of the ``triton`` objects a Gluon kernel uses.

Gluon kernels mix ``triton.language`` into Gluon code: ``tl.constexpr`` annotations, ``tl``
dtypes passed as constexprs, ``triton.cdiv`` at compile time, ``tl.where`` / ``tl.sum`` /
``tl.math.exp2`` calls, and helpers decorated with ``@triton.jit``. A kernel ported to Kiln by
swapping its Gluon imports keeps all of those, so the compiler translates each Triton object it
meets into Kiln's:

- a ``triton.language`` dtype (``tl.bfloat16``, pointer and block types) -> the Kiln dtype of
  the same name;
- ``tl.constexpr`` (the class, an annotation, or a value) -> :class:`kiln.language.constexpr`;
- a ``triton.language`` function or class -> ``kiln.language``'s of the same name (``math`` and
  ``libdevice`` functions likewise); a ``tl`` function Kiln lacks but Triton writes in Python
  (a ``@jit`` function of ``triton.language``) is compiled from Triton's source like any helper;
  anything else is a placeholder whose use is an error naming it at the user's line;
- a ``@triton.jit`` function -> a Kiln helper compiled from its source (its ``tl.*`` calls
  are translated the same way);
- a ``@triton.constexpr_function`` (``triton.cdiv``, ``triton.next_power_of_2``) -> a
  compile-time function.

The other way round, Triton's runtime wrapping a Kiln kernel (``triton.autotune``,
``triton.heuristics`` or a project's subclass of Triton's ``Autotuner`` over a ``@kiln.jit``
function) finds what it looks for through :func:`link_triton_view`.

Nothing here imports Triton: an object is Triton's when its class or function comes from a
``triton`` module that the user's program already imported.
"""

from __future__ import annotations

import inspect
import sys
import types

from .. import language as kl
from ..language import _core as core
from ..language._constexpr import constexpr, constexpr_function
from ..language import aggregates as _aggr

__all__ = ["to_kiln", "is_triton_object", "is_constexpr_annotation", "TritonOnly",
           "link_triton_view"]

_CACHE: dict = {}  # id(triton object) -> (object, Kiln's meaning); the object keeps the id valid


def _module_of(v) -> str:
    if isinstance(v, (type, types.FunctionType, types.BuiltinFunctionType, types.ModuleType)):
        name = getattr(v, "__module__", None) if not isinstance(v, types.ModuleType) \
            else v.__name__
    else:
        name = getattr(type(v), "__module__", None)
    return name if isinstance(name, str) else ""


def _from_triton(module: str) -> bool:
    return module == "triton" or module.startswith("triton.")


def is_triton_object(v) -> bool:
    """Whether ``v`` is an object of an imported ``triton`` package (never imports it)."""
    return "triton" in sys.modules and _from_triton(_module_of(v))


class TritonOnly:
    """A ``triton.language`` name with no Kiln meaning; calling or using it is an error that
    names it (the code generator reports it at the user's line)."""

    def __init__(self, qualname: str, why: str = ""):
        self.qualname = qualname
        self.why = why

    def message(self) -> str:
        why = self.why or "kiln.language has nothing of that name"
        return f"'{self.qualname}' has no meaning in a Kiln kernel: {why}"

    def __call__(self, *args, **kwargs):
        raise TypeError(self.message())

    def __getattr__(self, name):
        if name.startswith("__") or name in ("qualname", "why"):
            raise AttributeError(name)
        raise AttributeError(self.message())

    def __repr__(self):
        return f"<{self.qualname}: not in Kiln>"


# Triton names whose Kiln counterpart has another name or lives elsewhere.
_RENAMED = {
    "debug_barrier": "thread_barrier",
}

# Names Triton has that a Gluon kernel cannot use either, with the reason.
_WHY = {
    "dot": "Gluon has no tl.dot; use the target's matrix instructions (the mma functions of "
           "kiln.language's vendor modules) or kl.dot_fma",
    "dot_scaled": "Gluon has no tl.dot_scaled; use the target's scaled matrix instruction",
    "make_block_ptr": "block pointers are not part of Gluon; use pointer arithmetic or TMA",
    "advance": "block pointers are not part of Gluon; use pointer arithmetic or TMA",
}


def is_constexpr_annotation(ann) -> bool:
    """``kl.constexpr``, ``tl.constexpr`` or a string ending in ``constexpr``."""
    if ann is constexpr:
        return True
    if isinstance(ann, str):
        return ann.split(".")[-1].strip() == "constexpr"
    return (isinstance(ann, type) and ann.__name__ == "constexpr"
            and _from_triton(getattr(ann, "__module__", "") or ""))


def _dtype(v):
    tl = sys.modules["triton.language"]
    if isinstance(v, getattr(tl, "pointer_type", ())):
        return core.pointer_type(_dtype(v.element_ty), getattr(v, "address_space", 1))
    if isinstance(v, getattr(tl, "block_type", ())):
        return core.block_type(_dtype(v.element_ty), [int(d) for d in v.shape])
    try:
        return core.dtype(v.name)
    except ValueError:
        return TritonOnly(f"tl.{v.name}", "Kiln has no such element type")


def _kiln_module_for(module: str):
    """Where a triton.language function's Kiln counterpart lives."""
    if "libdevice" in module:
        from ..language.extra import libdevice
        return libdevice
    return kl


def _by_name(name: str, module: str):
    target = _kiln_module_for(module)
    found = getattr(target, _RENAMED.get(name, name), None)
    if found is None and target is not kl:
        found = getattr(kl, name, None)
    return found


def _jit_function(v):
    """A @triton.jit function as a Kiln helper: Kiln's builtin of the same name for Triton's own
    language functions, else its Python function compiled from source."""
    fn = v.fn
    module = getattr(fn, "__module__", "") or ""
    if module.startswith("triton.language"):
        same = _by_name(fn.__name__, module)
        if same is not None:
            return same
    return _helper_factory(fn)


_helper_factory = None  # KernelFunction: kiln.compiler.function registers it (no import cycle)


def set_helper_factory(factory) -> None:
    """How a @triton.jit function's Python function becomes a Kiln helper."""
    global _helper_factory
    _helper_factory = factory


class _ProfilerScope:
    """Proton's ``with pl.scope(name):`` in a kernel: Triton instruments the block when a
    profiling session asks for it and compiles it plainly otherwise; Kiln has no Proton
    instrumentation, so the block compiles plainly."""

    def __kiln_enter__(self, _semantic=None):
        return None

    def __kiln_exit__(self, _semantic=None):
        return None


def _profiler_scope(name, *args, **kwargs):
    return _ProfilerScope()


def _profiler_marker(*args, **kwargs):
    return None


_profiler_scope.__kiln_constexpr_function__ = True
_profiler_marker.__kiln_constexpr_function__ = True


def _translate(v, module: str):
    if _aggr.is_triton_made(v):
        return v  # a user's class made by Triton's _aggregate: Kiln builds those as they are
    tl = sys.modules.get("triton.language")
    if module.startswith("triton.experimental"):
        what = getattr(v, "__qualname__", None) or type(v).__qualname__
        return TritonOnly(f"{module}.{what}",
                          "it is Gluon's object, not Kiln's; swap this module's Gluon imports "
                          "for kiln's (triton.experimental.gluon -> kiln)")
    if tl is not None:
        if v is getattr(tl, "constexpr", None):
            return constexpr
        if isinstance(v, getattr(tl, "constexpr", ())):
            return constexpr(to_kiln(v.value))
        if isinstance(v, getattr(tl, "dtype", ())):
            return _dtype(v)
        if v is getattr(tl, "PropagateNan", None):
            return v  # Triton's enum: its members (tl.PropagateNan.ALL) are what Kiln's
            #           maximum / minimum take, as Triton's do
    if module.startswith("triton.profiler"):  # Proton's language: no instrumentation here
        name = getattr(v, "__name__", None)
        if name == "scope":
            return _profiler_scope
        if name in ("enter_scope", "exit_scope"):
            return _profiler_marker
    cls_name = type(v).__name__
    if hasattr(v, "fn") and cls_name in ("ConstexprFunction", "BoundConstexprFunction"):
        same = getattr(kl, getattr(v.fn, "__name__", ""), None) \
            if (getattr(v.fn, "__module__", "") or "").startswith("triton") else None
        return same if same is not None else constexpr_function(v.fn)
    if hasattr(v, "fn") and isinstance(getattr(v, "fn", None), types.FunctionType) and \
            "JITFunction" in [c.__name__ for c in type(v).__mro__]:
        return _jit_function(v)
    if isinstance(v, types.ModuleType):
        return v
    if isinstance(v, type) or callable(v):
        name = getattr(v, "__name__", None)
        if module.startswith("triton.language") and name:
            same = _by_name(name, module)
            if same is not None:
                return same
            short = "tl." + name if module.startswith("triton.language.") else module + "." + name
            return TritonOnly(short, _WHY.get(name, ""))
        if isinstance(v, types.FunctionType):  # a plain helper in a triton module
            return v
        return TritonOnly(f"{module}.{name or type(v).__qualname__}")
    return v


def to_kiln(v):
    """Kiln's meaning of ``v`` when it is a Triton object, else ``v`` itself (cheap)."""
    if "triton" not in sys.modules:
        return v
    module = _module_of(v)
    if not _from_triton(module):
        return v
    try:
        hit = _CACHE.get(id(v))
    except TypeError:
        hit = None
    if hit is not None and hit[0] is v:
        return hit[1]
    out = _translate(v, module)
    if isinstance(v, (type, types.FunctionType)) or hasattr(v, "fn"):  # long-lived objects
        _CACHE[id(v)] = (v, out)
    return out


def is_project_builtin(fn) -> bool:
    """A helper a project wrote with Triton's ``@tl.core.builtin`` (it takes ``_semantic=``),
    not one of triton.language's own (those are translated by name)."""
    return getattr(fn, "__triton_builtin__", False) is True and "triton" in sys.modules \
        and not _from_triton(getattr(fn, "__module__", "") or "")


def _to_triton_value(v):
    """A kernel tuple as Triton's ``tl.tuple`` (such helpers read ``.values``)."""
    if isinstance(v, tuple):
        return sys.modules["triton.language"].tuple([_to_triton_value(x) for x in v])
    return v


def _from_triton_value(v):
    tl = sys.modules.get("triton.language")
    if tl is not None and isinstance(v, getattr(tl, "tuple", ())):
        return tuple(_from_triton_value(x) for x in v.values)
    if isinstance(v, (list, tuple)):
        return type(v)(_from_triton_value(x) for x in v)
    return to_kiln(v)


def call_project_builtin(fn, args, kwargs, semantic):
    """Call a project's ``@tl.core.builtin`` helper on kernel values: tuples go in as Triton's
    tuples and come back as the kernel's. Its body runs as Python; Triton calls in it that
    need Triton's code generator fail with Triton's message. As Triton's code generator does,
    ``_semantic=`` is passed only to a helper whose signature takes it (a plain function
    marked ``__triton_builtin__``, which builds a layout from constexprs, may not)."""
    try:
        params = inspect.signature(fn).parameters.values()
        takes = any(p.name == "_semantic" or p.kind is inspect.Parameter.VAR_KEYWORD
                    for p in params)
    except (TypeError, ValueError):  # no signature to read: pass it, as a builtin takes it
        takes = True
    extra = {"_semantic": semantic} if takes else {}
    out = fn(*[_to_triton_value(a) for a in args], **extra,
             **{k: _to_triton_value(v) for k, v in kwargs.items()})
    return _from_triton_value(out)


# -- Triton's runtime over a Kiln kernel --------------------------------------------------------

_VIEW_CLASSES: dict = {}  # Triton's JITFunction class -> the view class made from it


def _view_class(base):
    cls = _VIEW_CLASSES.get(base)
    if cls is not None:
        return cls

    class KilnKernelView(base):
        """A Kiln kernel as Triton's runtime expects a kernel under its wrappers to be: an
        instance of Triton's JITFunction whose ``fn`` is the Python function and whose
        ``cache_key`` identifies the kernel's source and what its code generation reads
        (Kiln's own fingerprint, so that a disk-cached autotuning result goes stale when the
        kernel does). Launching through it launches the Kiln kernel. Triton's ``__init__`` is
        not run: there is nothing of Triton's to set up."""

        __kiln_view__ = True

        def __init__(self, kernel, fn):
            self.kernel = kernel
            self.fn = fn
            self.arg_names = kernel.arg_names
            self.signature = kernel.signature
            self.__name__ = fn.__name__
            self.__qualname__ = fn.__qualname__
            self.__module__ = fn.__module__
            self.__globals__ = fn.__globals__
            self.__doc__ = fn.__doc__

        @property
        def cache_key(self) -> str:
            return self.kernel.cache_fingerprint()

        def __hash__(self):  # Triton's hashes the cache key, a walk of the dependencies here
            return object.__hash__(self)

        def __eq__(self, other):
            return self is other

        def run(self, *args, grid, warmup=False, **kwargs):
            return self.kernel.run(*args, grid=grid, warmup=warmup, **kwargs)

        def warmup(self, *args, **kwargs):
            return self.kernel.warmup(*args, **kwargs)

        def __getitem__(self, grid):
            return self.kernel[grid]

        def __call__(self, *args, **kwargs):
            return self.kernel(*args, **kwargs)

        def __repr__(self):
            return f"<Triton's view of {self.kernel!r}>"

    _VIEW_CLASSES[base] = KilnKernelView
    return KilnKernelView


def link_triton_view(kernel, fn) -> bool:
    """Give ``fn``, the Python function of the Kiln kernel ``kernel``, a ``fn`` attribute
    holding a view of the kernel that is an instance of Triton's ``JITFunction``.

    Triton's wrappers reach the kernel they wrap by following ``.fn``: ``Autotuner.__init__``
    until a plain function (``kernel.fn``, the Python function), its disk cache
    (``cache_results``) and tuning listener until an instance of Triton's JITFunction, whose
    ``cache_key`` and ``__name__`` they read. A Kiln kernel's ``fn`` stays the Python function
    (Kiln's compiler reads it), so the view hangs one step further, on the function itself.
    Called when the program has imported ``triton``; False while ``triton.runtime.jit`` is not
    there yet (Triton still importing), so that the caller asks again later."""
    jit = sys.modules.get("triton.runtime.jit")
    base = getattr(jit, "JITFunction", None)
    if not isinstance(base, type):
        return False
    current = getattr(fn, "fn", None)
    if current is not None and getattr(type(current), "__kiln_view__", False) is not True:
        return True  # the function has an `fn` of its own: leave it alone
    if current is None or current.kernel is not kernel or not isinstance(current, base):
        try:
            fn.fn = _view_class(base)(kernel, fn)
        except (AttributeError, TypeError):  # not a function that takes attributes
            pass
    return True
