"""``kl.bank_conflicts`` (Gluon's): the count C++ makes of the accesses local_load and
local_store issue, against a brute-force replay written here from the layouts' definitions.

The replay shares no arithmetic with the compiler: it places every element of a register
layout by evaluating the layout (a blocked layout's sizes and order, a linear layout's
bases), finds the element's address by evaluating the shared layout's definition (swizzle,
NVMMA swizzle, padding, linear bases), takes the vector width of the accesses Kiln emits
from a kernel that stores the tensor into the buffer and loads it back (its lowering's
output, and the PTX: the same accesses, or LLVM's merges of them), and counts, for each
instruction and each group of lanes one pass serves (128 bytes of the 32 four-byte banks),
the distinct words any bank must deliver."""

import contextlib
import io
import math
import os
import random
import re
from collections import defaultdict

import pytest

import kiln
import kiln.language as kl

import compiled
import located

pytestmark = compiled.needs_compiler

HERE = os.path.abspath(__file__)
SM90, SM80 = "cuda:sm_90a", "cuda:sm_80"
BANKS, BANK_BYTES = 32, 4
SIGNATURE = {kl.int8: "*i8", kl.float16: "*fp16", kl.float32: "*fp32", kl.float64: "*fp64"}
BITS = {kl.int8: 8, kl.float16: 16, kl.float32: 32, kl.float64: 64}

# -- the layouts, evaluated from their definitions -------------------------------------------


def _split(index, sizes, order):
    """``index`` as coordinates of a box of ``sizes``, ``order[0]`` fastest."""
    out = [0] * len(sizes)
    for d in order:
        out[d] = index % sizes[d]
        index //= sizes[d]
    return out


