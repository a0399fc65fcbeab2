#!/usr/bin/env bash
# A program whose timed loop runs on a stream other than its first (a helper made streams before it):
# the harness's copies of its inputs (a *_copy bind's input, an inout's input into its output) are on
# ctx.stream, the loop's work on a side stream. Each workload is evaluated at W=1 twice, with the
# runtime before the fix (CUCO_RUNTIME_DIR=.carry/runtime-before: side streams wait for the
# iteration's start only) and with this tree's (IoBinder::JoinIn: they wait for the copies too).
# Expected: before, graph_late_stream and mgpm_jacobi_nccl_graphs wrong_result with candidate
# agreement mismatches (jacobi: rel_l2 ~0.06-0.1, ~2 rows); after, ok with 0 mismatches.
# Results: $OUT/late-stream.md, $OUT/late-stream.tgz (eval.json, eval.err per run).
# Needs .carry/cuco, .carry/lib, and what bench/one-gpu/make-late-stream.sh makes.
# ONLY="graph_late_stream mgpm_jacobi_nccl_graphs" (default); add mgpm_jacobi_nccl mgpm_jacobi_nccl_overlap (inout, no graph).
# Four evaluations, about 1-2 min each (EVAL_TIMEOUT, default 140 s, cuts one).
# Usage (repo root): bash bench/one-gpu/late-stream-w1.sh
set -u
OUT=${OUT:-/tmp/late-out}
D=$OUT/late-stream && mkdir -p "$D"
export PATH=$PWD/.carry/bin:$PATH NCCL_NVLS_ENABLE=0 CUCO_CACHE_DIR=/tmp/cuco-cache
CUCO=$PWD/.carry/cuco
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader >"$OUT/device.txt" 2>&1
for name in ${ONLY:-graph_late_stream mgpm_jacobi_nccl_graphs}; do
  src=.carry/late/$name; [ -d "$src" ] || src=.carry/ext/$name
  [ -f "$src/harness/reference.cu" ] || { echo "$name: no harness in $src" >>"$D/missing.txt"; continue; }
  for rt in before after; do
    wl=/tmp/late-wl/$name-$rt && rm -rf "$wl" && mkdir -p /tmp/late-wl && cp -r "$src" "$wl"
    env=() && [ $rt = before ] && env=(CUCO_RUNTIME_DIR=$PWD/.carry/runtime-before)
    start=$(date +%s)
    env "${env[@]}" LD_LIBRARY_PATH=$PWD/.carry/lib timeout "${EVAL_TIMEOUT:-140}" "$CUCO" eval "$wl/harness" --world-size 1 --json \
      --run-dir "/tmp/late-runs/$name-$rt" >"$D/$name-$rt.eval.json" 2>"$D/$name-$rt.eval.err"
    echo "$name $rt rc=$? in $(( $(date +%s) - start )) s" >>"$D/times.txt"
  done
done
python3 - "$D" >"$OUT/late-stream.md" <<'PY'
import glob, json, os, sys
print("| workload | runtime | status | rel_l2 per check | agreement mismatches | reason |\n|---|---|---|---|---|---|")
for p in sorted(glob.glob(f"{sys.argv[1]}/*.eval.json")):
    name, rt = os.path.basename(p)[:-len(".eval.json")].rsplit("-", 1)
    try:
        r = json.load(open(p)); r = r[0] if isinstance(r, list) else r
    except Exception:
        print(f"| {name} | {rt} | no record | | | |"); continue
    ranks = r.get("rank_metrics") or [{}]
    rel = " ".join(f"{c.get('kind')}:{c.get('rel_l2', 0):.3g}" for c in ranks[0].get("checks", []))
    print(f"| {name} | {rt} | {r.get('status')} | {rel} | {ranks[0].get('agreement_mismatches', '')} | {(r.get('reason') or '')[:100]} |")
PY
tar -C "$OUT" -czf "$OUT/late-stream.tgz" late-stream && rm -rf "$D"
cat "$OUT/late-stream.md"
