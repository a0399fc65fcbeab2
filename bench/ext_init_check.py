#!/usr/bin/env python3
"""Whether `cuco init` still makes of each program written elsewhere what docs/programs-written-elsewhere.md's
table says (its "cuco init" column: harness or skeleton), from the summary.json that
bench/ext_programs.py wrote. Catches a change that turns a harness into a skeleton (or the reverse)
on programs that are not in this repository, and so not in CI.
  ext_init_check.py SUMMARY_JSON [DOC]      (DOC: docs/programs-written-elsewhere.md by default)
Prints each disagreement with init's reason now; exit 1 when there is one, or when a program is on
one side only."""
import json, pathlib, re, sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def documented(doc_text):
    """program -> its "cuco init" cell, from the table whose header names that column."""
    out, column = {}, None
    for line in doc_text.splitlines():
        if not line.startswith("|"):
            column = None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if "cuco init" in cells:
            column = cells.index("cuco init")
        elif column is not None and re.match(r"^[a-z0-9_]+$", cells[0]) and len(cells) > column:
            out.setdefault(cells[0], cells[column])
    return out


def main(argv):
    if len(argv) not in (2, 3):
        sys.stderr.write(__doc__)
        return 2
    summary = json.loads(pathlib.Path(argv[1]).read_text())
    doc = pathlib.Path(argv[2]) if len(argv) == 3 else ROOT / "docs" / "programs-written-elsewhere.md"
    want = documented(doc.read_text())
    bad = 0
    for name in sorted(set(summary) | set(want)):
        if name not in summary or name not in want:
            print(f"{name}: only in {'the summary' if name in summary else doc.name}")
            bad += 1
            continue
        now = bool(summary[name].get("harness_ready"))
        if now != want[name].startswith("harness"):
            print(f"{name}: {doc.name} says {want[name]!r}; init now makes "
                  f"{'a harness' if now else 'a skeleton'}: {summary[name].get('harness_reason', '')[:300]}")
            bad += 1
    print(f"{len(summary)} programs, {bad} disagreement(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
