"""Ahead-of-time kernel bundles: binaries + JSON metadata, no compiler needed.

Layout of a bundle directory::

    manifest.json   {"format": "kiln-bundle", "version": 1,
                     "kernels": [{...metadata..., "key": k, "binary": file,
                                  "sha256": hex}, ...]}

The metadata is the compiler's, kept whole: a "tensordesc" param keeps its "dtype",
"block_shape" and "layout", which launches check TensorDescriptor arguments against.
    <key>.cubin     one binary per kernel (.hsaco for hip targets)

Loading reads metadata and binaries only; a launch then needs a GPU driver.
"""

import hashlib
import json
import os
import re
import tempfile

from . import driver as _driver  # looked up at call time, so tests can patch get_driver
from .errors import KilnRuntimeError
from .launcher import LoadedKernel, tensordesc_spec, validate_grid

FORMAT = "kiln-bundle"
VERSION = 1
MANIFEST = "manifest.json"
_EXTENSIONS = {"cuda": ".cubin", "hip": ".hsaco"}


def _atomic_write(path, data):
    """Writes data to path via a temp file + os.replace: readers never see a
    partial file, even if the writer dies midway."""
    directory = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _file_stem(key, taken):
    stem = re.sub(r"[^A-Za-z0-9_.-]", "_", key).lstrip(".") or "kernel"
    candidate, n = stem, 1
    while candidate in taken:
        candidate, n = f"{stem}.{n}", n + 1
    taken.add(candidate)
    return candidate


def write_bundle(path, kernels):
    """Writes (metadata, binary) pairs as a bundle directory at `path`.

    Each metadata dict needs at least "name" and "target"; its "key" (default:
    the name) must be unique in the bundle. Binaries are written first and the
    manifest last, so a reader sees either the old bundle or the whole new one.
    """
    os.makedirs(path, exist_ok=True)
    entries, keys, stems = [], set(), set()
    for i, (metadata, binary) in enumerate(kernels):
        for field in ("name", "target"):
            if field not in metadata:
                raise ValueError(f"kernel #{i} metadata lacks {field!r}")
        key = str(metadata.get("key", metadata["name"]))
        if key in keys:
            raise ValueError(f"duplicate kernel key {key!r} in bundle")
        keys.add(key)
        vendor = str(metadata["target"]).split(":")[0]
        if vendor not in _EXTENSIONS:
            raise ValueError(f"kernel {key!r}: unknown target "
                             f"{metadata['target']!r}")
        binary = bytes(binary)
        file_name = _file_stem(key, stems) + _EXTENSIONS[vendor]
        _atomic_write(os.path.join(path, file_name), binary)
        entry = dict(metadata)
        entry.update(key=key, binary=file_name,
                     sha256=hashlib.sha256(binary).hexdigest())
        entries.append(entry)
    manifest = {"format": FORMAT, "version": VERSION, "kernels": entries}
    try:
        text = json.dumps(manifest, indent=2, sort_keys=False) + "\n"
    except TypeError as e:
        raise ValueError(f"kernel metadata is not JSON-serializable: {e}") from e
    _atomic_write(os.path.join(path, MANIFEST), text.encode())


class BundleKernel:
    """One kernel of a bundle; launch as kernel[grid](*args, stream=None)."""

    def __init__(self, metadata, binary):
        self.metadata = metadata
        self.binary = binary
        self.key = metadata["key"]
        self.name = metadata["name"]
        self._loaded = None

    def __repr__(self):
        return f"BundleKernel({self.key!r}, target={self.metadata['target']!r})"

    def loaded(self, driver=None):
        """The LoadedKernel behind this entry (made on first use)."""
        if self._loaded is None:
            if driver is None:
                driver = _driver.get_driver()
            self._loaded = LoadedKernel(driver, self.binary, self.metadata)
        return self._loaded

    def launch(self, grid, args, stream=None):
        if not callable(grid):
            validate_grid(grid)  # report a bad grid before looking for a GPU
        self.loaded().launch_warm(grid, args, stream)

    def __getitem__(self, grid):
        loaded = self._loaded
        if loaded is not None:  # warm: the learnt launcher (launch_warm)
            def run(*args, stream=None):
                loaded.launch_warm(grid, args, stream)
            return run

        def run(*args, stream=None):
            self.launch(grid, args, stream)
        return run


