"""The Python in the tutorials and the user guide cannot go stale: each code block is a
verbatim excerpt of a tracked Python file (examples/, the tests; which are compiled and run by
the suites), a schematic line listed below with the reason, a GPU usage example whose imported
names exist, or a snippet that runs here as a script (compile-only)."""

import ast
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOCS = sorted([os.path.join("docs", "tutorials", f)
               for f in os.listdir(os.path.join(ROOT, "docs", "tutorials")) if f.endswith(".md")]
              + [os.path.join("docs", "user-guide.md")])

# Blocks that show a shape rather than code to run: (doc, first line) -> why.
SCHEMATIC = {
    ("docs/tutorials/04-warp-specialize.md",
     "kl.warp_specialize(functions_and_args, worker_num_warps, worker_num_regs)"):
        "the call's signature",
    ("docs/tutorials/04-warp-specialize.md", "for i in range(num_k):"):
        "the producer loop of examples/hopper_ws.py, written without its helper names",
    ("docs/tutorials/04-warp-specialize.md", "mbarrier.wait(ready.index(s), (n // STAGES) & 1)"):
        "the consumer step of examples/hopper_ws.py, written without its helper names",
    ("docs/tutorials/05-pipelining.md", "for k0 in gl.range(0, K, BK, num_stages=STAGES):"):
        "the loop shape the pipeliner takes, names shortened",
    ("docs/tutorials/05-pipelining.md", "for i in gl.range(0, n, num_stages=3):"):
        "a loop body, shown for its memory dependence",
}


def _tracked_python():
    out = subprocess.run(["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True)
    text = {}
    for f in out.stdout.split():
        try:
            with open(os.path.join(ROOT, f)) as fh:
                text[f] = "\n".join(line.strip() for line in fh.read().splitlines())
        except OSError:
            pass
    return text


SOURCES = _tracked_python() if os.path.isdir(os.path.join(ROOT, ".git")) else {}


def _doc_blocks(doc):
    return re.findall(r"```python\n(.*?)```", open(os.path.join(ROOT, doc)).read(), re.S)


def _blocks():
    for doc in DOCS:
        for i, block in enumerate(_doc_blocks(doc)):
            yield pytest.param(doc, i, id=f"{os.path.basename(doc)}-{i + 1}")


def _is_gpu_usage(block):
    return ('device="cuda"' in block or "import torch" in block or "](" in block or
            "from examples import" in block or ".from_tensor(" in block)


def _imports_exist(block):
    """Every ``from examples.X import Y`` / ``from examples import X`` names a function or
    module that exists (read statically: the module may need a GPU to import)."""
    tree = ast.parse(block)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and \
                node.module.split(".")[0] == "examples":
            parts = node.module.split(".")
            for alias in node.names:
                if len(parts) == 1:  # from examples import hopper
                    assert os.path.exists(os.path.join(ROOT, "examples", alias.name + ".py")), \
                        alias.name
                    continue
                path = os.path.join(ROOT, *parts) + ".py"
                src = open(path).read()
                assert re.search(rf"^(def|class) {alias.name}\b|^{alias.name} = ", src, re.M), \
                    f"{node.module}.{alias.name}"
    modules = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
               and n.module == "examples" for a in n.names}
    for node in ast.walk(tree):  # hopper_ws.kiln_ws_persistent_matmul(...)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
                node.value.id in modules:
            src = open(os.path.join(ROOT, "examples", node.value.id + ".py")).read()
            assert re.search(rf"^(def|class) {node.attr}\b|^{node.attr} = ", src, re.M), \
                f"examples.{node.value.id}.{node.attr}"
    return True


PRELUDE = "import kiln\nimport kiln.language as kl\nimport kiln.language as gl\n"


@pytest.mark.skipif(not SOURCES, reason="needs the git checkout (tracked files)")
@pytest.mark.parametrize("doc,index", list(_blocks()))
def test_doc_block_is_real_code(doc, index, tmp_path):
    blocks = _doc_blocks(doc)
    block = blocks[index]
    lines = [line.strip() for line in block.strip("\n").splitlines()]
    key = "\n".join(lines)
    if any(key in src for src in SOURCES.values()):
        return  # an excerpt of code the suites compile and run
    first = lines[0]
    if (doc, first) in SCHEMATIC:
        return
    if _is_gpu_usage(block):
        assert _imports_exist(block)  # a GPU usage example: what it calls must exist
        return
    # A page's snippets build on one another (a kernel defined, then compiled): the earlier
    # runnable ones run first.
    earlier = [b for b in blocks[:index] if not _is_gpu_usage(b) and
               not b.startswith((" ", "\t"))]
    script = tmp_path / "snippet.py"
    script.write_text(PRELUDE + "\n".join(earlier + [block]))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "python"), ROOT]))
    r = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, (f"{doc}: this block is not an excerpt of tracked code and does "
                               f"not run:\n{block}\n{r.stderr[-2000:]}")
