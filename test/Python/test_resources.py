"""Shared memory beyond the target's limit is a compile-time OutOfResources error."""
import pytest

import kiln
import kiln.language as kl

_compiler = pytest.importorskip("kiln._compiler", reason="kiln._compiler is not built")


@kiln.jit
def transpose_tile(x, out, BLOCK: kl.constexpr, src: kl.constexpr, dst: kl.constexpr):
    r = kl.arange(0, BLOCK, kl.SliceLayout(1, src))
    c = kl.arange(0, BLOCK, kl.SliceLayout(0, src))
    v = kl.load(x + r[:, None] * BLOCK + c[None, :])
    v = kl.convert_layout(v, dst)
    r2 = kl.arange(0, BLOCK, kl.SliceLayout(1, dst))
    c2 = kl.arange(0, BLOCK, kl.SliceLayout(0, dst))
    kl.store(out + c2[None, :] * BLOCK + r2[:, None], v)


def _compile(block, target, warp):
    src = kl.BlockedLayout([1, 4], [1, warp], [4, 1], [1, 0])
    dst = kl.BlockedLayout([4, 1], [warp, 1], [1, 4], [0, 1])
    return kiln.compile(transpose_tile, signature={"x": "*fp32", "out": "*fp32"},
                        constexprs={"BLOCK": block, "src": src, "dst": dst},
                        target=target, num_warps=4, cache=False)


def test_shared_memory_is_recorded():
    k = _compile(64, "cuda:sm_90a", 32)
    assert k.metadata["shared"] == 64 * 64 * 4


def test_shared_memory_over_limit():
    # 256 x 256 f32 with 64 lanes: every row and column bit is a lane or a warp of one of the
    # layouts, so the move cannot go in rounds; 256 KiB > gfx942's 64 KiB.
    with pytest.raises(kiln.OutOfResources) as info:
        _compile(256, "hip:gfx942", 64)
    err = info.value
    assert err.required == 256 * 256 * 4 and err.limit == 65536 and err.name == "shared memory"
    assert "out of resources" in str(err) and "hip:gfx942" in str(err)
    # The error points at the user's convert_layout line.
    assert err.file and err.file.endswith("test_resources.py")
    assert "convert_layout" in (err.source_line or str(err))


def test_convert_past_the_limit_goes_in_rounds():
    # 256 x 256 f32 = 256 KiB > sm_90a's 227 KiB: rows and columns 128 are held by registers
    # in both layouts, so the move stages half the tile at a time (two rounds of 128 KiB).
    k = _compile(256, "cuda:sm_90a", 32)
    assert k.metadata["shared"] == 128 * 1024
    one = _compile(128, "cuda:sm_90a", 32)
    assert one.metadata["shared"] == 128 * 128 * 4
    # Each round is barrier, store, barrier, load: two more barriers than one round.
    assert k.asm["ptx"].count("bar.sync") == one.asm["ptx"].count("bar.sync") + 2


@kiln.jit
def big_buffer(x, BLOCK: kl.constexpr, L: kl.constexpr, S: kl.constexpr):
    r = kl.arange(0, BLOCK, kl.SliceLayout(1, L))
    c = kl.arange(0, BLOCK, kl.SliceLayout(0, L))
    buf = kl.allocate_shared_memory(kl.float32, [BLOCK, BLOCK], S)  # E:buf
    buf.store(kl.load(x + r[:, None] * BLOCK + c[None, :]))
    kl.store(x + r[:, None] * BLOCK + c[None, :], buf.load(L) + 1.0)


def test_buffer_over_limit():
    L = kl.BlockedLayout([1, 4], [1, 32], [4, 1], [1, 0])
    S = kl.SwizzledSharedLayout(1, 1, 1, [1, 0])
    with pytest.raises(kiln.OutOfResources) as info:
        kiln.compile(big_buffer, signature={"x": "*fp32"},
                     constexprs={"BLOCK": 256, "L": L, "S": S}, target="cuda:sm_90a",
                     num_warps=4, cache=False)
    err = info.value
    assert err.required == 256 * 256 * 4 and err.limit == 232448
    assert "allocate_shared_memory" in (err.source_line or str(err))
