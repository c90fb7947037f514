"""The globals a kernel's code reads are what a warm launch re-checks; a decorator's arguments
are not among them (they ran when the function was defined: an autotuner's config list, a dict
of its options). Before, each launch of such a kernel re-tokenized the list and the dict, which
cost most of its host time, and changing the list raised GlobalChangedError."""

import kiln
import kiln.language as kl

from fakes import FAKE_TARGETS  # noqa: F401

CONFIGS = [{"BLOCK": 128}, {"BLOCK": 256}]
OPTIONS = {"cache_results": True}
LAYOUT = kl.BlockedLayout([1], [32], [4], [0])


def tuner(configs, **options):
    def wrap(fn):
        fn.tuner_configs = configs
        return fn
    return wrap


@tuner(CONFIGS, **OPTIONS)
@kiln.jit
def decorated(x):
    offs = kl.arange(0, 128, LAYOUT)
    kl.store(x + offs, offs)


def test_decorator_arguments_are_not_kernel_globals():
    decorated.warmup("*i32", grid=(1,), target="cuda:sm_90a")
    labels = sorted(u.label for u in decorated._used_globals.values())
    assert "LAYOUT" in labels
    assert not {"CONFIGS", "OPTIONS", "tuner"} & set(labels), labels
    CONFIGS.append({"BLOCK": 512})  # what a tuner may do to its own list
    try:
        decorated._check_globals()  # raises GlobalChangedError when a kernel global changed
    finally:
        CONFIGS.pop()
