"""Extra device functions under Gluon's module name
(``triton.experimental.gluon.language.extra``): ``libdevice``, which
:mod:`kiln.language` installs here from the vendor package that implements it."""

__all__ = ["libdevice"]
