import hashlib
import inspect


class KernelInterface:
    """``fn[grid](...)`` is ``fn.run(..., grid=grid, warmup=False)``, as in Triton."""

    def warmup(self, *args, grid, **kwargs):
        return self.run(*args, grid=grid, warmup=True, **kwargs)

    def run(self, *args, grid, warmup, **kwargs):
        raise NotImplementedError("run not implemented")

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, warmup=False, **kwargs)


class JITCallable:
    def __init__(self, fn):
        self.fn = fn
        self.signature = inspect.signature(fn)
        self.__name__ = fn.__name__
        self.__qualname__ = fn.__qualname__
        self.__globals__ = fn.__globals__
        self.__module__ = fn.__module__

    @property
    def cache_key(self):
        # Triton hashes the source and the globals it reads; the source is enough here.
        return hashlib.sha256(inspect.getsource(self.fn).encode()).hexdigest()

    def __hash__(self):
        return hash(self.cache_key)


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
