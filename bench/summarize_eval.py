#!/usr/bin/env python3
"""Prints a markdown table of `cuco eval --json` outputs: one row per record."""
import json
import os
import sys


def records(path):
    with open(path) as f:
        data = json.load(f)
    return data if isinstance(data, list) else [data]


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def main(paths):
    print("| file | candidate | status | time ms | verify rel L2 | bench rel L2 | reason |")
    print("|---|---|---|---|---|---|---|")
    for p in paths:
        if not os.path.exists(p):
            print(f"| {os.path.basename(p)} | (missing) | | | | | |")
            continue
        for r in records(p):
            t = r.get("timing", {}).get("median_ms")
            reason = (r.get("reason") or "").replace("|", "/")[:160]
            print(f"| {os.path.basename(p)} | {os.path.basename(r['candidate'])} | {r['status']}"
                  f"{'' if r.get('trusted', True) else ' (untrusted)'} | {fmt(t, '.4f')} | "
                  f"{fmt(r['verify'].get('rel_l2'), '.3g')} | {fmt(r['bench'].get('rel_l2'), '.3g')} | {reason} |")


if __name__ == "__main__":
    main(sys.argv[1:])
