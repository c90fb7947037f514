"""Loop shapes and memory dependences of automatic pipelining on the GPU
(pipeline_loop_kernels.py; compile-time checks in test/Python/test_pipeline_loops_dsl.py):
every kernel at num_stages 1-5 against a numpy reference on fresh random inputs, outputs
poisoned first. ``x[i+1] = x[i] + 1`` (a store feeding the next iteration's load) must give the
sequential answer at every num_stages. Skips cleanly without torch, a driver or an NVIDIA
device."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pipeline_loop_kernels as K  # noqa: E402

STAGES = [1, 2, 3, 4, 5]

# Loops the pipeliner leaves alone say why in a remark (test_pipeline_loops_dsl.py checks
# them); here only the answers count.
pytestmark = pytest.mark.filterwarnings("ignore::kiln.CompilationRemark")



def _rand(n, seed):
    # Small integers stored as fp32: every sum below is exact in any order.
    g = np.random.default_rng(seed)
    return g.integers(-8, 8, size=n).astype(np.float32)


def _dev(a):
    return torch.from_numpy(a).cuda()


def _poison(n):
    return torch.full((n,), float("nan"), device="cuda", dtype=torch.float32)


@pytest.mark.parametrize("stages", STAGES)
@pytest.mark.parametrize("n", [1, 2, 5, 40])
def test_store_feeding_the_next_load(nvidia, stages, n):
    x0 = _rand(512 * (n + 1), 11 * n + stages)
    ref = x0.copy().reshape(n + 1, 512)
    for i in range(n):
        ref[i + 1] = ref[i] + 1.0
    x = _dev(x0)
    K.chain[(1,)](x, n, D=1, NS=stages)
    assert np.array_equal(x.cpu().numpy().reshape(n + 1, 512), ref)


@pytest.mark.parametrize("stages", STAGES)
@pytest.mark.parametrize("distance", [0, 2, 8])
def test_stores_other_distances(nvidia, stages, distance):
    n = 23
    x0 = _rand(512 * (n + distance + 1), 5 * distance + stages)
    ref = x0.copy().reshape(-1, 512)
    for i in range(n):
        ref[i + distance] = ref[i] + 1.0
    x = _dev(x0)
    K.chain[(1,)](x, n, D=distance, NS=stages)
    assert np.array_equal(x.cpu().numpy().reshape(-1, 512), ref)


@pytest.mark.parametrize("stages", STAGES)
@pytest.mark.parametrize("n", [0, 512, 1536, 512 * 9])
def test_two_loops(nvidia, stages, n):
    x0, y0 = _rand(max(n, 512), 3 + stages), _rand(max(n, 512), 4 + n)
    ref = np.zeros(512, np.float32)
    for i in range(0, n, 512):
        ref += x0[i:i + 512]
    for i in range(0, n, 512):
        ref += y0[i:i + 512] * 2.0
    out = _poison(512)
    K.two_loops[(1,)](_dev(x0), _dev(y0), out, n, NS=stages)
    assert np.array_equal(out.cpu().numpy(), ref)


@pytest.mark.parametrize("stages", STAGES)
@pytest.mark.parametrize("n,m", [(0, 512), (1, 0), (3, 1024), (7, 512 * 5)])
def test_nested(nvidia, stages, n, m):
    x0, y0 = _rand(max(m, 512), n + m), _rand(512 * max(n, 1), 2 * n + stages)
    ref = np.zeros(512, np.float32)
    for i in range(n):
        ref += y0[i * 512:(i + 1) * 512]
        for j in range(0, m, 512):
            ref += x0[j:j + 512]
    out = _poison(512)
    K.nested[(1,)](_dev(x0), _dev(y0), out, n, m, NS=stages)
    assert np.array_equal(out.cpu().numpy(), ref)


@pytest.mark.parametrize("stages", STAGES)
@pytest.mark.parametrize("flag", [-1, 1024, 10**6])
def test_load_used_under_an_if(nvidia, stages, flag):
    n = 512 * 6
    x0 = _rand(n, flag % 97 + stages)
    ref = np.zeros(512, np.float32)
    for i in range(0, n, 512):
        if flag > i:
            ref += x0[i:i + 512]
    out = _poison(512)
    K.under_if[(1,)](_dev(x0), out, n, flag, NS=stages)
    assert np.array_equal(out.cpu().numpy(), ref)


@pytest.mark.parametrize("stages", [1, 3])
def test_trip_count_past_32_bit_span(nvidia, stages):
    # -2^30 .. 3*2^29 by 2^20: the span overflows i32 (an i32 trip count was 0); 2,560
    # iterations each add x.
    x0 = _rand(512, 99)
    out = _poison(512)
    K.wide_range[(1,)](_dev(x0), out, LO=-2**30, HI=3 * 2**29, STEP=2**20, NS=stages)
    assert np.array_equal(out.cpu().numpy(), x0 * 2560)


def test_volatile_load(nvidia):
    n = 512 * 4
    x0 = _rand(n, 5)
    out = _poison(512)
    K.volatile_sum[(1,)](_dev(x0), out, n, NS=3)
    assert np.array_equal(out.cpu().numpy(), x0.reshape(4, 512).sum(0))


def test_replicated_elements_stored_once(nvidia):
    x0 = _rand(64, 6)
    x = _dev(x0)
    for _ in range(200):
        K.small_store[(1,)](x)
    ref = x0.copy()
    ref[:16] += 200.0
    assert np.array_equal(x.cpu().numpy(), ref)