def blocked_placement(layout, shape):
    """(registers, lanes, warps, place(reg, lane, warp) -> coordinates) of a BlockedLayout:
    each thread holds size_per_thread elements of the tile, threads and warps follow
    ``order``, and the tile repeats over a larger tensor (more registers, after the
    thread's own) or wraps around a smaller one (threads that hold the same elements)."""
    rank = len(shape)
    spt, tpw, wpc = layout.size_per_thread, layout.threads_per_warp, layout.warps_per_cta
    order = layout.order
    assert all(s <= n for s, n in zip(spt, shape)), "a register beyond the tensor"
    tile = [spt[d] * tpw[d] * wpc[d] for d in range(rank)]
    reps = [max(1, shape[d] // tile[d]) for d in range(rank)]
    own = math.prod(spt)

    def place(reg, lane, warp):
        s = _split(reg % own, spt, order)
        r = _split(reg // own, reps, order)
        t = _split(lane, tpw, order)
        w = _split(warp, wpc, order)
        return tuple((r[d] * tile[d] + (w[d] * tpw[d] + t[d]) * spt[d] + s[d]) % shape[d]
                     for d in range(rank))
    return own * math.prod(reps), math.prod(tpw), math.prod(wpc), place


def _xor_bases(bases, index):
    out = [0] * len(bases[0]) if bases else []
    for k, b in enumerate(bases):
        if index >> k & 1:
            out = [x ^ y for x, y in zip(out, b)]
    return out


def linear_placement(reg_bases, lane_bases, warp_bases, rank):
    """The same for a layout given by its bases: the XOR of the bases of the set bits."""
    def place(reg, lane, warp):
        out = [0] * rank
        for bases, index in ((reg_bases, reg), (lane_bases, lane), (warp_bases, warp)):
            if bases:
                out = [x ^ y for x, y in zip(out, _xor_bases(bases, index))]
        return tuple(out)
    return 1 << len(reg_bases), 1 << len(lane_bases), 1 << len(warp_bases), place


def placement(layout, shape):
    if isinstance(layout, kl.BlockedLayout):
        return blocked_placement(layout, shape)
    if not isinstance(layout, kl.DistributedLinearLayout):
        # Tensor-core layouts: their bases from Kiln (their own tests check them).
        layout = kl.to_linear_layout(layout, shape)
    return linear_placement([list(b) for b in layout.reg_bases],
                            [list(b) for b in layout.lane_bases],
                            [list(b) for b in layout.warp_bases], len(shape))


def _row_major(coords, sizes, order):
    index, stride = 0, 1
    for d in order:
        index += coords[d] * stride
        stride *= sizes[d]
    return index


def _all_coords(shape):
    n = math.prod(shape)
    return [tuple(_split(i, shape, range(len(shape)))) for i in range(n)]


def addresses(layout, shape, bits):
    """Coordinates -> element index in the buffer (padding included)."""
    rank = len(shape)
    out = {}
    if isinstance(layout, kl.SwizzledSharedLayout):
        # Rows of order[0] elements one after another; within row i, groups of vec elements
        # are permuted by XOR with (i // per_phase) % max_phase (bits past the row dropped).
        col, row = layout.order[0], (layout.order[1] if rank > 1 else None)
        for c in _all_coords(shape):
            moved = list(c)
            if row is not None:
                phase = (c[row] // layout.per_phase) % layout.max_phase
                moved[col] = c[col] ^ ((phase * layout.vec) % shape[col])
            out[c] = _row_major(moved, shape, layout.order)
        return out
    if isinstance(layout, kl.NVMMASharedLayout):
        # The contiguous dimension is cut into chunks of swizzle_byte_width bytes (the whole
        # row unswizzled); a chunk holds every row, chunk after chunk; within a chunk, the
        # 16-byte pieces of row i move by XOR with (i // (128 / swizzle)) % (swizzle / 16).
        col, row = (rank - 2, rank - 1) if layout.transposed else (rank - 1, rank - 2)
        sw = layout.swizzle_byte_width
        chunk = min(sw * 8 // bits, shape[col]) if sw else shape[col]
        piece = 128 // bits
        for c in _all_coords(shape):
            within = c[col] % chunk
            if sw:
                phase = (c[row] // (128 // sw)) % (sw // 16)
                within ^= (phase * piece) % chunk
            outer = _row_major(list(c[:rank - 2]), list(shape[:rank - 2]),
                               list(range(rank - 3, -1, -1)))
            block = (outer * (shape[col] // chunk) + c[col] // chunk) * shape[row] + c[row]
            out[c] = block * chunk + within
        return out
    # Linear and padded layouts: offset o holds the XOR of the bases of o's set bits.
    pairs = getattr(layout, "interval_padding_pairs", ())
    for o in range(math.prod(shape)):
        c = tuple(_xor_bases([list(b) for b in layout.offset_bases], o))
        out[c] = o + sum((o // interval) * pad for interval, pad in pairs)
    assert len(out) == math.prod(shape)
    return out


def pass_lanes(nlane, group, access, lane_bits16):
    """The lanes each pass serves: consecutive ones, or for 16-byte accesses on a target that
    pairs them otherwise (AMD's ds_read_b128), the lanes that differ only in ``lane_bits16``."""
    bits = lane_bits16 & (nlane - 1) if access == 16 else 0
    if bits and 2 ** bin(bits).count("1") == group:
        out = defaultdict(list)
        for lane in range(nlane):
            out[lane & ~bits].append(lane)
        return list(out.values())
    return [list(range(first, first + group)) for first in range(0, nlane, group)]


def replay(reg_layout, shared_layout, shape, dtype, vec, banks=BANKS, lane_bits16=0):
    """The most passes beyond the first that any group of lanes of any vector access needs."""
    nreg, nlane, nwarp, place = placement(reg_layout, shape)
    where = addresses(shared_layout, shape, BITS[dtype])
    elem = max(1, BITS[dtype] // 8)
    access = vec * elem
    group = min(nlane, banks * BANK_BYTES // max(access, BANK_BYTES))
    worst = 0
    for warp in range(nwarp):
        for reg in range(0, nreg, vec):
            for lanes in pass_lanes(nlane, group, access, lane_bits16):
                words = defaultdict(set)
                for lane in lanes:
                    start = where[place(reg, lane, warp)]
                    # Kiln's vectors are registers that sit next to each other.
                    assert [where[place(reg + i, lane, warp)] for i in range(vec)] == \
                        list(range(start, start + vec)), (reg, lane, warp)
                    byte = start * elem
                    for w in range(byte // BANK_BYTES, (byte + access - 1) // BANK_BYTES + 1):
                        words[w % banks].add(w)
                worst = max(worst, max(len(s) for s in words.values()) - 1)
    return worst


def _f2_rank(vectors):
    basis = []
    for v in vectors:
        for b in basis:
            v = min(v, v ^ b)
        if v:
            basis.append(v)
    return len(basis)


def gluon_formula(reg_layout, shared_layout, shape, dtype, vec):
    """Gluon's count as its source defines it (GenericSwizzling's bankConflicts), at the
    same vector width, for an unpadded layout: 2**d - 1, where d is the dimension of the
    offsets the lanes of one pass reach (relative to the first lane) whose bits within the
    first 128 bytes are all zero."""
    nreg, nlane, nwarp, place = placement(reg_layout, shape)
    where = addresses(shared_layout, shape, BITS[dtype])
    elem = max(1, BITS[dtype] // 8)
    group = min(nlane, BANKS * BANK_BYTES // max(vec * elem, BANK_BYTES))
    first = where[place(0, 0, 0)]
    lanes = [where[place(0, 1 << k, 0)] ^ first for k in range(int(math.log2(group)))]
    low = BANKS * BANK_BYTES // elem - 1
    return 2 ** (_f2_rank(lanes) - _f2_rank([o & low for o in lanes])) - 1


# -- what Kiln emits -------------------------------------------------------------------------


@kiln.jit
def round_trip_2d(x, out, R: kl.constexpr, S: kl.constexpr, M: kl.constexpr,
                  N: kl.constexpr):
    rows = kl.arange(0, M, kl.SliceLayout(1, R))[:, None]
    cols = kl.arange(0, N, kl.SliceLayout(0, R))[None, :]
    v = kl.load(x + rows * N + cols)
    smem = kl.allocate_shared_memory(x.dtype.element_ty, [M, N], S)
    smem.store(v)
    w = smem.load(R)
    kl.static_print("bank_conflicts", kl.bank_conflicts(w.type, smem.type))
    kl.store(out + rows * N + cols, w)


@kiln.jit
def round_trip_1d(x, out, R: kl.constexpr, S: kl.constexpr, M: kl.constexpr):
    offs = kl.arange(0, M, R)
    smem = kl.allocate_shared_memory(x.dtype.element_ty, [M], S)
    smem.store(kl.load(x + offs))
    w = smem.load(R)
    kl.static_print("bank_conflicts", kl.bank_conflicts(w.type, smem.type))
    kl.store(out + offs, w)


# Element-wise shared accesses: the lowering's (LLVM dialect) and the PTX's.
_LOWERED = re.compile(r"llvm\.(?:load|store) [^\n]*!llvm\.ptr<3>[^\n]*")
_PTX = re.compile(r"\b(?:ld|st)\.shared(?:::cta)?(?:\.v(\d))?\.[bfsu](\d+)\b")


def _compile(reg_layout, shared_layout, shape, dtype, target):
    num_warps = placement(reg_layout, shape)[2]
    sig = {"x": SIGNATURE[dtype], "out": SIGNATURE[dtype]}
    if len(shape) == 2:
        fn, consts = round_trip_2d, {"R": reg_layout, "S": shared_layout, "M": shape[0],
                                     "N": shape[1]}
    else:
        fn, consts = round_trip_1d, {"R": reg_layout, "S": shared_layout, "M": shape[0]}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        k = kiln.compile(fn, sig, consts, target=target, num_warps=num_warps, cache=False)
    count = int(re.search(r"bank_conflicts (\d+)", printed.getvalue()).group(1))
    elem = max(1, BITS[dtype] // 8)
    lowered = set()
    for line in _LOWERED.findall(k.asm["llvm_dialect"]):
        vector = re.search(r"vector<(\d+)x", line)
        lowered.add(int(vector.group(1)) * elem if vector else elem)
    ptx = {int(n or 1) * int(bits) // 8 for n, bits in _PTX.findall(k.asm.get("ptx", ""))}
    return count, lowered, ptx


def emitted(reg_layout, shared_layout, shape, dtype):
    """(bank_conflicts, bytes per element-wise shared access of the lowering, the PTX's
    access widths). 16-bit tensors whose layouts fit the 8x8 matrix instructions use them
    on sm_90a (both ways); sm_80 has no matrix store, so its store shows the element-wise
    width then."""
    count, lowered, ptx = _compile(reg_layout, shared_layout, shape, dtype, SM90)
    if not lowered:
        count80, lowered, ptx = _compile(reg_layout, shared_layout, shape, dtype, SM80)
        assert count80 == count
    assert len(lowered) == 1, lowered
    width = lowered.pop()
    # LLVM may merge accesses the lowering keeps apart (registers out of the buffer's
    # order), never split them.
    assert ptx and all(w % width == 0 for w in ptx), (width, ptx)
    return count, width, ptx


def check(reg_layout, shared_layout, shape, dtype):
    """The count against the replay of the lowering's accesses; -> (count, width, PTX
    widths)."""
    count, width, ptx = emitted(reg_layout, shared_layout, shape, dtype)
    elem = max(1, BITS[dtype] // 8)
    expect = replay(reg_layout, shared_layout, shape, dtype, width // elem)
    assert count == expect, (reg_layout, shared_layout, shape, dtype, width)
    return count, width, ptx


# -- named cases -----------------------------------------------------------------------------

B, SW, NV, PAD, SLL = (kl.BlockedLayout, kl.SwizzledSharedLayout, kl.NVMMASharedLayout,
                       kl.PaddedSharedLayout, kl.SharedLinearLayout)
ROW_MAJOR = SW(1, 1, 1, [1, 0])


@pytest.mark.parametrize("reg,shared,shape,dtype,count,width", [
    # 4 fp32 a thread, 4 lanes a row: a pass of 8 lanes reads 64 bytes of two rows 256 bytes
    # apart, which share banks.
    (B([1, 4], [8, 4], [4, 1], [1, 0]), ROW_MAJOR, [64, 64], kl.float32, 1, 16),
    (B([1, 4], [1, 32], [4, 1], [1, 0]), ROW_MAJOR, [64, 128], kl.float32, 0, 16),
    # Columns of a row-major buffer of 128-byte rows: the 32 lanes of a column, one bank.
    (B([1, 1], [32, 1], [1, 4], [0, 1]), ROW_MAJOR, [32, 32], kl.float32, 31, 4),
    (B([1, 1], [32, 1], [1, 4], [0, 1]), ROW_MAJOR, [32, 64], kl.float16, 31, 2),
    (B([1, 1], [32, 1], [1, 4], [0, 1]), ROW_MAJOR, [32, 128], kl.int8, 31, 1),
    # Swizzles that spread those columns over the banks, or over 8 of them.
    (B([1, 1], [32, 1], [1, 4], [0, 1]), SW(1, 1, 32, [1, 0]), [32, 32], kl.float32, 0, 4),
    (B([1, 1], [32, 1], [1, 4], [0, 1]), SW(2, 1, 32, [1, 0]), [32, 64], kl.float16, 0, 2),
    (B([1, 1], [32, 1], [1, 4], [0, 1]), SW(2, 1, 16, [1, 0]), [32, 64], kl.float16, 1, 2),
    (B([1, 1], [32, 1], [1, 4], [0, 1]), SW(4, 1, 8, [1, 0]), [32, 64], kl.float32, 3, 4),
    # Padding a row by one word does the same.
    (B([1, 1], [32, 1], [1, 4], [0, 1]), PAD.with_identity_for([[32, 1]], [32, 32], [1, 0]),
     [32, 32], kl.float32, 0, 4),
    (B([1, 1], [32, 1], [1, 4], [0, 1]), PAD.with_identity_for([[64, 2]], [32, 64], [1, 0]),
     [32, 64], kl.float16, 0, 2),
    # 16-byte vectors, the 8 lanes of a pass down 8 rows: unswizzled, one bank group;
    # the 128-byte NVMMA swizzle gives each row its own.
    (B([1, 8], [32, 1], [4, 1], [1, 0]), NV(0, 16, rank=2), [128, 64], kl.float16, 7, 16),
    (B([1, 8], [32, 1], [4, 1], [1, 0]), NV(128, 16, rank=2), [128, 64], kl.float16, 0, 16),
    (B([1, 8], [8, 4], [4, 1], [1, 0]), NV(64, 16, rank=2), [64, 32], kl.float16, 0, 16),
    (B([1, 16], [16, 2], [4, 1], [1, 0]), NV(32, 8, rank=2), [64, 32], kl.int8, 0, 16),
    (B([1, 4], [4, 8], [4, 1], [1, 0]), NV(128, 32, rank=2), [64, 32], kl.float32, 0, 16),
    (B([8, 1], [8, 4], [1, 4], [0, 1]), NV(128, 16, rank=2, transposed=True), [64, 64],
     kl.float16, 0, 16),
    # A linear shared layout: columns of 16 bytes, each holding every row.
    (B([1, 4], [32, 1], [2, 2], [1, 0]),
     SLL([[0, 1], [0, 2], [1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [0, 4], [0, 8]]),
     [64, 16], kl.float32, 0, 16),
    # One dimension: 8-byte accesses, 16 lanes a pass.
    (B([2], [32], [4], [0]), SW(1, 1, 1, [0]), [256], kl.float32, 0, 8),
    (B([1], [32], [4], [0]), SW(1, 1, 1, [0]), [128], kl.float64, 0, 8),
])
def test_named_cases(reg, shared, shape, dtype, count, width):
    # Here the PTX issues exactly the lowering's accesses.
    assert check(reg, shared, shape, dtype) == (count, width, {width})


# The transpose of docs/shared-memory.md, whose conflicts ncu measured on an H100 (8-way,
# 4-way, none): its reads (LT) and 16-byte writes (L) of 64 x 64 buffers.
@pytest.mark.parametrize("dtype,vec,swizzle,reads", [
    (kl.float32, 4, (1, 1, 1), 7), (kl.float32, 4, (4, 1, 8), 3),
    (kl.float32, 4, (4, 4, 8), 0),
    (kl.float16, 8, (1, 1, 1), 7), (kl.float16, 8, (8, 1, 8), 7),
    (kl.float16, 8, (8, 8, 8), 0),
])
def test_documented_transpose(dtype, vec, swizzle, reads):
    shared = SW(*swizzle, [1, 0])
    lt = B([vec, 1], [8, 4], [1, 4], [0, 1])
    assert check(lt, shared, [64, 64], dtype)[:2] == (reads, BITS[dtype] // 8)
    assert check(B([1, vec], [4, 8], [4, 1], [1, 0]), shared, [64, 64], dtype)[:2] == (0, 16)


# -- many random pairs -----------------------------------------------------------------------


def _pow2_split(total_log2, parts, rng):
    """``parts`` powers of two whose product is 2**total_log2."""
    cuts = sorted(rng.randint(0, total_log2) for _ in range(parts - 1))
    edges = [0] + cuts + [total_log2]
    return [1 << (edges[i + 1] - edges[i]) for i in range(parts)]


def _random_invertible(bits, rng):
    """``bits`` integers spanning all of 2**bits: shuffled unit vectors with some XORed
    into others."""
    vecs = [1 << i for i in range(bits)]
    rng.shuffle(vecs)
    for _ in range(rng.randint(0, bits)):
        i, j = rng.sample(range(bits), 2)
        vecs[i] ^= vecs[j]
    return vecs


def _as_coords(flat, shape):
    """An integer whose low bits index dimension -1, then -2, ... as coordinates."""
    out = [0] * len(shape)
    for d in reversed(range(len(shape))):
        out[d] = flat % shape[d]
        flat //= shape[d]
    return out


def random_register_layout(shape, rng):
    """A blocked layout, or a linear one with 5 lane and 2 warp bases and the rest
    registers: an arbitrary invertible map, or one whose first registers are the buffer's
    row-major neighbours (so that vectors appear)."""
    if rng.random() < 0.5:
        spt = [min(s, 1 << rng.randint(0, 3)) for s in shape]
        return B(spt, _pow2_split(5, 2, rng), _pow2_split(2, 2, rng), rng.sample(range(2), 2))
    bits = int(math.log2(math.prod(shape)))
    if rng.random() < 0.5:
        flat = _random_invertible(bits, rng)
        regs, rest = [], flat
    else:
        low = min(2, bits - 7)
        rest = [1 << i for i in range(low, bits)]
        rng.shuffle(rest)
        regs = [1 << i for i in range(low)]
    coords = [_as_coords(v, shape) for v in regs + rest[7:]]
    return kl.DistributedLinearLayout(coords, [_as_coords(v, shape) for v in rest[:5]],
                                      [_as_coords(v, shape) for v in rest[5:7]], [], shape)


def random_shared_layout(shape, bits, rng):
    kind = rng.choice(["swizzled", "nvmma", "padded", "linear"])
    transposed = rng.random() < 0.3
    row_bytes = shape[0 if transposed else 1] * bits // 8
    rows = shape[1 if transposed else 0]
    # NVMMA rows hold one swizzle chunk (16 bytes unswizzled), a swizzled tile 8 rows.
    swizzles = [s for s in (0, 32, 64, 128) if max(16, s) <= row_bytes and (s == 0 or rows >= 8)]
    if kind == "nvmma" and swizzles:
        return NV(rng.choice(swizzles), bits, rank=2, transposed=transposed)
    if kind == "padded":
        numel = math.prod(shape)
        pairs = {}
        for _ in range(rng.randint(1, 2)):
            pairs[1 << rng.randint(2, int(math.log2(numel)) - 1)] = 1 << rng.randint(0, 3)
        return PAD.with_identity_for([[i, p] for i, p in pairs.items()], shape,
                                     rng.sample(range(2), 2))
    if kind == "linear":
        bases = [_as_coords(v, shape)
                 for v in _random_invertible(int(math.log2(math.prod(shape))), rng)]
        return SLL(bases)
    return SW(1 << rng.randint(0, 4), 1 << rng.randint(0, 3), 1 << rng.randint(0, 3),
              rng.sample(range(2), 2))


def random_cases(n, seed=2718):
    rng = random.Random(seed)
    cases = []
    while len(cases) < n:
        dtype = rng.choice([kl.int8, kl.float16, kl.float16, kl.float32, kl.float32,
                            kl.float64])
        rows_log2 = rng.randint(2, 6)
        cols_log2 = rng.randint(max(1, 7 - rows_log2), 10 - rows_log2)
        shape = [1 << rows_log2, 1 << cols_log2]
        cases.append((random_register_layout(shape, rng),
                      random_shared_layout(shape, BITS[dtype], rng), shape, dtype))
    return cases


def test_random_pairs_match_the_replay():
    seen = defaultdict(int)
    for reg, shared, shape, dtype in random_cases(96):
        count, width, ptx = check(reg, shared, shape, dtype)
        seen["conflicting" if count else "conflict-free"] += 1
        seen[f"{width} bytes"] += 1
        seen["as lowered in the PTX" if ptx == {width} else "merged by LLVM"] += 1
        if not isinstance(shared, PAD):  # Gluon counts a padded layout's linear part
            # Gluon's formula gives the same count for accesses of 4 bytes or more; for
            # narrower ones it can miss words that share a bank (docs/shared-memory.md).
            gluon = gluon_formula(reg, shared, shape, dtype, width * 8 // BITS[dtype])
            assert gluon == count if width >= 4 else gluon <= count, (reg, shared, shape)
            seen["gluon's formula lower"] += gluon < count
    # The sample is varied: both outcomes, several vector widths, the PTX mostly the
    # lowering's accesses.
    assert seen["conflicting"] >= 10 and seen["conflict-free"] >= 10, dict(seen)
    assert sum(1 for k in seen if k.endswith("bytes")) >= 4, dict(seen)
    # (78 of 96 with LLVM 22: fewer means the count describes the PTX less often.)
    assert seen["as lowered in the PTX"] >= 72, dict(seen)


# -- Gluon's reference counts ----------------------------------------------------------------

MMA2_14 = kl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[1, 4], instr_shape=[16, 8])
MMA2_41 = kl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[4, 1], instr_shape=[16, 8])
MMA3_41 = kl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                    instr_shape=[16, 32, 16])


@kiln.jit
def count_only(reg_type: kl.constexpr, shared_type: kl.constexpr, expect: kl.constexpr):
    conflicts: kl.constexpr = kl.bank_conflicts(reg_type, shared_type)
    kl.static_assert(conflicts == expect)


# The cases of Gluon's test_frontend.py::test_bank_conflicts (Triton 3.6), with its counts.
# Kiln's vector widths are Gluon's here, and so are the counts; the replay agrees.
@pytest.mark.parametrize("reg,shared,shape,dtype,count", [
    (B([1], [32], [4], [0]), SW(1, 1, 1, [0]), [32], kl.float32, 0),
    (B([1], [32], [4], [0]), SW(1, 1, 1, [0]), [32], kl.float16, 0),
    (MMA3_41, NV(128, 16, rank=2), [128, 128], kl.float16, 0),
    (kl.DotOperandLayout(1, MMA2_14, 2), NV(64, 16, rank=2), [64, 32], kl.float16, 0),
    (kl.DotOperandLayout(0, MMA2_14, 2), NV(64, 16, rank=2, transposed=True), [32, 64],
     kl.float16, 0),
    (kl.DotOperandLayout(1, MMA2_14, 1), NV(32, 8, rank=2), [8, 32], kl.int8, 0),
    (MMA2_41, NV(64, 16, rank=2, transposed=True), [64, 64], kl.float16, 0),
    (kl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[2, 2], instr_shape=[16, 32, 16]),
     NV(64, 16, rank=2), [64, 32], kl.float16, 0),
    (MMA2_41, NV(32, 8, rank=2), [32, 32], kl.int8, 0),
    (kl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[2, 4], instr_shape=[16, 8]),
     NV(0, 16, rank=2), [4, 64], kl.float16, 3),
    (MMA3_41, NV(128, 32, rank=2), [128, 64], kl.float32, 1),
])
def test_gluon_reference_counts(reg, shared, shape, dtype, count):
    kiln.compile(count_only, {}, {"reg_type": kl.distributed_type(dtype, shape, reg),
                                  "shared_type": kl.shared_memory_descriptor_type(
                                      dtype, shape, shared, alloc_shape=shape),
                                  "expect": count},
                 target=SM90, num_warps=placement(reg, shape)[2], cache=False)
    assert check(reg, shared, shape, dtype)[0] == count


# -- mistakes, at the user's line ------------------------------------------------------------


@kiln.jit
def count_of(a: kl.constexpr, b: kl.constexpr):
    kl.static_print(kl.bank_conflicts(a, b))  # E:count


BL = B([1, 4], [8, 4], [4, 1], [1, 0])
F32_T = kl.distributed_type(kl.float32, [32, 32], BL)
F32_S = kl.shared_memory_descriptor_type(kl.float32, [32, 32], ROW_MAJOR)


@pytest.mark.parametrize("a,b,target,cause,message", [
    (BL, F32_S, SM90, TypeError,
     r"bank_conflicts: distr_ty must be a distributed_type \(a tensor's type\), got "
     r"BlockedLayout .*"),
    (F32_T, F32_T, SM90, TypeError,
     r"bank_conflicts: shared_ty must be a shared_memory_descriptor_type \(a buffer's type\), "
     r"got distributed_type .*"),
    (kl.distributed_type(kl.float32, [64, 32], BL), F32_S, SM90, ValueError,
     r"bank_conflicts: the tensor's shape \[64, 32\] and the buffer's shape \[32, 32\] "
     r"differ"),
    (kl.distributed_type(kl.float16, [32, 32], BL), F32_S, SM90, ValueError,
     r"bank_conflicts: the tensor's element type fp16 and the buffer's fp32 differ"),
    (F32_T, kl.shared_memory_descriptor_type(kl.float32, [32, 32], ROW_MAJOR,
                                             alloc_shape=[32, 64]), SM90, ValueError,
     r"bank_conflicts: subslices are not supported: the buffer's shape \[32, 32\] is not the "
     r"trailing dimensions of its allocation's \[32, 64\]"),
    (kl.distributed_type(kl.float32, [32, 32], kl.AutoLayout()), F32_S, SM90, ValueError,
     r"bank_conflicts: the tensor's layout AutoLayout\(\) is chosen by the compiler later; "
     r"give a concrete register layout"),
    # A ring of two tiles with a two-dimensional layout: loads and stores take one slot.
    (kl.distributed_type(kl.float32, [2, 16, 16], B([1, 1, 4], [1, 8, 4], [1, 4, 1],
                                                     [2, 1, 0])),
     kl.shared_memory_descriptor_type(kl.float32, [2, 16, 16], ROW_MAJOR), SM90, ValueError,
     r"Kiln cannot address !tile\.memdesc<2x16x16xf32, .*> with tensor<2x16x16xf32, .*>"),
])
def test_mistakes_point_at_the_call(a, b, target, cause, message):
    with pytest.raises(kiln.CompilationError) as ei:
        kiln.compile(count_of, {}, {"a": a, "b": b}, target=target, num_warps=4, cache=False)
    located.assert_located(ei.value, HERE, "E:count", "kl.bank_conflicts", message,
                           kiln.CompilationError)
    assert isinstance(ei.value.internal_cause, cause)  # Gluon's exception classes


def test_only_inside_a_kernel():
    with pytest.raises(ValueError, match=r"can only be called from inside a @kiln.jit"):
        kl.bank_conflicts(F32_T, F32_S)


def test_a_cluster_counts_one_cta_part():
    # Split in two along the rows, each CTA moves a 128 x 64 part: the count of that part.
    split = B([1, 8], [32, 1], [4, 1], [1, 0], cga_layout=[[1, 0]])
    shared = NV(0, 16, rank=2, cga_layout=[[1, 0]])
    kiln.compile(count_only, {}, {"reg_type": kl.distributed_type(kl.float16, [256, 64], split),
                                  "shared_type": kl.shared_memory_descriptor_type(
                                      kl.float16, [256, 64], shared),
                                  "expect": 7},
                 target=SM90, num_warps=4, num_ctas=2, cache=False)
    assert check(B([1, 8], [32, 1], [4, 1], [1, 0]), NV(0, 16, rank=2), [128, 64],
                 kl.float16)[0] == 7


def test_types_as_constexprs_key_the_cache():
    from kiln.compiler.cache import mangle_value
    keys = {mangle_value(kl.distributed_type(kl.float32, [32, 32], BL)),
            mangle_value(kl.distributed_type(kl.float32, [32, 32], B([1, 1], [32, 1], [4, 1],
                                                                     [0, 1]))),
            mangle_value(F32_S),
            mangle_value(kl.shared_memory_descriptor_type(kl.float32, [32, 32], SW(4, 1, 8,
                                                                                   [1, 0]))),
            mangle_value(kl.shared_memory_descriptor_type(kl.float32, [32, 32], ROW_MAJOR,
                                                          mutable=False))}
    assert len(keys) == 5


def test_the_library_says_why():
    with pytest.raises(ValueError, match=r"not a tensor type with a layout: f32"):
        compiled.compiler.bank_conflicts("f32", F32_S.to_ir())
    with pytest.raises(ValueError, match=r"not a valid shared memory descriptor type: "
                                         r"!tile\.memdesc<8x16xf16, .*rows of 16 elements are "
                                         r"narrower than the 64-byte swizzle chunk"):
        compiled.compiler.bank_conflicts(
            "tensor<8x16xf16, " + BL.to_ir() + ">",
            kl.shared_memory_descriptor_type(kl.float16, [8, 16], NV(64, 16, rank=2)).to_ir())


# -- AMD: 64-lane waves, 32 (gfx942) or 64 (gfx950) banks, ds_read_b128's lane pairs ------------

# (banks, the lane bits one 16-byte pass serves), as Triton's AMD backend states them.
AMD_BANKS = {"hip:gfx942": (32, 0b10011), "hip:gfx950": (64, 0b11011)}


def _amd_count(reg, shared, shape, dtype, target):
    """(bank_conflicts on ``target``, bytes per element-wise shared access of the lowering)."""
    count, widths, _ = _compile(reg, shared, shape, dtype, target)
    assert len(widths) == 1, widths
    return count, widths.pop()


@pytest.mark.parametrize("target", list(AMD_BANKS))
@pytest.mark.parametrize("reg,shared,shape,dtype,counts", [
    # 16-byte reads, one row of 16 bytes a lane: consecutive lanes would fill the banks, but
    # ds_read_b128 pairs lanes 0-3 with 16-19 (gfx942) or 0-3, 8-11, 16-19, 24-27 (gfx950),
    # whose rows are 256 bytes apart: two words a bank.
    (B([1, 8], [64, 1], [4, 1], [1, 0]), ROW_MAJOR, [256, 8], kl.float16, (1, 1)),
    # Columns of a row-major buffer of 128-byte rows: 32 lanes a pass on one bank (gfx942),
    # or 64 lanes on two banks (gfx950's 64 banks span two rows).
    (B([1, 1], [64, 1], [1, 4], [0, 1]), ROW_MAJOR, [64, 32], kl.float32, (31, 31)),
    # The swizzle spreads 32 rows over the banks: rows r and r + 32 share a bank, which only
    # gfx950's 64-lane pass holds together.
    (B([1, 1], [64, 1], [1, 4], [0, 1]), SW(1, 1, 32, [1, 0]), [64, 32], kl.float32, (0, 1)),
    # 16-byte reads of 64-byte rows: the paired lanes are 4 (gfx942: rows 0 and 4) or 2 rows
    # apart (gfx950: rows 0, 2, 4, 6), 256 bytes each time.
    (B([1, 4], [16, 4], [4, 1], [1, 0]), ROW_MAJOR, [64, 16], kl.float32, (1, 1)),
    # An XOR swizzle by the row moves whole 16-byte units within a row: banks repeat still.
    (B([1, 8], [8, 8], [4, 1], [1, 0]), SW(8, 1, 8, [1, 0]), [32, 64], kl.float16, (1, 1)),
])
def test_amd_targets_count_their_banks(target, reg, shared, shape, dtype, counts):
    """Against the replay with the target's banks and lane pairs (and the hand counts)."""
    count, width = _amd_count(reg, shared, shape, dtype, target)
    banks, bits = AMD_BANKS[target]
    elem = max(1, BITS[dtype] // 8)
    assert count == replay(reg, shared, shape, dtype, width // elem, banks, bits)
    assert count == counts[list(AMD_BANKS).index(target)], (count, width)
