#!/usr/bin/env python3
"""The table of bench/one-gpu/programs-harness.sh's results (printed): one row per program from the
folder it wrote (<name>.init.txt, <name>.eval.json / .eval.err, <name>-logs/, <name>.program.json).
An evaluation the script's EVAL_TIMEOUT cut has no record: its row says where it was cut, and
"verified (bench cut ...)" when every rank's verify had passed (the verify supervisor's log ends
with the candidate processes' exit 0) and the bench had started.
  harness_table.py DIR"""
import glob, json, os, re, sys


def rec(path):
    try:
        j = json.load(open(path))
        return j[0] if isinstance(j, list) else j.get("records", [j])[0] if isinstance(j, dict) else j
    except Exception:
        return None


def cut_status(d, name, txt):
    """(status, reason) of an evaluation cut by the script's timeout, else ("", "")."""
    m = re.search(r"harness eval rc=124 in (\d+) s", txt)
    if not m:
        return "", ""
    logs = f"{d}/{name}-logs"
    verify = glob.glob(f"{logs}/**/verify/logs/rank0.log", recursive=True)
    bench = glob.glob(f"{logs}/**/bench/logs", recursive=True)
    verified = any("candidate processes ended: exit 0" in open(v).read() for v in verify)
    if verified and bench:
        return f"verified (bench cut at {m.group(1)} s)", "cut by EVAL_TIMEOUT in the bench stage"
    return "", f"cut by EVAL_TIMEOUT after {m.group(1)} s, in {'bench' if bench else 'verify'}"


def main(d):
    print("| program | harness made? | harness eval | rel_l2 (worst rank) | time ms (supervisor) | program's own ms | reason |")
    print("|---|---|---|---|---|---|---|")
    for p in sorted(glob.glob(f"{d}/*.init.txt")):
        name = os.path.basename(p)[:-len(".init.txt")]
        txt = open(p).read()
        made = "yes" if "harness mode (trusted)" in txt else "no: " + (re.search(r"not the program itself: (.*)", txt) or [None, "?"])[1][:90]
        r = rec(f"{d}/{name}.eval.json")
        status = reason = ms = rel = ""
        if r:
            status = r.get("status", "?")
            reason = (r.get("reason") or "")[:140].replace("|", "/")
            ms = r.get("timing", {}).get("median_ms", "")
            m = re.findall(r'"rel_l2":\s*([0-9.eE+-]+)', json.dumps(r))
            rel = max((float(x) for x in m), default="")
        else:
            status, reason = cut_status(d, name, txt)
            if not reason and os.path.exists(f"{d}/{name}.eval.err"):
                e = open(f"{d}/{name}.eval.err").read().strip().splitlines()
                reason = (e[-1] if e else "")[:140].replace("|", "/")
        pr = rec(f"{d}/{name}.program.json") or {}
        pms = pr.get("timing", {}).get("median_ms", "") if pr.get("status") == "ok" else pr.get("status", "")
        print(f"| {name} | {made} | {status} | {rel} | {ms} | {pms} | {reason} |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
