"""Exceptions raised by kiln.runtime.

Driver failures themselves surface as ``kiln._runtime.DriverError`` (a
``RuntimeError``); the classes here cover what the Python layer decides.
"""


class KilnRuntimeError(RuntimeError):
    """Base class for runtime errors raised by Kiln's Python layer."""


class NoDeviceError(KilnRuntimeError):
    """No usable GPU driver, or a driver but no device."""


class OutOfResources(KilnRuntimeError):
    """A kernel needs more of a hardware resource than the device offers."""

    def __init__(self, required, limit, name):
        self.required = required
        self.limit = limit
        self.name = name
        super().__init__(
            f"out of resource: {name}: the kernel requires {required}, "
            f"the device limit is {limit}")

    def __reduce__(self):  # keep picklable despite the custom __init__
        return (type(self), (self.required, self.limit, self.name))
