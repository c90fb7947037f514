#!/usr/bin/env bash
# README's test command: set up and build (idempotent), then run the lit
# suite (IR, passes, translation) and the pytest suites (DSL, runtime, cache:
# test/Python and each built backend's third_party/<vendor>/test/python).
# GPU tests under test/gpu skip cleanly without a GPU.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
bash scripts/setup.sh || exit 1
export PYTHONPATH=$ROOT/python${PYTHONPATH:+:$PYTHONPATH}

echo "== lint"
bash scripts/lint.sh
lint_rc=$?

echo "== lit"
# The core suite and one suite per built backend (third_party/<vendor>/test).
/usr/lib/llvm-22/bin/lit -sv build/test build/third_party/*/test
lit_rc=$?

echo "== pytest"
# KILN_TEST_STRICT=1: a test whose tool setup.sh installs fails, not skips, when it is missing.
# In parallel, one worker per core (pytest-xdist; KILN_TEST_JOBS=1 runs them one at a time).
KILN_REQUIRE_WHEEL=1 KILN_TEST_STRICT=1 /usr/bin/python3 -m pytest -q -n "${KILN_TEST_JOBS:-auto}" test/Python \
  third_party/*/test/python test/gpu third_party/*/test/gpu
py_rc=$?

echo "== summary: lint rc=$lint_rc, lit rc=$lit_rc, pytest rc=$py_rc"
[ $lint_rc -eq 0 ] && [ $lit_rc -eq 0 ] && [ $py_rc -eq 0 ]
