#!/usr/bin/env bash
# README's main job: set up and build, then compile the bundled example kernels from the
# Python DSL for cuda:sm_90a, hip:gfx942 and hip:gfx950, writing every stage's IR under
# build/stages/, and run them against a reference when a GPU is present.
#
#   bash scripts/demo.sh            # set-up and build only when the build is missing or stale
#   bash scripts/demo.sh --setup    # always run scripts/setup.sh first (packages, configure)
#
# Other arguments go to examples/compile_all.py (--targets, --kernels, --out, --no-run).
set -euo pipefail
cd "$(dirname "$0")/.."
force=0
args=()
for a in "$@"; do
  if [ "$a" = "--setup" ]; then force=1; else args+=("$a"); fi
done
current() {  # the build exists and ninja has nothing to do
  [ -x build/bin/kiln-opt ] && command -v ninja >/dev/null &&
    ninja -C build -n 2>/dev/null | grep -q "no work to do"
}
if [ $force -eq 1 ] || ! current; then
  bash scripts/setup.sh
fi
PYTHONPATH=$PWD/python /usr/bin/python3 examples/compile_all.py --out build/stages ${args[@]+"${args[@]}"}
