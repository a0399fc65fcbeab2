#!/usr/bin/env python3
"""Puts every corpus program through `cuco analyze --json`, with the program's own build command
after `--`, and checks it against the program's program.toml:
  - parsed with libclang and the real headers ("clang"), not a fallback;
  - every NCCL communication call of the iteration ([[ops]]: call, file, line) is found, and no
    NCCL communication call is found that program.toml does not list;
  - no dependency edge is called a race (the corpus programs have none).
Usage: analyze_check.py <cuco binary> [program ...]. Prints one line per program; exit 1 if any fails."""
import json, pathlib, shlex, subprocess, sys, tomllib

HERE = pathlib.Path(__file__).resolve().parent
COMM_KINDS = {"collective", "p2p"}


def check(cuco, folder):
    t = tomllib.loads((folder / "program.toml").read_text())
    sources = [s for s in t["sources"] if s.endswith((".cu", ".cc", ".cpp"))]
    cmd = [cuco, "analyze", "--json", *sources, "--", *shlex.split(t["build"])]
    p = subprocess.run(cmd, cwd=folder, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        return [f"cuco analyze exited {p.returncode}: {p.stderr.strip()[:400]}"]
    a = json.loads(p.stdout)
    problems = []
    if a["parse_path"] != "clang":
        problems.append(f"parsed with {a['parse_path']}, not clang: {a['warnings'][:2]}")
    found = {(o["api"], pathlib.Path(o["file"]).name, o["line"]) for o in a["ops"] if o["kind"] in COMM_KINDS}
    want = {(o["call"], o["file"], o["line"]) for o in t.get("ops", [])}
    for m in sorted(want - found):
        problems.append(f"missed {m[0]} at {m[1]}:{m[2]}")
    for m in sorted(found - want):
        problems.append(f"found {m[0]} at {m[1]}:{m[2]}, which program.toml does not list")
    races = [w for w in a["warnings"] if "a race" in w]
    problems += [f"false race: {w}" for w in races]
    return problems


def main():
    cuco = str(pathlib.Path(sys.argv[1]).resolve())
    names = sys.argv[2:] or sorted(d.name for d in HERE.iterdir() if (d / "program.toml").exists())
    failed = 0
    for n in names:
        problems = check(cuco, HERE / n)
        print(f"{n}: {'ok' if not problems else 'FAIL'}")
        for pr in problems:
            print(f"    {pr}")
        failed += bool(problems)
    print(f"{len(names) - failed}/{len(names)} programs analysed as program.toml says")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
