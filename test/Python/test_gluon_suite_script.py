"""scripts/gluon-suite.py's --new-since: the test functions a newer copy of a test file added
(module-level ``test_*`` only, in the newer file's order)."""

import importlib.util
import os

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "scripts", "gluon-suite.py")


def _module():
    spec = importlib.util.spec_from_file_location("gluon_suite", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_new_test_functions(tmp_path):
    old = tmp_path / "old.py"
    new = tmp_path / "new.py"
    old.write_text("def test_a():\n    pass\n\ndef helper():\n    pass\n")
    new.write_text("import pytest\n\ndef test_b():\n    pass\n\ndef test_a():\n    pass\n\n"
                   "class TestC:\n    def test_inner(self):\n        pass\n\n"
                   "@pytest.mark.skip\ndef test_d():\n    def test_nested():\n        pass\n")
    assert _module().new_test_functions(str(new), str(old)) == ["test_b", "test_d"]
