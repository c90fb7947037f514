#!/usr/bin/env bash
# Structure rules that keep the tree honest, checked in seconds (run by
# scripts/test.sh):
#  1. no tracked C++/TableGen/Python/CMake file over 1,500 lines (split by
#     op family or concern);
#  2. no build leftovers tracked (logs, stray .ll files, anything in build/);
#  3. every pass declared in a Passes.td has a lit test named after its flag
#     (`<flag>.mlir` under test/) and is defined in exactly one .cpp;
#  4. no vendor names in core folders (lib/, include/kiln/, python/kiln/compiler/,
#     python/kiln/language/): vendors live in third_party/<vendor> and
#     python/kiln/language/{nvidia,amd}; only the interfaces a backend
#     implements, and the dialect statement of what goes in tile_nv/tile_amd,
#     may name them (the allowlist below).
#  5. no workplace vocabulary in tracked files: the product speaks of "a GPU
#     machine" and the project's own scripts, never of a machine being lent,
#     numbered work sessions, or a remote-run tool's call syntax. Only this
#     script, which has to spell the words to find them, is excluded.
#  6. no module-level function or class defined twice in a tracked Python file:
#     the second silently replaces the first (a test's kernel named like another
#     test's kernel in the same file made that test call the wrong one).
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

# Every pass record is defined (GEN_PASS_DEF_<RECORD>) in exactly one .cpp.
for td in $(git ls-files '*Passes.td'); do
  for rec in $(grep -oE '^def [A-Za-z0-9]+Pass ' "$td" | awk '{print $2}'); do
    def="GEN_PASS_DEF_$(echo "$rec" | tr '[:lower:]' '[:upper:]')"
    n=$(git ls-files '*.cpp' | xargs grep -l "#define $def\b" | wc -l)
    if [ "$n" -ne 1 ]; then
      echo "lint: pass record $rec ($td) is defined in $n .cpp files (want 1)"; fail=1
    fi
  done
done

vendor_re='nvvm|rocdl|nvidia|\bamd\b|cuda|\bhip\b|ptx|gfx[0-9]|sm_[0-9]|hsaco|cubin|amdgcn|ld\.lld|nvptx|amdgpu'
vendor_ok='^(include/kiln/Target/Backend\.h|include/kiln/Conversion/TileToLLVM/TargetInfo\.h|include/kiln/Dialect/Tile/IR/TileBase\.td|python/kiln/language/__init__\.py|python/kiln/language/(nvidia|amd)/.*)$'
named=$(git ls-files lib include/kiln python/kiln/compiler python/kiln/language |
        grep -vE "$vendor_ok" | xargs grep -liE "$vendor_re" 2>/dev/null || true)
if [ -n "$named" ]; then
  echo "lint: vendor names in core folders (move the code to third_party/<vendor>):"
  for f in $named; do grep -niE "$vendor_re" "$f" | head -3 | sed "s|^|  $f:|"; done
  fail=1
fi

# -I skips binary files; -i because a sentence may start with the word.
workplace_re='\blent\b|lent-device|run\(carry=|\bsession [0-9]+|session'"'"'s|this session|previous session'
workplace=$(git grep -nIiE "$workplace_re" -- . ':!scripts/lint.sh' || true)
if [ -n "$workplace" ]; then
  echo "lint: workplace words in tracked files (say 'a GPU machine' and name the project's scripts):"
  echo "$workplace" | sed 's/^/  /'; fail=1
fi

twice=$(git ls-files '*.py' | /usr/bin/python3 -c '
import ast, sys
for f in sys.stdin.read().split():
    try:
        body = ast.parse(open(f, encoding="utf-8").read(), f).body
    except (OSError, SyntaxError, ValueError):
        continue  # not ours to parse here: pytest and the build report those
    first = {}
    for n in body:
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if n.name in first:
                print(f"  {f}:{n.lineno}: {n.name} (first at line {first[n.name]})")
            first.setdefault(n.name, n.lineno)
')
if [ -n "$twice" ]; then
  echo "lint: module-level names defined twice (the second replaces the first):"
  echo "$twice"; fail=1
fi

[ $fail -eq 0 ] && echo "lint: ok"
exit $fail
