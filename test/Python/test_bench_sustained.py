"""bench/sustained.py's host-side arithmetic, without a GPU: nvidia-smi's lines parsed (one cut
short when the sampler is stopped is left out) and each window summarized from the samples
inside it, its first half second left out."""

from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "bench"))
sustained = pytest.importorskip("sustained")


def test_samples_parse_and_skip_a_cut_line():
    text = ("2026/12/01 09:17:08.416, 1950, 387.73\n"
            "2026/12/01 09:17:08.516, 1500, 690.00\n"
            "2026/12/01 09:17:08.6")
    got = sustained._samples(text)
    assert [(round(t - got[0][0], 3), mhz, w) for t, mhz, w in got] == \
        [(0.0, 1950.0, 387.73), (0.1, 1500.0, 690.0)]


def test_summary_of_a_window():
    # One window of 2 s with 1,000 calls of 10^12 flops: 500 TFLOP/s. Samples: one in the
    # settling half second (left out), two inside, one after the window (left out).
    samples = [(100.2, 1980.0, 300.0), (100.6, 1500.0, 600.0), (101.5, 1700.0, 700.0),
               (102.5, 1000.0, 100.0)]
    (line,) = sustained.summarize("case", [("kiln", 100.0, 102.0, 1000)], samples, 1e12)
    assert "case kiln" in line and " 500.00 TFLOP/s" in line, line
    assert "SM clock  1600 MHz" in line and " 650 W" in line, line
    assert f"{500 / 650:.4f} TFLOP/J" in line and f"{500 / 1600 * 1000:5.2f}" in line, line
    assert "(2 samples)" in line, line


def test_a_window_without_samples_says_so():
    (line,) = sustained.summarize("case", [("cublas", 0.0, 1.0, 10)], [], 1e12,
                                  unit="TFLOP/s")
    assert "no nvidia-smi samples" in line and " 10.00 TFLOP/s" in line, line
