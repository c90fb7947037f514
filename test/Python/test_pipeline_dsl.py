"""Automatic software pipelining from the DSL (``kl.range(..., num_stages=N)`` with plain loads;
the kernels of examples/pipelined.py), compiled without a GPU: the final PTX has the ring the
pipeliner built (cp.async into slots, one commit per iteration, the exact wait, async wgmma
with one group in flight, a barrier between warpgroups), and a loop it cannot pipeline gets a
remark at the user's line saying why. GPU results: test/gpu/test_pipeline.py."""

import os
import re
import sys

import pytest

import kiln
import kiln.language as kl
from kiln.language.nvidia.hopper import warpgroup_mma

import compiled

pytestmark = compiled.needs_compiler

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from examples import pipelined  # noqa: E402

HERE = os.path.abspath(__file__)

GEMM = {"a_ptr": "*fp16:16", "b_ptr": "*fp16:16", "c_ptr": "*fp16:16", "M": "i32", "N": "i32",
        "K": "i32", "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32"}
WGMMA = {"a_ptr": "*bf16:16", "b_ptr": "*bf16:16", "c_ptr": "*bf16:16", "M": "i32", "N": "i32",
         "K": "i32", "stride_am": "i32", "stride_bn": "i32", "stride_cm": "i32"}


@pytest.mark.parametrize("stages", [2, 3, 4, 5])
def test_mma_v2_ring_waits_for_the_oldest_group(stages):
    k = kiln.compile(pipelined.mma_v2_gemm_kernel, GEMM,
                     dict(BM=128, BN=128, BK=32, STAGES=stages, WARPS_M=2, WARPS_N=2),
                     target="cuda:sm_80", num_warps=4)
    ptx = k.asm["ptx"]
    # A prologue of STAGES-1 commit groups, one in the loop; the loop waits first (before
    # its copies, so one barrier both orders the refill after the last iteration's reads
    # and publishes the landed slot), leaving the STAGES-2 groups issued after the one
    # read; all retired after the loop.
    assert ptx.count("cp.async.commit_group") == stages
    assert re.findall(r"cp\.async\.wait_group\s+(\d+)", ptx) == [str(stages - 2), "0"]
    loop = ptx[ptx.index("$L__BB0_2:"):]
    loop = loop[:loop.index("bra")]
    assert loop.count("bar.sync") == 1
    assert loop.index("cp.async.wait_group") < loop.index("bar.sync") < loop.index("cp.async.cg")
    # 16-byte copies: 4 of A and 4 of B per thread and iteration.
    assert ptx.count("cp.async.cg.shared.global") == 8 * stages


def test_one_stage_is_not_pipelined():
    k = kiln.compile(pipelined.mma_v2_gemm_kernel, GEMM,
                     dict(BM=128, BN=128, BK=32, STAGES=1, WARPS_M=2, WARPS_N=2),
                     target="cuda:sm_80", num_warps=4)
    assert "cp.async" not in k.asm["ptx"]


@pytest.mark.parametrize("warps", [4, 8])
def test_wgmma_stays_in_flight(warps):
    k = kiln.compile(pipelined.wgmma_gemm_kernel, WGMMA,
                     dict(BM=128, BN=128, BK=64, STAGES=4, num_warps=warps),
                     target="cuda:sm_90a", num_warps=warps)
    ptx = k.asm["ptx"]
    # Consumers first: wait (STAGES-2 groups left), the kernel's proxy fence (now after the
    # wait: the wait sits where the buffers were stored), barrier, async wgmma, one
    # wgmma group left in flight, then the refill of the slot the previous wgmma read.
    m = re.search(r"cp\.async\.wait_group\s+2;(?:(?!cp\.async)[\s\S])*?"
                  r"fence\.proxy\.async\.shared::cta;"
                  r"(?:(?!cp\.async)[\s\S])*?wgmma\.wait_group\.sync\.aligned 1;"
                  r"(?P<between>(?:(?!cp\.async)[\s\S])*?)cp\.async\.cg", ptx)
    assert m, "ring order not found"
    # With two warpgroups the other's wgmma may still read the slot: a barrier first.
    assert ("bar.sync" in m.group("between")) == (warps == 8)
    assert "wgmma.wait_group.sync.aligned 0;" in ptx
    assert ptx.count("fence.proxy.async") == 1  # the kernel's own; none added


