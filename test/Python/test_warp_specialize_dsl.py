"""kl.warp_specialize (Gluon's gl.warp_specialize) from the DSL, without a GPU: the
warp-specialized GEMM of examples/hopper_ws.py compiles to PTX that ptxas accepts, with the
loader warp launched beside the kernel's warps and the partitions meeting at named barrier 1;
partitions see their own warp count; and the mistakes are errors at the user's line."""

from __future__ import annotations

import os
import re
import sys

import pytest

import kiln
import kiln.language as kl

sys.path.insert(0, os.path.dirname(__file__))
import compiled  # noqa: E402,F401  (skips the module when the compiler is not built)
import located  # noqa: E402

HERE = os.path.abspath(__file__)
NV = kl.NVMMASharedLayout.get_default_for([128, 64], kl.bfloat16)
NV256 = kl.NVMMASharedLayout.get_default_for([128, 256], kl.bfloat16)


def _word_stores(k):
    """The values the kernel's thread 0 writes into the dispatch word: the constant operands of
    the predicated stores (``@p st.shared.b32 [global_smem+OFF]``) in the LLVM dialect, as
    strings. The word's place is named in the instruction, not passed in a register (a register
    would live from the kernel's start to its end and cost ptxas's uniform registers)."""
    text = k.asm["llvm_dialect"]
    consts = dict(re.findall(r"(%\d+) = llvm\.mlir\.constant\((-?\d+) : i32\)", text))
    stores = re.findall(r'"@\$1 st\.shared\.b32 \[global_smem\+(\d+)\], \$0;", "r,b" (%\d+), %\d+',
                        text)
    assert stores and all(v in consts for _, v in stores), stores
    # one word: every store names the same place
    assert len({off for off, _ in stores}) == 1, stores
    return [consts[v] for _, v in stores]


@pytest.mark.parametrize("persistent", [False, True])
def test_ws_gemm_compiles(persistent):
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "..", ".."))
    from examples import hopper_ws
    t = kl.tensor_descriptor_type
    k = hopper_ws.ws_gemm_kernel.warmup(
        t(kl.bfloat16, [128, 64], NV), t(kl.bfloat16, [256, 64], NV),
        t(kl.bfloat16, [128, 256], NV256), 4096, 4096, 4096, STAGES=3, GROUP_M=8,
        PERSISTENT=persistent, num_warps=8, grid=(1,), target="cuda:sm_90a")
    ptx = k.asm["ptx"]
    assert k.asm.get("cubin")  # ptxas accepted it
    # 8 warps of the kernel plus the loader warp, padded to a whole warp group (the loader
    # asks for 24 registers: setmaxnreg works on groups of 4 warps).
    assert k.metadata["num_warps"] == 8 and k.metadata["total_num_warps"] == 12
    assert ".maxntid 384, 1, 1" in ptx
    # 64 Ki registers over 384 threads: each starts with 168; the loader's group drops to 24
    # and the consumers take the rest, (168 * 384 - 24 * 128) / 256 = 240 (Gluon's numbers).
    assert re.search(r"\.maxnreg 168\b", ptx)
    assert re.findall(r"setmaxnreg\.(\w+)\.sync\.aligned\.u32\s+(\d+);", ptx) == \
        [("inc", "240"), ("dec", "24")]
    # Both sides meet at barrier 1 (all 384 threads) at the start of the call, where the
    # kernel's thread 0 has written the call's number (1; 0 before they return) into the
    # dispatch word the workers read after it (two barrier.syncs), and at its end (one):
    # the kernel's warps 2 + 1 + 2 (their return), the workers' waiting loop 2 + 1.
    assert len(re.findall(r"barrier\.sync\s+1, 384;", ptx)) == 8
    assert sorted(_word_stores(k)) == ["0", "1"]
    assert re.search(r"@%p\d+ st\.shared\.b32 \[global_smem\+\d+\], %r\d+;", ptx)
    # Not the .aligned form (bar.sync), nor a reduction barrier: the two sides reach barrier
    # 1 at their own instructions, and compute-sanitizer's synccheck stops a kernel whose
    # threads meet at a bar.red (or barrier.red) from different instructions as "divergent
    # thread(s) in block".
    assert not re.search(r"\bbar\.sync\s+1, 384;|\bbar(rier)?\.red\b", ptx)
    # the kernel's own barriers count its 256 threads; the loader issues the only TMA
    # loads, the consumers the only wgmma.
    assert not re.search(r"bar\.sync\s+0;", ptx)
    assert re.search(r"bar\.sync\s+0, 256;", ptx)
    assert ptx.count("cp.async.bulk.tensor.2d.shared::cluster.global") == 2
    assert ptx.count("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16") == 4
    # Ring (3 x 48 KiB), the C tile and 6 barriers, all live at once.
    assert 3 * 48 * 1024 + 64 * 1024 + 6 * 8 <= k.metadata["shared"] <= 227 * 1024


