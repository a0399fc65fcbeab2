#!/usr/bin/env python3
"""The table of bench/one-gpu/chunks-knob.sh: per program and knob setting (the candidate file
chunks-<backend>-<n>[-sms<k>][-gather].cu: the gather knob on), the verdict, the harness's median time and the speed-up over
nccl, 1 chunk (generation 0 at the program's own behaviour).
Usage: chunks_table.py DIR (holding <program>.json, each the records of one `cuco eval --json`)."""
import glob
import json
import os
import re
import sys


def records(path):
    text, out, at = open(path).read(), [], 0
    dec = json.JSONDecoder()
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at >= len(text):
            return out
        try:
            obj, at = dec.raw_decode(text, at)
        except json.JSONDecodeError:
            return out
        out.extend(obj if isinstance(obj, list) else [obj])


def median_ms(r):
    t = r.get("timing", {}).get("median_ms")  # the harness's: max over ranks of each rank's median
    return t if isinstance(t, (int, float)) and t > 0 else None


def spread(r):
    t = r.get("timing", {})
    return f"p10 {t['p10_ms']:.4f}, p90 {t['p90_ms']:.4f}" if "p10_ms" in t and "p90_ms" in t else ""


d = sys.argv[1]
print("| program | setting (backend, chunks, comm_sms[, gather on]) | verdict | median ms (max over ranks) | p10, p90 | vs nccl, 1 |")
print("|---|---|---|---|---|---|")
for path in sorted(glob.glob(f"{d}/*.json")):
    name = os.path.basename(path)[:-5]
    rows = []
    for r in records(path):
        m = re.search(r"chunks-([a-z]+)-(\d+)(?:-sms(\d+))?(-gather)?\.cu$", r.get("candidate", ""))
        if m:
            rows.append((m.group(1), int(m.group(2)), int(m.group(3) or 0), bool(m.group(4)), r))
    base = next((median_ms(r) for b, n, k, g, r in rows if b == "nccl" and n == 1 and not g and r.get("status") == "ok"), None)
    for b, n, k, g, r in sorted(rows, key=lambda x: (x[0] != "nccl", x[1], x[2], x[3])):
        ms = median_ms(r) if r.get("status") == "ok" else None
        verdict = r.get("status", "?") if r.get("status") == "ok" else f"{r.get('status')}: {r.get('reason', '')[:120]}"
        speed = f"{base / ms:.2f}x" if base and ms else ""
        print(f"| {name} | {b}, {n}, {k}{', gather on' if g else ''} | {verdict} | {f'{ms:.4f}' if ms else ''} | {spread(r)} | {speed} |")
