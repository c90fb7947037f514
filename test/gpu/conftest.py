"""Shared fixtures of the GPU tests: the device's Kiln target, or a skip that says why there
is none (no torch, no driver, no device)."""

import os
import sys

import pytest

# The test folders (test/Python, each backend's) importable: some GPU tests reuse a DSL test's
# kernels. The kiln package is the installed wheel's (scripts/device-test.sh).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Python"))
import kiln_test_setup  # noqa: E402

kiln_test_setup.setup_paths(checkout_package=False)


def pytest_configure(config):
    # A kernel that compiles with a Kiln warning or remark fails its test (test/Python's
    # conftest does the same), unless the test expects it with pytest.warns.
    try:
        import kiln  # noqa: F401  (the filter names kiln's class)
    except ImportError:
        return
    config.addinivalue_line("filterwarnings", "error::kiln.CompilationWarning")


@pytest.fixture(scope="module")
def target():
    torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")
    from kiln.runtime import KilnRuntimeError, NoDeviceError, get_driver
    try:
        name = get_driver().current_target()
    except (NoDeviceError, KilnRuntimeError) as e:
        pytest.skip(f"no usable GPU: {e}")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no CUDA device")
    return name
