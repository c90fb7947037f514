"""wgmma in a warp-specialized *worker* partition on the GPU: test/gpu/ws_wgmma_kernels.py's
kernel, with the wgmma worker of 4 warps beside workers of 1 or 2 warps in the configurations
that used to place it off a warpgroup boundary (and hang the GPU), checked against
torch.matmul on fresh random inputs with NaN-poisoned C, and every partition's tags checked
(each thread of each partition ran, with its partition's warp count).

Each case runs in a child process with a timeout: a kernel that hangs fails its test (the
child is killed, which tears down its CUDA context) instead of blocking the suite. Skips
cleanly without torch, a driver or an sm_90 device."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "ws_wgmma_kernels.py")
# Compile (cold cache) plus two launches take seconds; a misplaced wgmma never finishes.
TIMEOUT_S = 180


@pytest.fixture
def sm90(target):
    if target != "cuda:sm_90a":
        pytest.skip(f"wgmma needs sm_90a; this device's target is {target}")
    return target


def _child_env():
    """The child imports the same kiln as this process (a checkout's python/ on PYTHONPATH,
    or the installed wheel)."""
    import kiln
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.abspath(kiln.__file__)))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    return env


def _run(num_warps, workers, shapes):
    cmd = [sys.executable, SCRIPT, "--num-warps", str(num_warps),
           "--workers", ",".join(map(str, workers))]
    for m, n, k, dtype in shapes:
        cmd += ["--shape", f"{m}x{n}x{k}:{dtype}"]
    what = f"num_warps {num_warps}, workers {workers}"
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S,
                             env=_child_env(), cwd=HERE)
    except subprocess.TimeoutExpired as e:
        def tail(b, n):
            return (b.decode(errors="replace") if isinstance(b, bytes) else b or "")[-n:]
        pytest.fail(f"{what}: no result within {TIMEOUT_S} s (the kernel hangs: is the wgmma "
                    f"worker on an aligned warpgroup?)\n{tail(e.stdout, 2000)}\n"
                    f"{tail(e.stderr, 4000)}")
    assert out.returncode == 0, f"{what}: exit {out.returncode}\n{out.stdout[-2000:]}\n" \
        f"{out.stderr[-6000:]}"
    done = [l for l in out.stdout.splitlines() if l.startswith("ok: ")]
    assert len(done) == len(shapes), out.stdout


# (num_warps, worker_num_warps). With the kernel's 4 warps, [4] puts the wgmma worker on warps
# 4-7 in any layout; laid out in order the others put it on warps 6-9 ([2, 4]), 5-8 ([1, 4])
# or 7-10 ([2, 1, 4]); [4, 2] checks the worker placed after it. With 2 warps of the kernel
# warps 2-3 are left idle so that it still starts at warp 4 (in order: warps 2-5 for [4],
# 3-6 for [1, 4]).
CONFIGS = [(4, [4]), (4, [2, 4]), (4, [4, 2]), (4, [1, 4]), (4, [2, 1, 4]), (2, [4]),
           (2, [2, 4]), (2, [1, 4])]
# One child process per configuration runs every shape (two launches each, fresh inputs).
SHAPES = [(64, 64, 64, "bf16"), (64, 128, 64, "bf16"), (64, 128, 64, "fp16"),
          (128, 128, 64, "bf16")]


@pytest.mark.parametrize("num_warps,workers", CONFIGS,
                         ids=[f"nw{nw}-w" + "-".join(map(str, w)) for nw, w in CONFIGS])
def test_wgmma_worker(sm90, num_warps, workers):
    _run(num_warps, workers, SHAPES)
