"""Kiln's bundled example kernels, written once for NVIDIA (warp size 32) and AMD (64).

Each kernel takes its register layout(s) as ``kl.constexpr`` arguments, Gluon style, so one
source compiles for ``cuda:`` and ``hip:`` targets: the host builds the layouts for the
target's warp size (:func:`blocked_2d`, :func:`config`).

``KERNELS`` describes each kernel: its runtime signature (types only; the JIT's
specialization adds ``:16`` / ``=1``, see :func:`specialize`), its constexprs and its
``num_warps`` per target family.

Bundle keys
-----------
An AOT bundle holds one binary per *specialization*. The JIT specializes the way Triton
does, and a bundled kernel must be launched with arguments that match the specialization it
was compiled for:

* a pointer whose address is a multiple of 16 bytes gets ``:16`` (``tile.divisibility=16``);
* an integer that is a multiple of 16 gets ``:16``;
* an integer equal to 1 becomes the constexpr ``1`` (and leaves the runtime argument list).

:func:`specialize` applies exactly the JIT's rule (``JITFunction.specialize``) and
:func:`bundle_key` names the result, so ``scripts/build-gpu-bundle.py`` (compiling here from
type strings and sample integers) and ``test/gpu/run_gpu_proof.py`` (launching there with
torch tensors) agree on which binary serves a launch.
"""

from __future__ import annotations

import importlib.util
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
_PYTHON = os.path.join(os.path.dirname(_HERE), "python")
# The checkout's package only when no kiln is installed (an installed wheel wins).
if importlib.util.find_spec("kiln") is None and _PYTHON not in sys.path:
    sys.path.insert(0, _PYTHON)

import kiln  # noqa: E402
import kiln.language as kl  # noqa: E402
from kiln.language.nvidia.ampere import async_copy as cp  # noqa: E402
from kiln.language.amd import cdna3  # noqa: E402
from kiln.language.amd.cdna4 import async_copy as acp  # noqa: E402

__all__ = ["vector_add", "copy_2d", "masked_rows", "softmax", "transpose", "ring_add",
           "ring_add_tokens", "transpose_smem", "amd_stream_ring", "KERNELS", "TARGETS",
           "warp_size", "blocked_1d", "blocked_2d", "config", "specialize", "bundle_key"]

TARGETS = ("cuda:sm_90a", "hip:gfx942", "hip:gfx950")


# ---------------------------------------------------------------------------------------------
# Kernels
# ---------------------------------------------------------------------------------------------

@kiln.jit
def vector_add(x, y, out, n, BLOCK: kl.constexpr, layout: kl.constexpr):
    """out[i] = x[i] + y[i] for i < n; one program per BLOCK elements."""
    offs = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK, layout)
    mask = offs < n
    a = kl.load(x + offs, mask=mask)
    b = kl.load(y + offs, mask=mask)
    kl.store(out + offs, a + b, mask=mask)


@kiln.jit
def copy_2d(src, dst, M, N, stride_sm, stride_dst_m, BLOCK_M: kl.constexpr,
            BLOCK_N: kl.constexpr, layout: kl.constexpr):
    """dst[i, j] = src[i, j] for a (M, N) view with row strides stride_sm / stride_dst_m
    (unit column stride); one program per BLOCK_M x BLOCK_N tile."""
    rows = kl.program_id(0) * BLOCK_M + kl.arange(0, BLOCK_M, kl.SliceLayout(1, layout))
    cols = kl.program_id(1) * BLOCK_N + kl.arange(0, BLOCK_N, kl.SliceLayout(0, layout))
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    vals = kl.load(src + rows[:, None] * stride_sm + cols[None, :], mask=mask)
    kl.store(dst + rows[:, None] * stride_dst_m + cols[None, :], vals, mask=mask)


@kiln.jit
def masked_rows(x, y, stride, N, BLOCK_R: kl.constexpr, BLOCK_C: kl.constexpr,
                layout: kl.constexpr):
    """y[o] = x[o] for every o = r * stride + c < N (r < BLOCK_R, c < BLOCK_C): the 2-D
    indexing whose row starts the axis analysis once took for 16-byte aligned."""
    r = kl.arange(0, BLOCK_R, kl.SliceLayout(1, layout))
    c = kl.arange(0, BLOCK_C, kl.SliceLayout(0, layout))
    offs = r[:, None] * stride + c[None, :]
    m = offs < N
    kl.store(y + offs, kl.load(x + offs, mask=m), mask=m)


