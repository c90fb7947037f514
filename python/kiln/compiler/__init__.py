"""Kernel compilation: AST -> tile IR text (codegen, with control flow in control and shared
value helpers in _values), the functions compiled (function), pipelines and stages (compiler),
on-disk cache (cache) and user-facing errors (errors).

Below kiln.jit (which imports this package, never the reverse) and above kiln.language; it
does not import kiln.runtime."""

from .errors import (  # noqa: F401
    KilnError, CompilationError, UnsupportedLanguageConstruct, InvalidOption, ExtensionNotBuilt,
    OutOfResources, CompileTimeOutOfResources, CompilationWarning, CompilationRemark,
)
from .compiler import CompiledKernel, compile, make_ir  # noqa: F401
from .cache import CacheWarning  # noqa: F401
