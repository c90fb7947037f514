"""README's first kernel runs as written: its compile-only half (the part before "On a machine
with a GPU") as a script on this machine, and what it prints is what README says (vectorized
loads: 16-byte ld.global.v4.b32, no scalar ld.global.b32)."""

import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _first_kernel():
    text = open(os.path.join(ROOT, "README.md")).read()
    section = text[text.index("## A first kernel"):]
    start = section.index("```python\n") + len("```python\n")
    return section[start:section.index("```", start)]


def test_readme_first_kernel_compiles_as_written(tmp_path):
    code = _first_kernel()
    assert "# On a machine with a GPU" in code
    compile_only = code.split("# On a machine with a GPU")[0]
    script = tmp_path / "first_kernel.py"
    script.write_text(compile_only)
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                       cwd=tmp_path, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("ld.global.v4.b32") == 4, r.stdout[:2000]  # 2 per input
    assert not re.search(r"ld\.global\.b32", r.stdout)
    assert "kiln-opt" in r.stdout and "kiln-translate" in r.stdout
    assert (tmp_path / "out").is_dir() and any((tmp_path / "out").iterdir())


def test_readme_first_kernel_gpu_half_defines_what_it_uses():
    gpu = _first_kernel().split("# On a machine with a GPU")[1]
    before_launch = gpu.split("add[")[0]
    assigned = set()
    for line in before_launch.splitlines():
        if "=" in line and not line.lstrip().startswith("#"):
            assigned.update(t.strip() for t in line.split("=")[0].split(","))
    assert {"n", "x", "y", "out"} <= assigned, assigned