@kiln.jit
def softmax(out, lse, inp, M, N, stride_in, stride_out, BLOCK_M: kl.constexpr,
            BLOCK_N: kl.constexpr, layout: kl.constexpr, row_layout: kl.constexpr):
    """Row softmax of a (M, N) matrix, N <= BLOCK_N; one program per BLOCK_M rows.

    Also writes each row's log-sum-exp to ``lse``: the per-row result of the reductions
    (a SliceLayout of ``layout``, replicated across the lanes that share a row) is moved to
    ``row_layout`` (one row per thread) with convert_layout before the store.
    """
    rows = kl.program_id(0) * BLOCK_M + kl.arange(0, BLOCK_M, kl.SliceLayout(1, layout))
    cols = kl.arange(0, BLOCK_N, kl.SliceLayout(0, layout))
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = kl.load(inp + rows[:, None] * stride_in + cols[None, :], mask=mask,
                other=float("-inf"))
    row_max = kl.max(x, axis=1)
    e = kl.exp(x - row_max[:, None])
    e = kl.where(mask, e, 0.0)
    den = kl.sum(e, axis=1)
    kl.store(out + rows[:, None] * stride_out + cols[None, :], e / den[:, None], mask=mask)
    row_lse = kl.convert_layout(row_max + kl.log(den), row_layout)
    lse_rows = kl.program_id(0) * BLOCK_M + kl.arange(0, BLOCK_M, row_layout)
    kl.store(lse + lse_rows, row_lse, mask=lse_rows < M)


@kiln.jit
def transpose(src, dst, M, N, stride_sm, stride_dst_n, BLOCK: kl.constexpr,
              load_layout: kl.constexpr, store_layout: kl.constexpr):
    """dst[j, i] = src[i, j] for a (M, N) source; dst is (N, M) with row stride stride_dst_n.

    The tile is loaded in ``load_layout`` (row-major: each thread holds contiguous elements
    of a source row) and stored in ``store_layout`` (column-major, order [0, 1]: contiguous
    along source rows = destination columns), so both global accesses are coalesced and the
    convert_layout between them moves data across threads (through shared memory).
    """
    pid_m = kl.program_id(0)
    pid_n = kl.program_id(1)
    rows = pid_m * BLOCK + kl.arange(0, BLOCK, kl.SliceLayout(1, load_layout))
    cols = pid_n * BLOCK + kl.arange(0, BLOCK, kl.SliceLayout(0, load_layout))
    tile = kl.load(src + rows[:, None] * stride_sm + cols[None, :],
                   mask=(rows[:, None] < M) & (cols[None, :] < N))
    tile = kl.convert_layout(tile, store_layout)
    rows_t = pid_m * BLOCK + kl.arange(0, BLOCK, kl.SliceLayout(1, store_layout))
    cols_t = pid_n * BLOCK + kl.arange(0, BLOCK, kl.SliceLayout(0, store_layout))
    kl.store(dst + cols_t[None, :] * stride_dst_n + rows_t[:, None], tile,
             mask=(rows_t[:, None] < M) & (cols_t[None, :] < N))


# ---------------------------------------------------------------------------------------------
# Shared memory and async copies (NVIDIA cp.async): the kernels of test/gpu/test_async_copy.py,
# test/Python/test_async_copy_dsl.py, bench/shared_memory.py and docs/shared-memory.md. Not in
# KERNELS (no bundle entry): they are launched through kernel[grid].
# ---------------------------------------------------------------------------------------------


