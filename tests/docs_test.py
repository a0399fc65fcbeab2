#!/usr/bin/env python3
"""HACKING.md and docs/architecture.md against the tree: the claims a test can check.

Usage: docs_test.py <repo root> <cuco binary> <layer> [<layer> ...] (the layers as CUCO_LAYERS in
the top CMakeLists.txt states them, lowest first, each a space-separated list of folders).

Checks:
  - every file or folder the two documents name in `backticks` exists: a path with a '/' (or a
    source file's name: .h, .cc, .cu, .py, .sh) must be the end of a tracked path (src/ and
    runtime/include/cuco/ are where most are named from); '*' matches within a name; names with
    placeholders (<id>, $VAR, {a,b}) are run-time paths and are not checked;
  - HACKING.md's layer table and architecture.md's layer list are CUCO_LAYERS, in order;
  - the commands architecture.md lists are the subcommands `cuco --help` prints, each with its
    src/cli/cmd_<name>.cc.
Fails (exit 1) listing every claim that does not hold, with its file and line.
"""
import fnmatch
import os
import re
import subprocess
import sys

DOCS = ["HACKING.md", "docs/architecture.md"]
SOURCE_EXT = (".h", ".cc", ".cu", ".cuh", ".py", ".sh")
TICKED = re.compile(r"`([^`\n]+)`")


def tracked(root):
    out = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True, text=True)
    if out.returncode == 0 and out.stdout.strip():
        return out.stdout.split()
    files = []  # not a git checkout (a source tarball): walk it
    for d, dirs, names in os.walk(root):
        dirs[:] = [x for x in dirs if not x.startswith(".") and x != "build"]
        files += [os.path.relpath(os.path.join(d, n), root) for n in names]
    return files


def path_claims(text):
    """(line, token) for each backticked token that names a file or folder of the tree."""
    for n, line in enumerate(text.splitlines(), 1):
        for m in TICKED.finditer(line):
            tok = m.group(1).strip()
            if tok.startswith("./"):
                tok = tok[2:]
            if any(c in tok for c in "<>${} ()=,:\"'") or tok.startswith(("-", "~", "/", ".", "http", "build/")):
                continue  # a command, a run-time or build path, a placeholder, an option, an extension
            if "/" in tok or tok.endswith(SOURCE_EXT):
                yield n, tok


def exists(tok, files, folders):
    tok = tok.rstrip("/")
    if tok.endswith(".*"):  # "src/workload/knob_marks.*": the pair
        tok = tok[:-2] + ".h"
    pattern = "*" in tok
    for p in folders if tok.split("/")[-1].find(".") < 0 else ():
        if p == tok or p.endswith("/" + tok) or (pattern and fnmatch.fnmatch(p, "*" + tok)):
            return True
    for p in files:
        if p == tok or p.endswith("/" + tok) or (pattern and (fnmatch.fnmatch(p, tok) or fnmatch.fnmatch(p, "*/" + tok))):
            return True
    return False


def hacking_layers(text):
    """HACKING.md's table rows "| 0 | `util` | ..." -> [["util"], ...]."""
    rows = re.findall(r"^\|\s*(\d+)\s*\|([^|]*)\|", text, re.M)
    return [re.findall(r"`([a-z_]+)`", folders) for _, folders in sorted(rows, key=lambda r: int(r[0]))]


def architecture_layers(text):
    """architecture.md's indented block after "lowest first": one layer per line, "a, b"."""
    m = re.search(r"lowest first.*?:\n\n((?:    [a-z_, ]+\n)+)", text, re.S)
    if not m:
        return None
    return [[f.strip() for f in line.split(",")] for line in m.group(1).splitlines()]


def listed_commands(text):
    """The commands architecture.md lists: "the commands: a, b, c" (backticked or not)."""
    m = re.search(r"[Tt]he commands:\s*([^.;|\n]+)", text)
    if not m:
        return None
    return sorted(w.strip(" `()") for w in m.group(1).split(",") if w.strip(" `()"))


def help_commands(cuco):
    out = subprocess.run([cuco, "--help"], capture_output=True, text=True).stdout
    part = out.split("Subcommands:", 1)[1] if "Subcommands:" in out else ""
    return sorted(m.group(1) for m in re.finditer(r"^  ([a-z]+)\s", part, re.M))


def main(argv):
    root, cuco = argv[1], argv[2]
    layers = [layer.split() for layer in argv[3:]]
    files = tracked(root)
    folders = sorted({os.path.dirname(f) for f in files} | {"/".join(f.split("/")[:i]) for f in files
                                                           for i in range(1, f.count("/") + 1)})
    problems = []
    texts = {}
    for doc in DOCS:
        with open(os.path.join(root, doc), encoding="utf-8") as f:
            texts[doc] = f.read()
        for line, tok in path_claims(texts[doc]):
            if not exists(tok, files, folders):
                problems.append(f"{doc}:{line}: `{tok}` names no file or folder of the tree")
    got = hacking_layers(texts["HACKING.md"])
    if got != layers:
        problems.append(f"HACKING.md: the layer table says {got}, CUCO_LAYERS says {layers}")
    got = architecture_layers(texts["docs/architecture.md"])
    if got != layers:
        problems.append(f"docs/architecture.md: the layer list says {got}, CUCO_LAYERS says {layers}")
    listed, helped = listed_commands(texts["docs/architecture.md"]), help_commands(cuco)
    if listed != helped:
        problems.append(f"docs/architecture.md: lists the commands {listed}, `cuco --help` has {helped}")
    for c in helped:
        if f"src/cli/cmd_{c}.cc" not in files:
            problems.append(f"src/cli/cmd_{c}.cc: missing (the command `{c}` has no file of its own)")
    for p in problems:
        print(p)
    print(f"docs: {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
