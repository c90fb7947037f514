import inspect


class JITCallable:
    def __init__(self, fn):
        self.fn = fn
        self.signature = inspect.signature(fn)
        self.__name__ = fn.__name__
        self.__qualname__ = fn.__qualname__
        self.__globals__ = fn.__globals__
        self.__module__ = fn.__module__


class KernelInterface:
    pass


class JITFunction(JITCallable, KernelInterface):
    def __init__(self, fn, **kwargs):
        super().__init__(fn)
        self.arg_names = list(self.signature.parameters)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Cannot call @triton.jit'd outside of the scope of a kernel")


class ConstexprFunction(JITCallable):
    def __call__(self, *args, _semantic=None, **kwargs):
        return self.fn(*args, **kwargs)


def constexpr_function(fn):
    return ConstexprFunction(fn)


def jit(fn=None, **kwargs):
    if fn is None:
        return lambda f: JITFunction(f, **kwargs)
    return JITFunction(fn, **kwargs)
