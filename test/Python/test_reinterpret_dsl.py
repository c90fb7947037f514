"""``shared_memory_descriptor._reinterpret(dtype, shape, layout)`` (Gluon's name): a view's
bytes seen as a whole buffer of another type, shape and layout. Compiled here; launched by
test/gpu/test_reinterpret.py."""

import pytest

import kiln
import kiln.language as kl
from kiln.compiler.errors import CompilationError

import compiled
import located

pytestmark = compiled.needs_compiler

S1 = kl.SwizzledSharedLayout(vec=1, per_phase=1, max_phase=1, order=[0])
S2 = kl.SwizzledSharedLayout(vec=1, per_phase=1, max_phase=1, order=[1, 0])
L2 = kl.BlockedLayout([1, 1], [1, 32], [1, 4], [1, 0])
L1 = kl.BlockedLayout([1], [32], [4], [0])


@kiln.jit
def second_half_as_i32(in_ptr, out_ptr, BLOCK: kl.constexpr, X: kl.constexpr, Y: kl.constexpr):
    # Gluon's test_slice_reinterpret: the second half of an int8 buffer holds an int32 tile
    # while the first half is zeroed; the tile must come back intact.
    smem = kl.allocate_shared_memory(kl.int8, [BLOCK], S1)
    first = smem.slice(0, BLOCK // 2)
    second = smem.slice(BLOCK // 2, BLOCK // 2)._reinterpret(kl.int32, [X, Y], S2)
    offs = kl.arange(0, X, kl.SliceLayout(1, L2))[:, None] * Y + \
        kl.arange(0, Y, kl.SliceLayout(0, L2))[None, :]
    second.store(kl.load(in_ptr + offs))
    first.store(kl.zeros([BLOCK // 2], kl.int8, L1))
    kl.store(out_ptr + offs, second.load(L2))


@kiln.jit
def f32_as_halves(in_ptr, out_ptr, N: kl.constexpr):
    # The bytes of N f32 read back as 2N f16 (little-endian halves), compared on the GPU with
    # torch's view(float16).
    buf = kl.allocate_shared_memory(kl.float32, [N], S1)
    r = kl.arange(0, N, L1)
    buf.store(kl.load(in_ptr + r))
    h = buf._reinterpret(kl.float16, [2 * N], S1)
    r2 = kl.arange(0, 2 * N, L1)
    kl.store(out_ptr + r2, h.load(L1))


@kiln.jit
def whole_ring_flat(in_ptr, out_ptr, N: kl.constexpr):
    # A ring of N one-element slots (Gluon's multi-buffered [N, 1] with a rank-1 layout, as
    # lmdeploy caches its block scales) reinterpreted as one [N] buffer: stored flat, read back
    # slot by slot.
    ring = kl.allocate_shared_memory(kl.float32, [N, 1], S1)
    flat = ring._reinterpret(kl.float32, [N], S1)
    r = kl.arange(0, N, L1)
    flat.store(kl.load(in_ptr + r))
    kl.thread_barrier()
    one: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    for i in kl.static_range(N):
        kl.store(out_ptr + i + kl.arange(0, 1, one), ring.index(i).load(one))


def test_reinterpret_compiles():
    k = kiln.compile(second_half_as_i32, {"in_ptr": "*i32", "out_ptr": "*i32"},
                     {"BLOCK": 2048, "X": 32, "Y": 8}, target="cuda:sm_90a", cache=False)
    assert k.metadata["shared"] == 2048
    # The int32 view starts 1024 bytes in.
    assert "+1024]" in k.asm["ptx"]
    kiln.compile(f32_as_halves, {"in_ptr": "*fp32", "out_ptr": "*fp16"}, {"N": 256},
                 target="cuda:sm_90a", cache=False)
    k = kiln.compile(whole_ring_flat, {"in_ptr": "*fp32", "out_ptr": "*fp32"}, {"N": 16},
                     target="cuda:sm_90a", cache=False)
    assert k.metadata["shared"] == 64


@kiln.jit
def part_of_ring():
    ring = kl.allocate_shared_memory(kl.float32, [4, 8], S1)
    ring.slice(0, 2)._reinterpret(kl.float32, [16], S1)  # E:part


def test_reinterpret_of_part_of_a_ring_is_an_error():
    with pytest.raises(CompilationError) as info:
        kiln.compile(part_of_ring, {}, {}, target="cuda:sm_90a", cache=False)
    located.assert_located(info.value, __file__.replace(".pyc", ".py"), "E:part",
                           "ring.slice(0, 2)._reinterpret",
                           r"_reinterpret: .* is a part of a ring of buffers; reinterpret one "
                           r"slot or the whole ring", CompilationError)


@kiln.jit
def too_big(BLOCK: kl.constexpr):
    smem = kl.allocate_shared_memory(kl.int8, [BLOCK], S1)
    smem.slice(0, BLOCK // 2)._reinterpret(kl.int32, [BLOCK // 2], S1)  # E:big


def test_reinterpret_past_the_view_is_an_error():
    with pytest.raises(CompilationError) as info:
        kiln.compile(too_big, {}, {"BLOCK": 2048}, target="cuda:sm_90a", cache=False)
    located.assert_located(info.value, __file__.replace(".pyc", ".py"), "E:big",
                           "smem.slice(0, BLOCK // 2)._reinterpret",
                           r"_reinterpret: \(1024,\) x int32 needs 4096 bytes; the view .* holds "
                           r"1024 \(a reinterpreted view keeps to the view's own bytes: reaching "
                           r"into the next ring slots would run past the allocation from its last "
                           r"slot\)", CompilationError)
