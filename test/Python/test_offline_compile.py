"""kiln.compile(GluonASTSource(...), target=..., options=...): Gluon's offline compile (its
``triton.compile`` of a ``GluonASTSource``), with no GPU -- the signature's ``constexpr``
entries, constexprs by name or index, Triton's argument attributes, Triton's ``GPUTarget`` and
option dicts, and errors that name what is wrong. test/gpu/test_offline_launch.py launches
such a kernel."""

from __future__ import annotations

import collections

import pytest

import kiln
import kiln.language as kl
from kiln.language.nvidia.hopper import mbarrier, tma
from kiln.offline import _runtime_args, target_name

import compiled

pytestmark = compiled.needs_compiler

# Triton's GPUTarget is a dataclass of these three fields; Kiln reads them by name.
GPUTarget = collections.namedtuple("GPUTarget", "backend arch warp_size")


@kiln.jit
def copy(X, Y, n, BLOCK: kl.constexpr, LAYOUT: kl.constexpr):
    offsets = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK, layout=LAYOUT)
    mask = offsets < n
    kl.store(Y + offsets, kl.load(X + offsets, mask=mask), mask=mask)


def _source(warp=32, **kw):
    return kiln.GluonASTSource(
        copy, {"X": "*fp32", "Y": "*fp32", "n": "i32", "BLOCK": "constexpr",
               "LAYOUT": "constexpr"},
        {"BLOCK": 128, "LAYOUT": kl.BlockedLayout([1], [warp], [4], [0])}, **kw)


def test_source_compiles_with_triton_attrs():
    src = _source(attrs={(0,): [["tt.divisibility", 16]], (1,): [["tt.divisibility", 16]],
                         (2,): [["tt.divisibility", 8]]})
    k = kiln.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})
    assert src.ext == "tile" and k.asm[src.ext] is k.asm["tile"]
    ir = k.asm["tile"]
    # X and Y divisible by 16; n's 8 promises less than Kiln specializes on: dropped.
    assert ir.count("tile.divisibility = 16") == 2, ir
    assert k.metadata.target == "cuda:sm_90a" and k.metadata.num_warps == 4
    assert [p["name"] for p in k.metadata.params] == ["X", "Y", "n"]
    assert "ld.global" in k.asm["ptx"]
    assert k.arg_names == ["X", "Y", "n", "BLOCK", "LAYOUT"]


def test_constexprs_by_index_and_kiln_target_names():
    src = kiln.GluonASTSource(copy, {"X": "*fp32", "Y": "*fp32", "n": "i32"},
                              {(3,): 64, "LAYOUT": kl.BlockedLayout([1], [32], [2], [0])})
    k = kiln.compile(src, target="cuda:sm_80", options={"num_warps": 2})
    assert k.metadata.constexprs["BLOCK"] == 64 and k.metadata.target == "cuda:sm_80"


@pytest.mark.parametrize("target,name", [
    (GPUTarget("cuda", 80, 32), "cuda:sm_80"), (GPUTarget("cuda", 86, 32), "cuda:sm_80"),
    (GPUTarget("cuda", 89, 32), "cuda:sm_80"), (GPUTarget("cuda", 90, 32), "cuda:sm_90a"),
    (GPUTarget("cuda", "sm_90a", 32), "cuda:sm_90a"), (GPUTarget("hip", "gfx942", 64), "hip:gfx942"),
    (GPUTarget("hip", "gfx950:sramecc+:xnack-", 64), "hip:gfx950"), ("hip:gfx90a", "hip:gfx90a"),
])
def test_gpu_targets(target, name):
    assert target_name(target) == name


@pytest.mark.parametrize("target,message", [
    (GPUTarget("cuda", 100, 32), "does not compile for cuda 100"),
    (GPUTarget("hip", "gfx1200", 32), "does not compile for hip 'gfx1200'"),
    (GPUTarget("hip", "gfx942", 32), "hip:gfx942 runs warps of 64 threads, not 32"),
    (object(), "Kiln target name or Triton's GPUTarget"),
])
def test_bad_targets(target, message):
    with pytest.raises((kiln.InvalidOption, TypeError), match=message):
        target_name(target)


