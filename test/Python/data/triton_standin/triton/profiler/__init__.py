"""Proton, as Triton installs it (``triton.profiler``): only its kernel language here."""

from . import language  # noqa: F401
