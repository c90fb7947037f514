"""convert_layout through shared memory, as lowered, run on this machine's CPU for every thread of
a block: 32-lane warps (NVIDIA) and 64-lane waves (AMD), blocked, MMA and dot-operand layouts,
element types of 1, 2 and 4 bytes.

Each kernel fills a tensor in the source layout with each element's own linear index (built from
``arange`` in that layout), converts it to the destination layout, and stores every element at
its linear index in the destination layout. If the conversion is right, output[i] == i for every
i, whatever path the lowering took (registers, a scratch chosen by ConvertLayoutScratch.cpp, the
element-wise rounds). The lowered module runs through MLIR's JIT runner with
every thread of the block an OS thread: the thread index is thread-local, the block's barrier a
pthread barrier, shared memory a plain array (a small C library, compiled here, provides them).
The reference (output[i] == i) shares nothing with the lowering.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
import tempfile

import pytest

from jit_runner import KILN_OPT, RUNNER, UTILS, needs_runner

pytestmark = needs_runner

NUM_WARPS = 4
SEED = int(os.environ.get("KILN_CONVERT_SEED", "20261130"))
INT = {1: "i8", 2: "i16", 4: "i32"}


from test_layout_differential import _factor as _split  # noqa: E402


def random_blocked(rng, shape, lanes):
    size = [rng.choice([1, 1, 2, 4, 8]) for _ in shape]
    order = rng.choice([[1, 0], [0, 1]])
    tpw = _split(rng, lanes, 2)
    wpc = _split(rng, NUM_WARPS, 2)
    return (f"#tile.blocked<{{sizePerThread = {size}, threadsPerWarp = {tpw}, "
            f"warpsPerCTA = {wpc}, order = {order}}}>")


def mfma(rng, version=3):
    instr = rng.choice([[32, 32, 8], [16, 16, 16]])
    wpc = rng.choice([[2, 2], [1, 4], [4, 1]])
    transposed = rng.choice(["true", "false"])
    return (f"#tile_amd.mfma<{{version = {version}, instrShape = {instr}, transposed = "
            f"{transposed}, warpsPerCTA = {wpc}, tilesPerWarp = [1, 1], elementBitWidth = 32}}>")


def nv_mma(rng):
    wpc = rng.choice([[2, 2], [1, 4], [4, 1]])
    return (f"#tile_nv.nvmma<{{versionMajor = 2, versionMinor = 0, warpsPerCTA = {wpc}, "
            f"instrShape = [16, 8]}}>")


def kernel(shape, src, dst, ty, rounds=1):
    """Tile IR: output[linear index] = the element converted from `src` to `dst` (in `rounds`
    rounds through shared memory where the layouts allow as many)."""
    m, n = shape
    lines = []

    def index(layout, tag):
        s1 = f"#tile.slice<{{dim = 1, parent = {layout}}}>"
        s0 = f"#tile.slice<{{dim = 0, parent = {layout}}}>"
        lines.extend([
            f"    %{tag}r = tile.arange 0, {m} : tensor<{m}xi32, {s1}>",
            f"    %{tag}c = tile.arange 0, {n} : tensor<{n}xi32, {s0}>",
            f"    %{tag}r2 = tile.expand_dims %{tag}r {{axis = 1 : i32}} : tensor<{m}xi32, {s1}> "
            f"-> tensor<{m}x1xi32, {layout}>",
            f"    %{tag}c2 = tile.expand_dims %{tag}c {{axis = 0 : i32}} : tensor<{n}xi32, {s0}> "
            f"-> tensor<1x{n}xi32, {layout}>",
            f"    %{tag}rb = tile.broadcast %{tag}r2 : tensor<{m}x1xi32, {layout}> -> "
            f"tensor<{m}x{n}xi32, {layout}>",
            f"    %{tag}cb = tile.broadcast %{tag}c2 : tensor<1x{n}xi32, {layout}> -> "
            f"tensor<{m}x{n}xi32, {layout}>",
            f"    %{tag}n = arith.constant dense<{n}> : tensor<{m}x{n}xi32, {layout}>",
            f"    %{tag}m = arith.muli %{tag}rb, %{tag}n : tensor<{m}x{n}xi32, {layout}>",
            f"    %{tag}i = arith.addi %{tag}m, %{tag}cb : tensor<{m}x{n}xi32, {layout}>",
        ])
        return f"%{tag}i"

    t = f"tensor<{m}x{n}x{ty}, "
    si = index(src, "s")
    if ty == "i32":
        v = si
    else:
        lines.append(f"    %v = arith.trunci {si} : tensor<{m}x{n}xi32, {src}> to {t}{src}>")
        v = "%v"
    attr = f" {{tile.scratch_rounds = {rounds} : i32}}" if rounds > 1 else ""
    lines.append(f"    %y = tile.convert_layout {v}{attr} : {t}{src}> -> {t}{dst}>")
    di = index(dst, "d")
    lines += [
        f"    %p = tile.splat %out : tensor<{m}x{n}x!tile.ptr<{ty}>, {dst}>",
        f"    %q = tile.addptr %p, {di} : tensor<{m}x{n}x!tile.ptr<{ty}>, {dst}>, "
        f"tensor<{m}x{n}xi32, {dst}>",
        f"    tile.store %q, %y : tensor<{m}x{n}x!tile.ptr<{ty}>, {dst}>",
    ]
    return (f"  func.func @k(%out: !tile.ptr<{ty}>) {{\n" + "\n".join(lines) +
            "\n    return\n  }\n")


def lower(body, target, lanes):
    module = (f'module attributes {{tile.target = "{target}", tile.num_warps = {NUM_WARPS} : i32, '
              f'tile.threads_per_warp = {lanes} : i32}} {{\n{body}}}\n')
    low = subprocess.run([KILN_OPT, "-", "--tile-allocate-shared-memory", "--convert-scf-to-cf",
                          f"--convert-tile-to-llvm=target={target}"],
                         input=module, capture_output=True, text=True, timeout=120)
    assert low.returncode == 0, module + low.stderr[-3000:]
    return low.stdout


def lower_kernel(shape, src, dst, ty, target, lanes, rounds=1):
    """lower(kernel(...)), with `rounds` capped at what the verifier says the layouts allow."""
    body = kernel(shape, src, dst, ty, rounds)
    if rounds > 1:
        module = (f'module attributes {{tile.target = "{target}", tile.num_warps = {NUM_WARPS} : '
                  f'i32, tile.threads_per_warp = {lanes} : i32}} {{\n{body}}}\n')
        check = subprocess.run([KILN_OPT, "-"], input=module, capture_output=True, text=True,
                               timeout=120)
        most = re.search(r"'tile\.scratch_rounds' must be a power of two between 1 and (\d+)",
                         check.stderr)
        if most:
            body = kernel(shape, src, dst, ty, int(most.group(1)))
    return lower(body, target, lanes)


TID = re.compile(r"^(\s*)(%\S+) = (?:rocdl\.workitem\.id\.x|nvvm\.read\.ptx\.sreg\.tid\.x)"
                 r"(?: range <[^>]*>)? : i32$")
BARRIER = re.compile(r"^(\s*)(rocdl\.s\.barrier|nvvm\.barrier0)\b")
DROP = re.compile(r"^\s*(rocdl\.s\.waitcnt|llvm\.fence)")

# Every thread of the block is an OS thread: the thread index is thread-local, the block's
# barrier a pthread barrier (which also orders memory).
THREADS_C = r"""
#include <pthread.h>
#include <stdlib.h>
static pthread_barrier_t barrier;
static __thread int thread_index;
static void (*kernel)(void *);
static void *kernel_arg;
int kiln_tid(void) { return thread_index; }
void kiln_barrier(void) { pthread_barrier_wait(&barrier); }
static void *body(void *p) { thread_index = (int)(long)p; kernel(kernel_arg); return 0; }
void kiln_run(int n, void (*fn)(void *), void *arg) {
  pthread_t *threads = malloc(sizeof(pthread_t) * n);
  kernel = fn; kernel_arg = arg;
  pthread_barrier_init(&barrier, 0, n);
  for (long i = 0; i < n; ++i) pthread_create(&threads[i], 0, body, (void *)i);
  for (int i = 0; i < n; ++i) pthread_join(threads[i], 0);
  pthread_barrier_destroy(&barrier);
  free(threads);
}
"""
_LIB = []


def threads_library():
    if not _LIB:
        cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
        if cc is None:
            pytest.skip("needs a C compiler (cc, gcc or clang) to build the pthread library that runs "
                        "the block's threads; scripts/setup.sh installs g++")
        d = tempfile.mkdtemp(prefix="kiln_threads")
        src = os.path.join(d, "threads.c")
        with open(src, "w") as f:
            f.write(THREADS_C)
        lib = os.path.join(d, "libkiln_threads.so")
        subprocess.run([cc, "-O1", "-shared", "-fPIC", src, "-o", lib, "-lpthread"], check=True,
                       capture_output=True)
        _LIB.append(lib)
    return _LIB[0]


def on_cpu(llvm_text, threads, elements, ty):
    """The lowered module with the thread index and the barrier calls into the thread library,
    shared and global memory plain arrays, and a driver that runs the block's threads
    concurrently and prints the output."""
    out = []
    for line in llvm_text.splitlines():
        if DROP.match(line):
            continue
        m = TID.match(line)
        if m:
            ind, res = m.groups()
            out.append(f"{ind}{res} = llvm.call @kiln_tid() : () -> i32")
            continue
        m = BARRIER.match(line)
        if m:
            out.append(f"{m.group(1)}llvm.call @kiln_barrier() : () -> ()")
            continue
        if "@global_smem()" in line and "llvm.mlir.global" in line:
            line = ("  llvm.mlir.global internal @global_smem(dense<0> : tensor<65536xi8>) "
                    "{addr_space = 0 : i32, alignment = 16 : i64} : !llvm.array<65536 x i8>")
        line = re.sub(r"!llvm\.ptr<[13]>", "!llvm.ptr", line)
        line = re.sub(r"\bptr<[13]>", "ptr", line)  # inside struct types
        line = re.sub(r" attributes \{[^{}]*(rocdl|nvvm)[^{}]*\}", "", line)
        out.append(line)
    text = "\n".join(out)
    leftover = sorted(set(re.findall(r"\b(?:rocdl|nvvm)\.[\w.]+", text)))
    assert not leftover, f"ops this simulation has no meaning for: {leftover}"
    driver = f"""
  llvm.mlir.global internal @kiln_out(dense<-1> : tensor<{elements}x{ty}>) : !llvm.array<{elements} x {ty}>
  llvm.func @kiln_tid() -> i32
  llvm.func @kiln_barrier()
  llvm.func @kiln_run(i32, !llvm.ptr, !llvm.ptr)
  llvm.func @printI64(i64)
  llvm.func @printNewline()
  llvm.func @main() {{
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %c1 = llvm.mlir.constant(1 : i32) : i32
    %nt = llvm.mlir.constant({threads} : i32) : i32
    %ne = llvm.mlir.constant({elements} : i32) : i32
    %outp = llvm.mlir.addressof @kiln_out : !llvm.ptr
    %kp = llvm.mlir.addressof @k : !llvm.ptr
    llvm.call @kiln_run(%nt, %kp, %outp) : (i32, !llvm.ptr, !llvm.ptr) -> ()
    llvm.br ^show(%c0 : i32)
  ^show(%j: i32):
    %left = llvm.icmp "slt" %j, %ne : i32
    llvm.cond_br %left, ^one, ^end
  ^one:
    %ep = llvm.getelementptr %outp[%j] : (!llvm.ptr, i32) -> !llvm.ptr, {ty}
    %e = llvm.load %ep : !llvm.ptr -> {ty}
    %e64 = llvm.zext %e : {ty} to i64
    llvm.call @printI64(%e64) : (i64) -> ()
    llvm.call @printNewline() : () -> ()
    %j1 = llvm.add %j, %c1 : i32
    llvm.br ^show(%j1 : i32)
  ^end:
    llvm.return
  }}
