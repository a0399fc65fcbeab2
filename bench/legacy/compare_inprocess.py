#!/usr/bin/env python3
"""Times candidates two ways in one run: cuco's supervisor (cuco eval) and the legacy in-process harness.

Issue 15 asks that the supervisor's median (window minus its calibrated overhead) stay within 2% of the
median the old in-process harness measured, or that the difference be explained. The legacy harness
(bench/legacy/inprocess_harness_main.cu) is built here with exactly the flags cuco used for the same
candidate (read from the build log in cuco's compile cache), run on the same bench sizes, and the two are
alternated (supervisor, legacy, supervisor, legacy, ...) so that drift hits both alike.

Usage (repo root, on a GPU machine):
  bench/legacy/compare_inprocess.py --cuco .carry/cuco --out DIR [--rounds 2] [--world-size 1]
      WORKLOAD:CANDIDATE[:NAME[:N=V,N=V...]]
CANDIDATE "seed" means the workload's seed; N=V are bench sizes for that entry (cuco eval --size). Writes DIR/compare.json and a table on stdout.
"""
import argparse
import glob
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)


def cuco_eval(cuco, workload, cand, run_dir, world, sizes):
    cmd = [cuco, "eval", workload, cand, "--world-size", str(world), "--run-dir", run_dir, "--json"]
    for s in sizes:
        cmd += ["--size", s]
    p = run(cmd)
    try:
        rec = json.loads(p.stdout[p.stdout.index("{"):]) if p.stdout.strip().startswith("{") else None
    except ValueError:
        rec = None
    if rec is None:
        m = re.search(r"(\{.*\})\s*$", p.stdout, re.S)
        rec = json.loads(m.group(1)) if m else None
    if isinstance(rec, dict) and "records" in rec:
        rec = rec["records"][0]
    if isinstance(rec, list):
        rec = rec[0]
    return rec, p.stdout


def build_log(cache, code_path):
    """The build.log of the cache entry whose candidate source equals code_path's text."""
    text = open(code_path).read()
    for d in glob.glob(os.path.join(cache, "cand-*")):
        for ext in (".cu", ".cc"):
            p = os.path.join(d, "candidate" + ext)
            if os.path.exists(p) and open(p).read() == text:
                return os.path.join(d, "build.log"), d
    return None, None


def legacy_build(log_path, workload, cand, out_dir):
    """Rebuilds cand with the legacy in-process harness, from the commands cuco logged."""
    cmds = [shlex.split(l[2:]) for l in open(log_path).read().splitlines() if l.startswith("$ ")]
    compile_cmd = next(c for c in cmds if "-c" in c and c[c.index("-c") + 1].endswith("candidate.cu"))
    link_cmd = next(c for c in cmds if "-o" in c and c[c.index("-o") + 1].endswith("/candidate"))
    base = compile_cmd[:compile_cmd.index("-c")]
    os.makedirs(out_dir, exist_ok=True)
    srcs = {
        "harness": os.path.join(ROOT, "bench/legacy/inprocess_harness_main.cu"),
        "reference": os.path.join(workload, "reference.cu"),
        "candidate": cand,
        "rank_context": os.path.join(ROOT, "runtime/src/candidate/rank_context.cu"),
        "driver_api": os.path.join(ROOT, "runtime/src/common/driver_api.cu"),
    }
    extra = [o for o in link_cmd if o.endswith(".o") and "cudnn_sdpa" in o]
    if extra:
        srcs["cudnn_sdpa"] = os.path.join(ROOT, "runtime/src/cudnn_sdpa.cu")
    objs = []
    for name, src in srcs.items():
        obj = os.path.join(out_dir, name + ".o")
        p = run(base + ["-I" + os.path.join(ROOT, "runtime/src"), "-c", src, "-o", obj])
        if p.returncode != 0:
            raise RuntimeError("legacy compile of %s failed:\n%s" % (src, p.stdout[-3000:]))
        objs.append(obj)
    exe = os.path.join(out_dir, "legacy_harness")
    i = link_cmd.index("-o")
    flags = [x for x in link_cmd[1:] if not x.endswith(".o") and x != "-o" and x != link_cmd[i + 1]]
    gencode = [x for x in flags if x.startswith("-gencode")]
    rest = [x for x in flags if not x.startswith("-gencode")]
    p = run([link_cmd[0]] + gencode + objs + ["-o", exe] + rest)
    if p.returncode != 0:
        raise RuntimeError("legacy link failed:\n" + p.stdout[-3000:])
    return exe


