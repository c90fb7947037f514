"""Kiln kernels written as Gluon kernels are in the wild: Gluon imports swapped for Kiln's,
``triton`` and ``triton.language`` used beside them (``tl.constexpr`` annotations, ``tl`` dtypes
as constexpr arguments, ``triton.cdiv`` at compile time, ``tl.*`` calls, ``@triton.jit``
helpers, a ``tl`` function Triton writes in Python). Imported only where ``triton`` imports:
test_triton_interop.py (a stand-in for Triton's Python objects) and
test/gpu/test_triton_interop_gpu.py (the real Triton)."""

import triton
import triton.language as tl

import kiln
import kiln.language as gl


@triton.jit
def _leaky(x, slope: tl.constexpr):
    # A helper written for Triton: tl.where, tl.maximum, and tl.sigmoid (Triton's own @jit).
    return tl.where(x > 0, x, slope * x) + tl.maximum(x, 0.0) * 0.0 + tl.sigmoid(x) * 0.0


@triton.jit
def _row_sum(x):
    return tl.sum(x, axis=0)


@kiln.jit
def scale_kernel(X, Y, N, BLOCK: tl.constexpr, OUT_DTYPE: tl.constexpr,
                 SLOPE: tl.constexpr):
    layout: gl.constexpr = gl.BlockedLayout([4], [32], [4], [0])
    tl.static_assert(BLOCK % 512 == 0)
    CHUNKS: tl.constexpr = triton.cdiv(BLOCK, 512)
    pid = tl.program_id(0)
    for c in tl.static_range(CHUNKS):
        offs = pid * BLOCK + c * 512 + gl.arange(0, 512, layout)
        mask = offs < N
        x = tl.load(X + offs, mask=mask, other=0.0).to(tl.float32)
        y = _leaky(x, SLOPE) * tl.math.exp2(x * 0.0)
        tl.store(Y + offs, y.to(OUT_DTYPE), mask=mask)


@kiln.jit
def sum_kernel(X, Out, N, BLOCK: tl.constexpr):
    layout: gl.constexpr = gl.BlockedLayout([4], [32], [4], [0])
    offs = gl.arange(0, BLOCK, layout)
    x = gl.load(X + offs, mask=offs < N, other=0.0)
    gl.store(Out + tl.program_id(0), _row_sum(x))


@kiln.jit
def dot_kernel(X):
    layout: gl.constexpr = gl.BlockedLayout([1, 1], [4, 8], [4, 1], [1, 0])
    a = gl.full([16, 16], 1.0, gl.float32, layout)
    tl.dot(a, a)  # E:tl-dot


@tl.core.builtin
def _tuple_append(a, b, _semantic=None):
    # A project's helper written as a Triton builtin (as causal-conv1d kernels do).
    return tl.tuple([*a.values, b])


def _layout_for(ROWS: tl.constexpr, COLS: tl.constexpr):
    # A plain function marked as a Triton builtin that takes no _semantic (aiter's paged
    # attention builds its layouts this way): Triton passes _semantic only to a helper whose
    # signature has it.
    return gl.BlockedLayout([1, COLS // 32], [1, 32], [4, 1], [1, 0])


_layout_for.__triton_builtin__ = True


@kiln.jit
def plain_builtin_kernel(Out, ROWS: tl.constexpr, COLS: tl.constexpr):
    layout: gl.constexpr = _layout_for(ROWS, COLS)
    r = gl.arange(0, ROWS, gl.SliceLayout(1, layout))
    c = gl.arange(0, COLS, gl.SliceLayout(0, layout))
    gl.store(Out + r[:, None] * COLS + c[None, :], (r[:, None] + c[None, :]).to(gl.float32))


@kiln.jit
def tuple_builtin_kernel(X, Out, N: tl.constexpr, W: tl.constexpr):
    layout: gl.constexpr = gl.BlockedLayout([4], [32], [4], [0])
    offs = gl.arange(0, N, layout)
    cols = ()
    for j in tl.static_range(W):
        cols = _tuple_append(cols, gl.load(X + j * N + offs))
    acc = cols[0]
    for j in tl.static_range(1, W):
        acc = acc + cols[j] * (j + 1)
    gl.store(Out + offs, acc)


@tl.core._aggregate
class Tiles:
    # A Triton aggregate whose tensor field is given a folded constexpr (triton.cdiv of
    # constexprs), as persistent-GEMM schedulers do.
    count: gl.tensor
    width: gl.constexpr

    def __init__(self, count, width):
        self.count = count
        self.width = width

    @kiln.jit
    def total(self):
        return self.count * self.width


@kiln.jit
def aggregate_kernel(Out, N: tl.constexpr):
    tiles = Tiles(triton.cdiv(N, 128), gl.constexpr(4))
    gl.store(Out + tl.program_id(0), tiles.total())


@kiln.jit
def none_constexpr_kernel(Out, P: tl.constexpr = None):
    v: tl.constexpr = 1.0 if P.value is None else 2.0
    gl.store(Out, v)


@triton.jit
def _remap(pid, GRID_MN, GROUPS: tl.constexpr = 8):
    # As AMD kernels remap program ids: .type of a value that may be folded to a number.
    tall = GRID_MN % GROUPS
    if tall == 0:
        tall = tl.cast(GROUPS, tall.type)
    return pid % GROUPS + tall


@kiln.jit
def remap_kernel(Out, GRID: tl.constexpr):
    gl.store(Out + tl.program_id(0), _remap(tl.program_id(0), GRID))


@kiln.jit
def nan_max_kernel(X, Y, Out, PROPAGATE: tl.constexpr):
    # tl.PropagateNan read inside the kernel (Primus-Turbo's attention: its NaN-propagating
    # max): Triton's enum, whose ALL member makes the maximum keep NaNs.
    layout: gl.constexpr = gl.BlockedLayout([1], [32], [4], [0])
    offs = gl.arange(0, 128, layout)
    x, y = gl.load(X + offs), gl.load(Y + offs)
    if PROPAGATE:
        m = gl.maximum(x, y, propagate_nan=tl.PropagateNan.ALL)
    else:
        m = gl.maximum(x, y, propagate_nan=tl.PropagateNan.NONE)
    gl.store(Out + offs, m)
