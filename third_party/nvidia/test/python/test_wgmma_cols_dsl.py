"""``warpgroup_mma(..., cols=)`` (a Kiln extension): wgmma over the accumulator's first
``cols`` columns, compiled for sm_90a. The instructions' N is ``cols`` where it ends inside an
instruction tile and the tiles past it are not issued (test/gpu's test_wgmma_cols checks the
values on the GPU machine); bad values are errors at the call."""

import os
import re
import shutil
import subprocess

import pytest

import kiln
import kiln.language as kl
from kiln.language.nvidia import hopper

import compiled
import located

HERE = __file__
pytestmark = compiled.needs_compiler


@kiln.jit
def mma(a, b, out, M: kl.constexpr, N: kl.constexpr, K: kl.constexpr, COLS: kl.constexpr,
        ACC: kl.constexpr, WARPS: kl.constexpr):
    blocked: kl.constexpr = kl.BlockedLayout([1, 8], [4, 8], [WARPS, 1], [1, 0])
    am = kl.arange(0, M, layout=kl.SliceLayout(1, blocked))[:, None]
    ak = kl.arange(0, K, layout=kl.SliceLayout(0, blocked))[None, :]
    bn = kl.arange(0, N, layout=kl.SliceLayout(1, blocked))[:, None]
    sa = kl.allocate_shared_memory(kl.bfloat16, [M, K], kl.NVMMASharedLayout(128, 16),
                                   kl.load(a + am * K + ak))
    sb = kl.allocate_shared_memory(kl.bfloat16, [N, K], kl.NVMMASharedLayout(128, 16),
                                   kl.load(b + bn * K + ak))
    hopper.fence_async_shared()
    zero = kl.zeros([M, N], kl.float32, ACC)
    acc = hopper.warpgroup_mma(sa, sb.permute((1, 0)), zero, cols=COLS)  # E:mma
    on = kl.arange(0, N, layout=kl.SliceLayout(0, blocked))[None, :]
    kl.store(out + am * N + on, kl.convert_layout(acc, blocked))


def _compile(cols, instr_n=256, warps=(8, 1), M=128, N=256):
    acc = kl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=list(warps),
                                    instr_shape=[16, instr_n, 16])
    sig = {"a": "*bf16:16", "b": "*bf16:16", "out": "*fp32:16"}
    return kiln.compile(mma, sig, dict(M=M, N=N, K=64, COLS=cols, ACC=acc,
                                       WARPS=warps[0] * warps[1]),
                        target="cuda:sm_90a", num_warps=warps[0] * warps[1], cache=False)


def _shapes(ptx):
    return re.findall(r"wgmma\.mma_async\.sync\.aligned\.m64n(\d+)k16", ptx)


def test_a_152_column_tile_is_one_n152_instruction_a_k_step():
    k = _compile(152)
    assert _shapes(k.asm["ptx"]) == ["152"] * 4
    assert "cubin" in k.asm


def test_tiles_past_cols_are_not_issued():
    assert _shapes(_compile(152, instr_n=64).asm["ptx"]) == ["64"] * 8 + ["24"] * 4
    assert _shapes(_compile(128, instr_n=64).asm["ptx"]) == ["64"] * 8
    assert _shapes(_compile(256).asm["ptx"]) == ["256"] * 4  # all columns: no attribute


@pytest.mark.parametrize("cols", [12, 0, 264, True, 15.0])
def test_bad_cols_are_errors_at_the_call(cols):
    with pytest.raises(kiln.CompilationError) as ei:
        _compile(cols)
    located.assert_located(ei.value, HERE, "E:mma", "hopper.warpgroup_mma",
                           re.escape(f"warpgroup_mma: cols must be a constexpr multiple of 8 "
                                     f"from 8 to the accumulator's 256 columns, got {cols!r}"),
                           kiln.CompilationError)


