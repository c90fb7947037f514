#!/usr/bin/env python3
"""Gluon's public names against Kiln's: writes docs/gluon-coverage.md (issue 27).

Every public name of Gluon's language packages (``triton.experimental.gluon.language`` and
its subpackages) is looked up in the matching Kiln package (``gl.nvidia.hopper.tma`` ->
``kiln.language.nvidia.hopper.tma``) and is one of

* supported: Kiln's package has the name;
* supported, differs: it has it, and DIFFERENCES below states how it behaves otherwise;
* not yet: it does not (nor does it have the package).

Gluon's names come from a JSON file (docs/data/gluon-names.json), so the table is made where
Triton is not installed and cannot drift from either side:

    python3 scripts/gluon-coverage.py                   # regenerate docs/gluon-coverage.md
    python3 scripts/gluon-coverage.py --check           # exit 1 if the committed table is stale
    python3 scripts/gluon-coverage.py --capture OUT.json          # where Triton is installed
    python3 scripts/gluon-coverage.py --from-source REPO OUT.json # static parse of a checkout

A package's public names are its ``__all__`` if it has one, else its ``dir()`` less
underscore names and less modules other than its own submodules. A submodule whose name the
parent binds to something else (``gl.amd.slice`` is a function, not the module of that name)
is skipped: users cannot reach it by that path.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import fnmatch
import importlib
import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GLUON = "triton.experimental.gluon.language"
KILN = "kiln.language"
DEFAULT_JSON = ROOT / "docs" / "data" / "gluon-names.json"
DEFAULT_MD = ROOT / "docs" / "gluon-coverage.md"

# Packages outside issue 27's goal (fnmatch patterns over package paths below gl). Rubin is
# not in Triton 3.6; it is here because it is newer than Blackwell and only the provisional,
# newer name list has it.
OUTSIDE_GOAL = ("nvidia.blackwell*", "nvidia.rubin*", "amd.rdna*", "amd.gfx1250*")

# "package.name" (package path below gl; a root name has no package) -> how Kiln's differs.
# Each line restates something docs/ or kiln.language already says; keep it one line.
_WARP_PIPELINE = ("a border ends each stage (s_sched_barrier 0) and a stage runs at its "
                  "priority (s_setprio), as in Gluon; the warps of a block are not staggered "
                  "by a stage")

# Both refuse at the call what PTX's cp.reduce.async.bulk.tensor cannot reduce.
_TMA_REDUCE = "a type PTX cannot reduce is refused, as Gluon's verifier refuses it"
_UNSIGNED_MIN_MAX = (_TMA_REDUCE + "; on a descriptor made in the kernel (its tensor map holds "
                     "integers signed) an unsigned min or max is refused too")
_BITWISE_64 = (_TMA_REDUCE + "; a 64-bit one only on a host descriptor's uint64 (on an int64 "
               "tensor map the GPU stops with an illegal instruction), where Gluon passes int64 "
               "on")
_SHARED_BARRIER = ("one barrier per CTA of a cluster, as Gluon; a barrier CTAs share (a zero "
                   "cga_layout basis, two_ctas=True) is refused (hopper.md)")
_ATOMIC_LDST = "NVIDIA targets only (AMD refused at the call)"
_NV_POLICY = ("checked as in Gluon; the L2 policy of a TMA copy is applied (createpolicy, "
              ".L2::cache_hint), the cache modifier of a cp.async copy too; L1 priorities, "
              "L2 prefetch sizes and the policies of plain loads and stores are hints Kiln "
              "does not apply")
DIFFERENCES = {
    "nvidia.blackwell": "only the tensor-memory layout classes, as descriptions, so that a "
                        "kernel with a Hopper and a Blackwell path compiles its Hopper path; "
                        "Kiln has no Blackwell target",
    "nvidia.blackwell.TensorMemoryLayout": "a description only: Kiln has no tensor memory",
    "nvidia.hopper.tma.async_copy_global_to_shared": "a transposed NVMMA layout is refused, "
                                                     "as Gluon's verifier refuses it (TMA "
                                                     "writes a block in global order; permute "
                                                     "the buffer instead)",
    "nvidia.hopper.tma.async_atomic_add": _TMA_REDUCE + "; a 64-bit add only on a host "
                                          "descriptor's uint64 (PTX has no s64 add), where "
                                          "Gluon passes int64 on",
    "nvidia.hopper.tma.async_atomic_min": _UNSIGNED_MIN_MAX,
    "nvidia.hopper.async_store": "each CTA stores into its own buffer: a tensor and a buffer "
                                 "split differently among the cluster's CTAs (Gluon sends "
                                 "elements to the CTA whose buffer holds them) are refused "
                                 "(hopper.md)",
    "nvidia.ampere.mbarrier.allocate_mbarrier": _SHARED_BARRIER,
    "nvidia.hopper.mbarrier.allocate_mbarrier": _SHARED_BARRIER,
    "nvidia.ampere.mbarrier.MBarrierLayout": _SHARED_BARRIER,
    "nvidia.hopper.mbarrier.MBarrierLayout": _SHARED_BARRIER,
    "nvidia.hopper.tma.async_atomic_and": _BITWISE_64,
    "nvidia.hopper.tma.async_atomic_or": _BITWISE_64,
    "nvidia.hopper.tma.async_atomic_xor": _BITWISE_64,
    "nvidia.hopper.tma.async_atomic_max": _UNSIGNED_MIN_MAX,
    "bank_conflicts": "counts the accesses Kiln's lowering issues (its vector widths, padding "
                      "included, distinct 4-byte words per bank; on AMD the target's 32 or 64 "
                      "banks and ds_read_b128's lane pairs, as Triton's main branch models "
                      "them) (shared-memory.md)",
    "device_print": "AMD targets: ROCm's device printf (ockl's hostcall, as HIP's compiler "
                    "lowers printf) where the ROCm device libraries are installed, else refused "
                    "at the call; not yet run on an AMD GPU",
    "device_assert": "AMD targets: the file:line report through ROCm's device printf where the "
                     "ROCm device libraries are installed, else a trap without it; not yet run "
                     "on an AMD GPU",
    "shared_memory_descriptor": "`_reinterpret` stays inside the view's own bytes; a view "
                                "sliced along a dimension the cluster splits supports load, "
                                "store, gather, scatter, the atomics, slice and index "
                                "(shared-memory.md)",
    "NVMMASharedLayout": "fp4_padded=True is refused: it lays out packed fp4 operands for "
                         "Blackwell's TMA and scaled MMA (Gluon's TMA takes it only on "
                         "sm_100+), and Kiln's NVIDIA targets end at Hopper",
    "CachePolicy": "checked as in Gluon; applied as a cp.async copy's cache modifier and a TMA "
                   "copy's L2 eviction hint (evict_first / evict_last); on plain loads and "
                   "stores a hint Kiln does not apply",
    "nvidia.ampere.CachePolicy": _NV_POLICY,
    "nvidia.hopper.CachePolicy": _NV_POLICY,
    "fpsan": "embed and unembed compute Triton's payloads; Kiln has no sanitizer mode "
             "(Triton's TRITON_INSTRUMENTATION_MODE=fpsan)",
    "inline_asm_elementwise": "with a shared-memory view among the operands, elements "
                              "narrower than 32 bits are not packed (pack=1 then)",
    "atomic_load": _ATOMIC_LDST,
    "atomic_store": _ATOMIC_LDST,
    "atomic_poll": _ATOMIC_LDST + "; every thread polls the elements it holds and acquires "
                                  "for itself (no CTA barrier after)",
    "amd.warp_pipeline_stage": _WARP_PIPELINE,
    "amd.warp_pipeline.warp_pipeline_stage": _WARP_PIPELINE,
}

SUPPORTED, DIFFERS, NOT_YET = "supported", "supported, differs", "not yet"


def _join(pkg: str, name: str) -> str:
    return f"{pkg}.{name}" if pkg else name


def outside_goal(pkg: str, name: str | None = None) -> bool:
    """Whether a package (or, with ``name``, a module name naming such a package) is outside
    the goal."""
    path = pkg if name is None else _join(pkg, name)
    return any(fnmatch.fnmatchcase(path, p) for p in OUTSIDE_GOAL)


# -- capture: import Triton and record what it exports -------------------------------------


def _runtime_kind(obj) -> str:
    if inspect.ismodule(obj):
        return "module"
    if inspect.isclass(obj):
        return "class"
    if any(c.__name__ == "dtype" for c in type(obj).__mro__):
        return "dtype"
    if callable(obj) or "JITFunction" in type(obj).__name__:
        return "function"
    return "constant"


def _runtime_names(mod) -> dict:
    import __future__
    feature = type(__future__.annotations)
    if hasattr(mod, "__all__"):
        names, origin = list(dict.fromkeys(mod.__all__)), "__all__"
    else:
        names, origin = [], "dir"
        for n in dir(mod):
            v = getattr(mod, n, None)
            if n.startswith("_") or isinstance(v, feature):
                continue
            if inspect.ismodule(v) and v.__name__ != f"{mod.__name__}.{n}":
                continue
            names.append(n)
    kinds = {n: _runtime_kind(getattr(mod, n)) if hasattr(mod, n) else "missing" for n in names}
    return {"module": mod.__name__, "names_from": origin, "names": dict(sorted(kinds.items()))}


def capture() -> dict:
    import pkgutil
    import triton
    packages, skipped = {}, {}

    def visit(rel, mod):
        packages[rel] = _runtime_names(mod)
        for info in sorted(pkgutil.iter_modules(getattr(mod, "__path__", [])),
                           key=lambda i: i.name):
            if info.name.startswith("_"):
                continue
            sub_rel, full = _join(rel, info.name), f"{mod.__name__}.{info.name}"
            try:
                sub = importlib.import_module(full)
            except Exception as e:  # record it: one broken submodule must not stop the walk
                packages[sub_rel] = {"module": full, "error": f"{type(e).__name__}: {e}",
                                     "names": {}}
                continue
            attr = getattr(mod, info.name, sub)
            if attr is not sub:
                skipped[sub_rel] = f"the parent binds {info.name!r} to a {_runtime_kind(attr)}"
                continue
            visit(sub_rel, sub)

    visit("", importlib.import_module(GLUON))
    return {"source": f"--capture of installed Triton ({os.path.dirname(triton.__file__)})",
            "triton_version": triton.__version__, "root": GLUON,
            "packages": dict(sorted(packages.items())), "skipped": skipped, "unresolved": []}


# -- from-source: the same lists from a Triton checkout or bare mirror, with ast -------------


class _Tree:
    """Python files under python/ of a checkout, or of a bare git repository's HEAD."""

    def __init__(self, repo: str):
        self.repo = Path(repo)
        self.git = not (self.repo / "python").is_dir()
        if self.git:
            out = self._run("ls-tree", "-r", "HEAD", "--name-only", "python/")
            self.files = set(out.splitlines())
        else:
            self.files = {str(p.relative_to(self.repo)) for p in self.repo.glob("python/**/*.py")}
        self.commit = self._run("rev-parse", "HEAD").strip() if self._is_git() else None

    def _is_git(self):
        return self.git or (self.repo / ".git").exists()

    def _run(self, *args):
        return subprocess.run(["git", "-C", str(self.repo), *args], check=True,
                              capture_output=True, text=True).stdout

    def path(self, mod: str) -> str | None:
        base = "python/" + mod.replace(".", "/")
        for p in (base + "/__init__.py", base + ".py"):
            if p in self.files:
                return p
        return None

    def is_package(self, mod):
        return (self.path(mod) or "").endswith("/__init__.py")

    def read(self, path):
        return self._run("show", f"HEAD:{path}") if self.git else (self.repo / path).read_text()

    def children(self, mod):
        base = "python/" + mod.replace(".", "/") + "/"
        kids = set()
        for f in self.files:
            if f.startswith(base) and f.endswith(".py"):
                parts = f[len(base):].split("/")
                if len(parts) == 1 and parts[0] != "__init__.py":
                    kids.add(parts[0][:-3])
                elif len(parts) == 2 and parts[1] == "__init__.py":
                    kids.add(parts[0])
        return sorted(kids)


