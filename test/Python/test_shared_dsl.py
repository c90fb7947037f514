"""The DSL's shared-memory surface: allocate_shared_memory, .store, .load (Gluon's names),
the IR it emits, and errors at the user's line."""

from __future__ import annotations

import pytest

import kiln
import kiln.language as kl
from kiln.compiler import compiler as compiler_mod

L = kl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
LT = kl.BlockedLayout([4, 1], [8, 4], [1, 4], [0, 1])
SH = kl.SwizzledSharedLayout(4, 1, 8, [1, 0])
SIG = {"x": "*fp32:16", "y": "*fp32:16"}


@kiln.jit
def roundtrip(x, y, SHL: kl.constexpr):
    offs = kl.arange(0, 32, kl.SliceLayout(1, L))[:, None] * 32 + \
        kl.arange(0, 32, kl.SliceLayout(0, L))[None, :]
    buf = kl.allocate_shared_memory(kl.float32, [32, 32], SHL)
    buf.store(kl.load(x + offs))
    again = kl.allocate_shared_memory(kl.float32, [32, 32], SHL, buf.load(LT))
    buf._keep_alive()
    kl.barrier()
    kl.store(y + offs, again.load(L))


def test_emits_local_ops_that_cpp_verifies_and_lowers():
    ir = compiler_mod.make_ir(roundtrip, SIG, {"SHL": SH}, target="cuda:sm_90a")
    assert ir.count('"tile.local_alloc"') == 2
    assert '"tile.local_store"' in ir and ir.count('"tile.local_load"') == 2
    assert ir.count('"tile.barrier"() : () -> ()') == 1
    assert "!tile.memdesc<32x32xf32, #tile.swizzled_shared<{vec = 4, perPhase = 1, " \
           "maxPhase = 8, order = [1, 0]}>, mutable>" in ir
    k = kiln.compile(roundtrip, SIG, {"SHL": SH}, target="cuda:sm_90a", cache=False)
    assert k.metadata["shared"] == 2 * 32 * 32 * 4
    assert k.asm["ptx"].count("st.shared") > 0 and k.asm["ptx"].count("ld.shared") > 0


@kiln.jit
def bad_layout(x):
    kl.allocate_shared_memory(kl.float32, [32, 32], L)


@kiln.jit
def bad_store(x):
    buf = kl.allocate_shared_memory(kl.float32, [32, 32], SH)
    buf.store(kl.full([32, 16], 0.0, kl.float32, L))


@kiln.jit
def bad_rank(x):
    kl.allocate_shared_memory(kl.float32, [1024], SH)


@pytest.mark.parametrize("fn,match", [
    (bad_layout, r"layout must be a shared layout \(e.g. kl.SwizzledSharedLayout\(...\)\)"),
    (bad_store, r"store to shared memory: value .* must be a tensor of shape \(32, 32\)"),
    (bad_rank, r"SwizzledSharedLayout\(.*\) has rank 2 but the shape \(1024,\) has rank 1"),
])
def test_errors_point_at_the_line(fn, match):
    with pytest.raises(kiln.CompilationError, match=match) as ei:
        compiler_mod.make_ir(fn, {"x": "*fp32"}, target="cuda:sm_90a")
    assert ei.value.file == __file__ and ei.value.line is not None
