"""Where warp specialization puts a wgmma worker, without a GPU: test/gpu/ws_wgmma_kernels.py's
kernel (a default partition and small workers writing tags, one worker of 4 warps running
wgmma) compiled for cuda:sm_90a for each worker configuration.

Workers are placed largest first, each starting at a multiple of min(its warps, 4), so the
4-warp wgmma worker runs on warps 4-7, one aligned warpgroup, whatever order the workers are
listed in (laid out in order, [2, 4] put it on warps 6-9 and [1, 4] on 5-8, which hangs the
GPU). Checked per configuration:
* the kernel compiles and ptxas accepts it;
* the launched thread count: ``.maxntid`` and metadata ``total_num_warps`` (with the workers'
  register counts on sm_90a and num_warps 4, the workers are padded to whole warp groups;
  the same module lowered without register counts launches exactly the partitions' warps);
* the dispatch, read from the LLVM-dialect stage: following the entry's branches on the warp
  index for each warp says which partition's code it runs (the wgmma, a tagger's store of
  its tag, or nothing: padding), and which ``setmaxnreg`` count it sets;
* a wgmma in a 2-warp worker is a CompilationError at the user's line."""

from __future__ import annotations

import os
import re
import sys

import pytest

import kiln
import kiln.language as kl
from kiln.language.nvidia.hopper import fence_async_shared, warpgroup_mma, warpgroup_mma_wait

sys.path.insert(0, os.path.dirname(__file__))
import compiled  # noqa: E402
import located  # noqa: E402

pytestmark = compiled.needs_compiler

HERE = os.path.abspath(__file__)
sys.path.append(os.path.join(os.path.dirname(HERE), "..", "gpu"))
import ws_wgmma_kernels as wk  # noqa: E402  (test/gpu's kernel, shared with the GPU test)

TARGET = "cuda:sm_90a"

# (num_warps, worker_num_warps) -> the expected layout: who runs on each warp, in warp order
# ("default", "mma" for the wgmma worker, "tag<p>" for worker partition p's tags, "pad" for
# warps that only wait at the end barrier). These are the partitions' warps alone; with the
# workers' register counts (num_warps 4 on sm_90a) _padded adds padding warps up to a whole
# warp group.
D, M, P = "default", "mma", "pad"
LAYOUTS = {
    (4, (4,)): [D] * 4 + [M] * 4,
    (4, (2, 4)): [D] * 4 + [M] * 4 + ["tag1"] * 2,
    (4, (4, 2)): [D] * 4 + [M] * 4 + ["tag2"] * 2,
    (4, (1, 4)): [D] * 4 + [M] * 4 + ["tag1"],
    (4, (2, 1, 4)): [D] * 4 + [M] * 4 + ["tag1"] * 2 + ["tag2"],
    # 2 warps of the kernel: no register reallocation (not whole warp groups), and warps 2-3
    # are left out so that the wgmma worker still starts at warp 4.
    (2, (4,)): [D] * 2 + [P] * 2 + [M] * 4,
    (2, (2, 4)): [D] * 2 + [P] * 2 + [M] * 4 + ["tag1"] * 2,
    (2, (1, 4)): [D] * 2 + [P] * 2 + [M] * 4 + ["tag1"],
}
CASES = sorted(LAYOUTS)


def _id(case):
    num_warps, workers = case
    return f"nw{num_warps}-w" + "-".join(map(str, workers))


def _padded(layout, num_warps):
    """With register counts (num_warps a multiple of 4 on sm_90a) the workers' warps are
    padded to whole warp groups of 4."""
    if num_warps % 4:
        return list(layout)
    return list(layout) + [P] * (-len(layout) % 4)


def _compile(case, m=64, n=128, dtype="bf16"):
    num_warps, workers = case
    return kiln.compile(wk.ws_wgmma_kernel, wk.signature(dtype),
                        wk.constexprs(list(workers), m, n, 64, dtype), target=TARGET,
                        num_warps=num_warps, cache=False)


