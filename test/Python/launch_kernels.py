"""A kernel with fla's AttnRes-forward launch shape -- every argument by name, a tuple of
tensors, None for the optional pointers, constexpr flags and a warp count given twice (NW and
num_warps) -- shared by the launch-path tests (test_launch_fast_path.py on a stubbed driver,
test/gpu/test_triton_autotune_gpu.py on a GPU) and bench/launch_overhead.py --keywords."""

import kiln
import kiln.language as kl


@kiln.jit
def attn_like(q, res, w, ow, o, o_pre, N, L: kl.constexpr, BLOCK: kl.constexpr,
              HAS_OW: kl.constexpr, SAVE: kl.constexpr, NW: kl.constexpr):
    layout: kl.constexpr = kl.BlockedLayout([1], [32], [NW], [0])
    offs = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK, layout)
    m = offs < N
    acc = kl.load(q + offs, mask=m)
    for i in kl.static_range(L):
        acc += kl.load(res[i] + offs, mask=m)
    if HAS_OW:
        acc = acc * kl.load(ow + offs, mask=m)
    if SAVE:
        kl.store(o_pre + offs, acc, mask=m)
    kl.store(o + offs, acc * kl.load(w + offs, mask=m), mask=m)
