"""wgmma instruction tiles follow the accumulator layout's instr_shape N (Gluon's meaning):
an NVMMADistributedLayout(version=[3, 0], instr_shape=[16, n, k]) issues n-wide wgmma even
where the warpgroup's columns would allow 256. Narrower instructions keep fewer accumulator
registers in flight: with a 256 x 256 f32 accumulator per CTA (256 registers per thread)
ptxas could not allocate registers for two n256 instructions at once in Triton's
test_mma_shared_inputs (2 CTAs); with n128 tiles it does. At 256 accumulator registers per
thread ptxas still serializes the wgmmas for want of registers, and says so (C7512): Kiln
reports that as a compile warning, which these tests expect."""

import re
import warnings

import kiln
import kiln.language as kl
from kiln.language.nvidia import hopper

import compiled

pytestmark = compiled.needs_compiler


@kiln.jit
def mma(a, b, out, M: kl.constexpr, N: kl.constexpr, K: kl.constexpr, LA: kl.constexpr,
        LB: kl.constexpr, LC: kl.constexpr, ACC: kl.constexpr, SA: kl.constexpr,
        SB: kl.constexpr):
    am = kl.arange(0, M)[:, None]
    ak = kl.arange(0, K)[None, :]
    bk = kl.arange(0, K)[:, None]
    bn = kl.arange(0, N)[None, :]
    a_tile = kl.load(kl.set_auto_layout(a + am * K + ak, LA))
    b_tile = kl.load(kl.set_auto_layout(b + bk * N + bn, LB))
    sa = kl.allocate_shared_memory(a.dtype.element_ty, [M, K], SA, a_tile)
    sb = kl.allocate_shared_memory(b.dtype.element_ty, [K, N], SB, b_tile)
    hopper.fence_async_shared()
    acc = hopper.warpgroup_mma(sa, sb, kl.zeros([M, N], kl.float32, ACC))
    acc = kl.convert_layout(acc, LC)
    om = kl.arange(0, M)[:, None]
    on = kl.arange(0, N)[None, :]
    kl.store(kl.set_auto_layout(out + om * N + on, LC), acc)


def _compile(n_instr, num_ctas):
    cga = [[1, 0]] if num_ctas == 2 else []
    M, N, K = 256 * num_ctas, 256, 16
    warps = [8, 1]
    la = kl.BlockedLayout([1, 8], [1, 32], warps, [0, 1], cga_layout=cga)
    lb = kl.BlockedLayout([1, 8], [1, 32], warps, [1, 0], cga_layout=[[0, 0]] if cga else [])
    lc = kl.BlockedLayout([1, 8], [1, 32], warps, [1, 0], cga_layout=cga)
    acc = kl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=warps,
                                    instr_shape=[16, n_instr, 16], cga_layout=cga)
    sa = kl.NVMMASharedLayout(32, 16, cga_layout=cga)
    sb = kl.NVMMASharedLayout(128, 16, cga_layout=[[0, 0]] if cga else [])
    sig = {"a": "*fp16:16", "b": "*fp16:16", "out": "*fp32:16"}
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*\(C7512\) Potential Performance Loss",
                                category=kiln.CompilationWarning)
        k = kiln.compile(mma, sig, dict(M=M, N=N, K=K, LA=la, LB=lb, LC=lc, ACC=acc, SA=sa,
                                        SB=sb), target="cuda:sm_90a", num_warps=8,
                         num_ctas=num_ctas, cache=False)
    assert [w.message for w in k.warnings if "C7512" not in w.message] == []
    return k


def _shapes(ptx):
    return re.findall(r"wgmma\.mma_async\.sync\.aligned\.(m\d+n\d+k\d+)", ptx)


def test_instruction_width_follows_the_layout():
    assert _shapes(_compile(256, 1).asm["ptx"]) == ["m64n256k16"] * 2
    assert _shapes(_compile(128, 1).asm["ptx"]) == ["m64n128k16"] * 4
    assert _shapes(_compile(64, 1).asm["ptx"]) == ["m64n64k16"] * 8


def test_a_256_register_accumulator_in_a_cluster_assembles():
    # Triton's test_mma_shared_inputs[...-ctas_per_cga1-2-4-1-32-128-warps0-16-...]: ptxas
    # failed ("Register allocation failed with register count of 255") with n256 tiles.
    k = _compile(128, 2)
    assert _shapes(k.asm["ptx"]) == ["m64n128k16"] * 4
    assert "cubin" in k.asm
