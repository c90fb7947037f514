"""Exceptions raised by kiln.runtime.

Driver failures themselves surface as ``kiln._runtime.DriverError`` (a
``RuntimeError``); the classes here cover what the Python layer decides. The bases
(:class:`~kiln.errors.KilnError`, :class:`~kiln.errors.OutOfResources`) come from
:mod:`kiln.errors`, which the compiler shares.
"""

from ..errors import KilnError, OutOfResources

__all__ = ["KilnRuntimeError", "NoDeviceError", "OutOfResources", "LaunchTimeOutOfResources"]


class KilnRuntimeError(KilnError, RuntimeError):
    """Base class for runtime errors raised by Kiln's Python layer."""


class NoDeviceError(KilnRuntimeError):
    """No usable GPU driver, or a driver but no device."""


class LaunchTimeOutOfResources(KilnRuntimeError, OutOfResources):
    """A kernel needs more of a hardware resource than the device offers, found when
    launching. An :class:`kiln.OutOfResources`, like its compile-time sibling."""

    def __init__(self, required, limit, name):
        self.required = required
        self.limit = limit
        self.name = name
        super().__init__(
            f"out of resource: {name}: the kernel requires {required}, "
            f"the device limit is {limit}")

    def __reduce__(self):  # keep picklable despite the custom __init__
        return (type(self), (self.required, self.limit, self.name))
