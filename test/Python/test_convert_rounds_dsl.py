"""A convert_layout whose tile does not fit in shared memory at once moves in rounds
(tile.scratch_rounds, chosen by tile-allocate-shared-memory): each round stages the part of
the tile whose register-held coordinate bits take one value. These kernels compile here; the
GPU test (test/gpu/test_convert_rounds.py) launches them against torch."""

import pytest

import kiln
import kiln.language as kl

import compiled

pytestmark = compiled.needs_compiler

# 256 x 256 f32 (256 KiB) between a row-major and a column-major blocked layout, 8 warps:
# rows 128 and columns 128 are register bits of both, so up to four rounds.
ROW = kl.BlockedLayout([1, 4], [4, 8], [8, 1], [1, 0])
COL = kl.BlockedLayout([4, 1], [8, 4], [1, 8], [0, 1])
SH = kl.SwizzledSharedLayout(1, 1, 1, [1, 0])


@kiln.jit
def transpose_big(x, out, M: kl.constexpr, N: kl.constexpr, A: kl.constexpr, B: kl.constexpr):
    r = kl.arange(0, M, kl.SliceLayout(1, A))
    c = kl.arange(0, N, kl.SliceLayout(0, A))
    v = kl.load(x + r[:, None] * N + c[None, :])
    w = kl.convert_layout(v * 3.0 - 1.0, B)
    r2 = kl.arange(0, M, kl.SliceLayout(1, B))
    c2 = kl.arange(0, N, kl.SliceLayout(0, B))
    kl.store(out + c2[None, :] * M + r2[:, None], w)


@kiln.jit
def convert_beside_buffer(x, y, out, keep, M: kl.constexpr, N: kl.constexpr,
                          A: kl.constexpr, B: kl.constexpr, S: kl.constexpr):
    # A 128 KiB buffer stays live across a 128 KiB move: the move takes rounds.
    r = kl.arange(0, M, kl.SliceLayout(1, A))
    c = kl.arange(0, N, kl.SliceLayout(0, A))
    offs = r[:, None] * N + c[None, :]
    buf = kl.allocate_shared_memory(kl.float32, [M, N], S, kl.load(y + offs))
    w = kl.convert_layout(kl.load(x + offs), B)
    r2 = kl.arange(0, M, kl.SliceLayout(1, B))
    c2 = kl.arange(0, N, kl.SliceLayout(0, B))
    kl.store(out + r2[:, None] * N + c2[None, :], w + 1.0)
    kl.store(keep + offs, buf.load(A) * 2.0)


def compile_transpose(target="cuda:sm_90a"):
    return kiln.compile(transpose_big, {"x": "*fp32:16", "out": "*fp32:16"},
                        {"M": 256, "N": 256, "A": ROW, "B": COL}, target=target, num_warps=8,
                        cache=False)


def compile_beside(target="cuda:sm_90a"):
    return kiln.compile(convert_beside_buffer,
                        {"x": "*fp32:16", "y": "*fp32:16", "out": "*fp32:16", "keep": "*fp32:16"},
                        {"M": 128, "N": 256, "A": ROW, "B": COL, "S": SH}, target=target,
                        num_warps=8, cache=False)


def test_transpose_of_256_kib_moves_in_two_rounds():
    k = compile_transpose()
    assert k.metadata["shared"] == 128 * 1024


def test_move_beside_a_buffer_takes_rounds():
    k = compile_beside()
    # 128 KiB buffer + the move in rounds of 64 KiB (one round would need 256 KiB).
    assert k.metadata["shared"] == 128 * 1024 + 64 * 1024


def test_rounds_on_gfx950():
    # 160 KiB of LDS, and an AMD target stages a move that alone sets the kernel's LDS while
    # that lowers it (stageDominantLayoutMoves): rows and columns 64 and 128 are registers in
    # both layouts (64 lanes: the layouts' 8 x 8 lanes), so 256 KiB moves in 16 rounds of
    # 16 KiB.
    a = kl.BlockedLayout([1, 4], [8, 8], [8, 1], [1, 0])
    b = kl.BlockedLayout([4, 1], [8, 8], [1, 8], [0, 1])
    k = kiln.compile(transpose_big, {"x": "*fp32:16", "out": "*fp32:16"},
                     {"M": 256, "N": 256, "A": a, "B": b}, target="hip:gfx950", num_warps=8,
                     cache=False)
    assert k.metadata["shared"] == 16 * 1024
