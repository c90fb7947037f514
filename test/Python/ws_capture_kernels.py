"""Worker partitions that use scalars the kernel's warps compute from memory or control flow
(a length loaded from memory, a scale, a loop's result, a branch's): passed through shared
memory by the lowering. Compiled by test_warp_specialize_dsl.py, run by
test/gpu/test_ws_captures.py."""

import kiln
import kiln.language as kl


@kiln.jit
def _default(out, n, scale, total, BLOCK: kl.constexpr):
    layout: kl.constexpr = kl.BlockedLayout([1], [32], [kl.num_warps()], [0])
    offs = kl.arange(0, BLOCK, layout)
    kl.store(out + offs, (offs + n).to(kl.float32) * scale + total, mask=offs < BLOCK)


@kiln.jit
def _worker(out, n, scale, total, pick, BLOCK: kl.constexpr):
    layout: kl.constexpr = kl.BlockedLayout([1], [32], [kl.num_warps()], [0])
    offs = kl.arange(0, BLOCK, layout)
    v = (offs * n).to(kl.float32) * scale - total + pick.to(kl.float32)
    kl.store(out + BLOCK + offs, v, mask=offs < n)


@kiln.jit
def ws_scalar_captures(out, lens, scales, m, BLOCK: kl.constexpr):
    n = kl.load(lens + kl.program_id(0))          # from memory
    scale = kl.load(scales)                        # a float from memory
    total = 0.0
    for i in range(m):                             # a loop's result
        total += kl.load(scales + 1 + i)
    if n > 3:                                      # a branch's result
        pick = n * 2
    else:
        pick = n - 1
    kl.warp_specialize([
        (_default, (out, n, scale, total, BLOCK)),
        (_worker, (out, n, scale, total, pick, BLOCK)),
    ], [1], [24])


@kiln.jit
def _tensor_worker(out, t, BLOCK: kl.constexpr):
    kl.store(out + BLOCK + kl.arange(0, BLOCK, kl.BlockedLayout([1], [32], [1], [0])),
             kl.convert_layout(t, kl.BlockedLayout([1], [32], [1], [0])))  # E:tensor


@kiln.jit
def _nothing(out, t, BLOCK: kl.constexpr):
    pass


@kiln.jit
def ws_tensor_capture(out, BLOCK: kl.constexpr):
    layout: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    t = kl.load(out + kl.arange(0, BLOCK, layout))
    kl.warp_specialize([(_nothing, (out, t, BLOCK)), (_tensor_worker, (out, t, BLOCK))],
                       [1], [24])
