#!/usr/bin/env bash
# README's main job: set up and build (idempotent), then compile the bundled
# example kernels from the Python DSL for cuda:sm_90a, hip:gfx942 and
# hip:gfx950, writing every stage's IR under build/stages/, and run them
# against a reference when a GPU is present.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
PYTHONPATH=$PWD/python /usr/bin/python3 examples/compile_all.py --out build/stages "$@"
