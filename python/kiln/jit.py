"""``@kiln.jit``: specialization, in-memory and disk caches, and launch through kiln.runtime.

Like Triton: an integer argument equal to 1 becomes a constexpr, integers divisible by 16 and
pointers aligned to 16 bytes get ``tile.divisibility = 16``; ``do_not_specialize`` opts out.
On targets whose table row has ``pointer_range_bytes`` (loads through 32-bit offsets), a
tensor whose storage spans at most that many bytes gets ``":range32"``
(``tile.pointer_range = 32``: the kernel's accesses through it fit 32-bit offsets, as
Triton's ``tt.pointer_range``); the contract is that the kernel stays inside the tensor.
"""

from __future__ import annotations

import ast
import functools
import keyword
import sys
import types
from typing import Dict

from .compiler.cache import mangle_value
from .compiler.compiler import (POINTER_RANGE_MARKER, check_num_ctas, compile as _compile,
                                normalize_llvm_fn_attrs,
                                target_info, type_name)
from .compiler.errors import user_facing
from .compiler.function import KernelFunction
from .compiler.triton_interop import link_triton_view, to_kiln
from .language import _core as core
from .language._layouts import DistributedLayout, SharedLayout

__all__ = ["jit", "JITFunction"]

_TORCH_DTYPES = {
    "float32": "fp32", "float": "fp32", "float16": "fp16", "half": "fp16",
    "bfloat16": "bf16", "float64": "fp64", "double": "fp64", "int8": "i8", "int16": "i16",
    "int32": "i32", "int": "i32", "int64": "i64", "long": "i64", "uint8": "u8",
    "uint16": "u16", "uint32": "u32", "uint64": "u64", "bool": "i1",
    "float8_e4m3fn": "fp8e4nv", "float8_e5m2": "fp8e5", "float8_e4m3fnuz": "fp8e4b8",
    "float8_e5m2fnuz": "fp8e5b16",
}
# debug: Triton's debug mode: device_assert is compiled and, unless sanitize_overflow is
# False, signed integer +, -, * assert that they do not overflow (as in Triton, the overflow
# checks need debug=True).
_OPTIONS = ("num_warps", "num_stages", "num_ctas", "stream", "target", "sanitize_overflow",
            "debug", "maxnreg", "enable_fp_fusion", "waves_per_eu", "matrix_instr_nonkdim",
            "kpack", "schedule_hint", "llvm_fn_attrs")
# Triton's AMD options: waves_per_eu is the occupancy hint (passed to LLVM); the others steer
# Triton's automatic lowering of tl.dot to MFMA, which a Gluon kernel -- its MFMA layouts
# written out -- does not use, in Triton as in Kiln: accepted, and they change nothing.


def _pointer_annotation(ann, fn):
    """The pointer type an argument annotation declares (``x: kl.pointer_type(kl.float32)``
    or ``x: "*fp32"``), or None."""
    if isinstance(ann, core.pointer_type):
        return ann
    if not isinstance(ann, str):
        return None
    text = ann.strip()
    if text[:1] in ("'", '"'):  # x: "*fp32" under from __future__ import annotations
        try:
            text = str(ast.literal_eval(text)).strip()
        except (ValueError, SyntaxError):
            return None
    if text.startswith("*"):
        try:
            ty = core.dtype_from_name(text)
        except ValueError:
            return None
        return ty if isinstance(ty, core.pointer_type) else None
    if "pointer_type" in text:  # a postponed annotation (from __future__ import annotations)
        try:
            ty = eval(text, dict(fn.__globals__))  # noqa: S307 - the user's own annotation
        except Exception:
            return None
        return ty if isinstance(ty, core.pointer_type) else None
    return None


_DTYPE_NAMES: Dict[object, str] = {}
# target -> its table's pointer_range_bytes (0: no pointer-range specialization).
_RANGE_BYTES: Dict[str, int] = {}


def _pointer_range_bytes(target: str) -> int:
    limit = _RANGE_BYTES.get(target)
    if limit is None:
        limit = _RANGE_BYTES[target] = int(target_info(target).get("pointer_range_bytes") or 0)
    return limit


def _storage_bytes(value):
    """As kiln.runtime.launcher.storage_bytes (which checks it at launch): torch's
    untyped_storage().size(), else nbytes, else None."""
    storage = getattr(value, "untyped_storage", None)
    size = storage().size() if storage is not None else getattr(value, "nbytes", None)
    return size if isinstance(size, int) and not isinstance(size, bool) else None


def _range_suffix(value, range_bytes) -> str:
    if not range_bytes:
        return ""
    size = _storage_bytes(value)
    return f":{POINTER_RANGE_MARKER}" if size is not None and size <= range_bytes else ""


def _pointer_dtype_name(value) -> str:
    dt = getattr(value, "dtype", None)
    if isinstance(dt, core.dtype):
        return dt.name
    try:
        return _DTYPE_NAMES[dt]
    except (KeyError, TypeError):
        pass
    name = str(dt).split(".")[-1]
    if name not in _TORCH_DTYPES:
        raise TypeError(f"unsupported tensor dtype {dt!r}")
    try:
        _DTYPE_NAMES[dt] = _TORCH_DTYPES[name]
    except TypeError:  # an unhashable dtype object
        pass
    return _TORCH_DTYPES[name]