def _lower_without_regs(k, num_warps):
    """The kernel's tile stage without ``partition_num_regs``, through the same lowering and
    translation as kiln.compile: (llvm_dialect text, total_num_warps, ptx)."""
    from kiln.compiler import compiler as cm
    c = cm.load_compiler()
    tile = k.asm["tile"]
    stripped, count = re.subn(r" partition_num_regs = \[[0-9, ]*\]", "", tile)
    assert count == 1, "the tile stage's warp_specialize carries partition_num_regs"
    out = c.run_pipeline_with_info(stripped, cm.lowering_pipeline(TARGET, num_warps),
                                   "kernel.tile.mlir")
    llvm = out["text"]
    ptx = c.translate(llvm, TARGET, "ptx")
    ptx = ptx.decode() if isinstance(ptx, bytes) else ptx
    assert c.translate(llvm, TARGET, "cubin"), "ptxas refused the PTX"
    return llvm, int(out["info"]["total_num_warps"]), ptx


# --- the dispatch, read from the LLVM dialect ----------------------------------------------------

_DEF = re.compile(r"^\s*(%[\w.$-]+)(?::\d+)? = (.*)$")
_BLOCK = re.compile(r"^\s*\^(bb\d+)(?:\(.*\))?:")
_COND_BR = re.compile(r"llvm\.cond_br (%[\w.$-]+)(?: weights\(\[[^\]]*\]\))?, "
                      r"\^(bb\d+)(?:\([^)]*\))?, \^(bb\d+)")
_BR = re.compile(r"llvm\.br \^(bb\d+)")
_ICMP = re.compile(r'llvm\.icmp "(\w+)" (%[\w.$-]+), (%[\w.$-]+)')
_CONST = re.compile(r"llvm\.mlir\.constant\((-?\d+) : i\d+\)")
_PREDS = {"ult": lambda a, b: a < b, "ule": lambda a, b: a <= b, "ugt": lambda a, b: a > b,
          "uge": lambda a, b: a >= b, "slt": lambda a, b: a < b, "sle": lambda a, b: a <= b,
          "sgt": lambda a, b: a > b, "sge": lambda a, b: a >= b, "eq": lambda a, b: a == b,
          "ne": lambda a, b: a != b}


class Dispatch:
    """The kernel function of an LLVM-dialect module as blocks, and for each warp index the
    blocks it can reach: branches on a comparison of the warp index (the value the entry block
    branches on) with a constant are decided for that warp, any other branch may go either
    way."""

    def __init__(self, text):
        lines = text.splitlines()
        start = next(i for i, l in enumerate(lines) if l.lstrip().startswith("llvm.func @"))
        self.blocks = {"bb0": []}
        self.order = ["bb0"]
        self.defs = {}
        current = "bb0"
        for line in lines[start + 1:]:
            if re.match(r"^\s*\}", line):  # the function's end (no nested regions remain)
                break
            m = _BLOCK.match(line)
            if m:
                current = m.group(1)
                self.blocks[current] = []
                self.order.append(current)
                continue
            self.blocks[current].append(line)
            d = _DEF.match(line)
            if d:
                self.defs[d.group(1)] = d.group(2)
        self.consts = {name: int(m.group(1)) for name, rhs in self.defs.items()
                       if (m := _CONST.match(rhs))}
        # The entry branches on (warp < num_warps): the kernel's warps go on, the rest dispatch.
        cond, self.default_entry, _ = self._branch("bb0")
        pred, self.warp, bound = _ICMP.match(self.defs[cond]).groups()
        assert pred == "ult" and bound in self.consts, self.defs[cond]
        self.num_warps = self.consts[bound]

    def _branch(self, block):
        term = self.blocks[block][-1]
        m = _COND_BR.search(term)
        return m.groups() if m else None

    def _successors(self, block, warp):
        term = self.blocks[block][-1]
        m = _COND_BR.search(term)
        if m:
            cond, yes, no = m.groups()
            icmp = _ICMP.match(self.defs.get(cond, ""))
            if icmp and icmp.group(2) == self.warp and icmp.group(3) in self.consts:
                taken = _PREDS[icmp.group(1)](warp, self.consts[icmp.group(3)])
                return [yes if taken else no]
            return [yes, no]
        m = _BR.search(term)
        if m:
            return [m.group(1)]
        assert re.search(r"llvm\.(return|unreachable)", term), f"unknown terminator: {term}"
        return []

    def reach(self, warp):
        seen, todo = [], ["bb0"]
        while todo:
            b = todo.pop()
            if b in seen:
                continue
            seen.append(b)
            todo.extend(self._successors(b, warp))
        return seen

    def uses(self, blocks, value):
        pat = re.compile(re.escape(value) + r"(?![\w.$-])")
        return any(pat.search(l) and not l.lstrip().startswith(value + " =")
                   for b in blocks for l in self.blocks[b])

    def constant(self, value):
        """Names of the i32 constants equal to ``value``."""
        return [n for n, v in self.consts.items() if v == value]

    def text(self, blocks):
        return "\n".join(l for b in blocks for l in self.blocks[b])

    def owner(self, warp, mma_tag, max_tag):
        """Who warp ``warp`` runs: "default", "mma", "tag<p>" or "pad"; and the setmaxnreg
        counts it sets on the way."""
        blocks = self.reach(warp)
        text = self.text(blocks)
        regs = [(m.group(1), int(m.group(2))) for m in
                re.finditer(r"nvvm\.setmaxregister\s+(increase|decrease) (\d+)", text)]
        if self.default_entry in blocks:
            return "default", regs
        # Each partition stores p * 1000 + t for its threads t: the constant p * 1000 (p > 0)
        # is used only by partition p's code.
        tags = {p for p in range(1, max_tag + 1)
                if any(self.uses(blocks, name) for name in self.constant(p * 1000))}
        if "wgmma.mma_async" in text:
            assert tags == {mma_tag}, (warp, tags)
            return "mma", regs
        assert len(tags) <= 1, (warp, tags)
        return (f"tag{tags.pop()}" if tags else "pad"), regs


