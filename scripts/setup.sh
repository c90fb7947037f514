#!/usr/bin/env bash
# Fresh-machine setup for Kiln: install Debian packages (only what is
# missing), configure with CMake + Ninja (+ ccache), build everything, and
# make the Python package importable by Debian's /usr/bin/python3. The
# build includes the self-contained compiler library (build/standalone/,
# LLVM inside) that the wheel ships (scripts/wheel.sh).
# Idempotent: a second run only rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${KILN_BUILD_DIR:-$ROOT/build}

# llvm-22-runtime: lli, which test/Target/pack-narrow-phis.ll runs programs with.
# redis-server: test/Python/test_autotune_redis.py starts its own on a free port; the
# service Debian starts (127.0.0.1:6379 only) is neither used nor in the way.
# python3-dev: Python's headers, for kiln/_fastlaunch.abi3.so (the warm launch in C).
# rocm-device-libs: the ROCm device libraries' bitcode (ocml.bc), which AMD kernels calling
# libdevice link (test/Python/test_amd_libdevice.py compiles each function against it).
PKGS=(cmake ninja-build ccache g++ llvm-22-dev libmlir-22-dev mlir-22-tools
      llvm-22-tools llvm-22-runtime lld-22 liblld-22-dev libzstd-dev zlib1g-dev libcurl4-openssl-dev
      libedit-dev python3-pytest python3-pytest-xdist python3-numpy python3-venv python3-dev
      python3-pip redis-server python3-redis rocm-device-libs)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "== installing: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${missing[@]}"
fi

mkdir -p "$BUILD"
# ccache keys on the compile command; with paths inside the checkout made relative, a fresh
# clone elsewhere (CI) reuses the objects a previous build cached.
export CCACHE_BASEDIR="$ROOT" CCACHE_NOHASHDIR=1
echo "== configure ($BUILD)"
cmake -G Ninja -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release \
  -DPython3_EXECUTABLE=/usr/bin/python3 -DKILN_STANDALONE_LIBRARY=ON \
  >"$BUILD/configure.log" 2>&1 \
  || { cat "$BUILD/configure.log"; exit 1; }
echo "== build"
ninja -C "$BUILD" -j "$(nproc)"

# Make `import kiln` work for /usr/bin/python3 (a .pth file pointing at the
# checkout's python/ folder, where the extensions were built).
site=$(/usr/bin/python3 -c 'import site; print(site.getsitepackages()[0])')
if [ -w "$site" ] || [ "$(id -u)" -eq 0 ]; then
  mkdir -p "$site" && echo "$ROOT/python" > "$site/kiln.pth"
else
  echo "note: cannot write $site; use PYTHONPATH=$ROOT/python"
fi
echo "== setup done: tools in $BUILD/bin, package in $ROOT/python"
