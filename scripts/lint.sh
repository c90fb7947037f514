#!/usr/bin/env bash
# Structure rules that keep the tree honest, checked in seconds (run by
# scripts/test.sh):
#  1. no tracked C++/TableGen/Python/CMake file over 1,500 lines (split by
#     op family or concern);
#  2. no build leftovers tracked (logs, stray .ll files, anything in build/);
#  3. every pass declared in a Passes.td has a lit test named after its flag
#     (`<flag>.mlir` under test/).
# Rules still to come with the boundaries issue: no vendor names in core
# folders, one .cpp per pass.
set -uo pipefail
cd "$(dirname "$0")/.."
fail=0

big=$(git ls-files '*.cpp' '*.h' '*.cc' '*.td' '*.py' 'CMakeLists.txt' '*.cmake' |
      while read -r f; do
        [ -f "$f" ] && n=$(wc -l <"$f") && [ "$n" -gt 1500 ] && echo "  $f ($n lines)"
      done)
if [ -n "$big" ]; then
  echo "lint: files over 1,500 lines (split them):"; echo "$big"; fail=1
fi

leftovers=$(git ls-files | grep -E '(^|/)build/|\.log$|^[^/]*\.ll$|\.o$|\.so$|__pycache__' || true)
if [ -n "$leftovers" ]; then
  echo "lint: build leftovers are tracked:"; echo "$leftovers" | sed 's/^/  /'; fail=1
fi

for td in $(git ls-files '*Passes.td'); do
  for flag in $(grep -oE 'Pass<"[a-z0-9-]+"' "$td" | sed -E 's/Pass<"(.*)"/\1/'); do
    if ! git ls-files "test/*$flag.mlir" "third_party/*/test/*$flag.mlir" | grep -q .; then
      echo "lint: pass '$flag' ($td) has no lit test named $flag.mlir"; fail=1
    fi
  done
done

[ $fail -eq 0 ] && echo "lint: ok"
exit $fail
