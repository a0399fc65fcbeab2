#!/usr/bin/env python3
"""Puts every program of tests/habits (written here, with the habits of programs written elsewhere:
tests/habits/README.md) through the commands a user types, and checks what cuco made of it against
the program's expect.toml:
  - `cuco analyze <sources> -- <build>` exits 0 and reports no race (`races`, default 0, says how many);
  - `cuco init --json <sources> -- <build>` (or, for a CMake project, `configure` first and its
    compile_commands.json through `init_args`) makes a harness where `harness = true`: the loop it
    serves at `loop` (file:line), the launcher `launcher`, the rank count `world_size` and the rank
    counts harness/workload.toml verifies at `world_sizes` where given,
    each text of `seed_contains` in the harness's seed.cu (what the harness passes the program), the
    folders it makes where each run starts (`run_folders`) where given,
    exactly the buffers of `buffers` bound as
    they say (input, output, inout, *_copy around graph launches, host_* for host memory), no TODO(cuco init) left; where
    `harness = false`, the skeleton, whose reason contains `reason` and names a file (what a user acts on);
  - the harnesses with `compile_check = true` (the classes no other test compiles; each expect.toml
    says why or why not) compiled with `cuco eval <harness> --stage compile-check`, two at a time.
Usage: habits_check.py [--no-compile] [--shard K/N] [--keep DIR] <cuco binary> [program ...]. One line per
program; exit 1 if any check fails. --shard K/N: only the K-th of N interleaved parts of the programs, in
the order they compile (ctest runs the parts as tests of their own). --keep DIR: what init made stays in
DIR/<program> (the device scripts' habits, bench/one-gpu/graph-habits-w1.sh)."""
import concurrent.futures
import json
import pathlib
import re
import shlex
import subprocess
import sys
import tempfile
import tomllib

HERE = pathlib.Path(__file__).resolve().parent
BIND = re.compile(r'cuco_bind\.(?:as<[^>]*>\(\)\.)?(input|output|inout|input_copy|output_copy|inout_copy|host_input|host_output|host_inout)\("[^"]*", ([^;]+)\);')
LOOP = re.compile(r"^(\S+:\d+): the (timed loop|iteration)")


def run(cmd, cwd, timeout=600):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def check_harness(e, r, harness):
    problems = []
    loops = [m.group(1) for g in r["harness_guesses"] if (m := LOOP.match(g))]
    if e["loop"] not in loops:
        problems.append(f"serves {loops or 'no loop'}, expected {e['loop']}")
    if r["launcher"] != e["launcher"]:
        problems.append(f"launcher {r['launcher']}, expected {e['launcher']}")
    binds = {expr.strip(): how for how, expr in BIND.findall((harness / "seed.cu").read_text())}
    if binds != e["buffers"]:
        problems.append(f"binds {binds}, expected {e['buffers']}")
    for f in harness.iterdir():
        if f.is_file() and "TODO(cuco init)" in f.read_text(errors="replace"):
            problems.append(f"TODO(cuco init) left in harness/{f.name}")
    return problems