@kiln.jit
def _check_warps(WANT: kl.constexpr):
    kl.static_assert(kl.num_warps() == WANT)


@kiln.jit
def partitions_see_their_warps():
    kl.warp_specialize([(_check_warps, (4,)), (_check_warps, (2,)), (_check_warps, (1,))],
                       [2, 1], [24, 24])


def test_partitions_see_their_warp_count():
    k = kiln.compile(partitions_see_their_warps, {}, {}, target="cuda:sm_90a", cache=False)
    # 4 + 2 + 1 warps, the workers padded to one warp group of 4 for setmaxnreg.
    assert k.metadata["total_num_warps"] == 8


@kiln.jit
def two_warp_kernel_ws():
    kl.warp_specialize([(_check_warps, (2,)), (_check_warps, (1,))], [1], [24])


@pytest.mark.parametrize("target", ["cuda:sm_90a", "cuda:sm_80"])
def test_no_register_reallocation(target):
    # The kernel's 2 warps would share a warp group with the worker (sm_90a), or the chip
    # has no setmaxnreg (sm_80): the counts stay hints, nothing is padded.
    k = kiln.compile(two_warp_kernel_ws, {}, {}, target=target, num_warps=2, cache=False)
    assert k.metadata["total_num_warps"] == 3
    assert "setmaxnreg" not in k.asm["ptx"] and ".maxnreg" not in k.asm["ptx"]
    assert k.asm.get("cubin")


@kiln.jit
def ws_without_register_counts(NONE: kl.constexpr):
    if NONE:
        kl.warp_specialize([(_check_warps, (4,)), (_check_warps, (4,))], [4], None)
    else:
        kl.warp_specialize([(_check_warps, (4,)), (_check_warps, (4,))], [4])


@pytest.mark.parametrize("none", [False, True])
def test_register_counts_are_optional(none):
    # Gluon's worker_num_regs defaults to None: no partition changes its register count (a
    # third-party split GEMM calls warp_specialize([...], [4])).
    k = kiln.compile(ws_without_register_counts, {}, {"NONE": none}, target="cuda:sm_90a",
                     cache=False)
    assert "partition_num_regs" not in k.asm["tile"]
    assert "setmaxnreg" not in k.asm["ptx"]
    assert k.metadata["total_num_warps"] == 8


@kiln.jit
def _nothing():
    pass


@kiln.jit
def _returns(x):
    return x + 1


def e_returns(x):
    kl.warp_specialize([(_nothing, ()), (_returns, (x,))], [1], [24])  # E:ret


def e_warps_length(x):
    kl.warp_specialize([(_nothing, ()), (_nothing, ())], [1, 1], [24])  # E:len


def e_not_jit(x):
    kl.warp_specialize([(_nothing, ()), (print, ())], [1], [24])  # E:jit


def e_three_warps(x):
    kl.warp_specialize([(_nothing, ()), (_nothing, ())], [3], [24])  # E:three


def e_regs(x):
    kl.warp_specialize([(_nothing, ()), (_nothing, ())], [1], [20])  # E:regs


def e_one_pair(x):
    kl.warp_specialize([(_nothing, ())], [], [])  # E:one


def e_not_pair(x):
    kl.warp_specialize([(_nothing, ()), _nothing], [1], [24])  # E:pair


def e_args_not_tuple(x):
    kl.warp_specialize([(_nothing, ()), (_nothing, 3)], [1], [24])  # E:tuple


def e_too_many_warps(x):
    kl.warp_specialize([(_nothing, ()), (_nothing, ())], [32], [24])  # E:many


@kiln.jit
def _uses(x):
    y = x + 1  # E:use


def e_loop_value(x):
    # A loop's tensor result: a worker cannot recompute it, and only scalars are passed.
    s = kl.zeros([32], kl.int32, kl.BlockedLayout([1], [32], [4], [0]))
    for i in range(x):
        s += i
    kl.warp_specialize([(_nothing, ()), (_uses, (s,))], [4], [24])


