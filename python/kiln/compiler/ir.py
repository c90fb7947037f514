"""Textual IR builder: SSA names, blocks of lines, locations and layout aliases.

The code generator never builds MLIR objects; it writes the tile-dialect text that
``kiln._compiler`` parses and verifies (and that ``kiln-opt`` can replay). Every op line ends with
the ``loc(...)`` of the Python node being compiled.
"""

from __future__ import annotations

import contextlib
import re
from typing import Dict, List, Optional, Sequence

from ..language._layouts import BlockedLayout, DistributedLayout, SliceLayout


def mlir_string(text: str) -> str:
    """``text`` as the body of an MLIR string literal: quotes and backslashes escaped, and
    control characters (a newline in a file name …) as ``\\XX`` byte escapes, which MLIR
    decodes back to the same string."""
    out = []
    for ch in text:
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\{ord(ch):02X}")
        else:
            out.append(ch)
    return "".join(out)


def loc_text(file: str, line: int, col: int) -> str:
    return f'loc("{mlir_string(file)}":{line}:{col})'


_BARE_SYMBOL = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def symbol_name(name: str) -> str:
    """The kernel's symbol (in the IR, PTX/AMDGCN and the binary) for a Python function name.
    Python identifiers may be any Unicode letters, but MLIR's bare identifiers and PTX/AMDGCN
    symbols are ASCII: every other character becomes ``_uXXXX_`` (its code point)."""
    if _BARE_SYMBOL.fullmatch(name):
        return name
    out = []
    for ch in name:
        out.append(ch if ch.isascii() and (ch.isalnum() or ch == "_") else f"_u{ord(ch):04x}_")
    text = "".join(out)
    return text if _BARE_SYMBOL.fullmatch(text) else "_" + text


class Block:
    """A list of op lines (without indentation) that will become a region's body."""

    __slots__ = ("lines",)

    def __init__(self):
        self.lines: List[str] = []


class IRBuilder:
    """Accumulates the ops of one kernel module.

    ``generic_tile=True`` prints tile ops in MLIR's generic form, so that a module can be
    checked by an upstream ``mlir-opt --allow-unregistered-dialect`` (syntax, dominance,
    upstream op verifiers) when Kiln's own tools are not built.
    """

    def __init__(self, generic_tile: bool = False):
        self.generic_tile = generic_tile
        self._counter = 0
        self.block = Block()
        self.loc: Optional[str] = None
        self._aliases: Dict[DistributedLayout, str] = {}
        self._alias_defs: List[str] = []
        self._alias_counts: Dict[str, int] = {}

    # -- names and types ------------------------------------------------------------------

    def new_block(self) -> Block:
        """An empty region body, to fill under :meth:`insertion` (the semantic layer makes
        its blocks here, so that kiln.language never imports kiln.compiler)."""
        return Block()

    def fresh(self) -> str:
        name = f"%{self._counter}"
        self._counter += 1
        return name

    def layout_ref(self, layout: DistributedLayout) -> str:
        alias = self._aliases.get(layout)
        if alias is None:
            text = layout.to_ir(self.layout_ref)  # registers parents first
            base = ("blocked" if isinstance(layout, BlockedLayout) else
                    "slice" if isinstance(layout, SliceLayout) else "linear")
            n = self._alias_counts.get(base, 0)
            self._alias_counts[base] = n + 1
            alias = f"#{base}" + (str(n) if n else "")
            self._aliases[layout] = alias
            self._alias_defs.append(f"{alias} = {text}")
        return alias

    def ty(self, t) -> str:
        if getattr(t, "is_block", False):
            dims = "x".join(str(d) for d in t.shape)
            return f"tensor<{dims}x{t.element_ty.to_ir()}, {self.layout_ref(t.layout)}>"
        return t.to_ir()

    # -- emission ----------------------------------------------------------------------------

    def _suffix(self) -> str:
        return f" {self.loc}" if self.loc else ""

    def emit(self, text: str) -> None:
        """Append one op line (with the current location)."""
        self.block.lines.append(text + self._suffix())

    def op(self, text: str) -> str:
        """Append ``%N = text`` and return ``%N``."""
        name = self.fresh()
        self.emit(f"{name} = {text}")
        return name

    def op_multi(self, text: str, n: int) -> List[str]:
        if n == 0:
            self.emit(text)
            return []
        name = self.fresh()
        if n == 1:
            self.emit(f"{name} = {text}")
            return [name]
        self.emit(f"{name}:{n} = {text}")
        return [f"{name}#{i}" for i in range(n)]

    def tile_op(self, name: str, custom: str, operands: Sequence[tuple] = (),
                result_type=None, attrs: Sequence[str] = ()) -> Optional[str]:
        """A tile op: ``custom`` is its pretty form (after ``tile.<name> ``); ``operands`` are
        ``(ssa, type)`` pairs used by the generic form."""
        if not self.generic_tile:
            text = f"tile.{name} {custom}".rstrip()
        else:
            ops = ", ".join(o for o, _ in operands)
            attr = (" {" + ", ".join(attrs) + "}") if attrs else ""
            in_t = ", ".join(self.ty(t) for _, t in operands)
            out_t = self.ty(result_type) if result_type is not None else ""
            out = f"({out_t})" if result_type is not None else "()"
            text = f'"tile.{name}"({ops}){attr} : ({in_t}) -> {out}'
        if result_type is None:
            self.emit(text)
            return None
        return self.op(text)

    def region_lines(self, block: Block) -> List[str]:
        return ["  " + line for line in block.lines]

    def emit_region_op(self, head: str, regions: Sequence[tuple], tail: str = "",
                       n_results: int = 0) -> List[str]:
        """An op with regions: ``head {`` region ``} else {`` region ``}`` ``tail loc``.
        ``regions`` is a list of (separator_before, label_or_None, Block)."""
        lines: List[str] = []
        for i, (sep, label, block) in enumerate(regions):
            lines.append(sep)
            if label:
                lines.append(label)
            lines.extend(self.region_lines(block))
        names: List[str] = []
        if n_results:
            base = self.fresh()
            prefix = f"{base} = " if n_results == 1 else f"{base}:{n_results} = "
            names = [base] if n_results == 1 else [f"{base}#{i}" for i in range(n_results)]
        else:
            prefix = ""
        first = prefix + head + " " + lines[0]
        body = [first] + lines[1:] + ["}" + (" " + tail if tail else "") + self._suffix()]
        self.block.lines.extend(body)
        return names

    @contextlib.contextmanager
    def insertion(self, block: Block):
        saved = self.block
        self.block = block
        try:
            yield block
        finally:
            self.block = saved

    @contextlib.contextmanager
    def at_loc(self, loc: Optional[str]):
        saved = self.loc
        if loc is not None:
            self.loc = loc
        try:
            yield
        finally:
            self.loc = saved

    # -- module ----------------------------------------------------------------------------

    def module_text(self, module_attrs: str, func_head: str, body: Block,
                    func_loc: str, module_loc: str) -> str:
        out = list(self._alias_defs)
        out.append(f"module attributes {{{module_attrs}}} {{")
        out.append(f"  {func_head} {{")
        out.extend("    " + line for line in body.lines)
        out.append(f"  }} {func_loc}")
        out.append(f"}} {module_loc}")
        return "\n".join(out) + "\n"