def test_unfenced_operands_get_the_fence():
    """Gluon kernels may leave fence_async_shared to the compiler (Triton inserts it): the
    buffers stored by allocate_shared_memory(value=...) and read by wgmma get one, before
    the barrier. (Without it the result was wrong on the H100: ~25% relative error at some
    shapes; tile-check-async-safety reports a missing one, see its lit.)"""
    @kiln.jit
    def unfenced(a_ptr, c_ptr, num_warps: kl.constexpr):
        acc_l: kl.constexpr = kl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                        instr_shape=[16, 64, 16])
        ld: kl.constexpr = kl.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])
        sl: kl.constexpr = kl.NVMMASharedLayout.get_default_for([64, 64], kl.bfloat16)
        r = kl.arange(0, 64, kl.SliceLayout(1, ld))
        c = kl.arange(0, 64, kl.SliceLayout(0, ld))
        a = kl.load(a_ptr + r[:, None] * 64 + c[None, :])
        a_s = kl.allocate_shared_memory(kl.bfloat16, [64, 64], sl, value=a)
        acc = warpgroup_mma(a_s, a_s.permute((1, 0)), kl.zeros([64, 64], kl.float32, acc_l))
        rr = kl.arange(0, 64, kl.SliceLayout(1, acc_l))
        cc = kl.arange(0, 64, kl.SliceLayout(0, acc_l))
        kl.store(c_ptr + rr[:, None] * 64 + cc[None, :], acc)

    k = kiln.compile(unfenced, {"a_ptr": "*bf16:16", "c_ptr": "*fp32:16"}, {"num_warps": 4},
                     target="cuda:sm_90a", num_warps=4)
    ptx = k.asm["ptx"]
    fence = ptx.index("fence.proxy.async")
    assert ptx.rindex("st.shared", 0, fence) < fence < ptx.index("bar.sync", fence) \
        < ptx.index("wgmma.mma_async", fence)


@kiln.jit
def _runtime_step(x, out, n, s):
    layout: kl.constexpr = kl.BlockedLayout([4], [32], [4], [0])
    offs = kl.arange(0, 512, layout)
    acc = kl.zeros([512], kl.float32, layout)
    for i in kl.range(0, n, s, num_stages=3):  # P:loop
        acc += kl.load(x + i + offs)
    kl.store(out + offs, acc)


@kiln.jit
def _stages_as_given(x, out, n, NS: kl.constexpr):
    layout: kl.constexpr = kl.BlockedLayout([4], [32], [4], [0])
    offs = kl.arange(0, 512, layout)
    acc = kl.zeros([512], kl.float32, layout)
    for i in kl.range(0, n, 512, num_stages=NS):  # P:stages
        acc += kl.load(x + i + offs)
    kl.store(out + offs, acc)


def _compile_stages(ns):
    return kiln.compile(_stages_as_given, {"x": "*fp32:16", "out": "*fp32:16", "n": "i32"},
                        {"NS": ns}, target="cuda:sm_80", num_warps=4)


@pytest.mark.parametrize("ns", [-1, 2.5, "3", True])
def test_num_stages_that_is_not_a_count_is_an_error_at_the_loop(ns):
    line = next(i for i, l in enumerate(open(HERE).read().splitlines(), 1) if "# P:stages" in l)
    with pytest.raises(kiln.CompilationError) as e:
        _compile_stages(ns)
    msg = str(e.value)
    src = open(HERE).read().splitlines()[line - 1]
    col = src.index("kl.range") + 1
    assert f"{HERE}:{line}:{col}:" in msg, msg
    assert "kl.range(num_stages=...) must be a non-negative integer" in msg, msg
    # The source line, with the caret under the kl.range call.
    assert msg.endswith(src + "\n" + " " * (col - 1) + "^"), msg