@kiln.jit
def _inner_ws():
    kl.warp_specialize([(_nothing, ()), (_nothing, ())], [1], [24])  # E:nested


def e_nested(x):
    kl.warp_specialize([(_nothing, ()), (_inner_ws, ())], [1], [24])


ERRORS = [
    (e_returns, "E:ret", "kl.warp_specialize",
     r"warp_specialize: worker partition 0 \(_returns\) returns a value; only the default "
     r"partition \(the first entry\) returns values"),
    (e_warps_length, "E:len", "kl.warp_specialize",
     r"warp_specialize: worker_num_warps must be a list of 1 constexpr int\(s\), one per "
     r"worker partition, got \[1, 1\]"),
    (e_not_jit, "E:jit", "kl.warp_specialize",
     r"warp_specialize: entry 1 must name a @kiln.jit function, got print"),
    (e_three_warps, "E:three", "kl.warp_specialize",
     r"warp_specialize: worker partition 0 has 3 warps; each must be a power of two between 1 "
     r"and 32"),
    (e_regs, "E:regs", "kl.warp_specialize",
     r"warp_specialize: worker partition 0 asks for 20 registers; each count must be a "
     r"multiple of 8 between 24 and 256"),
    (e_one_pair, "E:one", "kl.warp_specialize",
     r"warp_specialize: functions_and_args must be a list of \(function, args\) pairs, the "
     r"default partition's first and at least one worker's after it"),
    (e_not_pair, "E:pair", "kl.warp_specialize",
     r"warp_specialize: entry 1 of functions_and_args must be a \(function, args\) pair"),
    (e_args_not_tuple, "E:tuple", "kl.warp_specialize",
     r"warp_specialize: the arguments of entry 1 \(_nothing\) must be a tuple"),
    (e_too_many_warps, "E:many", "kl.warp_specialize",
     r"warp_specialize: 4 warps of the kernel plus 32 of the workers exceed the 32 warps of "
     r"a CTA"),
    (e_loop_value, "E:use", "x + 1",
     r"'arith.addi' op in worker partition 0 uses a value the kernel's warps compute \(a loop "
     r"or branch result\) and the partition cannot recompute: .*integer or float scalars of "
     r"any origin and tensor descriptors the kernel makes \(passed through shared memory\); "
     r"pass a tensor as a shared-memory buffer"),
    (e_nested, "E:nested", "kl.warp_specialize",
     r"warp_specialize: cannot be inside another tile.warp_specialize"),
]


@pytest.mark.parametrize("fn,marker,anchor,message", ERRORS, ids=[e[1] for e in ERRORS])
def test_errors_point_at_the_user_line(fn, marker, anchor, message):
    kernel = kiln.jit(fn)
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(kernel, {"x": "i32"}, {}, target="cuda:sm_90a", cache=False)
    located.assert_located(ei.value, HERE, marker, anchor, message, kiln.CompilationError)


def test_amd_has_no_warp_specialize():
    with pytest.raises(kiln.CompilationError, match="is not supported on hip:gfx942"):
        kiln.compile(kiln.jit(e_warps_ok), {"x": "i32"}, {}, target="hip:gfx942", cache=False)


def e_warps_ok(x):
    kl.warp_specialize([(_nothing, ()), (_nothing, ())], [1], [24])


@pytest.mark.parametrize("target", ["cuda:sm_90a", "cuda:sm_80"])
def test_default_partition_returns_values(target):
    from ws_return_kernels import ws_default_returns
    k = kiln.compile(ws_default_returns, signature={"X": "*fp32", "Y": "*fp32", "Out": "*fp32"},
                     constexprs={"N": 128}, target=target, cache=False)
    tile = k.asm["tile"]
    assert re.search(r"tile\.warp_specialize partition_num_warps = \[1\].*-> \(", tile)
    assert re.search(r"tile\.warp_yield %\S+, %\S+ : ", tile)
    assert k.asm["ptx"].count("st.global") >= 2


