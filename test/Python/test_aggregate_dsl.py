"""Aggregates (``kl.aggregate``, Triton's ``aggregate``), tuples through control flow,
``warpgroup_mma_accumulator``, a descriptor argument's shape and 1-D TMA boxes, compiled for
sm_90a (ptxas included); the kernels are aggregate_kernels.py's, run on the GPU by
test/gpu/test_aggregate.py. Mistakes are errors at the user's line."""

import re

import pytest

import kiln
import kiln.language as kl
from kiln.compiler.errors import CompilationError
from kiln.language.nvidia.hopper import (warpgroup_mma, warpgroup_mma_accumulator,
                                         warpgroup_mma_init, warpgroup_mma_wait)

import aggregate_kernels as K
import compiled
import located

pytestmark = compiled.needs_compiler
HERE = __file__
SM90 = "cuda:sm_90a"


def _iter_args(tile_ir, op):
    """Result counts of each ``op`` (scf.for / scf.if / scf.while) in the module."""
    return [int(n or 1) for n in re.findall(rf"%\w+(?::(\d+))? = {op}\b", tile_ir)]


def test_counter_is_carried_and_merged():
    k = K.counter_kernel.warmup("*i32", "i32", NUM_BUFFERS=3, grid=(1,), target=SM90)

    ir = k.asm["tile"]
    # The for loop carries c (index, phase), and the tuple's copy of c and its counter; the
    # number part of the tuple became a runtime value.
    assert _iter_args(ir, "scf.for") == [5]
    assert _iter_args(ir, "scf.while") == [3]  # c and the counter j
    # advance()'s early return merges two Counters: index and phase, one scf.if.
    assert 2 in _iter_args(ir, "scf.if")
    assert "ptx" in k.asm


def test_jit_constructor_sets_fields():
    k = K.pair_kernel.warmup("*i32", "i32", grid=(1,), target=SM90)
    assert _iter_args(k.asm["tile"], "scf.for") == [2]


def _gemm_types(a_block=(128, 64), b_block=(64, 128), c_block=(128, 128)):
    def desc(block):
        return kl.tensor_descriptor_type(
            kl.float16, list(block), kl.NVMMASharedLayout.get_default_for(list(block),
                                                                          kl.float16))
    return desc(a_block), desc(b_block), desc(c_block)


def test_tutorial_wgmma_wrapper_compiles():
    a, b, c = _gemm_types()
    k = K.matmul_pipelined_kernel.warmup(a, b, c, K.WGMMA, 3, num_warps=4, grid=(1,),
                                         target=SM90)
    ptx = k.asm["ptx"]
    # The accumulator stays in flight between iterations: async wgmma, waits of 0.
    assert "wgmma.mma_async" in ptx and "wgmma.wait_group.sync.aligned 0" in ptx
    # K is a_desc.shape[1]: the loop bound is the parameter after the map.
    assert re.search(r"ld\.param\.\w+\s+%\w+, \[matmul_pipelined_kernel_param_2\]", ptx)


def test_aggregate_class_is_part_of_the_cache_key():
    from kiln.compiler.cache import mangle_value
    token = mangle_value(K.WGMMA)
    assert token.startswith("agg:") and "issue_async_mma=jit:" in token
    assert mangle_value(K.Counter) != token


def test_one_d_tma_compiles():
    lay = kl.NVMMASharedLayout.get_default_for([256], kl.float16)
    assert (lay.rank, lay.swizzle_byte_width) == (1, 0)
    t = kl.tensor_descriptor_type(kl.float16, [256], lay)
    k = K.copy_1d_kernel.warmup(t, t, 256, grid=(1,), target=SM90)
    assert "cp.async.bulk.tensor.1d.shared::cluster.global" in k.asm["ptx"]
    assert "cp.async.bulk.tensor.1d.global.shared::cta" in k.asm["ptx"]


def test_rank_one_layouts_are_unswizzled():
    with pytest.raises(ValueError, match="a rank-1 layout is neither swizzled nor transposed"):
        kl.NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16, rank=1)


