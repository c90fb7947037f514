"""Ahead-of-time compilation into bundles that ``kiln.runtime`` loads without LLVM/MLIR.

    kiln.aot.compile_bundle("build/kernels", [
        {"fn": add, "signature": {"x": "*fp32:16", "y": "*fp32:16", "out": "*fp32:16",
                                  "n": "i32"},
         "constexprs": {"BLOCK": 1024}, "num_warps": 4, "target": "cuda:sm_90a",
         "key": "add_fp32_sm90"},
    ])
"""

from __future__ import annotations

from typing import Iterable, List

from .compiler.compiler import CompiledKernel, compile
from .runtime import bundle

__all__ = ["compile_bundle", "compile_entries"]

_ENTRY_KEYS = {"fn", "signature", "constexprs", "num_warps", "target", "key"}


def compile_entries(entries: Iterable[dict]) -> List[CompiledKernel]:
    """Compile each entry (``fn``, ``signature``, ``constexprs``, ``num_warps``, ``target``,
    ``key``); the bundle key defaults to ``<name>_<target>``."""
    kernels = []
    for i, entry in enumerate(entries):
        unknown = set(entry) - _ENTRY_KEYS
        if unknown:
            raise ValueError(f"AOT entry #{i}: unknown field(s) {sorted(unknown)}")
        if "fn" not in entry or "target" not in entry:
            raise ValueError(f"AOT entry #{i}: 'fn' and 'target' are required")
        kernel = compile(entry["fn"], entry.get("signature") or {}, entry.get("constexprs"),
                         target=entry["target"], num_warps=entry.get("num_warps", 4))
        kernel.metadata = dict(kernel.metadata, key=str(
            entry.get("key") or f"{kernel.name}_{entry['target'].replace(':', '_')}"))
        kernels.append(kernel)
    return kernels


def compile_bundle(path, entries: Iterable[dict]) -> List[CompiledKernel]:
    """Compile ``entries`` and write them as one bundle directory at ``path``
    (``kiln.runtime.bundle.write_bundle``). Returns the compiled kernels."""
    kernels = compile_entries(entries)
    bundle.write_bundle(path, [(k.metadata, k.binary) for k in kernels])
    return kernels
