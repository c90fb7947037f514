"""The Gluon -> Kiln import swap, shared by scripts/gluon-suite.py (Triton's own Gluon tests)
and scripts/wild-suite.py (Gluon kernels of other projects).

``swap_imports(text)`` rewrites every import of ``triton.experimental.gluon`` to ``kiln``
(``from triton.experimental import gluon`` becomes ``import kiln as gluon``;
``import triton.experimental.gluon.language as gl`` becomes ``import kiln.language as gl``); an
import Kiln cannot satisfy (Blackwell, a module Kiln lacks) binds its names to a placeholder
that fails the code using it, instead of failing the whole file -- except an import in the
body of the file's own ``try:``, which raises ImportError to its handler as under a Triton that
lacks the name (a project's fallback for a Gluon name its Triton may not have). Names a newer test file imports from
``triton._internal_testing`` or ``triton.tools`` that the installed (older) Triton lacks become
placeholders too (``is_rubin`` answers False), and ``from triton import CompilationError`` is
Kiln's (the error a compile raises once the compile is Kiln's), and ``triton.compile`` of a Kiln
source (``gluon.GluonASTSource`` swapped) is ``kiln.compile``. Nothing else in the file changes:
``triton.language``, ``triton.jit`` helpers, ``triton.Config`` and the rest stay Triton's.
"""

from __future__ import annotations

import re

_PLACEHOLDER = '''
class _KilnLacksMeta(type):
    """Stands for a Gluon name Kiln does not provide; using it fails the test that does. It is
    a class, so that isinstance() probes (a Hopper test asking whether a layout is Blackwell's
    TensorMemoryLayout) answer False instead of failing."""

    def __getattr__(cls, name):
        # AttributeError, which probes (hasattr, kiln's scan of a kernel's globals) expect.
        raise AttributeError(f"kiln lacks {cls._what}.{name}")

    def __call__(cls, *args, **kwargs):
        raise ImportError(f"kiln lacks {cls._what}")

    def __getitem__(cls, item):
        raise ImportError(f"kiln lacks {cls._what}")


def _KilnLacks(what):
    # Named after what it stands for, so that an error naming it says what Kiln lacks.
    return _KilnLacksMeta(f"KilnLacks({what})", (), {"_what": what})


def _kiln_older_triton():
    """A test file newer than the Triton beside it (Triton main's tests on Triton 3.6) asks
    Triton for helpers added since; give them, from what the older Triton has."""
    try:
        from triton.backends.compiler import GPUTarget
        if not hasattr(GPUTarget, "is_cuda_backend"):
            GPUTarget.is_cuda_backend = lambda self: self.backend in ("cuda", "tileir")
    except ImportError:
        pass
    try:
        import triton.compiler as compiler
        if not hasattr(compiler, "max_shared_mem"):
            def max_shared_mem(device):
                from triton.runtime import driver
                return driver.active.utils.get_device_properties(device)["max_shared_mem"]
            compiler.max_shared_mem = max_shared_mem
    except ImportError:
        pass


_kiln_older_triton()


def _kiln_offline_compile():
    """triton.compile(src, target=, options=) of a Kiln source (gluon.GluonASTSource once the
    imports are swapped) is kiln.compile's; Triton's own sources stay Triton's."""
    try:
        import triton
    except ImportError:
        return
    import kiln
    original = getattr(triton, "compile", None)
    if original is None or getattr(original, "_kiln_dispatch", False):
        return

    def compile(src, *args, **kwargs):
        if isinstance(src, kiln.GluonASTSource):
            return kiln.compile(src, *args, **kwargs)
        return original(src, *args, **kwargs)
    compile._kiln_dispatch = True
    triton.compile = compile


_kiln_offline_compile()
'''

def _code(line: str) -> str:
    """``line`` without its comment (``# noqa: F401`` after an import's names would otherwise
    read as part of the last name; an import holds no string that a ``#`` could be in)."""
    return line.split("#", 1)[0].rstrip()


def _parts(clause: str):
    """The parts of an import clause ``a, b as c`` -> ["a", "b as c"]."""
    return [p.strip() for p in clause.replace("(", " ").replace(")", " ").split(",")
            if p.strip()]


def _names(clause: str):
    """Bound names of an import clause ``a, b as c`` -> [a, c]."""
    out = []
    for part in clause.replace("(", " ").replace(")", " ").split(","):
        part = part.strip()
        if part:
            out.append(part.split(" as ")[-1].strip())
    return out


def _in_user_try(lines, i: int, indent: str) -> bool:
    """Whether line ``i`` sits directly in the body of the file's own ``try:`` (then its
    handler decides what a missing name means, as it does under Triton: aiter falls back to
    no-op helpers when ``gl.amd.cdna3.sched_barrier`` cannot be imported)."""
    for j in range(i - 1, -1, -1):
        line = lines[j]
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        lead = line[:len(line) - len(line.lstrip())]
        if len(lead) < len(indent):
            return re.match(r"^\s*try\s*:\s*(#.*)?$", line) is not None
    return False


