"""AST visitor that turns a ``@kiln.jit`` function into tile-dialect MLIR text.

Values are :class:`kiln.language.tensor` (runtime values with an SSA name and a type) or plain
Python objects (compile-time values: ints, floats, layouts, dtypes, tuples, ``constexpr``).
Operations on compile-time values run in Python; anything touching a tensor goes through the
semantic layer. Calls to other ``@kiln.jit`` functions are inlined.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import math as _pymath
import os
import re
import textwrap
import types
from typing import Optional, Dict, List

from .. import language as kl
from ..language._core import _unwrap, constexpr, is_builtin, target_hook, tensor
from ..language._layouts import DistributedLayout, SharedLayout
from ..language._semantic import Semantic
from ..language._types import tuple as kl_tuple
from ..language.aggregates import (aggregate_fields, aggregate_member, check_initialized,
                                   rebuild_aggregate, triton_aggregate_class,
                                   triton_generated_init, is_triton_made)
from ._values import MAX_STATIC_UNROLL, _has_tensor
from .control import loop_iterator, runtime_if, visit_for, visit_while
from .returns import expand_unrolled, first_return, structured_body
from .triton_interop import TritonOnly, call_project_builtin, is_project_builtin, to_kiln
from .errors import CompilationError, UnsupportedLanguageConstruct
from .ir import Block, IRBuilder, loc_text, symbol_name

MAX_INLINE_DEPTH = 32

_BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv",
           ast.FloorDiv: "floordiv", ast.Mod: "mod", ast.LShift: "lshift", ast.RShift: "rshift",
           ast.BitAnd: "and", ast.BitOr: "or", ast.BitXor: "xor"}
_CMPOPS = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq",
           ast.NotEq: "ne"}
_UNARY = {ast.USub: "neg", ast.UAdd: "pos", ast.Invert: "invert", ast.Not: "not"}
_PY_OPS = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
           "truediv": lambda a, b: a / b, "floordiv": lambda a, b: a // b,
           "mod": lambda a, b: a % b, "lshift": lambda a, b: a << b,
           "rshift": lambda a, b: a >> b, "and": lambda a, b: a & b, "or": lambda a, b: a | b,
           "xor": lambda a, b: a ^ b, "pow": lambda a, b: a ** b,
           "lt": lambda a, b: a < b, "le": lambda a, b: a <= b, "gt": lambda a, b: a > b,
           "ge": lambda a, b: a >= b, "eq": lambda a, b: a == b, "ne": lambda a, b: a != b,
           "neg": lambda a: -a, "pos": lambda a: +a, "invert": lambda a: ~a,
           "not": lambda a: not a}

# Python builtins a kernel may call on compile-time values.
_PY_BUILTINS = {builtins.len, builtins.min, builtins.max, builtins.abs, builtins.int,
                builtins.float, builtins.bool, builtins.isinstance, builtins.tuple,
                builtins.list, builtins.getattr, builtins.hasattr, builtins.divmod,
                builtins.pow, builtins.round, builtins.str, builtins.enumerate, builtins.zip,
                builtins.reversed, builtins.sum, builtins.any, builtins.all}

_UNSUPPORTED = {
    "Try": "try/except is not supported in kernels",
    "TryStar": "try/except* is not supported in kernels",
    "AsyncWith": "async with is not supported in kernels",
    "AsyncFor": "async for is not supported in kernels",
    "Raise": "raise is not supported in kernels; use kl.static_assert for compile-time checks",
    "Global": "global declarations are not supported in kernels",
    "Nonlocal": "nonlocal declarations are not supported in kernels",
    "Delete": "del is not supported in kernels",
    "Import": "import statements are not supported in kernels",
    "ImportFrom": "import statements are not supported in kernels",
    "ClassDef": "class definitions are not supported in kernels",
    "FunctionDef": "nested function definitions are not supported in kernels; define a "
                   "separate @kiln.jit function",
    "AsyncFunctionDef": "async functions are not supported in kernels",
    "Lambda": "lambda is not supported in kernels; define a @kiln.jit function instead",
    "GeneratorExp": "generator expressions are not supported in kernels",
    "ListComp": "list comprehensions are not supported in kernels",
    "SetComp": "set comprehensions are not supported in kernels",
    "DictComp": "dict comprehensions are not supported in kernels",
    "Yield": "yield (generators) is not supported in kernels",
    "YieldFrom": "yield from (generators) is not supported in kernels",
    "Await": "await is not supported in kernels",
    "NamedExpr": "assignment expressions (:=) are not supported in kernels",
    "Dict": "dict literals are not supported in kernels",
    "Set": "set literals are not supported in kernels",
    "Match": "match statements are not supported in kernels",
    "Continue": "continue is not supported in kernels",
}



def _kernel_tuple(value):
    """A builtin's plain tuple result as a kernel tuple (``kl.tuple``, with ``type``)."""
    return kl_tuple(value) if type(value) is tuple else value


def _missing_module_name(module, name: str) -> str:
    """The message for a name a Kiln module lacks: the closest names it has, or all of them
    where they are few (a port from a Gluon fork may use a name Gluon never had)."""
    import difflib
    def own(n):  # defined there, or a constant (not a helper it imports)
        v = getattr(module, n, None)
        if isinstance(v, (int, float, str)):
            return True
        return getattr(v, "__module__", None) == module.__name__

    public = sorted(getattr(module, "__all__", None) or
                    (n for n in dir(module) if not n.startswith("_") and own(n)))
    close = difflib.get_close_matches(name, public, n=3, cutoff=0.9)
    text = f"module {module.__name__!r} has no attribute {name!r}"
    if close:
        return text + f" (did you mean {', '.join(close)}?)"
    if public and len(public) <= 30:
        return text + f" (it has {', '.join(public)})"
    return text

