"""Kiln: an MLIR-based GPU tile-language compiler with a Gluon-style Python DSL.

    import kiln
    import kiln.language as kl

    @kiln.jit
    def add(x, y, out, n, BLOCK: kl.constexpr): ...

    add[(kiln.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024, num_warps=4)

Importing kiln needs neither the native libraries nor numpy/torch; compiling needs
``kiln/libkiln.so`` (the compiler, LLVM inside in the wheel) and launching needs
``kiln/libkiln_runtime.so``, both loaded with ctypes.
"""

__version__ = "0.1.0"

from . import language  # noqa: F401
from . import nvidia  # noqa: F401  (kiln.nvidia.hopper.TensorDescriptor, as gluon.nvidia)
from .errors import KilnError, OutOfResources  # noqa: F401
from .compiler.errors import (  # noqa: F401
    CompilationError, UnsupportedLanguageConstruct, InvalidOption, ExtensionNotBuilt,
    CompileTimeOutOfResources, CompilationWarning, CompilationRemark,
)
from .compiler.cache import CacheWarning  # noqa: F401
from .compiler.deps import GlobalChangedError  # noqa: F401
from .compiler.compiler import CompiledKernel, MissingToolWarning  # noqa: F401
# compile(): a kernel with its signature, or Triton's offline form compile(GluonASTSource(...),
# target=GPUTarget(...), options={...}).
from .offline import ASTSource, GluonASTSource, compile  # noqa: F401
from .jit import JITFunction, jit  # noqa: F401
from .runtime.scratch import set_allocator  # noqa: F401  (Triton's triton.set_allocator)
from .autotune import Config, autotune, heuristics  # noqa: F401  (kiln.autotune: the decorator)


def must_use_result(fn, message=True):
    """Mark ``fn`` (a ``@kiln.jit`` function) so that calling it without using its result is a
    compile error at the call (Gluon's ``gluon.must_use_result``). ``@must_use_result("why")``
    adds ``why`` to the error."""
    if isinstance(fn, str):
        return lambda f: must_use_result(f, fn)
    fn._must_use_result = message
    return fn
from .language import constexpr, constexpr_function  # noqa: F401
from .language import aggregate  # noqa: F401  (Gluon's gluon.aggregate, as of Triton 3.7)

__all__ = ["jit", "JITFunction", "compile", "GluonASTSource", "ASTSource", "CompiledKernel",
           "set_allocator", "must_use_result", "cdiv", "next_power_of_2",
           "KilnError", "CompilationError", "UnsupportedLanguageConstruct", "InvalidOption",
           "ExtensionNotBuilt", "OutOfResources", "CompileTimeOutOfResources",
           "LaunchTimeOutOfResources", "CompilationWarning", "CompilationRemark", "CacheWarning",
           "MissingToolWarning", "GlobalChangedError", "constexpr", "constexpr_function", "aggregate",
           "language", "aot", "autotune", "heuristics", "Config", "testing"]


@constexpr_function
def cdiv(x: int, y: int) -> int:
    """Ceiling division of host integers: ``(x + y - 1) // y``."""
    return (x + y - 1) // y


@constexpr_function
def next_power_of_2(n: int) -> int:
    """Smallest power of 2 that is >= n (1 for n <= 1)."""
    n = int(n)
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def __getattr__(name):  # kiln.aot, kiln.runtime, kiln.testing load on first use
    if name in ("aot", "runtime", "testing"):
        import importlib
        return importlib.import_module(f"{__name__}.{name}")
    if name == "LaunchTimeOutOfResources":  # without loading kiln.runtime eagerly
        from .runtime.errors import LaunchTimeOutOfResources
        return LaunchTimeOutOfResources
    raise AttributeError(f"module 'kiln' has no attribute {name!r}")
