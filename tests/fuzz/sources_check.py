#!/usr/bin/env python3
"""ctest fuzz_sources: the fuzz build's hand list of sources (tests/fuzz/CMakeLists.txt,
cuco_fuzz_parsers) holds every .cc its files need: for each listed file, and each fuzz target, the
project headers it includes (transitively) whose twin .cc exists under src/ must be listed too.
Headers used for their types alone are named on the list's "# header-only:" line.
The sanitized build is only built by scripts/fuzz.sh, after ctest; this catches a missing source
in seconds, without clang. It also catches what that build's unity batches would refuse: its list
mixes files of every library in one target, so two listed files that define the same function (by
name and parameter types), type or constant in an anonymous namespace cannot share a batch.
Usage: sources_check.py <repo root>"""
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

CODE_NOISE = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def blank(text):
    """Comments and literals blanked, newlines kept (so line numbers hold)."""
    return CODE_NOISE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def param_types(params):
    """A parameter list's types: each parameter without its name and default."""
    out = []
    for p in params.split(","):
        p = p.split("=")[0].strip()
        words = re.findall(r"[A-Za-z_]\w*|::|[*&<>]+|\S", p)
        if len(words) > 1 and re.match(r"[A-Za-z_]\w*$", words[-1]):
            words = words[:-1]
        out.append("".join(words))
    return ",".join(out)


def anonymous_definitions(path):
    """(kind, key, line) of every function and type defined directly in an anonymous namespace."""
    text = blank(open(path, errors="replace").read())
    found, stack, last = [], [], 0
    for i, ch in enumerate(text):
        if ch == ";":
            last = i + 1
        elif ch == "}":
            if stack:
                stack.pop()
            last = i + 1
        elif ch == "{":
            stmt = re.sub(r"(?m)^\s*#.*$", "", text[last:i]).strip()  # without preprocessor lines
            last = i + 1
            if re.fullmatch(r"(?:inline\s+)?namespace", stmt):
                stack.append("anon")
                continue
            if re.fullmatch(r"(?:inline\s+)?namespace\s+[\w:]+", stmt):
                stack.append("ns")
                continue
            if "anon" in stack and all(k in ("ns", "anon") for k in stack):
                line = text.count("\n", 0, i) + 1
                t = re.match(r"(?:template\s*<[^{]*>\s*)?(?:struct|class|union|enum(?:\s+class)?)\s+([A-Za-z_]\w*)", stmt)
                f = re.search(r"([A-Za-z_]\w*)\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)\s*(?:const\s*)?(?:noexcept\s*)?(?:->[^(){}]*)?$", stmt)
                if t:
                    found.append(("type", t.group(1), line))
                elif f and f.group(1) not in ("if", "for", "while", "switch", "catch", "return", "sizeof"):
                    found.append(("function", f.group(1) + "(" + param_types(f.group(2)) + ")", line))
            stack.append("other")
    return found


clashes = []
seen_defs = {}
for f in sorted(listed):
    path = os.path.join(src, f)
    if not f.endswith(".cc") or not os.path.exists(path):
        continue
    for kind, key, line in anonymous_definitions(path):
        if (kind, key) in seen_defs and seen_defs[(kind, key)][0] != f:
            clashes.append((f, line, kind, key, seen_defs[(kind, key)]))
        else:
            seen_defs.setdefault((kind, key), (f, line))
for f, line, kind, key, (g, gline) in clashes:
    print("src/%s:%d: %s %s is also defined in an anonymous namespace at src/%s:%d: the fuzz build's unity "
          "batches mix these files; give one a name of its own or share one in util/" % (f, line, kind, key, g, gline))
print("fuzz_sources: %d listed, %d missing, %d anonymous-namespace clashes" % (len(listed), len(missing), len(clashes)))
sys.exit(1 if missing or clashes else 0)
