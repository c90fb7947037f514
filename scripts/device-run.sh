#!/usr/bin/env bash
# Runs a command on the GPU machine with Kiln's runtime built for it.
#
# Run ON THE GPU MACHINE, from the repository root; docs/gpu-testing.md has
# the whole recipe (bundle here, run there, compute-sanitizer).
#
# Steps: print the GPUs (nvidia-smi -L), build kiln._runtime for $PYTHON with
# scripts/build-runtime.sh (no LLVM needed), then exec the given command with
# PYTHONPATH=$PWD/python and unbuffered output. PYTHON defaults to python3
# (the machine's /opt/torch/.venv python3.12, which has torch and pybind11).
set -euo pipefail
PYTHON=${PYTHON:-python3}
if [[ $# -eq 0 ]]; then
  echo "usage: bash scripts/device-run.sh COMMAND [ARGS...]" >&2
  exit 2
fi
nvidia-smi -L || echo "warning: nvidia-smi failed" >&2
PYTHON=$PYTHON bash scripts/build-runtime.sh
export PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH}
export PYTHONUNBUFFERED=1
exec "$@"
