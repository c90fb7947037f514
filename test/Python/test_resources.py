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


@pytest.mark.parametrize("target,warp,block,limit", [
    ("cuda:sm_90a", 32, 256, 232448),   # 256 KiB of f32 > 227 KiB
    ("hip:gfx942", 64, 128, 65536),     # 64 KiB + 0 is fine, so use 128x128 = 64 KiB? see below
])
def test_shared_memory_over_limit(target, warp, block, limit):
    need = block * block * 4
    if need <= limit:
        block *= 2
        need = block * block * 4
    with pytest.raises(kiln.OutOfResources) as info:
        _compile(block, target, warp)
    err = info.value
    assert err.required == need and err.limit == limit and err.name == "shared memory"
    assert "out of resources" in str(err) and target in str(err)
    # The error points at the user's convert_layout line.
    assert err.file and err.file.endswith("test_resources.py")
    assert "convert_layout" in (err.source_line or str(err))
