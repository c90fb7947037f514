"""``kiln.compile``: kernel source -> tile IR -> registered pipelines -> binary, keeping every
stage's text, with an on-disk cache."""

from __future__ import annotations

import hashlib
import os
import sys
import inspect
import json
import time
import warnings
from pathlib import Path
from typing import Dict, Iterable, List, Optional

from ..language import _core as core
from ..language._banks import set_bank_conflicts_oracle
from ..language._layouts import set_layout_oracle
from .cache import DiskCache, default_cache_dir, frontend_hash, mangle_value
from .codegen import CodeGenerator
from .dsl_names import dsl_message
from .errors import (CompilationRemark, CompilationWarning, ExtensionNotBuilt, InvalidOption,
                     from_diagnostics, user_facing, warning_from)
from .triton_interop import to_kiln
from .function import as_kernel_function
from .ir import symbol_name

__all__ = ["compile", "make_ir", "CompiledKernel", "parse_signature", "type_name",
           "lowering_pipeline", "replay_command"]

# stage -> file name written by CompiledKernel.write_stages; the backend's assembly and
# binary stages (named by the target table) are written as ``kernel.<stage>``.
STAGE_FILES = {"tile": "kernel.tile.mlir", "llvm_dialect": "kernel.llvm.mlir",
               "llir": "kernel.ll"}

_IMPORT_ERROR: Optional[str] = None


def load_compiler():
    """``kiln._compiler`` or None (the reason is kept for the error message)."""
    global _IMPORT_ERROR
    try:
        from .. import _compiler
        return _compiler
    except ImportError as e:
        _IMPORT_ERROR = str(e)
        return None


_BUILD_HASHES: Dict[str, str] = {}


def library_digest(path: str) -> str:
    """sha256 of the compiler library at ``path``. Hashing the whole library (tens of MB)
    costs a new process most of a cache hit, so the digest is remembered in the cache folder,
    keyed by the file's identity (device, inode, size, modification time in ns): a rebuild or
    a reinstall changes that and the library is hashed again."""
    if not path or not os.path.exists(path):
        return hashlib.sha256().hexdigest()
    st = os.stat(path)
    ident = f"{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{os.path.realpath(path)}"
    memo = default_cache_dir() / "library-digests" / hashlib.sha256(ident.encode()).hexdigest()
    try:
        digest = memo.read_text().strip()
        if len(digest) == 64 and all(c in "0123456789abcdef" for c in digest):
            return digest
    except OSError:
        pass
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 22), b""):
            h.update(chunk)
    digest = h.hexdigest()
    try:  # best effort, atomically: a reader sees the whole digest or none
        memo.parent.mkdir(parents=True, exist_ok=True)
        tmp = memo.with_name(f"{memo.name}.{os.getpid()}.tmp")
        tmp.write_text(digest)
        os.replace(tmp, memo)
    except OSError:
        pass
    return digest


def compiler_fingerprint(compiler) -> str:
    """What identifies the compiler for the cache: its version, a hash of the built
    extension (Kiln's C++ is linked into it, so any rebuild changes the key) and the
    tool overrides that change the produced binaries."""
    path = getattr(compiler, "library_path", None) or getattr(compiler, "__file__", None) or ""
    if path not in _BUILD_HASHES:
        _BUILD_HASHES[path] = library_digest(path)
    tools = sorted({v for t in compiler.known_targets() for v in t["tool_environment"]})
    env = ";".join(f"{v}={os.environ.get(v, '')}" for v in tools)
    return f"{compiler.version()}|{_BUILD_HASHES[path]}|{env}"


def _not_built() -> ExtensionNotBuilt:
    return ExtensionNotBuilt(
        "Kiln's compiler extension is not built (kiln._compiler cannot be imported"
        + (f": {_IMPORT_ERROR}" if _IMPORT_ERROR else "") + "); build the project "
        "(bash scripts/setup.sh) so that python/kiln/libkiln.so exists, or install the wheel")


def _require_compiler(compiler=None):
    compiler = compiler or load_compiler()
    if compiler is None:
        raise _not_built()
    # From here on the DSL's layout math is C++'s (kiln.language cannot import us).
    if getattr(compiler, "linear_layout", None) is not None:
        set_layout_oracle(compiler.linear_layout)
    if getattr(compiler, "bank_conflicts", None) is not None:
        set_bank_conflicts_oracle(compiler.bank_conflicts)
    return compiler


def default_target(compiler=None) -> str:
    """The first built-in backend's default chip (KILN_BACKENDS order)."""
    name = _require_compiler(compiler).default_target()
    if not name:
        raise InvalidOption("this Kiln was built without any backend (KILN_BACKENDS)")
    return name


def target_info(target: str, compiler=None) -> dict:
    """The target table's row for ``target`` (from the C++ backends: warp size, limits,
    ``vendor``, and the ``assembly``/``binary`` stage names)."""
    table = {t["name"]: dict(t) for t in _require_compiler(compiler).known_targets()}
    if target not in table:
        raise InvalidOption(f"unknown target {target!r}; known targets: "
                            f"{', '.join(sorted(table))}")
    return table[target]


def type_name(ty) -> str:
    """Signature spelling of a type: ``*fp32``, ``i32``, ``u8``, ``fp16`` …"""
    if isinstance(ty, core.pointer_type):
        return "*" + type_name(ty.element_ty)
    if isinstance(ty, core.tensor_descriptor_type):
        return "tensordesc"
    return core.signature_name(ty)


