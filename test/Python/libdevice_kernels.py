"""Kernels calling Gluon's ``extra.libdevice`` functions by name (a constexpr), shared by
test_libdevice_dsl.py (every signature compiles) and test/gpu/test_libdevice.py (results
against torch)."""

import kiln
import kiln.language as kl
from kiln.language.extra import libdevice

L = kl.BlockedLayout([1], [32], [4], [0])


@kiln.jit
def apply(a, b, c, d, out, NAMES: kl.constexpr, ARITY: kl.constexpr, N: kl.constexpr):
    """out[i * N + j] = NAMES[i](a[j], b[j], ...) for the first ARITY inputs."""
    offs = kl.arange(0, N, L)
    w = kl.load(a + offs)
    x = kl.load(b + offs)
    y = kl.load(c + offs)
    z = kl.load(d + offs)
    for i in kl.static_range(len(NAMES)):
        f = getattr(libdevice, NAMES[i])
        if ARITY == 1:
            r = f(w)
        elif ARITY == 2:
            r = f(w, x)
        elif ARITY == 3:
            r = f(w, x, y)
        else:
            r = f(w, x, y, z)
        kl.store(out + i * N + offs, r)
