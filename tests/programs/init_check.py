#!/usr/bin/env python3
"""Puts every corpus program through `cuco init --json` (its own build command after `--`) and
checks what init made of it against the program's program.toml:
  - a program started once per rank (bootstrap mpi, file, socket), one process driving every GPU
    (single_process) or a thread per GPU (threads; for both, each rank does its GPU's part,
    cuco/program/impl/projection.h) gets a harness made of the program itself (harness_ready), with
    no TODO(cuco init) left in harness/; any other gets the skeleton and a reason naming file:line;
  - every buffer the harness binds is one program.toml lists as an input (bound as input or inout)
    or an output (output or inout), never an intermediate; every listed output is bound (a per-GPU
    array's entry, `d_w[cuco_program::rank()]`, is program.toml's `d_w` or `stages[s].x`);
  - with --compile, `cuco eval <workload>/harness --stage compile-check` builds the seed and the supervisor
    with the reference (the real nvcc), `cuco transform` makes generation 0 with the knobs backend and
    graph (compiled), and generation 0 with backend "lsa" and graph "on" compiles too, then with graph "off"
    (and backend "ce" where the program reduces or all-gathers) compiling only its knob values.
Usage: init_check.py [--compile] <cuco binary> [program ...]. One line per program; exit 1 if any fails."""
import json, pathlib, re, shlex, subprocess, sys, tempfile, tomllib

HERE = pathlib.Path(__file__).resolve().parent
PER_RANK = {"mpi", "file", "socket", "single_process", "threads"}


