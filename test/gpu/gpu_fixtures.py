"""Fixtures every GPU suite shares (test/gpu and each backend's third_party/<vendor>/test/gpu):
the device's Kiln target, or a skip that says why there is none (no torch, no driver, no
device); and, like the other suites, the test folders on sys.path and Kiln's warnings as
errors. The kiln package is the installed wheel's (scripts/device-test.sh)."""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Python"))
import kiln_test_setup  # noqa: E402

kiln_test_setup.setup_paths(checkout_package=False)


def configure(config):
    kiln_test_setup.configure(config)


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


@pytest.fixture
def nvidia(target):
    """The target, for kernels written with 32-lane layouts (an NVIDIA warp): on a 64-lane
    device they do not compile, so the test is skipped, saying so."""
    if not target.startswith("cuda:"):
        pytest.skip(f"these kernels' layouts have 32 lanes a warp (NVIDIA's warp); this "
                    f"device's target is {target}")
    return target
