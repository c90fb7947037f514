#!/usr/bin/env bash
# Builds libkiln_runtime.so (python/src/runtime.cc and the vendor drivers)
# standalone with g++, next to the Python package: python/kiln/. It is a C
# library that kiln/_runtime.py loads with ctypes, so it needs no Python
# headers, and no LLVM/MLIR, CUDA or ROCm either (the driver is opened with
# dlopen at run time): it builds on the GPU machine as well.
#
# Usage (from anywhere):   [CXX=g++] bash scripts/build-runtime.sh [OUT]
set -euo pipefail
cd "$(dirname "$0")/.."
CXX=${CXX:-g++}
OUT=${1:-python/kiln/libkiln_runtime.so}

# Build to a temp name and rename, so a running process never sees a
# half-written library.
"$CXX" -O2 -shared -fPIC -std=c++17 -fvisibility=hidden -Ipython/src \
  -DKILN_RUNTIME_CUDA -DKILN_RUNTIME_HIP \
  python/src/runtime.cc third_party/nvidia/runtime/CudaDriver.cpp \
  third_party/amd/runtime/HipDriver.cpp -o "$OUT.tmp" -ldl
mv -f "$OUT.tmp" "$OUT"
echo "built $OUT"

# The warm launch in C (python/src/fastlaunch.c), a CPython extension on the stable ABI:
# built where Python's headers are, else left out (launches then run in Python).
CC=${CC:-gcc}
INC=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null || true)
FAST="$(dirname "$OUT")/_fastlaunch.abi3.so"
if [ -n "$INC" ] && [ -f "$INC/Python.h" ]; then
  "$CC" -O2 -shared -fPIC -std=c11 -fvisibility=hidden -I"$INC" python/src/fastlaunch.c \
    -o "$FAST.tmp"
  mv -f "$FAST.tmp" "$FAST"
  echo "built $FAST"
else
  echo "note: no Python headers: $FAST not built (launches run in Python)"
fi
