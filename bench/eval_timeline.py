#!/usr/bin/env python3
"""Where one evaluation's wall time goes: a markdown table per candidate of a run dir.

For each GPU stage (verify, bench) of each candidate it reads cuco's own stage seconds (the store's
record) and each rank's supervisor timeline (<stage>/metrics/rank<R>.json, runtime/METRICS.md) and
prints the intervals between the timeline's moments, slowest rank first, with the reference
checks' own seconds (check_s) apart from the iterations, and what lies outside the supervisor's
driver (cuco's preparation, the supervisor process starting and exiting).

  eval_timeline.py RUN_DIR [CANDIDATE_ID...]     (default: every candidate in RUN_DIR/cuco.db)
"""
import json
import os
import sqlite3
import sys

# (interval name, the moment it ends at); each interval starts at the moment before it.
INTERVALS = [
    ("backend set-up", "backend_ready"),
    ("device read + calibration", "calibrated"),
    ("candidate process start", "candidate_started"),
    ("candidate start-up (to hello)", "hello"),
    ("candidate set-up", "setup_done"),
    ("warm-up", "warmed_up"),
    ("iterations (checks included)", "iterations_done"),
    ("teardown", "bye"),
    ("processes ending", "candidate_ended"),
    ("after-checks", "after_checked"),
]


def rank_intervals(metrics):
    marks = {m["what"]: m["at_s"] for m in metrics.get("timeline", [])}
    out, last = {}, 0.0
    for name, moment in INTERVALS:
        if moment in marks:
            out[name] = marks[moment] - last
            last = marks[moment]
    out["(reference checks, inside iterations)"] = sum(c.get("check_s", 0) for c in metrics.get("checks", []))
    return out, last


def stage_rows(stage_dir, stage_seconds):
    mdir = os.path.join(stage_dir, "metrics")
    ranks = []
    for f in sorted(os.listdir(mdir)) if os.path.isdir(mdir) else []:
        if f.startswith("rank") and f.endswith(".json"):
            with open(os.path.join(mdir, f)) as fh:
                ranks.append(json.load(fh))
    if not ranks:
        return []
    per = [rank_intervals(r) for r in ranks]
    names = [n for n, _ in INTERVALS if any(n in p[0] for p in per)] + ["(reference checks, inside iterations)"]
    rows = [(n, [p[0].get(n) for p in per]) for n in names]
    driver = max(p[1] for p in per)
    if stage_seconds is not None:
        rows.append(("outside the driver (cuco, supervisor start/exit)", [stage_seconds - driver] * len(per)))
        rows.append(("stage, as cuco timed it", [stage_seconds] * len(per)))
    return rows


def main(argv):
    run = argv[0]
    db = sqlite3.connect(os.path.join(run, "cuco.db"))
    ids = [int(a) for a in argv[1:]] or [r[0] for r in db.execute("select id from candidates order by id")]
    for cid in ids:
        row = db.execute("select status, time_ms, metrics_json from candidates where id=?", (cid,)).fetchone()
        if row is None:
            continue
        m = json.loads(row[2] or "{}")
        stage_s = {s["stage"]: s.get("seconds") for s in m.get("stages", [])}
        if not any(k in stage_s for k in ("verify", "bench")):
            continue
        print(f"\ncandidate {cid}: {row[0]}, {row[1]} ms; "
              + ", ".join(f"{k} {v:.2f} s" for k, v in stage_s.items() if v is not None))
        for stage in ("verify", "bench"):
            rows = stage_rows(os.path.join(run, "candidates", str(cid), stage), stage_s.get(stage))
            if not rows:
                continue
            n = len(rows[0][1])
            print(f"\n| {stage}: seconds | " + " | ".join(f"rank {r}" for r in range(n)) + " |")
            print("|---|" + "---|" * n)
            for name, vals in rows:
                print(f"| {name} | " + " | ".join("-" if v is None else f"{v:.3f}" for v in vals) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