@kiln.jit
def ring_add(a, b, c, M, N, ROWS, BM: kl.constexpr, BN: kl.constexpr, NBUF: kl.constexpr,
             CL: kl.constexpr, LL: kl.constexpr, SH: kl.constexpr):
    """c = a + b (row-major M x N). Program (i, j) owns columns [i*BN, (i+1)*BN) and rows
    [j*ROWS, min(M, (j+1)*ROWS)), which it streams BM rows at a time through an NBUF-slot ring
    per input: block k+NBUF-1 is being copied while block k is added. CL is the layout of the
    copies' pointers, LL the layout the slots are read in."""
    dt: kl.constexpr = a.dtype.element_ty
    a_bufs = kl.allocate_shared_memory(dt, [NBUF, BM, BN], SH)
    b_bufs = kl.allocate_shared_memory(dt, [NBUF, BM, BN], SH)
    row0 = kl.program_id(1) * ROWS
    row_end = kl.minimum(M, row0 + ROWS)
    num_blocks = kl.cdiv(row_end - row0, BM)
    cols_c = kl.program_id(0) * BN + kl.arange(0, BN, kl.SliceLayout(0, CL))
    rows_c = row0 + kl.arange(0, BM, kl.SliceLayout(1, CL))
    cols_l = kl.program_id(0) * BN + kl.arange(0, BN, kl.SliceLayout(0, LL))
    rows_l = row0 + kl.arange(0, BM, kl.SliceLayout(1, LL))

    # Prologue: blocks 0 .. NBUF-2 in flight, one commit group each.
    for s in kl.static_range(NBUF - 1):
        r0 = rows_c + s * BM
        m0 = (r0[:, None] < row_end) & (cols_c[None, :] < N)
        offs0 = r0[:, None] * N + cols_c[None, :]
        cp.async_copy_global_to_shared(a_bufs.index(s), a + offs0, mask=m0)
        cp.async_copy_global_to_shared(b_bufs.index(s), b + offs0, mask=m0)
        cp.commit_group()

    for k in range(num_blocks):
        # Refill the slot block k-1 was read from with block k+NBUF-1 (masked past the end:
        # the copy then only zero-fills the slot, and every iteration commits one group).
        nxt = k + NBUF - 1
        r = rows_c + nxt * BM
        m = (r[:, None] < row_end) & (cols_c[None, :] < N)
        offs = r[:, None] * N + cols_c[None, :]
        cp.async_copy_global_to_shared(a_bufs.index(nxt % NBUF), a + offs, mask=m)
        cp.async_copy_global_to_shared(b_bufs.index(nxt % NBUF), b + offs, mask=m)
        cp.commit_group()
        # At most NBUF-1 groups still in flight: block k's group has landed.
        cp.wait_group(NBUF - 1)
        x = a_bufs.index(k % NBUF).load(LL)
        y = b_bufs.index(k % NBUF).load(LL)
        r_l = rows_l + k * BM
        m_l = (r_l[:, None] < row_end) & (cols_l[None, :] < N)
        kl.store(c + r_l[:, None] * N + cols_l[None, :], x + y, mask=m_l)
    cp.wait_group(0)  # no copy outlives the program


@kiln.jit
def ring_add_tokens(a, b, c, M, N, ROWS, BM: kl.constexpr, BN: kl.constexpr,
                    CL: kl.constexpr, LL: kl.constexpr, SH: kl.constexpr):
    """ring_add with NBUF = 3 written with token waits (Kiln's cp.wait_for): the two groups in
    flight are loop-carried tokens, and Kiln computes each wait's count (it must be 2, the
    hand-written ring's wait_group(NBUF - 1))."""
    dt: kl.constexpr = a.dtype.element_ty
    a_bufs = kl.allocate_shared_memory(dt, [3, BM, BN], SH)
    b_bufs = kl.allocate_shared_memory(dt, [3, BM, BN], SH)
    row0 = kl.program_id(1) * ROWS
    row_end = kl.minimum(M, row0 + ROWS)
    num_blocks = kl.cdiv(row_end - row0, BM)
    cols_c = kl.program_id(0) * BN + kl.arange(0, BN, kl.SliceLayout(0, CL))
    rows_c = row0 + kl.arange(0, BM, kl.SliceLayout(1, CL))
    cols_l = kl.program_id(0) * BN + kl.arange(0, BN, kl.SliceLayout(0, LL))
    rows_l = row0 + kl.arange(0, BM, kl.SliceLayout(1, LL))
    m0 = (rows_c[:, None] < row_end) & (cols_c[None, :] < N)
    offs0 = rows_c[:, None] * N + cols_c[None, :]
    cp.async_copy_global_to_shared(a_bufs.index(0), a + offs0, mask=m0)
    cp.async_copy_global_to_shared(b_bufs.index(0), b + offs0, mask=m0)
    oldest = cp.commit_group()
    r1 = rows_c + BM
    m1 = (r1[:, None] < row_end) & (cols_c[None, :] < N)
    offs1 = r1[:, None] * N + cols_c[None, :]
    cp.async_copy_global_to_shared(a_bufs.index(1), a + offs1, mask=m1)
    cp.async_copy_global_to_shared(b_bufs.index(1), b + offs1, mask=m1)
    newer = cp.commit_group()
    for k in range(num_blocks):
        nxt = k + 2
        r = rows_c + nxt * BM
        m = (r[:, None] < row_end) & (cols_c[None, :] < N)
        offs = r[:, None] * N + cols_c[None, :]
        cp.async_copy_global_to_shared(a_bufs.index(nxt % 3), a + offs, mask=m)
        cp.async_copy_global_to_shared(b_bufs.index(nxt % 3), b + offs, mask=m)
        newest = cp.commit_group()
        cp.wait_for(oldest)  # block k's group
        x = a_bufs.index(k % 3).load(LL)
        y = b_bufs.index(k % 3).load(LL)
        r_l = rows_l + k * BM
        m_l = (r_l[:, None] < row_end) & (cols_l[None, :] < N)
        kl.store(c + r_l[:, None] * N + cols_l[None, :], x + y, mask=m_l)
        oldest = newer
        newer = newest
    cp.wait_group(0)

