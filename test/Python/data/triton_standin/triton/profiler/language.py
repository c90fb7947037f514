"""Proton's kernel language as Triton 3.6 defines its names: ``enter_scope`` / ``exit_scope``
builtins and a ``scope`` class used as ``with pl.scope(name):`` (instrumentation points that
Triton compiles to nothing unless a profiling session asks for them)."""

from triton.language.core import builtin


@builtin
def enter_scope(name, _semantic=None):
    return None


@builtin
def exit_scope(name, _semantic=None):
    return None


class scope:
    def __init__(self, name, _semantic=None):
        self.name = name
        self.semantic = _semantic

    def __enter__(self):
        enter_scope(self.name, _semantic=self.semantic)

    def __exit__(self, exc_type, exc_value, traceback):
        exit_scope(self.name, _semantic=self.semantic)
