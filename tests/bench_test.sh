#!/usr/bin/env bash
# End-to-end test of `cuco bench` without a GPU: on the CPU test workload the seed, its
# [[variants]] (two knob variants, two bound parts run timing-only), candidates and a stand-in peer
# are run and tabled, and the JSON and the store hold every record; on a CUDA workload every entry
# is compiled (L1) only and the command says that no GPU was found.
# Usage: tests/bench_test.sh <path-to-cuco>
set -u
CUCO=$1
SRC=$(cd "$(dirname "$0")/.." && pwd)
WL=$SRC/tests/workloads/cpu_matmul
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export CUCO_CACHE_DIR=${CUCO_CACHE_DIR:-$T/cache}  # ctest: the build folder's test-cache, shared by every test
fails=0
check() {  # check NAME CONDITION...
  local name=$1; shift
  if "$@"; then echo "ok   $name"; else echo "FAIL $name"; fails=$((fails + 1)); fi
}

# 1. seed + variants + parts + a candidate; no peer script for this workload in bench/peers.
"$CUCO" bench "$WL" "$WL/candidates/fast.cc" --run-dir "$T/run" --json "$T/bench.json" --label ci \
  >"$T/bench.out" 2>"$T/bench.err"
check "bench exits 0" test $? -eq 0
check "table marks the parts unverified" grep -q "compute_alone  *part  *unverified (bound part)" "$T/bench.out"
check "table shows the bound" grep -q "^overlap bound (fastest parts of every implementation timed): [0-9.]* ms = max(compute alone" "$T/bench.out"
check "table shows cuco's own bound" grep -q "^  cuco's own parts: [0-9.]* ms = max(compute alone" "$T/bench.out"
check "table shows the parts' rates" grep -q "compute_alone  *part  *unverified (bound part) .* [0-9.e+-]* TFLOP/s\b" "$T/bench.out"
check "table states the rates' formulas" grep -q "^achieved = per rank: compute 2 \* M / W \* N \* K FLOP, communication M / W \* N \* 4 bytes" "$T/bench.out"
check "the timing line says how many iterations were timed" python3 - "$T/bench.json" "$T/bench.out" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
iters = [e["record"]["timing"]["iters"] for e in d["entries"]]
m = re.search(r"^timing: cuco: .*, median of (\d+)(?:-(\d+))? timed iterations \(each entry's loop sized after its 2 "
              r"warm-up to fill 0.5 s\), max over ranks", open(sys.argv[2]).read(), re.M)
assert m, "no timing line"
assert (int(m.group(1)), int(m.group(2) or m.group(1))) == (min(iters), max(iters)), (m.group(0), iters)
PY
check "JSON written in the run folder too" cmp -s "$T/bench.json" "$T/run/bench.json"
check "JSON holds every entry, the bound and the machine" python3 - "$T/bench.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
got = [(e["name"], e["kind"], e["record"]["status"]) for e in d["entries"]]
want = [("seed", "seed", "ok"), ("ikj", "variant", "ok"), ("ikj_unroll4", "variant", "ok"),
        ("compute_alone", "part", "timed"), ("comm_alone", "part", "timed"), ("fast.cc", "candidate", "ok")]
assert got == want, got
assert d["schema"] == "cuco-bench/2" and d["workload"] == "cpu_matmul" and d["world_size"] == 2 and d["label"] == "ci"
for k in ["date_utc", "hostname", "command_line", "devices", "gpu_count", "versions", "cuco_commit", "exit_code"]:
    assert k in d, k
assert "cuco bench" in d["command_line"] and "--label ci" in d["command_line"], d["command_line"]
# Parts: bench stage only, timing only, never verified; the harness said "checked": false.
for e in d["entries"][3:5]:
    r = e["record"]
    assert r["timing_only"] and not r["verified"] and r["status_text"] == "unverified (bound part)", r
    assert [(s["stage"], s["status"]) for s in r["stages"]] == [("scan", "ok"), ("compile", "ok"), ("verify", "skipped"), ("bench", "timed")], r["stages"]
    assert all(m["checked"] is False and m["checks"] == [] for m in r["rank_metrics"])
    assert r["timing"]["median_ms"] > 0
for e in d["entries"][:3] + d["entries"][5:]:
    assert e["record"]["verified"] and all(m["checked"] is True for m in e["record"]["rank_metrics"]), e["name"]
