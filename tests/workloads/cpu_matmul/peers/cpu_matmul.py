#!/usr/bin/env python3
"""A stand-in peer for cuco's CPU test workload: exercises `cuco bench`'s peer plumbing (one
process per rank from cuco's launcher, --size/--warmup/--iters/--out, a rendezvous folder, max
over ranks, rank 0's JSON) without PyTorch or a GPU. Pure Python, so it is slow and not a real
baseline. The contract it follows is bench/peers/README.md; real peers use torch.distributed.

Rank r computes (at most 8 rows of) its M/W x N block of C = A B in pure Python -- a sample, to keep
cuco's tests fast -- then "communicates": writes the block into the rendezvous folder and reads
every other rank's block back.
"""

import argparse
import json
import os
import random
import struct
import sys
import time


def percentile(values, q):
    v = sorted(values)
    pos = q * (len(v) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def wait_for(paths, timeout=120):
    t0 = time.time()
    while not all(os.path.exists(p) for p in paths):
        if time.time() - t0 > timeout:
            raise SystemExit(f"peer: timed out waiting for {paths}")
        time.sleep(0.001)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--size", action="append", default=[])
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--timed-seconds", type=float, default=0.0)  # accepted; a stand-in times --iters
    p.add_argument("--max-iters", type=int, default=640)
    p.add_argument("--rel-l2", type=float, default=1e-4)
    p.add_argument("--max-abs", type=float, default=1e-3)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    sizes = dict((k, int(v)) for k, _, v in (s.partition("=") for s in a.size))
    rank, world = int(os.environ["CUCO_RANK"]), int(os.environ["CUCO_WORLD_SIZE"])
    rdv = os.environ["CUCO_RENDEZVOUS_DIR"]
    os.makedirs(rdv, exist_ok=True)
    m, n, k = sizes["M"], sizes["N"], sizes["K"]
    rows = min(8, m // world)  # a sample of the rank's rows: pure Python is slow
    rng = random.Random(rank)
    a_rows = [[rng.uniform(-1, 1) for _ in range(k)] for _ in range(rows)]
    b_cols = [[rng.uniform(-1, 1) for _ in range(k)] for _ in range(n)]  # B transposed

    barrier_count = [0]

    def barrier():
        i = barrier_count[0]
        barrier_count[0] += 1
        open(os.path.join(rdv, f"bar.{i}.{rank}"), "w").close()
        wait_for([os.path.join(rdv, f"bar.{i}.{r}") for r in range(world)])

    def compute():
        return [[sum(x * y for x, y in zip(row, col)) for col in b_cols] for row in a_rows]

    def communicate(block, it):
        data = struct.pack(f"{rows * n}f", *(v for r in block for v in r))
        tmp = os.path.join(rdv, f"blk.{it}.{rank}.tmp")
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, os.path.join(rdv, f"blk.{it}.{rank}"))
        others = [os.path.join(rdv, f"blk.{it}.{r}") for r in range(world) if r != rank]
        wait_for(others)
        for o in others:
            with open(o, "rb") as f:
                struct.unpack(f"{rows * n}f", f.read())

    # The self-check of the full entry (bench/peers/README.md): the block against a reference made
    # another way (each dot product summed in reverse order).
    block = compute()
    ref = [[sum(x * y for x, y in reversed(list(zip(row, col)))) for col in b_cols] for row in a_rows]
    diff = [abs(u - v) for br, rr in zip(block, ref) for u, v in zip(br, rr)]
    norm = sum(v * v for rr in ref for v in rr) ** 0.5 or 1.0
    check = {"rel_l2": sum(d * d for d in diff) ** 0.5 / norm, "max_abs": max(diff or [0.0]),
             "what": f"{rows} rows against dot products summed in reverse order"}
    check["ok"] = check["rel_l2"] <= a.rel_l2 and check["max_abs"] <= a.max_abs

    t_seq, t_compute, t_comm = [], [], []
    for it in range(a.warmup + max(20, a.iters)):
        barrier()
        t0 = time.perf_counter()
        block = compute()
        t1 = time.perf_counter()
        communicate(block, it)
        t2 = time.perf_counter()
        if it >= a.warmup:
            t_compute.append((t1 - t0) * 1e3)
            t_comm.append((t2 - t1) * 1e3)
            t_seq.append((t2 - t0) * 1e3)
    mine = {}
    for name, times in (("python sequential", t_seq), ("python compute alone", t_compute), ("python comm alone", t_comm)):
        mine[name] = {"median_ms": percentile(times, 0.5), "p10_ms": percentile(times, 0.1),
                      "p90_ms": percentile(times, 0.9), "iters": len(times)}
    with open(os.path.join(rdv, f"result.{rank}.json.tmp"), "w") as f:
        json.dump(mine, f)
    os.replace(os.path.join(rdv, f"result.{rank}.json.tmp"), os.path.join(rdv, f"result.{rank}.json"))
    if rank == 0:
        paths = [os.path.join(rdv, f"result.{r}.json") for r in range(world)]
        wait_for(paths)
        ranks = [json.load(open(p)) for p in paths]
        entries = []
        for name, part in (("python sequential", None), ("python compute alone", "compute"), ("python comm alone", "comm")):
            slowest = max(ranks, key=lambda r: r[name]["median_ms"])
            e = dict(slowest[name], name=name)
            if part:
                e["part"] = part
            else:
                e["check"] = check  # rank 0's; a real peer takes the worst over ranks
            entries.append(e)
        # A peer entry that cannot run here says why and is skipped, never failing the bench.
        entries.append({"name": "python optional library", "skipped": "a stand-in for a peer whose library is missing"})
        with open(a.out, "w") as f:
            json.dump({"entries": entries, "torch": None, "python": sys.version.split()[0],
                       "timing": "time.perf_counter per iteration, max over ranks", "warmup": a.warmup,
                       "iters": a.iters}, f)


if __name__ == "__main__":
    main()
