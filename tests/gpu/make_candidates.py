#!/usr/bin/env python3
"""Writes the planted and adversarial GPU candidates from the workloads' seeds, at test time.

None of these candidates is committed: each is its workload's seed.cu with a few edits, and the edits
are what the tree holds.

  planted      the planted wrong candidates and cheats:
                 tests/gpu/candidates/wrong_results.py            (one-edit bugs of the issue-5 workloads)
                 tests/gpu/candidates/gemm_reducescatter/cheats.py (gemm_reducescatter's cheats, README.md)
  adversarial  the GPU candidates of the adversarial suite (tests/adversarial/README.md): every
               `<workload>/<name>.cu` row of tests/adversarial/expectations.tsv is the seed with its
               cuco_candidate_run renamed HonestRun and wrapped in the attack of
               tests/adversarial/gpu/<name>.cu.in (the text before its @SEED-EVOLVE-BLOCK@ line opens
               the EVOLVE block, the text after it closes the block).

Usage: make_candidates.py {planted|adversarial} OUT_DIR [--workload NAME]...
Writes OUT_DIR/<workload>/<name>.cu (only for the named workloads with --workload) and prints their
paths. An edit whose text the seed no longer holds exactly once inside its EVOLVE block is an error
naming the workload, the candidate and the file that describes it; the exit status is then 1 and no
file of that candidate is written. Standard library only (the GPU machines run it too).
"""
import argparse
import importlib.util
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
START = "// EVOLVE-BLOCK-START\n"
END = "// EVOLVE-BLOCK-END\n"
PLANT_SOURCES = ["tests/gpu/candidates/wrong_results.py", "tests/gpu/candidates/gemm_reducescatter/cheats.py"]
ADVERSARIAL_TSV = "tests/adversarial/expectations.tsv"
ATTACK_DIR = "tests/adversarial/gpu"
SEED_BLOCK_LINE = "// @SEED-EVOLVE-BLOCK@"
RUN = "cuco::Status cuco_candidate_run(cuco::RankContext& ctx, void* state, const cuco::IO& io) {\n"
HONEST_RUN = ("// The seed's run, kept as the honest work the attack wraps.\n"
              "static cuco::Status HonestRun(cuco::RankContext& ctx, void* state, const cuco::IO& io) {\n")


class EditError(Exception):
    pass


def replace_once(text, old, new, where):
    n = text.count(old)
    if n != 1:
        raise EditError(f"{where}: the text to replace occurs {n} times (exactly once expected):\n{old}")
    return text.replace(old, new)


def apply_plant(seed, plant):
    """The candidate: seed with plant's header opening its block, its edits, its appended text."""
    if seed.count(START) != 1 or seed.count(END) != 1:
        raise EditError("the seed has not exactly one EVOLVE block")
    start = seed.index(START) + len(START)
    end = seed.index(END)
    prefix, block, suffix = seed[:start], seed[start:end], seed[end:]
    for i, (old, new) in enumerate(plant.get("edits", []), 1):
        block = replace_once(block, old, new, f"edit {i} (inside the EVOLVE block)")
    for i, (old, new) in enumerate(plant.get("frozen_edits", []), 1):
        prefix = replace_once(prefix, old, new, f"frozen edit {i} (before the EVOLVE block)")
    return prefix + plant.get("header", "") + block + plant.get("append", "") + suffix


def load_module(rel):
    sys.dont_write_bytecode = True  # nothing written into the source tree
    spec = importlib.util.spec_from_file_location(pathlib.Path(rel).stem, ROOT / rel)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def planted():
    """(workload, name, plant, source) for every planted candidate."""
    for rel in PLANT_SOURCES:
        for workload, plants in load_module(rel).PLANTS.items():
            for name, plant in plants.items():
                yield workload, name, plant, rel


def adversarial():
    """(workload, name, plant, source) for every GPU row of the adversarial suite."""
    for line in (ROOT / ADVERSARIAL_TSV).read_text().splitlines():
        path = line.split("\t", 1)[0]
        if not path.endswith(".cu") or "/" not in path:
            continue
        workload, file = path.split("/", 1)
        rel = f"{ATTACK_DIR}/{file}.in"
        template = (ROOT / rel).read_text()
        marks = [l for l in template.splitlines(keepends=True) if l.startswith(SEED_BLOCK_LINE)]
        if len(marks) != 1:
            raise SystemExit(f"make_candidates: {rel}: {len(marks)} lines start with {SEED_BLOCK_LINE} (one expected)")
        head, _, attack = template.partition(marks[0])
        yield workload, file[:-len(".cu")], {"header": head, "edits": [(RUN, HONEST_RUN)], "append": attack}, rel


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("suite", choices=["planted", "adversarial"])
    ap.add_argument("out_dir", type=pathlib.Path)
    ap.add_argument("--workload", action="append", default=[], help="only this workload (repeatable)")
    args = ap.parse_args()
    bad = 0
    for workload, name, plant, source in (planted() if args.suite == "planted" else adversarial()):
        if args.workload and workload not in args.workload:
            continue
        seed_path = f"workloads/{workload}/seed.cu"
        try:
            code = apply_plant((ROOT / seed_path).read_text(), plant)
        except EditError as e:
            print(f"make_candidates: {workload}/{name}.cu ({source}) no longer applies to {seed_path}: {e}",
                  file=sys.stderr)
            bad += 1
            continue
        out = args.out_dir / workload / f"{name}.cu"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(code)
        print(out)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