def test_amd_target():
    k = kiln.compile(_source(warp=64), target=GPUTarget("hip", "gfx942", 64))
    assert k.metadata.target == "hip:gfx942" and k.metadata.threads_per_warp == 64
    assert "amdgcn" in k.asm and "hsaco" in k.asm


def test_options():
    # Triton's options without a Kiln meaning are accepted (a backend's whole option set may
    # be passed); Kiln's are applied; a name neither knows is an error naming it.
    k = kiln.compile(_source(), target="cuda:sm_90a",
                     options={"num_warps": 4, "num_stages": 3, "ptx_version": None,
                              "maxnreg": 128, "extern_libs": None})
    assert k.metadata.maxnreg == 128
    # A name neither knows: ignored, as Triton's backends drop it, with a warning naming it.
    with pytest.warns(kiln.offline.UnknownOptionWarning, match="unknown compile option "
                                                                "'num_warp' ignored"):
        kiln.compile(_source(), target="cuda:sm_90a", options={"num_warp": 4})
    with pytest.raises(kiln.InvalidOption, match="num_warps given twice"):
        kiln.compile(_source(), target="cuda:sm_90a", num_warps=8, options={"num_warps": 4})


def test_source_errors():
    with pytest.raises(TypeError, match="'BLOCK' .* is 'constexpr' in the signature but has "
                                        "no value"):
        kiln.compile(kiln.GluonASTSource(copy, {"X": "*fp32", "Y": "*fp32", "n": "i32",
                                                "BLOCK": "constexpr"}, {"LAYOUT": None}),
                     target="cuda:sm_90a")
    # An attribute Kiln does not read is a promise left unused: a warning, the kernel compiles.
    with pytest.warns(kiln.offline.UnknownOptionWarning, match="'tt.equal_to' = 1 of \\(2,\\) "
                                                                "ignored"):
        kiln.compile(_source(attrs={(2,): [["tt.equal_to", 1]]}), target="cuda:sm_90a")
    with pytest.raises(TypeError, match="index 9 is past copy"):
        _source(attrs={(9,): [["tt.divisibility", 16]]}).kiln_signature()
    with pytest.raises(TypeError, match="has no argument 'Z'"):
        kiln.GluonASTSource(copy, {"Z": "*fp32"}).kiln_signature()
    with pytest.raises(TypeError, match="carries its signature"):
        kiln.compile(_source(), {"X": "*fp32"}, target="cuda:sm_90a")


def test_missing_stage_names_the_ones_there():
    k = kiln.compile(_source(), target="cuda:sm_90a")
    with pytest.raises(KeyError, match="Kiln's IR is the 'tile' stage"):
        k.asm["ttgir"]


def test_call_arguments_select_the_runtime_ones():
    # compiled[grid](...) takes every argument in order, as Triton's CompiledKernel does
    # (constexprs skipped), or the runtime ones alone.
    k = kiln.compile(_source(), target="cuda:sm_90a")
    assert _runtime_args(k, ("x", "y", 5, 128, "layout")) == ["x", "y", 5]
    assert _runtime_args(k, ("x", "y", 5)) == ("x", "y", 5)


@kiln.jit
def tuple_arg(ptrs, n, BLOCK: kl.constexpr):
    offsets = kl.arange(0, BLOCK, layout=kl.BlockedLayout([1], [32], [4], [0]))
    kl.store(ptrs[1] + offsets, kl.load(ptrs[0] + offsets, mask=offsets < n), mask=offsets < n)


