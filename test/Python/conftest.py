# The checkout's python/ folder as the `kiln` package, the test folders on sys.path and each
# backend's test hooks (kiln_test_setup.py).
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kiln_test_setup  # noqa: E402

kiln_test_setup.setup_paths()
kiln_test_setup.install_backend_hooks()


def pytest_configure(config):
    kiln_test_setup.configure(config)


def pytest_terminal_summary(terminalreporter):
    kiln_test_setup.terminal_summary(terminalreporter)