def legacy_run(exe, metrics_dir, sizes, warmup, iters):
    os.makedirs(metrics_dir, exist_ok=True)
    env = dict(os.environ, CUCO_RANK="0", CUCO_WORLD_SIZE="1", CUCO_LOCAL_RANK="0", CUCO_LOCAL_WORLD_SIZE="1",
               CUCO_RENDEZVOUS_DIR=metrics_dir, CUCO_RUN_NONCE="legacy")
    cmd = [exe, "--stage", "bench", "--metrics-dir", metrics_dir, "--warmup", str(warmup), "--iters", str(iters)]
    for k, v in sizes.items():
        cmd += ["--size", "%s=%s" % (k, v)]
    p = run(cmd, env=env)
    m = json.load(open(os.path.join(metrics_dir, "rank0.json")))
    if m.get("error"):
        raise RuntimeError("legacy harness: " + str(m["error"]))
    return m["timing"]["median_ms"], m


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cuco", default="build/src/cli/cuco")
    ap.add_argument("--out", required=True)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--world-size", type=int, default=1)
    ap.add_argument("--size", action="append", default=[])
    ap.add_argument("entries", nargs="+")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    cache = os.environ.get("CUCO_CACHE_DIR", os.path.expanduser("~/.cache/cuco"))
    rows = []
    for entry in a.entries:
        parts = entry.split(":")
        workload, cand = parts[0], parts[1]
        name = parts[2] if len(parts) > 2 else os.path.basename(cand)
        entry_sizes = [x for x in parts[3].split(",") if x] if len(parts) > 3 else []
        if cand == "seed":
            cand = os.path.join(workload, "seed.cu")
        row = {"workload": os.path.basename(workload.rstrip("/")), "candidate": name, "supervisor_ms": [],
               "legacy_ms": [], "overhead_ms": [], "method": None, "error": None}
        try:
            exe = None
            for r in range(a.rounds):
                rec, out = cuco_eval(a.cuco, workload, cand, os.path.join(a.out, "runs", row["workload"], name, str(r)),
                                     a.world_size, a.size + entry_sizes)
                if not rec or rec.get("status") != "ok":
                    raise RuntimeError("cuco eval: %s" % (rec.get("reason") if rec else out[-2000:]))
                row["supervisor_ms"].append(rec["timing"]["median_ms"])
                m0 = rec["rank_metrics"][-1] if rec.get("rank_metrics") else {}
                t = (m0.get("timing") or {})
                row["overhead_ms"].append(t.get("overhead_ms"))
                row["method"] = t.get("method")
                if exe is None:
                    log, _ = build_log(cache, cand)
                    if log is None:
                        raise RuntimeError("no build log for the candidate in " + cache)
                    exe = legacy_build(log, workload, cand, os.path.join(a.out, "legacy", row["workload"], name))
                    sizes = m0.get("sizes", {})
                    settings = m0.get("settings", {})
                ms, _ = legacy_run(exe, os.path.join(a.out, "legacy", row["workload"], name, "m%d" % r), sizes,
                                   settings.get("warmup", 5), settings.get("iters", 20))
                row["legacy_ms"].append(ms)
        except Exception as e:  # noqa: BLE001 - the table records what failed
            row["error"] = str(e)[-1500:]
        if row["supervisor_ms"] and row["legacy_ms"]:
            s, l = statistics.median(row["supervisor_ms"]), statistics.median(row["legacy_ms"])
            row["supervisor_median_ms"], row["legacy_median_ms"] = s, l
            row["ratio"] = s / l
        rows.append(row)
        print(json.dumps(row), flush=True)
    json.dump({"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "rows": rows},
              open(os.path.join(a.out, "compare.json"), "w"), indent=1)
    print("\n| workload | candidate | supervisor ms | in-process ms | ratio | overhead ms |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        if "ratio" in r:
            print("| %s | %s | %.4f | %.4f | %.3f | %s |" % (r["workload"], r["candidate"], r["supervisor_median_ms"],
                                                            r["legacy_median_ms"], r["ratio"], r["overhead_ms"]))
        else:
            print("| %s | %s | error: %s |" % (r["workload"], r["candidate"], (r["error"] or "")[:200]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
