"""Shared by the aiter (AMD) cases: compile-only (there is no AMD GPU). A case runs aiter's own
launcher with small torch tensors on the GPU machine's device, only for their dtypes, shapes,
strides and alignment; harness.capture stops the launch at ``kernel[grid](...)`` and the harness
compiles what it recorded for the AMD target with Triton and with Kiln."""

PROJECT = "aiter"
KIND = "compile"


def pretend_arch(mod, arch):
    """aiter reads the arch from the active device at import; name the target instead."""
    info = getattr(mod, "arch_info", None)
    if info is not None:
        info.get_arch = lambda: arch
        info._CACHED_ARCH = arch
        info.is_fp4_avail = lambda: arch in ("gfx950", "gfx1250")
        info.is_fp8_avail = lambda: True


def launched(mod, name, call):
    """(kernel, args, kwargs) of the launch ``call()`` makes of ``mod.<name>``."""
    from harness import capture
    with capture(mod, name) as cap:
        call()
    if cap.launch is None:
        raise RuntimeError(f"the launcher returned without launching {name}")
    return cap.launch