def swap_imports(text: str) -> str:
    """Triton's test file with its Gluon imports pointed at Kiln (see the module doc)."""
    lines = text.splitlines(keepends=True)
    out, i = [], 0
    header_done = False
    while i < len(lines):
        line = lines[i]
        plain = re.match(r"^(\s*)import\s+(triton\.experimental\.gluon[\w.]*)\s+as\s+(\w+)"
                         r"\s*(?:#.*)?$", line)
        if plain:
            indent, module, alias = plain.groups()
            target = module.replace("triton.experimental.gluon", "kiln", 1)
            if not header_done:
                out.append(_PLACEHOLDER)
                header_done = True
            if _in_user_try(lines, i, indent):
                out.append(f"{indent}import {target} as {alias}\n")
                i += 1
                continue
            out.append(f"{indent}try:\n{indent}    import {target} as {alias}\n"
                       f"{indent}except ImportError:\n"
                       f"{indent}    {alias} = _KilnLacks({module!r})\n")
            i += 1
            continue
        exc = re.match(r"^(\s*)from\s+triton\s+import\s+([\w\s,]+)$", _code(line))
        if exc and "CompilationError" in _names(exc.group(2)):
            # The error a Gluon compile raises is Kiln's once the compile is Kiln's.
            indent, rest = exc.group(1), [n for n in _names(exc.group(2))
                                          if n != "CompilationError"]
            out.append(f"{indent}from kiln import CompilationError\n")
            if rest:
                out.append(f"{indent}from triton import {', '.join(rest)}\n")
            i += 1
            continue
        m = re.match(r"^(\s*)from\s+(triton\.experimental(?:\.gluon)?[\w.]*|"
                     r"triton\._C\.libtriton\.gluon_ir|triton\._internal_testing|"
                     r"triton\.tools[\w.]*)"
                     r"\s+import\s+(.*)$", line)
        if not m:
            out.append(line)
            i += 1
            continue
        indent, module, clause = m.group(1), m.group(2), _code(m.group(3))
        guarded = _in_user_try(lines, i, indent)
        while clause.count("(") > clause.count(")"):  # a parenthesized, multi-line import
            i += 1
            clause += " " + _code(lines[i]).strip()
        i += 1
        if module == "triton._internal_testing":
            # Triton's own helpers: kept, except those a newer test file asks of an older
            # Triton (is_rubin against Triton 3.6), which answer False -- that Triton cannot
            # run on such a GPU either.
            for n in _names(clause):
                out.append(f"{indent}try:\n{indent}    from {module} import {n}\n"
                           f"{indent}except ImportError:\n"
                           f"{indent}    def {n}(*args, **kwargs):\n"
                           f"{indent}        return False\n")
            continue
        gluon_as = re.fullmatch(r"gluon(?:\s+as\s+(\w+))?", clause.strip())
        if module == "triton.experimental" and gluon_as:
            # ``from triton.experimental import gluon [as g]``
            alias = gluon_as.group(1) or "gluon"
            stmt, names = f"import kiln as {alias}", [alias]
        elif module == "triton._C.libtriton.gluon_ir":
            # Gluon's C helpers that a test calls (make_cga_layout) are kiln.language's.
            stmt, names = f"from kiln.language import {clause.strip()}", _names(clause)
        elif module == "triton.experimental.gluon._runtime":
            # Gluon's offline-compile source (GluonASTSource) is kiln's top-level name
            # (kiln._runtime is the GPU runtime's binding, which a compile needs no GPU for).
            stmt, names = f"from kiln import {clause.strip()}", _names(clause)
        else:
            target = module.replace("triton.experimental.gluon", "kiln", 1)
            stmt, names = f"from {target} import {clause.strip()}", _names(clause)
        if not header_done:
            out.append(_PLACEHOLDER)
            header_done = True
        if guarded:
            out.append(f"{indent}{stmt}\n")
            continue
        if stmt.startswith("from ") and len(names) > 1:
            # One import a name, so that a name Kiln lacks (Blackwell's) leaves the others.
            target = stmt.split()[1]
            for part, n in zip(_parts(clause), names):
                out.append(f"{indent}try:\n{indent}    from {target} import {part}\n"
                           f"{indent}except ImportError:\n"
                           f"{indent}    {n} = _KilnLacks({module + '.' + n!r})\n")
            continue
        fallback = "; ".join(f"{n} = _KilnLacks({module + '.' + n!r})" for n in names)
        out.append(f"{indent}try:\n{indent}    {stmt}\n{indent}except ImportError:\n"
                   f"{indent}    {fallback}\n")
    text = "".join(out)
    if header_done:
        # At module level even when the first swapped import is indented (inside a try:),
        # after a leading docstring, comments and ``from __future__`` imports.
        text = text.replace(_PLACEHOLDER, "", 1)
        text = _insert_header(text, _PLACEHOLDER)
    return text


def _insert_header(text: str, header: str) -> str:
    """``header`` placed after the module docstring and ``from __future__`` imports."""
    import ast
    try:
        body = ast.parse(text).body
    except SyntaxError:
        return header + text
    line = 0
    for node in body:
        if (isinstance(node, ast.Expr) and isinstance(getattr(node, "value", None), ast.Constant)
                and isinstance(node.value.value, str) and line == 0 and node is body[0]):
            line = node.end_lineno
        elif isinstance(node, ast.ImportFrom) and node.module == "__future__":
            line = node.end_lineno
        else:
            break
    lines = text.splitlines(keepends=True)
    return "".join(lines[:line]) + header + "".join(lines[line:])
