"""convert_layout through shared memory, as lowered, run on this machine's CPU for every thread of
a block: 32-lane warps (NVIDIA) and 64-lane waves (AMD), blocked, MMA and dot-operand layouts,
element types of 1, 2 and 4 bytes.

Each kernel fills a tensor in the source layout with each element's own linear index (built from
``arange`` in that layout), converts it to the destination layout, and stores every element at
its linear index in the destination layout. If the conversion is right, output[i] == i for every
i, whatever path the lowering took (registers, a scratch chosen by ConvertLayoutScratch.cpp, the
element-wise rounds). The lowered module runs through MLIR's JIT runner: the thread index is a
global the driver sets, shared memory a plain array, barriers are dropped, and the driver runs
every thread of the block in turn, twice, keeping the second pass's stores -- a kernel of
store, barrier, load reads in its second pass what every thread stored in the first (the same
values again). The reference (output[i] == i) shares nothing with the lowering.
"""

from __future__ import annotations

import os
import random
import re
import subprocess

import pytest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
KILN_OPT = os.path.join(ROOT, "build", "bin", "kiln-opt")
RUNNER = "/usr/lib/llvm-22/bin/mlir-runner"
UTILS = "/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so"

pytestmark = pytest.mark.skipif(
    not all(os.path.exists(p) for p in (KILN_OPT, RUNNER, UTILS)),
    reason="needs build/bin/kiln-opt, mlir-runner and libmlir_c_runner_utils (mlir-22-tools)")

NUM_WARPS = 4
SEED = int(os.environ.get("KILN_CONVERT_SEED", "20261130"))
INT = {1: "i8", 2: "i16", 4: "i32"}


def _split(rng, total, n):
    """`total` (a power of two) as `n` power-of-two factors."""
    out = [1] * n
    while total > 1:
        out[rng.randrange(n)] *= 2
        total //= 2
    return out


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


def kernel(shape, src, dst, ty):
    """Tile IR: output[linear index] = the element converted from `src` to `dst`."""
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
    lines.append(f"    %y = tile.convert_layout {v} : {t}{src}> -> {t}{dst}>")
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


TID = re.compile(r"^(\s*)(%\S+) = (?:rocdl\.workitem\.id\.x|nvvm\.read\.ptx\.sreg\.tid\.x)"
                 r"(?: range <[^>]*>)? : i32$")
DROP = re.compile(r"^\s*(rocdl\.s\.barrier|rocdl\.s\.waitcnt|llvm\.fence|nvvm\.barrier)")


def on_cpu(llvm_text, threads, elements, ty):
    """The lowered module with the thread index a global, shared and global memory plain
    arrays, no barriers, and a driver that runs every thread twice and prints the output."""
    out = []
    for line in llvm_text.splitlines():
        if DROP.match(line):
            continue
        m = TID.match(line)
        if m:
            ind, res = m.groups()
            p = f"%kiln_tidp{len(out)}"
            out.append(f"{ind}{p} = llvm.mlir.addressof @kiln_tid : !llvm.ptr")
            out.append(f"{ind}{res} = llvm.load {p} : !llvm.ptr -> i32")
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
  llvm.mlir.global internal @kiln_tid(0 : i32) : i32
  llvm.mlir.global internal @kiln_out(dense<-1> : tensor<{elements}x{ty}>) : !llvm.array<{elements} x {ty}>
  llvm.func @printI64(i64)
  llvm.func @printNewline()
  llvm.func @main() {{
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %c1 = llvm.mlir.constant(1 : i32) : i32
    %nt = llvm.mlir.constant({threads} : i32) : i32
    %runs = llvm.mlir.constant({2 * threads} : i32) : i32
    %ne = llvm.mlir.constant({elements} : i32) : i32
    %tidp = llvm.mlir.addressof @kiln_tid : !llvm.ptr
    %outp = llvm.mlir.addressof @kiln_out : !llvm.ptr
    llvm.br ^run(%c0 : i32)
  ^run(%i: i32):
    %more = llvm.icmp "slt" %i, %runs : i32
    llvm.cond_br %more, ^thread, ^show(%c0 : i32)
  ^thread:
    %t = llvm.urem %i, %nt : i32
    llvm.store %t, %tidp : i32, !llvm.ptr
    llvm.call @k(%outp) : (!llvm.ptr) -> ()
    %i1 = llvm.add %i, %c1 : i32
    llvm.br ^run(%i1 : i32)
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


def run(shape, src, dst, ty, target, lanes):
    low = lower(kernel(shape, src, dst, ty), target, lanes)
    elements = shape[0] * shape[1]
    prog = on_cpu(low, NUM_WARPS * lanes, elements, ty)
    res = subprocess.run([RUNNER, "-", "-e", "main", "-entry-point-result=void",
                          f"--shared-libs={UTILS}"], input=prog, capture_output=True,
                         text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    got = [int(x) for x in res.stdout.split()]
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


def test_the_scratch_path_is_exercised():
    """The 64-lane cases above move through a scratch in vectors (ConvertLayoutScratch.cpp), not
    only element by element: most of them store to shared memory in vectors."""
    amd = [c for c in cases() if c[6] == 64]
    through_shared = vectors = 0
    for name, shape, src, dst, ty, target, lanes in amd:
        low = lower(kernel(shape, src, dst, ty), target, lanes)
        stores = re.findall(r"llvm\.store %\S+, %\S+(?: \{[^}]*\})? : (\S+), !llvm\.ptr<3>", low)
        if stores:
            through_shared += 1
            vectors += any(t.startswith("vector<") for t in stores)
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
    prog = on_cpu("\n".join(broken), NUM_WARPS * lanes, shape[0] * shape[1], ty)
    res = subprocess.run([RUNNER, "-", "-e", "main", "-entry-point-result=void",
                          f"--shared-libs={UTILS}"], input=prog, capture_output=True,
                         text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    got = [int(x) for x in res.stdout.split()]
    assert any(g != i for i, g in enumerate(got))
