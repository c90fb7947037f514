"""Extra device functions under Gluon's module name
(``triton.experimental.gluon.language.extra``): :mod:`kiln.language.extra.libdevice`."""

from . import libdevice  # noqa: F401

__all__ = ["libdevice"]
