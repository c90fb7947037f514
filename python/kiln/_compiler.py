"""Kiln's compiler library (``libkiln.so``) through its C API, with ctypes.

The library exports three C functions (``include/kiln-c/Kiln.h``); every call is a JSON
request and a JSON response, so this module needs no compiled extension and one library serves
every Python version. It is found, in order, at ``$KILN_LIBRARY``, beside this file
(``kiln/libkiln.so``: a checkout's development build, or the wheel's self-contained one).

Importing raises ImportError when the library is missing or cannot be loaded; ``kiln.compiler``
turns that into :class:`kiln.ExtensionNotBuilt`.
"""

from __future__ import annotations

import base64
import ctypes
import json
import os
from typing import List, Optional

API_VERSION = 1


def _find_library() -> str:
    explicit = os.environ.get("KILN_LIBRARY")
    if explicit:
        if not os.path.isfile(explicit):
            raise ImportError(f"KILN_LIBRARY={explicit!r} is not a file")
        return explicit
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "libkiln.so")
    if os.path.isfile(here):
        return here
    raise ImportError(f"Kiln's compiler library is missing ({here}); build the project "
                      f"(bash scripts/setup.sh) or install the kiln wheel")


#: The loaded library (kiln.compiler hashes it into cache keys).
library_path = _find_library()
try:
    _lib = ctypes.CDLL(library_path)
except OSError as e:  # e.g. a missing libstdc++ symbol version
    raise ImportError(f"cannot load {library_path}: {e}") from e
_lib.kiln_api_version.restype = ctypes.c_int
_lib.kiln_call.argtypes = [ctypes.c_char_p, ctypes.c_size_t,
                           ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_size_t)]
_lib.kiln_call.restype = ctypes.c_int
_lib.kiln_free.argtypes = [ctypes.c_void_p]
_lib.kiln_free.restype = None
if _lib.kiln_api_version() != API_VERSION:
    raise ImportError(f"{library_path} implements Kiln C API version "
                      f"{_lib.kiln_api_version()}, this package needs {API_VERSION}")


class CompilationError(Exception):
    """A compile failed. ``args[0]`` is every diagnostic, one per line; ``diagnostics`` holds
    them as dicts with severity, message, file, line, col and facts."""

    def __init__(self, message: str, diagnostics: Optional[List[dict]] = None):
        super().__init__(message)
        self.diagnostics = diagnostics or []


def _call(method: str, **args):
    request = json.dumps({"api": API_VERSION, "method": method, "args": args},
                         ensure_ascii=False).encode("utf-8")
    out = ctypes.c_void_p()
    size = ctypes.c_size_t()
    _lib.kiln_call(request, len(request), ctypes.byref(out), ctypes.byref(size))
    if not out.value:
        raise MemoryError("kiln_call could not allocate its response")
    try:
        reply = json.loads(ctypes.string_at(out.value, size.value).decode("utf-8"))
    finally:
        _lib.kiln_free(out)
    if not reply.get("ok"):
        error = reply.get("error") or {}
        raise CompilationError(error.get("message", "kiln_call failed"),
                               error.get("diagnostics"))
    return reply["result"]


def version() -> str:
    """Kiln and LLVM versions, e.g. ``kiln-0.1.0 llvm-22.1.8``."""
    return _call("version")


def known_targets() -> List[dict]:
    """The target table of the built-in backends, one dict per chip."""
    return _call("known_targets")


def default_target() -> Optional[str]:
    """The chip compiled for when none is named (None without backends)."""
    return _call("default_target")


def _extend(diagnostics: Optional[list], result: dict) -> None:
    """Hand a successful call's warnings, remarks and notes to the caller's list."""
    if diagnostics is not None:
        diagnostics.extend(result.get("diagnostics") or [])


def run_pipeline(ir_text: str, pipeline: str, source_name: str = "kernel",
                 diagnostics: Optional[list] = None) -> str:
    """Parse and verify ``ir_text``, run the textual ``pipeline``, print with locations.
    ``diagnostics``, when given, is extended with the run's warnings and remarks (dicts with
    severity, message, file, line, col and facts; each note follows its parent)."""
    out = _call("run_pipeline", ir=ir_text, pipeline=pipeline, source_name=source_name)
    _extend(diagnostics, out)
    return out["text"]


def run_pipeline_with_info(ir_text: str, pipeline: str, source_name: str = "kernel",
                           diagnostics: Optional[list] = None) -> dict:
    """:func:`run_pipeline`, plus structured facts about the result (``info``: shared bytes,
    target, num_warps, kernels and their argument attributes). The result's
    ``diagnostics`` holds the run's warnings and remarks (also added to ``diagnostics``
    when given)."""
    out = _call("run_pipeline", ir=ir_text, pipeline=pipeline, source_name=source_name,
                info=True)
    out.setdefault("diagnostics", [])
    _extend(diagnostics, out)
    return out


def translate(llvm_dialect_text: str, target: str, emit: str,
              diagnostics: Optional[list] = None) -> bytes:
    """An LLVM-dialect module to ``emit`` (``llvm``, or the target's assembly or binary)."""
    return translate_all(llvm_dialect_text, target, [emit], diagnostics=diagnostics)[0]


def translate_all(llvm_dialect_text: str, target: str, emits: List[str],
                  seconds: Optional[dict] = None,
                  diagnostics: Optional[list] = None) -> List[bytes]:
    """Several artifacts of one module, optimized once: bytes for each name of ``emits``.
    ``seconds``, when given, receives where the time went (translate, optimize, codegen,
    binary); ``diagnostics`` the warnings and remarks of the translation (as
    :func:`run_pipeline`'s)."""
    out = _call("translate", ir=llvm_dialect_text, target=target, emit=list(emits))
    if seconds is not None:
        seconds.update(out["seconds"])
    _extend(diagnostics, out)
    return [base64.b64decode(a["base64"]) if "base64" in a else a["text"].encode("utf-8")
            for a in out["artifacts"]]


def linear_layout(layout: str, shape, element_bits: int = 32) -> Optional[tuple]:
    """(register, lane, warp) bases C++ gives a layout attribute on ``shape``, or None; for a
    shared layout, (offset bases,): the coordinates each bit of an element's offset in one
    buffer of ``shape`` (elements of ``element_bits``) adds."""
    out = _call("linear_layout", layout=layout, shape=[int(d) for d in shape],
                element_bits=int(element_bits))
    return None if out is None else tuple(out)


def bank_conflicts(tensor_type: str, memdesc_type: str, target: str = "") -> int:
    """Bank conflicts of local_load / local_store moving a tensor of ``tensor_type`` (IR text)
    from / to a buffer of ``memdesc_type`` on ``target``'s shared-memory banks (32 of 4
    bytes when empty): the passes over the banks each wavefront needs beyond the first, at
    worst. ValueError, with the reason, when Kiln cannot address the buffer with the
    tensor's layout."""
    args = {"target": target} if target else {}
    out = _call("bank_conflicts", tensor_type=tensor_type, memdesc_type=memdesc_type, **args)
    if "reason" in out:
        raise ValueError(out["reason"])
    return int(out["conflicts"])