@kiln.jit
def transpose_smem(x, out, M, N, BM: kl.constexpr, BN: kl.constexpr, L: kl.constexpr,
                   LT: kl.constexpr, SH: kl.constexpr, VIA: kl.constexpr):
    """out (N x M) = x (M x N) transposed: a BM x BN tile read along x's rows (layout L) goes
    through a shared buffer and comes back along its columns (layout LT), so both global
    accesses are coalesced."""
    dt: kl.constexpr = x.dtype.element_ty
    rows = kl.program_id(0) * BM + kl.arange(0, BM, kl.SliceLayout(1, L))
    cols = kl.program_id(1) * BN + kl.arange(0, BN, kl.SliceLayout(0, L))
    m = (rows[:, None] < M) & (cols[None, :] < N)
    src = x + rows[:, None] * N + cols[None, :]
    if VIA == "async":
        buf = kl.allocate_shared_memory(dt, [BM, BN], SH)
        cp.async_copy_global_to_shared(buf, src, mask=m)
        cp.commit_group()
        cp.wait_group(0)
    elif VIA == "alloc":
        buf = kl.allocate_shared_memory(dt, [BM, BN], SH, kl.load(src, mask=m))
    else:
        buf = kl.allocate_shared_memory(dt, [BM, BN], SH)
        buf.store(kl.load(src, mask=m))
    t = buf.load(LT)
    rows_t = kl.program_id(0) * BM + kl.arange(0, BM, kl.SliceLayout(1, LT))
    cols_t = kl.program_id(1) * BN + kl.arange(0, BN, kl.SliceLayout(0, LT))
    mt = (rows_t[:, None] < M) & (cols_t[None, :] < N)
    kl.store(out + cols_t[None, :] * M + rows_t[:, None], t, mask=mt)


# ---------------------------------------------------------------------------------------------
# Layouts per warp size
# ---------------------------------------------------------------------------------------------

def warp_size(target: str) -> int:
    """32 on cuda: targets, 64 on hip: (gfx9 wave64)."""
    return 32 if target.startswith("cuda:") else 64


def blocked_1d(vec: int, warp: int, num_warps: int) -> kl.BlockedLayout:
    return kl.BlockedLayout([vec], [warp], [num_warps], [0])


