"""Layering of the kiln package, read from source with ``ast`` (nothing is imported).

Every module under python/kiln is parsed and every ``import``/``from ... import`` in it --
top-level or inside a function, relative or absolute -- becomes an edge of the intra-package
import graph. The tests fail on

* any import cycle between modules (a function-local import that only dodges a cycle is
  still a cycle: move the shared piece down a layer instead);
* kiln.language (the DSL surface) importing kiln.compiler, kiln.runtime, kiln.jit, kiln.aot or
  a C++ extension;
* kiln.runtime (kernel loading and launches; it knows nothing of MLIR) importing
  kiln.compiler, kiln.language, kiln.jit, kiln.aot or kiln._compiler.

Both may import kiln.errors, the exception bases every layer shares.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "python" / "kiln"
PACKAGE = "kiln"
EXTENSIONS = ("_compiler", "_runtime", "_fastlaunch")  # native modules: leaves of the graph

FORBIDDEN = {
    "kiln.language": ("kiln.compiler", "kiln.runtime", "kiln.jit", "kiln.aot",
                      "kiln._compiler", "kiln._runtime"),
    "kiln.runtime": ("kiln.compiler", "kiln.language", "kiln.jit", "kiln.aot",
                     "kiln._compiler"),
}


# -- building the graph -----------------------------------------------------------------------

def find_modules(root: Path, package: str):
    """{dotted name: (path, is_package)} of every .py file under ``root``, plus the
    extension modules (no source: they are leaves)."""
    modules = {}
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).with_suffix("").parts
        if "__pycache__" in rel:
            continue
        is_package = rel[-1] == "__init__"
        name = ".".join((package,) + (rel[:-1] if is_package else rel))
        modules[name] = (path, is_package)
    for ext in EXTENSIONS:
        modules.setdefault(f"{package}.{ext}", (None, False))
    return modules


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def _resolve_from(importer: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute module of ``from <node.module> import ...`` written in ``importer``."""
    if not node.level:
        return node.module or ""
    parts = importer.split(".") if is_package else importer.split(".")[:-1]
    if node.level > 1:
        parts = parts[:len(parts) - (node.level - 1)]
    return ".".join(parts + ([node.module] if node.module else []))


def direct_imports(name: str, path: Path, is_package: bool, modules: dict, package: str):
    """[(target, line, local)] for each intra-package module ``name`` imports: ``target`` is
    the module named (for ``from X import y``: ``X.y`` when that is a module, else ``X``),
    ``local`` is True for an import inside a function or class body."""
    tree = ast.parse(path.read_text(), filename=str(path))
    out = []

    def visit(node, local):
        for child in ast.iter_child_nodes(node):
            inner = local or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                ast.ClassDef, ast.Lambda))
            if isinstance(child, ast.Import):
                for alias in child.names:
                    if _within(alias.name, package):
                        out.append((alias.name, child.lineno, local))
            elif isinstance(child, ast.ImportFrom):
                base = _resolve_from(name, is_package, child)
                if _within(base, package):
                    for alias in child.names:
                        sub = f"{base}.{alias.name}"
                        out.append((sub if sub in modules else base, child.lineno, local))
            visit(child, inner)
    visit(tree, False)
    return out


def build_graph(root: Path = None, package: str = PACKAGE):
    """-> (modules, graph, edges): ``graph[m]`` is the set of modules importing ``m`` runs;
    ``edges[(m, t)]`` the ``(file, line, local)`` of the import that adds that edge.

    Importing ``a.b.c`` runs ``a``, ``a.b`` and ``a.b.c``: each is an edge, except the
    importer's own ancestors (already being imported when the importer runs)."""
    modules = find_modules(root or ROOT, package)
    graph = {m: set() for m in modules}
    edges = {}
    for name, (path, is_package) in modules.items():
        if path is None:
            continue
        ancestors = {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 1)}
        if is_package:
            ancestors.add(name)
        for target, line, local in direct_imports(name, path, is_package, modules, package):
            parts = target.split(".")
            for i in range(1, len(parts) + 1):
                step = ".".join(parts[:i])
                if step in modules and step not in ancestors and step != name:
                    graph[name].add(step)
                    edges.setdefault((name, step), (path, line, local))
    return modules, graph, edges


# -- finding cycles ---------------------------------------------------------------------------

