from .autotuner import Autotuner, Config, Heuristics, autotune, heuristics  # noqa: F401
from .jit import JITFunction, KernelInterface  # noqa: F401
