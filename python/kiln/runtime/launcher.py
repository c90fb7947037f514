"""Launching one compiled kernel: argument checks, lazy module load, launch."""

import operator
import re
import sys

from .errors import KilnRuntimeError, LaunchTimeOutOfResources

# CUDA's (and HIP's) grid limits: x up to 2**31-1, y and z up to 65535.
_GRID_LIMITS = (2**31 - 1, 65535, 65535)
_MAX_BLOCK_THREADS = 1024
_REQUIRED_METADATA = ("name", "target", "num_warps", "threads_per_warp",
                      "shared", "params")


def validate_grid(grid):
    """Checks a launch grid (1-3 positive ints); returns it as (x, y, z)."""
    if not isinstance(grid, (tuple, list)):
        raise ValueError(
            f"grid must be a tuple of 1 to 3 ints, got {type(grid).__name__}")
    if not 1 <= len(grid) <= 3:
        raise ValueError(f"grid must have 1 to 3 dimensions, got {len(grid)}")
    dims = []
    for axis, (value, limit) in enumerate(zip(grid, _GRID_LIMITS)):
        try:
            # operator.index: accept numpy ints, refuse floats (and bools).
            if isinstance(value, bool):
                raise TypeError
            value = operator.index(value)
        except TypeError:
            raise ValueError(f"grid[{axis}] must be an int, got "
                             f"{type(value).__name__}") from None
        if not 1 <= value <= limit:
            raise ValueError(
                f"grid[{axis}] = {value} is out of range [1, {limit}]")
        dims.append(value)
    return tuple(dims) + (1,) * (3 - len(dims))


def default_stream():
    """torch's current stream if torch has initialized CUDA, else 0.

    torch is only consulted when already imported: if it is not, it cannot
    have initialized a device or made a stream current, and importing it just
    to learn that costs seconds.
    """
    torch = sys.modules.get("torch")
    if torch is None or not torch.cuda.is_initialized():
        return 0
    # The raw getter skips building a torch.cuda.Stream object (~5 us).
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is not None:
        return raw(torch.cuda.current_device())
    return torch.cuda.current_stream().cuda_stream


def _pointer(arg, param_name):
    """A device address from an int, None (null) or a tensor-like object."""
    if arg is None or type(arg) is int:
        return arg
    # Ask for data_ptr() before trying operator.index(): indexing a torch
    # tensor fails by raising from C++, which costs ~10 us per argument.
    data_ptr = getattr(arg, "data_ptr", None)
    if data_ptr is None:
        try:
            if not isinstance(arg, bool):
                return operator.index(arg)  # numpy ints and the like
        except TypeError:
            pass
        raise TypeError(f"argument {param_name!r} must be a device pointer "
                        f"(an int or an object with data_ptr()), got "
                        f"{type(arg).__name__}")
    device = getattr(arg, "device", None)
    device_type = getattr(device, "type", device)
    if device_type == "cpu" or (device is None and
                                getattr(arg, "is_cuda", None) is False):
        raise ValueError(f"argument {param_name!r} is a CPU tensor; kernels "
                         f"need device memory")
    return data_ptr()


class LoadedKernel:
    """A compiled kernel binary bound to a driver, launched with launch().

    The module is loaded on the first launch (so building one needs no GPU
    work) and kept for the kernel's lifetime.
    """

    def __init__(self, driver, binary, metadata):
        missing = [k for k in _REQUIRED_METADATA if k not in metadata]
        if missing:
            raise KilnRuntimeError(
                f"kernel metadata lacks {', '.join(missing)}")
        self.driver = driver
        self.binary = bytes(binary)
        self.metadata = dict(metadata)
        self.name = metadata["name"]
        self.params = list(metadata["params"])
        self.arg_types = [p["type"] for p in self.params]
        self.shared = int(metadata["shared"])
        threads = int(metadata["num_warps"]) * int(metadata["threads_per_warp"])
        if not 1 <= threads <= _MAX_BLOCK_THREADS:
            raise KilnRuntimeError(
                f"kernel {self.name!r}: {threads} threads per block is out of "
                f"range [1, {_MAX_BLOCK_THREADS}]")
        self.block = (threads, 1, 1)
        self._module = None
        self._function = None

    def __repr__(self):
        return f"LoadedKernel({self.name!r}, target={self.metadata['target']!r})"

    def _signature(self):
        return ", ".join(f"{p['name']}: {p['type']}" for p in self.params)

    def prepare_args(self, args):
        """Checks args against params; returns what the native packer takes."""
        args = tuple(args)
        if len(args) != len(self.params):
            raise TypeError(
                f"kernel {self.name!r} takes {len(self.params)} arguments "
                f"({self._signature()}), got {len(args)}")
        out = []
        for param, arg in zip(self.params, args):
            name = param["name"]
            if param["type"].startswith("*"):
                arg = _pointer(arg, name)
            divisibility = param.get("divisibility")
            # The kernel was specialized assuming this; a violation would be
            # silent misbehaviour, so refuse it here.
            if divisibility and isinstance(arg, int) and arg % divisibility:
                raise ValueError(
                    f"argument {name!r} = {arg:#x} is not a multiple of "
                    f"{divisibility}, but kernel {self.name!r} was compiled "
                    f"assuming it is")
            out.append(arg)
        return out

    def _ensure_loaded(self):
        if self._function is not None:
            return self._function
        limit = self.driver.max_shared_bytes()
        if self.shared > limit:
            raise LaunchTimeOutOfResources(self.shared, limit, "shared memory")
        target = self.metadata["target"]
        device_target = self.driver.current_target()
        # Only the vendor must match: a PTX image built for an older arch can
        # still be JIT-compiled, so finer mismatches are left to the driver.
        if target.split(":")[0] != device_target.split(":")[0]:
            raise KilnRuntimeError(
                f"kernel {self.name!r} was compiled for {target}, but the "
                f"device is {device_target}")
        self._module = self.driver.load_module(self.binary)
        self._function = self.driver.get_function(self._module, self.name,
                                                  self.shared)
        return self._function

    def launch(self, grid, args, stream=None):
        if callable(grid):  # Triton style: grid computed from the metadata
            grid = grid(self.metadata)
        grid = validate_grid(grid)
        values = self.prepare_args(args)
        func = self._ensure_loaded()
        if stream is None:
            stream = default_stream()
        try:
            self.driver.launch(func, grid, self.block, self.shared, stream,
                               self.arg_types, values)
        except (ValueError, TypeError) as e:
            # The native packer names arguments by index; name them as the
            # kernel does.
            msg = str(e)
            m = re.match(r"argument (\d+)", msg)
            if m and int(m.group(1)) < len(self.params):
                msg = f"{msg} [parameter {self.params[int(m.group(1))]['name']!r}]"
            raise type(e)(f"kernel {self.name!r}: {msg}") from e

    def __getitem__(self, grid):
        """Triton-style launch: kernel[grid](*args, stream=None)."""
        def run(*args, stream=None):
            self.launch(grid, args, stream)
        return run

    def close(self):
        """Unloads the module; a later launch loads it again."""
        if self._module is not None:
            module, self._module, self._function = self._module, None, None
            self.driver.unload_module(module)
