#!/usr/bin/env bash
# The slowest tests of the last ctest run, slowest first, from the JUnit file ctest writes
# (scripts/test.sh: build/ctest-junit.xml; or any `ctest --output-junit FILE`).
#   scripts/slowest-tests.sh [junit.xml] [count]     default build/ctest-junit.xml, 20
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 - "${1:-build/ctest-junit.xml}" "${2:-20}" <<'PY'
import sys, xml.etree.ElementTree as ET
path, count = sys.argv[1], int(sys.argv[2])
try:
    root = ET.parse(path).getroot()
except (OSError, ET.ParseError) as e:
    sys.exit(f"slowest-tests: cannot read {path}: {e} (run scripts/test.sh, or ctest --output-junit, first)")
cases = [(float(c.get("time", 0)), c.get("name"), c.get("status", "run")) for c in root.iter("testcase")]
total = sum(t for t, _, _ in cases)
print(f"{len(cases)} tests, {total:.0f} s of test time in all ({path})")
for t, name, status in sorted(cases, reverse=True)[:count]:
    print(f"{t:8.1f} s  {100 * t / total if total else 0:5.1f}%  {name}" + ("" if status == "run" else f"  [{status}]"))
PY
