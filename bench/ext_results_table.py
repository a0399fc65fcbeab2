#!/usr/bin/env python3
"""The GPU verdicts of the programs written elsewhere (bench/ext_programs.py's list), per world size,
from the device results committed under bench/results/: each `*harness-w<W>.md` table that
bench/one-gpu/programs-harness.sh wrote, and each `*late-stream*.md` table of
bench/one-gpu/late-stream-w1.sh (its "after" rows, W=1). The latest record of a program at a world
size wins (folders in date order, then the call's number), with the folder and call it came from.
  ext_results_table.py [--check FILE]
Prints the markdown table. --check FILE: exit 1 unless FILE holds that table exactly (the ctest that
keeps docs/programs-written-elsewhere.md true)."""
import pathlib, re, sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
WORLDS = (1, 2, 4)


def ext_names():
    text = (ROOT / "bench" / "ext_programs.py").read_text()
    return [m.group(1) for m in re.finditer(r'^\s*\("([a-z0-9_]+)", ', text, re.M)]


def rows(path):
    """A markdown table's rows as dicts keyed by its header."""
    lines = [l for l in path.read_text().splitlines() if l.startswith("|")]
    if len(lines) < 2:
        return []
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    return [dict(zip(head, (c.strip() for c in l.strip("|").split("|")))) for l in lines[2:]]


def call_key(path):
    m = re.match(r"call(\d+)", path.name)
    return (int(m.group(1)) if m else 0, path.name)


def records():
    """(program, world) -> (verdict, where), the latest."""
    out = {}
    for folder in sorted(p for p in (ROOT / "bench" / "results").iterdir() if p.is_dir()):
        for f in sorted(folder.glob("*.md"), key=call_key):
            where = folder.name + (f" call {call_key(f)[0]}" if call_key(f)[0] else "")
            m = re.search(r"harness-w(\d)\.md$", f.name)
            if m:
                for r in rows(f):
                    status = r.get("harness eval", "")
                    ms = r.get("time ms (supervisor)", "")
                    if not status:  # not reached: the evaluation was cut, no verdict
                        continue
                    verdict = f"{status} {float(ms):.3g} ms" if status == "ok" and ms else status
                    out[(r.get("program", ""), int(m.group(1)))] = (verdict, where)
            elif "late-stream" in f.name:
                for r in rows(f):
                    if r.get("runtime") == "after" and r.get("status"):
                        out[(r.get("workload", ""), 1)] = (r["status"], where)
    return out


def table():
    rec = records()
    lines = ["| program | " + " | ".join(f"W={w}" for w in WORLDS) + " |", "|---|" + "---|" * len(WORLDS)]
    for name in ext_names():
        cells = [f"{rec[(name, w)][0]} ({rec[(name, w)][1]})" if (name, w) in rec else "" for w in WORLDS]
        if any(cells):
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv):
    t = table()
    if len(argv) == 3 and argv[1] == "--check":
        doc = pathlib.Path(argv[2]).read_text()
        if t not in doc:
            sys.stderr.write(f"{argv[2]}: its table of GPU verdicts is not bench/ext_results_table.py's; "
                             f"paste this one:\n{t}")
            return 1
        return 0
    if len(argv) != 1:
        sys.stderr.write(__doc__)
        return 2
    sys.stdout.write(t)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
