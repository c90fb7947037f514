"""Shared by the FlagGems cases: its Gluon FP8 block-scaled BMM for Hopper (DeepSeek-V3 style
scales: one fp32 per token and 128 K for the activations, one per 128x128 block for the
weights), through FlagGems' own host launchers.

FlagGems wraps the kernel in its autotuner (``@libentry()`` / ``@libtuner(configs=
runtime.get_tuned_config(...))``), whose ``flag_gems.runtime`` and ``flag_gems.utils`` import
the whole library. Importing this file puts stand-ins for those two modules in
``sys.modules`` (before the harness imports the kernel module): ``libentry()`` is the identity
and ``libtuner(...)`` launches the kernel with the one config a case names, taken from
FlagGems' tuned list for Hopper (``TILE_ORDER`` 0/1, 4 or 8 warps, 3-8 stages), as Triton's
autotuner launches its chosen config. The kernel and its launchers are FlagGems' code."""

import sys
import types

PROJECT = "flaggems"
MODULE = "src.flag_gems.runtime.backend._nvidia.hopper.ops.fp8_einsum"
TARGET = "sm_90a"
KIND = "run"

# The config the next launch takes (a case's setup sets it): kernel constexprs and options.
CONFIG = {"TILE_ORDER": 0, "num_warps": 4, "num_stages": 4}


class _Tuned:
    """What ``libtuner(...)(kernel)`` stands for: ``kernel[grid](*args, **kwargs)`` with
    CONFIG added, as ``triton.Autotuner.run`` adds its config's keyword arguments."""

    def __init__(self, fn):
        self.fn = fn
        self.arg_names = getattr(fn, "arg_names", None)

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.fn[grid](*args, **kwargs, **CONFIG)


def _install():
    if "flag_gems.runtime" in sys.modules:
        return
    pkg = types.ModuleType("flag_gems")
    pkg.__path__ = []
    runtime = types.ModuleType("flag_gems.runtime")
    runtime.get_tuned_config = lambda name: [dict(CONFIG)]
    utils = types.ModuleType("flag_gems.utils")
    utils.libentry = lambda *a, **k: (lambda fn: fn)
    utils.libtuner = lambda *a, **k: _Tuned
    pkg.runtime, pkg.utils = runtime, utils
    sys.modules.update({"flag_gems": pkg, "flag_gems.runtime": runtime,
                        "flag_gems.utils": utils})


_install()


def quantized(shape, block_rows, gen):
    """(fp8 e4m3 data, fp32 scale per ``block_rows`` rows of 128 columns) for a random tensor
    of ``shape`` [..., R, K] (last two dims), and its dequantized fp32 value."""
    import torch
    x = torch.randn(*shape, device="cuda", generator=gen) * 3
    *lead, R, K = shape
    blocks = x.reshape(*lead, R // block_rows, block_rows, K // 128, 128)
    amax = blocks.abs().amax(dim=(-3, -1), keepdim=True).clamp(min=1e-4)
    scale = amax / 448.0
    q = (blocks / scale).to(torch.float8_e4m3fn)
    deq = (q.float() * scale).reshape(shape)
    s = scale.squeeze(-1).squeeze(-2).reshape(*lead, R // block_rows, K // 128).contiguous()
    return q.reshape(shape).contiguous(), s, deq


def einsum_setup(b, h, r, d, config):
    """fp8_einsum("bhr,hdr->bhd") at these sizes (FlagGems' launcher permutes x, xs and the
    output to [h, b, ...] views, which the kernel reads and writes through 3-D TMA
    descriptors), checked against the dequantized fp32 einsum."""
    def setup(mod):
        import torch
        from harness import rel_error
        CONFIG.clear()
        CONFIG.update(config)
        gen = torch.Generator(device="cuda").manual_seed(0)
        x, xs, xd = quantized((b, h, r), 1, gen)
        y, ys, yd = quantized((h, d, r), 128, gen)
        ref = torch.einsum("bhr,hdr->bhd", xd, yd)
        out = {}

        def launch():
            out["z"] = mod.fp8_einsum("bhr,hdr->bhd", x, xs, y, ys)

        def check():
            err = rel_error(out["z"], ref)
            return err < 2e-2, err, (f"b={b} h={h} r={r} d={d} {config}, bf16 out, "
                                     f"max|z-ref|/max|ref|")
        return launch, check
    return setup