class FunctionSource:
    """Parsed source of a Python function, with the offsets to map AST positions back to
    the user's file (1-based lines and columns)."""

    def __init__(self, fn):
        try:
            lines, first = inspect.getsourcelines(fn)
        except (OSError, TypeError) as e:
            raise CompilationError(f"cannot read the source of {fn.__name__}: {e}") from e
        self.file = os.path.abspath(inspect.getsourcefile(fn) or fn.__code__.co_filename)
        self.first_line = first
        self.text = "".join(lines)
        indent = lines[0][:len(lines[0]) - len(lines[0].lstrip())]
        if all(l.startswith(indent) or not l.strip() for l in lines):
            # A blank line shorter than the indent keeps its newline (dropping it would move
            # every line below it up by one).
            body = "".join(l[len(indent):] if l.startswith(indent) else
                           ("\n" if l.endswith("\n") else "") for l in lines)
            self.col_shift = len(indent)
        else:  # pragma: no cover - oddly indented continuation lines
            body, self.col_shift = textwrap.dedent(self.text), 0
        self.tree = ast.parse(body)
        fdefs = [n for n in self.tree.body if isinstance(n, ast.FunctionDef)]
        if not fdefs:
            raise CompilationError(f"{fn.__name__} is not a function definition", self.file,
                                   first)
        self.fdef = fdefs[0]

    def position(self, node):
        func = getattr(node, "func", None)
        if isinstance(node, ast.Call) and isinstance(func, ast.Attribute) and \
                func.end_lineno is not None and func.end_lineno != node.lineno:
            # A method called on a later line of a chain (``x\n.reshape(...)``): that line,
            # at the method's name, not the chain's first line.
            return (self.file, self.first_line - 1 + func.end_lineno,
                    func.end_col_offset - len(func.attr) + self.col_shift + 1)
        return (self.file, self.first_line - 1 + node.lineno,
                node.col_offset + self.col_shift + 1)


class _Frame:
    """The state of one (possibly inlined) function being compiled."""

    def __init__(self, fn, src: FunctionSource, call_site=None):
        self.fn = fn
        self.src = src
        self.scope: Dict[str, object] = {}
        self.sites: Dict[str, tuple] = {}
        self.dropped: Dict[str, str] = {}
        self.ret = None
        self.returned = False
        self.cf_depth = 0
        self.loops: List[str] = []
        # names annotated constexpr that hold run-time values: {name: (file, line, col)}
        self.runtime_constexprs: Dict[str, tuple] = {}
        self.call_site = call_site
        pyfn = fn.fn
        self.globals = pyfn.__globals__
        self.closure = {}
        if pyfn.__closure__:
            for name, cell in zip(pyfn.__code__.co_freevars, pyfn.__closure__):
                try:
                    self.closure[name] = cell.cell_contents
                except ValueError:
                    pass


def _is_jit(obj) -> bool:
    return getattr(obj, "__kiln_jit__", False)


_OP_SYMBOLS = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//",
               "mod": "%", "lshift": "<<", "rshift": ">>", "and": "&", "or": "|", "xor": "^"}


class _BoundJit:
    """A @kiln.jit method looked up on an aggregate instance."""

    __slots__ = ("fn", "obj")

    def __init__(self, fn, obj):
        self.fn, self.obj = fn, obj

    def __repr__(self):
        return f"<method {self.fn.__name__} of {type(self.obj).__qualname__}>"


def _allowed_global(value) -> bool:
    if isinstance(value, (constexpr, types.ModuleType, type, DistributedLayout, SharedLayout,
                          kl.dtype,
                          kl.pointer_type, types.BuiltinFunctionType)):
        return True
    return callable(value) or value is None or _is_jit(value)


