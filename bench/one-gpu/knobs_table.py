#!/usr/bin/env python3
"""The table of bench/one-gpu/programs-knobs.sh: one row per program (generation 0 accepted or why
not, the seed's time in the search, every knob setting's verdict and time, the best and its
speed-up over the seed), from each program's run.out and `cuco export --json` of its search store;
then the search's pace: candidates per minute (the last rate run.out printed) and, over the searched
candidates, the compile stage's median seconds and how many compiled only their knob values
(evaluate/runtime_knobs.h), read from the store's stages; and, where `cuco run` printed it, the
program's overlap bound beside its best (its `cuco bench` of the seed, the parts alone and the best).
Usage: knobs_table.py CUCO DIR... (DIR holds <program>.run.out and <program>-stores/run/)."""
import glob
import json
import os
import re
import sqlite3
import statistics
import subprocess
import sys


def export(cuco, store):
    if not os.path.isdir(store):
        return []
    out = subprocess.run([cuco, "export", store, "--json"], capture_output=True, text=True).stdout
    try:
        return json.loads(out)
    except json.JSONDecodeError:
        return []


def setting(c):
    """backend/graph[/chunks], then any other searched knob's value (`part` is never searched)."""
    s = f"{c['knob.backend']}/{c['knob.graph']}"
    if c.get("knob.chunks") is not None:
        s += f"/{c['knob.chunks']}"
    for k in sorted(c):
        if k.startswith("knob.") and k not in ("knob.backend", "knob.graph", "knob.chunks", "knob.part") and c[k] is not None:
            s += f"/{c[k]}"
    return s


def row(cuco, d, name):
    out = open(f"{d}/{name}.run.out").read()
    accepted = "declares its knobs" in out
    why = re.search(r"not accepted: (?:not accepted: )?([^\n]*)", out)
    g0 = "accepted" if accepted else "not accepted: " + (why.group(1)[:140] if why else "see run.out")
    cands = export(cuco, f"{d}/{name}-stores/run")
    # The program itself (no knob marks); generation 0 is the other candidate of kind "seed".
    seed = next((c for c in cands if c.get("mutation_kind") == "seed" and c.get("knob.backend") is None), None)
    settings, best = [], None
    for c in cands:
        if c.get("knob.backend") is None:
            continue
        t = f"{c['time_ms']:.4f}" if c.get("status") == "ok" and c.get("time_ms") else c.get("status", "?")
        settings.append(f"{setting(c)}: {t}")
        if c.get("status") == "ok" and c.get("time_ms") and (best is None or c["time_ms"] < best["time_ms"]):
            best = c
    seed_ms = f"{seed['time_ms']:.4f}" if seed and seed.get("time_ms") else ""
    best_cell = f"{best['time_ms']:.4f} ({setting(best)})" if best else ""
    ratio = f"{seed['time_ms'] / best['time_ms']:.2f}x" if best and seed and seed.get("time_ms") else ""
    rc = re.search(r"cuco run rc=(\d+) in (\d+) s", out)
    return (f"| {name} | {g0} | {seed_ms} | {'; '.join(settings)} | {best_cell} | {ratio} | "
            f"{rc.group(1) + ', ' + rc.group(2) + ' s' if rc else '?'} |")


def pace(d, name):
    out = open(f"{d}/{name}.run.out").read()
    rates = re.findall(r"\| ([0-9.]+)/min \|", out)
    db = f"{d}/{name}-stores/run/cuco.db"
    compiles, knob_only = [], 0
    if os.path.exists(db):
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        for (mj,) in con.execute("select metrics_json from candidates where mutation_kind != 'seed'"):
            try:
                stages = json.loads(mj).get("stages", [])
            except (json.JSONDecodeError, AttributeError):
                continue
            for st in stages:
                if st.get("stage") == "compile" and "cached build" not in st.get("detail", ""):
                    compiles.append(st.get("seconds", 0))
                    knob_only += "knob values compiled" in st.get("detail", "")
        con.close()
    med = f"{statistics.median(compiles):.1f}" if compiles else ""
    return f"| {name} | {rates[-1] if rates else ''} | {len(compiles)} | {med} | {knob_only} |"


def main():
    cuco, dirs = sys.argv[1], sys.argv[2:]
    print("| program | generation 0 | seed ms (in the search) | knob setting (backend/graph[/chunks][/other knobs]): ms or verdict | best ms | seed / best | cuco run rc, time |")
    print("|---|---|---|---|---|---|---|")
    for d in dirs:
        for p in sorted(glob.glob(f"{d}/*.run.out")):
            print(row(cuco, d, os.path.basename(p)[: -len(".run.out")]))
    # The program's overlap bound beside its best, as `cuco run` printed it after the search.
    for d in dirs:
        for p in sorted(glob.glob(f"{d}/*.run.out")):
            out = open(p).read()
            at = out.find("cuco run: the overlap bound beside the best")
            if at >= 0:
                print(f"\n{os.path.basename(p)[: -len('.run.out')]}:\n```\n{out[at:].split('cuco run rc=')[0].rstrip()}\n```")
    print()
    print("| program | candidates / min | searched candidates compiled | compile s (median) | of them, only knob values compiled |")
    print("|---|---|---|---|---|")
    for d in dirs:
        for p in sorted(glob.glob(f"{d}/*.run.out")):
            print(pace(d, os.path.basename(p)[: -len(".run.out")]))


if __name__ == "__main__":
    main()
