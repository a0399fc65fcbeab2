#!/usr/bin/env python3
"""Writes each [[variants]] entry of a workload as a candidate file (its file with its knobs set).

    python3 bench/materialize_variants.py <workload-dir> <out-dir> [--with-parts]

`cuco bench` does this itself (src/workload/knob_marks.h); this script exists for device runs
that drive `cuco eval` directly. Knob lines look like `constexpr T kX = value;  // cuco:knob name`.
"""
import os
import re
import sys
import tomllib

MARK = re.compile(r'^(.*=\s*)("(?:[^"\\]|\\.)*"|[^;]*?)(\s*;\s*//\s*cuco:knob\s+)([A-Za-z_][A-Za-z0-9_]*)\s*$')


def text(v):
    return ("true" if v else "false") if isinstance(v, bool) else str(v)


def apply(code, knobs):
    out, seen = [], set()
    for line in code.split("\n"):
        m = MARK.match(line)
        if m and m.group(4) in knobs:
            name = m.group(4)
            quoted = m.group(2).startswith('"')
            v = text(knobs[name])
            line = m.group(1) + (f'"{v}"' if quoted else v) + m.group(3) + name
            seen.add(name)
        out.append(line)
    missing = set(knobs) - seen
    if missing:
        sys.exit(f"knobs not marked in the file: {sorted(missing)}")
    return "\n".join(out)


def main():
    wl, out = sys.argv[1], sys.argv[2]
    with_parts = "--with-parts" in sys.argv
    cfg = tomllib.load(open(os.path.join(wl, "workload.toml"), "rb"))
    os.makedirs(out, exist_ok=True)
    gen0 = cfg.get("generation0", cfg["seed"])
    for v in cfg.get("variants", []):
        if v.get("part") and not with_parts:
            continue
        code = open(os.path.join(wl, v.get("file", gen0))).read()
        path = os.path.join(out, v["name"] + ".cu")
        open(path, "w").write(apply(code, v.get("knobs", {})))
        print(path)


if __name__ == "__main__":
    main()
