"""Shared fixtures of the GPU tests (gpu_fixtures.py): the device's Kiln target, or a skip that
says why there is none (no torch, no driver, no device)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_fixtures import configure, nvidia, target  # noqa: E402,F401  (fixtures)


def pytest_configure(config):
    configure(config)
