#!/usr/bin/env python3
"""Renders issue 29's tables (docs/performance.md) from `cuco bench` JSON files (schema cuco-bench/2).

    python3 bench/perf_table.py [--title T] FILE.json...   # markdown on stdout
    python3 bench/perf_table.py --template                 # the summary table with blanks, W = 2 and 4

For each file (one workload at one world size and size): the seed; the best verified cuco entry
(a variant or candidate: hand-written or found by the search); the best self-checked PyTorch peer;
the honest overlap bound (the fastest compute alone and communication alone over every
implementation timed, each named) and the bound of cuco's own parts; each side's parts with their
achieved rates beside the device's peak; the ratios the issue asks for. Then every part's rate,
every rank's median of the parts (a rank that waits for another shows here), and what failed or
was skipped, with why. A file that is not cuco-bench/2 JSON is named on stderr and left out.
"""

import argparse
import json
import sys


def ms(v):
    return f"{v:.3f}" if isinstance(v, (int, float)) and v > 0 else "–"


def best(rows, kinds, need_check=False):
    ok = [r for r in rows if r["kind"] in kinds and r["status"] == "ok" and r.get("median_ms")
          and (not need_check or r.get("peer_checked"))]
    return min(ok, key=lambda r: r["median_ms"]) if ok else None


def fastest_part(rows, kind, part):
    ok = [r for r in rows if r["kind"] == kind and r.get("part") == part and r.get("median_ms")
          and r["status"] in ("ok", "timed")]
    return min(ok, key=lambda r: r["median_ms"]) if ok else None


def num(v):
    """Three significant digits at least: 743, 36.2, 0.00712."""
    return f"{v:.0f}" if v >= 100 else f"{v:.1f}" if v >= 10 else f"{v:.3g}"


def rate(r):
    if not r or r.get("rate") is None:
        return ""
    peak = f", {r['of_peak'] * 100:.0f}%" if r.get("of_peak") is not None else ""
    return f" ({num(r['rate'])} {r['rate_unit']}{peak})"


def sizes_text(d):
    return " ".join(f"{k}={v}" for k, v in sorted(d["sizes"]["bench"].items()) if k != "sample_rows")


def summary_row(d):
    t, rows = d["table"], d["table"]["rows"]
    seed = t["seed"]["ms"]
    cuco = best(rows, ("variant", "candidate"))
    torch = best(rows, ("peer",), need_check=True) or best(rows, ("peer",))
    b, own = t["bound"], t["own_bound"]
    cc, cm = fastest_part(rows, "part", "compute"), fastest_part(rows, "part", "comm")
    tc, tm = fastest_part(rows, "peer-part", "compute"), fastest_part(rows, "peer-part", "comm")
    bound = (f"{ms(b['ms'])} = max({ms(b['compute_ms'])} {b['compute_entry']}, {ms(b['comm_ms'])} {b['comm_entry']})"
             if b.get("known") else "unknown")
    over = f"{cuco['median_ms'] / b['ms']:.2f}x" if cuco and b.get("known") else "–"
    vs = f"{torch['median_ms'] / cuco['median_ms']:.2f}x" if cuco and torch else "–"
    name = lambda r: f"{ms(r['median_ms'])} {r['name']}" if r else "–"  # noqa: E731
    return (f"| {d['workload']} ({sizes_text(d)}) | {d['world_size']} | {ms(seed)} | {name(cuco)} | {name(torch)} | "
            f"{bound} | {ms(own.get('ms'))} | {ms(cc and cc['median_ms'])}{rate(cc)} / {ms(cm and cm['median_ms'])}{rate(cm)} | "
            f"{ms(tc and tc['median_ms'])}{rate(tc)} / {ms(tm and tm['median_ms'])}{rate(tm)} | {over} | {vs} |")


HEADER = ("| workload (sizes) | W | seed | best cuco | torch best (self-checked) | overlap bound, every implementation "
          "| cuco's own bound | cuco parts comp / comm | torch parts comp / comm | best cuco / bound | torch / best cuco |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|")


