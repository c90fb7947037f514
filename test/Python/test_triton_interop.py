"""Gluon kernels use ``triton`` and ``triton.language`` beside Gluon's names; ported to Kiln by
swapping the Gluon imports, they keep those uses (kiln/compiler/triton_interop.py). Here Triton
is a stand-in package with Triton 3.6's classes, attributes and module names
(data/triton_standin); test/gpu/test_triton_interop_gpu.py runs the same kernels with the real
Triton on a GPU machine. Each check runs in a fresh interpreter: whether ``triton`` is imported
is part of what is tested."""

import json
import os
import subprocess
import sys

import pytest

from compiled import needs_compiler

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
STANDIN = os.path.join(HERE, "data", "triton_standin")


def _run(code, with_triton=True, tmp=None):
    path = [os.path.join(ROOT, "python"), HERE] + ([STANDIN] if with_triton else [])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path))
    script = os.path.join(tmp, "script.py")  # a file: kernels need their source
    with open(script, "w") as f:
        f.write(code)
    out = subprocess.run([sys.executable, script], env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@needs_compiler
def test_triton_names_in_a_kiln_kernel(tmp_path):
    r = _run(tmp=str(tmp_path), code=r'''
import json, kiln, triton.language as tl
import triton_interop_kernels as K
k = kiln.compile(K.scale_kernel, signature={"X": "*fp32:16", "Y": "*bf16:16", "N": "i32:16"},
                 constexprs={"BLOCK": 1024, "OUT_DTYPE": tl.bfloat16, "SLOPE": 0.25},
                 target="cuda:sm_90a", cache=False)
ptx = k.asm["ptx"]
s = kiln.compile(K.sum_kernel, signature={"X": "*fp32", "Out": "*fp32", "N": "i32"},
                 constexprs={"BLOCK": 512}, target="cuda:sm_90a", cache=False)
print(json.dumps({"v4": ptx.count("ld.global.v4.b32"), "bf16": ptx.count("cvt.rn.bf16x2.f32"),
                  "ex2": ptx.count("ex2.approx"), "constexprs": sorted(K.scale_kernel.constexpr_names),
                  "shfl": s.asm["ptx"].count("shfl.sync.bfly")}))
''')
    # tl.constexpr annotations are constexprs; BLOCK=1024 is triton.cdiv(1024, 512) = 2 chunks
    # of 512 fp32 in 128 threads (one v4 load each); OUT_DTYPE=tl.bfloat16 stores bf16;
    # tl.sigmoid (Triton's Python) and tl.math.exp2 become exp2 in each chunk; tl.sum reduces
    # across lanes.
    assert r["constexprs"] == ["BLOCK", "OUT_DTYPE", "SLOPE"]
    assert r["v4"] == 2
    assert r["bf16"] >= 2
    assert r["ex2"] >= 8
    assert r["shfl"] >= 5


@needs_compiler
def test_triton_name_without_kiln_meaning_is_an_error_at_the_line(tmp_path):
    r = _run(tmp=str(tmp_path), code=r'''
import json, kiln
import triton_interop_kernels as K
try:
    kiln.compile(K.dot_kernel, signature={"X": "*fp32"}, target="cuda:sm_90a", cache=False)
    print(json.dumps({"error": None}))
except kiln.CompilationError as e:
    print(json.dumps({"error": str(e).splitlines(), "file": e.file, "line": e.line,
                      "col": e.col}))
''')
    import located
    path = os.path.join(HERE, "triton_interop_kernels.py")
    line, col = located.where(path, "E:tl-dot", "tl.dot")
    assert r["error"] is not None
    assert (os.path.realpath(r["file"]), r["line"], r["col"]) == (os.path.realpath(path), line,
                                                                  col)
    assert "'tl.dot' has no meaning in a Kiln kernel" in r["error"][0]
    assert "matrix instructions" in r["error"][0]
    assert r["error"][1].strip() == "tl.dot(a, a)  # E:tl-dot"
    assert r["error"][2] == " " * (len(r["error"][1]) - len(r["error"][1].lstrip()) +
                                   col - 5) + "^"


@needs_compiler
def test_triton_dtypes_key_the_specialization_like_kiln_dtypes(tmp_path):
    r = _run(tmp=str(tmp_path), code=r'''
import json, kiln, kiln.language as kl, triton.language as tl
import triton_interop_kernels as K
f = K.scale_kernel
key = lambda d: f.specialize({"X": 0, "Y": 0, "N": 7, "BLOCK": 512, "OUT_DTYPE": d,
                              "SLOPE": tl.constexpr(0.5)})[3]
print(json.dumps({"same": key(tl.bfloat16) == key(kl.bfloat16),
                  "differ": key(tl.bfloat16) != key(tl.float16),
                  "fp": [kiln.compiler.deps.value_token(d) for d in (tl.float8e4nv, tl.int64)]}))
''')
    assert r["same"] and r["differ"]
    assert r["fp"] == ["fp8e4nv", "int64"]


@needs_compiler
def test_kiln_does_not_import_triton(tmp_path):
    r = _run(tmp=str(tmp_path), code=r'''
import json, sys, kiln, kiln.language as kl

@kiln.jit
def k(X, BLOCK: kl.constexpr):
    layout: kl.constexpr = kl.BlockedLayout([1], [32], [4], [0])
    kl.store(X + kl.arange(0, BLOCK, layout), 1.0)

kiln.compile(k, signature={"X": "*fp32"}, constexprs={"BLOCK": 128}, target="cuda:sm_90a",
             cache=False)
print(json.dumps({"triton": sorted(m for m in sys.modules if m.split(".")[0] == "triton")}))
''', with_triton=False)
    assert r["triton"] == []


@needs_compiler
def test_project_builtin_helper(tmp_path):
    r = _run(tmp=str(tmp_path), code=r'''
import json, kiln
import triton_interop_kernels as K
k = kiln.compile(K.tuple_builtin_kernel, signature={"X": "*fp32", "Out": "*fp32"},
                 constexprs={"N": 512, "W": 3}, target="cuda:sm_90a", cache=False)
print(json.dumps({"loads": k.asm["tile"].count("tile.load")}))
''')
    assert r["loads"] == 3


@needs_compiler
def test_plain_function_marked_builtin_without_semantic(tmp_path):
    # It was called with _semantic= regardless: "got an unexpected keyword argument"
    r = _run(tmp=str(tmp_path), code=r'''
import json, kiln
import triton_interop_kernels as K
k = kiln.compile(K.plain_builtin_kernel, signature={"Out": "*fp32"},
                 constexprs={"ROWS": 8, "COLS": 64}, target="cuda:sm_90a", cache=False)
print(json.dumps({"blocked": "sizePerThread = [1, 2]" in k.asm["tile"]}))
''')
    assert r["blocked"]


@needs_compiler
def test_triton_aggregate_tensor_field_from_constexpr_and_constexpr_value(tmp_path):
    r = _run(tmp=str(tmp_path), code=r'''
import json, kiln
import triton_interop_kernels as K
k = kiln.compile(K.aggregate_kernel, signature={"Out": "*i32"}, constexprs={"N": 1000},
                 target="cuda:sm_90a", cache=False)
n = kiln.compile(K.none_constexpr_kernel, signature={"Out": "*fp32"}, target="cuda:sm_90a",
                 cache=False)
print(json.dumps({"const32": "arith.constant 8 : i32" in k.asm["tile"]
                  and "arith.muli" in k.asm["tile"],
                  "one": "1.000000e+00" in n.asm["tile"]}))
''')
    # cdiv(1000, 128) = 8 became the tensor field (times 4 at run time); None.value is None
    assert r["const32"] and r["one"]


@needs_compiler
def test_type_of_a_folded_number(tmp_path):
    r = _run(tmp=str(tmp_path), code=r'''
import json, kiln
import triton_interop_kernels as K
for grid in (16, 13):
    kiln.compile(K.remap_kernel, signature={"Out": "*i32"}, constexprs={"GRID": grid},
                 target="cuda:sm_90a", cache=False)
print(json.dumps({"ok": True}))
''')
    assert r["ok"]


@needs_compiler
def test_triton_propagate_nan_enum_in_a_kiln_kernel(tmp_path):
    r = _run(tmp=str(tmp_path), code=r'''
import json, kiln
import triton_interop_kernels as K
sig = {"X": "*fp32", "Y": "*fp32", "Out": "*fp32"}
ptx = [kiln.compile(K.nan_max_kernel, signature=sig, constexprs={"PROPAGATE": p},
                    target="cuda:sm_90a", cache=False).asm["ptx"] for p in (True, False)]
print(json.dumps({"nan": [p.count("max.NaN.f32") for p in ptx],
                  "plain": [p.count("max.f32") for p in ptx]}))
''')
    # PropagateNan.ALL: a maximum that keeps NaNs; NONE: the one that drops them.
    assert r["nan"][0] >= 1 and r["plain"][0] == 0, r
    assert r["nan"][1] == 0 and r["plain"][1] >= 1, r



@needs_compiler
def test_proton_scopes_compile_to_nothing(tmp_path):
    # A third-party LUT kernel marks its phases with Proton's `with pl.scope("dots"):`; Kiln has
    # no Proton instrumentation, so the block compiles as if unmarked (as Triton compiles it
    # outside a profiling session).
    out = _run('''
import json, kiln, kiln.language as kl
import triton.profiler.language as pl

L = kl.BlockedLayout([1], [32], [4], [0])

@kiln.jit
def marked(x, MARK: kl.constexpr):
    o = kl.arange(0, 128, L)
    if MARK:
        with pl.scope("store"):
            kl.store(x + o, o)
        pl.enter_scope("again")
        kl.store(x + 128 + o, o)
        pl.exit_scope("again")
    else:
        kl.store(x + o, o)
        kl.store(x + 128 + o, o)

ptx = [kiln.compile(marked, {"x": "*i32"}, {"MARK": m}, target="cuda:sm_90a",
                    cache=False).asm["ptx"] for m in (True, False)]
strip = lambda p: "\\n".join(l for l in p.splitlines() if "marked" not in l and ".loc" not in l)
print(json.dumps({"same": strip(ptx[0]) == strip(ptx[1]), "stores": ptx[0].count("st.global")}))
''', tmp=str(tmp_path))
    assert out["same"] and out["stores"] == 2, out