class JITFunction(KernelFunction):
    """A kernel (or a helper inlined into kernels). Launch with ``fn[grid](*args, **kw)``.

    What compiling reads (source, constexpr arguments, dependencies) is the base class
    :class:`kiln.compiler.function.KernelFunction`; this adds specialization on argument
    values, the in-memory kernel cache and launches through kiln.runtime."""

    def __init__(self, fn, do_not_specialize=(), do_not_specialize_on_alignment=()):
        super().__init__(fn)

        def names(items):
            return {self.arg_names[i] if isinstance(i, int) else i for i in items}
        self.do_not_specialize = names(do_not_specialize)
        self.do_not_specialize_on_alignment = names(do_not_specialize_on_alignment)
        self.debug = False  # @kiln.jit(debug=True): compile in debug mode by default
        self._pointer_annotations = None
        self._param_set = frozenset(self.arg_names)
        self._kernels: Dict[tuple, list] = {}
        # The pointer_range_bytes of the targets compiled for (warm launches key on them).
        self._range_limits = ()
        # Warm launches: a cheap key of the arguments -> the _kernels entry it selects.
        self._launches: Dict[tuple, list] = {}
        # The fast warm path: per call shape (how many positional and keyword arguments), the
        # first of its generated launch functions (_Variant), and their list.
        self._warm: Dict[object, object] = {}
        self._variants: Dict[object, list] = {}
        # A generated check that the globals compiled against are still bound (None: there are
        # none); _stale_globals until the first warm launch builds it.
        self._globals_ok = _stale_globals

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"{self.__name__} is a @kiln.jit function: launch it with "
                           f"{self.__name__}[grid](...) or call it from another kernel")

    @property
    def fn(self):
        """The Python function. Once the program has imported Triton, the function's own
        ``fn`` is a stand-in that Triton's runtime takes for its JITFunction (Triton's
        autotuner walks ``.fn`` until it meets one, and reads its ``cache_key``): see
        :func:`kiln.compiler.triton_interop.link_triton_view`."""
        if not self._triton_linked and "triton" in sys.modules:
            self._triton_linked = link_triton_view(self, self._fn)
        return self._fn

    @fn.setter
    def fn(self, value):
        self._fn = value
        self._triton_linked = False

    # -- specialization ----------------------------------------------------------------------

    def _bind(self, args, kwargs):
        fast = self._fast_bind(args, kwargs)
        if fast is not None:
            return fast
        options = {k: kwargs[k] for k in _OPTIONS if k in kwargs}
        # An option the kernel also takes as a parameter (Gluon's `num_warps: constexpr`)
        # is both.
        kwargs = {k: v for k, v in kwargs.items()
                  if k not in _OPTIONS or k in self._param_set}
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self.__name__}(): {e}") from None
        bound.apply_defaults()
        return bound.arguments, options

    def _fast_bind(self, args, kwargs):
        """The launch path's binding: every parameter given once, positionally or by name,
        no defaults to fill in. Anything else (defaults, mistakes) takes inspect's binding and
        its messages."""
        names = self.arg_names
        if len(args) > len(names):
            return None
        given = dict(zip(names, args))
        options = {}
        for k, v in kwargs.items():
            if k in given:
                return None
            if k in self._param_set:
                given[k] = v
                if k in _OPTIONS:
                    options[k] = v
            elif k in _OPTIONS:
                options[k] = v
            else:
                return None
        if len(given) != len(names):
            return None
        return ({n: given[n] for n in names} if kwargs else given), options

    def specialize(self, arguments: dict, pointer_range_bytes: int = 0):
        """-> (signature, constexprs, runtime argument names, in-memory key part).
        ``pointer_range_bytes``: the target's (0: no ``":range32"``)."""
        signature, constexprs, runtime, key = {}, {}, [], []
        for name, value in arguments.items():
            if name in self.constexpr_names:
                kind, v = "constexpr", core._unwrap(to_kiln(value))
            elif type(value) in (tuple, list) and _holds_runtime(value):
                kind, v = "runtime", self._specialize_tuple(name, value, (), runtime,
                                                           pointer_range_bytes)
                signature[name] = v
                key.append((name, "r", v))
                continue
            else:
                kind, v = self._specialize_arg(name, value, pointer_range_bytes)
            if kind == "constexpr":
                constexprs[name] = v
                key.append((name, "c", _mangle(v)))
            else:
                signature[name] = v
                runtime.append(name)
                key.append((name, "r", v))
        return signature, constexprs, runtime, tuple(key)

    def _specialize_tuple(self, name, value, path, runtime, range_bytes):
        """A tuple argument holding tensors: each element specialized as an argument of its
        own (compile-time elements stay in the signature as constexprs); ``runtime`` gets
        ``(name, path)`` for each runtime element, in the kernel's order."""
        out = []
        for i, elem in enumerate(value):
            where = path + (i,)
            if type(elem) in (tuple, list) and _holds_runtime(elem):
                out.append(self._specialize_tuple(name, elem, where, runtime, range_bytes))
                continue
            kind, v = self._specialize_arg(f"{name}[{i}]", elem, range_bytes)
            if kind == "constexpr" or elem is None:
                out.append(core.constexpr(v))
            else:
                runtime.append((name, where))
                out.append(v)
        return tuple(out)

    def pointer_params(self) -> Dict[str, object]:
        """Arguments annotated with a pointer type: an integer passed there is an address."""
        if self._pointer_annotations is None:
            self._pointer_annotations = {}
            for n, p in self.signature.parameters.items():
                ty = _pointer_annotation(p.annotation, self.fn)
                if ty is not None:
                    self._pointer_annotations[n] = ty
        return self._pointer_annotations

    def _specialize_pointer(self, name, value, ptr, align, range_bytes=0):
        """An argument annotated as a pointer: a tensor (``data_ptr()``) or an integer
        address."""
        if ptr.address_space != 1:
            raise TypeError(f"argument {name!r} is annotated {ptr!r} in address space "
                            f"{ptr.address_space}; kernel pointer arguments are global "
                            f"(address space 1)")
        elem = ptr.element_ty
        if hasattr(value, "data_ptr"):
            got = core.dtype_from_name(_pointer_dtype_name(value))
            if got != elem and not (elem == core.int1 and got == core.int8):
                raise TypeError(f"argument {name!r} is annotated *{elem.name} but got a "
                                f"tensor of {got.name}")
            address = value.data_ptr()
            ranged = _range_suffix(value, range_bytes)
        elif isinstance(value, int) and not isinstance(value, bool) or (
                not isinstance(value, (bool, float)) and hasattr(value, "__index__")):
            address = value.__index__()
            ranged = ""  # an address has no size
            if not 0 <= address < 2**64:
                raise ValueError(f"argument {name!r}: address {address} is not a 64-bit "
                                 f"unsigned integer")
        else:
            raise TypeError(f"argument {name!r} is annotated *{elem.name}: pass a tensor (an "
                            f"object with data_ptr()) or an integer device address, got "
                            f"{type(value).__name__}")
        return ("runtime", type_name(ptr) + (":16" if align and address % 16 == 0 else "") +
                ranged)

    def _specialize_arg(self, name, value, range_bytes=0):
        specialize = name not in self.do_not_specialize
        if not specialize:
            range_bytes = 0
        align = specialize and name not in self.do_not_specialize_on_alignment
        value = core._unwrap(value)
        if isinstance(value, core.tensor_descriptor_type):  # warmup with a type
            return ("runtime", value)
        if callable(getattr(value, "_param_spec", None)):  # a host tensor descriptor
            kernel_type = getattr(value, "_kernel_type", None)  # an im2col one says its own
            if callable(kernel_type):
                return ("runtime", kernel_type())
            return ("runtime", core.tensor_descriptor_type(value.dtype, value.block_shape,
                                                           value.layout))
        # The common case first: a tensor for an unannotated parameter.
        data_ptr = getattr(value, "data_ptr", None)
        if data_ptr is not None and not isinstance(value, str) and \
                name not in self.pointer_params():
            ty = "*" + _pointer_dtype_name(value)
            return ("runtime", ty + (":16" if align and data_ptr() % 16 == 0 else "") +
                    _range_suffix(value, range_bytes))
        if isinstance(value, str):  # a type string (warmup without real arguments)?
            try:
                core.dtype_from_name(value.partition(":")[0])
                return ("runtime", value)
            except ValueError:
                return ("constexpr", value)
        if value is None or isinstance(value, (core.dtype, DistributedLayout, SharedLayout,
                                               tuple)):
            return ("constexpr", value)
        ptr = self.pointer_params().get(name)
        if ptr is not None:
            return self._specialize_pointer(name, value, ptr, align, range_bytes)
        if not isinstance(value, (bool, int, float)) and not hasattr(value, "data_ptr"):
            if hasattr(value, "__index__"):  # numpy / torch integer scalars
                value = value.__index__()
            elif hasattr(value, "__float__") and not hasattr(value, "shape") or \
                    getattr(value, "shape", None) == ():
                value = float(value)
        if isinstance(value, bool):
            return ("runtime", "i1")
        if isinstance(value, int):
            if specialize and value == 1:
                return ("constexpr", 1)
            if -2**31 <= value < 2**31:
                ty = "i32"
            elif -2**63 <= value < 2**63:
                ty = "i64"
            elif 0 <= value < 2**64:
                ty = "u64"
            else:
                raise ValueError(f"argument {name!r}: integer {value} does not fit in 64 bits")
            return ("runtime", ty + (":16" if specialize and value % 16 == 0 else ""))
        if isinstance(value, float):
            return ("runtime", "fp32")
        if hasattr(value, "data_ptr"):
            ty = "*" + _pointer_dtype_name(value)
            return ("runtime", ty + (":16" if align and value.data_ptr() % 16 == 0 else "") +
                    _range_suffix(value, range_bytes))
        translated = to_kiln(value)  # a triton.language dtype given for a Gluon parameter
        if translated is not value:
            return self._specialize_arg(name, translated, range_bytes)
        raise TypeError(f"argument {name!r}: unsupported kernel argument of type "
                        f"{type(value).__name__}")

    # -- compile and launch ------------------------------------------------------------------

    def _debug_options(self, options):
        """(debug, sanitize_overflow) of a launch: the launch's ``debug`` or else the
        decorator's."""
        debug = options.get("debug")
        if debug is None:
            debug = self.debug
        # Without debug the overflow option changes nothing (the same kernel).
        return bool(debug), bool(options.get("sanitize_overflow", True)) or not debug

    def _compile(self, arguments, options):
        debug, sanitize_overflow = self._debug_options(options)
        check_num_ctas(options.get("num_ctas", 1), self)
        if self._used_globals:
            self._check_globals()
        num_warps = options.get("num_warps")
        if num_warps is None:  # Gluon's `num_warps: constexpr` parameter is the option
            num_warps = (core._unwrap(arguments["num_warps"]) if "num_warps" in self.constexpr_names
                         and "num_warps" in arguments else 4)
        target = options.get("target")
        driver = None
        if target is None:
            driver = _driver()
            target = _target_name(driver.current_target())
        num_ctas = options.get("num_ctas", 1)
        maxnreg = options.get("maxnreg")
        range_bytes = _pointer_range_bytes(target)
        if range_bytes and range_bytes not in self._range_limits:
            self._range_limits = tuple(sorted(self._range_limits + (range_bytes,)))
            self._warm, self._variants = {}, {}  # their keys lack the new limit
        signature, constexprs, runtime, key = self.specialize(arguments, range_bytes)
        fusion = bool(options.get("enable_fp_fusion", True))
        waves = options.get("waves_per_eu") or None  # 0: the compiler's choice, as None
        fn_attrs = normalize_llvm_fn_attrs(options.get("llvm_fn_attrs"), self)
        mem_key = (key, num_warps, target, num_ctas, maxnreg, debug, sanitize_overflow, fusion,
                   waves, fn_attrs)
        entry = self._kernels.get(mem_key)
        if entry is None:
            deps = self.dependencies()  # the values code generation is about to read
            kernel = _compile(self, signature, constexprs, target=target, num_warps=num_warps,
                              num_ctas=num_ctas, maxnreg=maxnreg, debug=debug,
                              sanitize_overflow=sanitize_overflow, enable_fp_fusion=fusion,
                              waves_per_eu=waves, llvm_fn_attrs=fn_attrs)
            self._record_globals(deps)
            self._globals_ok = _stale_globals
            entry = [kernel, None, runtime, constexprs]
            self._kernels[mem_key] = entry
        return entry, driver

    @user_facing
    def warmup(self, *args, grid=None, **kwargs):
        """Compile for these arguments (values or type strings like ``"*fp32"``) without
        launching; returns the :class:`~kiln.compiler.CompiledKernel`."""
        arguments, options = self._bind(args, kwargs)
        entry, _ = self._compile(arguments, options)
        return entry[0]

    def _launch_key(self, arguments, options):
        """What a warm launch is keyed on: every value that specialization reads, cheaply, or
        None when an argument needs the full path (annotated pointers, unusual types)."""
        parts = [options.get("num_warps", 4), options.get("target"), options.get("num_ctas", 1),
                 options.get("num_stages"), options.get("maxnreg"),
                 self._debug_options(options), options.get("enable_fp_fusion", True),
                 options.get("waves_per_eu"),
                 normalize_llvm_fn_attrs(options.get("llvm_fn_attrs"), self)]
        pointers = self.pointer_params()
        for name, value in arguments.items():
            if name in self.constexpr_names:
                parts.append(value)
                continue
            if name in pointers:  # an annotated pointer: the full path
                return None
            part = self._value_key(value)
            if part is _NO_KEY:
                return None
            parts.append(part)
        key = tuple(parts)
        try:
            hash(key)
        except TypeError:  # an unhashable constexpr
            return None
        return key

    def _value_key(self, value):
        """What specializing one runtime argument reads, cheaply: an int's class, a float,
        bool or None's type, a descriptor's kind, a tensor's type, dtype, alignment and the
        ':range32' limits it fits; a tuple holding tensors (passed element by element) its
        elements'. _NO_KEY when the full path must decide."""
        kind = type(value)
        if kind is int:
            return (value == 1, value % 16 == 0, -2**31 <= value < 2**31,
                    -2**63 <= value < 2**63)
        if kind is float or kind is bool or value is None:  # (None: a compile-time value)
            return kind
        if kind is tuple or kind is list:
            if not _holds_runtime(value):
                return _NO_KEY
            parts = tuple(self._value_key(v) for v in value)
            return _NO_KEY if _NO_KEY in parts else (kind, parts)
        if hasattr(value, "_param_spec"):  # a tensor descriptor: its interned kind
            spec_id = getattr(value, "_spec_id", None)
            return _NO_KEY if spec_id is None else (kind, spec_id)
        data_ptr = getattr(value, "data_ptr", None)
        if data_ptr is None:
            return _NO_KEY
        part = (kind, getattr(value, "dtype", None), data_ptr() % 16 == 0)
        if self._range_limits:  # which ':range32' limits the tensor fits
            size = _storage_bytes(value)
            part += tuple(size is not None and size <= limit for limit in self._range_limits)
        return part

    def run(self, *args, grid, warmup=False, **kwargs):
        """Triton's ``JITFunction.run``: launch on ``grid`` (what ``fn[grid](...)`` does) or,
        with ``warmup=True``, compile only (Triton's autotuner and heuristics call this)."""
        if warmup:
            return self.warmup(*args, **kwargs)
        return self._call(args, kwargs, grid)

    def _call(self, args, kwargs, grid):
        # The fast path: a function generated for this call shape and these argument kinds
        # binds, keys and launches with no generic loop; None when it cannot (a new
        # specialization, anything unusual), and the general path below decides.
        shape = len(args) + (len(kwargs) << 8)
        warm = self._warm.get(shape)
        if warm is not None:
            kernel = warm(args, kwargs, grid)
            if kernel is not None:
                return kernel
        return self._run(args, kwargs, grid, shape)

    @user_facing
    def _run(self, args, kwargs, grid, shape):
        bound = self._fast_bind(args, kwargs)
        key = self._launch_key(*bound) if bound is not None else None
        if key is not None:
            entry = self._launches.get(key)
            if entry is not None and entry[1] is not None:  # compiled and loaded: launch
                if self._used_globals:
                    self._check_globals()  # a rebound global would make it stale
                arguments, options = bound
                self._launch(entry, None, grid, arguments, options)
                self._learn(shape, args, kwargs, arguments, entry)
                return entry[0]  # the CompiledKernel, as Gluon's launch returns it
        arguments, options = bound if bound is not None else self._bind(args, kwargs)
        entry, driver = self._compile(arguments, options)
        self._launch(entry, driver, grid, arguments, options)
        if key is not None:
            self._launches[key] = entry
            self._learn(shape, args, kwargs, arguments, entry)
        return entry[0]

    # -- the fast warm path ------------------------------------------------------------------

    def _learn(self, shape, args, kwargs, arguments, entry):
        """After a launch through the general path: let the fast path launch these argument
        kinds and this key next time (when the kernel and its arguments are usual ones)."""
        loaded = entry[1]
        if not callable(getattr(loaded, "fast_launcher", None)):  # a stand-in driver's
            return
        ok = self._globals_ok
        if ok is not None and not ok():
            # Stale, or a global rebound to an equal value (the full check just passed): the
            # identity paths are rebuilt from what is bound now. It compares with the compiled
            # values, so it is sound whenever it is built.
            self._globals_ok = self._globals_check()
        kinds = self._kinds(arguments)
        if kinds is None:
            return
        variants = self._variants.setdefault(shape, [])
        names = frozenset(kwargs)
        variant = next((v for v in variants if v.kinds == kinds and v.names == names), None)
        if variant is None:
            if len(variants) >= _MAX_VARIANTS:
                return
            variant = _Variant(self, len(args), tuple(kwargs), kinds,
                               {n: v for n, v in arguments.items() if kinds[n] == "const"})
            variants.append(variant)
            for this, after in zip(variants, variants[1:] + [None]):
                this.env["_NEXT"] = after.run if after is not None else _no_variant
            self._warm[shape] = variants[0].run
        key = variant.key(args, kwargs)
        if key is None or key in variant.table:
            return
        leaves = _leaves(self.arg_names, kinds)
        inputs = [(where, kind[0]) for where, _, kind in leaves]
        launch = variant.launchers.get(id(loaded))
        if launch is None or launch[0] is not loaded:
            types = {where: kind[1] for where, _, kind in leaves if len(kind) > 1}
            launch = variant.launchers[id(loaded)] = (
                loaded, loaded.fast_launcher(inputs, entry[2], types))
        variant.table[key] = (launch[1], entry[0], entry[3])

    def _kinds(self, arguments):
        """Per parameter, what the fast path expects there: "const" (a constexpr parameter),
        "int", "float", "bool" (exactly those types), ("tensor", type) (an object with
        data_ptr()), ("desc", type) (a tensor descriptor), "none" (None: a compile-time
        value), ("tuple", type, element kinds) (a tuple holding tensors, passed element by
        element); None when an argument is none of these (the general path always)."""
        pointers = self.pointer_params()
        kinds = {}
        for name, value in arguments.items():
            if name in self.constexpr_names:
                kind = "const"
            elif name in pointers:  # an annotated pointer: the general path
                return None
            else:
                kind = _value_kind(value)
                if kind is None:
                    return None
            kinds[name] = kind
        return kinds

    def _globals_check(self):
        """A function telling whether every global compiled against still is what it was
        (True) or may not be (False: the general path's _check_globals decides), generated
        from _used_globals: the path from each root to the value, object by object, compared
        by identity (a mutable value by UsedGlobal.changed()); None when there are none."""
        try:
            used = list(self._used_globals.values())
            if not used:
                return None
            env = {"J": self, "GS": self._globals_same, "_M": _ABSENT}
            names: Dict[int, str] = {}

            def ref(obj):
                name = names.get(id(obj))
                if name is None:
                    name = names[id(obj)] = f"o{len(names)}"
                    env[name] = obj
                return name

            terms = ["J._globals_same is GS"]
            for u in used:
                root, value = u.root, u.value
                if isinstance(value, (list, dict, set, bytearray)):
                    terms.append(f"not {ref(u)}.changed()[0]")
                    continue
                if isinstance(root, dict):
                    obj = root.get(u.key, _ABSENT)
                    chain = [f"{ref(root)}.get({u.key!r}, _M) is {ref(obj)}"]
                else:
                    obj = root.cell_contents
                    chain = [f"{ref(root)}.cell_contents is {ref(obj)}"]
                for attr in u.path:
                    if not isinstance(obj, (types.ModuleType, type)):
                        obj = _ABSENT
                        break
                    parent, obj = obj, getattr(obj, attr, _ABSENT)
                    if attr.isidentifier() and not keyword.iskeyword(attr):
                        chain.append(f"{ref(parent)}.{attr} is {ref(obj)}")  # (or raises)
                    else:
                        chain.append(f"getattr({ref(parent)}, {attr!r}, _M) is {ref(obj)}")
                if obj is not value:
                    # Not the compiled object (a Triton object compiled as its Kiln
                    # translation, or one rebound to an equal value): while the path still
                    # reaches this same object it is still equal (unless it can change in
                    # place); otherwise compare by value.
                    if isinstance(obj, (list, dict, set, bytearray)) or obj is _ABSENT or \
                            u.changed()[0]:
                        terms.append(f"not {ref(u)}.changed()[0]")
                    else:
                        terms.append(f"(({' and '.join(chain)}) or not {ref(u)}.changed()[0])")
                    continue
                terms += [t for t in chain if t not in terms]
            code = ("def ok():\n  try:\n    return (" + "\n        and ".join(terms) +
                    ")\n  except Exception:\n    return False\n")
            exec(compile(code, f"<kiln globals {self.__name__}>", "exec"), env)  # noqa: S102
            return env["ok"]
        except Exception:  # anything unexpected in what compiling recorded: the full check
            return _stale_globals

    def _launch(self, entry, driver, grid, arguments, options):
        kernel, loaded, runtime, constexprs = entry
        if callable(grid):  # Triton style: the grid from the arguments and constexprs
            meta = dict(arguments)
            meta.update(constexprs)
            meta["num_warps"] = options.get("num_warps", 4)
            grid = grid(meta)
        grid = _normalize_grid(grid)
        if driver is None:
            driver = _driver()
        first = loaded is None
        if first:
            from .runtime import launcher  # lazy (no cycle): `import kiln` skips kiln.runtime
            loaded = entry[1] = launcher.LoadedKernel(driver, kernel.binary, kernel.metadata)
        loaded.launch(grid, [arguments[n] if type(n) is str else _element(arguments, n)
                             for n in runtime], stream=options.get("stream"),
                      grid_checked=True)
        if first:  # what loading learnt from the driver (registers, spills)
            for field in ("n_regs", "n_spills"):
                if field in loaded.metadata:
                    kernel.metadata[field] = loaded.metadata[field]

    def __getitem__(self, grid):
        fn = self

        def launch(*args, **kwargs):  # _call, inlined: one frame fewer per launch
            shape = len(args) + (len(kwargs) << 8)
            warm = fn._warm.get(shape)
            if warm is not None:
                kernel = warm(args, kwargs, grid)
                if kernel is not None:
                    return kernel
            return fn._run(args, kwargs, grid, shape)
        return launch