def check(cuco, folder, out, compile_too):
    t = tomllib.loads((folder / "program.toml").read_text())
    sources = [s for s in t["sources"] if s.endswith((".cu", ".cc", ".cpp"))]
    cmd = [cuco, "init", "--json", *sources, "--out", str(out), "--", *shlex.split(t["build"])]
    p = subprocess.run(cmd, cwd=folder, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        return [f"cuco init exited {p.returncode}: {p.stderr.strip()[:400]}"], ""
    r = json.loads(p.stdout)
    problems = []
    if t["bootstrap"] not in PER_RANK:
        if r["harness_ready"]:
            problems.append(f"made a harness of a program whose bootstrap is {t['bootstrap']}")
        elif not re.search(r"\.\w+:\d+", r["harness_reason"]):
            problems.append(f"the reason names no file:line: {r['harness_reason']}")
        return problems, "skeleton: " + r["harness_reason"][:100]
    if not r["harness_ready"]:
        return [f"no harness: {r['harness_reason']}"], ""
    harness = out / "harness"
    for f in harness.iterdir():
        if f.is_file() and "TODO(cuco init)" in f.read_text(errors="replace"):
            problems.append(f"TODO(cuco init) left in harness/{f.name}")
    roles = {b["name"]: b["role"] for b in t.get("buffers", [])}
    binds = re.findall(r'cuco_bind\.(?:as<[^>]*>\(\)\.)?(input|output|inout)\("[^"]*", ([^;]+)\);', (harness / "seed.cu").read_text())
    def toml_name(expr):
        expr = expr.strip()
        for cand in (expr, expr.replace("[cuco_program::rank()]", "[s]"), expr.replace("[cuco_program::rank()]", "")):
            if cand in roles:
                return cand
        return expr

    binds = [(how, toml_name(expr)) for how, expr in binds]
    for how, expr in binds:
        role = roles.get(expr.strip())
        if role is None:
            problems.append(f"binds {expr} ({how}), which program.toml does not list")
        elif role == "intermediate" or (how == "input" and role != "input") or (how == "output" and role != "output"):
            problems.append(f"binds {expr} as {how}; program.toml says {role}")
    bound = {e.strip() for _, e in binds}
    for name, role in roles.items():
        if role == "output" and name not in bound:
            problems.append(f"output {name} is not bound")
    summary = ", ".join(f"{h} {e}" for h, e in binds)
    if compile_too and not problems:
        c = subprocess.run([cuco, "eval", str(harness), "--stage", "compile-check", "--run-dir", str(out / "runs")],
                           capture_output=True, text=True, timeout=1500)
        if c.returncode != 0:
            problems.append(f"eval --stage compile-check exited {c.returncode}: {(c.stdout + c.stderr).strip()[-600:]}")
        mpi_only = not any(o["call"].startswith("nccl") for o in t.get("ops", []))
        problems += check_generation0(cuco, harness, out, mpi_only)
    return problems, summary


# The programs whose generation 0 has the chunks knob: an all-reduce or reduce-scatter right after
# the call that makes its buffer with a GEMM cuco can split, or (one thread driving every GPU) a loop
# of them after the loop of GEMMs that makes their buffers (src/transform/producer_sites.h).
CHUNKS = {"tp_mlp_mpi", "gemm_rs_fp16_socket", "sp_mlp_bf16_mpi", "dp_allreduce_threads_bf16", "dp_broadcast_group"}
# The programs whose generation 0 has the gather knob: a GEMM right after the all-gather of what it
# reads (src/transform/producer_sites.h's consumer form).
GATHER = {"sp_mlp_bf16_mpi"}


def check_generation0(cuco, harness, out, mpi_only):
    """cuco transform: generation 0 with its knobs marked at the program's behaviour (chunks where
    CHUNKS says, gather where GATHER says), compiled; then the other corner of the space (lsa, on,
    4 chunks, gather on) compiled. A program communicating through MPI alone (`mpi_only`) has its MPI
    collectives routed through cuco_program::mpi_comm, backend "mpi" by default."""
    gen0 = harness / "gen0_transformed.cu"
    t = subprocess.run([cuco, "transform", str(harness), "--run-dir", str(out / "transform")],
                       capture_output=True, text=True, timeout=1500)
    text = gen0.read_text() if gen0.exists() else ""
    if t.returncode != 0 or "compiled only" not in t.stdout:
        return [f"cuco transform exited {t.returncode}: {(t.stdout + t.stderr).strip()[-600:]}"]
    problems = []
    own = 'kCucoBackend = "mpi";   // cuco:knob backend' if mpi_only else 'kCucoBackend = "nccl";  // cuco:knob backend'
    for mark in (own, 'kCucoGraph = "off";     // cuco:knob graph'):
        if mark not in text:
            problems.append(f"generation 0 lacks `{mark}`")
    routed = "cuco_program::mpi_comm::" if mpi_only else "cuco_program::comm::"
    if routed not in text:
        problems.append(f"generation 0 routes no {'MPI collective' if mpi_only else 'NCCL call'} through {routed[:-2]}")
    name = harness.parent.name
    has_chunks = 'kCucoChunks = "1";     // cuco:knob chunks' in text
    if has_chunks != (name in CHUNKS):
        problems.append(f"generation 0 {'has' if has_chunks else 'lacks'} the chunks knob ({t.stdout.strip()[-400:]})")
    has_gather = 'kCucoGather = "off";   // cuco:knob gather' in text
    if has_gather != (name in GATHER):
        problems.append(f"generation 0 {'has' if has_gather else 'lacks'} the gather knob ({t.stdout.strip()[-400:]})")
    corner = out / "gen0_lsa_graph.cu"
    corner.write_text(text.replace('kCucoBackend = "nccl"', 'kCucoBackend = "lsa"').replace('kCucoBackend = "mpi"', 'kCucoBackend = "lsa"').replace('kCucoGraph = "off"', 'kCucoGraph = "on"')
                      .replace('kCucoChunks = "1"', 'kCucoChunks = "4"').replace('kCucoGather = "off"', 'kCucoGather = "on"')
                      .replace('kCucoCommCtas = "all"', 'kCucoCommCtas = "32"'))
    c = subprocess.run([cuco, "eval", str(harness), str(corner), "--stage", "compile-check", "--run-dir", str(out / "corner")],
                       capture_output=True, text=True, timeout=1500)
    if c.returncode != 0:
        problems.append(f"generation 0 at backend=lsa, graph=on, chunks=4, comm_ctas=32: eval --stage compile-check exited {c.returncode}: "
                        f"{(c.stdout + c.stderr).strip()[-600:]}")
    # Another setting of the same code compiles only its knob values (evaluate/runtime_knobs.h) and
    # passes the same checks (the object check: nothing run at load but cuco's).
    # Where the copy engines can move the program's calls (it reduces or all-gathers), the other setting
    # is their backend (it compiles and links).
    other = out / "gen0_other_setting.cu"
    ce = '"ce"]' in (harness / "workload.toml").read_text()
    other.write_text(corner.read_text().replace('kCucoGraph = "on"', 'kCucoGraph = "off"')
                     .replace('kCucoBackend = "lsa"', 'kCucoBackend = "ce"' if ce else 'kCucoBackend = "lsa"'))
    c = subprocess.run([cuco, "eval", str(harness), str(other), "--stage", "compile-check", "--run-dir", str(out / "other")],
                       capture_output=True, text=True, timeout=1500)
    if c.returncode != 0 or "its knob values compiled and linked" not in c.stdout:
        problems.append(f"generation 0 at graph=off ({'ce' if ce else 'lsa'}): not only its knob values compiled (exit {c.returncode}): "
                        f"{(c.stdout + c.stderr).strip()[-600:]}")
    return problems


def main():
    args = sys.argv[1:]
    compile_too = "--compile" in args
    args = [a for a in args if a != "--compile"]
    cuco = str(pathlib.Path(args[0]).resolve())
    names = args[1:] or sorted(d.name for d in HERE.iterdir() if (d / "program.toml").exists())
    failed = 0
    with tempfile.TemporaryDirectory(prefix="cuco-init-check-") as tmp:
        for n in names:
            problems, summary = check(cuco, HERE / n, pathlib.Path(tmp) / n, compile_too)
            print(f"{n}: {'ok' if not problems else 'FAIL'}  {summary}")
            for pr in problems:
                print(f"    {pr}")
            failed += bool(problems)
    print(f"{len(names) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
