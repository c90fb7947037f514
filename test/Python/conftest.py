# Makes the checkout's python/ folder importable as the `kiln` package.
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "python"))
# The AMD backend's developer tools (amdgcn_waits: a test oracle, not shipped in the wheel).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "third_party", "amd", "tools"))

# Every AMD kernel the test suite compiles goes through the independent vmcnt simulator
# (third_party/amd/tools/amdgcn_waits.py): a compile whose assembly lets an LDS access read bytes a
# direct-to-LDS copy may still be writing fails the test that compiled it. CHECKED_AMD
# counts the kernels checked (test_amd_dsl.py asserts the hook runs).
from kiln.compiler import compiler as _compiler_mod  # noqa: E402

_init = _compiler_mod.CompiledKernel.__init__
CHECKED_AMD = []


def _checked_init(self, name, asm, metadata, *args, **kwargs):
    _init(self, name, asm, metadata, *args, **kwargs)
    text = asm.get("amdgcn") if isinstance(asm, dict) else None
    if isinstance(text, str) and str(metadata.get("target", "")).startswith("hip:"):
        import amdgcn_waits
        reports = amdgcn_waits.check(text)
        self.vmcnt_reports = reports  # for tests that assert more (slack) without re-running
        bad = [r.render() for r in reports if r.violations]
        CHECKED_AMD.append(name)
        assert not bad, "vmcnt check failed:\n" + "\n".join(bad)


_checked_init.checked = CHECKED_AMD  # what test_amd_dsl.py reads (conftest is not importable
_checked_init.unchecked = _init  # for a test whose kernel reads an in-flight copy on purpose
_compiler_mod.CompiledKernel.__init__ = _checked_init  # by name when test/gpu is collected too)


def pytest_configure(config):
    # A kernel that compiles with a Kiln warning or remark fails its test, unless the test
    # expects it (pytest.warns(kiln.CompilationWarning, match=...)): a correct kernel must
    # compile silently.
    config.addinivalue_line("filterwarnings", "error::kiln.CompilationWarning")


def pytest_terminal_summary(terminalreporter):
    if CHECKED_AMD:
        terminalreporter.write_line(f"vmcnt check: {len(CHECKED_AMD)} AMD kernel compiles "
                                    f"checked (a violation fails the test that compiled it)")