class _Static:
    def __init__(self, tree: _Tree):
        self.tree, self.unresolved = tree, set()
        self._bindings, self._all = {}, {}

    def bindings(self, mod):
        """Top-level name -> how it is bound: ("def"|"class",), ("module", full),
        ("from", module, name) or ("assign", node). ``if`` blocks (TYPE_CHECKING) bind nothing
        at run time; ``try`` bodies do."""
        if mod in self._bindings:
            return self._bindings[mod]
        b = self._bindings[mod] = {}
        path = self.tree.path(mod)
        if path is None:
            return b
        pkg = mod if self.tree.is_package(mod) else mod.rpartition(".")[0]
        stmts = list(ast.parse(self.tree.read(path)).body)
        while stmts:
            s = stmts.pop(0)
            if isinstance(s, ast.Try):
                stmts[:0] = s.body
            elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                b[s.name] = ("class",) if isinstance(s, ast.ClassDef) else ("def",)
            elif isinstance(s, ast.Import):
                for a in s.names:
                    b[a.asname or a.name.split(".")[0]] = ("module", a.name if a.asname
                                                           else a.name.split(".")[0])
            elif isinstance(s, ast.ImportFrom) and s.module != "__future__":
                src = s.module or ""
                if s.level:
                    base = pkg.split(".")
                    base = base[:len(base) - (s.level - 1)]
                    src = ".".join(base + ([src] if src else []))
                for a in s.names:
                    if a.name == "*":
                        for n in self.public(src):
                            b[n] = ("from", src, n)
                    else:
                        b[a.asname or a.name] = ("from", src, a.name)
            elif isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and s.value:
                targets = s.targets if isinstance(s, ast.Assign) else [s.target]
                for t in targets:
                    if isinstance(t, ast.Name):
                        if t.id == "__all__":
                            extra = self._all_list(mod, s.value, b)
                            old = self._all.get(mod, []) if isinstance(s, ast.AugAssign) else []
                            self._all[mod] = old + extra
                        else:
                            b[t.id] = ("assign", s.value)
        return b

    def _all_list(self, mod, node, b):
        if not isinstance(node, (ast.List, ast.Tuple)):
            self.unresolved.add(f"{mod}.__all__: not a list literal")
            return []
        names = []
        for e in node.elts:
            if isinstance(e, ast.Constant) and isinstance(e.value, str):
                names.append(e.value)
            elif isinstance(e, ast.Starred) and isinstance(e.value, ast.Name) and \
                    b.get(e.value.id, ("",))[0] == "from" and b[e.value.id][2] == "__all__":
                names.extend(self.all_of(b[e.value.id][1]) or [])
            else:
                self.unresolved.add(f"{mod}.__all__: element {ast.unparse(e)}")
        return names

    def all_of(self, mod):
        self.bindings(mod)
        return self._all.get(mod)

    def public(self, mod):
        """Public names of ``mod``: ``__all__`` or its bindings less private names and foreign
        modules (what dir() gives at run time, but for submodules that another import binds)."""
        names = self.all_of(mod)
        if names is not None:
            return list(dict.fromkeys(names))
        out = []
        for n in self.bindings(mod):
            if n.startswith("_"):
                continue
            if self.kind(mod, n) == "module" and not self.tree.path(f"{mod}.{n}"):
                continue
            out.append(n)
        return out

    def kind(self, mod, name, seen=None):
        seen = seen or set()
        if (mod, name) in seen:
            return "unknown"
        seen.add((mod, name))
        b = self.bindings(mod).get(name)
        if b is None:
            if self.tree.path(f"{mod}.{name}"):
                return "module"
            self.unresolved.add(f"{mod}.{name}: listed but never bound")
            return "missing"
        if b[0] in ("def", "class"):
            return {"def": "function", "class": "class"}[b[0]]
        if b[0] == "module":
            return "module"
        if b[0] == "from":
            src, n = b[1], b[2]
            if self.tree.path(f"{src}.{n}") and (src == mod or n not in self.bindings(src)):
                return "module"
            if self.tree.path(src) is None:
                self.unresolved.add(f"{mod}.{name}: from {src} (not in the tree)")
                return "unknown"
            return self.kind(src, n, seen)
        node = b[1]
        if isinstance(node, ast.Call):
            f = node.func
            called = f.id if isinstance(f, ast.Name) else getattr(f, "attr", "")
            return "dtype" if called in ("dtype", "pointer_type", "block_type") else "function"
        if isinstance(node, ast.Name):
            return self.kind(mod, node.id, seen)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            base = self.bindings(mod).get(node.value.id)
            if base and base[0] in ("module", "from"):
                target = base[1] if base[0] == "module" else f"{base[1]}.{base[2]}"
                if self.tree.path(target):
                    return self.kind(target, node.attr, seen)
        if isinstance(node, ast.Constant):
            return "constant"
        self.unresolved.add(f"{mod}.{name}: = {ast.unparse(node)[:60]}")
        return "unknown"


