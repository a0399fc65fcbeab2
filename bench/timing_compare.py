#!/usr/bin/env python3
"""cuco's default timing (the supervisor, under cuco's own MPS daemon) against an in-process reference.

Reads a `cuco bench --json` file and, for its seed, its fastest ok variant and its bound parts, builds
the same candidate with the legacy in-process harness (bench/legacy/inprocess_harness_main.cu: the
candidate linked into the process that times it, one process per rank, one CUDA context per GPU, no
MPS, nothing time-sliced) from the commands cuco logged in its compile cache, runs it ROUNDS times on
the bench sizes (parts with --timing-only), and prints one markdown row per entry:

  | W | workload | entry | kind | cuco ms | in-process ms | ratio | cuco's timing method |

ratio = cuco / in-process (issue 28's goal: within 3%). The in-process figure is the median over
rounds of the max over ranks of each rank's median; cuco's is the bench record's. Writes
OUT/compare-<workload>-w<W>.json. The legacy harness is a reference for timing only: a candidate in
its process could forge anything; cuco never judges with it.

Usage (repo root, on the GPU machine, after `cuco bench ... --json FILE`):
  bench/timing_compare.py --bench-json FILE --world W --out DIR [--rounds 2] [--cache DIR]
CI compiles the legacy harness with the flags cuco logged for a candidate it built (no GPU needed;
tests/cuda_compile_test.sh blocks), so that a change of the supervisor's kernels cannot break it unseen:
  bench/timing_compare.py --compile-check CANDIDATE --out DIR [--cache DIR]
"""
import argparse
import concurrent.futures
import glob
import json
import os
import shlex
import statistics
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)


def build_log(cache, code_path):
    """cuco's build.log and folder for the cache entry whose candidate source is code_path's text."""
    text = open(code_path).read()
    for d in glob.glob(os.path.join(cache, "cand-*")):
        p = os.path.join(d, "candidate.cu")
        if os.path.exists(p) and open(p).read() == text:
            return os.path.join(d, "build.log")
    return None


def logged_commands(log_path):
    cmds = [shlex.split(l[2:]) for l in open(log_path).read().splitlines() if l.startswith("$ ")]
    compile_cmd = next(c for c in cmds if "-c" in c and c[c.index("-c") + 1].endswith("candidate.cu"))
    link_cmd = next(c for c in cmds if "-o" in c and c[c.index("-o") + 1].endswith("/candidate"))
    return compile_cmd[:compile_cmd.index("-c")], link_cmd


_locks = {}
_locks_mu = threading.Lock()


def compile_one(base, src, obj):
    with _locks_mu:
        lock = _locks.setdefault(obj, threading.Lock())
    with lock:  # entries of one workload share the harness, reference and runtime objects
        if os.path.exists(obj):
            return obj
        p = run(base + ["-I" + os.path.join(ROOT, "runtime/src"), "-c", src, "-o", obj + ".tmp"])
        if p.returncode != 0:
            raise RuntimeError("legacy compile of %s failed:\n%s" % (src, p.stdout[-3000:]))
        os.replace(obj + ".tmp", obj)
        return obj


def legacy_build(log_path, workload, cand, shared_dir, out_dir):
    """The candidate with the legacy harness; the harness, reference and runtime objects are shared
    by a workload's entries (same flags)."""
    base, link_cmd = logged_commands(log_path)
    os.makedirs(shared_dir, exist_ok=True)
    os.makedirs(out_dir, exist_ok=True)
    srcs = [("harness", os.path.join(ROOT, "bench/legacy/inprocess_harness_main.cu"), shared_dir),
            ("reference", os.path.join(workload, "reference.cu"), shared_dir),
            ("rank_context", os.path.join(ROOT, "runtime/src/candidate/rank_context.cu"), shared_dir),
            ("driver_api", os.path.join(ROOT, "runtime/src/common/driver_api.cu"), shared_dir),
            ("candidate", cand, out_dir)]
    if any(o.endswith(".o") and "cudnn_sdpa" in o for o in link_cmd):
        srcs.append(("cudnn_sdpa", os.path.join(ROOT, "runtime/src/cudnn_sdpa.cu"), shared_dir))
    objs = [compile_one(base, src, os.path.join(d, name + ".o")) for name, src, d in srcs]
    exe = os.path.join(out_dir, "legacy_harness")
    i = link_cmd.index("-o")
    flags = [x for x in link_cmd[1:] if not x.endswith(".o") and x != "-o" and x != link_cmd[i + 1]]
    gencode = [x for x in flags if x.startswith("-gencode")]
    rest = [x for x in flags if not x.startswith("-gencode")]
    p = run([link_cmd[0]] + gencode + objs + ["-o", exe] + rest)
    if p.returncode != 0:
        raise RuntimeError("legacy link failed:\n" + p.stdout[-3000:])
    return exe


