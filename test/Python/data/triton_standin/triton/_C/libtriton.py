"""Triton's C extension, as far as the kernels here reach it: ``ir.PROPAGATE_NAN``, the enum
that triton.language exports as ``PropagateNan`` (a pybind11 enum: members print as
``PROPAGATE_NAN.ALL``)."""

import enum
import types


class PROPAGATE_NAN(enum.Enum):
    NONE = 0
    ALL = 0xFFFF


PROPAGATE_NAN.__module__ = "triton._C.libtriton.ir"
ir = types.SimpleNamespace(PROPAGATE_NAN=PROPAGATE_NAN)