#: The signature marker of a pointer argument whose tensor is small enough for 32-bit byte
#: offsets (``"*fp16:range32"``, ``"*fp16:16:range32"``): the kernel's argument gets
#: ``tile.pointer_range = 32``. The launcher adds it, on targets whose table row has a
#: ``pointer_range_bytes``, to a tensor whose storage spans at most that many bytes; the
#: contract is that the kernel only accesses bytes inside the tensor.
POINTER_RANGE_MARKER = "range32"


def _split_tuple(text: str):
    """Elements of a tuple signature ``"(*fp32, (i32, *fp16:16))"``, split at top-level commas."""
    inner, depth, parts, cur = text.strip()[1:-1], 0, [], ""
    for ch in inner:
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return [p.strip() for p in parts]


def parse_signature_entry(name, spec):
    """One runtime argument's signature entry -> ``("runtime", type, divisibility,
    pointer_range)``, or for a tuple (``"(*fp32, i32)"`` or a Python tuple of entries; an
    element given as a ``kl.constexpr`` is a compile-time value) ``("tuple", [entries])``."""
    if isinstance(spec, str) and spec.strip().startswith("("):
        if not spec.strip().endswith(")"):
            raise ValueError(f"argument {name!r}: unbalanced parentheses in {spec!r}")
        spec = tuple(_split_tuple(spec))
    if isinstance(spec, (tuple, list)):
        return ("tuple", [("constexpr", core._unwrap(e)) if isinstance(e, core.constexpr)
                          else parse_signature_entry(f"{name}[{i}]", e)
                          for i, e in enumerate(spec)])
    div = prange = None
    if isinstance(spec, str):
        text, *suffixes = spec.split(":")
        for suffix in suffixes:
            if suffix.strip() == "16" and div is None:
                div = 16
            elif suffix.strip() == POINTER_RANGE_MARKER and prange is None:
                prange = 32
            else:
                raise ValueError(f"argument {name!r}: unsupported specialization "
                                 f"{suffix!r} in {spec!r} (':16' and "
                                 f"':{POINTER_RANGE_MARKER}' are supported, each "
                                 f"once)")
        try:
            ty = core.dtype_from_name(text)
        except ValueError as e:
            raise ValueError(f"argument {name!r}: {e}") from None
    elif isinstance(spec, (core.dtype, core.pointer_type,
                           core.tensor_descriptor_type)):
        ty = spec
    else:
        raise TypeError(f"argument {name!r}: bad signature entry {spec!r}")
    if isinstance(ty, core.pointer_type):
        problem = core.address_space_problem(ty.address_space)
        if problem:
            raise ValueError(f"argument {name!r}: {problem}")
    if isinstance(ty, core.pointer_type) and ty.element_ty == core.int1:
        ty = core.pointer_type(core.int8)  # bools are bytes in memory
    if div and not (ty.is_ptr() or (ty.is_int() and not ty.is_bool())):
        raise ValueError(f"argument {name!r}: divisibility applies to integers and "
                         f"pointers, not {type_name(ty)}")
    if prange and not ty.is_ptr():
        raise ValueError(f"argument {name!r}: ':{POINTER_RANGE_MARKER}' applies to "
                         f"pointers, not {type_name(ty)}")
    return ("runtime", ty, div, prange)


def flat_params(params):
    """``params`` with each tuple argument's elements as arguments of their own, named by their
    place (``ptrs.0``, ``ptrs.1.0``), in the order the kernel receives them."""
    for name, kind in params.items():
        if kind[0] == "tuple":
            yield from flat_params({f"{name}.{i}": k for i, k in enumerate(kind[1])})
        else:
            yield name, kind


def parse_signature(fn, signature: Dict[str, object], constexprs: Optional[dict] = None):
    """-> ``params`` for the code generator: every argument name mapped to
    ``("runtime", type, divisibility, pointer_range)`` or ``("constexpr", value)``.

    ``signature`` gives the runtime arguments' types as strings (``"*fp32"``, ``"i32"``; a
    ``":16"`` suffix declares divisibility by 16, ``":range32"`` on a pointer that every
    access through it stays within its tensor of under 2 GiB (``POINTER_RANGE_MARKER``);
    both may be given, ``"*fp32:16:range32"``) or dtype objects."""
    signature = dict(signature or {})
    constexprs = dict(constexprs or {})
    names = list(fn.signature.parameters)
    for name in list(signature) + list(constexprs):
        if name not in names:
            raise TypeError(f"{fn.__name__}() has no argument {name!r}")
    params = {}
    for name, p in fn.signature.parameters.items():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue  # rejected with its location by the code generator
        if name in constexprs:
            params[name] = ("constexpr", core._unwrap(to_kiln(constexprs[name])))
        elif name in signature:
            if name in fn.constexpr_names:
                raise TypeError(f"argument {name!r} of {fn.__name__}() is a constexpr; pass "
                                f"its value in constexprs")
            params[name] = parse_signature_entry(name, signature[name])
        elif p.default is not inspect.Parameter.empty and name in fn.constexpr_names:
            params[name] = ("constexpr", core._unwrap(p.default))
        elif p.default is None:
            # Left out, it is None, as a launch that leaves it out binds it (a None
            # argument is a constexpr).
            params[name] = ("constexpr", None)
        elif name in fn.constexpr_names:
            raise TypeError(f"missing value for constexpr argument {name!r} of "
                            f"{fn.__name__}()")
        else:
            raise TypeError(f"missing type for argument {name!r} of {fn.__name__}() in the "
                            f"signature")
    return params