def _check_dispatch(llvm, case, want, total, with_regs):
    num_warps, workers = case
    _, mma_at = wk.worker_config(list(workers))
    d = Dispatch(llvm)
    assert d.num_warps == num_warps
    got = [d.owner(w, mma_at + 1, len(workers)) for w in range(total)]
    assert [o for o, _ in got] == want, "\n".join(f"warp {w}: {o}" for w, (o, _) in
                                                  enumerate(got))
    if with_regs:
        # Each worker warp group sets one count: the wgmma worker's group (warps 4-7) its
        # MMA_REGS, the group of the taggers (and padding) theirs.
        for w in range(num_warps, total):
            want_regs = wk.MMA_REGS if want[w] == M else wk.TAG_REGS
            assert got[w][1] == [("decrease", want_regs)], (w, got[w][1])
    else:
        assert all(not regs for _, regs in got)
    # The wgmma worker's threads count from its first warp (warp 4: thread 128).
    tid = next(n for n, rhs in d.defs.items() if rhs.startswith("nvvm.read.ptx.sreg.tid.x"))
    mma_only = [b for b in d.reach(want.index(M))
                if all(b not in d.reach(w) for w in range(total) if want[w] != M)]
    rebased = re.findall(rf"llvm\.sub {re.escape(tid)}, (%[\w.$-]+)", d.text(mma_only))
    assert [d.consts.get(v) for v in rebased] == [4 * 32], rebased


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_wgmma_worker_on_warps_4_to_7(case):
    num_warps, workers = case
    k = _compile(case)
    assert k.asm.get("cubin"), "no cubin: ptxas refused the PTX"
    ptx = k.asm["ptx"]
    want = _padded(LAYOUTS[case], num_warps)
    total = len(want)
    assert k.metadata["total_num_warps"] == total
    assert re.search(rf"\.maxntid {32 * total}, 1, 1\b", ptx), \
        re.findall(r"\.maxntid.*", ptx)
    # All warps, padding included, meet at named barrier 1 before and after the partitions.
    assert len(re.findall(rf"barrier\.sync\s+1, {32 * total};", ptx)) >= 2
    assert ptx.count("wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16") == 4
    _check_dispatch(k.asm["llvm_dialect"], case, want, total, with_regs=not num_warps % 4)


@pytest.mark.parametrize("case", [c for c in CASES if c[0] % 4 == 0],
                         ids=[_id(c) for c in CASES if c[0] % 4 == 0])
def test_exact_warps_without_register_counts(case):
    # The same module without partition_num_regs: no padding, the partitions' warps alone
    # ([2, 4]: 4 + 4 + 2 = 10 warps, 320 threads; [1, 4]: 9 warps, 288 threads).
    num_warps, workers = case
    llvm, total, ptx = _lower_without_regs(_compile(case), num_warps)
    want = LAYOUTS[case]
    assert total == len(want) == num_warps + sum(workers)
    assert re.search(rf"\.maxntid {32 * total}, 1, 1\b", ptx), re.findall(r"\.maxntid.*", ptx)
    assert "setmaxnreg" not in ptx and ".maxnreg" not in ptx
    _check_dispatch(llvm, case, want, total, with_regs=False)