def from_source(repo: str) -> dict:
    tree = _Tree(repo)
    st = _Static(tree)
    packages, skipped = {}, {}

    def visit(rel, mod):
        try:
            names = st.public(mod)
            entry = {"module": mod, "names_from": "__all__" if st.all_of(mod) is not None
                     else "dir", "names": dict(sorted((n, st.kind(mod, n)) for n in names))}
        except SyntaxError as e:
            entry = {"module": mod, "error": f"SyntaxError: {e}", "names": {}}
        packages[rel] = entry
        if not tree.is_package(mod):
            return
        for kid in tree.children(mod):
            if kid.startswith("_"):
                continue
            kind = entry["names"].get(kid)
            if kind not in (None, "module"):
                skipped[_join(rel, kid)] = f"the parent binds {kid!r} to a {kind}"
                continue
            visit(_join(rel, kid), f"{mod}.{kid}")

    visit("", GLUON)
    version = None
    init = tree.path("triton")
    if init:
        for s in ast.parse(tree.read(init)).body:
            if isinstance(s, ast.Assign) and any(getattr(t, "id", "") == "__version__"
                                                 for t in s.targets):
                version = ast.literal_eval(s.value)
    where = f"{version} at {tree.commit[:12]}" if tree.commit else version
    return {"source": None, "triton_version": where, "root": GLUON,
            "packages": dict(sorted(packages.items())), "skipped": skipped,
            "unresolved": sorted(u for u in st.unresolved if u.startswith(GLUON))}


