"""docs/gluon-coverage.md is what scripts/gluon-coverage.py makes of the committed Gluon name
list and the checkout's kiln.language, and the classifier sorts names as it says."""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "gluon-coverage.py"


@pytest.fixture(scope="module")
def cov():
    spec = importlib.util.spec_from_file_location("gluon_coverage", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_committed_table_is_current():
    r = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("which", ["main", "later"])
def test_committed_table_of_tritons_main_branch_is_current(cov, which):
    """docs/gluon-coverage-main.md: the same table for Gluon's names at Triton's main branch
    (issue 46's list of what came after 3.6), from docs/data/gluon-names-main.json;
    docs/gluon-coverage-later.md: that list with the names read from later files of Triton's
    main branch (hopper.bulk, amd.hint, ...)."""
    root = cov.ROOT
    r = subprocess.run([sys.executable, str(SCRIPT), "--json",
                        str(root / "docs" / "data" / f"gluon-names-{which}.json"), "--out",
                        str(root / "docs" / f"gluon-coverage-{which}.md"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_differences_name_supported_names(cov):
    # Every stated difference names a supported name of Triton 3.6's list or of the newer
    # ones (names after 3.6, such as amd.warp_pipeline_stage, are only in the second;
    # atomic_load and the others read from later files only in the third).
    rows = []
    for path in (cov.DEFAULT_JSON, cov.DEFAULT_JSON.with_name("gluon-names-main.json"),
                 cov.DEFAULT_JSON.with_name("gluon-names-later.json")):
        rows += cov.classify(json.loads(path.read_text()))[0]
    assert cov.stale_differences(rows) == []


@pytest.fixture
def fake_kiln(tmp_path, monkeypatch):
    """A tiny Kiln: root with `load` and `store`, package `nvidia.hopper` with `fence`."""
    root = tmp_path / "fakekl"
    (root / "nvidia" / "hopper").mkdir(parents=True)
    (root / "__init__.py").write_text("from . import nvidia\ndef load(): pass\n"
                                      "def store(): pass\n")
    (root / "nvidia" / "__init__.py").write_text("from . import hopper\n")
    (root / "nvidia" / "hopper" / "__init__.py").write_text("def fence(): pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "fakekl"
    for name in [m for m in sys.modules if m == "fakekl" or m.startswith("fakekl.")]:
        del sys.modules[name]


SYNTHETIC = {
    "source": "test", "triton_version": "0.0", "root": "gl",
    "packages": {
        "": {"module": "gl", "names": {"load": "function", "store": "function",
                                       "join": "function", "nvidia": "module"}},
        "nvidia": {"module": "gl.nvidia", "names": {"hopper": "module",
                                                    "blackwell": "module"}},
        "nvidia.hopper": {"module": "gl.nvidia.hopper", "names": {"fence": "function"}},
        "nvidia.hopper.cluster": {"module": "gl.nvidia.hopper.cluster",
                                  "names": {"arrive": "function"}},
        "nvidia.blackwell": {"module": "gl.nvidia.blackwell", "names": {"tcgen05_mma":
                                                                        "function"}},
    },
    "skipped": {}, "unresolved": [],
}


def test_classifier(cov, fake_kiln):
    rows, missing = cov.classify(SYNTHETIC, kiln_root=fake_kiln,
                                 differences={"store": "stores differently"})
    got = {(r["package"], r["name"]): (r["status"], r["note"], r["goal"]) for r in rows}
    assert got[("", "load")] == (cov.SUPPORTED, "", True)
    assert got[("", "store")] == (cov.DIFFERS, "stores differently", True)
    assert got[("", "join")] == (cov.NOT_YET, "", True)
    assert got[("nvidia.hopper", "fence")] == (cov.SUPPORTED, "", True)
    # a package Kiln lacks: every name not yet, still in the goal
    assert got[("nvidia.hopper.cluster", "arrive")] == (cov.NOT_YET, "", True)
    # a package outside the goal, and the module name that names it
    assert got[("nvidia.blackwell", "tcgen05_mma")] == (cov.NOT_YET, "", False)
    assert got[("nvidia", "blackwell")] == (cov.NOT_YET, "outside the goal", False)
    assert missing == {"nvidia.hopper.cluster", "nvidia.blackwell"}

    per, goal = cov.summarize(rows, SYNTHETIC["packages"])
    assert goal == {cov.SUPPORTED: 4, cov.DIFFERS: 1, cov.NOT_YET: 2}
    assert per["nvidia.blackwell"] == {cov.SUPPORTED: 0, cov.DIFFERS: 0, cov.NOT_YET: 1}
    text = cov.render(SYNTHETIC, rows, missing)
    assert "**Goal packages: 5 of 7 names supported (1 with a stated difference)" in text
    assert "| `store` | function | supported, differs | stores differently |" in text


def test_difference_on_missing_name_is_stale(cov, fake_kiln):
    rows, _ = cov.classify(SYNTHETIC, kiln_root=fake_kiln, differences={"join": "x"})
    assert [r["status"] for r in rows if r["name"] == "join"] == [cov.NOT_YET]
    assert cov.stale_differences(rows, {"join": "x", "load": "y"}) == ["join"]


def test_from_source(cov, tmp_path):
    """The static parser on a tiny tree: __all__ with a starred re-export, a package without
    __all__, a shadowed submodule and a name __all__ lists but nothing binds."""
    lang = tmp_path / "python" / "triton" / "experimental" / "gluon" / "language"
    (lang / "amd" / "cdna4").mkdir(parents=True)
    (lang / "amd" / "cdna3").mkdir()
    (tmp_path / "python" / "triton" / "__init__.py").write_text("__version__ = '9.9'\n")
    (lang / "__init__.py").write_text(
        "from __future__ import annotations\nfrom ._core import load, int8, _hidden\n"
        "from . import amd\nimport math\n")
    (lang / "_core.py").write_text("def load(): pass\nint8 = dtype('int8')\n_hidden = 1\n")
    (lang / "amd" / "__init__.py").write_text(
        "from . import cdna3, cdna4\nfrom .slice import slice\n"
        "__all__ = ['cdna3', 'cdna4', 'slice']\n")
    (lang / "amd" / "slice.py").write_text("__all__ = ['slice']\ndef slice(): pass\n")
    (lang / "amd" / "cdna3" / "__init__.py").write_text(
        "__all__ = ['mfma', 'gone']\ndef mfma(): pass\n")
    (lang / "amd" / "cdna4" / "__init__.py").write_text(
        "from ..cdna3 import *\nfrom ..cdna3 import __all__ as __cdna3_all\n"
        "class Layout: pass\n__all__ = [*__cdna3_all, 'Layout']\n")
    data = cov.from_source(str(tmp_path))
    pk = data["packages"]
    assert pk[""]["names"] == {"amd": "module", "int8": "dtype", "load": "function"}
    assert pk["amd.cdna4"]["names"] == {"Layout": "class", "gone": "missing",
                                        "mfma": "function"}
    assert "amd.slice" not in pk and "amd.slice" in data["skipped"]
    assert any("cdna3.gone" in u for u in data["unresolved"])
    assert data["triton_version"].startswith("9.9")


def test_capture_on_a_stand_in_triton(tmp_path):
    """--capture walks the installed package (a stand-in here, first on PYTHONPATH): a
    submodule that fails to import is recorded, not fatal; a shadowed one is skipped."""
    lang = tmp_path / "triton" / "experimental" / "gluon" / "language"
    (lang / "nvidia" / "hopper").mkdir(parents=True)
    for d in ("triton", "triton/experimental", "triton/experimental/gluon"):
        (tmp_path / d / "__init__.py").write_text("")
    (tmp_path / "triton" / "__init__.py").write_text("__version__ = '3.6.0'\n")
    (lang / "__init__.py").write_text(
        "from __future__ import annotations\nimport os\nfrom . import nvidia\n"
        "class dtype:\n    pass\nint8 = dtype()\ndef load(): pass\nBLOCK = 4\n")
    (lang / "nvidia" / "__init__.py").write_text(
        "from . import hopper\nfrom .fence import fence\n__all__ = ['hopper', 'fence', 'fence']\n")
    (lang / "nvidia" / "fence.py").write_text("def fence(): pass\n")
    (lang / "nvidia" / "broken.py").write_text("raise ImportError('no GPU backend')\n")
    (lang / "nvidia" / "hopper" / "__init__.py").write_text("__all__ = ['wgmma', 'gone']\n"
                                                           "def wgmma(): pass\n")
    out = tmp_path / "names.json"
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    r = subprocess.run([sys.executable, str(SCRIPT), "--capture", str(out)], env=env,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    data = json.loads(out.read_text())
    pk = data["packages"]
    assert data["triton_version"] == "3.6.0"
    assert pk[""]["names"] == {"BLOCK": "constant", "dtype": "class", "int8": "dtype",
                               "load": "function", "nvidia": "module"}
    assert pk["nvidia"]["names"] == {"fence": "function", "hopper": "module"}
    assert pk["nvidia.hopper"]["names"] == {"gone": "missing", "wgmma": "function"}
    assert "no GPU backend" in pk["nvidia.broken"]["error"]
    assert "nvidia.fence" in data["skipped"] and "nvidia.fence" not in pk
