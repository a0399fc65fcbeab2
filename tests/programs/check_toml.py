#!/usr/bin/env python3
"""Validates every tests/programs/<name>/program.toml against its program.

The program.toml files hold the truth a careful reader takes from each program (README.md gives
the schema). This checks that they say it well-formed and consistently with the sources:
  - exactly the schema's keys, with the right types and allowed values;
  - every listed source exists, and the build command names every .cu/.cpp source;
  - every [[ops]] entry names a line of that file that really holds the call, and every NCCL
    communication call in the sources is listed by at least one entry;
  - every [sizes] name, every buffer's name and every identifier in its `elements` expression
    occurs in the sources, and the expression is arithmetic over them;
  - the corpus as a whole covers every bootstrap, every collective and a 16-bit dtype.
Usage: check_toml.py [programs-dir]     (default: this file's folder)
       check_toml.py --self-test         (breaks copies of the corpus and expects each to fail)
Exit 0 when all is well, 1 with one line per problem.
"""
import ast
import os
import re
import shutil
import sys
import tempfile
import tomllib

TOP_KEYS = {"description": str, "sources": list, "build": str, "run": str, "bootstrap": str,
            "world_sizes": list, "dtype": str, "ops": list, "buffers": list, "sizes": dict}
BOOTSTRAPS = {"mpi", "file", "socket", "single_process", "threads"}
DTYPES = {"f32", "f16", "bf16"}
ROLES = {"input", "output", "intermediate"}
COMM_CALLS = ["ncclAllReduce", "ncclAllGather", "ncclReduceScatter", "ncclSend", "ncclRecv", "ncclBroadcast",
              "ncclReduce", "ncclBcast", "ncclAlltoAll", "ncclGather", "ncclScatter"]
COMM_RE = re.compile(r"\b(" + "|".join(COMM_CALLS) + r")\s*\(")
IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
MIN_PROGRAMS = 9


def program_dirs(root):
    return sorted(d for d in os.listdir(root) if os.path.isfile(os.path.join(root, d, "program.toml")))


def source_identifiers(folder, sources):
    idents = set()
    for s in sources:
        path = os.path.join(folder, s)
        if os.path.isfile(path):
            idents |= set(IDENT_RE.findall(open(path, encoding="utf-8").read()))
    return idents


def check_arith(expr):
    """True when expr is +,-,*,/,//,% over names and integer literals."""
    try:  # names become `v` first: a C++ name may be a Python keyword (`in`)
        tree = ast.parse(IDENT_RE.sub("v", expr), mode="eval")
    except SyntaxError:
        return False
    allowed = (ast.Expression, ast.BinOp, ast.Name, ast.Load, ast.Constant, ast.Add, ast.Sub, ast.Mult, ast.Div,
               ast.FloorDiv, ast.Mod, ast.UnaryOp, ast.USub)
    return all(isinstance(n, allowed) and (not isinstance(n, ast.Constant) or isinstance(n.value, int))
               for n in ast.walk(tree))


def check_ops(where, folder, doc, errors):
    listed = set()
    for i, op in enumerate(doc.get("ops", [])):
        at = f"{where}: ops[{i}]"
        if set(op) != {"call", "file", "line"}:
            errors.append(f"{at}: keys must be call, file, line (got {sorted(op)})")
            continue
        if op["file"] not in doc.get("sources", []):
            errors.append(f"{at}: file {op['file']} is not in sources")
            continue
        lines = open(os.path.join(folder, op["file"]), encoding="utf-8").read().split("\n")
        n = op["line"]
        if not isinstance(n, int) or not 1 <= n <= len(lines):
            errors.append(f"{at}: line {n} is outside {op['file']} ({len(lines)} lines)")
            continue
        if not re.search(r"\b" + re.escape(op["call"]) + r"\s*\(", lines[n - 1]):
            errors.append(f"{at}: {op['file']}:{n} does not hold {op['call']}(: {lines[n - 1].strip()!r}")
            continue
        listed.add((op["file"], n))
    for s in doc.get("sources", []):
        path = os.path.join(folder, s)
        if not os.path.isfile(path):
            continue
        for n, text in enumerate(open(path, encoding="utf-8").read().split("\n"), 1):
            m = COMM_RE.search(text.split("//")[0])
            if m and (s, n) not in listed:
                errors.append(f"{where}: {s}:{n} calls {m.group(1)} but no [[ops]] entry lists it")


def check_buffers(where, doc, idents, errors):
    sizes = doc.get("sizes", {})
    for i, b in enumerate(doc.get("buffers", [])):
        at = f"{where}: buffers[{i}]"
        if set(b) != {"name", "role", "elements"}:
            errors.append(f"{at}: keys must be name, role, elements (got {sorted(b)})")
            continue
        base = IDENT_RE.match(b["name"])
        if not base or base.group(0) not in idents:
            errors.append(f"{at}: buffer {b['name']!r} does not occur in the sources")
        if b["role"] not in ROLES:
            errors.append(f"{at}: role {b['role']!r} is not one of {sorted(ROLES)}")
        expr = b["elements"]
        if not isinstance(expr, str) or not check_arith(expr):
            errors.append(f"{at}: elements {expr!r} is not an arithmetic expression")
            continue
        for name in IDENT_RE.findall(expr):
            if name not in sizes and name not in idents:
                errors.append(f"{at}: {name!r} in elements is neither in [sizes] nor in the sources")