class Bundle:
    """A loaded bundle: bundle[key] -> BundleKernel; .kernels maps all keys."""

    def __init__(self, path, kernels):
        self.path = path
        self.kernels = kernels  # dict key -> BundleKernel, manifest order

    def __getitem__(self, key):
        try:
            return self.kernels[key]
        except KeyError:
            raise KeyError(f"no kernel {key!r} in bundle {self.path}; it has "
                           f"{', '.join(self.kernels) or 'none'}") from None

    def __contains__(self, key):
        return key in self.kernels

    def __iter__(self):
        return iter(self.kernels)

    def __len__(self):
        return len(self.kernels)

    def keys(self):
        return self.kernels.keys()


def _load_error(where, what):
    return KilnRuntimeError(f"invalid kiln bundle: {where}: {what}")


def load_bundle(path):
    """Reads a bundle written by write_bundle(); checks every binary's hash."""
    manifest_path = os.path.join(path, MANIFEST)
    try:
        with open(manifest_path, "rb") as f:
            manifest = json.loads(f.read().decode("utf-8"))
    except FileNotFoundError:
        raise _load_error(manifest_path, "file not found") from None
    except (OSError, UnicodeDecodeError, ValueError) as e:
        # ValueError covers json.JSONDecodeError.
        raise _load_error(manifest_path, f"cannot read: {e}") from e
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise _load_error(manifest_path, f"not a {FORMAT!r} manifest")
    if manifest.get("version") != VERSION:
        raise _load_error(manifest_path, f"unsupported version "
                          f"{manifest.get('version')!r} (expected {VERSION})")
    entries = manifest.get("kernels")
    if not isinstance(entries, list):
        raise _load_error(manifest_path, "'kernels' is not a list")
    kernels = {}
    for i, entry in enumerate(entries):
        where = f"{manifest_path}: kernel #{i}"
        if not isinstance(entry, dict):
            raise _load_error(where, "not an object")
        for field in ("key", "name", "target", "binary", "num_warps",
                      "threads_per_warp", "shared", "params"):
            if field not in entry:
                raise _load_error(where, f"lacks {field!r}")
        if entry["key"] in kernels:
            raise _load_error(where, f"duplicate key {entry['key']!r}")
        params = entry["params"]
        if not isinstance(params, list) or not all(
                isinstance(p, dict) and "name" in p and "type" in p for p in params):
            raise _load_error(where, "'params' must be a list of objects with name and type")
        for p in params:
            if p["type"] == "tensordesc":  # also "dtype", "block_shape" and "layout"
                try:
                    tensordesc_spec(p)
                except ValueError as e:
                    raise _load_error(where, str(e)) from None
        file_name = entry["binary"]
        # Binaries live in the bundle directory itself; refuse paths out of it.
        if (not isinstance(file_name, str)
                or os.path.basename(file_name) != file_name
                or file_name in ("", ".", "..")):
            raise _load_error(where, f"bad binary file name {file_name!r}")
        binary_path = os.path.join(path, file_name)
        try:
            with open(binary_path, "rb") as f:
                binary = f.read()
        except OSError as e:
            raise _load_error(binary_path, f"cannot read kernel "
                              f"{entry['key']!r} binary: {e.strerror}") from e
        digest = entry.get("sha256")
        if digest is not None and hashlib.sha256(binary).hexdigest() != digest:
            raise _load_error(binary_path, f"kernel {entry['key']!r} binary "
                              "does not match the manifest's sha256")
        kernels[entry["key"]] = BundleKernel(entry, binary)
    return Bundle(path, kernels)
