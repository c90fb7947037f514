"""CDNA3 (gfx942) builtins, as in Gluon's ``amd.cdna3``. Nothing is implemented yet.

What will land here:

* ``buffer_load``: a masked load through a buffer resource descriptor (a scalar base pointer
  plus 32-bit offsets, out-of-range lanes read 0);
* ``buffer_store``: the matching masked store (out-of-range lanes are dropped).
"""

__all__ = []