def legacy_run(exe, metrics_dir, sizes, warmup, iters, world, timing_only, timeout_s=300):
    """One run on `world` ranks, each its own process (CUDA_VISIBLE_DEVICES as given to this script,
    rank r on device r), never an MPS client. The max over ranks of each rank's median."""
    os.makedirs(metrics_dir, exist_ok=True)
    rdv = os.path.join(metrics_dir, "rendezvous")
    os.makedirs(rdv, exist_ok=True)
    cmd = [exe, "--stage", "bench", "--metrics-dir", metrics_dir, "--warmup", str(warmup), "--iters", str(iters)]
    for k, v in sizes.items():
        cmd += ["--size", "%s=%s" % (k, v)]
    if timing_only:
        cmd.append("--timing-only")
    procs = []
    for r in range(world):
        env = dict(os.environ, CUCO_RANK=str(r), CUCO_WORLD_SIZE=str(world), CUCO_LOCAL_RANK=str(r),
                   CUCO_LOCAL_WORLD_SIZE=str(world), CUCO_RENDEZVOUS_DIR=rdv, CUCO_RUN_NONCE="legacy",
                   CUDA_MPS_PIPE_DIRECTORY="/dev/null/no-mps", NCCL_NVLS_ENABLE="0", NVSHMEM_DISABLE_NVLS="1")
        log = open(os.path.join(metrics_dir, "rank%d.log" % r), "w")
        procs.append((subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT), log))
    t0 = time.time()
    for p, log in procs:
        try:
            p.wait(timeout=max(1, timeout_s - (time.time() - t0)))
        except subprocess.TimeoutExpired:
            for q, _ in procs:
                q.kill()
            raise RuntimeError("legacy harness timed out after %d s" % timeout_s)
        finally:
            log.close()
    medians = []
    for r in range(world):
        m = json.load(open(os.path.join(metrics_dir, "rank%d.json" % r)))
        if m.get("error"):
            raise RuntimeError("legacy harness rank %d: %s" % (r, m["error"]))
        medians.append(m["timing"]["median_ms"])
    return max(medians)


def pick(entries):
    """The seed, the fastest ok variant and the parts, each (entry, record)."""
    out, best = [], None
    for e in entries:
        rec = e.get("record") or {}
        ms = (rec.get("timing") or {}).get("median_ms")
        if e["kind"] == "seed" and rec.get("status") == "ok":
            out.append(e)
        elif e["kind"] == "variant" and rec.get("status") == "ok" and ms:
            if best is None or ms < best["record"]["timing"]["median_ms"]:
                best = e
        elif e["kind"] == "part" and rec.get("status") == "timed":
            out.append(e)
    if best is not None:
        best = dict(best, kind="best variant")
        out.insert(1 if out and out[0]["kind"] == "seed" else 0, best)
    return out


