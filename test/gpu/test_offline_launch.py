"""A kernel compiled offline (kiln.compile(GluonASTSource(...), target=...)) launched as
Triton's CompiledKernel is: ``compiled[grid](*every argument)`` or the runtime ones alone,
against torch on fresh random inputs; ``n_regs`` / ``n_spills`` from the loaded function.
test/Python/test_offline_compile.py covers the compile without a GPU. Skips cleanly without
torch or a GPU."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

import kiln  # noqa: E402
import kiln.language as kl  # noqa: E402


@kiln.jit
def scale_copy(X, Y, n, alpha, BLOCK: kl.constexpr, LAYOUT: kl.constexpr):
    offsets = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK, layout=LAYOUT)
    mask = offsets < n
    kl.store(Y + offsets, kl.load(X + offsets, mask=mask) * alpha, mask=mask)


@pytest.mark.parametrize("all_arguments", [True, False])
def test_offline_compiled_kernel_launches(target, all_arguments):
    warp = 64 if target.startswith("hip:") else 32
    layout = kl.BlockedLayout([4], [warp], [4], [0])
    block = 4 * warp * 4
    src = kiln.GluonASTSource(
        scale_copy, {"X": "*fp32", "Y": "*fp32", "n": "i32", "alpha": "fp32",
                     "BLOCK": "constexpr", "LAYOUT": "constexpr"},
        {"BLOCK": block, "LAYOUT": layout},
        attrs={(0,): [["tt.divisibility", 16]], (1,): [["tt.divisibility", 16]]})
    compiled = kiln.compile(src, target=target, options={"num_warps": 4})
    n = 3 * block + 77
    x = torch.randn(n, device="cuda")
    y = torch.full_like(x, float("nan"))
    alpha = float(torch.rand(()).item()) + 0.5
    grid = (triton_cdiv(n, block),)
    if all_arguments:
        ret = compiled[grid](x, y, n, alpha, block, layout)
    else:
        ret = compiled[grid](x, y, n, alpha)
    assert ret is compiled
    torch.cuda.synchronize()
    torch.testing.assert_close(y, x * alpha, atol=0, rtol=0)
    assert compiled.n_regs > 0 and compiled.n_spills == 0


def triton_cdiv(a, b):
    return (a + b - 1) // b


def test_offline_kernel_checks_its_specialization(target):
    # A pointer compiled as divisible by 16 and given misaligned is refused at the launch,
    # as kiln.jit's kernels refuse it.
    warp = 64 if target.startswith("hip:") else 32
    layout = kl.BlockedLayout([1], [warp], [4], [0])
    src = kiln.GluonASTSource(
        scale_copy, {"X": "*fp32", "Y": "*fp32", "n": "i32", "alpha": "fp32"},
        {"BLOCK": 4 * warp, "LAYOUT": layout}, attrs={(0,): [["tt.divisibility", 16]]})
    compiled = kiln.compile(src, target=target)
    x = torch.randn(4 * warp + 1, device="cuda")
    y = torch.empty_like(x)
    with pytest.raises(ValueError, match="not a multiple of 16"):
        compiled[(1,)](x[1:], y, 4 * warp, 1.0)
