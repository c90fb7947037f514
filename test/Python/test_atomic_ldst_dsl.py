"""Gluon's ``atomic_load`` / ``atomic_store`` / ``atomic_poll`` (after Triton 3.8): the PTX
each compiles to on sm_90a (ptxas assembles it: kiln.compile builds the cubin), the memory
order and scope in every access, masks as predicates, and the errors at the user's line.
Loads and stores vectorize as plain ones do (Gluon's test_atomic_load_store_vectorization
cases). test/gpu/test_atomic_ldst.py runs them on a GPU (a flag handed between CTAs)."""

from __future__ import annotations

import os
import re

import pytest

import kiln
import kiln.language as kl

import compiled
import gluon_later_kernels as K
import located

pytestmark = compiled.needs_compiler
HERE = os.path.abspath(__file__)
TARGET = "cuda:sm_90a"


@kiln.jit
def load_store_kernel(src, dst, N: kl.constexpr, LSEM: kl.constexpr, SSEM: kl.constexpr,
                      SCOPE: kl.constexpr, MASKED: kl.constexpr):
    offs = kl.arange(0, N, kl.BlockedLayout([1], [32], [4], [0]))
    if MASKED:
        m = offs < N - 3
        v = kl.atomic_load(src + offs, mask=m, sem=LSEM, scope=SCOPE)
        kl.atomic_store(dst + offs, v, mask=m, sem=SSEM, scope=SCOPE)
    else:
        v = kl.atomic_load(src + offs, sem=LSEM, scope=SCOPE)
        kl.atomic_store(dst + offs, v, sem=SSEM, scope=SCOPE)


def ptx_of(kernel, sig, consts, num_warps=4):
    k = kiln.compile(kernel, sig, consts, target=TARGET, num_warps=num_warps, cache=False)
    assert k.asm.get("cubin"), "ptxas did not assemble the kernel"
    return k.asm["ptx"]


WIDTH = {"i8": "b8", "u8": "b8", "i1": "b8", "fp16": "b16", "bf16": "b16", "i16": "b16",
         "i32": "b32", "fp32": "b32", "u32": "b32", "i64": "b64", "fp64": "b64"}


@pytest.mark.parametrize("dt", sorted(WIDTH))
@pytest.mark.parametrize("masked", [False, True])
def test_every_element_is_one_ordered_access(dt, masked):
    # One element per thread: one relaxed access each, the fence after the acquiring load
    # and before the releasing store.
    ptx = ptx_of(load_store_kernel, {"src": f"*{dt}", "dst": f"*{dt}"},
                 {"N": 128, "LSEM": "acquire", "SSEM": "release", "SCOPE": "gpu",
                  "MASKED": masked})
    t = WIDTH[dt]
    ld = re.findall(rf"ld\.relaxed\.gpu\.global\.{t}\b", ptx)
    st = re.findall(rf"st\.relaxed\.gpu\.global\.{t}\b", ptx)
    assert len(ld) == 1 and len(st) == 1, ptx
    # The acquire's fence and the release's, both between the load and the store.
    body = ptx[ptx.index(ld[0]):ptx.index(st[0])]
    assert ptx.count("fence.acq_rel.gpu") == 2 and body.count("fence.acq_rel.gpu") == 2, ptx
    # No plain (unordered) global access of the data.
    assert not re.search(r"\bld\.global\.", ptx) and not re.search(r"\bst\.global\.", ptx)
    assert bool(re.search(r"@%p\d+ ld\.relaxed", ptx)) == masked, ptx


@pytest.mark.parametrize("lsem,ssem,scope", [("relaxed", "relaxed", "cta"),
                                             ("acquire", "relaxed", "sys"),
                                             ("relaxed", "release", "gpu")])
def test_order_and_scope_reach_the_instruction(lsem, ssem, scope):
    ptx = ptx_of(load_store_kernel, {"src": "*i32", "dst": "*i32"},
                 {"N": 128, "LSEM": lsem, "SSEM": ssem, "SCOPE": scope, "MASKED": False})
    assert f"ld.relaxed.{scope}.global.b32" in ptx
    assert f"st.relaxed.{scope}.global.b32" in ptx
    fences = int(lsem == "acquire") + int(ssem == "release")
    assert ptx.count(f"fence.acq_rel.{scope}") == fences, ptx