# -- generate: classify every name against Kiln ----------------------------------------------


def _kiln_module(kiln_root, pkg):
    """Kiln's package for Gluon package path ``pkg``, or None where Kiln has none (a broken
    Kiln import is an error, not a missing package)."""
    full = _join(kiln_root, pkg) if pkg else kiln_root
    try:
        return importlib.import_module(full)
    except ModuleNotFoundError as e:
        if e.name and (full == e.name or full.startswith(e.name + ".")):
            return None
        raise


# "package.name" -> what Kiln also accepts where Gluon 3.6 refuses or fails, or a refusal Kiln
# shares with Gluon 3.6, for a name that otherwise behaves as Gluon's (status stays
# "supported"). Checked by running both on the GPU
# machine: Gluon 3.6 lowers no fp8 arithmetic (a PassManager failure on `x + x`, a TypeError on
# `x * 2.0`) and refuses fp8 math functions and reductions; FNUZ types only on AMD targets.
_FP8_EXT = ("also computes by promotion (+, -, *, /, comparisons, minimum, maximum, where), "
            "which Gluon 3.6 does not lower; like Gluon, math functions, reductions and scans "
            "take a conversion first; on sm_80, which has no fp8 conversion instructions, "
            "conversions are emulated in integer arithmetic (Gluon refuses fp8 below sm_89)")
