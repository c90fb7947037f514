#!/usr/bin/env bash
# Builds Kiln's wheel into dist/: set up and build (scripts/setup.sh, which
# includes the self-contained compiler library), then package it.
#
#   bash scripts/wheel.sh
#   pip install --no-index dist/kiln-*.whl      # on any x86-64 Linux, glibc >= 2.36
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
/usr/bin/python3 scripts/build-wheel.py "$@"
