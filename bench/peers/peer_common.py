"""Shared plumbing of cuco's PyTorch peers (contract: bench/peers/README.md).

A peer script imports this module (it sits beside the scripts), calls `start()`, times each of its
entries with `time_entry()`, and ends with `finish()`, which writes rank 0's result file with every
entry's median taken as the max over ranks, like cuco's judge does for its own entries.
"""

import argparse
import json
import math
import os
import sys
import time
import warnings


def parse_args():
    p = argparse.ArgumentParser(description="cuco PyTorch peer (bench/peers/README.md)")
    p.add_argument("--size", action="append", default=[], metavar="NAME=VALUE",
                   help="a bench size of the workload (unknown names are ignored)")
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--iters", type=int, default=20, help="timed iterations (at least 20 are run)")
    p.add_argument("--out", required=True, help="rank 0 writes the result JSON here")
    p.add_argument("--only", default="", help="comma-separated entry names to run (default: all)")
    a = p.parse_args()
    sizes = {}
    for s in a.size:
        name, _, value = s.partition("=")
        sizes[name] = int(value)
    a.iters = max(20, a.iters)
    a.warmup = max(1, a.warmup)
    return a, sizes


def percentile(values, q):
    """Linear interpolation between closest ranks (numpy's default; the harness's too)."""
    v = sorted(values)
    if not v:
        return float("nan")
    pos = q * (len(v) - 1)
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def _nccl_version(torch):
    try:
        v = torch.cuda.nccl.version()
        return ".".join(map(str, v)) if isinstance(v, (tuple, list)) else str(v)
    except Exception:  # noqa: BLE001
        return None


class Peer:
    """One rank of a peer run: torch.distributed over NCCL, rendezvous through a FileStore in
    CUCO_RENDEZVOUS_DIR."""

    def __init__(self):
        # NVLink multicast stays off on cuco's machines (cuco's launcher sets these too).
        os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
        os.environ.setdefault("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")
        os.environ.setdefault("NVSHMEM_DISABLE_NVLS", "1")
        import torch
        import torch.distributed as dist

        self.torch, self.dist = torch, dist
        self.args, self.sizes = parse_args()
        self.only = set(x for x in self.args.only.split(",") if x)
        self.rank = int(os.environ["CUCO_RANK"])
        self.world = int(os.environ["CUCO_WORLD_SIZE"])
        self.local_rank = int(os.environ.get("CUCO_LOCAL_RANK", self.rank))
        rdv = os.environ["CUCO_RENDEZVOUS_DIR"]
        # cuco's local launcher shows every rank all of the job's GPUs (rank uses device
        # CUCO_LOCAL_RANK); a launcher that shows each rank only its own GPU gives cuda:0.
        n = torch.cuda.device_count()
        index = self.local_rank if n > self.local_rank else 0
        self.device = torch.device("cuda", index)
        torch.cuda.set_device(self.device)
        store = dist.FileStore(os.path.join(rdv, "torch_filestore"), self.world)
        dist.init_process_group("nccl", store=store, rank=self.rank, world_size=self.world, device_id=self.device)
        self.group = dist.group.WORLD
        self.group_name = self.group.group_name
        self.entries = []
        self._flag = torch.zeros(1, device=self.device, dtype=torch.int32)
        self.log(f"torch {torch.__version__} on {torch.cuda.get_device_name(self.device)} ({self.device}), "
                 f"rank {self.rank} of {self.world}, sizes {self.sizes}")

    def log(self, msg):
        print(f"[peer r{self.rank}] {msg}", file=sys.stderr, flush=True)

    def size(self, name):
        if name not in self.sizes:
            raise SystemExit(f"peer: size {name} was not given (--size {name}=...)")
        return self.sizes[name]

    def enable_symm_mem(self):
        """Symmetric memory for the world group (needed by torch.ops.symm_mem.* before torch 2.10,
        a deprecated no-op after)."""
        try:
            from torch.distributed._symmetric_memory import enable_symm_mem_for_group
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                enable_symm_mem_for_group(self.group_name)
        except ImportError:
            pass

    def time_entry(self, name, fn, refresh=None, part=None):
        """Times fn() (warm-up, then >= 20 iterations) with CUDA events on the current stream.
        Before each iteration: refresh() (fresh inputs, untimed), a host barrier of all ranks, and
        a one-element all-reduce on the current stream so that every rank's start event follows
        the same device-side barrier (as in cuco's harness). A failure is kept as the entry's error
        on every rank; the run goes on."""
        torch, dist = self.torch, self.dist
        if self.only and name not in self.only:
            return
        entry = {"name": name, "iters": 0}
        if part:
            entry["part"] = part
        times = []
        error = None
        try:
            for _ in range(self.args.warmup):
                if refresh:
                    refresh()
                fn()
            torch.cuda.synchronize()
            start = torch.cuda.Event(enable_timing=True)
            stop = torch.cuda.Event(enable_timing=True)
            for _ in range(self.args.iters):
                if refresh:
                    refresh()
                torch.cuda.synchronize()
                dist.barrier()
                dist.all_reduce(self._flag)
                start.record()
                fn()
                stop.record()
                stop.synchronize()
                times.append(start.elapsed_time(stop))
            torch.cuda.synchronize()
        except Exception as e:  # noqa: BLE001 - any failure is the entry's, not the run's
            error = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
            self.log(f"{name}: FAILED: {error}")
        mine = {"median_ms": percentile(times, 0.5), "p10_ms": percentile(times, 0.1),
                "p90_ms": percentile(times, 0.9), "min_ms": min(times) if times else float("nan"),
                "iters": len(times), "error": error}
        if error is None:
            self.log(f"{name}: median {mine['median_ms']:.4f} ms (p10 {mine['p10_ms']:.4f}, "
                     f"p90 {mine['p90_ms']:.4f}) over {len(times)} iterations")
        # Every rank's figures to every rank (the object collective needs all ranks alive: a rank
        # whose entry failed still takes part).
        gathered = [None] * self.world
        dist.all_gather_object(gathered, mine)
        errors = [g["error"] for g in gathered if g["error"]]
        if errors:
            entry["error"] = errors[0]
        else:
            slowest = max(range(self.world), key=lambda r: gathered[r]["median_ms"])
            s = gathered[slowest]
            entry.update({"median_ms": s["median_ms"], "p10_ms": s["p10_ms"], "p90_ms": s["p90_ms"],
                          "iters": s["iters"], "slowest_rank": slowest,
                          "rank_median_ms": [g["median_ms"] for g in gathered]})
        self.entries.append(entry)

    def finish(self, workload, extra=None):
        torch, dist = self.torch, self.dist
        if self.rank == 0:
            result = {"workload": workload, "torch": torch.__version__, "cuda": torch.version.cuda,
                      "nccl": _nccl_version(torch),
                      "device": torch.cuda.get_device_name(self.device), "world_size": self.world,
                      "sizes": self.sizes, "warmup": self.args.warmup, "iters": self.args.iters,
                      "timing": "CUDA events on the current stream; host barrier + device all-reduce before each "
                                "start; median per rank, max over ranks (p10/p90 of the slowest rank)",
                      "entries": self.entries, "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
            if extra:
                result.update(extra)
            tmp = self.args.out + ".tmp"
            with open(tmp, "w") as f:
                json.dump(result, f, indent=1)
            os.replace(tmp, self.args.out)
        dist.barrier()
        dist.destroy_process_group()