def strongly_connected(graph):
    """Tarjan's strongly connected components of ``{node: iterable of successors}``."""
    index, low, on_stack, stack, components = {}, {}, set(), [], []
    counter = [0]

    def connect(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            components.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return components


def _cycle_through(graph, component):
    """One cycle ``[v0, v1, ..., v0]`` inside a strongly connected ``component``."""
    members = set(component)
    start = component[0]
    parent = {start: None}
    queue = [start]
    while queue:  # breadth-first: the shortest way back to start
        v = queue.pop(0)
        for w in sorted(graph.get(v, ())):
            if w == start:
                path = [v]
                while parent[path[-1]] is not None:
                    path.append(parent[path[-1]])
                return path[::-1] + [start]
            if w in members and w not in parent:
                parent[w] = v
                queue.append(w)
    raise AssertionError(f"{component} is not strongly connected")


def find_cycles(graph):
    """Every import cycle of ``graph`` (one per strongly connected component with more than
    one node, or with a self-edge), each as ``[v0, v1, ..., v0]``."""
    cycles = []
    for component in strongly_connected(graph):
        if len(component) > 1 or component[0] in graph.get(component[0], ()):
            cycles.append(_cycle_through(graph, component))
    return cycles


def _describe(cycle, graph, edges):
    """The cycle, then every import among the modules of its strongly connected component
    (all of them take part in some cycle)."""
    members = next(set(c) for c in strongly_connected(graph) if cycle[0] in c)
    lines = ["cycle: " + " -> ".join(cycle), "imports among " + ", ".join(sorted(members)) + ":"]
    for a in sorted(members):
        for b in sorted(graph[a] & members):
            path, line, local = edges.get((a, b), (None, None, False))
            where = f"{Path(path).relative_to(ROOT.parent)}:{line}" if path else "?"
            lines.append(f"  {a} -> {b} at {where}{' (function-local)' if local else ''}")
    return "\n".join(lines)


# -- the cycle finder itself ------------------------------------------------------------------

def test_cycle_finder_on_synthetic_graphs():
    acyclic = {"a": {"b", "c"}, "b": {"c"}, "c": set(), "d": {"a"}}
    assert find_cycles(acyclic) == []
    cyclic = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"a"}}
    assert find_cycles(cyclic) == [["a", "b", "c", "a"]]
    assert find_cycles({"x": {"x"}, "y": set()}) == [["x", "x"]]
    two = {"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"e"}, "e": {"c"}}
    assert sorted(find_cycles(two)) == [["a", "b", "a"], ["c", "d", "e", "c"]]
    # A cycle behind a longer acyclic path, and a shortcut inside the component.
    chain = {"s": {"t"}, "t": {"u"}, "u": {"v", "w"}, "v": {"w"}, "w": {"u"}}
    (cycle,) = find_cycles(chain)
    assert cycle[0] == cycle[-1] and set(cycle) == {"u", "w"} | ({"v"} if len(cycle) == 4
                                                                  else set())
    for a, b in zip(cycle, cycle[1:]):
        assert b in chain[a]


def test_graph_builder_sees_local_and_relative_imports(tmp_path):
    """A cycle hidden by a function-local relative import is found; ancestors are not edges."""
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from . import a\nfrom .sub import c\n")
    (pkg / "a.py").write_text("from .sub.b import helper\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "b.py").write_text("def helper():\n    from .. import a\n    return a\n")
    (pkg / "sub" / "c.py").write_text("import pkg.sub.b\nfrom . import b as _b\n"
                                      "from .. import _compiler\n")
    modules, graph, edges = build_graph(tmp_path / "pkg", "pkg")
    assert graph["pkg.a"] == {"pkg.sub", "pkg.sub.b"}
    assert graph["pkg.sub.b"] == {"pkg.a"}
    assert edges[("pkg.sub.b", "pkg.a")][1:] == (2, True)
    assert graph["pkg.sub.c"] == {"pkg.sub.b", "pkg._compiler"}
    assert graph["pkg"] == {"pkg.a", "pkg.sub", "pkg.sub.c"}
    assert find_cycles(graph) == [["pkg.a", "pkg.sub.b", "pkg.a"]]
    (pkg / "sub" / "b.py").write_text("def helper():\n    return 1\n")
    assert find_cycles(build_graph(tmp_path / "pkg", "pkg")[1]) == []


# -- kiln itself ------------------------------------------------------------------------------

def test_kiln_is_parsed():
    modules, graph, _ = build_graph()
    for name in ("kiln", "kiln.jit", "kiln.errors", "kiln.compiler.codegen",
                 "kiln.compiler.control", "kiln.language._semantic", "kiln.runtime.launcher",
                 "kiln.language.nvidia.hopper", "kiln.language.amd.cdna4"):
        assert name in modules
    assert "kiln.compiler.control" in graph["kiln.compiler.codegen"]
    assert "kiln.compiler" in graph["kiln.jit"]


def test_kiln_has_no_import_cycles():
    _, graph, edges = build_graph()
    cycles = find_cycles(graph)
    assert not cycles, "import cycles in python/kiln:\n" + "\n".join(
        _describe(c, graph, edges) for c in cycles)


def test_kiln_layers():
    modules, graph, edges = build_graph()
    problems = []
    for name, (path, is_package) in modules.items():
        if path is None:
            continue
        for layer, forbidden in FORBIDDEN.items():
            if not _within(name, layer):
                continue
            for target, line, local in direct_imports(name, path, is_package, modules,
                                                      PACKAGE):
                bad = [f for f in forbidden if _within(target, f)]
                # ``from kiln import x`` (x not a module) runs kiln/__init__, i.e. everything.
                if target == PACKAGE:
                    bad.append("the kiln package itself")
                if bad:
                    problems.append(f"{path.relative_to(ROOT.parent)}:{line}: {name} "
                                    f"imports {target} ({', '.join(bad)} is off limits to "
                                    f"{layer})")
    assert not problems, "\n".join(problems)


def test_vendor_packages_import_and_document_themselves():
    import importlib
    expected = {
        "kiln.language.nvidia": ("ampere", "hopper"),
        "kiln.language.nvidia.ampere": ("async_copy", "mma_v2"),
        "kiln.language.nvidia.hopper": ("mbarrier", "tma", "fence_async_shared",
                                        "warpgroup_mma"),
        "kiln.language.amd": ("cdna3", "cdna4"),
        "kiln.language.amd.cdna3": ("buffer_load", "buffer_store"),
        "kiln.language.amd.cdna4": ("global_load_to_shared", "buffer_load_to_shared",
                                    "commit_group", "wait_group", "load_shared_relaxed"),
    }
    import kiln.language as kl
    assert kl.nvidia.hopper is importlib.import_module("kiln.language.nvidia.hopper")
    assert kl.amd.cdna4 is importlib.import_module("kiln.language.amd.cdna4")
    for name, words in expected.items():
        module = importlib.import_module(name)
        for word in words:
            assert word in (module.__doc__ or ""), (name, word)


def test_one_out_of_resources_hierarchy():
    import pickle

    import kiln
    import kiln.runtime as rt
    from kiln.compiler.errors import CompileTimeOutOfResources, from_diagnostics
    assert kiln.OutOfResources is rt.OutOfResources is kiln.compiler.errors.OutOfResources
    assert kiln.CompileTimeOutOfResources is CompileTimeOutOfResources
    assert kiln.LaunchTimeOutOfResources is rt.LaunchTimeOutOfResources
    compile_time = from_diagnostics([{
        "message": "out of resources: shared memory required 300000 bytes, limit 232448 "
                   "bytes", "file": "k.py", "line": 3, "col": 5,
        "facts": {"kind": "out_of_resources", "resource": "shared memory", "required": 300000,
                  "limit": 232448}}])
    launch_time = rt.LaunchTimeOutOfResources(100000, 49152, "shared memory")
    for err, also in ((compile_time, kiln.CompilationError),
                      (launch_time, rt.KilnRuntimeError)):
        try:
            raise err
        except kiln.OutOfResources as caught:
            assert isinstance(caught, also) and isinstance(caught, kiln.KilnError)
        again = pickle.loads(pickle.dumps(err))
        assert type(again) is type(err) and str(again) == str(err)
        assert (again.required, again.limit, again.name) == (err.required, err.limit,
                                                             err.name)
    assert (compile_time.required, compile_time.limit) == (300000, 232448)
    assert isinstance(launch_time, RuntimeError)
