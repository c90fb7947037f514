"""This backend's GPU tests share test/gpu's fixtures (gpu_fixtures.py): the device's Kiln
target, or a skip that says why there is none."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "..", "test", "gpu"))
from gpu_fixtures import configure, target  # noqa: E402,F401  (target is a fixture)


def pytest_configure(config):
    configure(config)