def _stale_globals():
    """The globals check before one is built: always "maybe changed" (the full check)."""
    return False


def _no_variant(args, kwargs, grid):
    return None


_ABSENT = object()
_MAX_VARIANTS = 8  # argument-kind combinations per call shape with a fast path
# What specialization reads of an int (== 1, divisible by 16, i32 / i64 / u64 / too large),
# as a small int for the i32 ones and the class tuple of the others.
_INT_KEY = ("((1 if {a} == 1 else 2 if {a} & 15 == 0 else 3) "
            "if -2147483648 <= {a} <= 2147483647 else _int_class({a}))")


def _int_class(value):
    return (value & 15 == 0, -2**63 <= value < 2**63, 0 <= value < 2**64)


def _grid3(grid):
    """(x, y, z) of a tuple or list of 1 to 3 ints in range, else None (_normalize_grid
    decides, and names what is wrong)."""
    if type(grid) is not tuple and type(grid) is not list or not 1 <= len(grid) <= 3:
        return None
    for i, d in enumerate(grid):
        if type(d) is not int or d <= 0 or d > (2147483647 if i == 0 else 65535):
            return None
    return tuple(grid) + (1,) * (3 - len(grid))


class _Variant:
    """The fast path of one call shape and one kind per argument: ``run(args, kwargs,
    grid)`` binds the arguments as _fast_bind does, checks their types, computes the key of
    what specialization reads of them (as _launch_key), finds the launcher learnt for it,
    checks the globals and the grid and launches; it returns the CompiledKernel, or None for
    the general path (a key not seen, a rebound global, an unusual grid). Arguments of other
    types go to the next variant of the shape (``_NEXT``). A tuple argument's elements are
    checked, keyed and passed one by one (``a3_0``, ``a3_1``...); a None argument is a
    compile-time value, checked to still be None."""

    def __init__(self, fn, npos, keywords, kinds, consts):
        self.kinds, self.names = kinds, frozenset(keywords)
        self.table: Dict[tuple, tuple] = {}
        self.launchers: Dict[int, tuple] = {}
        names = fn.arg_names
        var = {n: f"a{i}" for i, n in enumerate(names)}
        env = {"J": fn, "TABLE": self.table, "_NEXT": _no_variant, "_grid3": _grid3,
               "_int_class": _int_class,
               "_normalize_grid": _normalize_grid,
               "_storage_bytes": _storage_bytes, "_fn_attrs": normalize_llvm_fn_attrs}
        bind = []
        if npos:
            bind.append(f"{', '.join(var[n] for n in names[:npos])}, = args")
        options = {}
        for k in keywords:
            if k in fn._param_set:
                bind.append(f"{var[k]} = kwargs[{k!r}]")
                if k in _OPTIONS:
                    options[k] = var[k]
            else:
                options[k] = f"o_{k}"
                bind.append(f"o_{k} = kwargs[{k!r}]")
        # checks: ("guard", condition sending the call to _NEXT) or ("stmt", line), in order.
        checks, values, key = [], [], []
        for opt in ("num_warps", "target", "num_ctas", "num_stages", "maxnreg", "debug",
                    "sanitize_overflow", "enable_fp_fusion", "waves_per_eu", "llvm_fn_attrs"):
            if opt in options:
                # LLVM attributes may come as a list: keyed as their normalized pairs.
                key.append(f"_fn_attrs({options[opt]})" if opt == "llvm_fn_attrs"
                           else options[opt])
        if "debug" not in options:
            key.append("J.debug")
        limits = fn._range_limits
        for name in names:
            a, kind = var[name], kinds[name]
            if kind == "const":
                value = consts.get(name)
                params = getattr(type(value), "__dataclass_params__", None)
                if params is not None and params.frozen and type(value).__hash__ is not None:
                    # A layout: the one object seen here keys as a token hashed by identity
                    # (its own hash walks every field); an equal other object, as itself.
                    env[f"C_{a}"], env[f"S_{a}"] = value, object()
                    key.append(f"(S_{a} if {a} is C_{a} else {a})")
                else:
                    key.append(a)
                continue
            _plan_value(a, kind, env, checks, values, key, limits)
        call = [v for _, v, kind in _leaves(names, kinds, var)
                for v in ((v, "p" + v) if kind[0] == "tensor" else (v,))]
        stream = options.get("stream", "None")
        # The shape is only the numbers of arguments: other keyword names are another variant.
        lines = ["def run(args, kwargs, grid):", "  try:"]
        lines += [f"    {b}" for b in bind or ["pass"]]
        lines += ["  except (KeyError, ValueError):", "    return _NEXT(args, kwargs, grid)"]
        lines += _check_lines(checks)
        # Whatever raises here (an unhashable constexpr, a tensor without dtype) raises again
        # in the general path, with its message.
        lines += ["  try:"] + [f"    {v}" for v in values]
        lines += [f"    key = ({', '.join(key)},)",
                  "    hit = TABLE.get(key)",
                  "  except Exception:",
                  "    return None",
                  "  if hit is None:",
                  "    return None",
                  "  ok = J._globals_ok",
                  "  if ok is not None and not ok():",
                  "    return None",
                  "  if type(grid) is tuple and len(grid) == 1:",
                  "    gx = grid[0]",
                  "    if type(gx) is not int or gx <= 0 or gx > 2147483647:",
                  "      return None",
                  "    gy = gz = 1",
                  "  else:",
                  "    g = _grid3(grid)",
                  "    if g is None:",
                  "      if type(grid) is tuple or type(grid) is list or not callable(grid):",
                  "        return None",
                  "      # Triton style: the grid from the arguments and constexprs, as _launch",
                  f"      meta = {{{', '.join(f'{n!r}: {var[n]}' for n in names)}}}",
                  "      meta.update(hit[2])",
                  f"      meta['num_warps'] = {options.get('num_warps', '4')}",
                  "      g = _normalize_grid(grid(meta))",
                  "    gx, gy, gz = g",
                  f"  hit[0](gx, gy, gz, {stream}, {', '.join(call)})",
                  "  return hit[1]"]
        key_lines = lines[:lines.index("    hit = TABLE.get(key)")]
        key_lines = ["def key(args, kwargs):"] + [
            "    return None" if line == "    return _NEXT(args, kwargs, grid)" else line
            for line in key_lines[1:]] + ["  except Exception:", "    return None",
                                          "  return key"]
        code = "\n".join(lines) + "\n" + "\n".join(key_lines) + "\n"
        self.env = env
        exec(compile(code, f"<kiln warm launch {fn.__name__}>", "exec"), env)  # noqa: S102
        self.run, self.key = env["run"], env["key"]
        self.code = code