def test_two_warp_specializes_share_the_worker_warps():
    """Two calls in one kernel: the worker warps are launched once for both (4-7 take op 1's
    1-warp loader and op 2's 4-warp worker, 8-11 op 2's 2-warp worker), each group sets the
    largest count any call asks of it once (80 and 40; 168 * 384 - (80 + 40) * 128 leaves the
    kernel's warps 256), and all 384 threads meet at barrier 1 before and after each call."""
    from ws_several_kernels import ws_two_phases
    k = ws_two_phases.warmup("*fp32", "*fp32", "*fp32", "*fp32", "*fp32", "i32", 128, 2, 256,
                             grid=(1,), target="cuda:sm_90a")
    ptx = k.asm["ptx"]
    assert ".maxntid 384, 1, 1" in ptx and ".maxnreg 168" in ptx
    regs = re.findall(r"setmaxnreg\.(inc|dec)\.sync\.aligned\.u32\s+(\d+);", ptx)
    assert sorted(regs) == [("dec", "40"), ("dec", "80"), ("inc", "256")]
    # Each call: both sides at its end (the kernel's warps once per call, each worker group
    # once per call in its own waiting loop -- groups 4-7 and 8-11 share no partition, so
    # each has a loop of its own) and at its start (two barriers: the kernel's warps' two
    # calls and their return, each group's wait), all barrier.sync 1, 384.
    assert len(re.findall(r"barrier\.sync\s+1, 384;", ptx)) == (2 + 2 * 2) + 2 * (3 + 2)
    # the dispatch word: 1 and 2 for the calls, 0 for the return
    assert sorted(_word_stores(k)) \
        == ["0", "1", "2"]
    assert k.asm["tile"].count("tile.warp_specialize") == 2


def test_warp_specialize_in_loops_and_branches():
    """Calls in a loop and in ifs (Gluon allows them): before every start barrier the kernel's
    thread 0 writes the call's number into the dispatch word (0 before its returns); the
    workers wait at the start barrier in a loop and read it. The loop's counter and the ring
    slot it indexes reach the worker through shared memory (test/gpu/test_ws_loops.py runs
    them)."""
    import ws_loop_kernels as W
    k = kiln.compile(W.ws_in_loop, {"x": "*i32", "out": "*i32", "calls": "*i32", "n": "i32"},
                     {"BLOCK": 64}, target="cuda:sm_90a", cache=False)
    ptx = k.asm["ptx"]
    assert "scf.for" in k.asm["tile"] and k.asm["tile"].count("tile.warp_specialize") == 1
    # one call (written as 1) and the return (0); each start is two barriers (the scalars
    # the call passes are stored before them and loaded after), the call's end one: the
    # kernel's 2 + 1 + 2, the workers' 2 + 1
    assert sorted(_word_stores(k)) \
        == ["0", "1"], ptx
    assert len(re.findall(r"barrier\.sync\s+1, 256;", ptx)) == 8, ptx
    k = kiln.compile(W.ws_in_branches, {"out": "*i32", "n": "i32"}, {"BLOCK": 32},
                     target="cuda:sm_90a", cache=False)
    ptx = k.asm["ptx"]
    assert k.asm["tile"].count("tile.warp_specialize") == 3
    # three calls and one return for the kernel's warps
    assert sorted(_word_stores(k)) \
        == ["0", "1", "2", "3"], ptx
    assert not re.search(r"\bbar(rier)?\.red\b", ptx)


def test_worker_carries_a_tensor_through_its_loop():
    """A loop and a branch inside a one-warp worker that carry a tensor in the worker's
    layout compile: lowered to blocks inside the partition, their arguments are the
    partition's one-warp layout, not the kernel's four (test/gpu/test_ws_loops.py runs it)."""
    import ws_loop_kernels as W
    k = kiln.compile(W.ws_worker_loop, {"x": "*i32", "out": "*i32", "n": "i32"}, {"BLOCK": 32},
                     num_warps=4, target="cuda:sm_90a", cache=False)
    assert k.asm.get("cubin")
    tile = k.asm["tile"]
    assert "warpsPerCTA = [1]" in tile and "warpsPerCTA = [4]" in tile
    assert tile.count("scf.for") == 2


@kiln.jit
def many_calls(x, N: kl.constexpr):
    for i in kl.static_range(N):
        kl.warp_specialize([(_nothing, ()), (_nothing, ())], [1], [24])


def test_calls_are_numbered_past_the_kernel_threads():
    # The dispatch word holds the call's number: a kernel of one warp may make more calls
    # than it has threads (the start barrier counted them once, 32 at most).
    k = kiln.compile(many_calls, {"x": "i32"}, {"N": 40}, target="cuda:sm_90a",
                     num_warps=1, cache=False)
    written = _word_stores(k)
    assert sorted(map(int, written)) == list(range(41))  # 40 calls, then 0: return
    assert k.asm.get("cubin")