# --- mistakes -------------------------------------------------------------------------------

@kl.aggregate
class Half:
    a: kl.tensor
    b: kl.tensor

    @kl.constexpr_function
    def __init__(self, a):
        self.a = a


@kl.aggregate
class Point:
    x: kl.tensor
    y: kl.tensor

    @kl.constexpr_function
    def __init__(self, x, y):
        self.x = x
        self.y = y


@kiln.jit
def e_missing_field(out):
    h = Half(kl.to_tensor(1))  # E:missing
    kl.store(out, h.a)


@kiln.jit
def e_mutate(out):
    p = Point(kl.to_tensor(1), kl.to_tensor(2))
    p.x = kl.to_tensor(3)  # E:mutate
    kl.store(out, p.x)


@kiln.jit
def e_tuple_length(out, n):
    t = (kl.to_tensor(1), kl.to_tensor(2))
    for i in range(n):
        t = (t[0], t[1], i)  # E:length
    kl.store(out, t[0])


@kiln.jit
def e_field_type(out, n):
    p = Point(kl.to_tensor(1), kl.to_tensor(2))
    if n > 0:
        p = Point(p.x, p.y.to(kl.float32))  # E:fieldtype
    kl.store(out, p.x)


ACC = kl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, 64, 16])
A_L = kl.NVMMASharedLayout.get_default_for([64, 64], kl.float16)


@kiln.jit
def e_read_pending(out):
    a = kl.allocate_shared_memory(kl.float16, [64, 64], A_L)
    acc = kl.zeros([64, 64], kl.float32, ACC)
    acc = warpgroup_mma(a, a, acc, is_async=True)
    y = acc + 1.0  # E:pending
    warpgroup_mma_wait(0, deps=[y])


@pytest.mark.parametrize("kernel,marker,anchor,message", [
    (e_missing_field, "E:missing", "Half",
     r"the constructor of Half did not set 'b'"),
    (e_mutate, "E:mutate", "p.x",
     r"attributes can be set only on the aggregate that a @kiln.jit __init__ is "
     r"constructing \(aggregates are values: build a new one instead of changing this one\)"),
    (e_tuple_length, "E:length", "t",
     r"Loop-carried variable 't' before the loop \(.*\) and at the end of the loop body "
     r"\(.*\) differ in structure: a tuple of 2 and a tuple of 3"),
    (e_field_type, "E:fieldtype", "p",
     r"Variable 'p' in the then branch \(.*\) and before the if \(.*\) differ in structure: "
     r"field 'y': fp32 and int32"),
    (e_read_pending, "E:pending", "acc + 1.0",
     r"a warpgroup_mma_accumulator is not a tensor: an asynchronous warpgroup_mma may still "
     r"be writing it; read the tensor that warpgroup_mma_wait returns for it"),
])
def test_mistakes_point_at_the_line(kernel, marker, anchor, message):
    with pytest.raises((CompilationError, TypeError)) as ei:
        kernel.warmup("*i32", *(["i32"] if "n" in kernel.signature.parameters else []),
                      grid=(1,), target=SM90)
    located.assert_located(ei.value, HERE, marker, anchor, message, CompilationError)


def test_accumulator_round_trip():
    # warpgroup_mma_init makes one; the wait gives the tensor back.
    @kiln.jit
    def k(out):
        a = kl.allocate_shared_memory(kl.float16, [64, 64], A_L)
        acc = warpgroup_mma_init(kl.zeros([64, 64], kl.float32, ACC))
        acc = warpgroup_mma(a, a, acc, is_async=True)
        acc = warpgroup_mma_wait(0, deps=[acc])
        kl.store(out, kl.sum(kl.sum(acc, 1), 0).to(kl.int32))
    c = k.warmup("*i32", grid=(1,), target=SM90)
    assert "wgmma.wait_group.sync.aligned 0" in c.asm["ptx"]


# --- classes made by Triton's decorator -------------------------------------------------------

