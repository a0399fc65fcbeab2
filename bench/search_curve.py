#!/usr/bin/env python3
"""Best-so-far against candidates, from a search's store (issue 29's curves).

    python3 bench/search_curve.py <cuco.db> [--target-ms T --target-name NAME]

Candidates are counted in the order they finished (every verdict counts, failures included;
`skipped` proposals were never evaluated and do not). A row is printed each time the best `ok`
time improves: the candidate's ordinal, seconds since the run's first candidate, its id, time,
speed-up over the seed and the knobs that differ from generation 0's. With --target-ms, the last
line says at which candidate the best reached the target (within 1%), or that it did not.
"""
import json
import sqlite3
import sys


def knobs_of(features_json):
    try:
        f = json.loads(features_json or "{}")
    except json.JSONDecodeError:
        return {}
    return f.get("knobs", f) if isinstance(f, dict) else {}


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    target, target_name = None, "target"
    if "--target-ms" in argv:
        target = float(argv[argv.index("--target-ms") + 1])
    if "--target-name" in argv:
        target_name = argv[argv.index("--target-name") + 1]
    db = sqlite3.connect(argv[1])
    rows = db.execute("select id, status, time_ms, speedup, features_json, created_ms, finished_ms, generation "
                      "from candidates where status not in ('pending', 'skipped') order by finished_ms, id").fetchall()
    if not rows:
        print(f"{argv[1]}: no evaluated candidate")
        return 1
    t0 = min(r[5] for r in rows)
    # Generation 0's knobs: its composed candidate, the generation-0 row with the most knobs (the
    # seed has none, or only its own few).
    gen0 = max((knobs_of(r[4]) for r in rows if r[7] == 0), key=len, default={})
    print("| candidates | after s | id | median ms | x seed | knobs changed from generation 0 |")
    print("|---|---|---|---|---|---|")
    best, reached = None, None
    for n, (cid, status, t, speedup, feats, _, fin, _) in enumerate(rows, 1):
        if status != "ok" or t is None or t <= 0 or (best is not None and t >= best):
            continue
        best = t
        k = knobs_of(feats)
        diff = ", ".join(f"{name} {gen0.get(name, '?')} -> {v}" for name, v in sorted(k.items()) if name in gen0 and gen0[name] != v)
        print(f"| {n} | {(fin - t0) / 1000:.0f} | #{cid} | {t:.4f} | {speedup or 0:.2f} | {diff or '-'} |")
        if target is not None and reached is None and t <= target * 1.01:
            reached = n
    print(f"\n{len(rows)} candidates evaluated; best {best:.4f} ms" if best else f"\n{len(rows)} candidates, none ok")
    if target is not None:
        if reached:
            print(f"reached {target_name} ({target:.4f} ms, within 1%) at candidate {reached}")
        else:
            print(f"did not reach {target_name} ({target:.4f} ms) in {len(rows)} candidates")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
