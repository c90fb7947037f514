"""Kiln's flip, sort, argmax, argmin and item (the Python that builds their IR) run on a numpy
stand-in for the semantic layer: checks the algorithms (Triton's hypercube swaps, its bitonic
network, the two-reduction argmax with ties to the left) without a GPU. The lowering of what
they build is checked by test_gluon_surface.py (compiled) and test/gpu/test_surface_methods.py
(numerics against torch)."""
import numpy as np
import pytest
import kiln.language as kl
from kiln.language import _tensor_methods as TM
from kiln.language._core import distributed_type, tensor
NP = {"fp32": np.float32, "int32": np.int32, "int1": np.bool_, "int64": np.int64, "fp16": np.float16, "int16": np.int16}
LAY = kl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
def T(a, dt):
    a = np.asarray(a, NP[dt.name])
    return tensor(a, distributed_type(dt, a.shape, LAY) if a.ndim else dt)
class Sem:
    def as_tensor(self, v, dt=None):
        if isinstance(v, tensor): return v
        return T(np.array(v), dt or (kl.float32 if isinstance(v, float) else kl.int32))
    def require_constexpr(self, v, what): return getattr(v, "value", v)
    def _require_fixed(self, x, what): pass
    def reshape(self, x, shape): return T(x.handle.reshape(shape), x.dtype)
    def convert_layout(self, x, lay): return x
    def cast(self, x, dt, bitcast=False):
        return T(x.handle.view(NP[dt.name]) if bitcast else x.handle.astype(NP[dt.name]), dt)
    def binary(self, op, a, b):
        a, b = self.as_tensor(a), self.as_tensor(b, a.dtype)
        f = {"xor": np.bitwise_xor}[op]
        return T(f(a.handle, b.handle), a.dtype)
    def compare(self, op, a, b):
        a, b = self.as_tensor(a), self.as_tensor(b)
        return T(getattr(np, {"eq": "equal", "ne": "not_equal", "gt": "greater"}[op])(a.handle, b.handle), kl.int1)
    def logical(self, op, a, b): return T(a.handle | b.handle, kl.int1)
    def where(self, c, x, y):
        x = self.as_tensor(x); y = self.as_tensor(y, x.dtype)
        return T(np.where(c.handle, x.handle, y.handle), x.dtype)
    def minmax(self, which, a, b):
        return T((np.fmin if which == "min" else np.fmax)(a.handle, b.handle), a.dtype)
    def reduce(self, x, axis, combine, keep_dims=False):
        a = x.handle; parts = [np.take(a, i, axis=axis) for i in range(a.shape[axis])]
        r = T(parts[0], x.dtype)
        for p in parts[1:]: r = combine(r, T(p, x.dtype))
        return T(np.expand_dims(r.handle, axis) if keep_dims else r.handle, x.dtype)
    def reduce_builtin(self, kind, x, axis, keep):
        return self.reduce(x, axis, lambda a, b: self.minmax(kind, a, b), keep)
    def _expand_reduced(self, r, axis, ty): return T(np.expand_dims(r.handle, axis), r.dtype)
    def arange(self, s, e, lay): return T(np.arange(s, e), kl.int32)
    def expand_dims(self, x, d): return T(np.expand_dims(x.handle, d), x.dtype)
    def broadcast_to(self, x, shape): return T(np.broadcast_to(x.handle, shape).copy(), x.dtype)


@pytest.fixture
def sem(monkeypatch):
    import kiln.language._shape_ops as shape_ops
    monkeypatch.setattr(shape_ops, "SliceLayout", lambda dim, parent: parent)  # no layouts here
    return Sem()


@pytest.mark.parametrize("shape", [(16, 32), (4, 8), (1, 64), (8, 2)])
@pytest.mark.parametrize("ties", [False, True])
def test_algorithms_against_numpy(sem, shape, ties):
    rng = np.random.default_rng(sum(shape) + ties)
    x = rng.standard_normal(shape).astype(np.float32)
    if ties:
        x = rng.integers(0, 3, shape).astype(np.float32)
    t = T(x, kl.float32)
    for d in (0, 1):
        assert np.array_equal(TM.flip(t, d, _semantic=sem).handle, np.flip(x, d))
        assert np.array_equal(TM.argmax(t, d, _semantic=sem).handle, x.argmax(d))  # first
        assert np.array_equal(TM.argmin(t, d, _semantic=sem).handle, x.argmin(d))
    assert np.array_equal(TM.sort(t, _semantic=sem).handle, np.sort(x, 1))
    assert np.array_equal(TM.sort(t, None, True, _semantic=sem).handle, np.sort(x, 1)[:, ::-1])
    xi = rng.integers(-5, 5, shape).astype(np.int32)
    assert np.array_equal(TM.sort(T(xi, kl.int32), _semantic=sem).handle, np.sort(xi, 1))


def test_nan_and_item(sem):
    x = np.array([[1.0, np.nan, 3.0, 3.0], [np.nan] * 4], np.float32)
    assert TM.argmax(T(x, kl.float32), 1, _semantic=sem).handle.tolist() == [2, 0]
    assert TM.item(T(np.array([[2.5]], np.float32), kl.float32), _semantic=sem).handle == 2.5