def test_scalars_workers_cannot_recompute_go_through_shared_memory():
    """A length loaded from memory, a scale, a loop's and a branch's result reach the worker
    partition through the op's scratch: the kernel's warps store them before the op, the
    worker loads them (test/gpu/test_ws_captures.py runs it)."""
    import ws_capture_kernels as W
    k = kiln.compile(W.ws_scalar_captures, {"out": "*fp32", "lens": "*i32", "scales": "*fp32",
                                            "m": "i32"}, {"BLOCK": 32}, target="cuda:sm_90a",
                     cache=False)
    llir = k.asm["llir"]
    # n, scale, total, pick: 32 bytes of scratch, four stores and four loads.
    assert len(re.findall(r"store (i32|float) %[^,]+, ptr addrspace\(3\)", llir)) >= 4
    assert len(re.findall(r"load (i32|float), ptr addrspace\(3\)", llir)) >= 4


def test_a_tensor_a_worker_cannot_recompute_is_still_an_error():
    import ws_capture_kernels as W
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(W.ws_tensor_capture, {"out": "*fp32"}, {"BLOCK": 32},
                     target="cuda:sm_90a", cache=False)
    assert "pass a tensor as a shared-memory buffer" in str(ei.value)
    assert "ws_capture_kernels.py" in str(ei.value)


@pytest.mark.parametrize("worker_warps", [1, 2, 4])
def test_partitions_reduce_concurrently(worker_warps):
    """Both partitions reduce across their warps and convert layouts through shared memory in
    every round of their loops: each partition's barriers count its own threads (the kernel's
    warps and the worker's at different named barriers), and their scratch does not overlap
    (test/gpu/test_ws_scratch.py checks the values)."""
    import ws_scratch_kernels as W
    k = kiln.compile(W.ws_scratch, {"x": "*i32", "y": "*i32", "out": "*i32", "n": "i32"},
                     {"ROWS": 64, "WORKER_WARPS": worker_warps}, num_warps=4,
                     target="cuda:sm_90a", cache=False)
    ptx = k.asm["ptx"]
    counts = set(re.findall(r"\bbar(?:rier)?\.sync\s+\d+,\s*(\d+);", ptx))
    assert "128" in counts  # the kernel's 4 warps
    if worker_warps > 1:    # one warp needs no barrier for what stays in it
        assert str(32 * worker_warps) in counts, counts
    assert not re.search(r"\bbar(?:rier)?\.sync\s+0;", ptx)  # never the whole CTA's barrier 0


def test_partitions_pipeline_their_loops():
    """A loop with num_stages in each partition is pipelined in it: cp.async rings of their
    own (two rings of 3 x 4 KiB), each partition waiting on its own groups
    (test/gpu/test_ws_loops.py checks the sums)."""
    import ws_loop_kernels as W
    k = kiln.compile(W.ws_pipelined_loops, {"x": "*fp32", "y": "*fp32", "out": "*fp32",
                                            "n": "i32"}, {"BLOCK": 64}, num_warps=4,
                     target="cuda:sm_90a", cache=False)
    ptx = k.asm["ptx"]
    assert ptx.count("cp.async.cg.shared.global") + ptx.count("cp.async.ca.shared.global") >= 2
    waits = re.findall(r"cp\.async\.wait_group\s+(\d+);", ptx)
    assert sorted(set(waits)) == ["0", "1"] and len(waits) == 4, waits  # two per partition
    assert k.metadata["shared"] >= 2 * 3 * 64 * 16 * 4


@kiln.jit
def _store_marker(out, WHO: kl.constexpr):
    L: kl.constexpr = kl.BlockedLayout([1], [32], [kl.num_warps()], [0])
    o = kl.arange(0, 32 * kl.num_warps(), L)
    kl.store(out + WHO * 1024 + o, o)


@kiln.jit
def ws_in_the_earlier_form(out):
    # Gluon up to Triton 3.5: (default_args, default_partition, worker_args,
    # worker_partitions, worker_num_warps, worker_num_regs), every worker taking worker_args.
    kl.warp_specialize((out, 0), _store_marker, (out, 1), [_store_marker], [2], [24])


