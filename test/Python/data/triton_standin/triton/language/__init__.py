from .core import (constexpr, dtype, pointer_type, block_type, tensor, builtin, load, store,  # noqa
                   program_id, arange, where, maximum, full, dot, static_range, static_assert,
                   reduce, float16, bfloat16, float32, int32, int64, float8e4nv, debug_barrier,
                   tuple, cast, PropagateNan)
from . import core  # noqa: F401
from . import math  # noqa: F401
from .math import exp, exp2, sqrt  # noqa: F401
from .standard import sigmoid, sum, cdiv  # noqa: F401
