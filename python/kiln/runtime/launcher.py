"""Launching one compiled kernel: argument checks, lazy module load, launch."""

import ctypes
import operator
import re
import sys
import weakref

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


# Once torch has initialized CUDA: (raw current-stream getter, current-device getter,
# bad-fork test), torch's C functions, so that a launch asks for its stream in two C calls.
_TORCH_STREAM = None


def default_stream():
    """torch's current stream if torch has initialized CUDA, else 0.

    torch is only consulted when already imported: if it is not, it cannot
    have initialized a device or made a stream current, and importing it just
    to learn that costs seconds.
    """
    fast = _TORCH_STREAM
    if fast is not None and not fast[2]():  # initialized stays so, unless forked
        return fast[0](fast[1]())
    return _default_stream()


def _default_stream():
    global _TORCH_STREAM
    torch = sys.modules.get("torch")
    if torch is None or not torch.cuda.is_initialized():
        return 0
    # The raw getter skips building a torch.cuda.Stream object (~5 us).
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is not None:
        # torch.cuda.current_device() is _lazy_init() (done: initialized) and this getter;
        # torch.cuda.is_initialized() is "initialized and not in a bad fork".
        device = getattr(torch._C, "_cuda_getDevice", None)
        bad_fork = getattr(torch._C, "_cuda_isInBadFork", None)
        if device is not None and bad_fork is not None:
            _TORCH_STREAM = (raw, device, bad_fork)
        return raw(torch.cuda.current_device())
    return torch.cuda.current_stream().cuda_stream


def storage_bytes(arg):
    """Bytes of the memory a tensor-like argument lives in (torch's untyped_storage().size(),
    else its nbytes), or None where it does not say. (kiln.jit reads it the same way to
    specialize ':range32'.)"""
    storage = getattr(arg, "untyped_storage", None)
    if storage is not None:
        size = storage().size()
    else:
        size = getattr(arg, "nbytes", None)
    return size if isinstance(size, int) and not isinstance(size, bool) else None


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


# A "tensordesc" parameter's metadata, besides name and type: what the kernel was compiled
# for, as kiln.nvidia.hopper.TensorDescriptor._param_spec() gives it.
_TENSORDESC_KEYS = ("dtype", "block_shape", "layout")
_TENSORDESC_LAYOUT_KEYS = ("swizzle_byte_width", "element_bitwidth", "rank", "transposed",
                           "fp4_padded")
_DTYPE_ALIASES = {"float16": "fp16", "bfloat16": "bf16", "float32": "fp32",
                  "float64": "fp64", "float8e4nv": "fp8e4nv", "float8e5": "fp8e5",
                  "float8e4b8": "fp8e4b8", "float8e5b16": "fp8e5b16"}


def _dtype_spelling(name):
    """Signature spelling of a dtype name: int8 -> i8, uint16 -> u16, float32 -> fp32."""
    name = str(name)
    if name.startswith("uint"):
        return "u" + name[4:]
    if name.startswith("int"):
        return "i" + name[3:]
    return _DTYPE_ALIASES.get(name, name)