@kiln.jit
def ws_in_the_current_form(out):
    kl.warp_specialize([(_store_marker, (out, 0)), (_store_marker, (out, 1))], [2], [24])


def test_the_earlier_warp_specialize_form_is_the_same_call():
    # A third-party warp-specialized attention uses the earlier form; it was refused with
    # "got multiple values for argument '_semantic'".
    old = kiln.compile(ws_in_the_earlier_form, {"out": "*i32"}, {}, target="cuda:sm_90a",
                       cache=False)
    new = kiln.compile(ws_in_the_current_form, {"out": "*i32"}, {}, target="cuda:sm_90a",
                       cache=False)
    body = lambda p: "\n".join(l for l in p.splitlines() if "ws_in_the" not in l)  # noqa: E731
    assert body(old.asm["ptx"]) == body(new.asm["ptx"])
    assert old.metadata["total_num_warps"] == new.metadata["total_num_warps"] == 8


@kiln.jit
def ws_with_too_many_arguments(out):
    kl.warp_specialize((out, 0), _store_marker, (out, 1), [_store_marker], [2])  # E:ws-args


def test_a_warp_specialize_of_neither_form_names_both():
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(ws_with_too_many_arguments, {"out": "*i32"}, {}, target="cuda:sm_90a",
                     cache=False)
    located.assert_located(
        ei.value, os.path.abspath(__file__), "E:ws-args", "kl.warp_specialize",
        r"warp_specialize takes \(functions_and_args, worker_num_warps\[, worker_num_regs\]\) "
        r"or Gluon's earlier \(default_args, default_partition, worker_args, "
        r"worker_partitions, worker_num_warps, worker_num_regs\); got 5 arguments",
        kiln.CompilationError)


SW128 = kl.NVMMASharedLayout.get_default_for([128, 128], kl.bfloat16)
BL128 = kl.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])


@kiln.jit
def _two_lifetimes(x, out, big0, big1):
    r = kl.arange(0, 128, kl.SliceLayout(1, BL128))
    c = kl.arange(0, 128, kl.SliceLayout(0, BL128))
    offs = r[:, None] * 128 + c[None, :]
    a = kl.allocate_shared_memory(kl.bfloat16, [128, 128], SW128, kl.load(x + offs))
    v = a.load(BL128)  # a is dead from here
    big0.index(0).store(v)
    o = kl.allocate_shared_memory(kl.bfloat16, [128, 128], SW128, v + big1.index(1).load(BL128))
    kl.store(out + offs, o.load(BL128))


@kiln.jit
def _idle(big0):
    pass


@kiln.jit
def dead_buffer_space(x, out, WS: kl.constexpr):
    # 2 x 96 KiB live throughout, then two 32 KiB buffers one after the other: fits in
    # 227 KiB only if the second reuses the first's bytes.
    big0 = kl.allocate_shared_memory(kl.bfloat16, [3, 128, 128], SW128)
    big1 = kl.allocate_shared_memory(kl.bfloat16, [3, 128, 128], SW128)
    if WS:
        kl.warp_specialize([(_two_lifetimes, (x, out, big0, big1)), (_idle, (big0,))], [1],
                           [24])
    else:
        _two_lifetimes(x, out, big0, big1)


@pytest.mark.parametrize("ws", [False, True])
def test_a_dead_buffers_bytes_are_reused(ws):
    kiln.compile(dead_buffer_space, {"x": "*bf16:16", "out": "*bf16:16"}, {"WS": ws},
                 target="cuda:sm_90a", num_warps=4, cache=False)


@pytest.mark.parametrize("worker_warps", [1, 4])
def test_each_partition_reuses_its_own_dead_buffers(worker_warps):
    """Two 64x64 bf16 tiles (8 KiB) per round in each partition, one dead before the other is
    made: each partition's pair shares bytes, the partitions' buffers do not (they run at the
    same time). Shared memory: the 16 KiB ring, one tile per partition, the dispatch word."""
    import ws_scratch_kernels as W
    k = kiln.compile(W.ws_dead_buffers, {n: "*bf16:16" for n in ("x", "y", "z", "out", "out2")}
                     | {"n": "i32"}, {"ROWS": 64, "WORKER_WARPS": worker_warps},
                     target="cuda:sm_90a", num_warps=4, cache=False)
    assert k.metadata["shared"] == 16384 + 2 * 8192 + 8, k.metadata["shared"]
