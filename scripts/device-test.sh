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
exec "$PYTHON" -m pytest -q -p no:cacheprovider test/gpu third_party/*/test/gpu "$@"
