#!/usr/bin/env python3
"""Planted honest-looking bugs for the issue-5 workloads: each file is the workload's seed.cu with one
edit inside its EVOLVE block, and each must end as wrong_result. They show that the frozen references
catch real mistakes, not only that correct code passes. Regenerate after changing a seed:
    python3 tests/gpu/make_planted_wrong.py
Checked on a GPU by bench/device-planted.sh (world size 1 where the workload allows it)."""
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]

# workload -> [(file, description, old text, new text)]
PLANTS = {
    "moe_dispatch_combine": [
        ("skip_last_expert.cu", "the last local expert's FFN is never run (its rows stay stale)",
         "  // 5. Expert FFNs, one (expert, source) block at a time.\n  for (int64_t le = 0; le < epr; ++le)",
         "  // 5. Expert FFNs, one (expert, source) block at a time.\n  for (int64_t le = 0; le < epr - 1; ++le)"),
        ("wrong_expert_weights.cu", "every block runs the next local expert's weights",
         "w1 + static_cast<size_t>(le * H * 2 * s->F)", "w1 + static_cast<size_t>(((le + 1) % epr) * H * 2 * s->F)"),
    ],
    "kv_transfer": [
        ("page_table_ignored.cu", "pages land in logical order, not where the page table puts them",
         "    uint4* dst = cache + (l * pages + page_table[p]) * per_unit;",
         "    uint4* dst = cache + (l * pages + p) * per_unit;"),
        ("last_layer_not_sent.cu", "the last layer's K/V never travels (the decode rank lays out stale data)",
         "  const size_t total = static_cast<size_t>(s->L * s->S * s->N);",
         "  const size_t total = static_cast<size_t>((s->L - 1) * s->S * s->N);"),
    ],
    "attention_cp": [
        ("no_causal_mask.cu", "the causal mask is dropped (every query sees every key)",
         "  a.causal = s->causal;", "  a.causal = false;"),
        ("half_the_keys.cu", "only the first half of the keys is attended",
         "  a.sk = s->s;", "  a.sk = s->s / 2;"),
    ],
}


def main():
    bad = 0
    for workload, plants in PLANTS.items():
        seed = (ROOT / "workloads" / workload / "seed.cu").read_text()
        out = ROOT / "tests" / "gpu" / "candidates" / workload
        out.mkdir(parents=True, exist_ok=True)
        start = seed.index("// EVOLVE-BLOCK-START")
        for name, what, old, new in plants:
            if seed.count(old) != 1 or seed.index(old) < start:
                print(f"{workload}/{name}: the seed no longer holds the text to change once inside the block", file=sys.stderr)
                bad += 1
                continue
            marker = "// EVOLVE-BLOCK-START\n"
            code = seed.replace(old, new).replace(marker, marker + f"// PLANTED BUG (expected: wrong_result): {what}.\n", 1)
            (out / name).write_text(code)
            print(f"wrote tests/gpu/candidates/{workload}/{name}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
