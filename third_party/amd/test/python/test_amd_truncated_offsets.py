"""Offsets as AMD kernels in the wild compute them (tokenspeed's MXFP4 MoE GEMMs), compile only:

* direct-to-LDS copies whose offsets were computed in int64 and truncated to int32
  (``offs.to(gl.int32)``): the axis analysis follows contiguity and alignment through
  ``arith.trunci``, so the copy keeps its full width (16 bytes a lane on gfx950, 4 on gfx942)
  instead of being refused as a 1-byte copy;
* buffer loads of a preshuffled weight whose byte offset is a closed form in ``//`` and ``%``
  by powers of two of a non-negative index (``(k // 32) * 512 + ((k // 16) % 2) * 256 +
  k % 16``): 16-byte loads, where byte loads (and a register file full of them) came before."""

import re

import pytest

import kiln
import kiln.language as kl
from kiln.language.amd.cdna4 import async_copy as cp

import compiled

pytestmark = compiled.needs_compiler


@kiln.jit
def copy_tile(x, y, stride, TRUNC: kl.constexpr, COLS: kl.constexpr, VEC: kl.constexpr):
    blk: kl.constexpr = kl.BlockedLayout([1, VEC], [64 * VEC // COLS, COLS // VEC], [4, 1],
                                         [1, 0])
    sh: kl.constexpr = kl.SwizzledSharedLayout(1, 1, 1, [1, 0])
    buf = kl.allocate_shared_memory(kl.int8, [64, COLS], sh)
    r = kl.arange(0, 64, kl.SliceLayout(1, blk))
    c = kl.arange(0, COLS, kl.SliceLayout(0, blk))
    if TRUNC:
        offs = (r[:, None].to(kl.int64) * stride + c[None, :].to(kl.int64)).to(kl.int32)
    else:
        offs = r[:, None] * stride + c[None, :]
    cp.buffer_load_to_shared(buf, x, offs)
    cp.commit_group()
    cp.wait_group(0)
    kl.store(y + r[:, None] * COLS + c[None, :], buf.load(blk))


@pytest.mark.parametrize("target,vec,mnemonic", [("hip:gfx950", 16, "buffer_load_dwordx4"),
                                                 ("hip:gfx942", 4, "buffer_load_dword")])
@pytest.mark.parametrize("trunc", [False, True])
def test_truncated_offsets_keep_the_copy_width(target, vec, mnemonic, trunc):
    c = kiln.compile(copy_tile, {"x": "*i8:16", "y": "*i8:16", "stride": "i32:16"},
                     dict(TRUNC=trunc, COLS=64, VEC=vec), target=target, num_warps=4,
                     cache=False)
    loads = set(re.findall(r"\bbuffer_load_\w+", c.asm["amdgcn"]))
    assert loads == {mnemonic}, loads


def test_truncation_does_not_invent_alignment():
    """A stride without a divisibility of 16 leaves rows unaligned: truncated or not, the
    16-byte copy is refused with the width rule, at the user's line."""
    for trunc in (False, True):
        with pytest.raises(kiln.CompilationError, match=r"async copy rule 'width'"):
            kiln.compile(copy_tile, {"x": "*i8:16", "y": "*i8:16", "stride": "i32"},
                         dict(TRUNC=trunc, COLS=64, VEC=16), target="hip:gfx950",
                         num_warps=4, cache=False)


@kiln.jit
def preshuffled_rows(b, y, K: kl.constexpr):
    blk: kl.constexpr = kl.BlockedLayout([16, 1], [4, 16], [1, 4], [0, 1])
    k = kl.arange(0, K, kl.SliceLayout(1, blk))
    n = kl.arange(0, 64, kl.SliceLayout(0, blk))
    k_part = (k // 32) * 512 + ((k // 16) % 2) * 256 + (k % 16)
    n_part = (n // 16) * (16 * K) + (n % 16) * 16
    v = kl.amd.cdna4.buffer_load(ptr=b, offsets=k_part[:, None] + n_part[None, :])
    kl.store(y + k[:, None] * 64 + n[None, :], v)


@pytest.mark.parametrize("target", ["hip:gfx942", "hip:gfx950"])
def test_division_and_remainder_offsets_load_16_bytes(target):
    c = kiln.compile(preshuffled_rows, {"b": "*u8:16", "y": "*u8:16"}, dict(K=128),
                     target=target, num_warps=4, cache=False)
    loads = re.findall(r"\bbuffer_load_\w+", c.asm["amdgcn"])
    assert loads and set(loads) == {"buffer_load_dwordx4"}, sorted(set(loads))
