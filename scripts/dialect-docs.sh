#!/usr/bin/env bash
# Reference pages of Kiln's three dialects, generated from their TableGen definitions with
# mlir-tblgen (ops, attributes, types, with their descriptions and syntax) into docs/dialects/.
#
#   bash scripts/dialect-docs.sh           # regenerate docs/dialects/*.md
#   bash scripts/dialect-docs.sh --check   # exit 1 when a committed page is stale
set -euo pipefail
cd "$(dirname "$0")/.."
TBLGEN=${MLIR_TBLGEN:-/usr/lib/llvm-22/bin/mlir-tblgen}
INCLUDES=(-I include -I /usr/lib/llvm-22/include -I third_party/nvidia/include
          -I third_party/amd/include)
check=0
[ "${1:-}" = "--check" ] && check=1
out=docs/dialects
mkdir -p "$out"
stale=0
gen() {  # dialect, then the .td files that define its ops, attributes and types
  local page="$out/$1.md" tmp all td
  tmp=$(mktemp)
  all=$(mktemp --suffix=.td)
  for td in "${@:2}"; do echo "include \"$td\"" >> "$all"; done
  "$TBLGEN" -gen-dialect-doc -dialect="$1" "${INCLUDES[@]}" -I . "$all" > "$tmp"
  rm -f "$all"
  if [ $check -eq 1 ]; then
    if ! cmp -s "$tmp" "$page"; then
      echo "dialect-docs: $page is stale: run bash scripts/dialect-docs.sh" >&2
      stale=1
    fi
    rm -f "$tmp"
  else
    mv "$tmp" "$page"
    echo "wrote $page"
  fi
}
gen tile kiln/Dialect/Tile/IR/TileOps.td kiln/Dialect/Tile/IR/TileMemoryOps.td \
  kiln/Dialect/Tile/IR/TileAttrs.td kiln/Dialect/Tile/IR/TileTypes.td
gen tile_nv kiln/Dialect/TileNV/IR/TileNVOps.td kiln/Dialect/TileNV/IR/TileNVAttrs.td
gen tile_amd kiln/Dialect/TileAMD/IR/TileAMDOps.td kiln/Dialect/TileAMD/IR/TileAMDAttrs.td
exit $stale
