"""``kiln.language`` (conventionally ``import kiln.language as kl``): the kernel DSL surface.

Names, arguments and defaults follow Gluon (``triton.experimental.gluon.language``).
Vendor builtins live in :mod:`kiln.language.nvidia` (``ampere``, ``hopper``) and
:mod:`kiln.language.amd` (``cdna3``, ``cdna4``), as in Gluon.

kiln.language is the DSL surface only: it must not import kiln.compiler or kiln.runtime (the
code generator passes the semantic layer in; test/Python/test_layering.py checks this).
"""

from ._core import (  # noqa: F401
    constexpr, constexpr_function, dtype, pointer_type, distributed_type, tensor, builtin,
    int1, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
    float16, bfloat16, float32, float64, float8e4nv, float8e5, float8e4b8, float8e5b16,
    float8e4b15, num_ctas, ravel, map_elementwise, atomic_add, atomic_and, atomic_or,
    base_value, base_type,
    atomic_xor, atomic_max, atomic_min, atomic_xchg, atomic_cas,
    program_id, num_programs, arange, full, load, store, convert_layout, set_auto_layout,
    expand_dims,
    broadcast, broadcast_to, reshape, where, maximum, minimum, clamp, expect_zero, cast, reduce,
    static_assert,
    static_print, num_warps, static_range, range, warp_specialize,
    allocate_shared_memory, shared_memory_descriptor, shared_memory_descriptor_type, barrier,
    cluster_view, cluster_view_type,
    thread_barrier, multiple_of, max_contiguous, max_constancy, assume, device_assert, device_print,
    dot_fma, to_tensor,
    block_type, tensor_descriptor, tensor_descriptor_type,
)
from ._layouts import (  # noqa: F401
    DistributedLayout, BlockedLayout, SliceLayout, DistributedLinearLayout, to_linear_layout,
    SharedLayout, SwizzledSharedLayout, PaddedSharedLayout, SharedLinearLayout, AutoLayout,
    CoalescedLayout,
)
from ._math import (  # noqa: F401
    exp, exp2, log, log2, sqrt, rsqrt, abs, sin, cos, floor, ceil, fma, erf, sqrt_rn, fdiv,
    div_rn, umulhi,
)
from ._standard import (  # noqa: F401
    zeros, zeros_like, full_like, sum, max, min, cdiv, next_power_of_2, xor_sum, reduce_or,
    all, any, add, sub, mul,
)
from ._banks import bank_conflicts  # noqa: F401
from ._cga import make_cga_layout  # noqa: F401  (Gluon: triton._C.libtriton.gluon_ir's)
from ._gather import gather, histogram  # noqa: F401
from ._inline_asm import inline_asm_elementwise, inline_asm  # noqa: F401
from ._cache_policy import CachePolicy  # noqa: F401
from .nvidia._atomic_ldst import atomic_load, atomic_store, atomic_poll  # noqa: F401
from ._shape_ops import join, split, permute, fp4_to_fp  # noqa: F401
from ._types import tuple, tuple_type, void  # noqa: F401,A004
from ._scan import associative_scan  # noqa: F401
from ._tensor_methods import trans, sigmoid, softmax, cumsum, cumprod  # noqa: F401
from .aggregates import aggregate  # noqa: F401  (Triton's triton.language.core._aggregate)
from .aggregates import aggregate_replace  # noqa: F401
from . import amd, extra, fpsan, nvidia  # noqa: F401  (vendor builtins, extra.libdevice, as in Gluon)
from .nvidia import libdevice as _libdevice  # noqa: E402  (Gluon's extra.libdevice)
extra.libdevice = _libdevice
import sys as _sys  # noqa: E402
_sys.modules[__name__ + ".extra.libdevice"] = _libdevice
del _sys, _libdevice
from .nvidia._layouts import (NVMMASharedLayout, NVMMADistributedLayout,  # noqa: F401 (as gl.)
                              DotOperandLayout)

from . import _tensor_methods as _tm  # noqa: E402
_tm.install(globals())  # x.exp(), x.permute(...), p.atomic_add(...): tl.tensor's methods
del _tm
