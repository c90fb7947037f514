"""Textual IR builder: SSA names, blocks of lines, locations and layout aliases.

The code generator never builds MLIR objects; it writes MLIR text that ``kiln._compiler``
parses, verifies and prints (in each op's pretty form) as the ``tile`` stage. Every op goes
through one generic-form builder, :meth:`IRBuilder.create`, and ends with the ``loc(...)`` of
the Python node being compiled.
"""

from __future__ import annotations

import contextlib
import re
from typing import Dict, List, Optional, Sequence

from ..language._layouts import BlockedLayout, DistributedLayout, SliceLayout, is_inferred


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
    """The kernel's symbol (in the IR, the assembly and the binary) for a Python function name.
    Python identifiers may be any Unicode letters, but MLIR's bare identifiers and GPU assembly
    symbols are ASCII: every other character becomes ``_uXXXX_`` (its code point)."""
    if _BARE_SYMBOL.fullmatch(name):
        return name
    out = []
    for ch in name:
        out.append(ch if ch.isascii() and (ch.isalnum() or ch == "_") else f"_u{ord(ch):04x}_")
    text = "".join(out)
    return text if _BARE_SYMBOL.fullmatch(text) else "_" + text


class Block:
    """A single-block region under construction: its arguments (``(ssa, type)`` pairs) and its
    op lines (without indentation)."""

    __slots__ = ("args", "lines")

    def __init__(self, args=()):
        self.args = list(args)
        self.lines: List[str] = []


class IRBuilder:
    """Accumulates the ops of one kernel module, every op in MLIR's generic form (see
    :meth:`create`): no op's custom syntax lives in Python, and the text also parses with an
    upstream ``mlir-opt --allow-unregistered-dialect``."""

    def __init__(self):
        self._counter = 0
        self.block = Block()
        self.loc: Optional[str] = None
        self._aliases: Dict[DistributedLayout, str] = {}
        self._alias_defs: List[str] = []
        self._alias_counts: Dict[str, int] = {}

    # -- names, types and attributes ------------------------------------------------------------

    def new_block(self, args=()) -> Block:
        """An empty region body with arguments ``args`` (``(ssa, type)`` pairs), to fill under
        :meth:`insertion` (the semantic layer makes its blocks here, so that kiln.language
        never imports kiln.compiler)."""
        return Block(args)

    def fresh(self) -> str:
        name = f"%{self._counter}"
        self._counter += 1
        return name

    def layout_ref(self, layout: DistributedLayout) -> str:
        alias = self._aliases.get(layout)
        if alias is None:
            text = layout.to_ir(self.layout_ref)  # registers parents first
            base = (type(layout).__name__.lower() if is_inferred(layout) else
                    "blocked" if isinstance(layout, BlockedLayout) else
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

    @staticmethod
    def int_attr(value: int, ty: str = "i32") -> str:
        """An integer attribute: ``3 : i32``."""
        return f"{int(value)} : {ty}"

    @staticmethod
    def str_attr(text: str) -> str:
        """A string attribute, quotes, backslashes and control bytes escaped as hex."""
        out = []
        for byte in str(text).encode():
            ch = chr(byte)
            out.append(ch if 0x20 <= byte < 0x7F and ch not in '"\\' else f"\\{byte:02X}")
        return '"' + "".join(out) + '"'

    @staticmethod
    def array_attr(values, ty: str = "i32") -> str:
        """A dense array attribute: ``array<i32: 1, 0, 0>``."""
        return f"array<{ty}: {', '.join(str(int(v)) for v in values)}>"

    # -- emission ----------------------------------------------------------------------------

    def _suffix(self) -> str:
        return f" {self.loc}" if self.loc else ""

    def create(self, name: str, operands: Sequence = (), result_types: Sequence = (),
               attrs: Optional[Dict[str, str]] = None,
               regions: Sequence[Optional[Block]] = ()) -> List[str]:
        """Append op ``name`` in generic form at the current location and return the SSA
        names of its results.

        ``operands`` are values with ``handle`` and ``type``; ``result_types`` are types;
        ``attrs`` maps names to attribute text; ``regions`` are single-block regions
        (:class:`Block`, whose arguments take the current location) or None for an empty
        region::

            %3 = "scf.for"(%0, %n, %1, %2) ({
            ^bb0(%4: i32 loc(...), %5: f32 loc(...)):
              ...
            }) {tile.num_stages = 3 : i32} : (i32, i32, i32, f32) -> f32 loc(...)
        """
        n = len(result_types)
        names: List[str] = []
        head = f'"{name}"({", ".join(v.handle for v in operands)})'
        if n:
            base = self.fresh()
            names = [base] if n == 1 else [f"{base}#{i}" for i in range(n)]
            head = (f"{base} = " if n == 1 else f"{base}:{n} = ") + head
        attr = (" {" + ", ".join(f"{k} = {v}" for k, v in attrs.items()) + "}") if attrs else ""
        ins = ", ".join(self.ty(v.type) for v in operands)
        outs = ", ".join(self.ty(t) for t in result_types)
        if n != 1:
            outs = f"({outs})"
        tail = f"{attr} : ({ins}) -> {outs}{self._suffix()}"
        if not regions:
            self.block.lines.append(head + tail)
            return names
        lines = [head + " ({"]
        for i, region in enumerate(regions):
            if i:
                lines.append("}, {")
            if region is not None:
                lines.extend(self._region_lines(region))
        lines.append("})" + tail)
        self.block.lines.extend(lines)
        return names

    def _region_lines(self, block: Block) -> List[str]:
        lines = []
        if block.args:
            args = ", ".join(f"{a}: {self.ty(t)}{self._suffix()}" for a, t in block.args)
            lines.append(f"^bb0({args}):")
        return lines + ["  " + line for line in block.lines]

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
