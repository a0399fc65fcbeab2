#!/usr/bin/env python3
"""The include graph of src/ against the stated layers (CUCO_LAYERS in the top CMakeLists.txt).

Usage: layering_test.py <src dir> <layer> [<layer> ...], each layer a space-separated list of
folders, lowest first. A file in folder F may include "G/..." only when G is F or lies in a lower
layer. Fails (exit 1) listing every include that breaks the rule, every folder of src/ that no
layer names, and every named folder that does not exist."""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/[^"]+"', re.M)


def main(argv):
    src, layers = argv[1], [layer.split() for layer in argv[2:]]
    level = {folder: i for i, layer in enumerate(layers) for folder in layer}
    problems = []
    present = sorted(d for d in os.listdir(src) if os.path.isdir(os.path.join(src, d)))
    problems += [f"src/{d}: a folder no layer names (add it to CUCO_LAYERS)" for d in present if d not in level]
    problems += [f"src/{d}: named in CUCO_LAYERS but missing" for d in level if d not in present]
    for folder in present:
        for root, _, files in os.walk(os.path.join(src, folder)):
            for name in sorted(files):
                if not name.endswith((".h", ".cc", ".cu", ".cuh")):
                    continue
                path = os.path.join(root, name)
                text = open(path, encoding="utf-8", errors="replace").read()
                for m in INCLUDE.finditer(text):
                    target = m.group(1)
                    if target == folder or target not in level or folder not in level:
                        continue  # own folder; "cuco/..." and the like are runtime/include
                    if level[target] >= level[folder]:
                        line = text.count("\n", 0, m.start()) + 1
                        rel = os.path.relpath(path, os.path.dirname(src))
                        how = "a folder of the same layer as" if level[target] == level[folder] else "a folder of a higher layer than"
                        problems.append(f"{rel}:{line}: includes {target}/, {how} {folder}/")
    for p in problems:
        print(p)
    print(f"layering: {len(present)} folders, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
