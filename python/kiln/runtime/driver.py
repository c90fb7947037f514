"""The active GPU driver (CUDA or HIP), as seen through kiln._runtime."""

import functools

from . import chips
from .errors import KilnRuntimeError, NoDeviceError

# Backends in order of preference (their chips: kiln.runtime.chips.<backend>).
_BACKENDS = chips.BACKENDS


def _native():
    # Imported late so `import kiln.runtime` works before the extension is built.
    try:
        from kiln import _runtime
    except ImportError as e:
        raise KilnRuntimeError(
            "Kiln's runtime library is not available; run scripts/build-runtime.sh "
            f"or install the kiln wheel (import failed: {e})") from e
    return _runtime


class Driver:
    """Device 0 of one backend. Thin wrapper over kiln._runtime."""

    def __init__(self, backend, native=None):
        self.backend = backend
        self._rt = native if native is not None else _native()

    def __repr__(self):
        return f"Driver({self.backend!r})"

    @functools.cached_property
    def info(self):
        """device_info() of device 0 (name, major, minor, arch, ...)."""
        return dict(self._rt.device_info(self.backend))

    def current_target(self):
        """The Kiln target string for device 0, e.g. 'cuda:sm_90a'."""
        info = self.info
        target, chip = chips.vendor(self.backend).target_for(info)
        if target is None:
            supported = ", ".join(chips.all_targets())
            raise KilnRuntimeError(
                f"unsupported GPU {info['name']!r} ({chip}); Kiln targets "
                f"{supported}")
        return target

    def max_shared_bytes(self):
        """Largest shared memory (LDS) one block may use, opt-in included."""
        return int(self.info["max_shared_per_block_optin"])

    # Pass-throughs, so launcher code (and its tests) depend on this class's
    # interface rather than on the extension.
    def load_module(self, image):
        return self._rt.load_module(self.backend, image)

    def unload_module(self, module):
        self._rt.unload_module(self.backend, module)

    def get_function(self, module, name, shared_bytes):
        return self._rt.get_function(self.backend, module, name, shared_bytes)

    def function_resources(self, func):
        """(registers per thread, local bytes per thread) of a loaded function, -1 each
        where the driver cannot tell."""
        return self._rt.function_resources(self.backend, func)

    def launch(self, func, grid, block, shared_bytes, stream, arg_types, args, cluster=1):
        """``cluster`` > 1: CTAs are launched as hardware clusters of that many along x."""
        self._rt.launch(self.backend, func, grid, block, shared_bytes, stream,
                        arg_types, args, cluster)

    def synchronize(self):
        self._rt.synchronize(self.backend)

    def encode_tensor_map(self, dtype, global_address, dims, strides_bytes, box,
                          element_strides=None, swizzle_bytes=0, oob_nan=False):
        """128 bytes of a tiled TMA tensor map (kiln._runtime.encode_tensor_map; dimension 0
        innermost). A DriverError where the backend has none."""
        return self._rt.encode_tensor_map(self.backend, dtype, global_address, dims,
                                          strides_bytes, box, element_strides,
                                          swizzle_bytes, oob_nan)


    def encode_im2col_tensor_map(self, dtype, global_address, dims, strides_bytes,
                                 lower_corner, upper_corner, channels_per_pixel,
                                 pixels_per_column, element_strides=None, swizzle_bytes=0,
                                 oob_nan=False):
        """128 bytes of an im2col TMA tensor map (kiln._runtime.encode_im2col_tensor_map;
        dimension 0 innermost). A DriverError where the backend has none."""
        return self._rt.encode_im2col_tensor_map(
            self.backend, dtype, global_address, dims, strides_bytes, lower_corner,
            upper_corner, channels_per_pixel, pixels_per_column, element_strides,
            swizzle_bytes, oob_nan)


def select_backend(native):
    """First backend in _BACKENDS that has a device; NoDeviceError otherwise.

    Separate from get_driver() so it can be tested with a fake `native`.
    """
    reasons = {}
    any_library = False
    for backend in _BACKENDS:
        why = native.load_error(backend)
        if why is not None:
            reasons[backend] = why
            continue
        any_library = True
        try:
            count = native.device_count(backend)
        except native.DriverError as e:
            reasons[backend] = str(e)
            continue
        if count > 0:
            return backend
        reasons[backend] = "the driver reports 0 devices"
    detail = "; ".join(f"{b}: {r}" for b, r in reasons.items())
    if not any_library:
        libs = " nor ".join(chips.vendor(b).LIBRARY for b in _BACKENDS)
        raise NoDeviceError(
            f"no GPU driver found: neither {libs} could be loaded ({detail})")
    raise NoDeviceError(f"no GPU device present ({detail})")


@functools.lru_cache(maxsize=None)
def get_driver():
    """The process's driver: CUDA if usable, else HIP. Cached once found."""
    native = _native()
    return Driver(select_backend(native), native)
