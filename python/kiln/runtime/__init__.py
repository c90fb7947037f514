"""Kiln's GPU runtime: drivers, kernel launches and AOT bundles.

Pure Python over the kiln._runtime extension; it knows nothing of MLIR, so
bundles built elsewhere run where no compiler is installed.
"""

from .bundle import Bundle, BundleKernel, load_bundle, write_bundle
from .driver import Driver, get_driver
from .errors import KilnRuntimeError, LaunchTimeOutOfResources, NoDeviceError, OutOfResources
from .launcher import LoadedKernel, default_stream, validate_grid

__all__ = [
    "Bundle", "BundleKernel", "Driver", "KilnRuntimeError", "LaunchTimeOutOfResources",
    "LoadedKernel",
    "NoDeviceError", "OutOfResources", "default_stream", "get_driver",
    "load_bundle", "validate_grid", "write_bundle",
]