def check(cuco, folder, tmp):
    """analyze and init of one program; (problems, summary line, harness folder or None)."""
    e = tomllib.loads((folder / "expect.toml").read_text())
    cwd, out, build_dir = folder / e.get("dir", "."), tmp / folder.name, tmp / (folder.name + "-build")
    if "configure" in e:
        rc, so, se = run(shlex.split(e["configure"].replace("{build}", str(build_dir))), folder)
        if rc != 0:
            return [f"configure exited {rc}: {(so + se).strip()[-400:]}"], "", None
    extra = [a.replace("{build}", str(build_dir)) for a in e.get("init_args", [])]
    tail = ["--", *shlex.split(e["build"])] if "build" in e else []
    problems = []
    rc, so, se = run([cuco, "analyze", *e["sources"], *extra, *tail], cwd)
    races = [l for l in (so + se).splitlines() if re.search(r"\brace\b", l)]
    if rc != 0:
        problems.append(f"cuco analyze exited {rc}: {se.strip()[-400:]}")
    elif len(races) != e.get("races", 0):
        problems.append(f"cuco analyze: {len(races)} race line(s), expected {e.get('races', 0)}: {races[:3]}")
    given = ["--args", e["args"]] if "args" in e else []  # the program's own arguments: init's alone
    rc, so, se = run([cuco, "init", "--json", *e["sources"], "--out", str(out), *extra, *given, *tail], cwd)
    if rc != 0:
        return problems + [f"cuco init exited {rc}: {se.strip()[-400:]}"], "", None
    r = json.loads(so)
    errors = [t for t in r["todos"] if "finds an error in the program itself" in t]  # the build line would fail
    if len(errors) != e.get("clang_errors", 0):
        problems.append(f"{len(errors)} file(s) with clang errors in init's TODOs, expected {e.get('clang_errors', 0)}: {errors[:2]}")
    if r["harness_ready"] != e["harness"]:
        what = "a harness" if r["harness_ready"] else "the skeleton: " + r["harness_reason"]
        return problems + [f"made {what}; expected {'a harness' if e['harness'] else 'the skeleton'}"], "", None
    if not e["harness"]:
        reason = r["harness_reason"]
        if e["reason"] not in reason:
            problems.append(f"the skeleton's reason is {reason!r}; expected it to contain {e['reason']!r}")
        if not re.search(r"\.\w+\b", reason):
            problems.append(f"the skeleton's reason names no file: {reason}")
        return problems, "skeleton: " + reason[:90], None
    harness = out / "harness"
    problems += check_harness(e, r, harness)
    seed = (harness / "seed.cu").read_text()
    problems += [f"seed.cu lacks {want!r}" for want in e.get("seed_contains", []) if want not in seed]
    if "world_size" in e and r["world_size"] != e["world_size"]:
        problems.append(f"world size {r['world_size']} ({r['world_size_source'] or 'assumed'}), expected {e['world_size']}")
    if "world_sizes" in e:  # the rank counts harness/workload.toml verifies at
        wss = re.search(r"^world_sizes = \[([^\]]*)\]", (harness / "workload.toml").read_text(), re.M)
        got = [int(w) for w in wss.group(1).split(",")] if wss else None
        if got != e["world_sizes"]:
            problems.append(f"world_sizes {got}, expected {e['world_sizes']}")
    if "run_folders" in e:  # the folders harness/workload.toml has made where each run starts
        rf = re.search(r"^run_folders = \[([^\]]*)\]", (harness / "workload.toml").read_text(), re.M)
        got = [f.strip().strip('"') for f in rf.group(1).split(",")] if rf else []
        if got != e["run_folders"]:
            problems.append(f"run_folders {got}, expected {e['run_folders']}")
    summary = f"harness: {e['loop']}, " + ", ".join(f"{how} {b}" for b, how in e["buffers"].items())
    return problems, summary, harness if e.get("compile_check") else None


def compile_check(cuco, harness, tmp):
    rc, so, se = run([cuco, "eval", str(harness), "--stage", "compile-check", "--run-dir", str(tmp / "runs" / harness.parent.name)],
                     None, 900)
    return [] if rc == 0 else [f"eval --stage compile-check exited {rc}: {(so + se).strip()[-600:]}"]


def main():
    args = sys.argv[1:]
    compile_too = "--no-compile" not in args
    args = [a for a in args if a != "--no-compile"]
    keep, shard = None, (1, 1)
    if args[:1] == ["--shard"] and len(args) > 1:
        shard, args = tuple(int(x) for x in args[1].split("/")), args[2:]
    if args[:1] == ["--keep"] and len(args) > 1:
        keep, args = pathlib.Path(args[1]).resolve(), args[2:]
    if not args:
        sys.exit(__doc__)
    cuco, names = str(pathlib.Path(args[0]).resolve()), set(args[1:])
    folders = sorted(f.parent for f in HERE.glob("*/expect.toml") if not names or f.parent.name in names)
    failed = 0
    def one(folder):  # init, then the compile where expected: the compiles start first (two cores)
        problems, summary, harness = check(cuco, folder, tmp)
        if compile_too and harness is not None and not problems:
            problems = compile_check(cuco, harness, tmp)
            summary += ", compiled"
        return problems, summary

    first = sorted(folders, key=lambda f: ("compile_check = true" not in (f / "expect.toml").read_text(), f.name))
    first = first[shard[0] - 1::shard[1]]  # interleaved: each part gets its share of the compiles
    folders = [f for f in folders if f in first]
    with tempfile.TemporaryDirectory(prefix="cuco-habits-") as t, concurrent.futures.ThreadPoolExecutor(2) as pool:
        tmp = keep or pathlib.Path(t)
        tmp.mkdir(parents=True, exist_ok=True)
        results = dict(zip(first, pool.map(one, first)))
        for f in folders:
            problems, summary = results[f]
            failed += bool(problems)
            print(f"{f.name}: {'FAIL ' + '; '.join(problems) if problems else 'ok (' + summary + ')'}", flush=True)
    print(f"{len(folders) - failed} of {len(folders)} habit programs as expected")
    sys.exit(1 if failed else 0)


main()