assert d["entries"][1]["knobs"] == {"loop_order": "ikj"}, d["entries"][1]["knobs"]
# The table's arithmetic, from the records.
t = d["table"]
rows = {r["name"]: r for r in t["rows"]}
seed = d["entries"][0]["record"]["timing"]["median_ms"]
comp = d["entries"][3]["record"]["timing"]["median_ms"]
comm = d["entries"][4]["record"]["timing"]["median_ms"]
bound = max(comp, comm)
assert abs(t["bound"]["ms"] - bound) < 1e-12 and t["bound"]["compute_entry"] == "compute_alone", t["bound"]
assert t["bound"]["compute_kind"] == "part" and t["own_bound"] == t["bound"], (t["bound"], t["own_bound"])  # no peers
# Rates: the [work] formulas at the bench sizes (M = 8, N = 512, K = 128, W = 2) over each part's time.
assert d["work"] == {"compute_flops": "2 * M / W * N * K", "comm_bytes": "M / W * N * 4"}, d["work"]
rc, rm = rows["compute_alone"], rows["comm_alone"]
assert rc["work"] == 2 * 4 * 512 * 128 and rm["work"] == 4 * 512 * 4, (rc["work"], rm["work"])
assert rc["rate_unit"] == "TFLOP/s" and abs(rc["rate"] - rc["work"] / (comp * 1e-3) / 1e12) < 1e-9, rc
assert rm["rate_unit"] == "GB/s" and abs(rm["rate"] - rm["work"] / (comm * 1e-3) / 1e9) < 1e-9, rm
assert rc["of_peak"] is None and t["rates"]["peak"] is None  # the CPU has no entry in the peak table
assert rows["seed"]["rate"] is None
assert "cuco:" in t["timing_note"], t["timing_note"]
assert abs(t["seed"]["ms"] - seed) < 1e-12
for name in ["seed", "ikj", "ikj_unroll4", "fast.cc"]:
    r = rows[name]
    assert abs(r["speedup_vs_seed"] - seed / r["median_ms"]) < 1e-9, r
    assert abs(r["bound_over_t"] - bound / r["median_ms"]) < 1e-9, r
    if seed - bound > 1e-3 * seed:
        assert abs(r["to_bound"] - (seed - r["median_ms"]) / (seed - bound)) < 1e-9, r
    assert r["speedup_vs_best_peer"] is None
for name in ["compute_alone", "comm_alone"]:
    assert rows[name]["status_text"] == "unverified (bound part)" and rows[name]["speedup_vs_seed"] is None
# No peer for this workload in bench/peers: listed as skipped, with the reason.
assert d["peers"]["status"] == "skipped" and "no peer script cpu_matmul.py" in d["peers"]["reason"], d["peers"]
assert rows["peers"]["status"] == "skipped"
PY
check "store holds every entry, parts as timed" test \
  "$(sqlite3 "$T/run/cuco.db" "select group_concat(status) from (select status from candidates order by id)")" = "ok,ok,ok,timed,timed,ok"
check "a part is never the store's best" test \
  "$(sqlite3 "$T/run/cuco.db" "select count(*) from candidates where status = 'timed' and feedback like '%unverified (bound part)%'")" = "2"

# 2. --only, a failing candidate, and the stand-in peer (plain Python: this workload runs on the CPU).
"$CUCO" bench "$WL" "$WL/candidates/wrong.cc" --only seed,comm_alone,compute_alone,wrong.cc,peers \
  --peers-dir "$WL/peers" --run-dir "$T/run2" >"$T/bench2.out" 2>"$T/bench2.err"
