#!/usr/bin/env python3
"""The include and link graphs of src/ against the stated layers (CUCO_LAYERS in the top
CMakeLists.txt), and the text that has one home.

Usage: layering_test.py <src dir> <layer> [<layer> ...], each layer a space-separated list of
folders, lowest first. Fails (exit 1) listing every problem:
  - a folder of src/ that no layer names, and a named folder that does not exist;
  - an include that breaks the layers: a file in folder F may include "G/..." only when G is F or
    lies in a lower layer;
  - a link that breaks them: F's library (cuco_F, or the cuco binary for cli/) may link cuco_G in
    its CMakeLists.txt's target_link_libraries only when G lies in a lower layer;
  - an include of a library not linked: a file of F (tests aside: they link what their cuco_test
    names) includes "G/..." while cuco_F does not link cuco_G, directly or through the libraries
    it links;
  - the EVOLVE markers spelled out in a string literal anywhere but workload/evolve_blocks.{h,cc}
    (their one home: kEvolveBlockStart, kEvolveBlockEnd, kEvolveMarker, kEvolveStartLine,
    kEvolveEndLine) and the tests.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/[^"]+"', re.M)
LINK = re.compile(r"target_link_libraries\(\s*([A-Za-z0-9_-]+)\s+([^)]*)\)", re.S)
MARKER = re.compile(r'"(?:[^"\\\n]|\\.)*EVOLVE-BLOCK-(?:[^"\\\n]|\\.)*"')
MARKER_HOME = {"workload/evolve_blocks.h", "workload/evolve_blocks.cc"}


def is_test_file(name):
    return name.endswith("_test.cc") or "test" in name.split(".")[0].split("_")


def links_of(src, present):
    """folder -> the cuco folders its library links directly (cli: the cuco binary)."""
    links = {}
    for folder in present:
        path = os.path.join(src, folder, "CMakeLists.txt")
        if not os.path.exists(path):
            continue
        text = re.sub(r"#[^\n]*", "", open(path, encoding="utf-8").read())
        own = {"cuco_" + folder, "cuco"} if folder == "cli" else {"cuco_" + folder}
        for m in LINK.finditer(text):
            if m.group(1) not in own:
                continue
            libs = m.group(2).split()
            links.setdefault(folder, set()).update(l[5:] for l in libs if l.startswith("cuco_") and l != "cuco_settings")
    return links


def closure(folder, links):
    seen, todo = set(), [folder]
    while todo:
        for g in links.get(todo.pop(), ()):
            if g not in seen:
                seen.add(g)
                todo.append(g)
    return seen


def main(argv):
    src, layers = argv[1], [layer.split() for layer in argv[2:]]
    level = {folder: i for i, layer in enumerate(layers) for folder in layer}
    problems = []
    present = sorted(d for d in os.listdir(src) if os.path.isdir(os.path.join(src, d)))
    problems += [f"src/{d}: a folder no layer names (add it to CUCO_LAYERS)" for d in present if d not in level]
    problems += [f"src/{d}: named in CUCO_LAYERS but missing" for d in level if d not in present]
    links = links_of(src, present)
    for folder, linked in sorted(links.items()):
        for g in sorted(linked):
            if folder in level and g in level and level[g] >= level[folder] and g != folder:
                how = "a folder of the same layer as" if level[g] == level[folder] else "a folder of a higher layer than"
                problems.append(f"src/{folder}/CMakeLists.txt: links cuco_{g}, {how} {folder}/")
    for folder in present:
        reach = closure(folder, links)
        for root, _, files in os.walk(os.path.join(src, folder)):
            for name in sorted(files):
                if not name.endswith((".h", ".cc", ".cu", ".cuh")):
                    continue
                path = os.path.join(root, name)
                rel = os.path.relpath(path, os.path.dirname(src))
                text = open(path, encoding="utf-8", errors="replace").read()
                for m in INCLUDE.finditer(text):
                    target = m.group(1)
                    if target == folder or target not in level or folder not in level:
                        continue  # own folder; "cuco/..." and the like are runtime/include
                    line = text.count("\n", 0, m.start()) + 1
                    if level[target] >= level[folder]:
                        how = "a folder of the same layer as" if level[target] == level[folder] else "a folder of a higher layer than"
                        problems.append(f"{rel}:{line}: includes {target}/, {how} {folder}/")
                    elif target not in reach and not is_test_file(name):
                        problems.append(f"{rel}:{line}: includes {target}/ but cuco_{folder} does not link cuco_{target} "
                                        f"(src/{folder}/CMakeLists.txt)")
                if os.path.relpath(path, src) not in MARKER_HOME and not is_test_file(name):
                    for m in MARKER.finditer(text):
                        line = text.count("\n", 0, m.start()) + 1
                        problems.append(f"{rel}:{line}: spells out an EVOLVE marker ({m.group(0)[:40]}): use "
                                        "workload/evolve_blocks.h's constants")
    for p in problems:
        print(p)
    print(f"layering: {len(present)} folders, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
