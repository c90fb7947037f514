"""Debug mode on the GPU (kernels: test/Python/test_debug_mode_dsl.py). With inputs that keep
every assertion true, debug kernels compute what torch does; a false ``device_assert`` or a
signed overflow stops the launch, and the driver's report names the message and the user's
file:line. A failed assertion leaves the CUDA context unusable, so those launches run in a
child process."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

HERE = os.path.dirname(os.path.abspath(__file__))
DSL = os.path.join(HERE, "..", "Python")
sys.path.insert(0, DSL)
import test_debug_mode_dsl as k  # noqa: E402

W = 32
N = 4 * W
TIMEOUT_S = 180


@pytest.fixture
def nvidia(target):
    if not target.startswith("cuda"):
        pytest.skip(f"the assertion report is NVIDIA's (__assertfail); the target is {target}")
    return target


def _line_of(marker):
    with open(k.__file__) as f:
        for i, line in enumerate(f, 1):
            if marker in line:
                return i
    raise AssertionError(marker)


@pytest.mark.parametrize("op", ["add", "sub", "mul", "sum"])
def test_debug_kernels_compute_what_torch_does(nvidia, op):
    x = torch.randint(-1000, 1000, (N,), dtype=torch.int32, device="cuda")
    y = torch.randint(-1000, 1000, (N,), dtype=torch.int32, device="cuda")
    out = torch.empty_like(x)
    k.arith_kernel[(1,)](x, y, out, N, W, op, num_warps=4, debug=True)
    want = {"add": x + y, "sub": x - y, "mul": x * y,
            "sum": torch.full_like(x, int(x.sum()))}[op]
    torch.cuda.synchronize()
    assert torch.equal(out, want)
    # Masked lanes may be false: positions 8 and up hold negatives, only 0-7 are checked.
    v = torch.arange(N, dtype=torch.int32, device="cuda") * torch.where(
        torch.arange(N, device="cuda") < 8, 1, -1).to(torch.int32)
    got = torch.empty_like(v)
    k.assert_kernel[(1,)](v, got, N, W, True, num_warps=4, debug=True)
    torch.cuda.synchronize()
    assert torch.equal(got, v)


_CHILD = r"""
import sys, torch
sys.path.insert(0, {dsl!r})
import test_debug_mode_dsl as k
N, W = {n}, {w}
case = {case!r}
x = torch.arange(N, dtype=torch.int32, device="cuda")
out = torch.empty_like(x)
if case == "assert":
    x[77] = -5
    k.assert_kernel[(1,)](x, out, N, W, False, num_warps=4, debug=True)
elif case == "print":
    v = torch.arange(N, dtype=torch.float32, device="cuda") * 0.5
    k.print_kernel[(2,)](v, N, W, num_warps=4)
elif case == "assert_off":
    x[77] = -5
    k.assert_kernel[(1,)](x, out, N, W, False, num_warps=4)
else:
    y = torch.zeros_like(x)
    x[3] = 2**31 - 10
    y[3] = 100
    k.arith_kernel[(1,)](x, y, out, N, W, "add", num_warps=4, debug=True)
torch.cuda.synchronize()
print("finished", flush=True)
"""


def _child(case):
    import kiln
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.abspath(kiln.__file__)))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    code = _CHILD.format(dsl=os.path.abspath(DSL), n=N, w=W, case=case)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=TIMEOUT_S, env=env)


def test_a_false_assertion_stops_the_kernel_and_names_the_line(nvidia):
    out = _child("assert")
    text = out.stdout + out.stderr
    assert out.returncode != 0 and "finished" not in out.stdout, text[-3000:]
    line = _line_of("# A:here")
    assert f"test_debug_mode_dsl.py:{line}" in text, text[-3000:]
    assert "v must not be negative" in text, text[-3000:]
    assert "assert_kernel" in text, text[-3000:]


def test_without_debug_the_assertion_is_not_compiled(nvidia):
    out = _child("assert_off")
    assert out.returncode == 0 and "finished" in out.stdout, (out.stdout + out.stderr)[-3000:]


def test_device_print_prints_every_element(nvidia):
    out = _child("print")
    assert out.returncode == 0 and "finished" in out.stdout, (out.stdout + out.stderr)[-3000:]
    lines = out.stdout.splitlines()
    for pid in (0, 1):
        for i in (0, 5, N - 1):
            assert f"pid ({pid}, 0, 0) idx ({i}) x (operand 0) {i * 0.5:f}" in lines
            assert f"pid ({pid}, 0, 0) idx ({i}) x (operand 1) {i}" in lines
        assert f"pid ({pid}, 0, 0) pid 0x{pid:x}" in lines
    # Every element of both operands, once per program, plus one line per thread.
    assert sum(l.startswith("pid (") for l in lines) == 2 * (2 * N + 4 * W)


def test_a_signed_overflow_stops_the_kernel(nvidia):
    out = _child("overflow")
    text = out.stdout + out.stderr
    assert out.returncode != 0 and "finished" not in out.stdout, text[-3000:]
    assert "int32 overflow detected for operation add" in text, text[-3000:]