@pytest.mark.parametrize("m,n,dtype", [(64, 64, "bf16"), (64, 128, "fp16"), (128, 128, "bf16")])
@pytest.mark.parametrize("case", [(4, (2, 4)), (4, (1, 4)), (2, (1, 4))],
                         ids=["nw4-w2-4", "nw4-w1-4", "nw2-w1-4"])
def test_gpu_test_shapes_compile(case, m, n, dtype):
    # The other shapes test/gpu/test_ws_wgmma_placement.py runs: M = 128 is two m64 wgmma
    # per k-step on the worker's warpgroup.
    k = _compile(case, m, n, dtype)
    assert k.asm.get("cubin")
    ptx_type = {"bf16": "bf16", "fp16": "f16"}[dtype]
    name = f"wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{ptx_type}.{ptx_type}"
    assert k.asm["ptx"].count(name) == 4 * m // 64
    d = Dispatch(k.asm["llvm_dialect"])
    _, mma_at = wk.worker_config(list(case[1]))
    assert [d.owner(w, mma_at + 1, len(case[1]))[0] for w in range(4, 8)] == [M] * 4


# --- a wgmma worker that is not a warpgroup -------------------------------------------------------

A_L = kl.NVMMASharedLayout.get_default_for([64, 64], kl.bfloat16)


@kiln.jit
def _two_warp_mma(a_smem, b_smem, c):
    # An accumulator over this partition's 2 warps (NVMMADistributedLayout would refuse it).
    acc_layout: kl.constexpr = kl.BlockedLayout([1, 4], [8, 4], [kl.num_warps(), 1], [1, 0])
    acc = kl.zeros([64, 64], kl.float32, acc_layout)
    fence_async_shared()
    acc = warpgroup_mma(a_smem, b_smem.permute((1, 0)), acc)  # E:wg
    rows = kl.arange(0, 64, kl.SliceLayout(1, acc_layout))
    cols = kl.arange(0, 64, kl.SliceLayout(0, acc_layout))
    kl.store(c + rows[:, None] * 64 + cols[None, :], acc)


@kiln.jit
def _idle():
    pass


@kiln.jit
def two_warp_wgmma_worker(c):
    a_smem = kl.allocate_shared_memory(kl.bfloat16, [64, 64], A_L)
    b_smem = kl.allocate_shared_memory(kl.bfloat16, [64, 64], A_L)
    kl.warp_specialize([(_idle, ()), (_two_warp_mma, (a_smem, b_smem, c))], [2], [24])


def test_wgmma_in_a_two_warp_worker_is_an_error():
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(two_warp_wgmma_worker, {"c": "*fp32"}, {}, target=TARGET, num_warps=4,
                     cache=False)
    located.assert_located(ei.value, HERE, "E:wg", "warpgroup_mma",
                           r"warpgroup_mma: wgmma runs on warpgroups of 4 warps; "
                           r"this worker partition has 2 warps", kiln.CompilationError)


@kiln.jit
def _two_warp_mma_nvmma(a_smem, b_smem):
    acc_layout: kl.constexpr = kl.NVMMADistributedLayout(
        version=[3, 0], warps_per_cta=[kl.num_warps(), 1], instr_shape=[16, 64, 16])
    acc = kl.zeros([64, 64], kl.float32, acc_layout)
    acc = warpgroup_mma(a_smem, b_smem.permute((1, 0)), acc, is_async=True)  # E:nvmma
    warpgroup_mma_wait(0, deps=(acc,))


@kiln.jit
def two_warp_nvmma_worker(c):
    a_smem = kl.allocate_shared_memory(kl.bfloat16, [64, 64], A_L)
    b_smem = kl.allocate_shared_memory(kl.bfloat16, [64, 64], A_L)
    kl.warp_specialize([(_idle, ()), (_two_warp_mma_nvmma, (a_smem, b_smem))], [2], [24])


def test_wgmma_layout_in_a_two_warp_worker_is_an_error():
    # Written as in a 4-warp worker: the layout is one (Gluon accepts any warps_per_cta),
    # the wgmma that uses it is refused.
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(two_warp_nvmma_worker, {"c": "*fp32"}, {}, target=TARGET, num_warps=4,
                     cache=False)
    located.assert_located(ei.value, HERE, "E:nvmma", "warpgroup_mma",
                           r"warpgroup_mma: wgmma runs on warpgroups of 4 warps; "
                           r"this worker partition has 2 warps", kiln.CompilationError)
