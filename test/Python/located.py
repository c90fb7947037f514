"""Checks that a CompilationError points at the user's line and column, with the source line
and a caret under the column (shared by the DSL error tests)."""

import re


def where(path, marker, anchor):
    """(line, col) of ``anchor`` on the line of ``path`` tagged ``# <marker>``."""
    src = open(path).read().splitlines()
    line = next(i for i, text in enumerate(src, 1) if text.rstrip().endswith(f"# {marker}"))
    return line, src[line - 1].index(anchor) + 1


def assert_located(err, path, marker, anchor, message, cls):
    assert isinstance(err, cls), f"{type(err).__name__}: {err}"
    line, col = where(path, marker, anchor)
    assert (err.file, err.line, err.col) == (path, line, col), str(err)
    assert re.fullmatch(message, err.message), err.message
    text = str(err).splitlines()
    assert text[0] == f"{path}:{line}:{col}: error: {err.message}"
    src = open(path).read().splitlines()[line - 1]
    indent = len(src) - len(src.lstrip())
    assert text[1] == "    " + src.strip()
    assert text[2] == "    " + " " * (col - 1 - indent) + "^"
    return text
