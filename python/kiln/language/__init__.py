"""``kiln.language`` (conventionally ``import kiln.language as kl``): the kernel DSL surface.

Names, arguments and defaults follow Gluon (``triton.experimental.gluon.language``).
"""

from ._core import (  # noqa: F401
    constexpr, constexpr_function, dtype, pointer_type, distributed_type, tensor, builtin,
    int1, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
    float16, bfloat16, float32, float64, float8e4nv, float8e5,
    program_id, num_programs, arange, full, load, store, convert_layout, expand_dims,
    broadcast, broadcast_to, reshape, where, maximum, minimum, cast, reduce, static_assert,
    static_print, num_warps, static_range, range,
)
from ._layouts import (  # noqa: F401
    DistributedLayout, BlockedLayout, SliceLayout, DistributedLinearLayout, to_linear_layout,
)
from ._math import (  # noqa: F401
    exp, exp2, log, log2, sqrt, rsqrt, abs, sin, cos, floor, ceil, fma,
)
from ._standard import (  # noqa: F401
    zeros, zeros_like, full_like, sum, max, min, cdiv, next_power_of_2,
)
