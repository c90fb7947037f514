"""Two warp groups taking turns through named barriers (kiln.language.nvidia.named_barrier):
each waits at its own barrier and arrives at the other's. Compiled by
test_named_barrier_dsl.py, run by test/gpu/test_named_barrier.py."""

import kiln
import kiln.language as kl
from kiln.language.nvidia import named_barrier


@kiln.jit
def _turns(log, n, GROUP: kl.constexpr):
    # Turn i of group g writes entry 2 i + g: one more than the entry before it, which the
    # other group wrote in its previous turn (0 before the first).
    if GROUP == 1:
        named_barrier.arrive(0, 256)  # group 0 goes first
    for i in range(n):
        named_barrier.sync(GROUP, 256)
        at = 2 * i + GROUP
        prev = kl.load(log + at - 1, mask=at > 0, other=0)
        kl.store(log + at, prev + 1)
        # The last turn of group 1 hands nothing on: every phase is completed.
        if GROUP == 0 or i + 1 < n:
            named_barrier.arrive(1 - GROUP, 256)


@kiln.jit
def ping_pong(log, n):
    """log[k] = k + 1 for k < 2 n, written alternately by the kernel's warp group (even k)
    and a 4-warp worker partition (odd k), each entry from the one before it."""
    kl.warp_specialize([(_turns, (log, n, 0)), (_turns, (log, n, 1))], [4], [128])


@kiln.jit
def bad_id(x):
    named_barrier.sync(14, 128)  # E:bad-id


@kiln.jit
def bad_count(x):
    named_barrier.arrive(0, 100)  # E:bad-count


@kiln.jit
def runtime_id(x, i):
    named_barrier.sync(i, 128)  # E:runtime-id