def check_program(root, name, errors):
    folder = os.path.join(root, name)
    where = f"{name}/program.toml"
    try:
        doc = tomllib.load(open(os.path.join(folder, "program.toml"), "rb"))
    except tomllib.TOMLDecodeError as e:
        errors.append(f"{where}: not TOML: {e}")
        return None
    for key, typ in TOP_KEYS.items():
        if key not in doc:
            errors.append(f"{where}: missing key {key}")
        elif not isinstance(doc[key], typ):
            errors.append(f"{where}: {key} must be a {typ.__name__}")
    for key in set(doc) - set(TOP_KEYS):
        errors.append(f"{where}: unknown key {key}")
    if any(k not in doc or not isinstance(doc[k], TOP_KEYS[k]) for k in TOP_KEYS):
        return None
    for s in doc["sources"]:
        if not os.path.isfile(os.path.join(folder, s)):
            errors.append(f"{where}: source {s} does not exist")
        elif s.endswith((".cu", ".cpp", ".cc")) and not re.search(r"(^|\s)" + re.escape(s) + r"(\s|$)", doc["build"]):
            errors.append(f"{where}: build does not compile {s}")
    if not doc["build"].startswith("nvcc "):
        errors.append(f"{where}: build must be an nvcc command")
    if "{W}" not in doc["run"]:
        errors.append(f"{where}: run has no {{W}}")
    if doc["bootstrap"] not in BOOTSTRAPS:
        errors.append(f"{where}: bootstrap {doc['bootstrap']!r} is not one of {sorted(BOOTSTRAPS)}")
    if (doc["bootstrap"] in ("file", "socket")) != ("{r}" in doc["run"]):
        errors.append(f"{where}: run must name {{r}} exactly when the program starts one process per rank without MPI")
    if 1 not in doc["world_sizes"] or not all(isinstance(w, int) and w > 0 for w in doc["world_sizes"]):
        errors.append(f"{where}: world_sizes must be positive integers including 1")
    if doc["dtype"] not in DTYPES:
        errors.append(f"{where}: dtype {doc['dtype']!r} is not one of {sorted(DTYPES)}")
    if not doc["ops"]:
        errors.append(f"{where}: no [[ops]]")
    if not doc["buffers"]:
        errors.append(f"{where}: no [[buffers]]")
    for k, v in doc["sizes"].items():
        if not isinstance(v, int) or v <= 0:
            errors.append(f"{where}: size {k} must be a positive integer")
    idents = source_identifiers(folder, doc["sources"])
    for k in doc["sizes"]:
        if k not in idents:
            errors.append(f"{where}: size {k} does not occur in the sources")
    check_ops(where, folder, doc, errors)
    check_buffers(where, doc, idents, errors)
    return doc


def check_corpus(root):
    errors = []
    names = program_dirs(root)
    docs = [d for d in (check_program(root, n, errors) for n in names) if d]
    if len(names) < MIN_PROGRAMS:
        errors.append(f"{root}: {len(names)} programs, want at least {MIN_PROGRAMS}")
    if docs:
        missing = BOOTSTRAPS - {d["bootstrap"] for d in docs}
        if missing:
            errors.append(f"{root}: no program with bootstrap {sorted(missing)}")
        calls = {op["call"] for d in docs for op in d["ops"]}
        want = {"ncclAllReduce", "ncclAllGather", "ncclReduceScatter", "ncclSend", "ncclRecv", "ncclBroadcast"}
        if want - calls:
            errors.append(f"{root}: no program calls {sorted(want - calls)}")
        if not {"f16", "bf16"} & {d["dtype"] for d in docs}:
            errors.append(f"{root}: no program in f16 or bf16")
    return names, errors


# Each breaks one thing in a copy of the corpus; the checker must then fail naming it.
BREAKAGES = [
    ("tp_mlp_mpi", "line = 62", "line = 61", "does not hold ncclAllReduce"),
    ("sp_mlp_bf16_mpi", 'role = "intermediate"', 'role = "scratch"', "role 'scratch'"),
    ("moe_alltoall_mpi", '"moe.cu", ', '"moe.cu", "missing.cu", ', "missing.cu does not exist"),
    ("ring_pipeline_file", 'elements = "rows * hidden"', 'elements = "rows * width"', "'width' in elements"),
    ("kv_transfer_threads", "[[ops]]\ncall = \"ncclSend\"\nfile = \"main.cu\"\nline = 110\n", "",
     "main.cu:110 calls ncclSend but no [[ops]]"),
    ("vocab_parallel_ce", 'dtype = "f32"', 'dtype = "fp8"', "dtype 'fp8'"),
    ("pp_microbatch_initall", "mb_tokens = 256", "micro_tokens = 256", "size micro_tokens does not occur"),
    ("dp_broadcast_group", "line = 87", "line = 88", "does not hold ncclAllReduce"),
]


def self_test(root):
    bad = 0
    for prog, old, new, expect in BREAKAGES:
        with tempfile.TemporaryDirectory() as tmp:
            copy = os.path.join(tmp, "programs")
            shutil.copytree(root, copy)
            path = os.path.join(copy, prog, "program.toml")
            text = open(path, encoding="utf-8").read()
            if old not in text:
                print(f"FAIL self-test: {prog}/program.toml has no {old!r} to break")
                bad += 1
                continue
            open(path, "w", encoding="utf-8").write(text.replace(old, new, 1))
            _, errors = check_corpus(copy)
            caught = any(expect in e for e in errors)
            print(f"{'ok  ' if caught else 'FAIL'} self-test {prog}: {old!r} -> {new!r} "
                  f"{'caught' if caught else 'NOT caught: ' + '; '.join(errors)}")
            bad += not caught
    return bad


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    if len(sys.argv) > 1 and sys.argv[1] == "--self-test":
        return 1 if self_test(here) else 0
    root = sys.argv[1] if len(sys.argv) > 1 else here
    names, errors = check_corpus(root)
    for e in errors:
        print(e)
    print(f"check_toml: {len(names)} programs, {len(errors)} problems")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