_INDICES_EXT = ("also takes return_indices=True, which Gluon 3.6 fails to compile (its "
                "_reduce_with_indices calls arange without a layout; seen on the GPU machine): "
                "the extreme and the smallest index holding it, NaN skipped (index 0 for an "
                "all-NaN row)")
_TOKEN_EXT = "also returns a token for Kiln's wait_for (Gluon code is unaffected)"
EXTENSIONS = {
    "nvidia.hopper.warpgroup_mma": "also takes max_num_imprecise_acc=None with fp8 operands "
                                   "(the hardware's sum over all of K; Gluon 3.6 fails on "
                                   "it); M- or N-contiguous 8- and 32-bit operands are refused "
                                   "(wgmma reads them K-major only; Gluon 3.6's lowering fails "
                                   "on an N-contiguous fp8 B); with an fp8 A in registers, "
                                   "max_num_imprecise_acc must be at least K (an error at the "
                                   "call otherwise: K is split by slicing shared buffers); "
                                   "also takes cols= (a multiple of 8): only the first cols "
                                   "columns computed, by instructions of that N, the rest zero "
                                   "(tiles whose width is not a power of two, "
                                   "examples/fitted_gemm.py)",
    "amd.cdna3.mfma": "also takes newer Gluon's cd_regclass= ('a' or 'v'), leaving the "
                      "accumulator's register class to LLVM's allocator",
    "amd.AMDMFMALayout": "versions 1-4 (gfx908, gfx90a, gfx942, gfx950), each with its "
                         "generation's instructions, and an older version on a newer chip "
                         "where its instruction remains; 32x32, 16x16 and the 4x4 forms; 2-D "
                         "and batched 3-D; f64 from version 2; like Triton on CDNA, one CTA a "
                         "program (a cga_layout is refused) (amd.md)",
    "split": "also splits a last dimension held across lanes or warps (Gluon 3.6 refuses "
             "it); the halves are in SliceLayout(rank - 1, input), as in Gluon",
    "fp4_to_fp": "also decodes to float32 (Gluon 3.6: float16 and bfloat16 only); results in "
                 "the layout Gluon infers",
    "assume": "an llvm.assume, as in Gluon; Kiln's integer ranges (which decide AMD buffer "
              "copies) also read the top-level ones comparing a kernel argument with a "
              "constant",
    "map_elementwise": "also lets the function store or print outside branches and loops on "
                       "values (Gluon refuses any write in it); an if or a loop on values "
                       "runs on whole tensors, masked per element, with Gluon's results",
    "max": _INDICES_EXT,
    "min": _INDICES_EXT,
    "erf": "AMD targets: ocml's erf from the machine's ROCm device libraries, as Triton (where "
           "none are installed, MLIR's polynomial, at most 3 ulp from the correctly rounded "
           "value); NVIDIA: libdevice's erff, as Triton",
    "extra.libdevice": "NVIDIA: Gluon's 197 names from the CUDA toolkit's libdevice.10.bc; AMD: "
                       "Gluon's 57 AMD names from the machine's ROCm device libraries (ocml; "
                       "Triton bundles its copy, Kiln finds ROCm's or KILN_ROCM_DEVICE_LIBS), "
                       "with the control constants Triton sets; Kiln also computes the names "
                       "its own math covers where no ROCm device libraries are installed",
    "warp_specialize": "several per kernel, in loops and ifs, as in Gluon; a tensor a worker "
                       "cannot recompute is refused (pass a shared-memory buffer), where "
                       "Gluon 3.6 aborts or miscompiles; scalars are passed (hopper.md)",
    "gather": "an index outside the axis reads the element it wraps to (undefined in Gluon)",
    "set_auto_layout": "two that disagree become a convert_layout and a CompilationRemark, "
                       "where Gluon refuses the kernel",
    "nvidia.ampere.async_copy.async_copy_global_to_shared": _TOKEN_EXT,
    "nvidia.ampere.async_copy.commit_group": _TOKEN_EXT,
    "float8e4nv": _FP8_EXT,
    "float8e5": _FP8_EXT,
    "float8e4b8": _FP8_EXT + "; the FNUZ formats on NVIDIA targets too",
    "float8e5b16": _FP8_EXT + "; the FNUZ formats on NVIDIA targets too",
    "float8e4b15": _FP8_EXT + "; conversions are Triton's NVIDIA ones bit for bit (every "
                   "code up, every f16 and 80k f32 down, checked against Triton on the GPU), "
                   "on AMD targets too",
}