BITS = {"i1": 8, "i8": 8, "i16": 16, "i32": 32, "i64": 64, "fp16": 16, "fp32": 32, "fp64": 64}


@pytest.mark.parametrize("store", [False, True])
@pytest.mark.parametrize("dt", sorted(BITS))
@pytest.mark.parametrize("stride,offset,group,vec", [(1, 0, 0, 16), (1, 0, 16, 16),
                                                     (1, 0, 8, 8), (1, 0, 4, 4),
                                                     (1, 0, 2, 2), (1, 0, 1, 1),
                                                     (1, 1, 16, 1), (2, 0, 16, 1)])
def test_accesses_vectorize_as_loads_do(store, dt, stride, offset, group, vec):
    # Contiguous, aligned elements under a constant mask travel as one vector of up to
    # 16 bytes: words of up to 32 bits (or 64-bit elements), as Gluon issues them.
    ptx = ptx_of(K.vector_kernel, {"src": f"*{dt}:16", "out": f"*{dt}:16"},
                 {"STRIDE": stride, "OFFSET": offset, "MASK_GROUP": group, "STORE": store},
                 num_warps=1)
    bits = BITS[dt]
    vec = min(vec, 128 // bits)
    word = max(bits, min(32, vec * bits))
    words = vec * bits // word
    suffix = f".v{words}" if words > 1 else ""
    op = "st" if store else "ld"
    found = re.findall(rf"{op}\.relaxed\.gpu\.global(\.v\d)?\.b(\d+)", ptx)
    assert found and set(found) == {(suffix, str(word))}, (found, suffix, word)
    # 16 elements per thread: 16 / vec accesses (masked-off groups are still issued,
    # predicated).
    assert len(found) == 16 // vec


@kiln.jit
def poll_kernel(flag, out, TIMEOUT: kl.constexpr, SEM: kl.constexpr):
    if TIMEOUT < 0:
        ok = kl.atomic_poll(flag, 7, sem=SEM)
    else:
        ok = kl.atomic_poll(flag, 7, sem=SEM, timeout_ns=TIMEOUT)
    kl.store(out, ok.to(kl.int32))


@pytest.mark.parametrize("dt,t", [("i16", "u16"), ("i32", "b32"), ("u64", "b64")])
@pytest.mark.parametrize("timeout", [-1, 0, 1000])
def test_poll_is_a_loop_of_ordered_loads(dt, t, timeout):
    ptx = ptx_of(poll_kernel, {"flag": f"*{dt}", "out": "*i32"},
                 {"TIMEOUT": timeout, "SEM": "acquire"})
    assert re.search(rf"ld\.acquire\.gpu\.global\.{t}\b", ptx), ptx
    assert re.search(r"bra(\.uni)?\s+KILN_POLL", ptx), ptx
    assert ("%globaltimer" in ptx) == (timeout >= 0)


@kiln.jit
def poll_runtime_timeout(flag, out, t):
    kl.store(out, kl.atomic_poll(flag, 1, sem="relaxed", scope="sys", timeout_ns=t).to(kl.int32))


def test_poll_takes_a_runtime_timeout():
    ptx = ptx_of(poll_runtime_timeout, {"flag": "*i32", "out": "*i32", "t": "i64"}, {})
    assert "ld.relaxed.sys.global.b32" in ptx and "%globaltimer" in ptx


def test_scalar_load_returns_a_scalar():
    @kiln.jit
    def k(src, dst):
        v = kl.atomic_load(src, sem="relaxed")
        kl.static_assert(len(v.shape) == 0)
        kl.atomic_store(dst, v + 1, sem="relaxed")

    ptx = ptx_of(k, {"src": "*i32", "dst": "*i32"}, {})
    assert "ld.relaxed.gpu.global.b32" in ptx and "st.relaxed.gpu.global.b32" in ptx


@kiln.jit
def e_load_release(x):
    kl.atomic_load(x, sem="release")  # E:load


@kiln.jit
def e_store_acquire(x):
    kl.atomic_store(x, 1, sem="acquire")  # E:store


@kiln.jit
def e_poll_float(x):
    kl.atomic_poll(x, 1.0)  # E:pollf


@kiln.jit
def poll_tensor(flags, out, TIMEOUT: kl.constexpr):
    offs = kl.arange(0, 128, kl.BlockedLayout([1], [32], [4], [0]))
    matched = kl.atomic_poll(flags + offs, offs + 1, timeout_ns=TIMEOUT)
    kl.store(out + offs, matched)


@pytest.mark.parametrize("timeout", [None, 0])
def test_poll_takes_a_tensor_of_pointers(timeout):
    ptx = ptx_of(poll_tensor, {"flags": "*i32", "out": "*i1"}, {"TIMEOUT": timeout})
    assert re.search(r"ld\.acquire\.gpu\.global\.b32", ptx), ptx
    assert ("%globaltimer" in ptx) == (timeout is not None)


@kiln.jit
def e_poll_shape(x):
    offs = kl.arange(0, 32, kl.BlockedLayout([1], [32], [1], [0]))
    e = kl.arange(0, 64, kl.BlockedLayout([1], [32], [1], [0]))
    kl.atomic_poll(x + offs, e)  # E:pollt


@kiln.jit
def e_poll_negative(x):
    kl.atomic_poll(x, 1, timeout_ns=-5)  # E:polln


@kiln.jit
def e_scope(x):
    kl.atomic_load(x, scope="cluster")  # E:scope


ERRORS = [
    (e_load_release, "*i32", "E:load", "kl.atomic_load",
     r"atomic_load only supports relaxed and acquire semantics, got 'release'"),
    (e_store_acquire, "*i32", "E:store", "kl.atomic_store",
     r"atomic_store only supports relaxed and release semantics, got 'acquire'"),
    (e_poll_float, "*fp32", "E:pollf", "kl.atomic_poll",
     r"atomic_poll only supports integer elements with width \{16, 32, 64\}"),
    (e_poll_shape, "*i32", "E:pollt", "kl.atomic_poll",
     r"shape mismatch in atomic_poll: \(32,\) vs \(64,\)"),
    (e_poll_negative, "*i32", "E:polln", "kl.atomic_poll",
     r"atomic_poll timeout_ns must be non-negative"),
    (e_scope, "*i32", "E:scope", "kl.atomic_load",
     r"atomic_load: scope must be one of cta, gpu, sys, got 'cluster'"),
]


@pytest.mark.parametrize("fn,sig,marker,anchor,message", ERRORS, ids=[e[2] for e in ERRORS])
def test_errors_point_at_the_call(fn, sig, marker, anchor, message):
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(fn, {"x": sig}, {}, target=TARGET, num_warps=1, cache=False)
    located.assert_located(ei.value, HERE, marker, anchor, message, kiln.CompilationError)


def test_amd_is_refused_at_the_call():
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(e_scope, {"x": "*i32"}, {}, target="hip:gfx942", num_warps=1, cache=False)
    assert ("atomic_load is an NVIDIA builtin (kiln.language.nvidia._atomic_ldst); the kernel "
            "is compiled for hip:gfx942, an AMD target") in str(ei.value)


@kiln.jit
def amd_load(x):
    offs = kl.arange(0, 64, layout=kl.BlockedLayout([1], [64], [1], [0]))
    kl.store(x + offs, kl.atomic_load(x + offs, sem="acquire"))  # E:amdload


@kiln.jit
def amd_store(x):
    offs = kl.arange(0, 64, layout=kl.BlockedLayout([1], [64], [1], [0]))
    kl.atomic_store(x + offs, offs, sem="release")  # E:amdstore


@kiln.jit
def amd_poll(x):
    offs = kl.arange(0, 64, layout=kl.BlockedLayout([1], [64], [1], [0]))
    kl.store(x + offs, kl.atomic_poll(x + offs, 1).to(kl.int32))  # E:amdpoll


# The GPU tests skip these three on AMD devices for this reason: Kiln refuses them there, at
# the call (docs/gluon-coverage-later.md).
@pytest.mark.parametrize("fn,marker,anchor,name", [
    (amd_load, "E:amdload", "kl.atomic_load", "atomic_load"),
    (amd_store, "E:amdstore", "kl.atomic_store", "atomic_store"),
    (amd_poll, "E:amdpoll", "kl.atomic_poll", "atomic_poll"),
])
def test_each_is_refused_on_amd_at_the_call(fn, marker, anchor, name):
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(fn, {"x": "*i32"}, {}, target="hip:gfx942", num_warps=1, cache=False)
    located.assert_located(ei.value, HERE, marker, anchor,
                           rf"{name} is an NVIDIA builtin .*; the kernel is compiled for "
                           rf"hip:gfx942, an AMD target.*", kiln.CompilationError)
