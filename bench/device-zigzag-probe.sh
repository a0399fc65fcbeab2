#!/usr/bin/env bash
# Issue 29: why attention_cp's zigzag_ce (balanced) is slower than its own parts. Benches, at
# WORLD (default 4), zigzag over NCCL, zigzag_ce (wait_value), and zigzag_ce's parts taken apart:
# its attention alone reading K/V from the symmetric slots (part = compute, backend = ce), its
# moves alone (part = comm, backend = ce), zigzag_ce with spin waits, and with the order and piece
# knobs (zig_first, zig_pieces) changed. The entries are added as
# [[variants]] to a copy of the workload under /tmp (the repo's workload.toml is not touched).
# Results: $OUT/zigzag-probe.txt (the bench table) and $OUT/zigzag-probe.json (every rank's median).
# Usage (repo root on the GPU machine, .carry/ as in bench/one-gpu/README.md):
#   WORLD=4 bash bench/device-zigzag-probe.sh
#   WORLD=2 ENTRIES="zigzag_ce zz_ce_pieces4" bash bench/device-zigzag-probe.sh   (a subset)
set -u
OUT=${OUT:-/tmp/cuco-zigzag-probe}
WORLD=${WORLD:-4}
mkdir -p "$OUT"
export PATH=$PWD/.carry/bin:$PATH NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export CUCO_CACHE_DIR=${CUCO_CACHE_DIR:-/tmp/cuco-cache}
[ -d .carry/lib ] && export LD_LIBRARY_PATH=$PWD/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
[ -d .carry/cudnn-fe/include ] && export CUCO_CUDNN_FRONTEND_INCLUDE=$PWD/.carry/cudnn-fe/include
WL=/tmp/attention_cp-zigzag-probe
rm -rf "$WL" && cp -r workloads/attention_cp "$WL"
cat >>"$WL/workload.toml" <<'TOML'

[[variants]]
name = "zz_ce_compute"
description = "probe: zigzag_ce's attention alone, K/V read from the symmetric slots"
knobs = { part = "compute", strategy = "zigzag", backend = "ce", wait_mode = "wait_value" }
part = "compute"

[[variants]]
name = "zz_ce_comm"
description = "probe: zigzag_ce's moves and waits alone"
knobs = { part = "comm", strategy = "zigzag", backend = "ce", wait_mode = "wait_value" }
part = "comm"

[[variants]]
name = "zz_ce_spin"
description = "probe: zigzag_ce with flags released and awaited by one-thread kernels (wait_mode spin)"
knobs = { strategy = "zigzag", backend = "ce", wait_mode = "spin" }

[[variants]]
name = "zz_ce_held_first"
description = "probe: zigzag_ce, a rank's held chunk before its foreign one (zig_first = held)"
knobs = { strategy = "zigzag", backend = "ce", wait_mode = "wait_value", zig_first = "held" }

[[variants]]
name = "zz_ce_pieces2"
description = "probe: zigzag_ce, a foreign chunk in 2 query pieces, each pushed home once done"
knobs = { strategy = "zigzag", backend = "ce", wait_mode = "wait_value", zig_pieces = 2 }

[[variants]]
name = "zz_ce_pieces4"
description = "probe: zigzag_ce, a foreign chunk in 4 query pieces, each pushed home once done"
knobs = { strategy = "zigzag", backend = "ce", wait_mode = "wait_value", zig_pieces = 4 }

[[variants]]
name = "zz_ce_held_pieces4"
description = "probe: zigzag_ce, held chunk first and a foreign chunk in 4 pieces"
knobs = { strategy = "zigzag", backend = "ce", wait_mode = "wait_value", zig_first = "held", zig_pieces = 4 }
TOML
${CUCO:-.carry/cuco} bench "$WL" --world-size "$WORLD" --no-peers --parallel-compiles 8 \
  --only ${ENTRIES:-zigzag zigzag_ce compute_alone zz_ce_compute zz_ce_comm zz_ce_spin zz_ce_held_first zz_ce_pieces2 zz_ce_pieces4 zz_ce_held_pieces4} \
  --run-dir /tmp/zigzag-probe-run --json "$OUT/zigzag-probe.json" >"$OUT/zigzag-probe.txt" 2>"$OUT/zigzag-probe.err"
echo "exit $?" >>"$OUT/zigzag-probe.txt"
python3 - "$OUT/zigzag-probe.json" >>"$OUT/zigzag-probe.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("\nrank medians (ms):")
for e in d["entries"]:
    t = (e.get("record") or {}).get("timing") or {}
    print(f"  {e['name']:<20} {t.get('rank_median_ms')}")
PY
cat "$OUT/zigzag-probe.txt"