def blocked_2d(block, warp: int, num_warps: int, vec: int = 4, order=(1, 0)):
    """A 2-D BlockedLayout for a ``block`` = (rows, cols) tile: ``vec`` contiguous elements
    per thread along ``order[0]``, as many lanes as fit along it (at most a warp), the rest
    of the warp and all warps along the other dimension."""
    fast, slow = order
    vec = min(vec, block[fast])
    lanes_fast = max(1, min(warp, block[fast] // vec))
    lanes_slow = warp // lanes_fast
    size, lanes, warps = [1, 1], [1, 1], [1, 1]
    size[fast], lanes[fast], lanes[slow], warps[slow] = vec, lanes_fast, lanes_slow, num_warps
    return kl.BlockedLayout(size, lanes, warps, list(order))


def _family(target: str) -> str:
    return "cuda" if target.startswith("cuda:") else "hip"


# Per kernel: its runtime signature (base types), its tile constexprs and num_warps per target
# family, and how to build its layout constexprs for a warp size.
KERNELS = {
    "vector_add": {
        "fn": vector_add,
        "signature": {"x": "*fp32", "y": "*fp32", "out": "*fp32", "n": "i32"},
        "constexprs": {"cuda": {"BLOCK": 1024}, "hip": {"BLOCK": 1024}},
        "num_warps": {"cuda": 4, "hip": 4},
        "layouts": lambda c, w, nw: {"layout": blocked_1d(4, w, nw)},
        "grid": lambda c, n: (kiln.cdiv(n, c["BLOCK"]),),
    },
    "copy_2d": {
        "fn": copy_2d,
        "signature": {"src": "*fp32", "dst": "*fp32", "M": "i32", "N": "i32",
                      "stride_sm": "i32", "stride_dst_m": "i32"},
        "constexprs": {"cuda": {"BLOCK_M": 32, "BLOCK_N": 128},
                       "hip": {"BLOCK_M": 32, "BLOCK_N": 256}},
        "num_warps": {"cuda": 4, "hip": 4},
        "layouts": lambda c, w, nw: {"layout": blocked_2d((c["BLOCK_M"], c["BLOCK_N"]), w, nw)},
        "grid": lambda c, M, N: (kiln.cdiv(M, c["BLOCK_M"]), kiln.cdiv(N, c["BLOCK_N"])),
    },
    "masked_rows": {
        "fn": masked_rows,
        "signature": {"x": "*fp32", "y": "*fp32", "stride": "i32", "N": "i32"},
        "constexprs": {"cuda": {"BLOCK_R": 16, "BLOCK_C": 32},
                       "hip": {"BLOCK_R": 16, "BLOCK_C": 32}},
        "num_warps": {"cuda": 4, "hip": 4},
        "layouts": lambda c, w, nw: {"layout": blocked_2d((c["BLOCK_R"], c["BLOCK_C"]), w, nw)},
        "grid": lambda c: (1,),
    },
    "softmax": {
        "fn": softmax,
        "signature": {"out": "*fp32", "lse": "*fp32", "inp": "*fp32", "M": "i32", "N": "i32",
                      "stride_in": "i32", "stride_out": "i32"},
        "constexprs": {"cuda": {"BLOCK_M": 4, "BLOCK_N": 1024},
                       "hip": {"BLOCK_M": 4, "BLOCK_N": 1024}},
        "num_warps": {"cuda": 4, "hip": 4},
        "layouts": lambda c, w, nw: {
            "layout": blocked_2d((c["BLOCK_M"], c["BLOCK_N"]), w, nw),
            "row_layout": blocked_1d(1, w, nw)},
        "grid": lambda c, M: (kiln.cdiv(M, c["BLOCK_M"]),),
    },
    "transpose": {
        "fn": transpose,
        "signature": {"src": "*fp32", "dst": "*fp32", "M": "i32", "N": "i32",
                      "stride_sm": "i32", "stride_dst_n": "i32"},
        "constexprs": {"cuda": {"BLOCK": 64}, "hip": {"BLOCK": 64}},
        "num_warps": {"cuda": 4, "hip": 4},
        "layouts": lambda c, w, nw: {
            "load_layout": blocked_2d((c["BLOCK"], c["BLOCK"]), w, nw, order=(1, 0)),
            "store_layout": blocked_2d((c["BLOCK"], c["BLOCK"]), w, nw, order=(0, 1))},
        "grid": lambda c, M, N: (kiln.cdiv(M, c["BLOCK"]), kiln.cdiv(N, c["BLOCK"])),
    },
}


def config(name: str, target: str) -> dict:
    """{fn, signature, constexprs (layouts included), num_warps, target} of a kernel for a
    target: the fields ``kiln.compile`` / ``kiln.aot.compile_bundle`` take."""
    spec = KERNELS[name]
    fam = _family(target)
    num_warps = spec["num_warps"][fam]
    constexprs = dict(spec["constexprs"][fam])
    constexprs.update(spec["layouts"](constexprs, warp_size(target), num_warps))
    return {"fn": spec["fn"], "signature": dict(spec["signature"]), "constexprs": constexprs,
            "num_warps": num_warps, "target": target}


def grid(name: str, target: str, *sizes):
    """Launch grid of kernel ``name`` for ``target`` (sizes as its grid rule takes them)."""
    return KERNELS[name]["grid"](config(name, target)["constexprs"], *sizes)


# ---------------------------------------------------------------------------------------------
# Specialization and bundle keys
# ---------------------------------------------------------------------------------------------

def specialize(name: str, target: str, runtime_args: dict):
    """The JIT's specialization of kernel ``name`` for ``runtime_args`` (name -> value).

    Values may be real launch arguments (torch tensors, ints) or, for building a bundle
    without a GPU, type strings for pointers (``"*fp32:16"`` aligned, ``"*fp32"`` not) and
    sample integers. Returns (signature, constexprs, runtime argument names) with constexprs
    holding the tile/layout constexprs plus any integer argument specialized to 1.
    """
    cfg = config(name, target)
    fn = cfg["fn"]
    missing = set(cfg["signature"]) - set(runtime_args)
    if missing:
        raise TypeError(f"{name}: missing runtime argument(s) {sorted(missing)}")
    arguments = {n: (runtime_args[n] if n in runtime_args else cfg["constexprs"][n])
                 for n in fn.arg_names}
    signature, constexprs, runtime, _ = fn.specialize(arguments)
    return signature, constexprs, runtime


def bundle_key(name: str, target: str, signature: dict, constexprs: dict) -> str:
    """A stable key naming one specialization: the kernel, the target family and, per runtime
    argument of the base signature, ``A`` (pointer aligned to 16), ``D`` (int divisible by
    16), ``1`` (int specialized to 1) or ``_`` (none), e.g. ``vector_add.cuda.AAA_``."""
    code = []
    for arg in KERNELS[name]["signature"]:
        if arg in signature:
            code.append(("A" if signature[arg].startswith("*") else "D")
                        if signature[arg].endswith(":16") else "_")
        elif constexprs.get(arg) == 1:
            code.append("1")
        else:
            raise ValueError(f"{name}: argument {arg!r} is neither runtime nor 1")
    return f"{name}.{_family(target)}.{''.join(code)}"


def key_for_args(name: str, target: str, runtime_args: dict):
    """(bundle key, runtime argument names in launch order) for these launch arguments."""
    signature, constexprs, runtime = specialize(name, target, runtime_args)
    return bundle_key(name, target, signature, constexprs), runtime


@kiln.jit
def amd_stream_ring(a, c, n_tiles, BLOCK: kl.constexpr, NBUF: kl.constexpr, L: kl.constexpr,
                    SH: kl.constexpr, BUFFER_COPY: kl.constexpr, RELAXED: kl.constexpr,
                    STORE: kl.constexpr):
    """The AMD direct-to-LDS ring: program p streams tiles [p*n_tiles, (p+1)*n_tiles) of
    BLOCK elements of ``a`` through an NBUF-slot LDS ring (tile k+NBUF-1 is being copied while
    tile k is read). With STORE each tile + 1 goes to ``c`` by buffer_store inside the loop;
    without, the program's sum goes to ``c[p*BLOCK : (p+1)*BLOCK]`` after it. BUFFER_COPY picks
    buffer_load_to_shared (masked past the end) or global_load_to_shared (the last tile
    re-read instead); RELAXED picks load_shared_relaxed or a plain ``.load()``."""
    dt: kl.constexpr = a.dtype.element_ty
    bufs = kl.allocate_shared_memory(dt, [NBUF, BLOCK], SH)
    offs = kl.arange(0, BLOCK, L)
    first = kl.program_id(0) * n_tiles
    for s in kl.static_range(NBUF - 1):
        if BUFFER_COPY:
            acp.buffer_load_to_shared(bufs.index(s), a, (first + s) * BLOCK + offs,
                                      mask=offs < (n_tiles - s) * BLOCK)
        else:
            t0 = first + kl.minimum(s, n_tiles - 1)
            acp.global_load_to_shared(bufs.index(s), a + t0 * BLOCK + offs)
        acp.commit_group()
    acc = kl.zeros([BLOCK], dt, L)
    for k in range(n_tiles):
        acp.wait_group(NBUF - 2)
        if RELAXED:
            x = acp.load_shared_relaxed(bufs.index(k % NBUF), L)
        else:
            x = bufs.index(k % NBUF).load(L)
        if STORE:
            cdna3.buffer_store(x + 1, c, (first + k) * BLOCK + offs)
        else:
            acc += x
        nxt = k + NBUF - 1
        if BUFFER_COPY:
            acp.buffer_load_to_shared(bufs.index(nxt % NBUF), a, (first + nxt) * BLOCK + offs,
                                      mask=offs < (n_tiles - nxt) * BLOCK)
        else:
            t = first + kl.minimum(nxt, n_tiles - 1)
            acp.global_load_to_shared(bufs.index(nxt % NBUF), a + t * BLOCK + offs)
        acp.commit_group()
    if not STORE:
        kl.store(c + kl.program_id(0) * BLOCK + offs, acc)
