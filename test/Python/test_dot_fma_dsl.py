"""``kl.dot_fma`` (Gluon's name): a matrix product on the CUDA/vector cores, with operands in
``DotOperandLayout(i, P, k_width)`` over the accumulator's ``BlockedLayout`` P. The kernels
compile here for both vendors; test/gpu/test_dot_fma.py launches them against torch."""

import os

import pytest

import kiln
import kiln.language as kl

import compiled
import located

pytestmark = compiled.needs_compiler


@kiln.jit
def dot_fma_2d(a_ptr, b_ptr, c_ptr, out_ptr, M: kl.constexpr, N: kl.constexpr,
               K: kl.constexpr, P: kl.constexpr):
    A: kl.constexpr = kl.DotOperandLayout(operand_index=0, parent=P, k_width=0)
    B: kl.constexpr = kl.DotOperandLayout(operand_index=1, parent=P, k_width=0)
    rm = kl.arange(0, M, kl.SliceLayout(1, P))[:, None]
    rn = kl.arange(0, N, kl.SliceLayout(0, P))[None, :]
    rka = kl.arange(0, K, kl.SliceLayout(0, P))[None, :]
    rkb = kl.arange(0, K, kl.SliceLayout(1, P))[:, None]
    a = kl.convert_layout(kl.load(a_ptr + rm * K + rka), A)
    b = kl.convert_layout(kl.load(b_ptr + rkb * N + rn), B)
    c = kl.load(c_ptr + rm * N + rn)
    kl.store(out_ptr + rm * N + rn, kl.dot_fma(a, b, c))


@kiln.jit
def dot_fma_batched(a_ptr, b_ptr, out_ptr, BATCH: kl.constexpr, M: kl.constexpr,
                    N: kl.constexpr, K: kl.constexpr, P: kl.constexpr):
    A: kl.constexpr = kl.DotOperandLayout(0, P, 0)
    B: kl.constexpr = kl.DotOperandLayout(1, P, 0)
    L2: kl.constexpr = kl.SliceLayout(1, P)
    rb = kl.arange(0, BATCH, kl.SliceLayout(1, kl.SliceLayout(2, P)))[:, None, None]
    rm = kl.arange(0, M, kl.SliceLayout(0, kl.SliceLayout(2, P)))[None, :, None]
    rn = kl.arange(0, N, kl.SliceLayout(0, L2))[None, None, :]
    rka = kl.arange(0, K, kl.SliceLayout(0, L2))[None, None, :]
    rkb = kl.arange(0, K, kl.SliceLayout(0, kl.SliceLayout(2, P)))[None, :, None]
    a = kl.convert_layout(kl.load(a_ptr + rb * M * K + rm * K + rka), A)
    b = kl.convert_layout(kl.load(b_ptr + rb * K * N + rkb * N + rn), B)
    acc = kl.zeros([BATCH, M, N], kl.float32, P)
    kl.store(out_ptr + rb * M * N + rm * N + rn, kl.dot_fma(a, b, acc))


# Gluon's test_dot_fma layout: one row per lane, warps along M, 32 x 32 x 32.
GLUON_P = kl.BlockedLayout([1, 1], [32, 1], [4, 1], [1, 0])
CASES = {
    "gluon": dict(M=32, N=32, K=32, P=GLUON_P, dt="fp32", acc="fp32"),
    "f16_rect": dict(M=64, N=16, K=8, P=kl.BlockedLayout([2, 2], [8, 4], [2, 2], [1, 0]),
                     dt="fp16", acc="fp32"),
    "i8": dict(M=16, N=32, K=16, P=kl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0]), dt="i8",
               acc="i32"),
}
BATCHED_P = kl.BlockedLayout([1, 1, 2], [1, 4, 8], [2, 2, 1], [2, 1, 0])


def compile_2d(name, target="cuda:sm_90a"):
    c = CASES[name]
    sig = {"a_ptr": "*" + c["dt"], "b_ptr": "*" + c["dt"], "c_ptr": "*" + c["acc"],
           "out_ptr": "*" + c["acc"]}
    return kiln.compile(dot_fma_2d, sig, {k: c[k] for k in ("M", "N", "K", "P")},
                        target=target, num_warps=4, cache=False)


@pytest.mark.parametrize("target", ["cuda:sm_90a", "hip:gfx942"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_dot_fma_compiles(name, target):
    c = CASES[name]
    if target.startswith("hip"):
        # 64 lanes: the same shapes with twice the lanes along N.
        p = c["P"]
        tpw = list(p.threads_per_warp)
        tpw[1] *= 2
        c = dict(c, P=kl.BlockedLayout(p.size_per_thread, tpw, p.warps_per_cta, p.order))
        CASES["_hip"] = c
        k = compile_2d("_hip", target)
        del CASES["_hip"]
    else:
        k = compile_2d(name, target)
    asm = k.asm["ptx"] if target.startswith("cuda") else k.asm["amdgcn"]
    if c["acc"] == "fp32" and target.startswith("cuda"):
        assert "fma.rn.f32" in asm
    assert k.metadata["shared"] > 0  # the operands' convert_layout


def test_dot_fma_batched_compiles():
    k = kiln.compile(dot_fma_batched, {"a_ptr": "*fp32", "b_ptr": "*fp32", "out_ptr": "*fp32"},
                     {"BATCH": 2, "M": 8, "N": 16, "K": 4, "P": BATCHED_P},
                     target="cuda:sm_90a", num_warps=4, cache=False)
    assert "fma.rn.f32" in k.asm["ptx"]


@kiln.jit
def bad_acc(a_ptr, P: kl.constexpr, Q: kl.constexpr):
    A: kl.constexpr = kl.DotOperandLayout(0, P, 0)
    B: kl.constexpr = kl.DotOperandLayout(1, P, 0)
    a = kl.zeros([16, 16], kl.float32, A)
    b = kl.zeros([16, 16], kl.float32, B)
    c = kl.zeros([16, 16], kl.float32, Q)
    d = kl.dot_fma(a, b, c)  # E:fma
    kl.store(a_ptr + kl.arange(0, 16, kl.SliceLayout(1, Q))[:, None], d)


def test_dot_fma_operand_parent_must_be_the_accumulator_layout():
    p = kl.BlockedLayout([1, 1], [32, 1], [4, 1], [1, 0])
    q = kl.BlockedLayout([1, 1], [1, 32], [4, 1], [1, 0])
    with pytest.raises(kiln.CompilationError) as info:
        kiln.compile(bad_acc, {"a_ptr": "*fp32"}, {"P": p, "Q": q}, target="cuda:sm_90a",
                     cache=False)
    located.assert_located(info.value, os.path.abspath(__file__), "E:fma", "kl.dot_fma",
                           r"dot_fma: a must be in DotOperandLayout\(0, acc's layout, k_width\), "
                           r"got .*", kiln.CompilationError)


def test_dot_operand_layout_accepts_blocked_parents():
    p = kl.BlockedLayout([1, 1, 1], [1, 4, 8], [1, 4, 1], [2, 1, 0])
    d = kl.DotOperandLayout(1, p, 0)
    assert d.rank == 3
    with pytest.raises(TypeError, match="AMDMFMALayout or a BlockedLayout"):
        kl.DotOperandLayout(0, kl.SliceLayout(0, p), 0)