def triton_style_aggregate(cls):
    """The shape of triton.language.core._aggregate (Triton 3.6), without Triton: a new class
    whose constructor runs ``cls.__init__``, which copies plain functions only, and whose
    generated methods hold ``cls`` in their closure."""
    class aggregate_value:
        __triton_builtin__ = True
        __triton_aggregate__ = True

        def __new__(this_cls, *args, **kwargs):
            instance = object.__new__(this_cls)
            cls.__init__(instance, *args, **kwargs)
            return instance

        def __setattr__(self, name, value):
            if name not in cls.__annotations__:
                raise AttributeError(name)
            super().__setattr__(name, value)

        def _flatten_ir(self, handles):
            for name in cls.__annotations__:
                handles.append(getattr(self, name))

    for name, member in vars(cls).items():
        if callable(member) and type(member).__name__ == "function" and name != "__init__":
            setattr(aggregate_value, name, member)
    aggregate_value.__name__ = aggregate_value.__qualname__ = cls.__name__
    return aggregate_value


@triton_style_aggregate
class TCounter:
    index: kl.tensor
    step: kl.constexpr

    @kl.constexpr_function
    def __init__(self, index, step):
        self.index = index
        self.step = kl.constexpr(step)

    @kiln.jit
    def create(step: kl.constexpr):
        return TCounter(kl.to_tensor(0), step)

    @kiln.jit
    def next(self):
        return TCounter(self.index + self.step, self.step)


@kiln.jit
def triton_counter_kernel(out, n):
    c = TCounter.create(3)
    for i in range(n):
        c = c.next()
    kl.store(out, c.index)


def test_triton_style_aggregates():
    from kiln.language.aggregates import aggregate_fields
    assert aggregate_fields(TCounter) == ("index", "step")
    k = triton_counter_kernel.warmup("*i32", "i32", grid=(1,), target=SM90)
    assert _iter_args(k.asm["tile"], "scf.for") == [1]  # only index: step is a constexpr


@triton_style_aggregate
class TPair:
    # No __init__: Gluon generates one as of Triton 3.7 (the fields in order, positionally or
    # by name, with the class's defaults); Triton 3.6's decorator makes none.
    a: kl.tensor
    b: kl.tensor
    scale: kl.constexpr = 2


@kiln.jit
def triton_pair_kernel(out):
    p = TPair(kl.to_tensor(3), 5)  # b given as a number: a scalar tensor, as Triton's
    q = TPair(a=p.b, b=p.a, scale=4)
    kl.store(out, q.a * q.scale + q.b * p.scale)  # 5 * 4 + 3 * 2


def test_triton_style_aggregate_without_init_takes_its_fields():
    k = triton_pair_kernel.warmup("*i32", grid=(1,), target=SM90)
    # The fields in order (p.b the scalar tensor 5), q's by name: 5 * 4 + 3 * 2, folded.
    assert "splat (i32 26)" in k.asm["llir"], k.asm["llir"]
    with pytest.raises(kiln.CompilationError, match=r"TPair\(\) is missing field 'b'"):
        @kiln.jit
        def missing(out):
            TPair(kl.to_tensor(1))
        missing.warmup("*i32", grid=(1,), target=SM90)


# --- mistakes outside kernels and in builtins ---------------------------------------------

def test_aggregate_without_fields_holds_methods():
    """An aggregate with no fields (methods only) kept as another's field, as a third-party
    MoE program class is: compiles, the method's product folded into the store."""
    k = K.methods_kernel.warmup("*i32", grid=(1,), target=SM90)
    assert "st.global" in k.asm["ptx"]
    assert K.Methods() is not None