class CodeGenerator:
    """Generates the module for one kernel specialization."""

    def __init__(self, fn, *, params: Dict[str, tuple], target: str, num_warps: int,
                 warp_size: int, num_ctas: int = 1, maxnreg: Optional[int] = None,
                 waves_per_eu: Optional[int] = None, llvm_fn_attrs: tuple = (),
                 debug: bool = False, sanitize_overflow: bool = True, fp_fusion: bool = True):
        """``params`` maps every argument name to ``("runtime", type, divisibility,
        pointer_range)`` or ``("constexpr", value)``."""
        self.fn = fn
        self.maxnreg = maxnreg
        self.waves_per_eu = waves_per_eu
        self.llvm_fn_attrs = tuple(llvm_fn_attrs)
        self.fp_fusion = fp_fusion
        self.params = params
        self.target = target
        self.num_warps = num_warps
        self.warp_size = warp_size
        self.b = IRBuilder()
        self.sem = Semantic(self.b, target=target, num_warps=num_warps, warp_size=warp_size,
                            codegen=self, num_ctas=num_ctas, debug=debug,
                            overflow_checks=debug and sanitize_overflow)
        self.frames: List[_Frame] = []
        self.called = {}
        self.constructing = set()  # ids of aggregates a @kiln.jit __init__ is building
        self.node = None  # the AST node being compiled

    @property
    def frame(self) -> _Frame:
        return self.frames[-1]

    # -- errors and locations -------------------------------------------------------------------

    def error(self, node, message, cls=CompilationError, **kw) -> CompilationError:
        file, line, col = self.frame.src.position(node)
        return cls(message, file, line, col, **kw)

    def visit(self, node):
        method = getattr(self, "visit_" + type(node).__name__, None)
        if method is None:
            msg = _UNSUPPORTED.get(type(node).__name__,
                                   f"{type(node).__name__} is not supported in kernels")
            raise self.error(node, msg, UnsupportedLanguageConstruct)
        if not hasattr(node, "lineno"):
            return method(node)
        saved, saved_node = self.b.loc, self.node
        self.b.loc = loc_text(*self.frame.src.position(node))
        self.node = node
        try:
            return method(node)
        except CompilationError:
            raise
        except (ValueError, TypeError, AssertionError, NameError, ZeroDivisionError) as e:
            raise self.error(node, str(e), notes=self._runtime_argument_notes(node, e)) from e
        except RecursionError as e:
            raise self.error(node, "recursion too deep while compiling") from e
        except Exception as e:
            raise self.error(node, f"{type(e).__name__}: {e}") from e
        finally:
            self.b.loc, self.node = saved, saved_node

    def _runtime_argument_notes(self, node, e):
        """Where a constexpr was wanted and the expression reads a kernel argument that is not
        annotated ``kl.constexpr`` (a launch passes it at run time, even one ``kiln.compile``
        could be given as a constexpr): a note saying so."""
        if "constexpr" not in str(e):
            return []
        names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        notes = []
        for name in sorted(names):
            site = self.frame.runtime_constexprs.get(name)
            if site is not None and self.frame.scope.get(name) is not None:
                file, line, col = site
                notes.append((f"{name!r} is annotated constexpr but was assigned a run-time "
                              f"value (accepted, as Triton does, but it is not known at "
                              f"compile time)", file, line, col))
        if len(self.frames) != 1:
            return notes
        for name in sorted(names):
            kind = self.params.get(name)
            # Only a number could have been a constexpr (not a pointer or a descriptor).
            scalar = kind and kind[0] == "runtime" and isinstance(kind[1], kl.dtype) \
                and not kind[1].is_ptr()
            if scalar and name not in self.fn.constexpr_names \
                    and self.frame.scope.get(name) is not None:
                notes.append((f"{name!r} is an argument of {self.fn.__name__}() that is not "
                              f"annotated kl.constexpr, so it is a run-time value; declare it "
                              f"'{name}: kl.constexpr'", None, None, None))
        return notes

    def visit_body(self, stmts):
        for stmt in stmts:
            if self.frame.returned:
                break
            self.visit(stmt)

    # -- entry point --------------------------------------------------------------------------

    def generate(self) -> str:
        src = self.fn.src
        frame = _Frame(self.fn, src)
        self.frames.append(frame)
        fdef = src.fdef
        for star in (fdef.args.vararg, fdef.args.kwarg):
            if star is not None:
                raise self.error(star, "kernels cannot take *args or **kwargs",
                                 UnsupportedLanguageConstruct)
        args = []
        for arg in fdef.args.posonlyargs + fdef.args.args + fdef.args.kwonlyargs:
            loc = loc_text(*src.position(arg))
            frame.scope[arg.arg] = self._parameter(arg.arg, self.params[arg.arg], args, loc)
            frame.sites[arg.arg] = src.position(arg)
        def_loc = loc_text(*src.position(fdef))
        body = Block()
        self.sem.entry_block = body
        with self.b.insertion(body), self.b.at_loc(def_loc):
            self.visit_body(structured_body(fdef))
            if frame.ret is not None:
                raise self.error(fdef, "a kernel cannot return a value")
            self.b.loc = def_loc
            end = target_hook(self.target, "kernel_end")  # a vendor's last words (its waits)
            if end is not None:
                end(self.sem)
            self.b.create("func.return")
        attrs = (f'tile.target = "{self.target}", tile.num_warps = {self.num_warps} : i32, '
                 f"tile.threads_per_warp = {self.warp_size} : i32")
        if self.maxnreg is not None:
            attrs += f", tile.maxnreg = {self.maxnreg} : i32"
        if self.waves_per_eu:
            attrs += f", tile.waves_per_eu = {self.waves_per_eu} : i32"
        if not self.fp_fusion:
            attrs += ", tile.fp_fusion = false"
        if self.llvm_fn_attrs:
            pairs = ", ".join(f'["{n}", "{v}"]' for n, v in self.llvm_fn_attrs)
            attrs += f", tile.llvm_fn_attrs = [{pairs}]"
        head = f"func.func public @{symbol_name(fdef.name)}({', '.join(args)})"
        return self.b.module_text(attrs, head, body, def_loc, def_loc)

    def _parameter(self, name, kind, args, loc):
        """The kernel's value of a parameter of ``kind``; its IR arguments appended to
        ``args``. A tuple's elements are arguments of their own (``ptrs.0``, ``ptrs.1``)."""
        if kind[0] == "constexpr":
            return constexpr(kind[1])
        if kind[0] == "tuple":
            return kl_tuple([self._parameter(f"{name}.{i}", k, args, loc)
                             for i, k in enumerate(kind[1])])
        ty, div = kind[1], kind[2]
        prange = kind[3] if len(kind) > 3 else None
        ssa = f"%{name}" if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", name) \
            else f"%arg{len(args)}"
        make_value = getattr(ty, "make_value", None)
        value = make_value(ssa) if make_value else tensor(ssa, ty)
        attrs = ", ".join(([f"tile.divisibility = {div} : i32"] if div else []) +
                          ([f"tile.pointer_range = {prange} : i32"] if prange else []))
        attrs = f" {{{attrs}}}" if attrs else ""
        args.append(f"{ssa}: {ty.to_ir()}{attrs} {loc}")
        if isinstance(ty, kl.tensor_descriptor_type):
            # As in Gluon, the tensor's shape (i32) and strides (i64, in elements) follow
            # the descriptor as scalar parameters (the launcher passes them): one per
            # dimension of the tensor, which an im2col descriptor's block does not have.
            rank = getattr(ty, "tensor_rank", len(ty.block_shape))
            shape = [tensor(f"{ssa}.shape{i}", kl.int32) for i in range(rank)]
            strides = [tensor(f"{ssa}.stride{i}", kl.int64) for i in range(rank)]
            args += [f"{t.handle}: {t.type.to_ir()} {loc}" for t in shape + strides]
            value = type(value)(ssa, ty, shape=shape, strides=strides)
        return value

    # -- names ---------------------------------------------------------------------------------

    def lookup(self, name: str, node):
        frame = self.frame
        if name in frame.scope:
            return frame.scope[name]
        if name in frame.dropped:
            raise NameError(f"'{name}' is not defined here: {frame.dropped[name]}")
        for where, table in (("closure variable", frame.closure), ("global", frame.globals)):
            if name in table:
                value = to_kiln(table[name])
                if not _allowed_global(value):
                    raise NameError(
                        f"cannot use {where} '{name}' of type {type(value).__name__} in a "
                        f"kernel: only constexpr values can be captured; write "
                        f"{name} = kl.constexpr(...) or pass it as a kernel argument")
                return value
        if hasattr(builtins, name):
            return getattr(builtins, name)
        raise NameError(f"name '{name}' is not defined")

    def bind(self, target, value, node):
        frame = self.frame
        if isinstance(target, ast.Name):
            frame.scope[target.id] = value
            frame.sites[target.id] = frame.src.position(target)
            frame.dropped.pop(target.id, None)
        elif isinstance(target, (ast.Tuple, ast.List)):
            value = _unwrap(value)
            if isinstance(value, tensor):
                raise TypeError("cannot unpack a tensor")
            try:
                values = list(value)
            except TypeError:
                raise TypeError(f"cannot unpack {value!r}") from None
            if len(values) != len(target.elts):
                raise ValueError(f"cannot unpack {len(values)} values into "
                                 f"{len(target.elts)} names")
            for t, v in zip(target.elts, values):
                self.bind(t, v, node)
        elif isinstance(target, ast.Attribute):
            obj = _unwrap(self.visit(target.value))
            if id(obj) not in self.constructing:
                raise self.error(target, "attributes can be set only on the aggregate that a "
                                 "@kiln.jit __init__ is constructing (aggregates are values: "
                                 "build a new one instead of changing this one)",
                                 UnsupportedLanguageConstruct)
            setattr(obj, target.attr, value)
        else:
            raise self.error(target, "only assignments to names (and tuples of names) are "
                             "supported in kernels", UnsupportedLanguageConstruct)

    # -- statements -------------------------------------------------------------------------

    def visit_Expr(self, node):
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return  # docstring
        # A call whose value is dropped: functions marked must_use_result refuse it.
        self._unused_call = node.value if isinstance(node.value, ast.Call) else None
        self.visit(node.value)

    def visit_Pass(self, node):
        pass

    def visit_With(self, node):
        """``with`` over Kiln's context managers (a vendor's warp-pipeline stage): each
        emits what it marks on entering and leaving the block."""
        managers = []
        for item in node.items:
            ctx = _unwrap(self.visit(item.context_expr))
            if not hasattr(ctx, "__kiln_enter__"):
                raise self.error(
                    item.context_expr, f"with takes Kiln's context managers in a kernel "
                    f"(such as warp_pipeline_stage), not {type(ctx).__name__}",
                    UnsupportedLanguageConstruct)
            try:
                value = ctx.__kiln_enter__(_semantic=self.sem)
            except (ValueError, TypeError) as e:
                raise self.error(item.context_expr, str(e)) from None
            if item.optional_vars is not None:
                self.bind(item.optional_vars, value, item)
            managers.append(ctx)
        for stmt in ast.walk(node):
            if isinstance(stmt, (ast.Return, ast.Break, ast.Continue)):
                raise self.error(stmt, f"{type(stmt).__name__.lower()} inside a with block "
                                 f"is not supported in kernels (the block must end where "
                                 f"it is written)", UnsupportedLanguageConstruct)
        self.visit_body(node.body)
        for ctx in reversed(managers):
            ctx.__kiln_exit__(_semantic=self.sem)

    def visit_Assign(self, node):
        value = self.visit(node.value)
        for target in node.targets:
            self.bind(target, value, node)

    def visit_AnnAssign(self, node):
        if node.value is None:
            return
        value = self.visit(node.value)
        ann = node.annotation
        is_cx = (isinstance(ann, ast.Name) and ann.id == "constexpr") or (
            isinstance(ann, ast.Attribute) and ann.attr == "constexpr") or (
            isinstance(ann, ast.Constant) and "constexpr" in str(ann.value))
        if is_cx:
            if _has_tensor(value):
                # Triton wraps whatever the value is (visit_AnnAssign): a kernel that names a
                # run-time value `x: constexpr = ...` and only passes it on compiles there. So
                # here: the name holds the run-time value; where a compile-time value is
                # wanted, the error's note points back at this line.
                if isinstance(node.target, ast.Name):
                    self.frame.runtime_constexprs[node.target.id] = \
                        self.frame.src.position(node)
            else:
                value = constexpr(value)
        self.bind(node.target, value, node)

    def visit_AugAssign(self, node):
        if not isinstance(node.target, ast.Name):
            raise self.error(node, "augmented assignment is only supported on names",
                             UnsupportedLanguageConstruct)
        lhs = self.lookup(node.target.id, node)
        value = self.binop(node.op, lhs, self.visit(node.value), node)
        self.bind(node.target, value, node)

    def visit_Return(self, node):
        frame = self.frame
        if frame.cf_depth:
            # ifs and loops over compile-time values that return were made structured
            # (returns.py); what is left is a return inside a while loop
            raise self.error(node, "return inside a while loop is not supported; assign to "
                             "a variable and return after the loop",
                             UnsupportedLanguageConstruct)
        frame.ret = self.visit(node.value) if node.value is not None else None
        frame.returned = True

    def visit_Assert(self, node):
        test = self.visit(node.test)
        if _has_tensor(test):
            raise self.error(node, "assert on a runtime value is not supported; use "
                             "kl.static_assert for compile-time checks",
                             UnsupportedLanguageConstruct)
        if not _unwrap(test):
            msg = _unwrap(self.visit(node.msg)) if node.msg is not None else ""
            raise AssertionError(f"assertion failed: {msg}" if msg else "assertion failed")

    def visit_Break(self, node):
        kind = self.frame.loops[-1] if self.frame.loops else ""
        msg = ("while loops with break are not supported in kernels" if kind == "while" else
               "break is not supported in kernels")
        raise self.error(node, msg, UnsupportedLanguageConstruct)

    def visit_If(self, node):
        cond = self.visit(node.test)
        if not isinstance(_unwrap(cond), tensor):
            self.visit_body(node.body if _unwrap(cond) else node.orelse)
            return
        self.check_runtime_control_flow(node, "if")
        runtime_if(self, node, cond)

    def check_runtime_control_flow(self, node, what):
        """A reduce combine region is one block of elementwise ops: no scf.if/for/while."""
        if self.sem.combine_depth:
            raise self.error(node, f"a runtime {what} is not supported in a reduce combine "
                             f"function; combine the two scalars with elementwise operations "
                             f"(kl.where, kl.maximum, ...)", UnsupportedLanguageConstruct)

    def visit_For(self, node):
        visit_for(self, node)

    def visit_UnrollReturns(self, node):
        """A loop whose body returns (returns.py): unrolled when static, else an error."""
        loop = node.loop
        if loop.orelse:
            raise self.error(loop, "for ... else is not supported in kernels",
                             UnsupportedLanguageConstruct)
        kind, spec, _ = loop_iterator(self, loop)
        if kind != "static":
            raise self.error(first_return(loop.body) or loop,
                             "return inside a runtime for loop is not supported (only inside "
                             "kl.static_range or a compile-time tuple, which are unrolled); "
                             "assign to a variable and return after the loop",
                             UnsupportedLanguageConstruct)
        if len(spec) > MAX_STATIC_UNROLL:
            raise self.error(loop.iter, f"static loop of {len(spec)} iterations exceeds the "
                             f"unroll limit ({MAX_STATIC_UNROLL})")
        self.visit_body(expand_unrolled(node, spec))

    def visit_BindTrip(self, node):
        self.bind(node.target, node.value, node)

    def visit_While(self, node):
        visit_while(self, node)

    # -- expressions ----------------------------------------------------------------------------

    def visit_Constant(self, node):
        return node.value

    def visit_Name(self, node):
        return self.lookup(node.id, node)

    def visit_Tuple(self, node):
        return kl_tuple(self._elements(node.elts))

    def visit_List(self, node):
        return list(self._elements(node.elts))

    def _elements(self, elts):
        out = []
        for e in elts:
            if isinstance(e, ast.Starred):
                out.extend(_unwrap(self.visit(e.value)))
            else:
                out.append(self.visit(e))
        return out

    def visit_Slice(self, node):
        parts = [None if p is None else _unwrap(self.visit(p))
                 for p in (node.lower, node.upper, node.step)]
        return slice(*parts)

    def visit_Subscript(self, node):
        value = self.visit(node.value)
        index = self.visit(node.slice)
        if isinstance(_unwrap(value), tensor):
            return self.sem.subscript(_unwrap(value), _unwrap(index))
        if _has_tensor(index):
            raise TypeError("indexing a compile-time value needs a constexpr index")
        index = tuple(_unwrap(i) for i in index) if isinstance(index, tuple) else _unwrap(index)
        return _unwrap(value)[index]

    def visit_Attribute(self, node):
        wrapped = self.visit(node.value)
        if node.attr == "value" and isinstance(wrapped, constexpr):  # Triton's constexpr.value
            return wrapped.value
        obj = _unwrap(wrapped)
        if node.attr in ("type", "dtype") and type(obj) in (int, float):
            # A number the compiler folded where Triton would hold a scalar tensor (x % 8 of a
            # constant): its type is the one it takes as a kernel value.
            return self.sem.default_dtype(obj)
        if node.attr == "T" and isinstance(obj, tensor):  # Triton's x.T: a 2-D transpose
            return kl.trans(obj, _semantic=self.sem)
        if type(obj) in (int, float, bool) and not hasattr(obj, node.attr) and \
                hasattr(tensor, node.attr):
            # A number the compiler kept where Triton would hold a scalar tensor (an int
            # assigned to a name, or passed to a helper's parameter): its tensor methods
            # (``((b0 + 1) * BLOCK).to(kl.int32)``) act on that tensor.
            obj = self.sem.as_tensor(obj)
        try:
            value = getattr(obj, node.attr)
        except AttributeError:
            if isinstance(obj, types.ModuleType) and obj.__name__.startswith("kiln"):
                raise AttributeError(_missing_module_name(obj, node.attr)) from None
            owner = obj if isinstance(obj, type) else type(obj)
            if aggregate_fields(owner) is None:
                raise
            value = aggregate_member(owner, node.attr)
        value = to_kiln(value)
        if _is_jit(value) and not isinstance(obj, type) and \
                aggregate_fields(type(obj)) is not None and node.attr not in obj.__dict__:
            return _BoundJit(value, obj)  # a method: called with the instance as self
        return value

    def construct_aggregate(self, cls, args, kwargs, node):
        """``cls(*args)`` for an aggregate class: its __init__ runs at compile time (a Python
        function on the values as they are, or a @kiln.jit one inlined)."""
        if is_triton_made(cls):
            generated = triton_generated_init(cls)
            if generated is not None:
                return self._construct_by_fields(cls, *generated, args, kwargs)
            args, kwargs = self._tensor_field_arguments(cls, args, kwargs)
        init = cls.__dict__.get("__init__")
        if _is_jit(init):
            obj = object.__new__(cls)
            self.constructing.add(id(obj))
            try:
                ret = self.call_function(init, [obj] + list(args), kwargs, node)
            except CompilationError as e:
                if len(e.notes) < 8:
                    e.notes.append((f"in the constructor of '{cls.__qualname__}'",
                                    *self.frame.src.position(node)))
                raise
            finally:
                self.constructing.discard(id(obj))
            if ret is not None:
                raise TypeError(f"{cls.__qualname__}.__init__ must not return a value")
            check_initialized(obj)
            return obj
        return cls(*args, **kwargs)

    def _construct_by_fields(self, cls, fields, anns, init, args, kwargs):
        """An instance of a class Triton's decorator made from a class without ``__init__``,
        built by the constructor newer Gluon generates (the fields in order, positionally or
        by name); a number given for a ``tensor`` field becomes the scalar tensor Triton's
        code generator would have made of it."""
        values = types.SimpleNamespace()
        init(values, *args, **kwargs)
        parts = []
        for f in fields:
            v = getattr(values, f)
            if anns.get(f) is tensor and isinstance(_unwrap(v), (int, float)) and \
                    not isinstance(_unwrap(v), bool):
                v = self.sem.as_tensor(_unwrap(v))
            parts.append(v)
        return rebuild_aggregate(cls, fields, parts)

    def _tensor_field_arguments(self, cls, args, kwargs):
        """Triton's ``_aggregate`` checks each field's value against its annotation; a
        constructor parameter named like a ``tensor`` field and given a number (a folded
        ``cdiv`` of constexprs, say) gets the scalar tensor Triton's code generator would have
        made of it."""
        inner = triton_aggregate_class(cls)
        fields = getattr(inner, "__annotations__", None) or {}
        init = getattr(inner, "__init__", None)
        init = getattr(init, "fn", init)
        try:
            bound = inspect.signature(init).bind(None, *args, **kwargs)
        except (TypeError, ValueError):
            return args, kwargs
        names = list(bound.arguments)[1:]
        def coerce(name, value):
            raw = _unwrap(value)
            if fields.get(name) is tensor and isinstance(raw, (int, float)) and \
                    not isinstance(raw, bool):
                return self.sem.as_tensor(raw)
            return value
        new_args = [coerce(n, a) for n, a in zip(names, args)]
        return new_args, {k: coerce(k, v) for k, v in kwargs.items()}

    def visit_JoinedStr(self, node):
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(str(v.value))
            else:
                parts.append(self.visit(v))
        return "".join(parts)

    def visit_FormattedValue(self, node):
        value = self.visit(node.value)
        if _has_tensor(value):
            raise TypeError("f-strings in kernels can only format constexpr values")
        value = _unwrap(value)
        conv = {115: str, 114: repr, 97: ascii}.get(node.conversion, lambda x: x)
        spec = self.visit(node.format_spec) if node.format_spec is not None else ""
        return format(conv(value), spec)

    def binop(self, op_node, lhs, rhs, node):
        if type(op_node) is ast.Pow or type(op_node) is ast.MatMult:
            if _has_tensor(lhs) or _has_tensor(rhs):
                sym = "**" if type(op_node) is ast.Pow else "@"
                raise self.error(node, f"operator {sym} is not supported on tensors",
                                 UnsupportedLanguageConstruct)
            return _PY_OPS["pow"](_unwrap(lhs), _unwrap(rhs)) if type(op_node) is ast.Pow \
                else _unwrap(lhs) @ _unwrap(rhs)
        op = _BINOPS[type(op_node)]
        a, b = _unwrap(lhs), _unwrap(rhs)
        if isinstance(a, tuple) or isinstance(b, tuple):  # kernel tuples are Python's
            if op == "add" and isinstance(a, tuple) and isinstance(b, tuple):
                return a + b
            if op == "mul" and (isinstance(a, tuple) and type(b) is int or
                                isinstance(b, tuple) and type(a) is int):
                return a * b
            raise TypeError(f"operator {_OP_SYMBOLS.get(op, op)} is not defined for a tuple "
                            f"and {type(b if isinstance(a, tuple) else a).__name__} "
                            f"(tuples take + with a tuple and * with an int)")
        if _has_tensor(lhs) or _has_tensor(rhs):
            return self.sem.binary(op, _unwrap(lhs), _unwrap(rhs))
        return _PY_OPS[op](_unwrap(lhs), _unwrap(rhs))

    def visit_BinOp(self, node):
        return self.binop(node.op, self.visit(node.left), self.visit(node.right), node)

    def visit_UnaryOp(self, node):
        operand = self.visit(node.operand)
        op = _UNARY[type(node.op)]
        if _has_tensor(operand):
            return self.sem.unary(op, _unwrap(operand))
        return _PY_OPS[op](_unwrap(operand))

    def visit_Compare(self, node):
        lhs = self.visit(node.left)
        result = None
        for op_node, right in zip(node.ops, node.comparators):
            rhs = self.visit(right)
            if type(op_node) in _CMPOPS:
                op = _CMPOPS[type(op_node)]
                if _has_tensor(lhs) or _has_tensor(rhs):
                    value = self.sem.compare(op, _unwrap(lhs), _unwrap(rhs))
                else:
                    value = _PY_OPS[op](_unwrap(lhs), _unwrap(rhs))
            else:
                # `is` / `is not` compare objects at compile time, tensors included (as
                # Triton: a tensor `is None` is False); `in` needs compile-time values.
                if type(op_node) not in (ast.Is, ast.IsNot) and (
                        _has_tensor(lhs) or _has_tensor(rhs)):
                    raise TypeError(f"operator {type(op_node).__name__} is not supported on "
                                    f"tensors")
                a, b = _unwrap(lhs), _unwrap(rhs)
                value = {ast.Is: lambda: a is b, ast.IsNot: lambda: a is not b,
                         ast.In: lambda: a in b, ast.NotIn: lambda: a not in b}[type(op_node)]()
            if result is None:
                result = value
            elif _has_tensor(result) or _has_tensor(value):
                result = self.sem.logical("and", result, value)
            else:
                result = result and value
            lhs = rhs
        return result

    def visit_BoolOp(self, node):
        is_and = isinstance(node.op, ast.And)
        result = self.visit(node.values[0])
        for expr in node.values[1:]:
            if not _has_tensor(result):
                if bool(_unwrap(result)) != is_and:  # short-circuit at compile time
                    return result
                result = self.visit(expr)
                continue
            value = self.visit(expr)
            result = self.sem.logical("and" if is_and else "or", _unwrap(result),
                                      _unwrap(value))
        return result

    def visit_IfExp(self, node):
        cond = self.visit(node.test)
        if not _has_tensor(cond):
            return self.visit(node.body if _unwrap(cond) else node.orelse)
        return self.sem.where(_unwrap(cond), _unwrap(self.visit(node.body)),
                              _unwrap(self.visit(node.orelse)))

    # -- calls ----------------------------------------------------------------------------------

    def visit_Call(self, node):
        unused = getattr(self, "_unused_call", None) is node
        self._unused_call = None
        fn = _unwrap(self.visit(node.func))
        must_use = getattr(fn, "_must_use_result", False)
        if must_use and unused:
            why = f" {must_use}" if isinstance(must_use, str) else ""
            raise ValueError(f"the result of {ast.unparse(node.func)}() is not used{why}")
        args = self._elements(node.args)
        kwargs = {}
        for kw in node.keywords:
            if kw.arg is None:
                value = _unwrap(self.visit(kw.value))
                if not isinstance(value, dict):
                    raise TypeError("** arguments must be a mapping")
                kwargs.update(value)
            else:
                kwargs[kw.arg] = self.visit(kw.value)
        if isinstance(fn, TritonOnly):
            raise self.error(node, fn.message(), UnsupportedLanguageConstruct)
        if isinstance(fn, _BoundJit):  # a @kiln.jit method of an aggregate: self first
            fn, args = fn.fn, [fn.obj] + list(args)
        if isinstance(fn, type) and aggregate_fields(fn) is not None:
            return self.construct_aggregate(fn, args, kwargs, node)
        if _is_jit(fn):
            try:
                return self.call_function(fn, args, kwargs, node)
            except CompilationError as e:
                if len(e.notes) < 8:
                    e.notes.append((f"in call to '{fn.__name__}'",
                                    *self.frame.src.position(node)))
                raise
        if is_builtin(fn):
            return _kernel_tuple(fn(*args, _semantic=self.sem, **kwargs))
        if is_project_builtin(fn):  # a project's @tl.core.builtin helper
            return _kernel_tuple(call_project_builtin(
                fn, [_unwrap(a) for a in args], {k: _unwrap(v) for k, v in kwargs.items()},
                self.sem))
        if fn in (builtins.range, kl.range, kl.static_range):
            raise TypeError(f"{getattr(fn, '__name__', fn)}() can only be used as the iterator "
                            f"of a for loop")
        if fn is builtins.print:
            raise self.error(node, "print() is not supported in kernels; use kl.static_print "
                             "for compile-time values", UnsupportedLanguageConstruct)
        if fn is builtins.abs and args and _has_tensor(args[0]):
            return self.sem.math1("abs", _unwrap(args[0]))
        if fn in (builtins.min, builtins.max) and (
                any(_has_tensor(a) for a in args) or any(_has_tensor(v) for v in kwargs.values())):
            # As in Triton and Gluon: Python's min/max of runtime values is the elementwise
            # minimum/maximum of their arguments (a runtime scalar is a 0-d tensor).
            name = "kl.minimum" if fn is builtins.min else "kl.maximum"
            if kwargs or len(args) < 2:
                raise TypeError(f"{fn.__name__}() of runtime values takes two or more "
                                f"positional arguments (no iterable, key= or default=); use "
                                f"{name} (elementwise) or kl.{fn.__name__} (reduction)")
            pick = kl.minimum if fn is builtins.min else kl.maximum
            out = args[0]
            for a in args[1:]:
                out = pick(out, a, _semantic=self.sem)
            return out
        if fn is builtins.len and len(args) == 1 and not kwargs and \
                isinstance(_unwrap(args[0]), (list, tuple)):
            return len(_unwrap(args[0]))  # a tuple's length is known at compile time
        if fn is builtins.isinstance and len(args) == 2 and not kwargs:
            return isinstance(args[0], _unwrap(args[1]))  # a value's class, at compile time
        if fn in (builtins.tuple, kl_tuple) and len(args) == 1 and set(kwargs) <= {"type"} and \
                isinstance(_unwrap(args[0]), (list, tuple)):
            # kl.tuple([a, b]) (Gluon's tuple): a kernel's tuple
            return kl_tuple(_unwrap(args[0]), type=_unwrap(kwargs.get("type")))
        if self._compile_time_callable(fn):
            if any(_has_tensor(a) for a in args) or any(_has_tensor(v) for v in kwargs.values()):
                raise TypeError(f"{getattr(fn, '__name__', fn)}() runs at compile time and "
                                f"needs constexpr arguments, got a runtime tensor")
            out = fn(*[_unwrap(a) for a in args], **{k: _unwrap(v) for k, v in kwargs.items()})
            # A layout Kiln cannot lower is accepted where Python code builds it (at import
            # time, Gluon code builds layouts freely); built inside a kernel, the error is here.
            problem = getattr(out, "_unsupported", None)
            if isinstance(out, DistributedLayout) and problem:
                raise ValueError(problem)
            return out
        name = getattr(fn, "__qualname__", None) or repr(fn)
        raise self.error(node, f"cannot call '{name}' from a kernel: it is neither a "
                         f"@kiln.jit function nor a kiln builtin (mark compile-time helpers "
                         f"with @kl.constexpr_function)", UnsupportedLanguageConstruct)

    @staticmethod
    def _compile_time_callable(fn) -> bool:
        if getattr(fn, "__kiln_constexpr_function__", False):
            return True
        try:
            if fn in _PY_BUILTINS:
                return True
        except TypeError:
            pass
        if isinstance(fn, (kl.dtype, DistributedLayout)):
            return True
        module = getattr(fn, "__module__", None) or ""
        if module == "math" or getattr(fn, "__self__", None) is _pymath:
            return True
        # A method of a compile-time value of Python's immutable types (``n.bit_length()``,
        # ``name.upper()``): Python computes it, as in Gluon.
        owner = getattr(fn, "__self__", None)
        if type(owner) in (int, float, bool, str, bytes, frozenset, complex) and \
                type(fn).__name__ in ("builtin_function_or_method", "method-wrapper"):
            return True
        if isinstance(fn, type) and module.startswith("kiln.language"):
            return True
        return module.startswith("kiln.language") and callable(fn)

    def call_combine(self, fn, a, b):
        """Inline the combine function of a ``kl.reduce`` for two scalars (two tuples of
        scalars: their elements in order); an error inside it gets a note pointing at the
        reduce."""
        site = self.frame.src.position(self.node) if self.node is not None else None
        args = list(a) + list(b) if isinstance(a, tuple) else [a, b]
        try:
            return self.call_function(fn, args, {}, self.node)
        except CompilationError as e:
            if site and len(e.notes) < 8:
                e.notes.append((f"in the combine function '{fn.__name__}' of this reduce",
                                *site))
            raise

    def call_partition(self, fn, args, index):
        """Inline a warp_specialize partition's function; an error inside it gets a note
        pointing at the warp_specialize call."""
        site = self.frame.src.position(self.node) if self.node is not None else None
        # Vendors' hooks tell a worker's threads from the kernel's (kernel_end waits only
        # for what the kernel's own warps issued).
        depth = getattr(self.sem, "worker_partition_depth", 0)
        self.sem.worker_partition_depth = depth + (index > 0)
        try:
            return self.call_function(fn, args, {}, self.node)
        except CompilationError as e:
            if site and len(e.notes) < 8:
                what = "default partition" if index == 0 else f"worker partition {index - 1}"
                e.notes.append((f"in the {what} '{fn.__name__}' of this warp_specialize",
                                *site))
            raise
        finally:
            self.sem.worker_partition_depth = depth

    def call_function(self, fn, args, kwargs, node=None):
        """Inline ``fn`` (a JITFunction) with the given arguments; return its return value."""
        if len(self.frames) > MAX_INLINE_DEPTH:
            raise ValueError(f"calls to @kiln.jit functions nest deeper than "
                             f"{MAX_INLINE_DEPTH} levels (recursion is not supported)")
        sig = fn.signature
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{fn.__name__}(): {e}") from None
        bound.apply_defaults()
        self.called[id(fn)] = fn
        frame = _Frame(fn, fn.src, call_site=node)
        for name, value in bound.arguments.items():
            # As Triton: a helper's constexpr annotation makes a compile-time argument a
            # constexpr; a runtime value passed there stays the runtime value.
            if name in fn.constexpr_names and not _has_tensor(value):
                value = constexpr(value)
            frame.scope[name] = value
            frame.sites[name] = fn.src.position(fn.src.fdef)
        self.frames.append(frame)
        try:
            self.visit_body(structured_body(fn.src.fdef))
        finally:
            self.frames.pop()
        return frame.ret