def test_tuple_arguments_and_their_attrs():
    src = kiln.GluonASTSource(tuple_arg, {"ptrs": "(*fp16, *fp16)", "n": "i32",
                                          "BLOCK": "constexpr"}, {"BLOCK": 128},
                              attrs={(0, 1): [["tt.divisibility", 16]]})
    k = kiln.compile(src, target="cuda:sm_90a")
    params = {p["name"]: p for p in k.metadata.params}
    assert params["ptrs.1"].get("divisibility") == 16 and "divisibility" not in params["ptrs.0"]
    assert _runtime_args(k, (("a", "b"), 7, 128)) == ["a", "b", 7]


@kiln.jit
def tma_copy(in_desc, out_desc):
    smem = kl.allocate_shared_memory(in_desc.dtype, in_desc.block_shape, in_desc.layout)
    bar = mbarrier.allocate_mbarrier()
    mbarrier.init(bar, count=1)
    mbarrier.expect(bar, in_desc.block_type.nbytes)
    tma.async_copy_global_to_shared(in_desc, [0, 0], bar, smem)
    mbarrier.wait(bar, 0)
    mbarrier.invalidate(bar)
    tma.async_copy_shared_to_global(out_desc, [0, 0], smem)
    tma.store_wait(0)


def test_tensor_descriptors_written_as_triton_does():
    # Projects write a descriptor's signature with the layout's repr: f"tensordesc<fp16[64,
    # 64],{layout!r}>".
    layout = kl.NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16, rank=2)
    desc = f"tensordesc<fp16[64, 64],{layout!r}>"
    k = kiln.compile(kiln.GluonASTSource(tma_copy, {"in_desc": desc, "out_desc": desc}),
                     target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})
    assert "cp.async.bulk.tensor.2d" in k.asm["ptx"]
    assert [p["type"] for p in k.metadata.params] == ["tensordesc", "tensordesc"]
    with pytest.raises(ValueError, match="gives no shared layout"):
        kiln.GluonASTSource(tma_copy, {"in_desc": "tensordesc<fp16[64, 64]>",
                                       "out_desc": desc}).kiln_signature()
    with pytest.raises(ValueError, match="cannot read the layout 'Bogus\\(1\\)'"):
        kiln.GluonASTSource(tma_copy, {"in_desc": "tensordesc<fp16[64, 64],Bogus(1)>",
                                       "out_desc": desc}).kiln_signature()


# The option set of Triton's CUDA backend at its defaults, as `backend.parse_options({...})
# .__dict__` hands it to triton.compile (Triton 3.6's and its main branch's field names).
TRITON_CUDA_DEFAULTS = dict(
    num_warps=4, num_ctas=1, num_stages=3, warp_size=32, maxnreg=None, cluster_dims=(1, 1, 1),
    ptx_version=None, ptx_options=None, ir_override=None, enable_fp_fusion=True,
    enable_reflect_ftz=True, launch_cooperative_grid=False, launch_pdl=False,
    supported_fp8_dtypes=("fp8e5", "fp8e4nv"), deprecated_fp8_dot_operand_dtypes=(),
    default_dot_input_precision="tf32", allowed_dot_input_precisions=("tf32", "ieee"),
    max_num_imprecise_acc_default=0, extern_libs=(("libdevice", "/x/libdevice.10.bc"),),
    debug=False, backend_name="cuda", sanitize_overflow=True, arch="sm90",
    instrumentation_mode="")


def test_a_whole_triton_option_set():
    k = kiln.compile(_source(), target=GPUTarget("cuda", 90, 32), options=TRITON_CUDA_DEFAULTS)
    assert k.metadata.num_warps == 4
    for name, value, message in [
            ("cluster_dims", (2, 1, 1), r"cluster_dims=\(2, 1, 1\) has no Kiln equivalent"),
            ("launch_pdl", True, "launch_pdl=True has no Kiln equivalent"),
            ("warp_size", 64, "warp_size=64 in the options, but cuda:sm_90a runs warps of 32")]:
        with pytest.raises(kiln.InvalidOption, match=message):
            kiln.compile(_source(), target=GPUTarget("cuda", 90, 32),
                         options=dict(TRITON_CUDA_DEFAULTS, **{name: value}))