_OPTION_DEFAULTS = {"num_warps": 4, "num_ctas": 1}


def option_constexprs(fn, constexprs, **options):
    """Gluon's kernels may declare ``num_warps`` / ``num_ctas`` as constexpr parameters; their
    values are the launch options. -> (constexprs with those parameters filled in, options):
    an option left at None takes the parameter's value from ``constexprs`` (else its default),
    and a parameter given both ways must agree."""
    constexprs = dict(constexprs or {})
    resolved = {}
    for name, value in options.items():
        if name in fn.constexpr_names and name in constexprs:
            given = core._unwrap(constexprs[name])
            if value is not None and value != given:
                where = fn.src.position(fn.src.fdef)
                raise InvalidOption(f"{name} is both a launch option ({name}={value!r}) and "
                                    f"a constexpr argument ({name}={given!r}) of "
                                    f"{fn.__name__}(); give it once", *where)
            value = given
        if value is None:
            value = _OPTION_DEFAULTS[name]
        if name in fn.constexpr_names:
            constexprs[name] = value
        resolved[name] = value
    return constexprs, resolved


def _check_num_warps(fn, num_warps, info):
    limit = max(1, int(info.get("max_threads_per_block", 1024)) // int(info["warp_size"]))
    if (not isinstance(num_warps, int) or isinstance(num_warps, bool) or num_warps < 1
            or num_warps & (num_warps - 1) or num_warps > limit):
        file, line, col = fn.src.position(fn.src.fdef)
        raise InvalidOption(f"num_warps must be a power of 2 between 1 and {limit}, got "
                            f"{num_warps!r}", file, line, col)


def check_maxnreg(maxnreg, fn=None):
    """``maxnreg``: the most registers per thread the kernel may use (Gluon/Triton's launch
    option; targets without a per-kernel cap refuse it when lowering), None for the
    compiler's choice."""
    if maxnreg is None or (isinstance(maxnreg, int) and not isinstance(maxnreg, bool) and
                           16 <= maxnreg <= 255):
        return
    where = fn.src.position(fn.src.fdef) if fn is not None else ()
    raise InvalidOption(f"maxnreg must be an int between 16 and 255 (registers per thread), "
                        f"got {maxnreg!r}", *where)


def check_waves_per_eu(waves_per_eu, fn=None):
    """``waves_per_eu``: Triton's occupancy hint, the waves each SIMD should fit (the register
    allocator then may use what that leaves); 0 or None for LLVM's choice. Targets without
    such a hint ignore it, as Triton does."""
    if waves_per_eu is None or (isinstance(waves_per_eu, int) and
                                not isinstance(waves_per_eu, bool) and 0 <= waves_per_eu <= 20):
        return
    where = fn.src.position(fn.src.fdef) if fn is not None else (None, None, None)
    raise InvalidOption(f"waves_per_eu must be an int between 0 and 20 (waves per SIMD; 0: "
                        f"the compiler's choice), got {waves_per_eu!r}", *where)


def normalize_llvm_fn_attrs(attrs, fn=None):
    """``llvm_fn_attrs`` (a launch option of Triton after 3.6): LLVM attributes put on the
    kernel function, as a string ``"name=value,name"`` or pairs ``(("name", "value"),)``;
    -> a tuple of (name, value) string pairs (value "" for an attribute without one)."""
    if attrs is None:
        return ()
    where = fn.src.position(fn.src.fdef) if fn is not None else (None, None, None)
    pairs = []
    if isinstance(attrs, str):
        for item in attrs.split(","):
            name, _, value = item.partition("=")
            if name.strip():
                pairs.append((name.strip(), value.strip()))
    else:
        try:
            items = list(attrs)
        except TypeError:
            items = None
        for item in items or ():
            if (not isinstance(item, (tuple, list)) or len(item) != 2
                    or not all(isinstance(x, str) for x in item)):
                items = None
                break
            pairs.append((item[0].strip(), item[1]))
        if items is None:
            raise InvalidOption(f"llvm_fn_attrs must be a string 'name=value,...' or (name, "
                                f"value) string pairs, got {attrs!r}", *where)
    for name, value in pairs:
        if not name or any(c in name + value for c in '"\\\n') or "=" in name:
            raise InvalidOption(f"llvm_fn_attrs: {name!r} = {value!r} is not an LLVM "
                                f"function attribute", *where)
    return tuple(pairs)


def check_num_ctas(num_ctas, fn=None):
    """``num_ctas``: the CTAs of one program, a thread-block cluster (Gluon's option): a power
    of two up to 16 (the most a Hopper cluster holds). Layouts split among them with
    ``cga_layout``."""
    if isinstance(num_ctas, int) and not isinstance(num_ctas, bool) and \
            num_ctas in (1, 2, 4, 8, 16):
        return
    where = fn.src.position(fn.src.fdef) if fn is not None else (None, None, None)
    raise InvalidOption(f"num_ctas must be a power of 2 between 1 and 16 (the CTAs of a "
                        f"cluster), got {num_ctas!r}", *where)


def make_ir(fn, signature, constexprs=None, target=None, num_warps=None, *,
            _compiler=None) -> str:
    """The IR text of one specialization, every op in MLIR's generic form, before C++ parses
    it (``target`` defaults to :func:`default_target`)."""
    fn = as_kernel_function(fn)
    constexprs, options = option_constexprs(fn, constexprs, num_warps=num_warps)
    num_warps = options["num_warps"]
    target = target or default_target(_compiler)
    info = target_info(target, _compiler)
    _check_num_warps(fn, num_warps, info)
    params = parse_signature(fn, signature, constexprs)
    return CodeGenerator(fn, params=params, target=target, num_warps=num_warps,
                         warp_size=int(info["warp_size"])).generate()


def lowering_pipeline(target: str, num_warps: int) -> str:
    return f"builtin.module(kiln-to-llvm{{target={target} num-warps={num_warps}}})"


def replay_command(target: str, num_warps: int, emit: str) -> str:
    """The shell command that replays a compile up to the ``emit`` artifact."""
    return (f'kiln-opt --kiln-to-llvm="target={target} num-warps={num_warps}" '
            f"kernel.tile.mlir | kiln-translate --target={target} --emit={emit}")


class KernelMetadata(dict):
    """A compiled kernel's metadata: a dict (JSON in the cache), whose fields also read as
    attributes as Gluon's do (``k.metadata.shared``, ``.num_warps``, and after the first
    launch ``.n_regs`` / ``.n_spills``)."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"kernel metadata has no field {name!r} (fields: "
                                 f"{', '.join(sorted(self))})") from None


class _Stages(dict):
    """``CompiledKernel.asm``: stage name -> text (one stage, the binary, as bytes). A stage
    the kernel lacks is a KeyError that lists the stages it has (Triton's ``ttir``/``ttgir``
    are Triton's IRs; Kiln's first stage is ``tile``)."""

    def __missing__(self, stage):
        raise KeyError(f"no stage {stage!r} in this kernel; its stages: {', '.join(self)}"
                       + (" (Kiln's IR is the 'tile' stage; ttir/ttgir are Triton's)"
                          if stage in ("ttir", "ttgir") else ""))


class CompiledKernel:
    """The result of :func:`compile`: every stage in ``asm``, launch ``metadata`` and the
    ``pipeline`` command that replays the lowering with ``kiln-opt``/``kiln-translate``.
    ``kernel[grid](*args)`` launches it on the current GPU (through the runtime, which the
    ``kiln`` package connects: this package does not import it)."""

    #: Launches a compiled kernel: ``(kernel, grid) -> callable(*args, stream=None)``; set
    #: by ``kiln.offline`` when ``kiln`` is imported.
    launch_hook = None

    def __init__(self, name: str, asm: dict, metadata: dict, pipeline: str,
                 source_ir: Optional[str] = None,
                 warnings: Optional[Iterable[CompilationWarning]] = None):
        self.name = name
        self.asm = _Stages(asm)
        self.metadata = KernelMetadata(metadata)
        self.pipeline = pipeline
        self.source_ir = source_ir
        #: The :class:`~kiln.CompilationWarning` s (and remarks) compiling it gave, in order;
        #: :func:`compile` emits them again when it loads the kernel from the disk cache.
        self.warnings: List[CompilationWarning] = list(warnings or ())
        #: Seconds per compile stage (frontend, parse_verify, tile_passes, llvm_translate,
        #: llvm_optimize, llvm_codegen, binary); empty when the kernel came from a cache.
        self.timings: Dict[str, float] = {}

    @property
    def hash(self) -> str:
        return self.metadata.get("hash", self.metadata.get("key", ""))

    @property
    def binary(self) -> bytes:
        """What the driver loads: the one binary stage (the only stage held as bytes), or the
        assembly the metadata names as ``image`` when no binary could be made."""
        image = self.metadata.get("image")
        if image in self.asm:
            return self.asm[image].encode()
        for value in self.asm.values():
            if isinstance(value, bytes):
                return value
        raise KeyError("this kernel has no binary stage")

    def write_stages(self, folder) -> Dict[str, Path]:
        """Write each stage (``kernel.tile.mlir``, ``kernel.llvm.mlir``, ``kernel.ll``, then
        the backend's assembly and binary as ``kernel.<stage>``), the metadata and the replay
        command into ``folder``."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        written = {}
        for stage, value in self.asm.items():
            path = folder / STAGE_FILES.get(stage, f"kernel.{stage}")
            if isinstance(value, bytes):
                path.write_bytes(value)
            else:
                path.write_text(value)
            written[stage] = path
        (folder / "metadata.json").write_text(json.dumps(self.metadata, indent=2) + "\n")
        (folder / "replay.sh").write_text(
            "#!/bin/sh\n# Replays this compile from kernel.tile.mlir (beside this script, from any\n"
            "# folder) with kiln-opt and kiln-translate from PATH (a build's build/bin).\n"
            "cd \"$(dirname \"$0\")\" || exit 1\n" + self.pipeline + "\n")
        written["metadata"] = folder / "metadata.json"
        written["replay"] = folder / "replay.sh"
        return written

    def __getitem__(self, grid):
        """Triton's ``compiled[grid](*args)``: every argument of the kernel in order (its
        constexprs too, which are skipped) or only the runtime ones."""
        if CompiledKernel.launch_hook is None:
            raise RuntimeError("launching a compiled kernel needs the kiln package "
                               "(import kiln)")
        return CompiledKernel.launch_hook(self, grid)

    def _init_handles(self):
        """Loads the kernel on the current GPU (Triton's name), which learns ``n_regs`` and
        ``n_spills``."""
        self[(1, 1, 1)].load()

    @property
    def n_regs(self) -> int:
        """Registers per thread of the loaded function (loads it on the current GPU)."""
        if "n_regs" not in self.metadata:
            self._init_handles()
        return self.metadata.get("n_regs", -1)

    @property
    def n_spills(self) -> int:
        """Spilled 4-byte words per thread of the loaded function (loads it)."""
        if "n_spills" not in self.metadata:
            self._init_handles()
        return self.metadata.get("n_spills", -1)

    def to_payload(self) -> dict:
        return {"name": self.name, "asm": dict(self.asm), "metadata": self.metadata,
                "pipeline": self.pipeline, "source_ir": self.source_ir,
                "warnings": [w.to_dict() for w in self.warnings]}

    @classmethod
    def from_payload(cls, payload: dict) -> "CompiledKernel":
        return cls(payload["name"], payload["asm"], payload["metadata"], payload["pipeline"],
                   payload.get("source_ir"),
                   [warning_from(w) for w in payload.get("warnings") or ()])

    def __repr__(self):
        return (f"CompiledKernel({self.name}, target={self.metadata.get('target')}, "
                f"num_warps={self.metadata.get('num_warps')})")


def _is_int(v, minimum=0) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= minimum


def _is_position(v) -> bool:
    return v is None or _is_int(v, 0)


def _valid_warning(entry) -> bool:
    """A :meth:`CompilationWarning.to_dict` entry: severity and message strings, a location
    (file a string or None, line and col ints >= 0 or None) and notes of (message, file, line,
    col)."""
    if not isinstance(entry, dict):
        return False
    if not isinstance(entry.get("severity"), str) or not isinstance(entry.get("message"), str):
        return False
    if not isinstance(entry.get("file"), (str, type(None))):
        return False
    if not (_is_position(entry.get("line")) and _is_position(entry.get("col"))):
        return False
    notes = entry.get("notes", [])
    if not isinstance(notes, list):
        return False
    for note in notes:
        if not isinstance(note, list) or len(note) != 4 or not isinstance(note[0], str) \
                or not isinstance(note[1], (str, type(None))) \
                or not (_is_position(note[2]) and _is_position(note[3])):
            return False
    return True


def valid_payload(payload) -> bool:
    """Whether a disk-cache entry has every field, with the right type, that
    :meth:`CompiledKernel.from_payload`, the launcher and the JIT read. Anything else (an
    entry written by another version, or edited) is dropped and recompiled. ``warnings``
    may be missing (an entry from before they were kept: none are emitted again), but when
    present must be a list of well-formed entries."""
    if not isinstance(payload, dict):
        return False
    if "warnings" in payload and (not isinstance(payload["warnings"], list) or not all(
            _valid_warning(w) for w in payload["warnings"])):
        return False
    if not isinstance(payload.get("name"), str) or not payload["name"]:
        return False
    if not isinstance(payload.get("pipeline"), str):
        return False
    if not isinstance(payload.get("source_ir", None), (str, type(None))):
        return False
    asm = payload.get("asm")
    if not isinstance(asm, dict) or not isinstance(asm.get("tile"), str):
        return False
    # Every stage is text except exactly one binary.
    if any(not isinstance(stage, str) or not isinstance(value, (str, bytes))
           for stage, value in asm.items()):
        return False
    if sum(isinstance(value, bytes) for value in asm.values()) != 1:
        return False
    md = payload.get("metadata")
    if not isinstance(md, dict):
        return False
    for field in ("name", "target", "key"):
        if not isinstance(md.get(field), str) or not md[field]:
            return False
    if "total_num_warps" in md and not _is_int(md["total_num_warps"], 1):
        return False
    if not (_is_int(md.get("num_warps"), 1) and _is_int(md.get("threads_per_warp"), 1)
            and _is_int(md.get("shared"), 0)):
        return False
    if not isinstance(md.get("constexprs", {}), dict):
        return False
    params = md.get("params")
    if not isinstance(params, list):
        return False
    for p in params:
        if not isinstance(p, dict) or not isinstance(p.get("name"), str) \
                or not isinstance(p.get("type"), str):
            return False
        if "divisibility" in p and not _is_int(p["divisibility"], 1):
            return False
        if "pointer_range_bytes" in p and not _is_int(p["pointer_range_bytes"], 1):
            return False
    return True


def cache_key(fn, params, target, num_warps, compiler_version, num_ctas=1,
              maxnreg=None, debug=False, sanitize_overflow=True,
              enable_fp_fusion=True, waves_per_eu=None, llvm_fn_attrs=()) -> str:
    spec = []
    for name, kind in flat_params(params):
        if kind[0] == "constexpr":
            try:
                spec.append([name, "constexpr", mangle_value(kind[1])])
            except TypeError as e:
                raise TypeError(f"constexpr argument {name!r}: {e}") from None
        else:
            ty = kind[1]
            space = getattr(ty, "address_space", 1)
            spelled = ty.mangle() if isinstance(ty, core.tensor_descriptor_type) \
                else type_name(ty)
            spec.append([name, spelled + (f"@{space}" if space != 1 else ""),
                         kind[2] or 0] + ([kind[3]] if len(kind) > 3 and kind[3] else []))
    parts = {"frontend": frontend_hash(), "compiler": compiler_version, "target": target,
             "num_warps": num_warps, "fn": fn.cache_fingerprint(), "params": spec,
             **({"num_ctas": num_ctas} if num_ctas != 1 else {}),
             **({"maxnreg": maxnreg} if maxnreg is not None else {}),
             **({"waves_per_eu": waves_per_eu} if waves_per_eu else {}),
             **({"llvm_fn_attrs": [list(a) for a in llvm_fn_attrs]} if llvm_fn_attrs else {}),
             **({"fp_fusion": False} if not enable_fp_fusion else {}),
             **({"debug": [True, bool(sanitize_overflow)]} if debug else {})}
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def _json_value(v):
    v = core._unwrap(v)
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    return mangle_value(v)


# Names of the buffers the C++ side parses: a diagnostic located there points into generated
# IR, not at anything the user wrote.
_INTERNAL_FILES = {STAGE_FILES["tile"], "<llvm-dialect>", "kernel", "-", "<unknown>"}


def _in_user_source(file, line) -> bool:
    return bool(file) and bool(line) and file not in _INTERNAL_FILES


def _user_location(err) -> bool:
    return _in_user_source(err.file, err.line)


def _stage_place(file, line, col) -> Optional[str]:
    """``file:line:col`` of a location a stage reported, or None when it gave none."""
    if not (file or line):
        return None
    return ":".join(str(v) for v in (file or "<unknown>", line, col) if v is not None)


def warnings_from_diagnostics(diagnostics: Iterable[dict], what: str,
                              where=None) -> List[CompilationWarning]:
    """The :class:`CompilationWarning` s (:class:`CompilationRemark` for remarks) of one
    successful C++ stage's diagnostics, each note attached to the entry before it. One the
    stage could not place in the user's source is put at ``where`` (the kernel's ``def``),
    its message naming the stage and the location it gave."""
    out: List[CompilationWarning] = []
    for d in diagnostics or ():
        if not isinstance(d, dict):
            continue
        severity = d.get("severity") or "warning"
        file, line, col = d.get("file") or None, d.get("line") or None, d.get("col") or None
        message = dsl_message(str(d.get("message", "")))
        if severity == "note" and out:
            out[-1].notes.append((message, file, line, col))
            continue
        if where is not None and not _in_user_source(file, line):
            place = _stage_place(file, line, col)
            message += (f" (the {what} stage reported it at {place})" if place
                        else f" (reported by the {what} stage)")
            file, line, col = where
        cls = CompilationRemark if severity in ("remark", "note") else CompilationWarning
        out.append(cls(message, file, line, col, severity=severity))
    return out


# One registry for every warning a compile emits: like warnings.warn's per-module registry,
# the "default" action shows a warning once per text and line (the text holds the file).
_WARNING_REGISTRY: dict = {}


def _show_warning(message, category, filename, lineno, file=None, line=None):
    """warnings.showwarning for one of Kiln's diagnostics: its own block (``file:line:col:
    warning: ...``, the source line and caret, notes) once, instead of Python's
    ``file:line: Category: text`` followed by the source line a second time."""
    stream = file if file is not None else sys.stderr
    try:
        stream.write(message.format() + "\n")
    except (OSError, AttributeError):
        pass


_PLAIN_IMPL = getattr(warnings, "_showwarnmsg_impl", None)


def emit_warning(w: CompilationWarning) -> None:
    """Emit ``w`` at its own file and line (as if the user's line had called
    :func:`warnings.warn`). Where warnings are shown the default way it is shown as its own
    block (:func:`_show_warning`); a program's own ``showwarning`` or a recording
    ``catch_warnings`` gets it unchanged."""
    plain = (warnings.showwarning is getattr(warnings, "_showwarning_orig", None)
             and getattr(warnings, "_showwarnmsg_impl", None) is _PLAIN_IMPL)
    if not plain:
        warnings.warn_explicit(w, type(w), w.file or "<kiln>", w.line or 0,
                               registry=_WARNING_REGISTRY)
        return
    warnings.showwarning = _show_warning
    try:
        warnings.warn_explicit(w, type(w), w.file or "<kiln>", w.line or 0,
                               registry=_WARNING_REGISTRY)
    finally:
        warnings.showwarning = warnings._showwarning_orig


class _StageWarnings:
    """The warnings and remarks of one compile's C++ stages: each emitted once, as the stage
    that gave it returns, and kept for the disk cache."""

    def __init__(self, where):
        self.where = where
        self.all: List[CompilationWarning] = []
        self._seen = set()

    def add(self, what: str, diagnostics: Iterable[dict]) -> None:
        for w in warnings_from_diagnostics(diagnostics, what, self.where):
            key = (type(w), w.severity, w.message, w.file, w.line, w.col, tuple(w.notes))
            if key in self._seen:
                continue
            self._seen.add(key)
            self.all.append(w)
            emit_warning(w)


def _accepts(fn, name: str) -> bool:
    """Whether ``fn`` takes a keyword argument ``name`` (stand-in compilers may not)."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return name in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def _run(compiler, what, call, where=None):
    """Run one C++ stage; its diagnostics become a :class:`CompilationError`. An error the
    stage could not place in the user's source (back-end and tool failures, or a location
    inside the generated IR) is reported at ``where`` — the kernel's ``def`` — with the
    stage's message unchanged."""
    try:
        return call()
    except Exception as e:
        if not isinstance(e, getattr(compiler, "CompilationError", ())):
            raise
        err = from_diagnostics(getattr(e, "diagnostics", None), f"{what} failed: {e}")
        if where is not None and not _user_location(err):
            if err.file or err.line:
                place = ":".join(str(v) for v in (err.file or "<unknown>", err.line, err.col)
                                 if v is not None)
                err.notes.insert(0, (f"the {what} stage reported it at {place}", None, None,
                                     None))
            err.file, err.line, err.col = where
            err.source_line = None
        raise err from e


@user_facing
def compile(fn, signature=None, constexprs=None, target=None, num_warps=None, *,
            num_ctas=None, maxnreg=None, debug=False, sanitize_overflow=True,
            enable_fp_fusion=True, cache=True, waves_per_eu=None,
            llvm_fn_attrs=None) -> CompiledKernel:
    """Compile ``fn`` for ``target`` (default: :func:`default_target`). ``signature`` maps runtime arguments to types
    (``{"x": "*fp32", "n": "i32"}``), ``constexprs`` gives the compile-time arguments.
    ``num_ctas`` CTAs (a cluster) run each program; layouts split among them with
    ``cga_layout``, and the IR is the program of one CTA. ``debug`` is Triton's debug mode:
    ``device_assert`` is compiled (it is dropped otherwise) and, unless ``sanitize_overflow``
    is False, signed integer ``+``, ``-`` and ``*`` narrower than 64 bits assert that they do
    not overflow. ``enable_fp_fusion`` (Triton's option, on by default) lets code generation
    fuse a multiply feeding an add into one fma. ``waves_per_eu`` is Triton's occupancy
    hint (waves per SIMD) for targets that take one; others ignore it. ``llvm_fn_attrs``
    (a launch option of Triton after 3.6) puts LLVM attributes on the kernel function of
    targets that take them, replacing Kiln's own of the same name: ``"name=value,name"``
    text or ``(("name", "value"), ...)`` pairs; other targets ignore it, as Triton's."""
    fn = as_kernel_function(fn)
    constexprs, options = option_constexprs(fn, constexprs, num_warps=num_warps,
                                            num_ctas=num_ctas)
    num_warps, num_ctas = options["num_warps"], options["num_ctas"]
    enable_fp_fusion = bool(enable_fp_fusion)
    check_num_ctas(num_ctas, fn)
    check_maxnreg(maxnreg, fn)
    check_waves_per_eu(waves_per_eu, fn)
    waves_per_eu = waves_per_eu or None
    llvm_fn_attrs = normalize_llvm_fn_attrs(llvm_fn_attrs, fn)
    compiler = load_compiler()
    if compiler is None:
        raise _not_built()
    target = target or default_target(compiler)
    info = target_info(target, compiler)
    _check_num_warps(fn, num_warps, info)
    if not info.get("takes_llvm_fn_attrs"):
        llvm_fn_attrs = ()  # ignored, as Triton's backends without the option do
    params = parse_signature(fn, signature, constexprs)
    for name, kind in flat_params(params):
        if kind[0] == "runtime" and kind[3] and not info.get("pointer_range_bytes"):
            raise ValueError(f"argument {name!r}: ':{POINTER_RANGE_MARKER}' specializes "
                             f"pointers for loads with 32-bit offsets, which {target} does "
                             f"not have")
    disk = None
    key = cache_key(fn, params, target, num_warps, compiler_fingerprint(compiler), num_ctas,
                    maxnreg, bool(debug), bool(sanitize_overflow), enable_fp_fusion,
                    waves_per_eu, llvm_fn_attrs)
    if cache:
        disk = DiskCache()
        payload = disk.get(key, validate=valid_payload)
        if payload is not None:
            kernel = CompiledKernel.from_payload(payload)
            for w in kernel.warnings:  # what compiling it said, said again
                emit_warning(w)
            return kernel
    warp_size = int(info["warp_size"])
    clock = time.perf_counter
    timings = {}
    start = clock()
    ir = CodeGenerator(fn, params=params, target=target, num_warps=num_warps,
                       warp_size=warp_size, num_ctas=num_ctas, maxnreg=maxnreg,
                       waves_per_eu=waves_per_eu, llvm_fn_attrs=llvm_fn_attrs,
                       debug=bool(debug), sanitize_overflow=bool(sanitize_overflow),
                       fp_fusion=enable_fp_fusion).generate()
    timings["frontend"] = clock() - start

    source_name = STAGE_FILES["tile"]  # names the IR buffer; ops carry the user's locations
    where = fn.src.position(fn.src.fdef)
    stage_warnings = _StageWarnings(where)
    asm = {}
    start = clock()
    diags: list = []
    extra = {"diagnostics": diags} if _accepts(compiler.run_pipeline, "diagnostics") else {}
    asm["tile"] = _run(compiler, "parse/verify", lambda: compiler.run_pipeline(
        ir, "builtin.module()", source_name, **extra), where)
    timings["parse_verify"] = clock() - start
    stage_warnings.add("parse/verify", diags)
    pipeline = lowering_pipeline(target, num_warps)
    start = clock()
    lowered = _run(compiler, "kiln-to-llvm", lambda: compiler.run_pipeline_with_info(
        asm["tile"], pipeline, source_name), where)
    timings["tile_passes"] = clock() - start
    stage_warnings.add("kiln-to-llvm", lowered.get("diagnostics") or [])
    asm["llvm_dialect"] = lowered["text"]
    module_info = lowered["info"]
    image = None  # the stage the driver loads, when it is not the binary
    emits = ["llvm", info["assembly"], info["binary"]]
    # One call: the module is optimized once for all three artifacts.
    seconds = {}
    translate_diags: list = []  # filled only by the translation that succeeds
    translate = (lambda e=tuple(emits): _translate(compiler, asm["llvm_dialect"], target, e,
                                                   seconds, translate_diags))
    outs, missing = None, None
    start = clock()
    if info.get("assembly_loadable"):
        outs, missing = _translate_or_missing_tool(compiler, translate)
    if missing:
        # No assembler here: the driver compiles the assembly when it loads it.
        warnings.warn(MissingToolWarning(
            f"{missing} was not found, so {fn.__name__} for {target} has no "
            f"{info['binary']}; the {info['assembly']} will be compiled by the GPU driver when "
            f"the kernel is loaded (set {' or '.join(info.get('tool_environment') or [])} or "
            f"put {missing} on PATH to build the {info['binary']} here)"), stacklevel=2)
        image, cache = info["assembly"], False
        emits = emits[:2]
        translate = (lambda e=tuple(emits): _translate(compiler, asm["llvm_dialect"], target, e,
                                                       seconds, translate_diags))
        outs = None
    if outs is None:  # not tried yet, or failed: _run reports it at the kernel
        outs = _run(compiler, f"translate to {', '.join(emits)}", translate, where)
    timings["llvm_and_binary"] = clock() - start
    stage_warnings.add(f"translate to {', '.join(emits)}", translate_diags)
    timings.update({f"llvm_{k}" if k != "binary" else "binary": v for k, v in seconds.items()})
    for emit, out in zip(emits, outs):
        stage = "llir" if emit == "llvm" else emit
        asm[stage] = out if emit == info["binary"] else out.decode()

    runtime_params = []
    for name, kind in flat_params(params):
        if kind[0] == "runtime":
            entry = {"name": name, "type": type_name(kind[1])}
            if isinstance(kind[1], core.tensor_descriptor_type):
                entry.update(kind[1].param_spec())
            if kind[2]:
                entry["divisibility"] = kind[2]
            if len(kind) > 3 and kind[3]:
                # What the launcher checks each tensor passed here against.
                entry["pointer_range_bytes"] = int(info["pointer_range_bytes"])
            runtime_params.append(entry)
    metadata = {
        **({"image": image} if image else {}),
        "key": key, "hash": key, "name": symbol_name(fn.src.fdef.name), "target": target,
        "num_warps": num_warps, "threads_per_warp": warp_size,
        **({"num_ctas": num_ctas} if num_ctas != 1 else {}),
        **({"maxnreg": maxnreg} if maxnreg is not None else {}),
        **({"debug": True} if debug else {}),
        **({"total_num_warps": int(module_info["total_num_warps"])}
           if int(module_info.get("total_num_warps") or num_warps) != num_warps else {}),
        "shared": int(module_info["shared"]), "params": runtime_params,
        **({"global_scratch": int(module_info["global_scratch"])}
           if int(module_info.get("global_scratch") or 0) else {}),
        "constexprs": {n: _json_value(k[1]) for n, k in flat_params(params)
                       if k[0] == "constexpr"},
        "compiler_version": compiler.version(),
    }
    kernel = CompiledKernel(fn.__name__, asm, metadata,
                            replay_command(target, num_warps, info["assembly"]), source_ir=ir,
                            warnings=stage_warnings.all)
    kernel.timings = timings
    if disk is not None and cache:
        disk.put(key, kernel.to_payload())
    return kernel


class MissingToolWarning(UserWarning):
    """A tool that makes a kernel's binary is missing; the kernel still runs, through its
    assembly (the GPU driver compiles it when loading)."""


def _translate(compiler, ir, target, emits, seconds=None, diagnostics=None):
    """Every artifact of ``emits`` from one call when the library can (``translate_all``).
    ``diagnostics`` receives the warnings and remarks, only once every artifact is made."""
    many = getattr(compiler, "translate_all", None)
    got: list = []
    if many is not None:
        extra = {"diagnostics": got} if _accepts(many, "diagnostics") else {}
        outs = many(ir, target, list(emits), seconds, **extra)
    else:
        extra = ({"diagnostics": got} if _accepts(compiler.translate, "diagnostics")
                 else {})
        outs = [compiler.translate(ir, target, e, **extra) for e in emits]
    if diagnostics is not None:
        diagnostics.extend(got)
    return outs


def _translate_or_missing_tool(compiler, translate):
    """``(output, None)`` when ``translate`` succeeds; ``(None, tool)`` when it failed because
    an external tool is missing; ``(None, None)`` for any other failure (which ``_run`` then
    reports)."""
    try:
        return translate(), None
    except Exception as e:
        if not isinstance(e, getattr(compiler, "CompilationError", ())):
            raise
        for d in getattr(e, "diagnostics", None) or []:
            facts = d.get("facts") or {}
            if facts.get("kind") == "missing_tool":
                return None, facts.get("tool", "a tool")
        return None, None
