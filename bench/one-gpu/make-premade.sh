#!/usr/bin/env bash
# The workloads `cuco init` makes of the corpus programs (tests/programs/), made here, where libclang
# is (the GPU machines have none), for the device scripts' PREMADE: <DEST>/<name>/ and
# <DEST>/<name>.init.txt per program. Each program is initialised from its own folder with its
# program.toml build line after `--`, as a user would.
# Usage (repo root, after scripts/build.sh): bash bench/one-gpu/make-premade.sh [DEST] (default .carry/hwl-knobs)
set -eu
DEST=$(realpath -m "${1:-.carry/hwl-knobs}")
CUCO=${CUCO:-$PWD/build/src/cli/cuco}
rm -rf "$DEST" && mkdir -p "$DEST"
for toml in tests/programs/*/program.toml; do
  dir=$(dirname "$toml"); name=$(basename "$dir")
  IFS='|' read -r mains build < <(python3 - "$toml" <<'PY'
import sys, tomllib
t = tomllib.load(open(sys.argv[1], "rb"))
print(" ".join(s for s in t["sources"] if s.endswith((".cu", ".cc", ".cpp"))), "|", t["build"])
PY
)
  # shellcheck disable=SC2086  # the sources and the build line are word lists
  (cd "$dir" && "$CUCO" init $mains --out "$DEST/$name" -- $build) >"$DEST/$name.init.txt" 2>&1 || true
  echo "$name: $(grep -c 'harness mode (trusted)' "$DEST/$name.init.txt" >/dev/null && echo harness || echo skeleton)"
done
