"""Kernel compilation: AST -> tile IR text (codegen), pipelines and stages (compiler),
on-disk cache (cache) and user-facing errors (errors)."""

from .errors import (  # noqa: F401
    KilnError, CompilationError, UnsupportedLanguageConstruct, InvalidOption, ExtensionNotBuilt,
)
from .compiler import CompiledKernel, compile, make_ir  # noqa: F401
from .cache import CacheWarning  # noqa: F401
