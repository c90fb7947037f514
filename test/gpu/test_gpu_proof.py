"""pytest wrapper of test/gpu/run_gpu_proof.py: the example kernels from the AOT bundle,
checked against torch on the GPU. Skips (with the reason) without torch, a GPU driver, a
device, or the bundle (KILN_GPU_BUNDLE, default build/gpu-bundle; make it with
scripts/build-gpu-bundle.py)."""

import importlib.util
import os
import random

import pytest

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(os.path.dirname(_HERE))
BUNDLE = os.environ.get("KILN_GPU_BUNDLE", os.path.join(_ROOT, "build", "gpu-bundle"))


def _load_proof():
    spec = importlib.util.spec_from_file_location(
        "run_gpu_proof", os.path.join(_HERE, "run_gpu_proof.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


proof = _load_proof()  # importing it needs neither torch nor a GPU


@pytest.fixture(scope="module")
def gpu():
    """(torch, bundle, target), or a skip saying what is missing."""
    try:
        import torch
    except ImportError:
        pytest.skip("torch is not installed")
    from kiln.runtime import KilnRuntimeError, NoDeviceError, get_driver
    try:
        target = get_driver().current_target()
    except NoDeviceError as e:
        pytest.skip(f"no GPU driver/device: {e}")
    except KilnRuntimeError as e:
        pytest.skip(f"Kiln's runtime is unusable here: {e}")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no CUDA device")
    if target != proof.TARGET:
        pytest.skip(f"the bundle is for {proof.TARGET}, the device is {target}")
    if not os.path.exists(os.path.join(BUNDLE, "manifest.json")):
        pytest.skip(f"no bundle at {BUNDLE} (build it with scripts/build-gpu-bundle.py)")
    from kiln.runtime.bundle import load_bundle
    return torch, load_bundle(BUNDLE), target


_CASES = [(name, case) for name, cases in proof.CASES.items() for case in cases]


@pytest.mark.parametrize("name,case", _CASES,
                         ids=[f"{n}-{proof.case_label(n, c).replace(' ', '_')}"
                              for n, c in _CASES])
def test_kernel_matches_torch(gpu, name, case):
    torch, bundle, target = gpu
    seed = random.SystemRandom().randrange(2**31)
    torch.manual_seed(seed)
    result = proof.run_case(torch, bundle, name, case, target)
    assert result["ok"], f"seed {seed}: {result}"
