"""scripts/gluon_swap.py: the Gluon -> Kiln import swap the wild suite and the Gluon-suite
runner apply to other people's files. An import Kiln cannot satisfy becomes a placeholder, but
one in the file's own ``try:`` raises ImportError to the file's handler, as under a Triton that
lacks the name."""

import importlib.util
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "scripts"))
from gluon_swap import swap_imports  # noqa: E402


SOURCE = '''"""a project's kernel file"""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.blackwell import tcgen05_not_in_kiln

try:
    from triton.experimental.gluon.language.amd.cdna3 import (
        sched_barrier_not_in_kiln as _barrier,
    )
except ImportError:
    def _barrier(tensor, mask):
        return tensor

try:
    import triton.experimental.gluon.language.amd.no_such_module as nope
    HAVE = True
except ImportError:
    HAVE = False
'''


def test_imports_in_the_files_own_try_reach_its_handler(tmp_path):
    text = swap_imports(SOURCE)
    assert "import kiln as gluon" in text
    path = tmp_path / "swapped_kernel_file.py"
    path.write_text(text)
    sys.path.insert(0, str(tmp_path))
    try:
        spec = importlib.util.spec_from_file_location("swapped_kernel_file", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(tmp_path))
    # the file's own fallbacks ran: a plain function, not a placeholder
    assert mod._barrier(3, 0) == 3
    assert mod.HAVE is False
    # outside a try, a name Kiln lacks is a placeholder that fails where it is used
    assert type(mod.tcgen05_not_in_kiln).__name__ == "_KilnLacksMeta"


def test_gluon_imported_under_another_name(tmp_path):
    # ``from triton.experimental import gluon as g`` (a third-party epilogue kernel) was left
    # alone, so ``@g.jit`` stayed Triton's.
    text = swap_imports("from triton.experimental import gluon as g\n\n@g.jit\ndef k():\n"
                        "    pass\n")
    assert "import kiln as g" in text and "from triton.experimental import" not in text
    path = tmp_path / "aliased_gluon.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("aliased_gluon", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert getattr(mod.k, "__kiln_jit__", False)


def test_triton_tools_names_an_older_triton_lacks(tmp_path):
    # A newer Gluon test file imports helpers of triton.tools that the GPU machine's Triton
    # may lack (fp8e8m0_to_float32 against 3.6): each name on its own, a placeholder if
    # missing, so that the file's other tests still run.
    text = swap_imports("from triton.tools.mxfp import MXFP4Tensor, fp8e8m0_to_float32\n")
    assert text.count("from triton.tools.mxfp import") == 2
    path = tmp_path / "tools_names.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("tools_names", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    try:
        import triton.tools.mxfp as mxfp  # noqa: F401
    except ImportError:
        assert type(mod.fp8e8m0_to_float32).__name__ == "_KilnLacksMeta"


def test_imports_with_trailing_comments(tmp_path):
    # lmdeploy's utils.py: ``from triton.tools.tensor_descriptor import TensorDescriptor  #
    # noqa: F401``. The comment was read as part of the name, so the fallback for a Triton
    # without the module was ``TensorDescriptor  # noqa: F401 = ...``: a bare name, a
    # NameError at import. Comments inside a parenthesized import and after a plain import
    # of a Gluon module are code-free too.
    text = swap_imports(
        "from triton.tools.no_such_module import TensorDescriptor  # noqa: F401\n"
        "from triton.experimental.gluon.language import (  # the names\n"
        "    arange,  # one\n"
        "    no_such_name_in_kiln,  # two\n"
        ")\n"
        "import triton.experimental.gluon.language as gl  # as Gluon's tests spell it\n")
    assert "noqa: F401 =" not in text and "import kiln.language as gl" in text
    path = tmp_path / "commented_imports.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("commented_imports", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert type(mod.TensorDescriptor).__name__ == "_KilnLacksMeta"
    assert type(mod.no_such_name_in_kiln).__name__ == "_KilnLacksMeta"
    import kiln.language as kl
    assert mod.arange is kl.arange and mod.gl is kl


def test_triton_compilation_error_is_kilns():
    text = swap_imports("from triton import CompilationError\nfrom triton import cdiv, "
                        "CompilationError  # a comment, as the corpus's files have\n")
    assert text.count("from kiln import CompilationError\n") == 2
    assert "from triton import cdiv\n" in text and "from triton import CompilationError" not in text


def test_offline_compile_source_is_kilns(tmp_path):
    # Gluon's offline compile (triton.compile(GluonASTSource(...))): the source Gluon keeps in
    # gluon._runtime is kiln's top-level name (kiln._runtime is the GPU runtime's binding), and
    # the swapped file's triton.compile hands Kiln's sources to kiln.compile.
    text = swap_imports("from triton.experimental.gluon._runtime import GluonASTSource\n"
                        "from triton.experimental import gluon\n")
    assert "from kiln import GluonASTSource" in text
    path = tmp_path / "offline_source.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("offline_source", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    import kiln
    assert mod.GluonASTSource is kiln.GluonASTSource
    assert mod.gluon.GluonASTSource is kiln.GluonASTSource
    try:
        import triton
    except ImportError:
        return  # no Triton here: nothing to hand over
    assert getattr(triton.compile, "_kiln_dispatch", False)


def test_triton_compile_hands_kiln_sources_to_kiln(tmp_path, monkeypatch):
    # With a Triton present (here a stand-in module), the swapped file's triton.compile gives
    # a Kiln source to kiln.compile and anything else to Triton's own compile.
    import types
    import kiln
    fake = types.ModuleType("triton")
    seen = []
    fake.compile = lambda src, *a, **k: seen.append(src) or "triton's"
    monkeypatch.setitem(sys.modules, "triton", fake)
    routed = []
    monkeypatch.setattr(kiln, "compile", lambda src, *a, **k: routed.append(src) or "kiln's")
    text = swap_imports("from triton.experimental.gluon._runtime import GluonASTSource\n")
    path = tmp_path / "offline_dispatch.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("offline_dispatch", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)

    @kiln.jit
    def k(x):
        pass

    src = mod.GluonASTSource(k, {"x": "*fp32"})
    assert fake.compile(src, target=None) == "kiln's" and routed == [src]
    assert fake.compile("kernel.ttgir") == "triton's" and seen == ["kernel.ttgir"]
    spec.loader.exec_module(importlib.util.module_from_spec(spec))  # a second swapped file
    assert fake.compile("other") == "triton's" and seen == ["kernel.ttgir", "other"]
