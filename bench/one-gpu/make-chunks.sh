#!/usr/bin/env bash
# The candidates of bench/one-gpu/chunks-knob.sh, made here (the GPU machines have no libclang for
# `cuco init`, and `cuco transform` needs no GPU to write generation 0): per corpus program whose
# generation 0 has the chunks knob, <DEST>/<name>/ holds the harness `cuco init` made
# (bench/one-gpu/make-premade.sh's), gen0_transformed.cu, and generation 0 at other knob settings:
# chunks-<backend>-<n>.cu for chunks n of 1, 2, 4, 8 with backend nccl, and n of 1, 4 with lsa and,
# where generation 0 offers it (the program reduces), with ce (BACKENDS: another list of backends);
# where generation 0 has the gather knob, each of them with it on too (chunks-<backend>-<n>-gather.cu).
# ONLY="a b": those programs only. (Call 14's comm_sms settings: this script at dc86639.)
# PREMADE may be any folder of <name>/harness: .carry/ext (bench/ext_programs.py's, programs written
# elsewhere) or .carry/probes (tests/probes/probe_check.py --keep's) too.
# Usage (repo root, after make-premade.sh): bash bench/one-gpu/make-chunks.sh [PREMADE] [DEST]
set -eu
PREMADE=$(realpath "${1:-.carry/hwl-knobs}")
DEST=$(realpath -m "${2:-.carry/chunks}")
CUCO=${CUCO:-$PWD/build/src/cli/cuco}
rm -rf "$DEST" && mkdir -p "$DEST"
for wl0 in "$PREMADE"/*/harness; do
  name=$(basename "$(dirname "$wl0")")
  [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $name "* ]] && continue
  wl=$DEST/$name
  cp -r "$wl0" "$wl"
  "$CUCO" transform "$wl" --run-dir "/tmp/make-chunks-$name" >"$wl/transform.out" 2>&1 || true
  gather=$(grep -c 'cuco:knob gather' "$wl/gen0_transformed.cu" 2>/dev/null || true)  # grep -c exits 1 on none
  if ! grep -q 'cuco:knob chunks' "$wl/gen0_transformed.cu" 2>/dev/null && [ "${gather:-0}" = 0 ]; then
    echo "$name: no chunks or gather knob"; rm -rf "$wl"; continue
  fi
  for backend in ${BACKENDS:-nccl lsa ce}; do
    [ "$backend" = ce ] && ! grep -q '"ce")' "$wl/transform.out" && continue
    for n in 1 2 4 8; do
      [ "$backend" != nccl ] && [ "$n" != 1 ] && [ "$n" != 4 ] && continue
      sed -e "s/kCucoChunks = \"1\";/kCucoChunks = \"$n\";/" -e "s/kCucoBackend = \"nccl\";/kCucoBackend = \"$backend\";/" \
        "$wl/gen0_transformed.cu" >"$wl/chunks-$backend-$n.cu"
      # The gather knob on (where generation 0 has it): chunks-<backend>-<n>-gather.cu.
      [ "${gather:-0}" != 0 ] && sed -e 's/kCucoGather = "off";/kCucoGather = "on";/' "$wl/chunks-$backend-$n.cu" \
        >"$wl/chunks-$backend-$n-gather.cu"
    done
  done
  echo "$name: $(ls "$wl"/chunks-*.cu | wc -l) settings"
done
