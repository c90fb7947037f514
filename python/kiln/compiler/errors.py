"""Kiln's exceptions. Errors shown to users point at their kernel source with a caret:

    /path/to/user.py:12:17: error: shape mismatch in add: (128,) vs (64,)
        y = x + z
            ^
"""

from __future__ import annotations

import functools
import linecache
import os
from typing import Iterable, List, Optional, Sequence

from ..errors import KilnError, OutOfResources

__all__ = ["KilnError", "CompilationError", "UnsupportedLanguageConstruct", "InvalidOption",
           "ExtensionNotBuilt", "OutOfResources", "CompileTimeOutOfResources",
           "CompilationWarning", "CompilationRemark", "from_diagnostics", "warning_from",
           "internal_tracebacks", "user_facing"]


def internal_tracebacks() -> bool:
    """Whether a :class:`CompilationError` keeps the compiler's own frames and the exception
    it was raised from (``KILN_TRACEBACK=1``); by default it reaches the user as one block:
    ``file:line:col: error: message``, the source line and caret, then notes."""
    return os.environ.get("KILN_TRACEBACK", "") not in ("", "0")


#: Callables given every CompilationError as it leaves an entry point (the test suite checks
#: the format of all of them).
error_observers: List = []


def user_facing(fn):
    """Decorates an entry point (``kiln.compile``, ``warmup``, a launch): a
    :class:`CompilationError` leaving it drops the frames inside Kiln and the internal
    exception it was raised from (kept as ``err.internal_cause``), unless
    :func:`internal_tracebacks`."""
    @functools.wraps(fn)
    def entry(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except CompilationError as err:
            for observe in error_observers:
                observe(err)
            if internal_tracebacks():
                raise
            if err.__cause__ is not None:
                err.internal_cause = err.__cause__
            raise err.with_traceback(None) from None  # KILN_TRACEBACK=1: Kiln's frames too
    return entry


def source_excerpt(file: Optional[str], line: Optional[int], col: Optional[int],
                   source_line: Optional[str] = None) -> List[str]:
    """The source line (indented by 4) and a caret under ``col`` (1-based)."""
    text = source_line
    if text is None and file and line:
        text = linecache.getline(file, line)
    if not text:
        return []
    text = text.rstrip("\n").expandtabs()
    stripped = text.lstrip()
    out = ["    " + stripped]
    if col:
        caret = max(col - 1 - (len(text) - len(stripped)), 0)
        out.append("    " + " " * caret + "^")
    return out


def _where(file, line, col) -> str:
    if not file:
        return ""
    parts = [file] + [str(v) for v in (line, col) if v]
    return ":".join(parts) + ": "


def format_diagnostic(severity: str, message: str, file, line, col, source_line=None,
                      notes: Sequence[tuple] = ()) -> str:
    """``file:line:col: severity: message``, the source line with a caret under ``col``, then
    each note (``(message, file, line, col)``) the same way."""
    lines = [f"{_where(file, line, col)}{severity}: {message}"]
    lines += source_excerpt(file, line, col, source_line)
    for msg, nfile, nline, ncol in notes:
        # Further diagnostics of the same run keep their own severity ("error: ..."), as a
        # compiler prints each of several errors; the rest are notes on the first.
        label = "" if str(msg).startswith(("error: ", "warning: ")) else "note: "
        lines.append(f"{_where(nfile, nline, ncol)}{label}{msg}")
        lines += source_excerpt(nfile, nline, ncol)
    return "\n".join(lines)


class CompilationError(KilnError):
    """An error in a kernel, reported at a location in the user's source.

    ``message`` is the bare message; ``file``/``line``/``col`` (1-based) its location;
    ``notes`` further ``(message, file, line, col)`` entries (e.g. the call site of an inlined
    function).
    """

    def __init__(self, message: str, file: Optional[str] = None, line: Optional[int] = None,
                 col: Optional[int] = None, *, source_line: Optional[str] = None,
                 notes: Sequence[tuple] = (), severity: str = "error"):
        self.message = message
        self.file = file
        self.line = line
        self.col = col
        self.source_line = source_line
        self.notes: List[tuple] = list(notes)
        self.severity = severity
        super().__init__(message)

    _where = staticmethod(_where)

    def format(self) -> str:
        return format_diagnostic(self.severity, self.message, self.file, self.line, self.col,
                                 self.source_line, self.notes)

    def __str__(self) -> str:
        return self.format()

    def __reduce__(self):  # picklable across processes (autotuners, pools)
        return (_rebuild, (type(self), self.message, self.file, self.line, self.col,
                           self.source_line, tuple(self.notes), self.severity))


def _rebuild(cls, message, file, line, col, source_line, notes, severity):
    return cls(message, file, line, col, source_line=source_line, notes=notes,
               severity=severity)


class CompilationWarning(UserWarning):
    """A warning the compiler gave about a kernel that still compiled, at a location in the
    user's source (``kiln.compile`` emits it with :func:`warnings.warn_explicit` at that file
    and line). Its ``str()`` is formatted like :class:`CompilationError`'s::

        /path/to/user.py:14:13: warning: this relaxed shared-memory load reads bytes ...
            x = cp.load_shared_relaxed(buf, layout)
                ^
        /path/to/user.py:11:5: note: the copy

    ``message`` is the bare message; ``file``/``line``/``col`` (1-based) its location;
    ``notes`` further ``(message, file, line, col)`` entries; ``severity`` ``"warning"``
    (``"remark"`` for :class:`CompilationRemark`).
    """

    default_severity = "warning"

    def __init__(self, message: str, file: Optional[str] = None, line: Optional[int] = None,
                 col: Optional[int] = None, *, source_line: Optional[str] = None,
                 notes: Sequence[tuple] = (), severity: Optional[str] = None):
        self.message = message
        self.file = file
        self.line = line
        self.col = col
        self.source_line = source_line
        self.notes: List[tuple] = [tuple(n) for n in notes]
        self.severity = severity or self.default_severity
        super().__init__(message)

    def format(self) -> str:
        return format_diagnostic(self.severity, self.message, self.file, self.line, self.col,
                                 self.source_line, self.notes)

    def __str__(self) -> str:
        return self.format()

    def to_dict(self) -> dict:
        """A JSON-able form (the disk cache stores these); :func:`warning_from` reads it."""
        return {"severity": self.severity, "message": self.message, "file": self.file,
                "line": self.line, "col": self.col,
                "notes": [list(n) for n in self.notes]}

    def __reduce__(self):  # picklable across processes (autotuners, pools)
        return (_rebuild, (type(self), self.message, self.file, self.line, self.col,
                           self.source_line, tuple(self.notes), self.severity))


class CompilationRemark(CompilationWarning):
    """A remark of the compiler about a kernel (e.g. a wait it had to make stricter than the
    one asked for): informational, emitted like :class:`CompilationWarning`."""

    default_severity = "remark"


def warning_from(entry: dict) -> CompilationWarning:
    """The :class:`CompilationWarning` (a :class:`CompilationRemark` for ``severity``
    ``"remark"``) of a :meth:`CompilationWarning.to_dict` entry."""
    cls = CompilationRemark if entry.get("severity") == "remark" else CompilationWarning
    return cls(entry["message"], entry.get("file"), entry.get("line"), entry.get("col"),
               notes=[tuple(n) for n in entry.get("notes") or ()],
               severity=entry.get("severity"))


class UnsupportedLanguageConstruct(CompilationError):
    """Python syntax that kernels do not support (try/except, lambda, generators, …)."""


class InvalidOption(CompilationError, ValueError):
    """A compile option out of range (e.g. ``num_warps`` not a power of 2)."""


class ExtensionNotBuilt(CompilationError):
    """``kiln._compiler`` cannot be imported."""


class CompileTimeOutOfResources(CompilationError, OutOfResources):
    """The kernel needs more of a per-CTA resource than the target has, found at
    compile time (``required`` and ``limit`` in bytes, ``name`` e.g. "shared memory").
    An :class:`kiln.OutOfResources`, like its launch-time sibling."""

    def __init__(self, message: str, *args, required: int = 0, limit: int = 0,
                 name: str = "shared memory", **kwargs):
        super().__init__(message, *args, **kwargs)
        self.required, self.limit, self.name = required, limit, name

    def __reduce__(self):  # CompilationError's, plus the resource fields
        rebuild, args = super().__reduce__()
        return (_rebuild_resources, (rebuild, args, self.required, self.limit, self.name))


def _rebuild_resources(rebuild, args, required, limit, name):
    err = rebuild(*args)
    err.required, err.limit, err.name = required, limit, name
    return err


def from_diagnostics(diagnostics: Iterable[dict], fallback: str = "") -> CompilationError:
    """Turn ``kiln._compiler.CompilationError.diagnostics`` into a :class:`CompilationError`
    pointing at the first error; other diagnostics become notes."""
    diags = list(diagnostics or [])
    if not diags:
        return CompilationError(fallback or "compilation failed")
    from .dsl_names import dsl_message
    first = next((d for d in diags if d.get("severity", "error") == "error"), diags[0])
    notes = [(dsl_message(f"{d.get('severity', 'note')}: {d.get('message', '')}"
                          if d.get("severity", "note") not in ("note", "remark")
                          else d.get("message", "")),
              d.get("file") or None, d.get("line") or None, d.get("col") or None)
             for d in diags if d is not first]
    message = dsl_message(first.get("message", fallback))
    where = (first.get("file") or None, first.get("line") or None, first.get("col") or None)
    facts = first.get("facts") or {}
    if facts.get("kind") == "out_of_resources":  # attached by the pass as data
        return CompileTimeOutOfResources(message, *where, notes=notes,
                                         required=int(facts["required"]),
                                         limit=int(facts["limit"]), name=facts["resource"])
    return CompilationError(message, *where, notes=notes,
                            severity=first.get("severity", "error"))