def _plan_value(a, kind, env, checks, values, key, limits):
    """The checks, values and key parts of one runtime argument (or tuple element) held in
    variable ``a`` whose kind is ``kind`` (see JITFunction._kinds)."""
    if kind == "none":  # a compile-time None: nothing to key, nothing to pass
        checks.append(("guard", f"{a} is not None"))
        return
    if type(kind) is str:  # "int", "float", "bool": exactly that type
        checks.append(("guard", f"type({a}) is not {kind}"))
        if kind == "int":
            key.append(_INT_KEY.format(a=a))
        return
    what = kind[0]
    env[f"T_{a}"] = kind[1]
    if what == "tuple":  # its length, then each element as an argument of its own
        elems = kind[2]
        checks.append(("guard", f"type({a}) is not T_{a} or len({a}) != {len(elems)}"))
        parts = [f"{a}_{i}" for i in range(len(elems))]
        checks.append(("stmt", f"{', '.join(parts)}, = {a}"))
        for part, elem in zip(parts, elems):
            _plan_value(part, elem, env, checks, values, key, limits)
        return
    checks.append(("guard", f"type({a}) is not T_{a}"))
    if what == "desc":
        key.append(f"getattr({a}, '_spec_id', None)")
    else:  # a tensor: its dtype, alignment, which limits it fits
        values.append(f"p{a} = {a}.data_ptr()")
        key += [f"{a}.dtype", f"p{a} & 15 == 0"]
        if limits:
            values.append(f"n{a} = _storage_bytes({a})")
            key += [f"n{a} is not None and n{a} <= {int(limit)}" for limit in limits]


