"""Planted honest-looking bugs for the issue-5 workloads, as edits of their seeds.

Each candidate is the workload's seed.cu with one edit inside its EVOLVE block (the old text found
exactly once there) and a comment line naming the bug; each must end as wrong_result. They show that
the frozen references catch real mistakes, not only that correct code passes.
tests/gpu/make_candidates.py writes them at test time; bench/device-planted.sh runs them on a GPU
(world size 1 where the workload allows it).
"""

# workload -> [(file, description, old text, new text)]
_BUGS = {
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

# workload -> candidate name -> {"header", "edits"} (tests/gpu/make_candidates.py).
PLANTS = {
    workload: {
        file[:-len(".cu")]: {"header": f"// PLANTED BUG (expected: wrong_result): {what}.\n", "edits": [(old, new)]}
        for file, what, old, new in bugs
    }
    for workload, bugs in _BUGS.items()
}
