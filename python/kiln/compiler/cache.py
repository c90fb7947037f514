"""On-disk kernel cache.

One file per key under ``$KILN_CACHE_DIR`` (default ``~/.cache/kiln``), written atomically
(temporary file in the same folder, then ``os.replace``), so concurrent writers of one key leave
one complete entry. Each file starts with a header carrying the SHA-256 of its payload; a
truncated, corrupted or foreign file is a miss (and is removed). Failing to write (``ENOSPC``,
``EACCES``, read-only file systems) warns with :class:`CacheWarning` and the compile goes on
without caching.
"""

from __future__ import annotations

import base64
import dataclasses
import enum
import hashlib
import json
import os
import tempfile
import types
import warnings
from pathlib import Path
from typing import Callable, Optional

from ..language._core import (constexpr, distributed_type, dtype, pointer_type,
                              shared_memory_descriptor_type)
from ..language._layouts import DistributedLayout, SharedLayout
from ..language.aggregates import aggregate_fields
from .deps import Dependencies

__all__ = ["CacheWarning", "DiskCache", "default_cache_dir", "mangle_value", "frontend_hash"]

FORMAT_VERSION = 1
_MAGIC = b"KILN-CACHE"


class CacheWarning(UserWarning):
    """The kernel cache could not be written; compilation continued without it."""


def default_cache_dir() -> Path:
    env = os.environ.get("KILN_CACHE_DIR")
    return Path(env) if env else Path.home() / ".cache" / "kiln"


def mangle_value(value) -> str:
    """A deterministic text for a compile-time value (part of cache keys)."""
    if isinstance(value, constexpr):
        value = value.value
    if value is None or isinstance(value, (bool, int, float, str)):
        return f"{type(value).__name__}:{value!r}"
    if isinstance(value, (dtype, pointer_type, DistributedLayout, SharedLayout)):
        return value.mangle()
    if isinstance(value, distributed_type):  # a type as a constexpr (bank_conflicts' arguments)
        return value.mangle()
    if isinstance(value, shared_memory_descriptor_type):
        return value.mangle() + ("" if value.mutable else "I")
    if isinstance(value, (tuple, list)):
        return "(" + ",".join(mangle_value(v) for v in value) + ")"
    if getattr(value, "__kiln_jit__", False):
        return f"jit:{value.cache_fingerprint()}"
    if isinstance(value, type) and aggregate_fields(value) is not None:  # methods by source
        return Dependencies().token(value)
    if isinstance(value, types.FunctionType):  # e.g. a constexpr_function: by source
        return f"pyfn:{Dependencies().function_fingerprint(value)}"
    if callable(value) and hasattr(value, "__module__") and hasattr(value, "__qualname__"):
        return f"fn:{value.__module__}.{value.__qualname__}"
    kind = type(value)
    if isinstance(value, enum.Enum) or (kind.__module__ == "torch" and kind.__name__ == "dtype"):
        # Named values (an enum member, torch.bfloat16 passed as a constexpr and compared in
        # the kernel): by type and name, which identify them.
        return f"named:{kind.__module__}.{kind.__qualname__}:{value}"
    params = getattr(type(value), "__dataclass_params__", None)
    if params is not None and params.frozen:  # e.g. a tensor-memory layout: by its fields
        kind = type(value)
        fields = ",".join(f"{f.name}={mangle_value(getattr(value, f.name))}"
                          for f in dataclasses.fields(value))
        return f"dc:{kind.__module__}.{kind.__qualname__}({fields})"
    raise TypeError(f"unsupported compile-time value {value!r} of type {type(value).__name__}: "
                    f"a constexpr must be a number, string, None, dtype, layout, tuple of "
                    f"those, function, enum member, torch dtype or frozen dataclass (its "
                    f"value is part of the kernel's cache key)")


_FRONTEND_HASH: Optional[str] = None


def frontend_hash() -> str:
    """Hash of the Python frontend's own sources: a frontend change invalidates entries."""
    global _FRONTEND_HASH
    if _FRONTEND_HASH is None:
        h = hashlib.sha256()
        root = Path(__file__).resolve().parent.parent
        for sub in ("compiler", "language"):
            for path in sorted((root / sub).rglob("*.py")):  # vendor subpackages too
                h.update(path.relative_to(root).as_posix().encode())
                h.update(path.read_bytes())
        _FRONTEND_HASH = h.hexdigest()
    return _FRONTEND_HASH


def _encode(payload: dict) -> bytes:
    asm = {}
    for stage, value in payload.get("asm", {}).items():
        if isinstance(value, bytes):
            asm[stage] = {"b64": base64.b64encode(value).decode("ascii")}
        else:
            asm[stage] = {"text": value}
    body = json.dumps(dict(payload, asm=asm, format=FORMAT_VERSION), sort_keys=True).encode()
    return _MAGIC + b" " + hashlib.sha256(body).hexdigest().encode() + b"\n" + body


def _decode(data: bytes) -> Optional[dict]:
    head, sep, body = data.partition(b"\n")
    parts = head.split(b" ")
    if not sep or len(parts) != 2 or parts[0] != _MAGIC:
        return None
    if hashlib.sha256(body).hexdigest().encode() != parts[1]:
        return None
    payload = json.loads(body)
    if not isinstance(payload, dict) or payload.get("format") != FORMAT_VERSION:
        return None
    if not isinstance(payload.get("asm"), dict):
        return None
    asm = {}
    for stage, value in payload["asm"].items():
        if not isinstance(value, dict):
            return None
        asm[stage] = base64.b64decode(value["b64"]) if "b64" in value else value["text"]
    payload["asm"] = asm
    return payload


class DiskCache:
    def __init__(self, root=None):
        self.root = Path(root) if root is not None else default_cache_dir()

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.kiln"

    def get(self, key: str, validate: Optional[Callable[[dict], bool]] = None
            ) -> Optional[dict]:
        """The entry for ``key``, or None. An entry that is corrupt, belongs to another key or
        fails ``validate`` (a check of the fields and types its reader needs) is removed."""
        path = self.path(key)
        try:
            data = path.read_bytes()
        except OSError:
            return None
        try:
            payload = _decode(data)
        except (ValueError, KeyError, TypeError, AttributeError):
            payload = None
        if payload is not None and validate is not None:
            try:
                if not validate(payload):
                    payload = None
            except Exception:  # a validator tripping over a malformed entry
                payload = None
        if payload is None or payload.get("key") != key:
            try:  # a corrupted entry: drop it so the next writer replaces it
                path.unlink()
            except OSError:
                pass
            return None
        return payload

    def put(self, key: str, payload: dict) -> bool:
        path = self.path(key)
        tmp = None
        try:
            data = _encode(dict(payload, key=key))
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{key[:16]}.", suffix=".tmp", dir=path.parent)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
            tmp = None
            return True
        except OSError as e:
            warnings.warn(CacheWarning(
                f"kiln: could not write the kernel cache entry {path}: {e}; continuing "
                f"without caching (set KILN_CACHE_DIR to a writable folder)"), stacklevel=3)
            return False
        finally:
            if tmp is not None:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
