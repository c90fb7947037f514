"""Shared memory holding pointers (Gluon's, after Triton 3.8) without a GPU: buffers of
``*T`` elements allocated with a tensor of pointers, stored, scattered, loaded and gathered
compile for sm_90a and gfx942 (8 bytes an element), and the verifier's message for other
element types. test/gpu/test_shared_pointers.py runs them."""

from __future__ import annotations

import pytest

import kiln
import kiln.language as kl

import compiled
import gluon_later_kernels as K

pytestmark = compiled.needs_compiler


@pytest.mark.parametrize("target", ["cuda:sm_90a", "hip:gfx942"])
@pytest.mark.parametrize("write", ["local_alloc", "local_store", "local_scatter"])
@pytest.mark.parametrize("read", ["local_load", "local_gather"])
def test_pointer_buffers_compile(target, write, read):
    warp = 32 if target.startswith("cuda") else 64
    k = kiln.compile(K.pointers_kernel, {"src": "*i32", "idx": "*i32", "out": "*i32"},
                     {"BLOCK": 8 * warp, "layout": kl.BlockedLayout([2], [warp], [4], [0]),
                      "WRITE": write, "READ": read}, target=target, num_warps=4, cache=False)
    assert "memdesc<" + str(8 * warp) + "x!tile.ptr<i32>" in k.asm["tile"]
    assert k.metadata["shared"] >= 8 * 8 * warp  # 8 bytes an element
