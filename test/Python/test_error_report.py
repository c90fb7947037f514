"""How a kernel author meets an error: one block (``file:line:col: error: message``, the source
line and caret, notes) without Kiln's own frames or the internal exception it was raised from,
unless KILN_TRACEBACK=1; constexpr launch options declared as parameters; type names listed
where a type string is wrong; a note where an unannotated argument was needed as a constexpr."""

import os
import subprocess
import sys
import textwrap

import pytest

import kiln
import kiln.language as kl
from kiln import CompilationError, InvalidOption

from fakes import FAKE_TARGETS  # noqa: F401  (registers the fake targets)
import located

HERE = os.path.abspath(__file__)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SCRIPT = textwrap.dedent('''
    import kiln, kiln.language as kl

    @kiln.jit
    def k(x, BLOCK: kl.constexpr):
        offs = kl.arange(0, BLOCK, kl.BlockedLayout([1], [32], [4], [0]))
        kl.store(x + offs, offs + kl.zeros([64], kl.int32, kl.BlockedLayout([1], [32], [4], [0])))

    k.warmup("*i32", BLOCK=128, grid=(1,), target="cuda:sm_90a")
''')


def _run(tmp_path, env_extra):
    path = tmp_path / "user_kernel.py"
    path.write_text(SCRIPT)
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"), **env_extra)
    env.pop("KILN_TRACEBACK", None) if not env_extra else None
    r = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, env=env,
                       timeout=300)
    assert r.returncode == 1
    return str(path), r.stderr


def test_error_is_one_block_without_kiln_frames(tmp_path):
    path, err = _run(tmp_path, {})
    assert "The above exception was the direct cause" not in err
    frames = [ln for ln in err.splitlines() if ln.startswith('  File "')]
    # the user's line, and the one frame that re-raises it (Python always shows that one)
    assert frames[0].startswith(f'  File "{path}", line 9'), err
    assert len(frames) <= 2, err
    assert "codegen.py" not in err and "_semantic.py" not in err
    tail = err.splitlines()[-3:]
    assert tail[0].endswith(f"{path}:7:24: error: shape mismatch in add: (128,) vs (64,)"), err
    assert tail[1].strip().startswith("kl.store(x + offs, offs + kl.zeros(")
    assert tail[2].strip() == "^"


def test_kiln_traceback_keeps_internal_frames(tmp_path):
    _, err = _run(tmp_path, {"KILN_TRACEBACK": "1"})
    assert "The above exception was the direct cause" in err
    assert "codegen.py" in err


def test_compile_error_keeps_internal_cause():
    @kiln.jit
    def k(x, BLOCK: kl.constexpr):
        offs = kl.arange(0, BLOCK, kl.BlockedLayout([1], [32], [4], [0]))
        kl.store(x + offs, offs + kl.zeros([64], kl.int32, kl.BlockedLayout([1], [32], [4], [0])))
    with pytest.raises(CompilationError) as info:
        kiln.compile(k, {"x": "*i32"}, {"BLOCK": 128}, target="cuda:sm_90a")
    err = info.value
    assert err.__cause__ is None and err.__suppress_context__
    assert isinstance(getattr(err, "internal_cause", None), ValueError)


def test_unknown_signature_type_lists_the_types():
    @kiln.jit
    def k(x):
        pass
    with pytest.raises(ValueError) as info:
        kiln.compile(k, {"x": "*fp33"}, target="cuda:sm_90a")
    msg = str(info.value)
    assert "unknown type 'fp33' in signature; did you mean 'fp32'?" in msg
    for name in ("bf16", "fp16", "fp8e4nv", "int32", "uint8"):
        assert name in msg


@kiln.jit
def warps_kernel(x, BLOCK: kl.constexpr, num_warps: kl.constexpr):  # E:warps
    offs = kl.arange(0, BLOCK, kl.BlockedLayout([1], [32], [num_warps], [0]))
    kl.store(x + offs, offs.to(kl.float32))


@pytest.mark.parametrize("kw,expected", [
    (dict(num_warps=8), 8),                                  # the option fills the parameter
    (dict(constexprs={"BLOCK": 256, "num_warps": 2}), 2),    # the parameter is the option
    (dict(num_warps=2, constexprs={"BLOCK": 256, "num_warps": 2}), 2),
    (dict(), 4),                                             # neither: the default
])
def test_num_warps_constexpr_parameter(kw, expected):
    kw.setdefault("constexprs", {"BLOCK": 256})
    c = kiln.compile(warps_kernel, {"x": "*fp32"}, target="cuda:sm_90a", **kw)
    assert c.metadata["num_warps"] == expected
    assert f"warpsPerCTA = [{expected}]" in c.asm["tile"]


def test_num_warps_given_twice_differently():
    with pytest.raises(InvalidOption) as info:
        kiln.compile(warps_kernel, {"x": "*fp32"}, {"BLOCK": 256, "num_warps": 2},
                     num_warps=8, target="cuda:sm_90a")
    located.assert_located(info.value, HERE, "E:warps", "def warps_kernel",
                           r"num_warps is both a launch option \(num_warps=8\) and a "
                           r"constexpr argument \(num_warps=2\) of warps_kernel\(\); give it "
                           r"once", InvalidOption)