def classify(data: dict, kiln_root: str = KILN, differences: dict = DIFFERENCES):
    """One row per (package, name): dicts with package, name, kind, status, note and goal
    (whether the name counts toward the goal); and the set of packages Kiln lacks."""
    rows, missing = [], set()
    for pkg, entry in sorted(data["packages"].items()):
        kmod = _kiln_module(kiln_root, pkg)
        if kmod is None:
            missing.add(pkg)
        for name, kind in sorted(entry["names"].items(), key=lambda kv: (kv[0].lower(), kv[0])):
            has = kmod is not None and hasattr(kmod, name) and \
                (kind != "module" or inspect.ismodule(getattr(kmod, name)))
            diff = differences.get(_join(pkg, name), "") if has else ""
            goal, remark = not outside_goal(pkg), ""
            if goal and kind == "module" and outside_goal(pkg, name):
                goal, remark = False, "outside the goal"
            elif goal and kind == "missing":  # a stale __all__ entry: nothing to support
                goal, remark = False, "Gluon lists it but does not define it"
            rows.append({"package": pkg, "name": name, "kind": kind,
                         "status": (DIFFERS if diff else SUPPORTED) if has else NOT_YET,
                         "note": diff or remark or (EXTENSIONS.get(_join(pkg, name), "")
                                                    if has else ""),
                         "goal": goal})
    return rows, missing


