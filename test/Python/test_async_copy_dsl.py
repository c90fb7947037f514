"""The DSL's async copies (Gluon's ``nvidia.ampere.async_copy``) without a GPU: the tile ops
they emit, the PTX they compile to (cp.async width and cache level, commit and wait groups, the
barrier Kiln places after a wait), the cp.async legality errors, and argument errors at the
user's line."""

from __future__ import annotations

import os
import re

import pytest

import kiln
import kiln.language as kl
from kiln.compiler import compiler as compiler_mod
from kiln.language.nvidia.ampere import async_copy as cp

import compiled  # examples/ on sys.path
import located

from kernels import ring_add, ring_add_tokens  # noqa: E402  (examples/kernels.py)

pytestmark = compiled.needs_compiler

HERE = os.path.abspath(__file__)
TARGET = "cuda:sm_90a"
SH = kl.SwizzledSharedLayout(1, 1, 1, [1, 0])


def rows_layout(spt, BN=64, warp=32, num_warps=4):
    lanes = min(warp, BN // spt)
    return kl.BlockedLayout([1, spt], [warp // lanes, lanes], [num_warps, 1], [1, 0])


COLS_DOWN = kl.BlockedLayout([4, 1], [8, 4], [1, 4], [0, 1])


def ring_signature(dtype, aligned=True):
    p = f"*{dtype}:16"
    return {"a": p, "b": p, "c": p, "M": "i32", "N": "i32:16" if aligned else "i32",
            "ROWS": "i32:16"}


def ring_constexprs(nbuf=3, CL=None, LL=None, dtype="fp16"):
    CL = CL or rows_layout(8 if dtype == "fp16" else 4)
    return dict(BM=32, BN=64, NBUF=nbuf, CL=CL, LL=LL or CL, SH=SH)


@pytest.mark.parametrize("nbuf", [2, 3, 4])
def test_ring_emits_async_copy_ops(nbuf):
    ir = compiler_mod.make_ir(ring_add, ring_signature("fp16"), ring_constexprs(nbuf),
                              target=TARGET)
    # two copies per group: NBUF-1 groups in the prologue, one per iteration
    assert ir.count('"tile.async_copy_global_to_local"') == 2 * nbuf
    assert ir.count('"tile.async_commit_group"') == nbuf
    # the loop's wait_group(NBUF-1), then the final wait_group(0) (SSA names and locations
    # dropped, so that only the count's digits remain)
    waits = [re.sub(r"%[\w.#]+|\s*loc\(.*$", "", line) for line in ir.splitlines()
             if '"tile.async_wait"' in line]
    assert len(waits) == 2, waits
    assert re.search(rf"\b{nbuf - 1}\b", waits[0]) and re.search(r"\b0\b", waits[1]), waits


def compile_ring(dtype="fp16", aligned=True, **kw):
    return kiln.compile(ring_add, ring_signature(dtype, aligned), ring_constexprs(dtype=dtype,
                                                                                 **kw),
                        target=TARGET, cache=False)


def cp_async_widths(ptx):
    """{(cache level, bytes)} of the cp.async instructions in ``ptx``."""
    return set((lvl, int(n)) for lvl, n in re.findall(
        r"cp\.async\.(ca|cg)\.shared\.global[.\w:]*\s*\[[^\]]*\],\s*\[[^\]]*\],\s*(\d+)", ptx))


def test_ring_compiles_to_16_byte_cp_async():
    k = compile_ring("fp16", nbuf=3)
    for stage in ("tile", "llvm_dialect"):
        assert k.asm[stage]  # every stage kept
    assert "tile.async_copy_global_to_local" in k.asm["tile"]
    ptx = k.asm["ptx"]
    assert cp_async_widths(ptx) == {("cg", 16)}, cp_async_widths(ptx)
    assert "cp.async.commit_group" in ptx
    assert re.search(r"cp\.async\.wait_group\s+2\s*;", ptx)
    assert re.search(r"cp\.async\.wait_group\s+0\s*;", ptx)
    assert k.metadata["shared"] >= 2 * 3 * 32 * 64 * 2


@pytest.mark.parametrize("dtype,spt,aligned,expected", [
    ("fp32", 4, True, {("cg", 16)}),
    ("fp32", 2, True, {("ca", 8)}),     # two floats per thread
    ("fp32", 1, True, {("ca", 4)}),
    ("fp32", 4, False, {("ca", 4)}),    # rows of unknown alignment: one float at a time
    ("fp16", 2, True, {("ca", 4)}),
    ("fp16", 4, True, {("ca", 8)}),
])
def test_width_and_cache_level(dtype, spt, aligned, expected):
    k = compile_ring(dtype, aligned, CL=rows_layout(spt))
    assert cp_async_widths(k.asm["ptx"]) == expected


@pytest.mark.parametrize("swizzle,expected", [
    ((1, 1, 1), {("cg", 16)}),   # unswizzled rows: the whole 16 bytes are contiguous
    ((8, 1, 8), {("cg", 16)}),   # 8 x fp16 groups: 16 bytes stay contiguous
    ((4, 1, 8), {("ca", 8)}),    # 4 x fp16 groups: a 16-byte copy splits in two
    ((2, 1, 16), {("ca", 4)}),
])
def test_width_follows_shared_contiguity(swizzle, expected):
    cx = ring_constexprs(dtype="fp16")
    cx["SH"] = kl.SwizzledSharedLayout(*swizzle, [1, 0])
    k = kiln.compile(ring_add, ring_signature("fp16"), cx, target=TARGET, cache=False)
    assert cp_async_widths(k.asm["ptx"]) == expected


def test_barrier_after_wait_when_threads_read_others_copies():
    """Copied in rows, read down the columns: after cp.async.wait_group a CTA barrier must come
    before the first ld.shared (cp.async completes per thread)."""
    k = compile_ring("fp32", CL=rows_layout(4), LL=COLS_DOWN)
    ptx = k.asm["ptx"]
    wait = re.search(r"cp\.async\.wait_group\s+2\s*;", ptx)
    assert wait, "no cp.async.wait_group 2"
    load = re.compile(r"ld\.shared").search(ptx, wait.end())
    assert load, "no ld.shared after the wait"
    assert re.search(r"\b(bar|barrier)(\.cta)?\.sync\b", ptx[wait.end():load.start()]), \
        ptx[wait.start():load.end()]


# --- legality: widths 4/8/16 bytes -------------------------------------------------------------


@kiln.jit
def narrow_copy(x, y, L: kl.constexpr):
    offs = kl.arange(0, 16, kl.SliceLayout(1, L))[:, None] * 8 + \
        kl.arange(0, 8, kl.SliceLayout(0, L))[None, :]
    buf = kl.allocate_shared_memory(kl.int8, [16, 8], kl.SwizzledSharedLayout(1, 1, 1, [1, 0]))
    cp.async_copy_global_to_shared(buf, x + offs)  # E:narrow
    cp.commit_group()
    cp.wait_group(0)
    kl.store(y + offs, buf.load(L))


def assert_width_error(err, marker, anchor, width):
    line, _ = located.where(HERE, marker, anchor)
    assert (err.file, err.line) == (HERE, line), str(err)
    msg = err.message
    assert "cp.async" in msg, msg
    assert re.search(rf"(?<![\w.]){width}(?![\w.])", msg) and re.search(r"byte|\bB\b", msg), \
        f"the message should name the {width}-byte width: {msg}"


def test_one_byte_copy_is_an_error():
    # int8, one element per thread: 1-byte copies (cp.async moves 4, 8 or 16 bytes)
    L = kl.BlockedLayout([1, 1], [4, 8], [4, 1], [1, 0])
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(narrow_copy, {"x": "*i8:16", "y": "*i8:16"}, {"L": L}, target=TARGET,
                     cache=False)
    assert_width_error(ei.value, "E:narrow", "cp.async_copy_global_to_shared", 1)


def test_two_byte_copy_of_unaligned_fp16_rows_is_an_error():
    # N not known to be a multiple of 16: fp16 rows may start on any 2-byte boundary
    with pytest.raises(kiln.CompilationError) as ei:
        compile_ring("fp16", aligned=False)
    err = ei.value
    assert "cp.async" in err.message and re.search(r"(?<![\w.])2(?![\w.])", err.message), \
        err.message
    # at the copy in ring_add's source (examples/kernels.py), where the user wrote it
    assert os.path.realpath(err.file) == os.path.realpath(ring_add.fn.__code__.co_filename), \
        str(err)
    line = open(err.file).read().splitlines()[err.line - 1]
    assert "cp.async_copy_global_to_shared" in line, line


def test_not_available_on_amd():
    cx = ring_constexprs(dtype="fp32", CL=rows_layout(4, warp=64))
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(ring_add, ring_signature("fp32"), cx, target="hip:gfx942", cache=False)
    assert re.search(r"cp\.async|async_copy|async cop|NVIDIA|nvidia|hip", ei.value.message), \
        ei.value.message


# --- argument errors at the user's line --------------------------------------------------------

L = rows_layout(4, BN=32)


@kiln.jit
def bad_destination(x):
    offs = kl.arange(0, 32, kl.SliceLayout(1, L))[:, None] * 32 + \
        kl.arange(0, 32, kl.SliceLayout(0, L))[None, :]
    cp.async_copy_global_to_shared(kl.load(x + offs), x + offs)  # E:dest


@kiln.jit
def bad_shape(x):
    offs = kl.arange(0, 32, kl.SliceLayout(1, L))[:, None] * 32 + \
        kl.arange(0, 32, kl.SliceLayout(0, L))[None, :]
    buf = kl.allocate_shared_memory(kl.float32, [2, 32, 32], SH)
    cp.async_copy_global_to_shared(buf, x + offs)  # E:shape


@kiln.jit
def bad_dtype(x):
    offs = kl.arange(0, 32, kl.SliceLayout(1, L))[:, None] * 32 + \
        kl.arange(0, 32, kl.SliceLayout(0, L))[None, :]
    buf = kl.allocate_shared_memory(kl.float16, [32, 32], SH)
    cp.async_copy_global_to_shared(buf, x + offs)  # E:dtype


@kiln.jit
def bad_pointer(x):
    offs = kl.arange(0, 32, kl.SliceLayout(1, L))[:, None] * 32 + \
        kl.arange(0, 32, kl.SliceLayout(0, L))[None, :]
    buf = kl.allocate_shared_memory(kl.int32, [32, 32], SH)
    cp.async_copy_global_to_shared(buf, offs)  # E:pointer


@kiln.jit
def bad_wait(x, n):
    cp.wait_group(n)  # E:wait


@kiln.jit
def negative_wait(x):
    cp.wait_group(-1)  # E:negative


@pytest.mark.parametrize("fn,marker,anchor,words", [
    (bad_destination, "E:dest", "cp.async_copy_global_to_shared", ["shared"]),
    (bad_shape, "E:shape", "cp.async_copy_global_to_shared", ["shape"]),
    (bad_dtype, "E:dtype", "cp.async_copy_global_to_shared", ["fp16", "fp32"]),
    (bad_pointer, "E:pointer", "cp.async_copy_global_to_shared", ["pointer"]),
    (bad_wait, "E:wait", "cp.wait_group", ["constexpr"]),
    (negative_wait, "E:negative", "cp.wait_group", ["-1"]),
])
def test_errors_point_at_the_line_and_column(fn, marker, anchor, words):
    sig = {"x": "*fp32", "n": "i32"} if fn is bad_wait else {"x": "*fp32"}
    with pytest.raises(kiln.CompilationError) as ei:
        compiler_mod.make_ir(fn, sig, target=TARGET)
    err = ei.value
    line, col = located.where(HERE, marker, anchor)
    assert (err.file, err.line, err.col) == (HERE, line, col), str(err)
    text = str(err).splitlines()
    assert text[0] == f"{HERE}:{line}:{col}: error: {err.message}"
    for w in words:
        assert w in err.message, err.message
    assert isinstance(err.__cause__, (TypeError, ValueError)), repr(err.__cause__)


def test_builtins_outside_a_kernel():
    for call in (lambda: cp.commit_group(), lambda: cp.wait_group(0),
                 lambda: cp.async_copy_global_to_shared(None, None)):
        with pytest.raises(ValueError, match="@kiln.jit"):
            call()


def wait_counts(ptx):
    return [int(n) for n in re.findall(r"cp\.async\.wait_group\s+(\d+)\s*;", ptx)]


def test_token_waits_get_the_hand_written_counts():
    """ring_add written with token waits (examples/kernels.py ring_add_tokens, which the GPU
    test runs): Kiln computes its wait from the token it names, wait_group(2), the count the
    hand-written ring_add uses (NBUF - 1), then the final wait_group(0)."""
    k = kiln.compile(ring_add_tokens, ring_signature("fp16"),
                     {n: v for n, v in ring_constexprs().items() if n != "NBUF"},
                     target=TARGET, cache=False)
    assert wait_counts(k.asm["ptx"]) == [2, 0], wait_counts(k.asm["ptx"])
    hand = compile_ring("fp16", nbuf=3)
    assert wait_counts(hand.asm["ptx"]) == [2, 0]
    # the token wait is in the tile IR without a count, and gets it in the lowering
    assert re.search(r'"tile.async_wait"\(%[\w#.]+\)\s*:', k.asm["tile"]) or \
        re.search(r"tile.async_wait tokens %[\w#.]+\s*(loc|$)", k.asm["tile"], re.M), k.asm["tile"]


@kiln.jit
def bad_wait_for(x):
    cp.wait_for(3)  # E:waitfor


def test_wait_for_needs_tokens():
    with pytest.raises(kiln.CompilationError) as ei:
        compiler_mod.make_ir(bad_wait_for, {"x": "*fp32"}, target=TARGET)
    located.assert_located(ei.value, HERE, "E:waitfor", "cp.wait_for",
                           r"wait_for: takes the tokens that async_copy_global_to_shared or "
                           r"commit_group returned, got \[3\]", kiln.CompilationError)


@kiln.jit
def copy_with_hints(a, c, EV: kl.constexpr, VOL: kl.constexpr):
    L4 = kl.BlockedLayout([4], [32], [4], [0])
    i = kl.arange(0, 512, L4)
    buf = kl.allocate_shared_memory(kl.float32, [512], kl.SwizzledSharedLayout(1, 1, 1, [0]))
    cp.async_copy_global_to_shared(buf, a + i, eviction_policy=EV, volatile=VOL)  # E:hint
    cp.commit_group()
    cp.wait_group(0)
    kl.store(c + i, buf.load(L4))


@pytest.mark.parametrize("ev", ["", "evict_first", "evict_last", "evict_normal"])
@pytest.mark.parametrize("vol", [False, True])
def test_gluon_hints_are_accepted(ev, vol):
    """Gluon kernels pass eviction_policy / volatile: they compile (to the same cp.async)."""
    k = kiln.compile(copy_with_hints, {"a": "*fp32:16", "c": "*fp32:16"},
                     {"EV": ev, "VOL": vol}, target=TARGET, cache=False)
    assert cp_async_widths(k.asm["ptx"]) == {("cg", 16)}


def test_unknown_eviction_policy_is_an_error():
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(copy_with_hints, {"a": "*fp32:16", "c": "*fp32:16"},
                     {"EV": "evict_later", "VOL": False}, target=TARGET, cache=False)
    located.assert_located(ei.value, HERE, "E:hint", "cp.async_copy_global_to_shared",
                           r"async_copy_global_to_shared: eviction_policy must be '', "
                           r"'evict_first', 'evict_last' or 'evict_normal', got 'evict_later'",
                           kiln.CompilationError)


@kiln.jit
def bad_cache(x):
    buf = kl.allocate_shared_memory(kl.float32, [128], kl.SwizzledSharedLayout(1, 1, 1, [0]))
    cp.async_copy_global_to_shared(buf, x + kl.arange(0, 128, kl.BlockedLayout([1], [32], [4], [0])), cache_modifier=".cs")  # E:cache


@kiln.jit
def bad_volatile(x):
    buf = kl.allocate_shared_memory(kl.float32, [128], kl.SwizzledSharedLayout(1, 1, 1, [0]))
    cp.async_copy_global_to_shared(buf, x + kl.arange(0, 128, kl.BlockedLayout([1], [32], [4], [0])), volatile=2)  # E:volatile


@kiln.jit
def bad_mask_shape(x):
    L2 = kl.BlockedLayout([1, 1], [1, 32], [1, 4], [1, 0])
    buf = kl.allocate_shared_memory(kl.float32, [1, 128], kl.SwizzledSharedLayout(1, 1, 1, [1, 0]))
    c = kl.arange(0, 128, kl.SliceLayout(0, L2))
    r = kl.arange(0, 2, kl.SliceLayout(1, L2))
    cp.async_copy_global_to_shared(buf, x + c[None, :], mask=r[:, None] < 1)  # E:mask


@pytest.mark.parametrize("fn,marker,message", [
    (bad_cache, "E:cache",
     r"async_copy_global_to_shared: cache_modifier must be '', '.ca' or '.cg', got '.cs'"),
    (bad_volatile, "E:volatile",
     r"async_copy_global_to_shared: volatile must be a constexpr bool, got 2"),
    (bad_mask_shape, "E:mask",
     r"async_copy_global_to_shared: the mask broadcasts the pointers to \(2, 128\), not the "
     r"buffer's shape \(1, 128\)"),
])
def test_more_argument_errors_point_at_the_call(fn, marker, message):
    with pytest.raises(kiln.CompilationError) as ei:
        compiler_mod.make_ir(fn, {"x": "*fp32"}, target=TARGET)
    located.assert_located(ei.value, HERE, marker, "cp.async_copy_global_to_shared", message,
                           kiln.CompilationError)