def test_more_stages_than_kiln_numbers_is_a_remark_not_a_verifier_error():
    # Stages are numbered 0 to 64: 65 pipeline (a 65-slot ring, wait_group 63), 66 say why.
    assert re.search(r"cp\.async\.wait_group\s+63", _compile_stages(65).asm["ptx"])
    line = next(i for i, l in enumerate(open(HERE).read().splitlines(), 1) if "# P:stages" in l)
    with pytest.warns(kiln.CompilationRemark, match="num_stages=66 is more than 65") as record:
        k = _compile_stages(66)
    assert any(r.filename == HERE and r.lineno == line for r in record), \
        [(r.filename, r.lineno) for r in record]
    assert "cp.async" not in k.asm["ptx"]


def test_a_loop_left_alone_says_why_at_the_users_line():
    line = next(i for i, l in enumerate(open(HERE).read().splitlines(), 1) if "# P:loop" in l)
    with pytest.warns(kiln.CompilationRemark) as record:
        k = kiln.compile(_runtime_step, {"x": "*fp32:16", "out": "*fp32:16", "n": "i32",
                                         "s": "i32"}, {}, target="cuda:sm_80", num_warps=4)
    msgs = [(r.filename, r.lineno, str(r.message)) for r in record]
    assert any(f == HERE and n == line and "loop not pipelined: its step is not a positive "
               "constant" in m for f, n, m in msgs), msgs
    assert "cp.async" not in k.asm["ptx"]


def test_amd_stream_becomes_direct_to_lds():
    # gfx950 copies 16 bytes per lane straight into LDS (through a buffer resource: the
    # tensors are under 2 GiB, ':range32', as a launch specializes them).
    k = kiln.compile(pipelined.row_sum_kernel, {"x_ptr": "*fp32:16:range32",
                                                "out_ptr": "*fp32:16:range32",
                                                "R": "i32", "C": "i32", "stride_r": "i32"},
                     dict(BR=16, BC=256, STAGES=3, num_warps=4, WARP=64),
                     target="hip:gfx950", num_warps=4)
    assert re.search(r"buffer_load_dwordx4 .* lds", k.asm["amdgcn"])


@pytest.mark.parametrize("stages,warps", [(3, 4), (4, 8)])
@pytest.mark.parametrize("b_kn", [False, True])
def test_tma_form_becomes_a_tma_ring(stages, warps, b_kn):
    def desc(shape):
        return kl.tensor_descriptor_type(
            kl.bfloat16, shape, kl.NVMMASharedLayout.get_default_for(shape, kl.bfloat16))
    k = pipelined.tma_gemm_kernel.warmup(desc([128, 64]), desc([64, 128] if b_kn else [128, 64]),
                                         desc([128, 128]), 4096, 4096, 4096, STAGES=stages,
                                         GROUP_M=8, num_warps=warps, B_KN=b_kn, grid=(1,),
                                         target="cuda:sm_90a")
    ptx = k.asm["ptx"]
    # One barrier per slot, initialized and invalidated; STAGES-1 prologue steps and one in
    # the loop; one wgmma group in flight.
    assert ptx.count("mbarrier.init.shared.b64") == stages
    assert ptx.count("mbarrier.inval.shared.b64") == stages
    # (B [64, 128] with 128-byte swizzling is two 64-column boxes: 3 TMA copies a step.)
    per_step = 3 if b_kn else 2
    assert ptx.count("cp.async.bulk.tensor.2d.shared::cluster.global") == per_step * stages
    assert ptx.count("mbarrier.arrive.expect_tx") == stages
    assert "wgmma.wait_group.sync.aligned 1;" in ptx
    assert "mbarrier.try_wait.parity" in ptx
    # TMA writes and wgmma reads are both async proxy: the only fence is the kernel's own,
    # before the TMA store of C.
    assert ptx.count("fence.proxy.async") == 1