def stale_differences(rows, differences=DIFFERENCES):
    """DIFFERENCES keys that name no supported name of the list."""
    live = {_join(r["package"], r["name"]) for r in rows if r["status"] != NOT_YET}
    return sorted(set(differences) - live)


def _title(pkg):
    return "gl" if not pkg else f"gl.{pkg}"


def summarize(rows, packages):
    per = {pkg: {SUPPORTED: 0, DIFFERS: 0, NOT_YET: 0} for pkg in packages}
    goal = {SUPPORTED: 0, DIFFERS: 0, NOT_YET: 0}
    for r in rows:
        per[r["package"]][r["status"]] += 1
        if r["goal"]:
            goal[r["status"]] += 1
    return per, goal


def render(data: dict, rows: list, missing: set, json_rel: str = "docs/data/gluon-names.json",
           md_rel: str = "docs/gluon-coverage.md") -> str:
    packages = sorted(data["packages"])
    per, goal = summarize(rows, packages)
    total = sum(goal.values())
    opts = "" if (json_rel, md_rel) == ("docs/data/gluon-names.json",
                                        "docs/gluon-coverage.md") \
        else f" --json {json_rel} --out {md_rel}"
    out = [
        "# Gluon coverage",
        "",
        "<!-- Generated by scripts/gluon-coverage.py; do not edit. -->",
        "",
        "Every public name of Gluon's language packages (`gl` is "
        f"`{data['root']}`) against Kiln's (`kl` is `{KILN}`), generated by "
        f"`scripts/gluon-coverage.py` from the name list `{json_rel}` and the "
        "checkout's `kiln.language`:",
        "",
        "```",
        f"python3 scripts/gluon-coverage.py{opts}           # regenerate this file",
        f"python3 scripts/gluon-coverage.py{opts} --check   # exit 1 if it is stale",
        "# the name list, where Triton is installed:",
        f"python3 scripts/gluon-coverage.py --capture {json_rel}",
        "# or, provisionally, parsed from a Triton source tree or bare git mirror:",
        f"python3 scripts/gluon-coverage.py --from-source REPO {json_rel}",
        "```",
        "",
        f"- Triton: {data['triton_version']}",
        f"- Name list: {data['source']}",
        "- *supported*: `kl` has the name in the same package (a note says what Kiln also "
        "accepts where Gluon refuses, or a refusal both share); *supported, differs*: it does, and behaves otherwise as "
        "the note says; *not yet*: it does not.",
        "- Goal (issue 27): every name supported outside " +
        ", ".join(f"`{p}`" for p in OUTSIDE_GOAL) + " (`nvidia.rubin` is newer than Triton "
        "3.6) and the names of those packages.",
        "",
        f"**Goal packages: {goal[SUPPORTED] + goal[DIFFERS]} of {total} names supported "
        f"({goal[DIFFERS]} with a stated difference), {goal[NOT_YET]} not yet.**",
        "",
        "| package | names | supported | differs | not yet | in goal |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for pkg in packages:
        c = per[pkg]
        off = sum(1 for r in rows if r["package"] == pkg and not r["goal"])
        goal_col = "no" if outside_goal(pkg) else \
            f"yes, but {off} name{'s' * (off > 1)}" if off else "yes"
        out.append(f"| [`{_title(pkg)}`](#{_title(pkg).replace('.', '')}) | {sum(c.values())} "
                   f"| {c[SUPPORTED]} | {c[DIFFERS]} | {c[NOT_YET]} | {goal_col} |")
    if data.get("skipped"):
        out += ["", "Submodules not listed as packages: " + "; ".join(
            f"`{_title(k)}` ({v})" for k, v in sorted(data["skipped"].items())) + "."]
    for pkg in packages:
        entry = data["packages"][pkg]
        out += ["", f"## {_title(pkg)}", ""]
        where = f"`{_join(KILN, pkg) if pkg else KILN}`" + (" (Kiln has no such package)"
                                                           if pkg in missing else "")
        out.append(f"`{entry['module']}` against {where}"
                   f"{'' if not outside_goal(pkg) else '; outside the goal'}.")
        if entry.get("error"):
            out.append(f"Could not be read: {entry['error']}.")
        out += ["", "| name | kind | status | note |", "|---|---|---|---|"]
        for r in rows:
            if r["package"] == pkg:
                out.append(f"| `{r['name']}` | {r['kind']} | {r['status']} | {r['note']} |")
    return "\n".join(out) + "\n"


def _rel(path) -> str:
    p = Path(path).resolve()
    try:
        return str(p.relative_to(ROOT))
    except ValueError:
        return str(path)


def generate(json_path, md_path=DEFAULT_MD) -> tuple[str, list]:
    data = json.loads(Path(json_path).read_text())
    rows, missing = classify(data)
    for key in stale_differences(rows):
        print(f"gluon-coverage: DIFFERENCES[{key!r}] names no supported name", file=sys.stderr)
    return render(data, rows, missing, _rel(json_path), _rel(md_path)), rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", default=str(DEFAULT_JSON), help="Gluon name list to read")
    ap.add_argument("--out", default=str(DEFAULT_MD), help="markdown to write or check")
    ap.add_argument("--check", action="store_true", help="exit 1 if --out is stale")
    ap.add_argument("--capture", metavar="OUT.json", help="record the installed Triton's names")
    ap.add_argument("--from-source", nargs=2, metavar=("REPO", "OUT.json"),
                    help="record a Triton checkout's (or bare mirror's) names with ast")
    ap.add_argument("--label", help="with --from-source: the repository's name for the JSON "
                    "(default: REPO's path)")
    args = ap.parse_args(argv)

    if args.capture or args.from_source:
        if args.capture:
            data, out = capture(), args.capture
        else:
            data, out = from_source(args.from_source[0]), args.from_source[1]
            label = args.label or Path(args.from_source[0]).resolve()
            data["source"] = (f"static parse of {label} HEAD (provisional; replace with "
                              "--capture from Triton 3.6)")
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text(json.dumps(data, indent=1) + "\n")
        print(f"wrote {out}: {len(data['packages'])} packages, "
              f"{sum(len(p['names']) for p in data['packages'].values())} names")
        return 0

    sys.path.insert(0, str(ROOT / "python"))  # the checkout's kiln, not an installed wheel
    text, _ = generate(args.json, args.out)
    out = Path(args.out)
    if args.check:
        old = out.read_text() if out.exists() else ""
        if old == text:
            return 0
        diff = list(difflib.unified_diff(old.splitlines(), text.splitlines(), str(out),
                                         "regenerated", lineterm="", n=0))
        print(f"{out} is stale ({sum(1 for d in diff if d[:1] in '+-') - 2} lines differ); "
              f"run python3 scripts/gluon-coverage.py", file=sys.stderr)
        print("\n".join(diff[:40]), file=sys.stderr)
        return 1
    out.write_text(text)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
