"""The exception bases every layer of Kiln shares. This module imports nothing from Kiln, so
kiln.compiler and kiln.runtime (which must not import each other) can both derive from it.

    KilnError                        every exception Kiln raises on purpose
    ├── CompilationError             kiln.compiler.errors (a kernel's source is wrong)
    │   └── CompileTimeOutOfResources
    ├── KilnRuntimeError             kiln.runtime.errors (also a RuntimeError)
    │   └── LaunchTimeOutOfResources
    └── OutOfResources               base of both *OutOfResources classes

Warnings are not exceptions Kiln raises but ``UserWarning`` subclasses it emits, each at the
user's file and line:

    CompilationWarning               kiln.compiler.errors (a kernel compiled, with a warning)
    └── CompilationRemark            a remark of a compiler pass

``except kiln.OutOfResources`` catches a kernel found too big when compiling as well as one
found too big for the device when launching.
"""

__all__ = ["KilnError", "OutOfResources"]


class KilnError(Exception):
    """Base of every exception Kiln raises on purpose."""


class OutOfResources(KilnError):
    """A kernel needs more of a hardware resource than the target or device offers.

    ``required`` and ``limit`` are amounts (bytes for memory), ``name`` names the resource
    (e.g. ``"shared memory"``). Raised as :class:`~kiln.compiler.errors.CompileTimeOutOfResources`
    by the compiler and :class:`~kiln.runtime.errors.LaunchTimeOutOfResources` by launches."""

    required: int = 0
    limit: int = 0
    name: str = ""
