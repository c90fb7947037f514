# This backend's Python tests share test/Python's set-up (kiln_test_setup.py): the checkout's
# kiln package, the test folders on sys.path, the backends' test hooks.
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "..", "test", "Python"))
import kiln_test_setup  # noqa: E402

kiln_test_setup.setup_paths()
kiln_test_setup.install_backend_hooks()


def pytest_configure(config):
    kiln_test_setup.configure(config)


def pytest_terminal_summary(terminalreporter):
    kiln_test_setup.terminal_summary(terminalreporter)