def _value_kind(value):
    """The fast path's kind of a runtime argument or tuple element (see
    JITFunction._kinds), or None."""
    kind = type(value)
    if kind is int or kind is float or kind is bool:
        return kind.__name__
    if value is None:
        return "none"
    if kind is tuple or kind is list:
        if not _holds_runtime(value):  # a tuple of numbers: a constexpr (the general path)
            return None
        elems = tuple(_value_kind(v) for v in value)
        return None if None in elems else ("tuple", kind, elems)
    if callable(getattr(value, "_param_spec", None)):
        return None if getattr(value, "_spec_id", None) is None else ("desc", kind)
    if getattr(value, "data_ptr", None) is not None and not isinstance(
            value, (str, core.constexpr, core.tensor_descriptor_type)):
        return ("tensor", kind)
    return None


def _check_lines(checks):
    """_Variant's checks as code: consecutive guards joined into one ``if``."""
    lines, guards = [], []
    for what, text in checks + [("stmt", None)]:
        if what == "guard":
            guards.append(text)
            continue
        if guards:
            lines += [f"  if {' or '.join(guards)}:", "    return _NEXT(args, kwargs, grid)"]
            guards = []
        if text is not None:
            lines.append(f"  {text}")
    return lines


def _leaves(names, kinds, var=None):
    """``(where, variable, kind)`` of each value a launch passes at run time, in the order
    the fast launcher takes them: ``where`` is the parameter's name, or ``(name, path)`` for
    a tuple element (as JITFunction.specialize lists runtime arguments); compile-time values
    (constexpr parameters, None) are left out."""
    out = []

    def walk(name, path, a, kind):
        if kind == "const" or kind == "none":
            return
        if type(kind) is tuple and kind[0] == "tuple":
            for i, elem in enumerate(kind[2]):
                walk(name, path + (i,), f"{a}_{i}", elem)
            return
        out.append(((name, path) if path else name, a,
                    kind if type(kind) is tuple else (kind,)))
    for i, name in enumerate(names):
        walk(name, (), var[name] if var else f"a{i}", kinds[name])
    return out