@pytest.mark.parametrize("target,vec,per_iteration", [("hip:gfx942", 1, 16),
                                                      ("hip:gfx950", 4, 4)])
def test_amd_ring_waits_exactly(target, vec, per_iteration):
    """On gfx942/gfx950 the pipeliner's masked copies go through buffer resources
    (tile-amd-pipeline-buffer-copies), so every wave issues them and the loop's wait is
    exact: the iteration issued after the awaited one stays in flight (the loop waits
    before it issues its own copies) (16 dword copies
    per iteration on gfx942, 4 dwordx4 on gfx950), no vmcnt(0) in the loop; the independent
    checker (third_party/amd/tools/amdgcn_waits.py) finds no violation and slack 0. The
    offsets come from a stride argument, so only the ':range32' marker (tensors under 2 GiB,
    as kiln.jit specializes them at launch) lets the copies use buffer resources
    (test_amd_pointer_range.py: without it the loop waits with vmcnt(0))."""
    import amdgcn_waits as aw
    k = kiln.compile(pipelined.row_sum_kernel, {"x_ptr": "*fp32:16:range32",
                                                "out_ptr": "*fp32:16:range32",
                                                "R": "i32", "C": "i32", "stride_r": "i32"},
                     dict(BR=16, BC=256, STAGES=3, num_warps=4, WARP=64, VEC=vec),
                     target=target, num_warps=4)
    asm = k.asm["amdgcn"]
    lines = asm.splitlines()
    back = next(i for i, l in enumerate(lines) if re.match(r"\s*s_cbranch_scc1 \.LBB0_2$", l))
    start = lines.index(".LBB0_2:")
    loop = "\n".join(lines[start:back + 1])
    assert re.findall(r"s_waitcnt vmcnt\((\d+)\)", loop) == [str(per_iteration)]
    assert loop.count("buffer_load_dword") == per_iteration
    (report,) = aw.check(asm)
    assert not report.violations and report.max_slack == 0


@kiln.jit
def _row_sum_carried(x_ptr, out_ptr, R, C, stride_r, BR: kl.constexpr, BC: kl.constexpr,
                     STAGES: kl.constexpr, num_warps: kl.constexpr,
                     ADVANCE_FIRST: kl.constexpr = False):
    """A textbook loop: one pointer tensor carried around the loop, advanced by BC. With
    ADVANCE_FIRST it advances before the load, so the lowering first asks about `ptrs + BC`,
    a value inside the cycle, rather than about the carried pointers."""
    layout: kl.constexpr = kl.BlockedLayout([1, 4], [1, 32], [num_warps, 1], [1, 0])
    C = C // 4 * 4
    stride_r = stride_r // 4 * 4
    rows = kl.program_id(0) * BR + kl.arange(0, BR, kl.SliceLayout(1, layout))
    cols = kl.arange(0, BC, kl.SliceLayout(0, layout))
    acc = kl.zeros([BR, BC], kl.float32, layout)
    ptrs = x_ptr + rows[:, None] * stride_r + cols[None, :]
    for c0 in kl.range(0, C, BC, num_stages=STAGES):
        mask = (rows[:, None] < R) & (c0 + cols[None, :] < C)
        if ADVANCE_FIRST:
            ptrs += BC
            acc += kl.load(ptrs - BC, mask=mask, other=0.0)
        else:
            acc += kl.load(ptrs, mask=mask, other=0.0)
            ptrs += BC
    kl.store(out_ptr + rows, kl.sum(acc, axis=1), mask=rows < R)


def _compile_carried(stages, advance_first=False):
    return kiln.compile(_row_sum_carried, {"x_ptr": "*fp32:16", "out_ptr": "*fp32:16",
                                           "R": "i32", "C": "i32", "stride_r": "i32"},
                        dict(BR=16, BC=128, STAGES=stages, num_warps=4,
                             ADVANCE_FIRST=advance_first),
                        target="cuda:sm_80", num_warps=4)