check "a failing candidate exits 1" test $? -eq 1
check "a skipped peer entry is listed with its reason" grep -q "python optional library (peer): a stand-in for a peer whose library is missing" "$T/bench2.out"
check "failure listed with its reason" grep -q "wrong.cc (candidate): wrong_result: verify: rank 0: relative L2 error" "$T/bench2.out"
check "peer rows and best peer" python3 - "$T/run2/bench.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert [e["name"] for e in d["entries"]] == ["seed", "compute_alone", "comm_alone", "wrong.cc"], [e["name"] for e in d["entries"]]
rows = {r["name"]: r for r in d["table"]["rows"]}
assert d["peers"]["status"] == "ok", d["peers"]
assert rows["python sequential"]["kind"] == "peer" and rows["python sequential"]["median_ms"] > 0
assert rows["python compute alone"]["kind"] == "peer-part" and rows["python comm alone"]["kind"] == "peer-part"
assert d["table"]["best_peer"]["entry"] == "python sequential"
assert d["table"]["peer_bound"]["known"]
# The honest bound takes the fastest part of either kind and names it; cuco's own is kept apart.
b, own, peer = d["table"]["bound"], d["table"]["own_bound"], d["table"]["peer_bound"]
assert abs(b["compute_ms"] - min(own["compute_ms"], peer["compute_ms"])) < 1e-12, (b, own, peer)
assert abs(b["comm_ms"] - min(own["comm_ms"], peer["comm_ms"])) < 1e-12, (b, own, peer)
assert b["compute_kind"] in ("part", "peer-part") and b["compute_entry"] in rows, b
# The peer checked its own full entry; its optional entry that cannot run is skipped, with why.
ps = rows["python sequential"]
assert ps["peer_checked"] and ps["status_text"] == "ok (self-checked)" and ps["verified"] is False, ps
assert "checked: rel L2" in ps["detail"], ps["detail"]
opt = rows["python optional library"]
assert opt["status"] == "skipped" and "library is missing" in opt["reason"], opt
assert rows["python compute alone"]["rate_unit"] == "TFLOP/s" and rows["python comm alone"]["rate_unit"] == "GB/s"
seed = rows["seed"]
assert abs(seed["speedup_vs_best_peer"] - rows["python sequential"]["median_ms"] / seed["median_ms"]) < 1e-9
assert rows["wrong.cc"]["median_ms"] is None and rows["wrong.cc"]["speedup_vs_seed"] is None
PY
check "the timing line says how many iterations each peer entry timed" python3 - "$T/run2/bench.json" "$T/bench2.out" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
iters = [e["iters"] for e in d["peers"]["output"]["entries"] if e.get("iters")]
m = re.search(r"; peers: .*, median of (\d+)(?:-(\d+))? after \d+ warm-up", open(sys.argv[2]).read(), re.M)
assert m and iters, (m, iters)
assert (int(m.group(1)), int(m.group(2) or m.group(1))) == (min(iters), max(iters)), (m.group(0), iters)
PY

"$CUCO" bench "$WL" --only nosuch --run-dir "$T/run3" >"$T/bench3.out" 2>&1
check "unknown --only entry exits 2" test $? -eq 2
check "the message lists the entries" grep -q "no such entry (entries: peers, seed, ikj" "$T/bench3.out"

"$CUCO" bench "$WL" --only seed --no-peers --run-dir "$T/run4" >"$T/bench4.out" 2>&1
check "--no-peers" python3 -c "
import json; d=json.load(open('$T/run4/bench.json'))
assert d['peers']['reason'] == '--no-peers' and len(d['table']['rows']) == 1, d['peers']
assert 'why_unknown' in d['table']['bound'] and not d['table']['bound']['known']"

"$CUCO" bench "$WL" --only seed,peers --peers-dir "$WL/peers" --run-dir "$T/run5" >"$T/bench5.out" 2>&1
check "a peer entry that cannot run does not fail the bench" test $? -eq 0

# 3. A CUDA workload without a GPU: every entry compiled (L1), nothing run, and said so.
if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "skip CUDA workload: no nvcc on this machine"
elif nvidia-smi -L >/dev/null 2>&1; then
  echo "skip CUDA compile-only check: this machine has a GPU"
else
  "$CUCO" bench "$SRC/workloads/gemm_reducescatter" --run-dir "$T/cuda" >"$T/cuda.out" 2>"$T/cuda.err"
  check "CUDA workload without a GPU exits 0" test $? -eq 0
  check "says no GPU was found" grep -q "no GPU found on this machine: entries were compiled only" "$T/cuda.out"
  check "every entry compiled, none run, peer skipped" python3 - "$T/cuda/bench.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["no_gpu"] and len(d["entries"]) >= 1
for e in d["entries"]:
    r = e["record"]
    st = {s["stage"]: s["status"] for s in r["stages"]}
    assert r["status"] == "skipped" and "no GPU found" in r["reason"], (e["name"], r["status"], r["reason"])
    assert st.get("compile") == "ok", (e["name"], r["stages"])
    if e["kind"] == "part":
        assert "--timing-only" in [s for s in r["stages"] if s["stage"] == "bench"][0]["detail"], r["stages"]
assert d["peers"]["status"] == "skipped" and d["peers"]["reason"], d["peers"]
print("cuda entries:", [e["name"] for e in d["entries"]], "peer:", d["peers"]["reason"])
PY
fi

echo "bench_test: $fails failed"
test $fails -eq 0
