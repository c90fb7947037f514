"""The textbook Gluon GEMM (examples/hopper_kn.py: A [M, K] and B [K, N] row-major, Python's
min in the grouped tile order) compiles for sm_90a: wgmma reads B N-contiguous with the
transpose flag and an MN-major descriptor (third_party/nvidia/test/gpu/test_hopper_kn.py runs it)."""

import re

import kiln.language as gl

import compiled  # examples/ on sys.path
import hopper_kn  # noqa: E402

pytestmark = compiled.needs_compiler


def test_textbook_gemm_compiles_with_mn_major_b():
    t = gl.tensor_descriptor_type
    lay = gl.NVMMASharedLayout.get_default_for
    k = hopper_kn.matmul_kn_kernel.warmup(
        t(gl.bfloat16, [128, 64], lay([128, 64], gl.bfloat16)),
        t(gl.bfloat16, [64, 256], lay([64, 256], gl.bfloat16)),
        t(gl.bfloat16, [128, 256], lay([128, 256], gl.bfloat16)), 4096, 4096, 4096,
        STAGES=3, GROUP_M=8, num_warps=8, grid=(1,), target="cuda:sm_90a")
    ptx = k.asm["ptx"]
    instrs = re.findall(r"wgmma\.mma_async\.sync\.aligned\.m64n256k16\.f32\.bf16\.bf16[^;]*;",
                        ptx)
    assert len(instrs) == 4, ptx
    # scale-d p, scale-a 1, scale-b 1, A not transposed, B transposed (N-contiguous).
    assert all(re.search(r"p, 1, +1, 0, +1;$", i) for i in instrs), instrs
    # B's descriptor: 128-byte swizzle, SBO 1024 B (8 K-rows), LBO 8192 B (64 K-rows of a
    # 64-column chunk): 0x4000004002000000.
    assert str(0x4000004002000000) in ptx
    assert "min.s32" in ptx  # min(num_pid_m - first_pid_m, GROUP_M)
    assert "cubin" in k.asm