def test_a_cycle_entered_inside_keeps_its_width():
    ptx = _compile_carried(1, advance_first=True).asm["ptx"]
    assert "ld.global.v4.b32" in ptx and "ld.global.b32" not in ptx


@pytest.mark.parametrize("stages", [1, 3])
def test_carried_pointers_keep_their_width(stages):
    """`ptrs += BC` keeps the pointers 16-byte aligned and contiguous in runs of 4 f32 (the
    axis analysis' fixed point over the loop): 16-byte loads as written, 16-byte cp.async in
    the prologue and in the kernel loop when pipelined (before the fixed point the carried
    pointers were unknown: 4-byte accesses inside the loop)."""
    k = _compile_carried(stages)
    ptx = k.asm["ptx"]
    if stages == 1:
        assert "ld.global.v4.b32" in ptx and "ld.global.b32" not in ptx
    else:
        widths = re.findall(r"cp\.async\.c[ag]\.shared\.global \[[^]]*\], \[[^]]*\], (\d+)", ptx)
        assert widths and set(widths) == {"16"}, widths
        assert len(widths) == 3 * 4  # 2 prologue steps and the loop's, 4 copies each


@pytest.mark.parametrize("which", ["wgmma", "mma_v2"])
def test_every_tuning_config_compiles(which):
    """The configs kiln.autotune chooses among for tuned=True (examples/pipelined.py) each
    compile, with a ring (the pipeliner took the loop) and within the shared-memory limit."""
    configs, kernel, sig, target = (
        (pipelined.WGMMA_CONFIGS, pipelined.wgmma_gemm_kernel, WGMMA, "cuda:sm_90a")
        if which == "wgmma" else
        (pipelined.MMA_V2_CONFIGS, pipelined.mma_v2_gemm_kernel, GEMM, "cuda:sm_80"))
    tuned = pipelined.wgmma_gemm_tuned if which == "wgmma" else pipelined.mma_v2_gemm_tuned
    assert tuned.configs is configs or list(tuned.configs) == list(configs)
    for cfg in configs:
        consts = dict(cfg.kwargs)
        if which == "wgmma":
            consts["num_warps"] = cfg.num_warps
        k = kiln.compile(kernel, sig, consts, target=target, num_warps=cfg.num_warps)
        assert "cp.async.commit_group" in k.asm["ptx"], cfg.kwargs
        assert k.metadata.shared > 0


@kiln.jit
def _asm_in_loop(x, out, n, PURE: kl.constexpr):
    layout: kl.constexpr = kl.BlockedLayout([4], [32], [4], [0])
    offs = kl.arange(0, 512, layout)
    acc = kl.zeros([512], kl.float32, layout)
    for i in kl.range(0, n, num_stages=3):
        v = kl.load(x + i * 512 + offs)
        acc += kl.inline_asm_elementwise("ex2.approx.ftz.f32 $0, $1;", "=f,f", [v],
                                         dtype=kl.float32, is_pure=PURE, pack=1)
    kl.store(out + offs, acc)


def test_pure_inline_asm_lets_the_loop_pipeline():
    # Pure inline assembly touches no memory; the loop's load is pipelined past it. Impure
    # assembly may write anything, so the load is not.
    args = {"x": "*fp32:16", "out": "*fp32:16", "n": "i32"}
    k = kiln.compile(_asm_in_loop, args, {"PURE": True}, target="cuda:sm_80", num_warps=4)
    assert "cp.async" in k.asm["ptx"]
    with pytest.warns(kiln.CompilationRemark, match="loop not pipelined"):
        k = kiln.compile(_asm_in_loop, args, {"PURE": False}, target="cuda:sm_80",
                         num_warps=4)
    assert "cp.async" not in k.asm["ptx"]