_NO_KEY = object()  # _value_key: the full launch path decides


def _holds_runtime(value) -> bool:
    """Whether a tuple argument holds a tensor (or a tensor descriptor): it is then passed
    element by element at run time (a tuple of plain numbers stays a compile-time value)."""
    return any(hasattr(v, "data_ptr") or hasattr(v, "_param_spec")
               or (type(v) in (tuple, list) and _holds_runtime(v)) for v in value)


def _element(arguments, where):
    name, path = where
    value = arguments[name]
    for i in path:
        value = value[i]
    return value


_MANGLED: Dict[tuple, str] = {}


def _mangle(value):
    """mangle_value, remembered for the immutable values launches repeat (ints, layouts)."""
    if value is None or isinstance(value, (bool, int, float, str, DistributedLayout,
                                           SharedLayout, core.dtype)):
        key = (type(value), value)
        text = _MANGLED.get(key)
        if text is None:
            if len(_MANGLED) > 4096:  # unequal-to-itself values (nan) must not grow it forever
                _MANGLED.clear()
            text = _MANGLED[key] = mangle_value(value)
        return text
    return mangle_value(value)


def _driver():
    try:
        from . import runtime  # lazy (no cycle): `import kiln` skips kiln.runtime
    except ImportError as e:
        raise RuntimeError(f"kiln.runtime is not available: {e}") from e
    return runtime.get_driver()