"""
    end = text.rstrip().rfind("}")
    return text[:end] + driver + text[end:]


def execute(prog):
    res = subprocess.run([RUNNER, "-", "-e", "main", "-entry-point-result=void",
                          f"--shared-libs={UTILS}", f"--shared-libs={threads_library()}"],
                         input=prog, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    return [int(x) for x in res.stdout.split()]


def run(shape, src, dst, ty, target, lanes, rounds=1):
    low = lower_kernel(shape, src, dst, ty, target, lanes, rounds)
    elements = shape[0] * shape[1]
    got = execute(on_cpu(low, NUM_WARPS * lanes, elements, ty))
    assert len(got) == elements
    mask = (1 << (8 * {"i8": 1, "i16": 2, "i32": 4}[ty])) - 1
    return low, [(i, g) for i, g in enumerate(got) if g != i & mask]


def cases():
    rng = random.Random(SEED)
    out = []
    for target, lanes in (("hip:gfx942", 64), ("hip:gfx950", 64), ("cuda:sm_90a", 32)):
        for k in range(8):
            shape = [rng.choice([32, 64]), rng.choice([32, 64])]
            ty = INT[rng.choice([1, 2, 2, 4])]
            if ty == "i8":
                shape = [16, 16]  # every index fits a byte
            src, dst = random_blocked(rng, shape, lanes), random_blocked(rng, shape, lanes)
            out.append((f"{target}-blocked-{k}", shape, src, dst, ty, target, lanes))
    # an MMA accumulator to and from row-blocked layouts, and to a dot operand, as kernels do
    for k in range(4):
        acc = mfma(rng, version=rng.choice([3, 4]))
        row = random_blocked(rng, [64, 64], 64)
        ty = rng.choice(["i16", "i32"])
        out.append((f"mfma-to-blocked-{k}", [64, 64], acc, row, ty, "hip:gfx942", 64))
        out.append((f"blocked-to-mfma-{k}", [64, 64], row, acc, ty, "hip:gfx942", 64))
        kw = 8 if ty == "i16" else 4
        dot = f"#tile_amd.dot_op<{{opIdx = {k % 2}, parent = {acc}, kWidth = {kw}}}>"
        out.append((f"mfma-to-dot-{k}", [64, 64], acc, dot, ty, "hip:gfx942", 64))
        out.append((f"blocked-to-dot-{k}", [64, 64], row, dot, ty, "hip:gfx942", 64))
    # the K tile of aiter's FP8 paged MQA logits kernel: a transposed blocked load to the B
    # operand of a 16x16x32 MFMA with kWidth 16 (bytes read along K, written along N)
    kt = ("#tile.linear<{register = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1], [0, 2], [0, 4]], "
          "lane = [[16, 0], [32, 0], [64, 0], [0, 8], [0, 16], [0, 32]], warp = [[0, 64], "
          "[0, 128]]}>")
    acc = ("#tile_amd.mfma<{version = 4, instrShape = [16, 16, 32], transposed = false, "
           "warpsPerCTA = [1, 4], tilesPerWarp = [1, 1], elementBitWidth = 32}>")
    dot = f"#tile_amd.dot_op<{{opIdx = 1, parent = {acc}, kWidth = 16}}>"
    for ty in ("i8", "i16"):
        out.append((f"mqa-logits-k-{ty}", [128, 256], kt, dot, ty, "hip:gfx950", 64))
    for k in range(2):
        acc = nv_mma(rng)
        row = random_blocked(rng, [64, 64], 32)
        out.append((f"mma-to-blocked-{k}", [64, 64], acc, row, "i16", "cuda:sm_90a", 32))
    return out


@pytest.mark.parametrize("name,shape,src,dst,ty,target,lanes", cases(),
                         ids=[c[0] for c in cases()])
def test_convert_layout_on_cpu(name, shape, src, dst, ty, target, lanes):
    low, wrong = run(shape, src, dst, ty, target, lanes)
    assert not wrong, (f"{len(wrong)} elements wrong, first {wrong[:8]} "
                       f"({src} -> {dst}, {ty})")


def round_cases():
    """Moves forced into 2 and 4 rounds (tile.scratch_rounds, as tile-allocate-shared-memory sets
    it where a tile does not fit): blocked layouts whose registers hold several rows or columns
    and MMA accumulators, 32- and 64-lane."""
    rng = random.Random(SEED + 1)
    out = []
    for k in range(10):
        target, lanes = rng.choice([("hip:gfx942", 64), ("hip:gfx950", 64), ("cuda:sm_90a", 32)])
        shape = [64, 64]
        ty = rng.choice(["i16", "i32"])
        src = (f"#tile.blocked<{{sizePerThread = [{rng.choice([2, 4, 8])}, {rng.choice([1, 2, 4])}],"
               f" threadsPerWarp = {_split(rng, lanes, 2)}, warpsPerCTA = {_split(rng, 4, 2)}, "
               f"order = {rng.choice([[1, 0], [0, 1]])}}}>")
        if lanes == 64 and k % 3 == 0:
            dst = mfma(rng, version=3)
        elif lanes == 32 and k % 3 == 0:
            dst = nv_mma(rng)
        else:
            dst = random_blocked(rng, shape, lanes)
        for rounds in (2, 4):
            out.append((f"rounds{rounds}-{k}", shape, src, dst, ty, target, lanes, rounds))
            out.append((f"rounds{rounds}-back-{k}", shape, dst, src, ty, target, lanes, rounds))
    return out


@pytest.mark.parametrize("name,shape,src,dst,ty,target,lanes,rounds", round_cases(),
                         ids=[c[0] for c in round_cases()])
def test_convert_layout_in_rounds_on_cpu(name, shape, src, dst, ty, target, lanes, rounds):
    low, wrong = run(shape, src, dst, ty, target, lanes, rounds)
    assert not wrong, (f"{len(wrong)} elements wrong, first {wrong[:8]} "
                       f"({src} -> {dst}, {ty}, {rounds} rounds)")


def _vector_stores(low):
    """(stores to shared memory at all, some of them vectors) in a lowered module."""
    stores = re.findall(r"llvm\.store %\S+, %\S+(?: \{[^}]*\})? : (\S+), !llvm\.ptr<3>", low)
    return bool(stores), any(t.startswith("vector<") for t in stores)


def test_rounds_move_vectors():
    """Moves in rounds go through the chosen scratch (vectors), not only element by element:
    most of the cases above store to shared memory in vectors, and every round is a pair of
    barriers."""
    vectors = total = 0
    for name, shape, src, dst, ty, target, lanes, rounds in round_cases():
        shared, vector = _vector_stores(lower_kernel(shape, src, dst, ty, target, lanes, rounds))
        total += shared
        vectors += vector
    assert total >= 20 and vectors * 2 > total, (total, vectors)


def test_the_scratch_path_is_exercised():
    """The 64-lane cases above move through a scratch in vectors (ConvertLayoutScratch.cpp), not
    only element by element: most of them store to shared memory in vectors."""
    amd = [c for c in cases() if c[6] == 64]
    through_shared = vectors = 0
    for name, shape, src, dst, ty, target, lanes in amd:
        shared, vector = _vector_stores(lower(kernel(shape, src, dst, ty), target, lanes))
        through_shared += shared
        vectors += vector
    assert through_shared >= 10 and vectors * 2 > through_shared, (through_shared, vectors)


def test_the_simulation_can_fail():
    """A lowering whose scratch reads are moved by one element must be caught: the same
    conversion with every shared-memory load address offset."""
    shape, ty, target, lanes = [32, 32], "i32", "hip:gfx942", 64
    src = ("#tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 8], warpsPerCTA = "
           "[4, 1], order = [1, 0]}>")
    dst = ("#tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 4], warpsPerCTA = "
           "[1, 4], order = [0, 1]}>")
    low = lower(kernel(shape, src, dst, ty), target, lanes)
    assert "llvm.load" in low and "!llvm.ptr<3>" in low, "the conversion must use shared memory"
    # every load from shared memory reads the next element (wraps within the scratch)
    broken, n = [], 0
    for line in low.splitlines():
        m = re.match(r"^(\s*)(%\S+) = llvm\.load (%\S+)( \{[^}]*\})? : !llvm\.ptr<3> -> (.*)$",
                     line)
        if m:
            ind, res, ptr, attrs, rty = m.groups()
            n += 1
            broken.append(f"{ind}%kiln_q{n} = llvm.getelementptr {ptr}[4] : (!llvm.ptr<3>) -> "
                          f"!llvm.ptr<3>, i8")
            broken.append(f"{ind}{res} = llvm.load %kiln_q{n} : !llvm.ptr<3> -> {rty}")
        else:
            broken.append(line)
    assert n
    got = execute(on_cpu("\n".join(broken), NUM_WARPS * lanes, shape[0] * shape[1], ty))
    assert any(g != i for i, g in enumerate(got))
