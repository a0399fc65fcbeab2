#!/usr/bin/env python3
"""Puts every program of tests/probes/probes.toml through cuco's path from a raw file (no GPU):

  cuco init <sources> --out W -- nvcc -std=c++17 [flags] [MPI's flags] <sources> ...
  cuco eval W/harness --stage compile-check  (the harness: the program itself, seed and reference)
  cuco transform W/harness                 (generation 0 with its knobs, compiled)

A probe that expects "harness" must get the program itself (no TODO(cuco init) left), compile,
and get a generation 0 written (or, with `refusal`, cuco transform's refusal saying that text; with
`chunks`, a generation 0 offering the chunks knob; `gather`, the gather knob; `included`, the included files' calls routed through the backend knob);
one that expects "skeleton" must get init's reason naming a line.

  probe_check.py [--keep DIR] <cuco> [name...]
  --keep DIR: the workloads stay in DIR/<name> (the device scripts' premade probes:
  bench/one-gpu/probes-verify.sh)
"""
import pathlib, re, subprocess, sys, tempfile, tomllib

HERE = pathlib.Path(__file__).resolve().parent


def mpi_flags():
    p = subprocess.run(["mpicc", "--showme:compile"], capture_output=True, text=True)
    return p.stdout.split() if p.returncode == 0 else []


def check(cuco, probe, out):
    folder = HERE / probe["name"]
    flags = ["-O2", "-std=c++17", *probe.get("flags", [])] + (mpi_flags() if probe.get("mpi") else [])
    build = ["nvcc", *flags, *probe["sources"], "-o", "prog", "-lnccl", "-lcublas", "-lcublasLt"]
    init = subprocess.run([cuco, "init", *probe["sources"], "--out", str(out), "--", *build], cwd=folder,
                          capture_output=True, text=True, timeout=600)
    if init.returncode != 0:
        return [f"cuco init exited {init.returncode}: {(init.stderr or init.stdout).strip()[-400:]}"]
    skeleton = "not the program itself" in init.stdout
    if probe["expect"] == "skeleton":
        if not skeleton:
            return ["expected the skeleton, got the program itself"]
        if not re.search(r"not the program itself: \S+:\d+: ", init.stdout):
            return ["the skeleton's reason names no file:line"]
        return []
    if skeleton:
        return ["got the skeleton: " + init.stdout.split("not the program itself: ")[1].splitlines()[0]]
    harness = out / "harness"
    left = [f.name for f in harness.iterdir() if f.is_file() and "TODO(cuco init)" in f.read_text(errors="replace")]
    if left:
        return [f"TODO(cuco init) left in {left}"]
    c = subprocess.run([cuco, "eval", str(harness), "--stage", "compile-check", "--run-dir", str(out / "runs")],
                       capture_output=True, text=True, timeout=1200)
    if c.returncode != 0 or not re.search(r"^\s*compile\s+ok", c.stdout, re.M):
        return ["harness did not compile: " + (c.stdout + c.stderr).strip()[-600:]]
    t = subprocess.run([cuco, "transform", str(harness), "--run-dir", str(out / "transform")],
                       capture_output=True, text=True, timeout=1200)
    if "refusal" in probe:  # no generation 0 expected: transform must refuse, saying why
        said = (t.stdout + t.stderr).strip()
        if t.returncode == 0 or probe["refusal"] not in said:
            return [f"expected cuco transform to refuse with '{probe['refusal']}', got exit {t.returncode}: {said[-600:]}"]
        return []
    if t.returncode != 0 or not (harness / "gen0_transformed.cu").exists():
        return [f"cuco transform exited {t.returncode}: " + (t.stdout + t.stderr).strip()[-600:]]
    if "compile_error" in t.stdout or "not compiled" in t.stdout:
        return ["generation 0 did not compile: " + t.stdout.strip()[-600:]]
    if probe.get("included"):
        gen0 = (harness / "gen0_transformed.cu").read_text()
        if "cuco_program::comm::RouteIncluded(kCucoBackend)" not in gen0 or probe["included"] not in t.stdout:
            return [f"generation 0 does not route the included files' calls ({probe['included']}): " + t.stdout.strip()[-600:]]
    for knob in ("chunks", "gather"):
        if probe.get(knob) and f"cuco:knob {knob}" not in (harness / "gen0_transformed.cu").read_text():
            said = [l for l in t.stdout.splitlines() if knob in l]
            return [f"generation 0 has no {knob} knob: " + (said[0].strip() if said else "cuco transform said nothing of it")]
    return []


def main():
    args = sys.argv[1:]
    keep = None
    if args[:1] == ["--keep"] and len(args) > 1:
        keep, args = pathlib.Path(args[1]).resolve(), args[2:]
    if not args:
        print(__doc__)
        return 2
    cuco, names = str(pathlib.Path(args[0]).resolve()), set(args[1:])
    probes = tomllib.loads((HERE / "probes.toml").read_text())["probe"]
    failed = 0
    with tempfile.TemporaryDirectory(prefix="cuco-probes-") as tmp:
        for probe in probes:
            if names and probe["name"] not in names:
                continue
            out = (keep or pathlib.Path(tmp)) / probe["name"]
            if out.exists():
                subprocess.run(["rm", "-rf", str(out)], check=True)
            problems = check(cuco, probe, out)
            print(("FAIL " if problems else "ok   ") + probe["name"] + "".join("\n  " + p for p in problems), flush=True)
            failed += bool(problems)
    print(f"{failed} of {len(probes)} probes failed" if failed else "every probe passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
