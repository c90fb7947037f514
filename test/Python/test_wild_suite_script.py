"""scripts/wild-suite.py's pieces that need no GPU: the median of a side's timed rounds
(``--rounds``), which is what the table reports when the sides run several times."""

import importlib.util
import os

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
_spec = importlib.util.spec_from_file_location("wild_suite",
                                               os.path.join(ROOT, "scripts", "wild-suite.py"))
wild_suite = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(wild_suite)


def test_median_of_rounds_takes_the_rounds_that_ran_correctly():
    runs = [{"ok": True, "kernel_us": 10.0, "host_us": 50.0},
            {"ok": False, "error": "boom"},
            {"ok": True, "kernel_us": 12.0, "host_us": 30.0},
            None,
            {"ok": True, "kernel_us": 11.0, "host_us": 90.0}]
    r = wild_suite._median_of_rounds(runs)
    assert r["ok"] and r["kernel_us"] == 11.0 and r["host_us"] == 50.0
    assert r["kernel_us_rounds"] == [10.0, 12.0, 11.0]
    assert r["host_us_rounds"] == [50.0, 30.0, 90.0]


def test_median_of_rounds_keeps_a_lone_or_failed_result():
    failed = {"ok": False, "error": "boom"}
    assert wild_suite._median_of_rounds([failed, failed]) is failed
    assert wild_suite._median_of_rounds([None, None]) is None
    one = {"ok": True, "kernel_us": 3.0, "host_us": 4.0}
    assert wild_suite._median_of_rounds([one]) is one