def parts_rows(d):
    out = []
    for r in d["table"]["rows"]:
        if r["kind"] in ("part", "peer-part") and r.get("median_ms"):
            peak = f"{r['of_peak'] * 100:.0f}%" if r.get("of_peak") is not None else "–"
            ach = f"{num(r['rate'])} {r['rate_unit']}" if r.get("rate") is not None else "–"
            out.append(f"| {d['workload']} | {d['world_size']} | {r['part']} | {r['name']} ({r['kind']}) | "
                       f"{ms(r['median_ms'])} | {ach} | {peak} |")
    return out


def rank_rows(d):
    out = []
    for e in d.get("entries", []):
        ranks = [m.get("timing", {}).get("median_ms") for m in e["record"].get("rank_metrics", []) if isinstance(m, dict)]
        if ranks and all(isinstance(x, (int, float)) for x in ranks):
            out.append(f"| {d['workload']} | {d['world_size']} | {e['name']} | " + " / ".join(ms(x) for x in ranks) + " |")
    return out


def problems(d):
    out = []
    for r in d["table"]["rows"]:
        if r["status"] not in ("ok", "timed"):
            out.append(f"- {d['workload']} W={d['world_size']} ({sizes_text(d)}): {r['name']} ({r['kind']}): "
                       f"{r['status']}: {r.get('reason') or 'no reason given'}")
    return out


def template():
    print(HEADER)
    for w in (2, 4):
        for wl in ("gemm_reducescatter", "gemm_allgather", "moe_dispatch_combine", "kv_transfer", "attention_cp"):
            if wl == "kv_transfer" and w == 4:
                continue
            print(f"| {wl} | {w} | | | | | | | | | |")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("files", nargs="*")
    p.add_argument("--title", default="")
    p.add_argument("--template", action="store_true")
    a = p.parse_args()
    if a.template:
        template()
        return
    docs = []
    for f in a.files:
        try:
            d = json.load(open(f))
        except (OSError, ValueError) as e:
            print(f"{f}: not read ({e})", file=sys.stderr)
            continue
        if d.get("schema") != "cuco-bench/2":
            print(f"{f}: not cuco-bench/2 JSON (schema {d.get('schema')!r}): left out", file=sys.stderr)
            continue
        docs.append((f, d))
    if not docs:
        print("no cuco-bench/2 JSON given", file=sys.stderr)
        sys.exit(1)
    d0 = docs[0][1]
    dev = d0["devices"][0]["name"] if d0.get("devices") else "?"
    rates = d0["table"].get("rates", {})
    peak = rates.get("peak")
    print(f"## {a.title or 'cuco bench'}\n")
    print(f"Device {dev}; {d0['versions'].get('nccl') and 'NCCL ' + d0['versions']['nccl']}, CUDA "
          f"{d0['versions'].get('cuda')}, driver {d0['versions'].get('driver')}, torch {d0['versions'].get('torch')}; "
          f"cuco {d0.get('cuco_commit') or '?'}{' (modified tree)' if d0.get('cuco_tree_dirty') else ''}.")
    if peak:
        print(f"Peaks ({peak['model']}): dense bf16 {peak['bf16_dense_tflops']} TFLOP/s, NVLink "
              f"{peak['nvlink_gbps_per_dir']} GB/s each way. Rates per rank, formulas in each workload.toml [work].")
    print(f"Timing: {d0['table'].get('timing_note') or '?'}. Times are medians in ms.\n")
    print(HEADER)
    for _, d in docs:
        print(summary_row(d))
    print("\n### Every part\n")
    print("| workload | W | part | implementation | ms | achieved | of peak |\n|---|---|---|---|---|---|---|")
    for _, d in docs:
        print("\n".join(parts_rows(d)))
    print("\n### Each rank's median (cuco entries; the table takes the slowest)\n")
    print("| workload | W | entry | rank 0 / rank 1 / ... |\n|---|---|---|---|")
    for _, d in docs:
        print("\n".join(rank_rows(d)))
    bad = [line for _, d in docs for line in problems(d)]
    print("\n### Failed or skipped\n")
    print("\n".join(bad) if bad else "none")
    print("\nFiles: " + ", ".join(f for f, _ in docs))


if __name__ == "__main__":
    main()
