"""Triton's own autotuner and heuristics (the real Triton) wrapping Kiln kernels, as a project
that decorates its kernels with ``triton.autotune`` does once its Gluon imports are swapped
for Kiln's: every config benchmarked with ``triton.testing.do_bench``, the timings cached on
disk (``cache_results=True``, keyed on the Kiln kernel's own fingerprint), the best launched,
results checked against torch. Also the launch shape of flash-linear-attention's AttnRes
forward (every argument by name, a tuple of tensors, None for the optional pointers) warm on
Kiln's fast path. test/Python/test_triton_autotune.py checks the same paths with a stand-in
Triton. Skips cleanly without torch, Triton or a GPU."""

from __future__ import annotations

import os

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")
triton = pytest.importorskip("triton", reason="these tests wrap Kiln kernels with Triton's")

import kiln  # noqa: E402
import kiln.language as kl  # noqa: E402
from launch_kernels import attn_like  # noqa: E402  (test/Python, on the path via conftest)


@kiln.jit
def scale_kernel(x, out, n, alpha, BLOCK: kl.constexpr):
    layout: kl.constexpr = kl.BlockedLayout([1], [32], [kl.num_warps()], [0])
    offs = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK, layout)
    m = offs < n
    kl.store(out + offs, kl.load(x + offs, mask=m) * alpha, mask=m)


CONFIGS = [triton.Config({"BLOCK": 256}, num_warps=4),
           triton.Config({"BLOCK": 1024}, num_warps=8)]


def _grid(meta):
    return (triton.cdiv(meta["n"], meta["BLOCK"]),)


def _counting_bench():
    import triton.testing
    calls = []

    def do_bench(kernel_call, quantiles=None):
        calls.append(1)
        return triton.testing.do_bench(kernel_call, warmup=5, rep=20, quantiles=quantiles)
    return do_bench, calls


@pytest.mark.parametrize("n", [1000, 65536])
def test_autotune_with_cache_results(nvidia, tmp_path, monkeypatch, n):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    do_bench, benched = _counting_bench()
    tuned = triton.autotune(configs=CONFIGS, key=["n"], cache_results=True,
                            do_bench=do_bench)(scale_kernel)
    x = torch.randn(n, device="cuda")
    out = torch.full_like(x, float("nan"))
    tuned[_grid](x, out, n, 0.5)
    torch.testing.assert_close(out, x * 0.5)
    assert len(benched) == 2 and tuned.best_config in CONFIGS
    files = [f for _, _, fs in os.walk(tmp_path) for f in fs if f.endswith(".autotune.json")]
    assert files == ["scale_kernel.autotune.json"]
    for _ in range(3):  # warm: the chosen config, launched again
        out.fill_(float("nan"))
        tuned[_grid](x, out, n, 2.0)
        torch.testing.assert_close(out, x * 2.0)
    # A new autotuner over the same kernel: the timings come from the disk cache.
    do_bench, benched = _counting_bench()
    again = triton.autotune(configs=CONFIGS, key=["n"], cache_results=True,
                            do_bench=do_bench)(scale_kernel)
    out.fill_(float("nan"))
    again[_grid](x, out, n, 3.0)
    torch.testing.assert_close(out, x * 3.0)
    assert benched == [] and again.best_config == tuned.best_config


def test_autotune_over_heuristics_with_hooks(nvidia, tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    with_block = triton.heuristics({"BLOCK": lambda a: 512 if a["n"] > 4096 else 128})(
        scale_kernel)
    tuned = triton.autotune(configs=[triton.Config({}, num_warps=4),
                                     triton.Config({}, num_warps=8, num_stages=2)],
                            key=["n"], cache_results=True, reset_to_zero=["out"],
                            restore_value=["x"])(with_block)
    n = 10000
    x = torch.randn(n, device="cuda")
    keep = x.clone()
    out = torch.full_like(x, float("nan"))
    tuned[_grid](x, out, n, -1.0)
    torch.testing.assert_close(out, keep * -1.0)
    torch.testing.assert_close(x, keep)


def test_keyword_tuple_and_none_launch(nvidia):
    """fla's AttnRes launch shape, warm (the fast path) and with new tensors every call."""
    N, L, BLOCK, NW = 5000, 3, 256, 4
    general = []
    real = type(attn_like)._run

    def counted(self, *a):
        general.append(self.__name__)
        return real(self, *a)
    attn_like._run = counted.__get__(attn_like)
    try:
        for step in range(4):
            q, w = torch.randn(N, device="cuda"), torch.randn(N, device="cuda")
            srcs = tuple(torch.randn(N, device="cuda") for _ in range(L))
            o = torch.full_like(q, float("nan"))
            attn_like[(triton.cdiv(N, BLOCK),)](q=q, res=srcs, w=w, ow=None, o=o, o_pre=None,
                                                N=N, L=L, BLOCK=BLOCK, HAS_OW=False,
                                                SAVE=False, NW=NW, num_warps=NW)
            torch.testing.assert_close(o, (q + sum(srcs)) * w)
            if step:  # warm: no general path
                assert general == ["attn_like"]
        ow, o_pre = torch.randn(N, device="cuda"), torch.full_like(q, float("nan"))
        for _ in range(2):
            attn_like[(triton.cdiv(N, BLOCK),)](q=q, res=srcs, w=w, ow=ow, o=o, o_pre=o_pre,
                                                N=N, L=L, BLOCK=BLOCK, HAS_OW=True, SAVE=True,
                                                NW=NW, num_warps=NW)
        torch.testing.assert_close(o_pre, (q + sum(srcs)) * ow)
        torch.testing.assert_close(o, o_pre * w)
        assert general == ["attn_like"] * 2
    finally:
        del attn_like._run
