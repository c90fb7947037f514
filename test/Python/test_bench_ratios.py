"""bench/timing.py's best_side and best_ratio (the same-run ratios bench/attention.py prints)
against a brute-force evaluation on random rounds: the best side of a group is the one with
the highest median, and the ratio is the median of the per-round ratios of the two best."""

from __future__ import annotations

import os
import random
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from timing import best_ratio, best_side  # noqa: E402


def test_against_brute_force():
    rng = random.Random(7)
    for _ in range(200):
        n = rng.randint(1, 5)
        names = [f"hopper {i}" for i in range(rng.randint(0, 3))] + \
            [f"triton {i}" for i in range(rng.randint(0, 3))] + ["cudnn"]
        rounds = {s: [rng.uniform(100, 700) for _ in range(n)] for s in names}
        mine = [s for s in names if s.startswith("hopper ")]
        theirs = [s for s in names if s.startswith("triton ")]
        got = best_ratio(rounds, lambda s: s.startswith("hopper "),
                         lambda s: s.startswith("triton "))
        if not mine or not theirs:
            assert got is None
            continue
        medians = {s: sorted(rounds[s])[(n - 1) // 2] if n % 2 else
                   (sorted(rounds[s])[n // 2 - 1] + sorted(rounds[s])[n // 2]) / 2
                   for s in names}
        a = max(mine, key=lambda s: medians[s])
        b = max(theirs, key=lambda s: medians[s])
        ratios = sorted(x / y for x, y in zip(rounds[a], rounds[b]))
        want = ratios[(n - 1) // 2] if n % 2 else (ratios[n // 2 - 1] + ratios[n // 2]) / 2
        assert got[0] == a and got[1] == b
        assert abs(got[2] - want) <= 1e-12 * want
        assert best_side(rounds, lambda s: s == "cudnn") == "cudnn"
        assert best_side(rounds, lambda s: False) is None


def test_ratio_of_medians_is_not_what_it_reports():
    # One slow round on each side at different rounds: the median of the per-round ratios
    # (1.0) differs from the ratio of the medians, and best_ratio reports the former.
    rounds = {"hopper a": [100.0, 200.0, 200.0], "triton b": [100.0, 100.0, 200.0]}
    _, _, r = best_ratio(rounds, lambda s: s.startswith("hopper"),
                         lambda s: s.startswith("triton"))
    assert r == 1.0
    assert statistics.median(rounds["hopper a"]) / statistics.median(rounds["triton b"]) == 2.0
