"""AMD-only builtins, by architecture, under Gluon's module names
(``triton.experimental.gluon.language.amd``):

* :mod:`kiln.language.amd.cdna3` (gfx942): ``buffer_load``, ``buffer_store``;
* :mod:`kiln.language.amd.hint`: ``sched_barrier`` (a scheduling barrier, Gluon's after
  Triton 3.8);
* :mod:`kiln.language.amd.cdna4` (gfx950): the same, plus ``async_copy``
  (``global_load_to_shared``, ``buffer_load_to_shared``, ``commit_group``, ``wait_group``,
  ``load_shared_relaxed``). The direct-to-LDS copies also compile for gfx942 at 4 bytes, as
  in Triton 3.6; only the widths are chip-specific.

Buffer ops and mfma also compile for CDNA1 / CDNA2 (gfx908, gfx90a; ``AMDMFMALayout``
versions 1 and 2), which have no direct-to-LDS copies.

Like the rest of kiln.language, nothing here may import kiln.compiler or kiln.runtime (see
test/Python/test_layering.py).
"""

from .._core import register_vendor_builtins

# Builtins defined below this package are AMD's (an error on other vendors' targets);
# registered before the submodules define them.
register_vendor_builtins(__name__, "hip:", "AMD")

from . import cdna3, cdna4, hint, warp_pipeline  # noqa: E402,F401
from .warp_pipeline import warp_pipeline_stage  # noqa: E402,F401
from ._layouts import AMDMFMALayout, AMDWMMALayout  # noqa: E402,F401
# Gluon's amd.slice (after Triton 3.6): registers only, so it is vendor-neutral in Kiln.
from .._shape_ops import register_slice as slice  # noqa: E402,F401,A004

# Gluon's libdevice names on AMD targets (the ROCm device libraries), and erf from them.
from . import _libdevice  # noqa: E402
from ..nvidia import libdevice as _nv_libdevice  # noqa: E402  (Gluon's extra.libdevice)
from .._core import register_library_math  # noqa: E402

_nv_libdevice.register_target_library("hip:", _libdevice.NAMES, _libdevice.call)
register_library_math("hip:", "erf", _libdevice.library_erf)
del _nv_libdevice, register_library_math

__all__ = ["cdna3", "cdna4", "hint", "warp_pipeline", "warp_pipeline_stage", "AMDMFMALayout",
           "AMDWMMALayout", "slice"]
