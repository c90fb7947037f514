#!/usr/bin/env bash
# GPU tests against the installed wheel, on the GPU machine (run there,
# from the repository root, with dist/ carried: build it here with
# scripts/wheel.sh). Installs dist/kiln-*.whl into the machine's Python (the
# torch environment) with pip, then runs pytest test/gpu and every backend's
# third_party/<vendor>/test/gpu with the checkout's
# python/ folder NOT on the path, so every kernel[grid] call JIT-compiles with
# the wheel's compiler. Extra arguments go to pytest.
#
#   here:  bash scripts/wheel.sh                 # dist/kiln-*.whl
#   there: bash scripts/device-test.sh [-k EXPR]  # checkout + dist/ (+ build/gpu-bundle) copied
#
# KILN_TEST_SPLIT=N runs the collected tests round-robin in N pytest processes at once (the
# suite is mostly compile time, which the machine's cores share out; one GPU serves them
# all): each process's log goes to ${KILN_TEST_LOGS:-/tmp/kiln-device-test}/splitK.log and
# the summary lines are printed; the exit status is non-zero when any process fails.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
nvidia-smi -L || echo "warning: nvidia-smi failed" >&2
wheel=$(ls dist/kiln-*.whl | head -1)
"$PYTHON" -m pip install -q --no-index --no-deps --force-reinstall "$wheel"
unset PYTHONPATH
export PYTHONUNBUFFERED=1
cd /tmp  # nothing of the checkout importable by accident
"$PYTHON" -c 'import kiln, kiln._compiler as c, kiln._runtime as r; print("kiln", kiln.__version__, "from", kiln.__file__); print("compiler", c.version(), c.library_path); print("runtime", r.library_path)'
cd - >/dev/null
split=${KILN_TEST_SPLIT:-0}
if [ "$split" -le 1 ]; then
  exec "$PYTHON" -m pytest -q -p no:cacheprovider test/gpu third_party/*/test/gpu "$@"
fi
logs=${KILN_TEST_LOGS:-/tmp/kiln-device-test}
mkdir -p "$logs"
"$PYTHON" -m pytest -q -p no:cacheprovider --collect-only test/gpu third_party/*/test/gpu "$@" \
  | grep "::" > "$logs/ids.txt" || true
echo "collected $(wc -l < "$logs/ids.txt") tests into $split processes"
pids=()
for k in $(seq 0 $((split - 1))); do
  awk -v n="$split" -v k="$k" 'NR % n == k' "$logs/ids.txt" > "$logs/ids$k.txt"
  if [ -s "$logs/ids$k.txt" ]; then
    xargs -a "$logs/ids$k.txt" "$PYTHON" -m pytest -q -p no:cacheprovider -rfE "$@" \
      > "$logs/split$k.log" 2>&1 &
    pids+=($!)
  fi
done
status=0
for pid in "${pids[@]}"; do
  wait "$pid" || { rc=$?; [ "$status" -ne 0 ] || status=$rc; }
done
for k in $(seq 0 $((split - 1))); do
  [ -f "$logs/split$k.log" ] && grep -E "^(FAILED|ERROR)|passed|failed|error" "$logs/split$k.log" | tail -8
done
exit "$status"