def _plain(value):
    """JSON-shaped copy (tuples as lists), so metadata read back from a bundle compares equal
    to the in-memory form."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def tensordesc_spec(param):
    """The normalized {"dtype", "block_shape", "layout"} of a "tensordesc" param's
    metadata; ValueError naming what is missing or malformed."""
    name = param.get("name")
    missing = [k for k in _TENSORDESC_KEYS if k not in param]
    if missing:
        raise ValueError(f"tensordesc parameter {name!r} lacks {', '.join(missing)}")
    dtype = param["dtype"]
    if not isinstance(dtype, str) or not dtype:
        raise ValueError(f"tensordesc parameter {name!r}: dtype must be a type name such as "
                         f"'bf16', got {dtype!r}")
    layout = param["layout"]
    if not isinstance(layout, dict) or any(k not in layout
                                           for k in _TENSORDESC_LAYOUT_KEYS):
        raise ValueError(f"tensordesc parameter {name!r}: layout must be an object with "
                         f"{', '.join(_TENSORDESC_LAYOUT_KEYS)}, got {layout!r}")
    block = param["block_shape"]
    if (not isinstance(block, (list, tuple)) or not block
            or not all(type(b) is int for b in block)):
        raise ValueError(f"tensordesc parameter {name!r}: block_shape must be a list of "
                         f"ints, got {block!r}")
    spec = {"dtype": _dtype_spelling(dtype), "block_shape": list(block),
            "layout": _plain(layout)}
    im2col = param.get("im2col")
    if im2col is not None:  # an im2col descriptor: the tensor's rank
        if not isinstance(im2col, dict) or type(im2col.get("rank")) is not int:
            raise ValueError(f"tensordesc parameter {name!r}: im2col must be an object with "
                             f"an int rank, got {im2col!r}")
        spec["im2col"] = {"rank": im2col["rank"]}
    return spec


def _desc_rank(spec):
    """How many shape and strides entries follow a descriptor argument: the tensor's rank
    (an im2col descriptor's block does not have it)."""
    im2col = spec.get("im2col")
    return im2col["rank"] if im2col else len(spec["block_shape"])


def _tensor_map(arg, spec, param_name, kernel_name, driver):
    """The encoded tensor map of a TensorDescriptor argument, after checking it is the kind
    of descriptor the kernel was compiled for."""
    param_spec = getattr(arg, "_param_spec", None)
    if param_spec is None or not callable(getattr(arg, "_tensor_map", None)):
        raise TypeError(f"argument {param_name!r} must be a "
                        f"kiln.nvidia.hopper.TensorDescriptor, got {type(arg).__name__}")
    got = param_spec()
    if got == spec:  # the launch path: one dict comparison
        return arg._tensor_map(driver)
    got["dtype"] = _dtype_spelling(got["dtype"])
    if got.get("im2col") != spec.get("im2col"):
        def kind(s):
            return f"an im2col one of rank {s['im2col']['rank']}" if s.get("im2col") \
                else "a tiled one"
        raise ValueError(f"argument {param_name!r}: kernel {kernel_name!r} was compiled for "
                         f"a tensor descriptor that is {kind(spec)}, got {kind(got)}")
    for field in _TENSORDESC_KEYS:
        want = spec[field]
        have = got[field]
        if field == "layout":
            have = dict(have)
            for key in want:  # anything else the kernel's layout records: the object's own
                if key not in have:
                    have[key] = getattr(arg.layout, key, None)
        have = _plain(have)
        if have != want:
            raise ValueError(f"argument {param_name!r}: kernel {kernel_name!r} was compiled "
                             f"for a tensor descriptor with {field} {want}, got one with "
                             f"{have}")
    return arg._tensor_map(driver)


_POINTER, _DESC, _VALUE = 0, 1, 2  # how prepare_args treats a parameter


# [(kiln._runtime._lib.kiln_rt_launch as last seen, the same entry without argtypes (None
# when it is not a ctypes function))]: what the fast launchers call.
_RAW_LAUNCH = [(None, None)]


def _remember(arg, fields):
    """(a weak reference to ``arg``, ``fields``), or None when ``arg`` takes no weak
    references (then nothing is remembered)."""
    try:
        return (weakref.ref(arg), fields)
    except TypeError:
        return None


# The C launcher's code for each scalar type the fast path passes (fastlaunch.c's Arg.kind).
_NATIVE_KINDS = {"i32": "i", "u32": "I", "i64": "q", "u64": "Q", "fp32": "f", "fp64": "d",
                 "i1": "b"}

try:
    from .. import _fastlaunch
except ImportError:  # not built, or another Python: the generated Python launchers alone
    _fastlaunch = None


def _entry_address(fn):
    """The C address of a ctypes function (the runtime's kiln_rt_launch, or a stand-in
    callback), or None for anything else (the C launcher then defers to Python)."""
    if not isinstance(fn, ctypes._CFuncPtr):
        return None
    return ctypes.cast(fn, ctypes.c_void_p).value


def _on_cpu(arg):
    """Whether a pointer argument of a type other than torch.Tensor is on the host (the fast
    path's test, as in _fast_body)."""
    d = getattr(arg, "device", None)
    return getattr(d, "type", d) == "cpu" or d is None and getattr(arg, "is_cuda", None) is False


_MAX_WARM_KINDS = 8  # launch_warm: argument-kind combinations learnt per kernel


def _grid3(grid):
    """(x, y, z) of a tuple or list of 1 to 3 ints in range, else None (launch() decides)."""
    if type(grid) is not tuple and type(grid) is not list or not 1 <= len(grid) <= 3:
        return None
    for i, d in enumerate(grid):
        if type(d) is not int or d <= 0 or d > _GRID_LIMITS[i]:
            return None
    return tuple(grid) + (1,) * (3 - len(grid))


def _arg_kinds(args):
    """launch_warm's key: per argument "int", "float", "bool" (exactly those types), "desc"
    (a tensor descriptor), ("tensor", its type) (an object with data_ptr()); None when an
    argument is none of these (launch() then)."""
    kinds = []
    for a in args:
        t = type(a)
        kind = _TYPE_KINDS.get(t, _UNSEEN)
        if kind is _UNSEEN:
            kind = _type_kind(t)
            if len(_TYPE_KINDS) < 256:
                _TYPE_KINDS[t] = kind
        if kind is None:
            return None
        kinds.append(kind)
    return tuple(kinds)


_TYPE_KINDS = {}  # _arg_kinds' kind of each type seen
_UNSEEN = object()


def _type_kind(t):
    if t is int or t is float or t is bool:
        return t.__name__
    if callable(getattr(t, "_tensor_map", None)):
        return "desc"
    if t is not str and t is not type(None) and callable(getattr(t, "data_ptr", None)):
        return ("tensor", t)
    return None


class _Fallback(Exception):
    """Raised inside a fast launcher: launch() decides (and raises its own error)."""


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
        self._descs = {}  # param index -> normalized tensordesc spec
        self._desc_ids = {}  # param index -> the _spec_id of the last descriptor it accepted
        for i, p in enumerate(self.params):
            if p["type"] == "tensordesc":
                try:
                    self._descs[i] = tensordesc_spec(p)
                except ValueError as e:
                    raise KilnRuntimeError(f"kernel {self.name!r}: {e}") from None
        # Per parameter, what prepare_args does with its argument: (kind, name, divisibility,
        # the most bytes a pointer's tensor may span).
        self._plan = tuple(
            (_POINTER if p["type"].startswith("*") else _DESC if i in self._descs else _VALUE,
             p["name"], p.get("divisibility"), p.get("pointer_range_bytes"))
            for i, p in enumerate(self.params))
        # The kernel's arguments: a descriptor's shape (i32) and strides (i64) follow it.
        self.arg_types, self._arg_param = [], []
        for i, p in enumerate(self.params):
            rank = _desc_rank(self._descs[i]) if i in self._descs else 0
            types = [p["type"]] + ["i32"] * rank + ["i64"] * rank
            self.arg_types += types
            self._arg_param += [i] * len(types)
        self.shared = int(metadata["shared"])
        # warp_specialize launches its worker warps with the kernel's own.
        warps = metadata.get("total_num_warps", metadata["num_warps"])
        threads = int(warps) * int(metadata["threads_per_warp"])
        if not 1 <= threads <= _MAX_BLOCK_THREADS:
            raise KilnRuntimeError(
                f"kernel {self.name!r}: {threads} threads per block is out of "
                f"range [1, {_MAX_BLOCK_THREADS}]")
        self.block = (threads, 1, 1)
        self._module = None
        self._function = None
        self._warm = {}  # launch_warm's launchers by argument kinds

    def __repr__(self):
        return f"LoadedKernel({self.name!r}, target={self.metadata['target']!r})"

    def _signature(self):
        return ", ".join(f"{p['name']}: {p['type']}" for p in self.params)

    def prepare_args(self, args):
        """Checks args against params; returns what the native packer takes."""
        if len(args) != len(self._plan):
            raise TypeError(
                f"kernel {self.name!r} takes {len(self.params)} arguments "
                f"({self._signature()}), got {len(args)}")
        out = []
        for i, ((kind, name, divisibility, range_bytes), arg) in enumerate(
                zip(self._plan, args)):
            if kind == _POINTER:
                if range_bytes and type(arg) is not int and arg is not None:
                    self._check_pointer_range(arg, name, range_bytes)
                arg = _pointer(arg, name)
            elif kind == _DESC:
                spec_id = getattr(arg, "_spec_id", None)
                if spec_id is not None and self._desc_ids.get(i) == spec_id:
                    encoded = arg._tensor_map(self.driver)  # a kind already checked
                else:
                    encoded = _tensor_map(arg, self._descs[i], name, self.name, self.driver)
                    if spec_id is not None:
                        self._desc_ids[i] = spec_id
                out.append(encoded)
                # The kernel's desc.shape / desc.strides parameters.
                rank = _desc_rank(self._descs[i])
                shape, strides = getattr(arg, "shape", None), getattr(arg, "strides", None)
                if shape is None or strides is None or len(shape) != rank or \
                        len(strides) != rank:
                    raise TypeError(f"argument {name!r}: a tensor descriptor of rank {rank} "
                                    f"must have {rank} shape and strides entries")
                out.extend(shape)
                out.extend(strides)
                continue
            # The kernel was specialized assuming this; a violation would be
            # silent misbehaviour, so refuse it here.
            if divisibility and isinstance(arg, int) and arg % divisibility:
                raise ValueError(
                    f"argument {name!r} = {arg:#x} is not a multiple of "
                    f"{divisibility}, but kernel {self.name!r} was compiled "
                    f"assuming it is")
            out.append(arg)
        return out

    def _check_pointer_range(self, arg, name, limit):
        """The kernel addresses this argument with 32-bit offsets (``":range32"``, its
        loads read zeros past ``limit`` bytes): refuse a tensor that spans more. An address
        passed as an integer has no size to check; the caller vouches for it."""
        size = storage_bytes(arg)
        if size is not None and size > limit:
            raise ValueError(
                f"argument {name!r} spans {size} bytes, but kernel {self.name!r} was "
                f"compiled for tensors of at most {limit} bytes there (':range32', 32-bit "
                f"offsets); compile it without ':range32' for this tensor")

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
        # What the loaded code uses (Gluon's n_regs / n_spills: spilled 4-byte words).
        resources = getattr(self.driver, "function_resources", None)
        regs, local = resources(self._function) if resources else (-1, -1)
        if regs >= 0:
            self.metadata["n_regs"] = regs
        if local >= 0:
            self.metadata["n_spills"] = local // 4
        return self._function

    def launch(self, grid, args, stream=None, grid_checked=False):
        """Launches on ``grid`` (1 to 3 ints, or a callable of the metadata) with ``args`` in
        parameter order. ``grid_checked``: the caller already normalized grid to a valid
        (x, y, z) (kiln.jit does)."""
        if not grid_checked:
            if callable(grid):  # Triton style: grid computed from the metadata
                grid = grid(self.metadata)
            grid = validate_grid(grid)
        values = self.prepare_args(args)
        func = self._ensure_loaded()
        if stream is None:
            stream = default_stream()
        ctas = int(self.metadata.get("num_ctas", 1))
        if ctas > 1:
            # Each program is a cluster of num_ctas CTAs, consecutive along x (Triton's grid
            # counts clusters): CTA x belongs to program x // num_ctas.
            if grid[0] * ctas > 2**31 - 1:
                raise ValueError(f"kernel {self.name!r}: grid x {grid[0]} times num_ctas "
                                 f"{ctas} exceeds 2^31 - 1 CTAs")
            grid = (grid[0] * ctas,) + tuple(grid[1:])
        arg_types = self.arg_types
        scratch = int(self.metadata.get("global_scratch", 0))
        if scratch:
            # The kernel's hidden last argument: scratch bytes per CTA, for every CTA.
            from .scratch import allocate
            ctas_total = grid[0] * grid[1] * grid[2]
            memory = allocate(scratch * ctas_total, 128, stream)
            arg_types = list(arg_types) + ["*i8"]
            values = list(values) + [memory.data_ptr()]
        try:
            if ctas > 1:
                # One hardware cluster per program (cuLaunchKernelEx): its CTAs are
                # co-scheduled, and cluster rank = CTA x mod num_ctas, the rank the code uses.
                self.driver.launch(func, grid, self.block, self.shared, stream,
                                   arg_types, values, cluster=ctas)
            else:
                self.driver.launch(func, grid, self.block, self.shared, stream,
                                   arg_types, values)
        except (ValueError, TypeError) as e:
            # The native packer names arguments by index; name them as the
            # kernel does.
            msg = str(e)
            m = re.match(r"argument (\d+)", msg)
            if m and int(m.group(1)) < len(self._arg_param):
                param = self.params[self._arg_param[int(m.group(1))]]
                msg = f"{msg} [parameter {param['name']!r}]"
            raise type(e)(f"kernel {self.name!r}: {msg}") from e

    def fast_launcher(self, inputs, runtime, types=None):
        """A function ``f(gx, gy, gz, stream, *values)`` launching this kernel as
        ``launch((gx, gy, gz), args, stream, grid_checked=True)`` does, generated for one
        kind of each argument so that a warm launch runs no generic loop (kiln.jit's warm
        path calls it).

        ``inputs``: ``(name, kind)`` of what the caller passes after ``stream``, ``kind`` one
        of "tensor" (an object with data_ptr(), passed as two values: the object and its
        data_ptr()), "int", "float", "bool" (of exactly those types) and "desc" (a tensor
        descriptor whose kind this kernel already accepted). ``runtime``: the input names
        this kernel's parameters take, in order. ``types``: the type of a "tensor" input
        where the caller knows it (a torch.Tensor is then asked ``is_cpu``, one C getter,
        rather than for a device object and its type name). The grid must be valid
        (1 <= x < 2**31, y and z below 65536). Whatever the generated checks do not expect (a CPU tensor, a
        misaligned address, a value out of range, an unloaded module, a stream that is not an
        int) goes to launch() itself, so the errors are its own."""
        names = {name: f"a{i}" for i, (name, _) in enumerate(inputs)}
        params = []
        for name, kind in inputs:
            params.append(names[name])
            if kind == "tensor":
                params.append("p" + names[name])
        general = (f"K.launch((gx, gy, gz), [{', '.join(names[n] for n in runtime)}], "
                   f"stream, grid_checked=True)")
        env = {"K": self}
        fast = self._fast_body(dict(inputs), names, runtime, env, types or {})
        lines = [f"def launch(gx, gy, gz, stream, {', '.join(params)}):"]
        if fast is None:  # nothing to gain: launch() as it is
            lines.append(f"  {general}")
        else:
            checks, call, native = fast
            lines += ["  try:"] + [f"    {line}" for line in checks]
            lines += ["  except _FALLBACK:", f"    return {general}"]
            lines += [f"  {line}" for line in call]
        code = "\n".join(lines) + "\n"
        exec(compile(code, f"<kiln launch {self.name}>", "exec"), env)  # noqa: S102
        python = env["launch"]
        python.code = code
        if fast is None or native is None or _fastlaunch is None:
            return python
        # The same launch in C (kiln/_fastlaunch.abi3.so), which hands every call it is not
        # sure of to the Python function above, unchanged.
        from .. import _runtime
        tensor = getattr(sys.modules.get("torch"), "Tensor", None)
        driver = self.driver

        def desc_fields(desc, rank):
            """(tensor map bytes, shape, strides) of a descriptor, as the Python launcher
            reads them, or None (then the Python launcher decides)."""
            m, sh, st = desc._tensor_map(driver), desc.shape, desc.strides
            if type(m) is not bytes or sh is None or st is None:
                return None
            return m, tuple(sh), tuple(st)
        plan = _runtime._plan(self.arg_types)
        return _fastlaunch.Launcher(
            python, self, _runtime._lib, _entry_address, _runtime._check, globals(),
            default_stream, tensor, _on_cpu, desc_fields, driver.backend,
            tuple(int(b) for b in self.block), int(self.shared), plan.size, tuple(native),
            tuple(plan.offsets))

    def _fast_body(self, kinds, names, runtime, env, types):
        """(the lines of fast_launcher's function that check and pack, refusing with
        _REFUSE; the lines of the native call), or None where this kernel or driver takes
        launch() as it is."""
        from .driver import Driver
        try:
            from .. import _runtime
        except ImportError:
            return None
        driver = self.driver
        if (type(driver).launch is not Driver.launch or getattr(driver, "_rt", None)
                is not _runtime or int(self.metadata.get("num_ctas", 1)) > 1
                or int(self.metadata.get("global_scratch", 0)) or len(runtime) != len(self._plan)):
            return None
        packer = _runtime.fast_struct(self.arg_types)
        if packer is None:
            return None
        plan = _runtime._plan(self.arg_types)
        if packer.size != plan.size:
            return None
        ctypes = _runtime.ctypes
        env.update(_remember=_remember, RAW=_RAW_LAUNCH, UNPROTOTYPED=_runtime.unprototyped,
                   U64=ctypes.c_uint64, SIZE=ctypes.c_size_t(plan.size),
                   COUNT=ctypes.c_size_t(plan.count))
        env.update(_FALLBACK=(_Fallback, _runtime.struct.error, OverflowError),
                   _REFUSE=_Fallback, PACK=packer.pack, LIB=_runtime._lib,
                   CHECK=_runtime._check, DRV=driver, BACKEND=_runtime._b(driver.backend),
                   C_OFFSETS=plan.c_offsets, default_stream=default_stream,
                   storage_bytes=storage_bytes)
        # The C launcher's plan: (kind, offset, divisibility) per argument, None where it
        # has no such checks (descriptors, pointer ranges).
        native = []
        checks = ["func = K._function",
                  "if func is None or stream is not None and type(stream) is not int:",
                  "  raise _REFUSE"]
        values = []
        first = {}  # a parameter's first entry of the argument buffer
        for j, i in enumerate(self._arg_param):
            first.setdefault(i, j)
        for i, ((kind, name, divisibility, range_bytes), var) in enumerate(
                zip(self._plan, runtime)):
            a, ty, want = names[var], self.params[i]["type"], kinds[var]
            at = plan.offsets[first[i]]
            if kind == _POINTER:
                if want != "tensor":
                    return None
                p = "p" + a
                torch = sys.modules.get("torch")
                tensor = getattr(torch, "Tensor", None)
                if types.get(var) is tensor is not None and hasattr(tensor, "is_cpu"):
                    # torch.Tensor itself: is_cpu is device.type == "cpu" (_pointer's test)
                    env["TORCH_TENSOR"] = tensor
                    checks += [f"if type({a}) is not TORCH_TENSOR or {a}.is_cpu:",
                               "  raise _REFUSE"]
                else:
                    checks += [f"d = getattr({a}, 'device', None)",
                               f"if getattr(d, 'type', d) == 'cpu' or d is None and "
                               f"getattr({a}, 'is_cuda', None) is False:",
                               "  raise _REFUSE"]
                if range_bytes:
                    checks += [f"n = storage_bytes({a})",
                               f"if n is not None and n > {int(range_bytes)}:",
                               "  raise _REFUSE"]
                if divisibility:
                    checks += [f"if {p} % {int(divisibility)}:", "  raise _REFUSE"]
                values.append(p)
                if native is not None and not range_bytes:
                    native.append(("p", at, int(divisibility or 0), ()))
                else:
                    native = None
            elif kind == _DESC:
                if want != "desc":
                    return None
                # A descriptor's fields are read-only: what it packs to is remembered for the
                # last one seen here (by weak reference: the memo keeps no tensor alive).
                rank = _desc_rank(self._descs[i])
                memo = f"M{a}"
                env[memo] = [None]
                fields = ", ".join([f"m{a}"] + [f"sh{a}[{r}]" for r in range(rank)] +
                                   [f"st{a}[{r}]" for r in range(rank)])
                checks += [f"last = {memo}[0]",
                           f"if last is not None and last[0]() is {a}:",
                           f"  v{a} = last[1]",
                           "else:",
                           f"  m{a} = {a}._tensor_map(DRV)",
                           f"  sh{a}, st{a} = {a}.shape, {a}.strides",
                           f"  if type(m{a}) is not bytes or len(m{a}) != "
                           f"{_runtime.TENSOR_MAP_BYTES} or sh{a} is None or st{a} is None "
                           f"or len(sh{a}) != {rank} or len(st{a}) != {rank}:",
                           "    raise _REFUSE",
                           f"  v{a} = ({fields},)",
                           f"  {memo}[0] = _remember({a}, v{a})"]
                values.append(f"*v{a}")
                if native is not None:
                    native.append(("D", at, 0, tuple(
                        plan.offsets[first[i] + 1 + r] for r in range(2 * rank))))
            else:
                expected = {"int": ("i32", "i64", "u64"), "float": ("fp32", "fp64"),
                            "bool": ("i1",)}.get(want, ())
                if ty not in expected or divisibility and want != "int":
                    return None
                if divisibility:
                    checks += [f"if {a} % {int(divisibility)}:", "  raise _REFUSE"]
                values.append(a)
                kind_code = _NATIVE_KINDS.get(ty)
                if native is not None and kind_code is not None:
                    native.append((kind_code, at, int(divisibility or 0), ()))
                else:
                    native = None
        checks += [f"buf = PACK({', '.join(values)})",
                   "s = default_stream() if stream is None else stream"]
        block = ", ".join(str(int(b)) for b in self.block)
        # The native call as kiln._runtime.launch makes it; through the entry point without
        # argtypes (64-bit values as ctypes objects, the rest 32-bit ints in range) while the
        # library's entry is the one seen here (tests and benchmarks replace it).
        call = ["launch = LIB.kiln_rt_launch",
                "seen = RAW[0]",
                "if seen[0] is not launch:",
                "  seen = RAW[0] = (launch, UNPROTOTYPED(launch))",
                "raw = seen[1]",
                "if raw is not None:",
                f"  rc = raw(BACKEND, U64(func), gx, gy, gz, {block}, 1, {int(self.shared)}, "
                f"U64(s), buf, SIZE, C_OFFSETS, COUNT)",
                "else:",
                f"  rc = launch(BACKEND, func, gx, gy, gz, {block}, 1, {int(self.shared)}, s, "
                f"buf, {plan.size}, C_OFFSETS, {plan.count})",
                "if rc:",
                "  CHECK(rc)"]
        if native is not None and (plan.size > 2048 or len(plan.offsets) > 128 or any(
                len(n[3]) > 10 for n in native)):
            native = None
        return checks, call, native

    def __getitem__(self, grid):
        """Triton-style launch: kernel[grid](*args, stream=None)."""
        def run(*args, stream=None):
            self.launch_warm(grid, args, stream)
        return run

    def launch_warm(self, grid, args, stream=None):
        """launch(grid, args, stream), through a launcher learnt for these argument kinds
        (fast_launcher's, the C one where built) once the module is loaded: an AOT bundle's
        or a LoadedKernel's own repeated launches then cost what kiln.jit's warm ones do.
        Anything unusual (a callable grid, a None or other argument, a value the launcher
        refuses) takes launch() itself, whose errors are the only ones."""
        g = _grid3(grid)
        kinds = _arg_kinds(args) if g is not None and self._function is not None else None
        if kinds is None:
            return self.launch(grid, args, stream)
        fast = self._warm.get(kinds)
        if fast is None:
            if len(self._warm) >= _MAX_WARM_KINDS:
                return self.launch(grid, args, stream)
            names = [f"a{i}" for i in range(len(args))]
            inputs = [(n, k if type(k) is str else k[0]) for n, k in zip(names, kinds)]
            types = {n: k[1] for n, k in zip(names, kinds) if type(k) is tuple}
            fast = self._warm[kinds] = self.fast_launcher(inputs, names, types)
        values = []
        for a, k in zip(args, kinds):
            values.append(a)
            if type(k) is tuple:  # a tensor: the object and its address
                values.append(a.data_ptr())
        return fast(g[0], g[1], g[2], stream, *values)

    def close(self):
        """Unloads the module; a later launch loads it again."""
        if self._module is not None:
            module, self._module, self._function = self._module, None, None
            self.driver.unload_module(module)
