"""What every pytest suite of the checkout shares (test/Python, test/gpu and each backend's
third_party/<vendor>/test/python): the test folders on sys.path, each backend's test hooks,
Kiln's warnings as errors and the hooks' summaries. conftest.py files call these; they are
idempotent, so suites collected together set up once.

A backend's test hooks are ``third_party/<vendor>/test/python/backend_hooks.py`` with
``install()`` (called once) and optionally ``summary(terminalreporter)``: e.g. a checker run
on every kernel the suites compile for that backend."""

from __future__ import annotations

import glob
import importlib.util
import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
BACKEND_TEST_DIRS = sorted(glob.glob(os.path.join(ROOT, "third_party", "*", "test", "python")))
_HOOKS = []


def _prepend(path):
    if path not in sys.path:
        sys.path.insert(0, path)


def setup_paths(checkout_package=True):
    """test/Python and the backends' test folders importable (a test may import another's
    helpers); with ``checkout_package``, the checkout's python/ folder as the ``kiln`` package
    (the GPU suite tests the installed wheel instead)."""
    for d in BACKEND_TEST_DIRS:
        _prepend(d)
    _prepend(os.path.join(ROOT, "test", "Python"))
    if checkout_package:
        _prepend(os.path.join(ROOT, "python"))


def install_backend_hooks():
    if _HOOKS:
        return
    for d in BACKEND_TEST_DIRS:
        path = os.path.join(d, "backend_hooks.py")
        if not os.path.exists(path):
            continue
        name = "kiln_backend_hooks_" + os.path.basename(os.path.dirname(os.path.dirname(d)))
        module = sys.modules.get(name)
        if module is None:
            spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
            module.install()
        _HOOKS.append(module)


_FIRST_LINE = re.compile(r"^\S+\.py:\d+(:\d+)?: error: ")


def _check_error_format():
    """Every CompilationError that leaves Kiln's entry points in the test suite is checked as
    the user reads it: its first line is ``file.py:line[:col]: error: ...`` naming a file
    outside Kiln's own package. A violation fails the test that raised it (the error it
    expected becomes an AssertionError). Only 'the compiler extension is not built' has no
    kernel to point at."""
    try:
        from kiln.compiler import errors
    except ImportError:
        return
    if getattr(errors, "_format_checked", False):
        return
    errors._format_checked = True

    def observe(err):
        if isinstance(err, errors.ExtensionNotBuilt):
            return
        first = str(err).splitlines()[0] if str(err) else ""
        inside = bool(err.file) and os.sep + os.path.join("kiln", "") in err.file and \
            os.path.join("python", "kiln") in err.file
        if not _FIRST_LINE.match(first) or inside:
            raise AssertionError(f"a CompilationError whose first line does not name the "
                                 f"user's file and line: {first!r}") from err
    errors.error_observers.append(observe)


def skip_unless_installed(reason):
    """Skip a test whose tool is missing -- unless scripts/setup.sh installs that tool: under
    scripts/test.sh (KILN_TEST_STRICT=1) a missing tool is a failure, so the test command
    cannot pass by skipping what it set up."""
    import pytest
    if os.environ.get("KILN_TEST_STRICT") == "1":
        pytest.fail(f"{reason}, which scripts/setup.sh installs")
    pytest.skip(reason)


def configure(config):
    _check_error_format()
    # A kernel that compiles with a Kiln warning or remark fails its test, unless the test
    # expects it (pytest.warns(kiln.CompilationWarning, match=...)): a correct kernel must
    # compile silently.
    try:
        import kiln  # noqa: F401  (the filter names kiln's class)
    except ImportError:
        return
    line = "error::kiln.CompilationWarning"
    if line not in config.getini("filterwarnings"):
        config.addinivalue_line("filterwarnings", line)


_SUMMARIZED = []


def terminal_summary(terminalreporter):
    if _SUMMARIZED:
        return
    _SUMMARIZED.append(True)
    for module in _HOOKS:
        if hasattr(module, "summary"):
            module.summary(terminalreporter)
