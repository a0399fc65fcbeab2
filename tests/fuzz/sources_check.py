#!/usr/bin/env python3
"""ctest fuzz_sources: the fuzz build's hand list of sources (tests/fuzz/CMakeLists.txt,
cuco_fuzz_parsers) holds every .cc its files need: for each listed file, and each fuzz target, the
project headers it includes (transitively) whose twin .cc exists under src/ must be listed too.
Headers used for their types alone are named on the list's "# header-only:" line.
The sanitized build is only built by scripts/fuzz.sh, after ctest; this catches a missing source
in seconds, without clang. Usage: sources_check.py <repo root>"""
import os
import re
import sys

root = sys.argv[1]
src = os.path.join(root, "src")
text = open(os.path.join(root, "tests/fuzz/CMakeLists.txt")).read()
block = re.search(r"add_library\(cuco_fuzz_parsers STATIC(.*?)\)", text, re.S).group(1)
listed = {p.replace("${src}/", "") for p in block.split() if p.startswith("${src}/")}
header_only = set(re.search(r"# header-only: ([^\n]*)", text).group(1).split())
targets = re.search(r"set\(CUCO_FUZZ_TARGETS ([^)]*)\)", text).group(1).split()
include = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def includes(path):
    try:
        return include.findall(open(path, errors="replace").read())
    except OSError:
        return []


missing = {}
seen = set()
todo = [(os.path.join(src, f), f) for f in sorted(listed)]
todo += [(os.path.join(root, "tests/fuzz", "fuzz_%s.cc" % t), "tests/fuzz/fuzz_%s.cc" % t) for t in targets]
while todo:
    path, who = todo.pop()
    for inc in includes(path):
        header = os.path.join(src, inc)
        if not os.path.exists(header) or header in seen:
            continue
        seen.add(header)
        todo.append((header, who))
        twin = inc[:-2] + ".cc" if inc.endswith(".h") else None
        if twin and inc not in header_only and os.path.exists(os.path.join(src, twin)):
            if twin not in listed:
                missing.setdefault(twin, who)
            else:
                todo.append((os.path.join(src, twin), twin))
for twin, who in sorted(missing.items()):
    print("tests/fuzz/CMakeLists.txt: cuco_fuzz_parsers lacks ${src}/%s (its header is included through %s)" % (twin, who))
print("fuzz_sources: %d listed, %d missing" % (len(listed), len(missing)))
sys.exit(1 if missing else 0)