def test_a_bad_waves_per_eu_points_at_the_kernel():
    with pytest.raises(InvalidOption) as info:
        kiln.compile(warps_kernel, {"x": "*fp32"}, {"BLOCK": 256}, target="hip:gfx950",
                     waves_per_eu=-1)
    located.assert_located(info.value, HERE, "E:warps", "def warps_kernel",
                           r"waves_per_eu must be an int between 0 and 20 \(waves per SIMD; 0: the "
                           r"compiler's choice\), got -1", InvalidOption)


def test_unannotated_argument_needed_as_constexpr_says_so():
    @kiln.jit
    def k(x, BLOCK):
        offs = kl.arange(0, BLOCK, kl.BlockedLayout([1], [32], [4], [0]))
        kl.store(x + offs, offs.to(kl.float32))
    with pytest.raises(CompilationError) as info:
        k.warmup("*fp32", 256, grid=(1,), target="cuda:sm_90a")
    err = info.value
    assert "arange end must be a constexpr" in err.message
    assert any("'BLOCK' is an argument of k() that is not annotated kl.constexpr" in n[0]
               for n in err.notes), err.notes


@kiln.jit
def _store_one(x, WG: kl.constexpr):
    kl.store(x + WG, 1.0)


def test_no_constexpr_note_for_a_pointer_argument():
    # Only a number could have been a constexpr: the pointer the failing call also reads gets
    # no note (it read "'x' is an argument ... declare it 'x: kl.constexpr'").
    @kiln.jit
    def k(x, REGS):
        kl.warp_specialize([(_store_one, (x, 0)), (_store_one, (x, 1))], [4], [REGS])
    with pytest.raises(CompilationError) as info:
        k.warmup("*fp32", 240, grid=(1,), target="cuda:sm_90a")
    assert "worker_num_regs must be a list of 1 constexpr int(s)" in info.value.message
    notes = [n[0] for n in info.value.notes]
    assert any("'REGS' is an argument" in n for n in notes), notes
    assert not any("'x' is an argument" in n for n in notes), notes


def test_a_warning_prints_its_source_once(tmp_path):
    user = tmp_path / "user_kernel.py"
    user.write_text("x = 1\ny = compute(x)  # the line\n")
    script = tmp_path / "emit.py"
    script.write_text(textwrap.dedent(f'''
        from kiln.compiler.errors import CompilationWarning
        from kiln.compiler.compiler import emit_warning
        emit_warning(CompilationWarning("this wait is stricter than asked", {str(user)!r}, 2, 5))
    '''))
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env,
                       timeout=120)
    lines = r.stderr.splitlines()
    assert lines[0] == f"{user}:2:5: warning: this wait is stricter than asked", r.stderr
    assert r.stderr.count("compute(x)") == 1, r.stderr
    assert lines[2] == "        ^"


def test_a_recorded_warning_is_the_warning_object():
    import warnings
    from kiln.compiler.compiler import emit_warning
    from kiln.compiler.errors import CompilationWarning
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        emit_warning(CompilationWarning("recorded", "somewhere.py", 3, 1))
    assert [str(w.message.message) for w in seen] == ["recorded"]


def test_the_suite_checks_every_error_it_sees():
    # kiln_test_setup installs an observer on every CompilationError leaving an entry point:
    # one without the user's file and line fails the test that raised it.
    from kiln.compiler import errors
    assert errors.error_observers
    with pytest.raises(AssertionError, match="does not name the user's file and line"):
        for observe in errors.error_observers:
            observe(CompilationError("no location"))
    for observe in errors.error_observers:  # a located one passes
        observe(CompilationError("fine", "/home/me/kernel.py", 3, 5))


def test_several_errors_print_each_as_an_error():
    err = CompilationError("first", "/k.py", 6, 5,
                           notes=[("error: second", "/k.py", 8, 5), ("the copy", "/k.py", 3, 1)])
    lines = str(err).splitlines()
    assert lines[0] == "/k.py:6:5: error: first"
    assert "/k.py:8:5: error: second" in lines
    assert "/k.py:3:1: note: the copy" in lines
    assert not any("note: error" in line for line in lines)


def test_every_op_has_a_dsl_name():
    # A diagnostic naming an op the table lacks would reach the user in IR words.
    import glob
    import re
    from kiln.compiler.dsl_names import OPS, dsl_message
    tds = glob.glob(os.path.join(ROOT, "include", "kiln", "Dialect", "Tile", "IR", "*.td")) + \
        glob.glob(os.path.join(ROOT, "third_party", "*", "include", "kiln", "Dialect", "*",
                               "IR", "*.td"))
    ops = set()
    for td in tds:
        ops |= set(re.findall(r'def \w+Op : \w+<"([a-z0-9_]+)"', open(td).read()))
    assert len(ops) > 40 and ops <= set(OPS), sorted(ops - set(OPS))
    assert dsl_message("'tile_nv.mbarrier_wait' op waits") == "mbarrier.wait: waits"
    assert dsl_message("'tile.num_warps' must be 4") == "'tile.num_warps' must be 4"