def test_cols_inside_a_warpgroup_split_along_n_is_an_error():
    # The lowering's diagnostic, at the call too.
    with pytest.raises(kiln.CompilationError) as ei:
        _compile(96, instr_n=64, warps=(4, 2), M=64, N=128)
    located.assert_located(ei.value, HERE, "E:mma", "hopper.warpgroup_mma",
                           re.escape("warpgroup_mma: cols = 96 needs every warpgroup to hold all "
                                     "of the accumulator's columns (warps along M only), but a "
                                     "warpgroup bit moves by 64 columns"),
                           kiln.CompilationError)


@kiln.jit
def fp8_mma(out, COLS: kl.constexpr, ACC: kl.constexpr):
    sa = kl.allocate_shared_memory(kl.float8e4nv, [64, 64], kl.NVMMASharedLayout(64, 8))
    sb = kl.allocate_shared_memory(kl.float8e4nv, [64, 64], kl.NVMMASharedLayout(64, 8))
    zero = kl.zeros([64, 64], kl.float32, ACC)
    acc = hopper.warpgroup_mma(sa, sb.permute((1, 0)), zero, cols=COLS,  # E:fp8
                               max_num_imprecise_acc=32)
    kl.store(out + kl.arange(0, 64, layout=kl.SliceLayout(1, ACC))[:, None] * 64 +
             kl.arange(0, 64, layout=kl.SliceLayout(0, ACC))[None, :], acc)


def test_cols_with_fp8_promotion_is_an_error():
    # Triton's fp8 promotion (max_num_imprecise_acc) runs chunked wgmma from zero and adds:
    # it does not take cols.
    acc = kl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                    instr_shape=[16, 64, 32])
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(fp8_mma, {"out": "*fp32:16"}, dict(COLS=32, ACC=acc),
                     target="cuda:sm_90a", num_warps=4, cache=False)
    located.assert_located(ei.value, HERE, "E:fp8", "hopper.warpgroup_mma",
                           "warpgroup_mma: cols with max_num_imprecise_acc is not supported",
                           kiln.CompilationError)


@kiln.jit
def looped(out, n, COLS: kl.constexpr, ACC: kl.constexpr):
    sa = kl.allocate_shared_memory(kl.bfloat16, [64, 64], kl.NVMMASharedLayout(128, 16))
    sb = kl.allocate_shared_memory(kl.bfloat16, [256, 64], kl.NVMMASharedLayout(128, 16))
    acc = kl.zeros([64, 256], kl.float32, ACC)
    for _ in range(n):
        acc = hopper.warpgroup_mma(sa, sb.permute((1, 0)), acc, is_async=True, cols=COLS)
        acc = hopper.warpgroup_mma_wait(num_outstanding=0, deps=(acc,))
    kl.store(out + kl.arange(0, 64, layout=kl.SliceLayout(1, ACC))[:, None] * 256 +
             kl.arange(0, 256, layout=kl.SliceLayout(0, ACC))[None, :], acc)


def _ptxas():
    for p in (os.environ.get("KILN_PTXAS"), shutil.which("ptxas"), "/usr/local/cuda/bin/ptxas"):
        if p and os.path.exists(p):
            return p
    pytest.skip("needs ptxas (CUDA) for the register count")


def test_a_loop_carries_only_the_computed_columns(tmp_path):
    # A thread holds 128 values of a 64 x 256 accumulator, 4 of them in the first 8 columns:
    # the loop carries those 4 (the zeros past cols are constants). ptxas: 30 registers;
    # every column computed (cols=256): 154.
    ptxas = _ptxas()
    acc = kl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                    instr_shape=[16, 256, 16])
    k = kiln.compile(looped, {"out": "*fp32:16", "n": "i32"}, dict(COLS=8, ACC=acc),
                     target="cuda:sm_90a", num_warps=4, cache=False)
    assert _shapes(k.asm["ptx"]) == ["8"] * 4
    src = tmp_path / "looped.ptx"
    src.write_text(k.asm["ptx"])
    r = subprocess.run([ptxas, "-arch=sm_90a", "-v", str(src), "-o", str(tmp_path / "o.cubin")],
                       capture_output=True, text=True)
    used = [int(x) for x in re.findall(r"Used (\d+) registers", r.stdout + r.stderr)]
    assert used and used[0] < 64, r.stdout + r.stderr
