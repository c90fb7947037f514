import functools

from .._C.libtriton import ir

PropagateNan = ir.PROPAGATE_NAN

TRITON_BUILTIN = "__triton_builtin__"


def builtin(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if kwargs.get("_semantic") is None:
            raise ValueError("Did you forget to add @triton.jit ? "
                             "(`_semantic` argument must be provided outside of JIT functions.)")
        return fn(*args, **kwargs)
    setattr(wrapper, TRITON_BUILTIN, True)
    return wrapper


class base_value:
    pass


class base_type:
    pass


class constexpr(base_value):
    def __init__(self, value):
        self.value = value.value if isinstance(value, constexpr) else value


class dtype(base_type):
    def __init__(self, name):
        self.name = name


class pointer_type(dtype):
    def __init__(self, element_ty, address_space=1):
        self.element_ty = element_ty
        self.address_space = address_space
        self.name = f"pointer<{element_ty.name}>"


class block_type(dtype):
    def __init__(self, element_ty, shape):
        self.element_ty = element_ty
        self.shape = shape
        self.name = f"<{shape}, {element_ty.name}>"


class tensor(base_value):
    pass


class static_range:
    def __init__(self, *args):
        raise RuntimeError("static_range can only be used in @triton.jit'd functions")


float16, bfloat16, float32 = dtype("fp16"), dtype("bf16"), dtype("fp32")
int32, int64, float8e4nv = dtype("int32"), dtype("int64"), dtype("fp8e4nv")


@builtin
def load(pointer, mask=None, other=None, _semantic=None):
    pass


@builtin
def store(pointer, value, mask=None, _semantic=None):
    pass


@builtin
def program_id(axis, _semantic=None):
    pass


@builtin
def arange(start, end, _semantic=None):
    pass


@builtin
def where(condition, x, y, _semantic=None):
    pass


@builtin
def maximum(x, y, _semantic=None):
    pass


@builtin
def full(shape, value, dtype, _semantic=None):
    pass


@builtin
def dot(a, b, _semantic=None):
    pass


@builtin
def static_assert(cond, msg="", _semantic=None):
    pass


@builtin
def reduce(input, axis, combine_fn, _semantic=None):
    pass


@builtin
def debug_barrier(_semantic=None):
    pass


class tuple(base_value):
    def __init__(self, args, type=None):
        self.values = [i for i in args]
        self.type = type

    def __getitem__(self, idx):
        return self.values[idx.value if isinstance(idx, constexpr) else idx]


def _aggregate(cls):
    """Triton 3.6's class decorator, reduced to what Kiln relies on: the class it returns is
    marked ``__triton_aggregate__``, holds the decorated class in the closure of its
    ``_flatten_ir``, runs that class's ``__init__`` on construction, and checks each field's
    value against the field's annotation when it is set."""

    class aggregate_value(base_value):
        __triton_builtin__ = True
        __triton_aggregate__ = True

        def __new__(this_cls, *args, _semantic=None, **kwargs):
            instance = object.__new__(this_cls)
            cls.__init__(instance, *args, **kwargs)
            return instance

        def __setattr__(self, name, value):
            if not isinstance(value, cls.__annotations__[name]):
                raise TypeError(f"Expected {cls.__annotations__[name]} for attribute "
                                f"'{name}', got {type(value)}")
            super().__setattr__(name, value)

        def _flatten_ir(self, handles):
            return cls

    for name, member in cls.__dict__.items():
        if callable(member) and name != "__init__":
            setattr(aggregate_value, name, member)
    aggregate_value.__name__ = cls.__name__
    aggregate_value.__qualname__ = cls.__qualname__
    return aggregate_value


@builtin
def cast(input, dtype, fp_downcast_rounding=None, bitcast=False, _semantic=None):
    pass