def compare_entry(e, workload, world, cache, out, rounds):
    rec = e["record"]
    row = {"entry": e["name"], "kind": e["kind"], "cuco_ms": rec["timing"]["median_ms"],
           "method": rec.get("timing_method") or (rec.get("timing") or {}).get("method"), "legacy_ms": [],
           "error": None}
    try:
        cand = e["file"]
        log = build_log(cache, cand)
        if log is None:
            raise RuntimeError("no build log for %s in %s" % (cand, cache))
        name = os.path.basename(workload.rstrip("/"))
        exe = legacy_build(log, workload, cand, os.path.join(out, "legacy", name, "w%d-shared" % world),
                           os.path.join(out, "legacy", name, "w%d-%s" % (world, e["name"])))
        m0 = (rec.get("rank_metrics") or [{}])[0]
        settings = m0.get("settings", {})
        row["exe"] = exe
        row["sizes"] = m0.get("sizes", {})
        row["settings"] = {"warmup": settings.get("warmup", 5), "iters": settings.get("iters", 20)}
        row["timing_only"] = e["kind"] == "part"
    except Exception as ex:  # noqa: BLE001 - the table says what failed
        row["error"] = str(ex)[-1500:]
    return row


def compile_check(cand, cache, out):
    """The legacy harness's object, compiled as cuco compiled `cand` (its build log in `cache`)."""
    log = build_log(cache, cand)
    if log is None:
        sys.exit("timing_compare: no build log for %s in %s (compile it with cuco first)" % (cand, cache))
    base, _ = logged_commands(log)
    os.makedirs(out, exist_ok=True)
    try:
        compile_one(base, os.path.join(ROOT, "bench/legacy/inprocess_harness_main.cu"), os.path.join(out, "harness.o"))
    except RuntimeError as ex:
        sys.exit(str(ex))
    print("ok   bench/legacy/inprocess_harness_main.cu: compiled with the flags of %s" % cand)
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench-json")
    ap.add_argument("--compile-check", metavar="CANDIDATE")
    ap.add_argument("--world", type=int)
    ap.add_argument("--out", required=True)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--cache", default=os.environ.get("CUCO_CACHE_DIR", os.path.expanduser("~/.cache/cuco")))
    a = ap.parse_args()
    if a.compile_check:
        return compile_check(os.path.abspath(a.compile_check), a.cache, a.out)
    if not a.bench_json or not a.world:
        ap.error("--bench-json and --world are required (or --compile-check)")
    doc = json.load(open(a.bench_json))
    workload = doc["workload_dir"]
    name = doc["workload"]
    entries = pick(doc.get("entries", []))
    # Builds in parallel (nvcc), runs one after another (timings never overlap).
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        rows = list(pool.map(lambda e: compare_entry(e, workload, a.world, a.cache, a.out, a.rounds), entries))
    for row in rows:
        if row["error"]:
            continue
        for r in range(a.rounds):
            try:
                row["legacy_ms"].append(legacy_run(row["exe"], os.path.join(a.out, "legacy", name, "w%d-%s" % (a.world, row["entry"]), "m%d" % r),
                                                   row["sizes"], row["settings"]["warmup"], row["settings"]["iters"], a.world,
                                                   row["timing_only"]))
            except Exception as ex:  # noqa: BLE001
                row["error"] = str(ex)[-1500:]
                break
        if row["legacy_ms"]:
            row["legacy_median_ms"] = statistics.median(row["legacy_ms"])
            row["ratio"] = row["cuco_ms"] / row["legacy_median_ms"]
    json.dump({"workload": name, "world": a.world, "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
               "rows": rows}, open(os.path.join(a.out, "compare-%s-w%d.json" % (name, a.world)), "w"), indent=1)
    for r in rows:
        method = "MPS" if (r["method"] or "").startswith("MPS") else (r["method"] or "?")
        if "ratio" in r:
            flag = "" if abs(r["ratio"] - 1) <= 0.03 else "  <-- off by more than 3%"
            print("| %d | %s | %s | %s | %.4f | %.4f | %.3f | %s |%s" % (a.world, name, r["entry"], r["kind"], r["cuco_ms"],
                                                                     r["legacy_median_ms"], r["ratio"], method, flag))
        else:
            print("| %d | %s | %s | %s | %.4f | error: %s | - | %s |" % (a.world, name, r["entry"], r["kind"], r["cuco_ms"],
                                                                       (r["error"] or "")[:300].replace("\n", " "), method))
    return 0


if __name__ == "__main__":
    sys.exit(main())
