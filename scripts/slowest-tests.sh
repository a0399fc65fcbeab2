#!/usr/bin/env bash
# The slowest tests of the last ctest run, slowest first, from the JUnit files ctest writes
# (scripts/test.sh: build/ctest-junit.xml, and build/ctest-beside-junit.xml for the tests it runs
# beside ctest's slots; or any `ctest --output-junit FILE`, several joined with commas).
#   scripts/slowest-tests.sh [junit.xml[,junit.xml...]] [count]     default the two above, 20
set -euo pipefail
cd "$(dirname "$0")/.."
default=build/ctest-junit.xml
[ -f build/ctest-beside-junit.xml ] && default+=,build/ctest-beside-junit.xml
exec python3 - "${1:-$default}" "${2:-20}" <<'PY'
import sys, xml.etree.ElementTree as ET
path, count = sys.argv[1], int(sys.argv[2])
cases = []
for p in path.split(","):
    try:
        root = ET.parse(p).getroot()
    except (OSError, ET.ParseError) as e:
        sys.exit(f"slowest-tests: cannot read {p}: {e} (run scripts/test.sh, or ctest --output-junit, first)")
    cases += [(float(c.get("time", 0)), c.get("name"), c.get("status", "run")) for c in root.iter("testcase")]
total = sum(t for t, _, _ in cases)
print(f"{len(cases)} tests, {total:.0f} s of test time in all ({path})")
for t, name, status in sorted(cases, reverse=True)[:count]:
    print(f"{t:8.1f} s  {100 * t / total if total else 0:5.1f}%  {name}" + ("" if status == "run" else f"  [{status}]"))
PY