def test_gluon_aggregate_marker_and_constexpr_tuples():
    """Aggregates carry Gluon's ``__triton_aggregate__`` marker (a project's decorator forwards
    ``p.twice`` to an aggregate field by it), and a constexpr tuple indexes and unpacks at
    compile time (as tokenspeed's fused MoE configuration does)."""
    assert K.Forwarding.__triton_aggregate__ and K.Methods.__triton_aggregate__
    assert kl.constexpr((3, 4))[1] == 4 and list(kl.constexpr((3, 4))) == [3, 4]
    k = K.forwarding_kernel.warmup("*i32", (3, 4), grid=(1,), target=SM90)
    assert "st.global" in k.asm["ptx"]


def test_aggregate_declaration_errors():
    with pytest.raises(TypeError, match=r"aggregate class .*Derived derives from .*Plain, "
                       r"which is not an aggregate"):
        class Plain:
            pass

        @kl.aggregate
        class Derived(Plain):
            x: kl.tensor
    with pytest.raises(TypeError, match=r"aggregate decorates a class"):
        kl.aggregate(3)


@kiln.jit
def e_init_not_tensor(out):
    acc = warpgroup_mma_init(3)  # E:init
    kl.store(out, 1)


def test_accumulator_init_needs_a_tensor():
    with pytest.raises(CompilationError) as ei:
        e_init_not_tensor.warmup("*i32", grid=(1,), target=SM90)
    located.assert_located(ei.value, HERE, "E:init", "warpgroup_mma_init",
                           r"warpgroup_mma_init: value must be a tensor, got 3",
                           CompilationError)


@kiln.jit
def while_to_n(out, n):
    j = 0
    while j < n:  # n == 1 is specialized to a constant: j makes the loop runtime
        j += 1
    kl.store(out, j)


@kiln.jit
def e_while_forever(out, n):
    j = 0
    while 1 < 2:  # E:forever
        kl.store(out, j)


def test_while_whose_body_makes_the_condition_runtime():
    k = while_to_n.warmup("*i32", 1, grid=(1,), target=SM90)
    assert "scf.while" in k.asm["tile"]
    with pytest.raises(CompilationError) as ei:
        e_while_forever.warmup("*i32", "i32", grid=(1,), target=SM90)
    located.assert_located(ei.value, HERE, "E:forever", "while",
                           r"while loop with a compile-time true condition never ends "
                           r"\(break is not supported\)", CompilationError)


# --- generated constructors (Gluon's, as of Triton 3.7) -----------------------------------

def test_generated_constructor_fields_defaults_inheritance():
    """Without __init__: the fields in order (a base's first), by position or name, class-body
    values as defaults; constexpr fields wrapped; Gluon's messages for wrong calls."""
    c = K.Scaled(1, y=2)
    assert (c.x, c.scale.value, c.y) == (1, 2, 2) and K.Scaled.__kiln_aggregate_fields__ == (
        "x", "scale", "y")
    d = K.Scaled(1, 5, 7)
    assert (d.scale.value, d.y) == (5, 7)
    for call, msg in [(lambda: K.Scaled(1, 2, 3, 4), r"takes 3 positional arguments"),
                      (lambda: K.Scaled(1, 2, 3, y=4), r"multiple values for field 'y'"),
                      (lambda: K.Scaled(1), r"is missing field 'y'"),
                      (lambda: K.Scaled(1, y=2, z=3), r"unexpected keyword argument 'z'")]:
        with pytest.raises(TypeError, match=msg):
            call()


def test_generated_constructor_in_a_kernel():
    k = K.scaled_kernel.warmup("*i32", grid=(1,), target=SM90)
    assert "st.global" in k.asm["ptx"]


@kiln.jit
def e_generated_ctor(out):
    offs = kl.arange(0, 128, kl.BlockedLayout([1], [32], [4], [0]))
    s = K.Scaled(offs)  # E:gen_ctor
    kl.store(out + offs, s.total())


def test_generated_constructor_error_at_the_call():
    with pytest.raises(CompilationError) as ei:
        e_generated_ctor.warmup("*i32", grid=(1,), target=SM90)
    located.assert_located(ei.value, HERE, "E:gen_ctor", "K.Scaled",
                           r"Scaled\(\) is missing field 'y'", CompilationError)
