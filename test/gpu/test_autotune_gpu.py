"""kiln.autotune with the real timer (kiln.testing.do_bench) on the device: two configs of a
scaling kernel are timed, the winner's results match torch, and do_bench /
do_bench_cudagraph return Triton's shapes of result."""

from __future__ import annotations

import pytest

import kiln
import kiln.language as kl
from kiln.compiler.compiler import target_info

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")


@kiln.jit
def scale(x, out, n, BLOCK: kl.constexpr, W: kl.constexpr):
    layout: kl.constexpr = kl.BlockedLayout([BLOCK // (W * kl.num_warps())], [W],
                                            [kl.num_warps()], [0])
    offs = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK, layout)
    kl.store(out + offs, kl.load(x + offs, mask=offs < n) * 2.0, mask=offs < n)


def test_tunes_two_configs_with_the_real_timer(target, tmp_path, monkeypatch):
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path))
    w = int(target_info(target)["warp_size"])
    configs = [kiln.Config({"BLOCK": 1024}, num_warps=4), kiln.Config({"BLOCK": 4096}, num_warps=8)]
    tuned = kiln.autotune(configs, key=["n"], warmup=5, rep=20, compile_workers=2)(scale)
    for n in (1 << 20, 12_345):
        x = torch.randn(n, device="cuda")
        out = torch.empty_like(x)
        tuned[lambda meta: (kiln.cdiv(n, meta["BLOCK"]),)](x, out, n, W=w)
        torch.cuda.synchronize()
        torch.testing.assert_close(out, x * 2.0)
        assert tuned.best_config in configs
        report = tuned.report()
        assert [r["config"] for r in report] == configs
        assert all(r["time_ms"] > 0 and r["pruned"] is None for r in report)
    assert len(tuned.cache) == 2


def test_do_bench_results_as_triton_returns_them(target):
    x = torch.randn(1 << 20, device="cuda")
    fn = lambda: x.mul_(1.0)  # noqa: E731
    t = kiln.testing.do_bench(fn, warmup=2, rep=5)
    assert isinstance(t, float) and t > 0
    q = kiln.testing.do_bench(fn, warmup=2, rep=5, quantiles=[0.5, 0.2, 0.8])
    assert len(q) == 3 and q[1] <= q[0] <= q[2]
    assert isinstance(kiln.testing.do_bench(fn, warmup=2, rep=5, return_mode="all"), list)
    g = kiln.testing.do_bench_cudagraph(fn, rep=5, return_mode="median")
    assert isinstance(g, float) and g > 0