def _target_name(target) -> str:
    if isinstance(target, str):
        return target
    for attr in ("name", "target"):
        if isinstance(getattr(target, attr, None), str):
            return getattr(target, attr)
    if isinstance(target, dict) and "name" in target:
        return target["name"]
    raise TypeError(f"cannot read a target name from {target!r}")


def _normalize_grid(grid):
    if not isinstance(grid, (tuple, list)):
        raise ValueError(f"grid must be a tuple of 1 to 3 positive integers (or a callable "
                         f"returning one), got {grid!r}")
    if not 1 <= len(grid) <= 3:
        raise ValueError(f"grid must have 1 to 3 dimensions, got {len(grid)}")
    dims = []
    for i, d in enumerate(grid):
        d = core._unwrap(d)
        if isinstance(d, bool) or not isinstance(d, int):
            try:
                d = d.__index__()
            except (AttributeError, TypeError):
                raise ValueError(f"grid dimension {i} must be an integer, got {d!r}") from None
        if d <= 0:
            raise ValueError(f"grid dimension {i} must be positive, got {d}")
        limit = 2**31 - 1 if i == 0 else 65535
        if d > limit:
            raise ValueError(f"grid dimension {i} is {d}, above the limit of {limit}")
        dims.append(d)
    return tuple(dims + [1] * (3 - len(dims)))


def jit(fn=None, *, do_not_specialize=(), do_not_specialize_on_alignment=(), debug=None,
        noinline=False, repr=None, launch_metadata=None):
    """Decorator: ``@kiln.jit`` or ``@kiln.jit(do_not_specialize=["n"])``."""
    def decorate(f):
        jf = JITFunction(f, do_not_specialize, do_not_specialize_on_alignment)
        jf.debug = bool(debug)
        return jf
    return decorate(fn) if fn is not None else decorate
