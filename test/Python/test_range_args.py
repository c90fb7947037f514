"""kl.range's arguments with values no attribute of their declared width holds: a num_stages
past i32 is said as the remark any num_stages over 65 gets (the loop stays as written), at the
loop's line and with the number given; past i64, an error at the loop. The other hints
(loop_unroll_factor, ...) are accepted and not emitted, so no value of theirs can overflow.
Ordinary num_stages values: test_pipeline_dsl.py."""

import os

import pytest

import kiln
import kiln.language as kl

import compiled

pytestmark = compiled.needs_compiler

HERE = os.path.abspath(__file__)
SIG = {"x": "*fp32:16", "out": "*fp32:16", "n": "i32"}


def _line(marker):
    return next(i for i, text in enumerate(open(HERE).read().splitlines(), 1)
                if text.rstrip().endswith(f"# {marker}"))


@kiln.jit
def stages(x, out, n, NS: kl.constexpr):
    layout: kl.constexpr = kl.BlockedLayout([4], [32], [4], [0])
    offs = kl.arange(0, 512, layout)
    acc = kl.zeros([512], kl.float32, layout)
    for i in kl.range(0, n, 512, num_stages=NS):  # R:stages
        acc += kl.load(x + i + offs)
    kl.store(out + offs, acc)


@pytest.mark.parametrize("ns", [2**31 - 1, 2**31, 2**40, 2**63 - 1])
def test_huge_num_stages_is_the_over_65_remark_at_the_loop(ns):
    with pytest.warns(kiln.CompilationRemark,
                      match=f"loop not pipelined: num_stages={ns} is more than 65") as record:
        k = kiln.compile(stages, SIG, {"NS": ns}, target="cuda:sm_80", num_warps=4,
                         cache=False)
    where = [(r.filename, r.lineno) for r in record
             if f"num_stages={ns} is more than 65" in str(r.message)]
    assert where and set(where) == {(HERE, _line("R:stages"))}, where
    assert "cp.async" not in k.asm["ptx"]


def test_num_stages_past_i64_is_an_error_at_the_loop():
    with pytest.raises(kiln.CompilationError) as e:
        kiln.compile(stages, SIG, {"NS": 2**63}, target="cuda:sm_80", num_warps=4, cache=False)
    err = e.value
    src = open(HERE).read().splitlines()[_line("R:stages") - 1]
    assert (err.file, err.line, err.col) == (HERE, _line("R:stages"),
                                             src.index("kl.range") + 1), str(err)
    assert err.message == ("kl.range(num_stages=...) must be less than 2**63, got "
                           "9223372036854775808 (Kiln pipelines at most 65 stages)")


@kiln.jit
def hints(x, out, n, U: kl.constexpr):
    layout: kl.constexpr = kl.BlockedLayout([4], [32], [4], [0])
    offs = kl.arange(0, 512, layout)
    acc = kl.zeros([512], kl.float32, layout)
    for i in kl.range(0, n, 512, loop_unroll_factor=U, disallow_acc_multi_buffer=True,
                      flatten=True, warp_specialize=False):
        acc += kl.load(x + i + offs)
    kl.store(out + offs, acc)


def test_other_range_hints_do_not_overflow():
    k = kiln.compile(hints, SIG, {"U": 2**70}, target="cuda:sm_80", num_warps=4, cache=False)
    assert "scf.for" in k.asm["tile"] and str(2**70) not in k.asm["tile"]
